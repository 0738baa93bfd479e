/* SPDX-License-Identifier: MIT */
/* UTF-8 decoding and terminal widths for lib/output (outwidth.c).  Private to lib/output. */
#ifndef RD_OUTWIDTH_H
#define RD_OUTWIDTH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Length of the valid UTF-8 sequence at s (1-4) with its code point, 0 when
 * the byte at s does not start one.  Stops at the NUL: never reads past it.
 */
size_t rd_utf8_seq(const unsigned char *s, uint32_t *cp);

/*
 * Terminal columns of the first len bytes of UTF-8 text (SIZE_MAX: all of
 * it): East Asian wide characters 2, combining marks 0, an invalid byte 1.
 */
size_t rd_out_text_cols(const char *s, size_t len);

/*
 * The bytes of s's longest prefix that fits in cols columns, at least one
 * character (so that a wide one in a narrow column still moves on).
 */
size_t rd_out_text_fit(const char *s, size_t cols);

#endif

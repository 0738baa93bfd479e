// SPDX-License-Identifier: MIT
/*
 * UTF-8 as the output layer reads it (outwidth.h): a sequence's code point,
 * and how many terminal columns text takes.  Shared by the kit's own table
 * writer (output.c) and the libsmartcols one (outscols.c).
 */
#include "outwidth.h"

#include <stdint.h>

#include "base/base.h"

/*
 * Length of the valid UTF-8 sequence at s (1-4) with its code point, 0 when
 * the byte at s does not start one.  Stops at the NUL: never reads past it.
 */
size_t rd_utf8_seq(const unsigned char *s, uint32_t *cp)
{
	unsigned char c = s[0];
	uint32_t v;
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		v = c & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10ffff)) ||
	    (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/*
 * The columns a code point takes on a terminal: 0 for combining marks and
 * zero-width characters, 2 for East Asian wide and fullwidth forms and
 * emoji, else 1 (the ranges of Unicode's EastAsianWidth W/F and general
 * category Mn that names and descriptions meet; no locale needed).
 */
static unsigned int cp_width(uint32_t cp)
{
	static const uint32_t zero[][2] = {
		{ 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd }, { 0x0610, 0x061a },
		{ 0x064b, 0x065f }, { 0x0e31, 0x0e31 }, { 0x0e34, 0x0e3a }, { 0x1ab0, 0x1aff },
		{ 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x202a, 0x202e }, { 0x2060, 0x206f },
		{ 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f }, { 0xfeff, 0xfeff },
	};
	static const uint32_t wide[][2] = {
		{ 0x1100, 0x115f }, { 0x2e80, 0x303e }, { 0x3041, 0x33ff }, { 0x3400, 0x4dbf },
		{ 0x4e00, 0x9fff }, { 0xa000, 0xa4cf }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff },
		{ 0xfe30, 0xfe4f }, { 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f300, 0x1f64f },
		{ 0x1f900, 0x1f9ff }, { 0x20000, 0x3fffd },
	};

	for (size_t i = 0; i < RD_ARRAY_SIZE(zero); i++)
		if (cp >= zero[i][0] && cp <= zero[i][1])
			return 0;
	for (size_t i = 0; i < RD_ARRAY_SIZE(wide); i++)
		if (cp >= wide[i][0] && cp <= wide[i][1])
			return 2;
	return 1;
}

size_t rd_out_text_cols(const char *s, size_t len)
{
	/* Values are UTF-8 (escaped before they get here): columns, not bytes. */
	const unsigned char *p = (const unsigned char *)s;
	size_t w = 0, i = 0;

	while (i < len && p[i]) {
		uint32_t cp = 0;
		size_t n = rd_utf8_seq(p + i, &cp);

		if (n > len - i)
			n = 0;	/* a sequence cut by len: a byte, as an invalid one */
		w += n ? cp_width(cp) : 1;
		i += n ? n : 1;
	}
	return w;
}

size_t rd_out_text_fit(const char *s, size_t cols)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t w = 0;

	while (*p) {
		uint32_t cp = 0;
		size_t n = rd_utf8_seq(p, &cp), cw = n ? cp_width(cp) : 1;

		if (w + cw > cols && p != (const unsigned char *)s)
			break;
		w += cw;
		p += n ? n : 1;
		if (w >= cols)
			break;
	}
	/* the marks that combine with the last character stay with it */
	while (*p) {
		uint32_t cp = 0;
		size_t n = rd_utf8_seq(p, &cp);

		if (!n || cp_width(cp) != 0)
			break;
		p += n;
	}
	return (size_t)(p - (const unsigned char *)s);
}

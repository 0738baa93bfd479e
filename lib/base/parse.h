/* SPDX-License-Identifier: MIT */
/*
 * Pure string parsers: sysfs values (the sysroot readers use them) and
 * numbers on the command line.  Leading and trailing white space is allowed;
 * -ENODATA for an empty string, -EINVAL for anything else that is not the
 * expected form, -ERANGE on overflow.
 */
#ifndef RD_PARSE_H
#define RD_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

int rd_parse_u64(const char *s, uint64_t *v);
int rd_parse_hex(const char *s, uint64_t *v);
int rd_parse_gid(const char *s, uint8_t gid[16]);
/* "4: ACTIVE" -> 4 and "ACTIVE"; name may be NULL. -EINVAL without a leading number. */
int rd_parse_enum(const char *s, uint64_t *num, char *name, size_t namelen);
/*
 * A byte count with an optional k/K (x1024) or m/M (x1048576) suffix, no
 * sign, no white space: "64", "64k", "1M".  -ERANGE above max.
 */
int rd_parse_size(const char *s, uint64_t max, uint64_t *v);

/*
 * What a user writes on a command line or in a file we read (unlike the
 * sysfs readers above: no white space, no sign):
 * rd_parse_uint: a whole number in decimal digits only ("0x2", "2.0", "1e3",
 * "+2" and " 2" are not whole numbers);
 * rd_parse_decimal: digits with an optional fraction ("2", "0.25"; no sign,
 * exponent, hex, nan or inf);
 * rd_parse_duration: such a number of seconds, or with a unit: "500ms",
 * "2s", "1.5m" (minutes).  -ENODATA empty, -EINVAL, -ERANGE.
 */
int rd_parse_uint(const char *s, uint64_t *v);
int rd_parse_decimal(const char *s, double *v);
int rd_parse_duration(const char *s, double *secs);

/* "ens1f0 ens1f1" (a bond's bonding/slaves) -> the names, added to out (modified in place).  -ENOMEM only. */
int rd_parse_bond_slaves(char *s, struct rd_strlist *out);

/*
 * A hexadecimal digit in the C locale (either case), without isxdigit's
 * call through the locale tables: the tools never set a locale and sysfs
 * values are ASCII.  Inline, as the parsers test every character with it.
 */
static inline bool rd_is_xdigit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A PCI address as sysfs names it: "0000:3b:00.0" (domain:bus:slot.function; "10000:..." behind VMD), nothing else. */
bool rd_is_pci_bdf(const char *s);
/*
 * A comma list with an empty item ("", ",a", "a,", "a,,b"): the one rule of
 * every list option (strtok_r would silently pass over the empty item).
 */
bool rd_list_has_empty_item(const char *s);

/*
 * A character an RDMA device name may have here (letters, digits, '_', '-',
 * '.'): what the kernel's names use, and nothing a log line or a shell could
 * misread.  The exchange's decoder and the --devices parser share it.
 */
bool rd_is_devname_char(char c);

#endif

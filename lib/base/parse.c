// SPDX-License-Identifier: MIT
/* String parsers for sysfs values and command-line numbers. */
#include "parse.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/*
 * The C locale's classes, without a call per character (the tools never
 * set a locale; sysfs values are ASCII).
 */
static bool c_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static const char *skip_space(const char *s)
{
	while (c_space(*s))
		s++;
	return s;
}

static int parse_base(const char *s, uint64_t *v, int base)
{
	unsigned long long x;
	char *end;

	s = skip_space(s);
	if (!*s)
		return -ENODATA;
	/* strtoull accepts a sign; a counter or id never has one. */
	if (!rd_is_xdigit(*s))
		return -EINVAL;
	/*
	 * Plain digits, as sysfs writes them, are read here (too few of them to
	 * overflow); anything else (a "0x" again, a digit of the other base,
	 * more digits) is strtoull's, with its errors.
	 */
	{
		unsigned int max = base == 16 ? 15 : 18, n = 0;
		uint64_t y = 0;
		const char *p = s;

		for (; n < max; p++, n++) {
			unsigned int d;

			if (*p >= '0' && *p <= '9')
				d = (unsigned int)(*p - '0');
			else if (base == 16 && *p >= 'a' && *p <= 'f')
				d = (unsigned int)(*p - 'a' + 10);
			else if (base == 16 && *p >= 'A' && *p <= 'F')
				d = (unsigned int)(*p - 'A' + 10);
			else
				break;
			y = y * (unsigned int)base + d;
		}
		if (n && n < max && !*skip_space(p)) {
			*v = y;
			return 0;
		}
	}
	errno = 0;
	x = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s)
		return -EINVAL;
	end = (char *)skip_space(end);
	if (*end)
		return -EINVAL;
	*v = x;
	return 0;
}

int rd_parse_u64(const char *s, uint64_t *v)
{
	const char *p = skip_space(s);

	if (*p && !(*p >= '0' && *p <= '9'))
		return -EINVAL;
	return parse_base(s, v, 10);
}

int rd_parse_hex(const char *s, uint64_t *v)
{
	s = skip_space(s);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		if (!rd_is_xdigit(*s))
			return -EINVAL;
	}
	return parse_base(s, v, 16);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The kernel's form, eight groups of four hex digits, read directly; false otherwise. */
static bool parse_gid_groups(const char *s, size_t n, uint8_t gid[16])
{
	if (n != 39)
		return false;
	for (size_t g = 0; g < 8; g++) {
		const char *p = s + g * 5;
		int d0 = hexval(p[0]), d1 = hexval(p[1]), d2 = hexval(p[2]), d3 = hexval(p[3]);

		if ((d0 | d1 | d2 | d3) < 0 || (g < 7 && p[4] != ':'))
			return false;
		gid[2 * g] = (uint8_t)(d0 << 4 | d1);
		gid[2 * g + 1] = (uint8_t)(d2 << 4 | d3);
	}
	return true;
}

int rd_parse_gid(const char *s, uint8_t gid[16])
{
	char tmp[64];
	size_t n;

	s = skip_space(s);
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n)
		return -ENODATA;
	if (parse_gid_groups(s, n, gid))
		return 0;
	if (n >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	/* The kernel's form is eight 4-digit groups; inet_pton also reads it. */
	if (inet_pton(AF_INET6, tmp, gid) != 1)
		return -EINVAL;
	return 0;
}

int rd_parse_enum(const char *s, uint64_t *num, char *name, size_t namelen)
{
	const char *p = skip_space(s);
	char digits[24] = "";	/* zeroed: clang's analyzer loses track of the copy loop */
	size_t n = 0;
	int ret;

	while (n < sizeof(digits) - 1 && isdigit((unsigned char)p[n])) {
		digits[n] = p[n];
		n++;
	}
	if (!n) {
		if (!*p)
			return -ENODATA;
		return -EINVAL;
	}
	digits[n] = '\0';
	ret = rd_parse_u64(digits, num);
	if (ret)
		return ret;
	p += n;
	if (*p && *p != ':' && !isspace((unsigned char)*p))
		return -EINVAL;
	if (*p == ':')
		p++;
	p = skip_space(p);
	if (name && namelen) {
		size_t len;

		rd_strlcpy(name, p, namelen);
		len = strlen(name);
		while (len && isspace((unsigned char)name[len - 1]))
			name[--len] = '\0';
	}
	return 0;
}

int rd_parse_size(const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	x = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if ((*end == 'k' || *end == 'K') && x <= (ULLONG_MAX >> 10))
		x <<= 10, end++;
	else if ((*end == 'm' || *end == 'M') && x <= (ULLONG_MAX >> 20))
		x <<= 20, end++;
	if (*end)
		return -EINVAL;
	if (x > max)
		return -ERANGE;
	*v = x;
	return 0;
}

int rd_parse_bond_slaves(char *s, struct rd_strlist *out)
{
	char *save = NULL, *tok;

	for (tok = strtok_r(s, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		int ret = rd_strlist_add(out, tok);

		if (ret)
			return ret;
	}
	return 0;
}

static size_t hex_run(const char *s)
{
	size_t n = 0;

	while (rd_is_xdigit(s[n]))
		n++;
	return n;
}

bool rd_is_devname_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-' || c == '.';
}

bool rd_list_has_empty_item(const char *s)
{
	return !*s || *s == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,");
}

bool rd_is_pci_bdf(const char *s)
{
	/* domain (4 hex digits, 5 behind a VMD bridge) ':' bus ':' slot '.' function (0-7) */
	size_t n = hex_run(s);

	if ((n != 4 && n != 5) || s[n] != ':')
		return false;
	s += n + 1;
	if (hex_run(s) != 2 || s[2] != ':')
		return false;
	s += 3;
	if (hex_run(s) != 2 || s[2] != '.')
		return false;
	s += 3;
	return s[0] >= '0' && s[0] <= '7' && s[1] == '\0';
}

int rd_parse_uint(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return -ENODATA;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	return 0;
}

/* Digits, then at most one '.' and more digits; the end of what was read in *end. */
static int decimal(const char *s, double *v, const char **end)
{
	const char *p = s;
	double x = 0, scale = 1;
	size_t digits = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++)
		x = x * 10 + (*p - '0');
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			scale /= 10;
			x += (*p - '0') * scale;
		}
	}
	if (!digits || digits > 18)
		return digits ? -ERANGE : -EINVAL;
	*v = x;
	*end = p;
	return 0;
}

int rd_parse_decimal(const char *s, double *v)
{
	const char *end;
	int ret;

	if (!*s)
		return -ENODATA;
	ret = decimal(s, v, &end);
	return ret ? ret : *end ? -EINVAL : 0;
}

int rd_parse_duration(const char *s, double *secs)
{
	static const struct {
		const char *unit;
		double secs;
	} units[] = { { "", 1 }, { "s", 1 }, { "ms", 0.001 }, { "m", 60 } };
	const char *end;
	double v;
	int ret;

	if (!*s)
		return -ENODATA;
	ret = decimal(s, &v, &end);
	if (ret)
		return ret;
	for (size_t i = 0; i < RD_ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			*secs = v * units[i].secs;
			return 0;
		}
	}
	return -EINVAL;
}

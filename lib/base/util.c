// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int rd_strlist_add(struct rd_strlist *l, const char *s)
{
	if (l->n + 1 >= l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(s);
	RD_GCC_LEAK_FP_BEGIN	/* stored in l->v just above */
	if (!l->v[l->n])
		return -ENOMEM;
	RD_GCC_LEAK_FP_END
	l->n++;
	l->v[l->n] = NULL;
	return 0;
}

int rd_strlist_move(struct rd_strlist *l, struct rd_strlist *from)
{
	if (!l->v) {
		*l = *from;
	} else if (from->n) {
		if (l->n + from->n + 1 > l->cap) {
			size_t cap = l->n + from->n + 1;
			char **v = realloc(l->v, cap * sizeof(*v));

			if (!v) {
				rd_strlist_free(from);
				return -ENOMEM;
			}
			l->v = v;
			l->cap = cap;
		}
		memcpy(l->v + l->n, from->v, from->n * sizeof(*from->v));
		l->n += from->n;
		l->v[l->n] = NULL;
		free(from->v);
	} else {
		free(from->v);
	}
	from->v = NULL;
	from->n = from->cap = 0;
	return 0;
}

bool rd_strlist_has(const struct rd_strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

int rd_strlist_add_unique(struct rd_strlist *l, const char *s)
{
	if (rd_strlist_has(l, s))
		return 0;
	return rd_strlist_add(l, s);
}

void rd_strlist_free(struct rd_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

char *rd_strlist_join(const struct rd_strlist *l, const char *sep)
{
	size_t len = 1, seplen = strlen(sep);
	char *out, *p;

	for (size_t i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + seplen;
	out = malloc(len);
	if (!out)
		return NULL;
	p = out;
	for (size_t i = 0; i < l->n; i++) {
		if (i) {
			memcpy(p, sep, seplen);
			p += seplen;
		}
		size_t n = strlen(l->v[i]);

		memcpy(p, l->v[i], n);
		p += n;
	}
	*p = '\0';
	return out;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int rd_natural_cmp(const char *a, const char *b)
{
	bool da = all_digits(a), db = all_digits(b);
	const char *a0 = a, *b0 = b;
	int r;

	if (da && db) {
		/* Compare by length after leading zeros, then lexically: no overflow. */
		while (*a == '0' && a[1])
			a++;
		while (*b == '0' && b[1])
			b++;
		size_t la = strlen(a), lb = strlen(b);

		if (la != lb)
			return la < lb ? -1 : 1;
		r = strcmp(a, b);
	} else if (da != db) {
		return da ? -1 : 1;
	} else {
		size_t i = 0, j, ea, eb;

		/*
		 * strverscmp compares two characters that are not digits, where
		 * the names first differ, as strcmp does, whatever came before
		 * (its table's "x/x" column): only a digit there needs it.
		 */
		while (a[i] == b[i] && a[i])
			i++;
		if (!isdigit((unsigned char)a[i]) && !isdigit((unsigned char)b[i]))
			return (unsigned char)a[i] - (unsigned char)b[i];
		/*
		 * Else from the start of the run of digits the difference is in:
		 * after a character that is not a digit strverscmp starts afresh
		 * (every state's next state is the plain one), so what came before
		 * tells it nothing.
		 */
		j = i;
		while (j > 0 && isdigit((unsigned char)a[j - 1]))
			j--;
		/*
		 * Runs of one length (the buses of two PCI addresses): strverscmp
		 * orders them as strcmp does, integral or fractional, so their
		 * first differing digit decides without it.
		 */
		for (ea = i; isdigit((unsigned char)a[ea]); ea++)
			;
		for (eb = i; isdigit((unsigned char)b[eb]); eb++)
			;
		if (ea == eb)
			return (unsigned char)a[i] - (unsigned char)b[i];
		r = strverscmp(a + j, b + j);
	}
	/* "3" and "03" are equal in value but different names: a total order. */
	return r ? r : strcmp(a0, b0);
}

static int natural_qsort_cmp(const void *a, const void *b)
{
	return rd_natural_cmp(*(char *const *)a, *(char *const *)b);
}

struct numbered {
	uint64_t v;
	char *s;
};

static int numbered_cmp(const void *a, const void *b)
{
	const struct numbered *x = a, *y = b;

	return x->v < y->v ? -1 : x->v > y->v;
}

/*
 * Names that are all plain decimal numbers (no leading zero, at most 19
 * digits: the slots of gids/, pkeys/, ports/) are parsed once and sorted by
 * value, which is the order rd_natural_cmp gives them; false otherwise.
 */
static bool sort_numbered(struct rd_strlist *l)
{
	struct numbered *v;

	for (size_t i = 0; i < l->n; i++) {
		const char *s = l->v[i];
		size_t n = strlen(s);

		if (n == 0 || n > 19 || (s[0] == '0' && n > 1) || !all_digits(s))
			return false;
	}
	v = malloc(l->n * sizeof(*v));
	if (!v)
		return false;
	for (size_t i = 0; i < l->n; i++) {
		uint64_t x = 0;

		for (const char *s = l->v[i]; *s; s++)
			x = x * 10 + (uint64_t)(*s - '0');
		v[i].v = x;
		v[i].s = l->v[i];
	}
	qsort(v, l->n, sizeof(*v), numbered_cmp);
	for (size_t i = 0; i < l->n; i++)
		l->v[i] = v[i].s;
	free(v);
	return true;
}

void rd_strlist_sort_natural(struct rd_strlist *l)
{
	if (l->n > 1 && !sort_numbered(l))
		qsort(l->v, l->n, sizeof(*l->v), natural_qsort_cmp);
}

void rd_warn(struct rd_warnings *w, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (!w)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(buf, sizeof(buf), fmt, ap);	/* truncation is fine */
	va_end(ap);
	/*
	 * The same fact read twice (a GID table by two lib calls) is said once.
	 * Out of memory while warning: the warning is lost, nothing else is.
	 */
	(void)rd_strlist_add_unique(&w->msgs, buf);
}

void rd_warnings_free(struct rd_warnings *w)
{
	rd_strlist_free(&w->msgs);
}

int rd_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, len, fmt, ap);

	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

int rd_snprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = rd_vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return ret;
}

void rd_strlcpy(char *dst, const char *src, size_t len)
{
	size_t n;

	if (!len)
		return;
	n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void rd_name_set(struct rd_name *n, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	n->s = s;
	while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
		p++;
	n->plain = *p == '\0';
	n->len = n->plain ? (size_t)(p - (const unsigned char *)s) : strlen(s);
}

static int first_write_errno;

int rd_write_error(int err)
{
	if (err <= 0)
		err = EIO;
	if (!first_write_errno)
		first_write_errno = err;
	return -err;
}

int rd_first_write_error(void)
{
	return first_write_errno;
}

void rd_format_time(const struct timespec *ts, bool utc, char buf[40])
{
	struct tm tm;
	time_t t = ts->tv_sec;
	size_t n;

	if (!(utc ? gmtime_r(&t, &tm) : localtime_r(&t, &tm))) {
		snprintf(buf, 40, "%lld.%03ld", (long long)ts->tv_sec, ts->tv_nsec / 1000000);
		return;
	}
	n = strftime(buf, 40, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, 40 - n, ".%03ld%s", ts->tv_nsec / 1000000, utc ? "Z" : "");
}

// SPDX-License-Identifier: MIT
/* Slurm-style host lists: expansion, hostfiles, compression. */
#include "hostlist.h"
#include "infile.h"
#include "strmap.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Numbers in brackets: 18 digits keep every value inside uint64_t. */
#define HL_MAX_DIGITS 18

struct hl_range {
	uint64_t lo, hi;
	int width; /* digits of lo as written: the zero padding */
};

/* One piece of an item: literal text, or a bracket group of ranges. */
struct hl_seg {
	const char *text; /* literal (not NUL-terminated) when nranges == 0 */
	size_t len;
	struct hl_range *ranges;
	size_t nranges;
	uint64_t count; /* names in the group */
	size_t maxw;	/* the most digits one of its numbers prints with */
};

struct hl_item {
	struct hl_seg *segs;
	size_t nsegs, cap;
};

static int hl_fail(struct rd_hostlist_error *err, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int hl_fail(struct rd_hostlist_error *err, size_t col, const char *fmt, ...)
{
	if (err) {
		va_list ap;

		err->column = col + 1;
		va_start(ap, fmt);
		(void)rd_vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void hl_item_clear(struct hl_item *it)
{
	for (size_t i = 0; i < it->nsegs; i++)
		free(it->segs[i].ranges);
	it->nsegs = 0;
}

static struct hl_seg *hl_item_push(struct hl_item *it)
{
	if (it->nsegs == it->cap) {
		size_t cap = it->cap ? it->cap * 2 : 8;
		struct hl_seg *s = realloc(it->segs, cap * sizeof(*s));

		if (!s)
			return NULL;
		it->segs = s;
		it->cap = cap;
	}
	memset(&it->segs[it->nsegs], 0, sizeof(it->segs[0]));
	return &it->segs[it->nsegs++];
}

static bool hl_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '.' || c == '_';
}

static bool hl_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Whitespace or the end: an item cannot go on (a ',' can, inside brackets). */
static bool hl_item_end(char c)
{
	return c == '\0' || (hl_sep(c) && c != ',');
}

/* Parse digits at s[*i]; fills *v and *width. */
static int hl_number(const char *s, size_t *i, uint64_t *v, int *width,
		     struct rd_hostlist_error *err)
{
	size_t start = *i;
	uint64_t n = 0;

	if (!isdigit((unsigned char)s[*i])) {
		if (s[*i] == '\0')
			return hl_fail(err, *i, "expected a number, found the end");
		return hl_fail(err, *i, "expected a number, found '%c'", s[*i]);
	}
	while (isdigit((unsigned char)s[*i])) {
		if (*i - start >= HL_MAX_DIGITS)
			return hl_fail(err, start, "number longer than %d digits", HL_MAX_DIGITS);
		n = n * 10 + (uint64_t)(s[*i] - '0');
		(*i)++;
	}
	*v = n;
	*width = (int)(*i - start);
	return 0;
}

/* Digits of v in decimal. */
static size_t hl_ndigits(uint64_t v)
{
	size_t n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/*
 * A group opened at open stops at s[i], the end of its item: a space or tab
 * with a ']' after it on the line is a range written with a space
 * ("n[1, 3]"), said so; anything else leaves the '[' unclosed.
 */
static int hl_unclosed(const char *s, size_t i, size_t open, struct rd_hostlist_error *err)
{
	if (s[i] == ' ' || s[i] == '\t') {
		size_t j = i;

		while (s[j] && s[j] != '\n' && s[j] != '\r' && s[j] != ']')
			j++;
		if (s[j] == ']')
			return hl_fail(err, i, "a space inside brackets (none in a range: n[1,3], "
					   "not n[1, 3])");
	}
	return hl_fail(err, open, "'[' is never closed");
}

/* A bracket group starting at s[*i] == '['; on return *i is past ']'. */
static int hl_group(const char *s, size_t *i, struct hl_seg *seg, struct rd_hostlist_error *err)
{
	size_t open = *i, cap = 0;

	(*i)++;
	for (;;) {
		struct hl_range r = { 0 };
		size_t at = *i;
		int rc;

		rc = hl_number(s, i, &r.lo, &r.width, err);
		if (rc)
			return hl_item_end(s[at]) ? hl_unclosed(s, at, open, err) : rc;
		r.hi = r.lo;
		if (s[*i] == '-') {
			int w;

			(*i)++;
			rc = hl_number(s, i, &r.hi, &w, err);
			if (rc)
				return hl_item_end(s[*i]) ? hl_unclosed(s, *i, open, err) : rc;
			if (r.hi < r.lo)
				return hl_fail(err, at, "range %.*s goes backwards",
					       (int)(*i - at), s + at);
		}
		if (r.hi - r.lo >= RD_HOSTLIST_MAX)
			return hl_fail(err, at, "range %.*s has more than %d names",
				       (int)(*i - at), s + at, RD_HOSTLIST_MAX);
		if (seg->nranges == cap) {
			struct hl_range *n;

			cap = cap ? cap * 2 : 4;
			n = realloc(seg->ranges, cap * sizeof(*n));
			if (!n)
				return -ENOMEM;
			seg->ranges = n;
		}
		seg->ranges[seg->nranges++] = r;
		seg->count += r.hi - r.lo + 1;
		if (hl_ndigits(r.hi) > seg->maxw)
			seg->maxw = hl_ndigits(r.hi);
		if ((size_t)r.width > seg->maxw)
			seg->maxw = (size_t)r.width;
		if (seg->count > RD_HOSTLIST_MAX)
			return hl_fail(err, open, "bracket group has more than %d names",
				       RD_HOSTLIST_MAX);
		if (s[*i] == ',') {
			(*i)++;
			continue;
		}
		if (s[*i] == ']') {
			(*i)++;
			return 0;
		}
		if (hl_item_end(s[*i]))
			return hl_unclosed(s, *i, open, err);
		return hl_fail(err, *i, "unexpected '%c' in brackets (want digits, '-', ',' or ']')",
			       s[*i]);
	}
}

/* Generate every name of an item into out (odometer over the groups). */
/* v in decimal, zero-padded to width (at most HL_MAX_DIGITS); no NUL. */
static size_t hl_put_number(char *d, uint64_t v, int width)
{
	char t[24];
	size_t n = 0, o = 0;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while ((int)(o + n) < width)
		d[o++] = '0';
	while (n)
		d[o++] = t[--n];
	return o;
}

static int hl_generate(const struct hl_item *it, struct rd_strlist *out)
{
	/* Every segment puts a byte or more into a name: at most RD_HOSTNAME_MAX of them. */
	size_t idx[RD_HOSTNAME_MAX] = { 0 }; /* range index per segment */
	uint64_t val[RD_HOSTNAME_MAX] = { 0 };
	size_t len = 1, n = it->nsegs;
	char *buf;
	int rc = 0;

	if (n > RD_ARRAY_SIZE(idx))
		return -E2BIG;
	for (size_t k = 0; k < n; k++) {
		len += it->segs[k].nranges ? HL_MAX_DIGITS + 2 : it->segs[k].len;
		if (it->segs[k].nranges)
			val[k] = it->segs[k].ranges[0].lo;
	}
	buf = malloc(len);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		size_t o = 0;
		size_t k;

		for (k = 0; k < n; k++) {
			const struct hl_seg *sg = &it->segs[k];

			if (!sg->nranges) {
				memcpy(buf + o, sg->text, sg->len);
				o += sg->len;
			} else {
				o += hl_put_number(buf + o, val[k], sg->ranges[idx[k]].width);
			}
		}
		buf[o] = '\0';
		rc = rd_strlist_add(out, buf);
		if (rc)
			break;
		/* advance: the last group turns fastest */
		for (k = n; k-- > 0;) {
			const struct hl_seg *sg = &it->segs[k];

			if (!sg->nranges)
				continue;
			if (val[k] < sg->ranges[idx[k]].hi) {
				val[k]++;
				break;
			}
			if (idx[k] + 1 < sg->nranges) {
				idx[k]++;
				val[k] = sg->ranges[idx[k]].lo;
				break;
			}
			idx[k] = 0;
			val[k] = sg->ranges[0].lo;
		}
		if (k == (size_t)-1)
			break;
	}
	free(buf);
	return rc;
}

/*
 * The items of s, each parsed and its names counted into *total before any is
 * made: past RD_HOSTLIST_MAX -E2BIG, at once (before: what *total held when
 * the run's earlier lists were done, for the message).  With out, each item's
 * names are then made into it; without, s is only checked and counted.
 */
static int hl_walk(const char *s, uint64_t *total, uint64_t before, struct rd_strlist *out,
		   struct rd_hostlist_error *err)
{
	struct hl_item it = { 0 };
	size_t i = 0;
	int rc = 0;

	while (s[i]) {
		size_t start, namelen = 0;
		uint64_t count = 1;

		/* separators, empty items too ("a,,b" is a and b, as in Slurm) */
		while (hl_sep(s[i]))
			i++;
		if (!s[i])
			break;
		start = i;
		hl_item_clear(&it);
		while (s[i] && !hl_sep(s[i])) {
			struct hl_seg *sg = hl_item_push(&it);

			if (!sg) {
				rc = -ENOMEM;
				break;
			}
			if (s[i] == '[') {
				rc = hl_group(s, &i, sg, err);
				if (rc)
					break;
				count *= sg->count;
				if (count > RD_HOSTLIST_MAX) {
					rc = hl_fail(err, start, "'%.*s' expands to more than %d names",
						     (int)(i - start > 40 ? 40 : i - start), s + start,
						     RD_HOSTLIST_MAX);
					break;
				}
				namelen += sg->maxw;
			} else if (s[i] == ']') {
				rc = hl_fail(err, i, "']' without '['");
				break;
			} else if (!hl_name_char(s[i])) {
				if (isprint((unsigned char)s[i]))
					rc = hl_fail(err, i, "'%c' is not allowed in a host name", s[i]);
				else
					rc = hl_fail(err, i, "byte 0x%02x is not allowed in a host name",
						     (unsigned char)s[i]);
				break;
			} else {
				sg->text = s + i;
				while (hl_name_char(s[i]))
					i++;
				sg->len = (size_t)(s + i - sg->text);
				namelen += sg->len;
			}
			/* Refused, not cut: a cut name could be another host's. */
			if (namelen > RD_HOSTNAME_MAX) {
				rc = hl_fail(err, start, "a host name longer than %d bytes",
					     RD_HOSTNAME_MAX);
				break;
			}
		}
		if (rc)
			break;
		*total += count;
		if (*total > RD_HOSTLIST_MAX) {
			rc = -E2BIG;
			if (err && before)
				(void)hl_fail(err, start, "more than %d names with the %llu listed before "
					      "(one limit for every host list)", RD_HOSTLIST_MAX,
					      (unsigned long long)before);
			else if (err)
				(void)hl_fail(err, start, "the list expands to more than %d names",
					      RD_HOSTLIST_MAX);
			break;
		}
		if (out) {
			rc = hl_generate(&it, out);
			if (rc)
				break;
		}
	}
	hl_item_clear(&it);
	free(it.segs);
	return rc;
}

static void hl_err_clear(struct rd_hostlist_error *err)
{
	if (err) {
		err->line = 0;
		err->column = 0;
		err->msg[0] = '\0';
	}
}

int rd_hostlist_expand(const char *expr, struct rd_strlist *out, struct rd_hostlist_error *err)
{
	struct rd_strlist tmp = { 0 };
	uint64_t before = out->n, total = before;
	int rc;

	hl_err_clear(err);
	/* Checked and counted whole first: a list over the limit makes no name. */
	rc = hl_walk(expr, &total, before, NULL, err);
	total = before;
	if (!rc)
		rc = hl_walk(expr, &total, before, &tmp, err);
	if (rc) {
		rd_strlist_free(&tmp);
		return rc;
	}
	return rd_strlist_move(out, &tmp);
}

/* A hostfile's host lists, comments and blank lines gone, one a line. */
struct hl_text {
	char *s;
	size_t len, cap;
};

static int hl_text_add(struct hl_text *t, const char *line, size_t len)
{
	if (!t->s || t->len + len + 2 > t->cap) {	/* the first line allocates */
		size_t cap = (t->len + len + 2) * 2;
		char *n = realloc(t->s, cap);

		if (!n)
			return -ENOMEM;
		t->s = n;
		t->cap = cap;
	}
	memcpy(t->s + t->len, line, len);
	t->len += len;
	t->s[t->len++] = '\n';
	t->s[t->len] = '\0';
	return 0;
}

int rd_hostfile_read(const char *path, int timeout_ms, struct rd_strlist *out,
		     struct rd_hostlist_error *err)
{
	const struct rd_infile_limits lim = {
		.max_bytes = RD_HOSTFILE_MAX_BYTES,
		.max_line = RD_HOSTFILE_MAX_LINE,
		.max_lines = RD_HOSTFILE_MAX_LINES,
		.timeout_ms = timeout_ms,
	};
	struct rd_strlist tmp = { 0 };
	struct rd_hostlist_error e = { 0 };
	struct hl_text text = { 0 };
	uint64_t before = out->n, total = before;
	struct rd_infile f;
	char *line;
	size_t len;
	int rc;

	/*
	 * Each line checked and counted as it comes (a file over the limit is
	 * refused at the line that passes it, before any name is made), kept,
	 * and the names made at the end from what was kept.
	 */
	rc = rd_infile_open(&f, path, &lim, e.msg, sizeof(e.msg));
	while (rc == 0 && (rc = rd_infile_line(&f, &line, &len, e.msg, sizeof(e.msg))) == 1) {
		char *hash = memchr(line, '#', len);

		if (hash) {
			*hash = '\0';
			len = (size_t)(hash - line);
		}
		rc = hl_walk(line, &total, before, NULL, &e);
		if (rc) {
			e.line = f.lineno;
			break;
		}
		rc = strspn(line, " \t\r,") < len ? hl_text_add(&text, line, len) : 0;
		if (rc)
			break;
	}
	rd_infile_close(&f);
	total = before;
	if (rc == 0 && text.s)
		rc = hl_walk(text.s, &total, before, &tmp, &e);
	free(text.s);
	if (rc)
		rd_strlist_free(&tmp);
	else
		rc = rd_strlist_move(out, &tmp);
	if (rc && err)
		*err = e;
	return rc;
}

/* ------------------------------------------------------------- compress */

struct hl_name {
	const char *name;
	size_t plen;  /* prefix length (up to the trailing digits) */
	int len;      /* length of the digits as written */
	uint64_t num;
	bool has_num;
	size_t group; /* first-seen order of the prefix */
};

static int hl_name_cmp(const void *pa, const void *pb)
{
	const struct hl_name *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return 0;
}

/* Does x print as written inside a range whose first number has width w? */
static bool hl_fits(const struct hl_name *x, int w)
{
	int d = (int)hl_ndigits(x->num);

	return x->len == (d > w ? d : w);
}

struct hl_buf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void hl_put(struct hl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void hl_put(struct hl_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = (b->len + (size_t)n + 1) * 2;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	(void)vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *rd_hostlist_compress(const struct rd_strlist *names)
{
	struct hl_name *v = calloc(names->n ? names->n : 1, sizeof(*v));
	struct hl_buf b = { 0 };
	struct rd_strmap groups = { 0 };
	size_t ngroups = 0, kcap = 0;
	char *key = NULL;
	int rc;

	if (!v)
		return NULL;
	for (size_t i = 0; i < names->n; i++) {
		const char *s = names->v[i];
		size_t len = strlen(s), d = len;

		while (d > 0 && isdigit((unsigned char)s[d - 1]))
			d--;
		v[i].name = s;
		v[i].plen = len;
		if (d < len && len - d <= HL_MAX_DIGITS) {
			v[i].has_num = true;
			v[i].plen = d;
			v[i].num = 0;	/* at most HL_MAX_DIGITS digits: no overflow */
			for (size_t k = d; k < len; k++)
				v[i].num = v[i].num * 10 + (uint64_t)(s[k] - '0');
			v[i].len = (int)(len - d);
		}
		/* The group: the prefix of a numbered name, else the whole name;
		 * names in order share their neighbour's without a lookup. */
		if (i > 0 && v[i - 1].has_num == v[i].has_num && v[i - 1].plen == v[i].plen &&
		    memcmp(v[i - 1].name, s, v[i].plen) == 0) {
			v[i].group = v[i - 1].group;
			continue;
		}
		if (!key || v[i].plen + 2 > kcap) {
			char *k = realloc(key, v[i].plen + 64);

			if (!k)
				goto oom;
			key = k;
			kcap = v[i].plen + 64;
		}
		key[0] = v[i].has_num ? '#' : '=';
		memcpy(key + 1, s, v[i].plen);
		v[i].group = ngroups;
		rc = rd_strmap_get_or_add(&groups, key, v[i].plen + 1, &v[i].group);
		if (rc < 0)
			goto oom;
		if (rc == 0)
			ngroups++;
	}
	rd_strmap_free(&groups);
	free(key);
	for (size_t i = 1; i < names->n; i++)
		if (hl_name_cmp(&v[i - 1], &v[i]) > 0) {
			qsort(v, names->n, sizeof(*v), hl_name_cmp);
			break;
		}
	hl_put(&b, "%s", "");
	for (size_t i = 0; i < names->n;) {
		size_t j = i, nr = 0;

		while (j < names->n && v[j].group == v[i].group)
			j++;
		if (b.len)
			hl_put(&b, ",");
		if (!v[i].has_num) {
			hl_put(&b, "%s", v[i].name);
			i = j;
			continue;
		}
		/* ranges of consecutive numbers that print as written */
		for (size_t k = i; k < j; k++)
			if (k == i || v[k].num != v[k - 1].num || v[k].len != v[k - 1].len)
				nr++;
		if (nr == 1) {
			hl_put(&b, "%s", v[i].name);
			i = j;
			continue;
		}
		hl_put(&b, "%.*s[", (int)v[i].plen, v[i].name);
		for (size_t k = i; k < j;) {
			size_t e = k;
			int w = v[k].len;

			while (e + 1 < j &&
			       ((v[e + 1].num == v[e].num && v[e + 1].len == v[e].len) ||
				(v[e + 1].num == v[e].num + 1 && hl_fits(&v[e + 1], w))))
				e++;
			if (k != i)
				hl_put(&b, ",");
			if (v[e].num == v[k].num)
				hl_put(&b, "%s", v[k].name + v[k].plen);
			else
				hl_put(&b, "%s-%s", v[k].name + v[k].plen, v[e].name + v[e].plen);
			k = e + 1;
		}
		hl_put(&b, "]");
		i = j;
	}
	free(v);
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
oom:
	rd_strmap_free(&groups);
	free(key);
	free(v);
	return NULL;
}

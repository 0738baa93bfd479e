// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "output.h"
#include "outtable.h"
#include "outwidth.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define MAX_DEPTH 16
#define LABEL_WIDTH 30
#define JBUF_SIZE 65536

/* A cell's text is escaped, in the table's pool; NULL: unknown ("-"). */
#define cell rd_tcell

struct table {
	struct rd_col *cols;
	size_t ncols;
	size_t *show;		/* the columns printed (-o), in order */
	size_t nshow;
	bool header;
	struct cell *cells;	/* rows * ncols */
	struct rd_strpool pool;	/* the cells' text */
	size_t rows, cap;	/* cap in rows */
	bool in_row;
	int indent;
};

struct rd_out {
	FILE *fp;
	bool json, color, stream;
	int io_error;
	/*
	 * JSON is written as it comes, with no tree: one entry per open
	 * container (array or object, and whether it has a member yet).
	 */
	struct {
		bool array, had;
	} jst[MAX_DEPTH];
	int depth;
	char *jbuf;	/* JSON not yet written to fp */
	size_t jlen;
	/* Text */
	int indent;
	struct table *table;
	int section_depth;
	bool headed[MAX_DEPTH];	/* per open section: did it print a heading (and indent)? */
	bool failed;	/* allocation failure: output is incomplete */
	bool tty;	/* fp is a terminal: tables fit its width */
	struct rd_out_table_opts topts;
};

#define sgr rd_out_sgr

struct rd_out *rd_out_new(FILE *fp, bool json, bool color)
{
	struct rd_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	if (json && !(o->jbuf = malloc(JBUF_SIZE))) {
		free(o);
		return NULL;
	}
	o->fp = fp;
	o->json = json;
	o->color = color && !json;
	o->tty = isatty(fileno(fp)) == 1;
	return o;
}

void rd_out_set_table_opts(struct rd_out *o, const struct rd_out_table_opts *t)
{
	o->topts = *t;
}

void rd_out_set_stream(struct rd_out *o, bool stream)
{
	o->stream = stream;
}

bool rd_out_is_json(const struct rd_out *o)
{
	return o->json;
}

static void json_pop(struct rd_out *o);
static void jflush(struct rd_out *o);

int rd_out_finish(struct rd_out *o)
{
	int ret;

	if (!o)
		return 0;
	while (o->json && o->depth)
		json_pop(o);
	if (o->json)
		jflush(o);
	free(o->jbuf);
	if (fflush(o->fp) != 0)
		o->io_error = rd_write_error(errno);
	else if (ferror(o->fp) && !o->io_error)
		o->io_error = rd_write_error(0);
	ret = o->io_error ? o->io_error : (o->failed ? -ENOMEM : 0);
	free(o);
	return ret;
}

/* ---- text helpers ---- */

static void text_printf(struct rd_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_printf(struct rd_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(o->fp, fmt, ap) < 0)
		o->io_error = rd_write_error(errno);
	va_end(ap);
}

/* Plain text and padding without a format to parse (tables print many cells). */
static void text_puts(struct rd_out *o, const char *s)
{
	if (fputs(s, o->fp) < 0)
		o->io_error = rd_write_error(errno);
}

static void text_colored(struct rd_out *o, enum rd_color c, const char *s)
{
	if (o->color && c != RD_C_NONE)
		text_printf(o, "%s%s\033[0m", sgr(c), s);
	else
		text_puts(o, s);
}


void rd_metric_label_value(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		uint32_t cp = 0;
		size_t n = rd_utf8_seq(p, &cp);

		if (*p == '\\' || *p == '"')
			fprintf(fp, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", fp);
		else if (n == 0 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
			fputs("\xef\xbf\xbd", fp);	/* U+FFFD */
		else
			(void)fwrite(p, 1, n, fp);	/* errors: ferror() at the end */
		p += n ? n : 1;
	}
}

/* The bidirectional formatting characters: they reorder what a terminal shows. */
static bool is_bidi(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

void rd_dot_string(FILE *fp, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', fp);
	while (*p) {
		uint32_t cp = 0;
		size_t n = rd_utf8_seq(p, &cp);

		if (*p == '\\' || *p == '"')
			fprintf(fp, "\\%c", *p);
		else if (n == 0)
			fputs("\xef\xbf\xbd", fp);	/* U+FFFD */
		else if (cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0))
			(void)fwrite(p, 1, n, fp);	/* errors: ferror() at the end */
		p += n ? n : 1;
	}
	fputc('"', fp);
}

void rd_xml_text(FILE *fp, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0;

	while (*p) {
		uint32_t cp = 0;
		size_t n = rd_utf8_seq(p, &cp);

		if (max_chars && chars == max_chars) {
			fputs("\xe2\x80\xa6", fp);	/* U+2026, the rest left out */
			break;
		}
		chars++;
		if (*p == '&')
			fputs("&amp;", fp);
		else if (*p == '<')
			fputs("&lt;", fp);
		else if (*p == '>')
			fputs("&gt;", fp);
		else if (*p == '"')
			fputs("&quot;", fp);
		else if (n == 0 || cp == 0xfffe || cp == 0xffff)
			fputs("\xef\xbf\xbd", fp);	/* U+FFFD: not UTF-8, or not a character XML allows */
		else if (cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0))
			(void)fwrite(p, 1, n, fp);	/* errors: ferror() at the end */
		else
			chars--;	/* a control character, dropped */
		p += n ? n : 1;
	}
}

char *rd_text_escape(const char *s, bool keep_layout)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out, *q;

	/* The common case: printable ASCII only. */
	while (*p >= 0x20 && *p < 0x7f)
		p++;
	if (!*p)
		return strdup(s);
	p = (const unsigned char *)s;
	out = malloc(strlen(s) * 4 + 1);
	if (!out)
		return NULL;
	q = out;
	while (*p) {
		uint32_t cp = 0;
		size_t n;
		bool layout;

		/* Printable ASCII, and a kept newline or tab, as they are. */
		if ((*p >= 0x20 && *p < 0x7f) || (keep_layout && (*p == '\n' || *p == '\t'))) {
			*q++ = (char)*p++;
			continue;
		}
		n = rd_utf8_seq(p, &cp);
		layout = keep_layout && (cp == '\n' || cp == '\t');

		if (n == 0 || (!layout && (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))) || is_bidi(cp)) {
			/* A control character (C0, DEL, C1, or a bidirectional override or
			 * isolate that would reorder the rest of the line), or a byte that is
			 * not UTF-8. */
			size_t k = n ? n : 1;

			for (size_t i = 0; i < k; i++)
				q += sprintf(q, "\\x%02x", p[i]);
			p += k;
			continue;
		}
		memcpy(q, p, n);
		q += n;
		p += n;
	}
	*q = '\0';
	return out;
}

/* Print s in text mode with every control byte made visible. */
static void text_escaped(struct rd_out *o, enum rd_color c, const char *s, bool keep_layout)
{
	const unsigned char *p = (const unsigned char *)s;
	char *e;

	/* Nothing to escape (printable ASCII, and the layout kept): printed as it is, no copy. */
	while ((*p >= 0x20 && *p < 0x7f) || (keep_layout && (*p == '\n' || *p == '\t')))
		p++;
	if (!*p) {
		text_colored(o, c, s);
		return;
	}
	e = rd_text_escape(s, keep_layout);

	if (!e) {
		o->failed = true;
		return;
	}
	text_colored(o, c, e);
	free(e);
}

/*
 * ---- the JSON writer ----
 *
 * Values are written to the stream as the tool gives them: no document tree
 * is built, so memory does not grow with the output.  The layout is the one
 * json-c prints (a document: JSON_C_TO_STRING_PRETTY | SPACED, two spaces an
 * indent level; a stream: one compact line per top-level value), so output is
 * byte for byte what it was when the output layer built json-c trees;
 * tests/unit/test_output.c holds the writer to that.
 */

/* The writer fills its own buffer: one fwrite per 64 KiB, not one per token. */
static void jflush(struct rd_out *o)
{
	if (o->jlen && fwrite_unlocked(o->jbuf, 1, o->jlen, o->fp) != o->jlen)
		o->io_error = rd_write_error(errno);
	o->jlen = 0;
}

static void jw(struct rd_out *o, const void *s, size_t n)
{
	if (n > JBUF_SIZE - o->jlen) {
		jflush(o);
		if (n >= JBUF_SIZE) {
			if (fwrite_unlocked(s, 1, n, o->fp) != n)
				o->io_error = rd_write_error(errno);
			return;
		}
	}
	memcpy(o->jbuf + o->jlen, s, n);
	o->jlen += n;
}

/* Room for n more bytes (n < JBUF_SIZE) at the buffer's end, flushing first if short. */
static char *jroom(struct rd_out *o, size_t n)
{
	if (n > JBUF_SIZE - o->jlen)
		jflush(o);
	return o->jbuf + o->jlen;
}

static void jc(struct rd_out *o, char c)
{
	if (o->jlen == JBUF_SIZE)
		jflush(o);
	o->jbuf[o->jlen++] = c;
}

static void jpad(struct rd_out *o, size_t n)
{
	static const char spaces[] = "                                                                ";

	while (n) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		jw(o, spaces, k);
		n -= k;
	}
}

#define JLIT(o, s) jw(o, s, sizeof(s) - 1)

/*
 * Whether all eight bytes of w may stand in a JSON string as they are
 * (printable ASCII but '"' and '\\'): none below 0x20, at or above 0x80, '"'
 * or '\\'.  A borrow from a byte that fails can make a later one look failed
 * too: that only sends the string to the exact byte loop.
 */
static bool jsafe_word(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;

	return !(((w - ones * 0x20) | ((w ^ (ones * '"')) - ones) | ((w ^ (ones * '\\')) - ones) | w) &
		 highs);
}

/*
 * Copy len bytes of s to d, eight at a time, and say whether every one of
 * them may stand in a JSON string as it is (jsafe_word); short strings are
 * padded safe.  d has room for len bytes; nothing past s + len is read.
 */
static bool jcopy_safe(char *d, const unsigned char *s, size_t len)
{
	uint64_t w = 0x6161616161616161ull;
	bool safe = true;
	size_t i;

	if (len < 8) {
		memcpy(&w, s, len);
		memcpy(d, &w, len);
		return jsafe_word(w);
	}
	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		memcpy(d + i, &w, 8);
		safe &= jsafe_word(w);
	}
	memcpy(&w, s + len - 8, 8);
	memcpy(d + len - 8, &w, 8);
	return safe && jsafe_word(w);
}

/*
 * A JSON string: '"', '\\' and control characters escaped as json-c does
 * (\b \f \n \r \t, others \u00xx); bytes that are not UTF-8 become U+FFFD,
 * since JSON text is UTF-8 only.
 */
static void jstr(struct rd_out *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *run = p;
	size_t len = strlen(s);

	/* Most keys and values need no escape: copied between their quotes as checked. */
	if (len + 2 < JBUF_SIZE) {
		char *d = jroom(o, len + 2);

		d[0] = '"';
		if (jcopy_safe(d + 1, p, len)) {
			d[len + 1] = '"';
			o->jlen += len + 2;
			return;
		}
	}
	jc(o, '"');
	while (*p) {
		unsigned char c = *p;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			p++;
			continue;
		}
		jw(o, run, (size_t)(p - run));
		if (c >= 0x80) {
			uint32_t cp;
			size_t n = rd_utf8_seq(p, &cp);

			if (n) {
				jw(o, p, n);
			} else {
				JLIT(o, "\xef\xbf\xbd");
				n = 1;
			}
			p += n;
			run = p;
			continue;
		}
		switch (c) {
		case '"':
			JLIT(o, "\\\"");
			break;
		case '\\':
			JLIT(o, "\\\\");
			break;
		case '\b':
			JLIT(o, "\\b");
			break;
		case '\f':
			JLIT(o, "\\f");
			break;
		case '\n':
			JLIT(o, "\\n");
			break;
		case '\r':
			JLIT(o, "\\r");
			break;
		case '\t':
			JLIT(o, "\\t");
			break;
		default: {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf] };

			jw(o, u, sizeof(u));
		}
		}
		run = ++p;
	}
	jw(o, run, (size_t)(p - run));
	jc(o, '"');
}

/*
 * Copy a key known to be plain, len bytes at d, without a call: two
 * overlapping words, or two overlapping halves, or up to three bytes.  The end.
 */
static char *put_plain(char *d, const char *s, size_t len)
{
	if (len >= 8) {
		for (size_t i = 0; i + 8 < len; i += 8)
			memcpy(d + i, s + i, 8);
		memcpy(d + len - 8, s + len - 8, 8);
	} else if (len >= 4) {
		memcpy(d, s, 4);
		memcpy(d + len - 4, s + len - 4, 4);
	} else if (len) {
		d[0] = s[0];
		d[len / 2] = s[len / 2];
		d[len - 1] = s[len - 1];
	}
	return d + len;
}

/* A literal's bytes at d (its length known where it is inlined); the end. */
static char *put_bytes(char *d, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
	return d + n;
}

#define PUT_LIT(d, s) put_bytes(d, s, sizeof(s) - 1)

/* `"key":` for a key known to be plain, after a comma when one is due; the end. */
static char *put_member_key(char *d, bool comma, const char *k, size_t len)
{
	if (comma)
		*d++ = ',';
	*d++ = '"';
	d = put_plain(d, k, len);
	*d++ = '"';
	*d++ = ':';
	return d;
}

/*
 * `,"key":` of a member of a JSON line in one piece, for a key that needs no
 * escape: known to be plain, or found so as it is copied (nothing counts as
 * written until it is).  Whether it was written.
 */
static bool jline_key(struct rd_out *o, const char *k, size_t len, bool plain)
{
	char *d, *start;

	if (len >= JBUF_SIZE - 4)
		return false;
	d = start = jroom(o, len + 4);
	if (plain) {
		d = put_member_key(d, o->jst[o->depth - 1].had, k, len);
	} else {
		if (o->jst[o->depth - 1].had)
			*d++ = ',';
		*d++ = '"';
		if (!jcopy_safe(d, (const unsigned char *)k, len))
			return false;
		d += len;
		*d++ = '"';
		*d++ = ':';
	}
	o->jlen += (size_t)(d - start);
	o->jst[o->depth - 1].had = true;
	return true;
}

/*
 * Start a value in the open container: the comma after the previous member,
 * the newline and indent of a document, the key in an object (NULL names it
 * "value").  A value at top level starts a document of its own.
 */
static void jbegin(struct rd_out *o, const char *key)
{
	bool pretty = !o->stream;

	if (o->depth == 0)
		return;
	if (!pretty && !o->jst[o->depth - 1].array) {
		const char *k = key ? key : "value";

		if (jline_key(o, k, strlen(k), false))
			return;
	}
	if (o->jst[o->depth - 1].had) {
		jc(o, ',');
		if (pretty)
			jc(o, '\n');
	}
	o->jst[o->depth - 1].had = true;
	if (pretty)
		jpad(o, 2 * (size_t)o->depth);
	if (!o->jst[o->depth - 1].array) {
		jstr(o, key ? key : "value");
		if (pretty)
			JLIT(o, ": ");
		else
			jc(o, ':');
	}
}

/* jbegin with a measured key: a plain one in a JSON line is copied as it is. */
static void jbegin_name(struct rd_out *o, const struct rd_name *key)
{
	if (o->stream && o->depth && !o->jst[o->depth - 1].array && key->plain &&
	    jline_key(o, key->s, key->len, true))
		return;
	jbegin(o, key->s);
}

/* After a value: one that ends a top-level document ends its line. */
static void jend(struct rd_out *o)
{
	if (o->depth)
		return;
	jc(o, '\n');
	jflush(o);
	if (o->stream && fflush(o->fp) != 0)
		o->io_error = rd_write_error(errno);
}

/* Open a container whose key (if any) is written. */
static void json_open(struct rd_out *o, bool array)
{
	jc(o, array ? '[' : '{');
	if (!o->stream)
		jc(o, '\n');
	o->jst[o->depth].array = array;
	o->jst[o->depth].had = false;
	o->depth++;
}

static int json_push(struct rd_out *o, const char *key, bool array)
{
	if (o->depth >= MAX_DEPTH)
		return -E2BIG;
	jbegin(o, key);
	json_open(o, array);
	return 0;
}

static void json_pop(struct rd_out *o)
{
	if (o->depth == 0)
		return;
	o->depth--;
	if (!o->stream) {
		if (o->jst[o->depth].had)
			jc(o, '\n');
		jpad(o, 2 * (size_t)o->depth);
	}
	jc(o, o->jst[o->depth].array ? ']' : '}');
	jend(o);
}

/* How many decimal digits v has. */
static size_t ndigits(uint64_t v)
{
	size_t n = 1;

	for (; v >= 10000; v /= 10000)
		n += 4;
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* A number's digits without printf, two at a time, at d (room for 20); the end. */
static char *put_u64(char *d, uint64_t v)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	char *end = d + ndigits(v), *e = end;

	for (; v >= 100; v /= 100) {
		e -= 2;
		memcpy(e, pairs + 2 * (v % 100), 2);
	}
	if (v >= 10) {
		e -= 2;
		memcpy(e, pairs + 2 * v, 2);
	} else {
		*--e = (char)('0' + v);
	}
	return end;
}

static void ju64(struct rd_out *o, uint64_t v)
{
	char *d = jroom(o, 20);

	o->jlen += (size_t)(put_u64(d, v) - d);
}

/*
 * v as "%.10g" prints it when v is a short decimal (rates rounded to 1e-3,
 * intervals to 1e-6): 1e-4 <= |v| < 1e9, so printf would not choose an
 * exponent, and |v| * 10^places within a relative 1e-12 of an integer m below
 * 1e10 for some places <= 6.  Then m / 10^places has at most ten significant
 * digits and v is nearer to it than half a unit of the tenth (5e-11
 * relative), so its digits, trailing zeros dropped, are printf's.  0 when v
 * is not such a number (printf it is).
 */
static size_t jdecimal(char out[32], double v)
{
	static const uint64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
	double a = fabs(v), x = a;
	char *p = out;

	if (!(a >= 1e-4 && a < 1e9))
		return 0;
	for (size_t places = 1; places < RD_ARRAY_SIZE(pow10); places++) {
		uint64_t m, ip, frac;
		char digits[24];
		size_t n = 0;

		x *= 10;
		if (x >= 1e10)
			return 0;
		m = (uint64_t)(x + 0.5);
		if (fabs(x - (double)m) > x * 1e-12)
			continue;
		ip = m / pow10[places];
		frac = m % pow10[places];
		if (v < 0)
			*p++ = '-';
		do {
			digits[n++] = (char)('0' + ip % 10);
			ip /= 10;
		} while (ip);
		while (n)
			*p++ = digits[--n];
		if (frac) {
			size_t keep = places;

			while (frac % 10 == 0) {
				frac /= 10;
				keep--;
			}
			*p++ = '.';
			for (size_t i = keep; i-- > 0; frac /= 10)
				p[i] = (char)('0' + frac % 10);
			p += keep;
		}
		return (size_t)(p - out);
	}
	return 0;
}

/*
 * At d (room for 32), ten significant digits ("%.10g": 130.4, not
 * 130.40000000000001), and the end; not a number is null.  Whole numbers
 * below 1e10, which "%.10g" prints as plain digits (most rates of idle
 * counters are 0), skip printf, and so do short decimals (jdecimal).
 */
static char *put_double(char d[32], double v)
{
	size_t n;

	if (!isfinite(v))
		return PUT_LIT(d, "null");
	if (v > -1e10 && v < 1e10 && v == (double)(int64_t)v && !(v == 0 && signbit(v))) {
		if (v < 0)
			*d++ = '-';
		return put_u64(d, (uint64_t)(v < 0 ? -(int64_t)v : (int64_t)v));
	}
	n = jdecimal(d, v);
	if (!n)
		n = (size_t)snprintf(d, 32, "%.10g", v);
	return d + n;
}

static void jdouble(struct rd_out *o, double v)
{
	char *d = jroom(o, 32);

	o->jlen += (size_t)(put_double(d, v) - d);
}

static void json_str(struct rd_out *o, const char *key, const char *val)
{
	jbegin(o, key);
	jstr(o, val);
	jend(o);
}

/* ---- tables ---- */

static char ascii_lower(char c)
{
	if (c >= 'A' && c <= 'Z')
		return (char)(c - 'A' + 'a');
	return c;
}

/* Does name (len bytes) name the column headed h?  Any case; '_' for a space. */
static bool header_is(const char *h, const char *name, size_t len)
{
	if (strlen(h) != len)
		return false;
	for (size_t i = 0; i < len; i++) {
		char a = h[i];

		if (a == ' ')
			a = '_';
		if (ascii_lower(a) != ascii_lower(name[i]))
			return false;
	}
	return true;
}

int rd_out_columns_check(const char *list, const struct rd_out_colset *sets, size_t n, char **bad)
{
	const char *p = list;

	*bad = NULL;
	for (;;) {
		size_t len = strcspn(p, ",");
		bool found = false;

		for (size_t k = 0; k < n && !found; k++)
			for (size_t c = 0; c < sets[k].n && !found; c++)
				found = header_is(sets[k].cols[c].header, p, len);
		if (!found) {
			*bad = strndup(p, len);
			return !*bad ? -ENOMEM : len ? -ENOENT : -EINVAL;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

char *rd_out_columns_known(const struct rd_out_colset *sets, size_t n)
{
	struct rd_strlist l = { 0 };
	char *s;

	for (size_t k = 0; k < n; k++) {
		for (size_t c = 0; c < sets[k].n; c++) {
			char h[64];

			rd_strlcpy(h, sets[k].cols[c].header, sizeof(h));
			for (char *q = h; *q; q++)
				if (*q == ' ')
					*q = '_';
			if (rd_strlist_add_unique(&l, h))
				break;
		}
	}
	s = rd_strlist_join(&l, " ");
	rd_strlist_free(&l);
	return s;
}

/* The columns printed: those -o names, in its order (none of them: the table is not printed), else all. */
static int table_select(struct table *t, const char *list)
{
	t->show = calloc(t->ncols ? t->ncols : 1, sizeof(*t->show));
	if (!t->show)
		return -ENOMEM;
	if (!list) {
		for (size_t c = 0; c < t->ncols; c++)
			t->show[t->nshow++] = c;
		return 0;
	}
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");

		for (size_t c = 0; c < t->ncols; c++) {
			bool dup = false;

			if (!header_is(t->cols[c].header, p, len))
				continue;
			for (size_t i = 0; i < t->nshow; i++)
				dup = dup || t->show[i] == c;
			if (!dup)
				t->show[t->nshow++] = c;
		}
		p += len;
		if (!*p)
			return 0;
	}
}

int rd_out_table_begin(struct rd_out *o, const char *key, const struct rd_col *cols, size_t ncols,
		       bool header)
{
	if (o->json)
		return json_push(o, key, true);
	if (o->table)
		return -EBUSY;
	struct table *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->cols = calloc(ncols ? ncols : 1, sizeof(*t->cols));
	if (t->cols) {
		memcpy(t->cols, cols, ncols * sizeof(*cols));
		t->ncols = ncols;
	}
	if (!t->cols || table_select(t, o->topts.columns)) {
		free(t->cols);
		free(t);
		return -ENOMEM;
	}
	t->header = header && !o->topts.noheadings;
	t->indent = o->indent;
	o->table = t;
	return 0;
}

static struct cell *row_cells(struct table *t, size_t row)
{
	return &t->cells[row * t->ncols];
}

int rd_out_row_begin(struct rd_out *o)
{
	if (o->json)
		return json_push(o, NULL, false);
	struct table *t = o->table;

	if (!t)
		return -EINVAL;
	if (t->rows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct cell *c = realloc(t->cells, cap * t->ncols * sizeof(*c));

		if (!c) {
			o->failed = true;
			return -ENOMEM;
		}
		t->cells = c;
		t->cap = cap;
	}
	memset(row_cells(t, t->rows), 0, t->ncols * sizeof(struct cell));
	t->rows++;
	t->in_row = true;
	return 0;
}

int rd_out_row_end(struct rd_out *o)
{
	if (o->json) {
		json_pop(o);
		return 0;
	}
	if (o->table)
		o->table->in_row = false;
	return 0;
}

static size_t text_width(const char *s)
{
	return rd_out_text_cols(s, SIZE_MAX);
}

/* A table's line is built whole and written at once (tables print thousands of cells). */
struct linebuf {
	char *s;
	size_t n, cap;
	bool failed;
};

static void line_put(struct linebuf *l, const char *s, size_t n)
{
	if (l->failed || !n)
		return;
	if (!l->s || l->n + n > l->cap) {
		size_t cap = l->cap ? l->cap : 256;
		char *p;

		while (cap < l->n + n)
			cap *= 2;
		p = realloc(l->s, cap);
		if (!p) {
			l->failed = true;
			return;
		}
		l->s = p;
		l->cap = cap;
	}
	memcpy(l->s + l->n, s, n);
	l->n += n;
}

static void line_pad(struct linebuf *l, size_t n)
{
	static const char spaces[] = "                                                                ";

	while (n) {
		size_t k = n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1;

		line_put(l, spaces, k);
		n -= k;
	}
}

/* The terminal's width: what it says, else COLUMNS (as rdma-fleet reads it), else 80. */
static size_t term_width(FILE *fp)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (ioctl(fileno(fp), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);

		if (!*end && v >= 20 && v <= 100000)
			return v;
	}
	return 80;
}

/* The table as it has always been printed: what scripts parse in a pipe. */
static void table_print_plain(struct rd_out *o, struct table *t)
{
	struct linebuf line = { 0 };
	size_t *width = calloc(t->ncols ? t->ncols : 1, sizeof(*width));

	if (!width) {
		o->failed = true;
		return;
	}
	for (size_t c = 0; c < t->ncols; c++) {
		width[c] = t->header ? text_width(t->cols[c].header) : 0;
		for (size_t r = 0; r < t->rows; r++) {
			const struct cell *cell = &row_cells(t, r)[c];
			size_t w = cell->text ? cell->width : 1;

			if (w > width[c])
				width[c] = w;
		}
	}
	for (size_t r = 0; r < t->rows + (t->header ? 1 : 0); r++) {
		bool is_header = t->header && r == 0;
		struct cell *row = is_header ? NULL : row_cells(t, r - (t->header ? 1 : 0));

		line.n = 0;
		line_pad(&line, (size_t)t->indent);
		for (size_t i = 0; i < t->nshow; i++) {
			size_t c = t->show[i];
			const char *s = is_header ? t->cols[c].header : (row[c].text ? row[c].text : "-");
			enum rd_color col = is_header ? RD_C_NONE : row[c].color;
			size_t w = is_header ? text_width(s) : row[c].text ? row[c].width : 1;
			size_t pad = width[c] - w;
			bool last = i + 1 == t->nshow;
			bool sgr_on = o->color && col != RD_C_NONE;

			if (i)
				line_pad(&line, 2);
			if (t->cols[c].right)
				line_pad(&line, pad);
			if (sgr_on)
				line_put(&line, sgr(col), strlen(sgr(col)));
			line_put(&line, s, strlen(s));
			if (sgr_on)
				line_put(&line, "\033[0m", 4);
			if (!t->cols[c].right && !last)
				line_pad(&line, pad);
		}
		line_put(&line, "\n", 1);
		if (line.failed) {
			o->failed = true;
			break;
		}
		if (fwrite_unlocked(line.s, 1, line.n, o->fp) != line.n)
			o->io_error = rd_write_error(errno);
	}
	free(line.s);
	free(width);
}

int rd_out_table_end(struct rd_out *o)
{
	if (o->json) {
		json_pop(o);
		return 0;
	}
	struct table *t = o->table;

	if (!t)
		return -EINVAL;
	if (!t->nshow) {
		/* -o named none of this table's columns: not printed */
	} else if (o->tty || o->topts.raw) {
		struct rd_tview v = {
			.cols = t->cols, .ncols = t->ncols, .show = t->show, .nshow = t->nshow,
			.cells = t->cells, .rows = t->rows, .header = t->header, .indent = t->indent,
		};
		int err;

		err = rd_out_scols_print(o->fp, &v, o->topts.raw, o->color, term_width(o->fp));
		if (err == -ENOMEM)
			o->failed = true;
		else if (err)
			o->io_error = rd_write_error(EIO);
	} else {
		table_print_plain(o, t);
	}
	rd_strpool_free(&t->pool);
	free(t->cells);
	free(t->show);
	free(t->cols);
	free(t);
	o->table = NULL;
	return 0;
}

/* ---- sections and lists ---- */

int rd_out_section_begin(struct rd_out *o, const char *key, const char *heading_fmt, ...)
{
	if (o->json)
		return json_push(o, key, false);
	if (o->section_depth >= MAX_DEPTH)
		return -E2BIG;
	o->headed[o->section_depth] = heading_fmt != NULL;
	if (heading_fmt) {
		char buf[256];
		va_list ap;

		va_start(ap, heading_fmt);
		(void)vsnprintf(buf, sizeof(buf), heading_fmt, ap);	/* truncation is fine */
		va_end(ap);
		text_printf(o, "%*s", o->indent, "");
		text_escaped(o, o->section_depth == 0 ? RD_C_NAME : RD_C_NONE, buf, false);
		text_printf(o, "\n");
		o->indent += 2;
	}
	o->section_depth++;
	return 0;
}

int rd_out_section_begin_name(struct rd_out *o, const struct rd_name *key)
{
	if (!o->json)
		return rd_out_section_begin(o, key->s, NULL);
	if (o->depth >= MAX_DEPTH)
		return -E2BIG;
	jbegin_name(o, key);
	json_open(o, false);
	return 0;
}

int rd_out_section_end(struct rd_out *o)
{
	if (o->json) {
		json_pop(o);
		return 0;
	}
	if (o->section_depth == 0)
		return -EINVAL;
	o->section_depth--;
	/* Sections opened without a heading did not indent. */
	if (o->headed[o->section_depth] && o->indent >= 2)
		o->indent -= 2;
	return 0;
}

int rd_out_list_begin(struct rd_out *o, const char *key)
{
	if (o->json)
		return json_push(o, key, true);
	return 0;
}

int rd_out_list_end(struct rd_out *o)
{
	if (o->json)
		json_pop(o);
	return 0;
}

/* ---- fields ---- */

static int col_index(const struct table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].key, key) == 0)
			return (int)c;
	return -1;
}

static void text_field(struct rd_out *o, const char *key, const char *label, enum rd_color color,
		       const char *val)
{
	struct table *t = o->table;

	if (t) {
		int c;

		if (!t->in_row || !t->rows || (c = col_index(t, key)) < 0)
			return;
		struct cell *cell = &row_cells(t, t->rows - 1)[c];

		cell->color = color;
		cell->text = NULL;
		if (val) {
			/* Escaped here, so that the column widths count what is printed. */
			const unsigned char *p = (const unsigned char *)val;

			while (*p >= 0x20 && *p < 0x7f)
				p++;
			if (!*p) {	/* printable ASCII, the common case: as it is */
				cell->text = rd_strpool_dup(&t->pool, val, (size_t)(p - (const unsigned char *)val));
				cell->width = (size_t)(p - (const unsigned char *)val);
			} else {
				char *e = rd_text_escape(val, false);

				if (e && (cell->text = rd_strpool_sdup(&t->pool, e)))
					cell->width = text_width(cell->text);
				free(e);
			}
			if (!cell->text)
				o->failed = true;
		}
		return;
	}
	if (!val)
		return;	/* sections omit unknown facts */
	int pad = LABEL_WIDTH - o->indent - (int)strlen(label) - 1;

	text_printf(o, "%*s%s:%*s", o->indent, "", label, pad > 1 ? pad : 1, "");
	text_escaped(o, color, val, false);
	text_printf(o, "\n");
}

void rd_out_cstr(struct rd_out *o, int kind, const char *key, const char *label,
		 enum rd_color c, const char *val)
{
	if (o->json) {
		if ((kind & RD_JSON) && val)
			json_str(o, key, val);
		return;
	}
	if (kind & RD_TEXT)
		text_field(o, key, label ? label : key, c, val);
}

void rd_out_str(struct rd_out *o, int kind, const char *key, const char *label, const char *val)
{
	rd_out_cstr(o, kind, key, label, RD_C_NONE, val);
}

void rd_out_u64(struct rd_out *o, int kind, const char *key, const char *label, uint64_t val)
{
	char buf[21], *p = buf + sizeof(buf);

	if (o->json) {
		if (kind & RD_JSON) {
			jbegin(o, key);
			ju64(o, val);
			jend(o);
		}
		return;
	}
	if (!(kind & RD_TEXT))
		return;
	/* Decimal digits without printf: tables print thousands of numbers. */
	*--p = '\0';
	do {
		*--p = (char)('0' + val % 10);
		val /= 10;
	} while (val);
	text_field(o, key, label ? label : key, RD_C_NONE, p);
}

void rd_out_u64_fmt(struct rd_out *o, int kind, const char *key, const char *label,
		    uint64_t val, const char *fmt, ...)
{
	if (o->json) {
		if (kind & RD_JSON) {
			jbegin(o, key);
			ju64(o, val);
			jend(o);
		}
		return;
	}
	if (kind & RD_TEXT) {
		char buf[256];
		va_list ap;

		va_start(ap, fmt);
		(void)vsnprintf(buf, sizeof(buf), fmt, ap);	/* truncation is fine */
		va_end(ap);
		text_field(o, key, label ? label : key, RD_C_NONE, buf);
	}
}

void rd_out_double(struct rd_out *o, int kind, const char *key, const char *label, double val,
		   const char *textfmt)
{
	if (o->json) {
		if (kind & RD_JSON) {
			/* Ten significant digits: 130.4, not 130.40000000000001. */
			jbegin(o, key);
			jdouble(o, val);
			jend(o);
		}
		return;
	}
	if (kind & RD_TEXT) {
		char buf[64];

		snprintf(buf, sizeof(buf), textfmt ? textfmt : "%g", val);
		text_field(o, key, label ? label : key, RD_C_NONE, buf);
	}
}

void rd_out_u64_name(struct rd_out *o, int kind, const struct rd_name *key, uint64_t val)
{
	if (!o->json) {
		rd_out_u64(o, kind, key->s, NULL, val);
	} else if (kind & RD_JSON) {
		jbegin_name(o, key);
		ju64(o, val);
		jend(o);
	}
}

void rd_out_double_name(struct rd_out *o, int kind, const struct rd_name *key, double val,
			const char *textfmt)
{
	if (!o->json) {
		rd_out_double(o, kind, key->s, NULL, val, textfmt);
	} else if (kind & RD_JSON) {
		jbegin_name(o, key);
		jdouble(o, val);
		jend(o);
	}
}

/*
 * In a JSON line, an object whose keys are all plain is written in one piece
 * into the buffer (its size bounded first); anything else is the section and
 * member calls it stands for.
 */
int rd_out_object_name(struct rd_out *o, const struct rd_name *key, const struct rd_out_member *m,
		       size_t n)
{
	size_t room = key->len + 6;	/* ,"key":{ } */
	bool whole = o->json && o->stream && o->depth > 0 && o->depth < MAX_DEPTH &&
		     !o->jst[o->depth - 1].array && key->plain;
	int err;

	for (size_t i = 0; whole && i < n; i++) {
		if (m[i].kind & RD_JSON) {
			whole = m[i].key->plain;
			room += m[i].key->len + 4 + 32;	/* ,"key": and a value */
		}
	}
	if (whole && room < JBUF_SIZE) {
		char *d = jroom(o, room), *start = d;
		bool first = true;

		d = put_member_key(d, o->jst[o->depth - 1].had, key->s, key->len);
		*d++ = '{';
		for (size_t i = 0; i < n; i++) {
			if (!(m[i].kind & RD_JSON))
				continue;
			d = put_member_key(d, !first, m[i].key->s, m[i].key->len);
			first = false;
			switch (m[i].type) {
			case RD_OUT_U64:
				d = put_u64(d, m[i].u);
				break;
			case RD_OUT_DOUBLE:
				d = put_double(d, m[i].d);
				break;
			case RD_OUT_BOOL:
				d = m[i].b ? PUT_LIT(d, "true") : PUT_LIT(d, "false");
				break;
			}
		}
		*d++ = '}';
		o->jlen += (size_t)(d - start);
		o->jst[o->depth - 1].had = true;
		return 0;
	}
	err = rd_out_section_begin_name(o, key);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		switch (m[i].type) {
		case RD_OUT_U64:
			rd_out_u64_name(o, m[i].kind, m[i].key, m[i].u);
			break;
		case RD_OUT_DOUBLE:
			rd_out_double_name(o, m[i].kind, m[i].key, m[i].d, m[i].textfmt);
			break;
		case RD_OUT_BOOL:
			rd_out_bool(o, m[i].kind, m[i].key->s, NULL, m[i].b);
			break;
		}
	}
	return rd_out_section_end(o);
}

void rd_out_bool(struct rd_out *o, int kind, const char *key, const char *label, bool val)
{
	if (o->json) {
		if (kind & RD_JSON) {
			jbegin(o, key);
			if (val)
				JLIT(o, "true");
			else
				JLIT(o, "false");
			jend(o);
		}
		return;
	}
	if (kind & RD_TEXT)
		text_field(o, key, label ? label : key, RD_C_NONE, val ? "yes" : "no");
}

void rd_out_strlist(struct rd_out *o, int kind, const char *key, const char *label,
		    const struct rd_strlist *l, const char *sep)
{
	if (o->json) {
		if (!(kind & RD_JSON))
			return;
		if (json_push(o, key, true) == 0) {
			for (size_t i = 0; i < l->n; i++)
				json_str(o, NULL, l->v[i]);
			json_pop(o);
		}
		return;
	}
	if (!(kind & RD_TEXT))
		return;
	if (!l->n) {
		text_field(o, key, label ? label : key, RD_C_NONE, NULL);
		return;
	}
	char *joined = rd_strlist_join(l, sep);

	if (!joined) {
		o->failed = true;
		return;
	}
	text_field(o, key, label ? label : key, RD_C_NONE, joined);
	free(joined);
}

/*
 * The formatted text in buf (len bytes) when it fits, else in *heap
 * (allocated; the caller frees it): a line of text is short, and a map
 * prints dozens of them.  NULL on a format or allocation error.
 */
static const char *text_format(char *buf, size_t len, char **heap, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
static const char *text_format(char *buf, size_t len, char **heap, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	*heap = NULL;
	va_copy(copy, ap);
	n = vsnprintf(buf, len, fmt, copy);
	va_end(copy);
	if (n < 0)
		return NULL;
	if ((size_t)n < len)
		return buf;
	if (vasprintf(heap, fmt, ap) < 0)
		*heap = NULL;
	return *heap;
}

void rd_out_line(struct rd_out *o, const char *fmt, ...)
{
	char buf[512], *heap;
	const char *s;
	va_list ap;

	if (o->json)
		return;
	va_start(ap, fmt);
	s = text_format(buf, sizeof(buf), &heap, fmt, ap);
	va_end(ap);
	if (!s) {
		o->failed = true;
		return;
	}
	text_printf(o, "%*s", o->indent, "");
	text_escaped(o, RD_C_NONE, s, true);
	text_printf(o, "\n");
	free(heap);
}

void rd_out_text(struct rd_out *o, enum rd_color c, const char *fmt, ...)
{
	char buf[512], *heap;
	const char *s;
	va_list ap;

	if (o->json)
		return;
	va_start(ap, fmt);
	s = text_format(buf, sizeof(buf), &heap, fmt, ap);
	va_end(ap);
	if (!s) {
		o->failed = true;
		return;
	}
	text_escaped(o, c, s, true);
	free(heap);
}

int rd_color_mode(const char *arg, int fd, bool *color)
{
	const char *no = getenv("NO_COLOR");

	if (!arg || strcmp(arg, "auto") == 0) {
		*color = isatty(fd) && !(no && *no);
		return 0;
	}
	if (strcmp(arg, "always") == 0) {
		*color = true;
		return 0;
	}
	if (strcmp(arg, "never") == 0) {
		*color = false;
		return 0;
	}
	return -EINVAL;
}

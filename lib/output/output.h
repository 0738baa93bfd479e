/* SPDX-License-Identifier: MIT */
/*
 * One print API for text and JSON.  A tool describes its output once, field
 * by field; each call feeds the text rendering, the JSON document, or both
 * (RD_TEXT / RD_JSON / RD_ANY), in the spirit of iproute2's print_*().
 *
 * Text has two shapes: tables (aligned columns with a header, like ip -br or
 * lsblk) and sections ("label: value" lines under a heading).  In JSON a
 * table is an array of objects and a section an object.  Absent values
 * (NULL strings) are omitted from JSON and shown as "-" in tables.
 */
#ifndef RD_OUTPUT_H
#define RD_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/base.h"
#include "outcol.h"

enum rd_out_kind {
	RD_TEXT = 1,
	RD_JSON = 2,
	RD_ANY = RD_TEXT | RD_JSON,
};

struct rd_out;

/*
 * How text tables are printed (util-linux's options).  In a pipe a table is
 * printed as it always was, aligned with two spaces between columns and
 * "-" for an unknown value, whatever the terminal: scripts parse it.  On a
 * terminal (isatty) it goes through libsmartcols and fits the terminal's
 * width (COLUMNS, else TIOCGWINSZ): the wrap columns wrap at spaces inside
 * their column, the others keep their width.
 */
struct rd_out_table_opts {
	const char *columns;	/* -o: headers, comma-separated, any case; NULL: every column */
	bool raw;		/* --raw: one space between cells, blanks in a value as \x20 */
	bool noheadings;	/* --noheadings */
};
/* The columns of one table a tool prints, for checking a -o list. */
struct rd_out_colset {
	const struct rd_col *cols;
	size_t n;
};
void rd_out_set_table_opts(struct rd_out *o, const struct rd_out_table_opts *t);
/*
 * Is every name of a -o list a header of one of the tables (sets, n)?  0;
 * -EINVAL for an empty name, -ENOENT for an unknown one, its copy (malloc'd)
 * in *bad; -ENOMEM.  A header with a space ("PEER PORT") is named with '_'.
 */
int rd_out_columns_check(const char *list, const struct rd_out_colset *sets, size_t n, char **bad);
/* The headers of sets, once each, space-separated (malloc'd), for an error message. */
char *rd_out_columns_known(const struct rd_out_colset *sets, size_t n);

/* json: produce one JSON document (or JSON lines with stream); color: ANSI SGR in text. */
struct rd_out *rd_out_new(FILE *fp, bool json, bool color);
/* JSON lines: each top-level section is printed compactly when it ends. */
void rd_out_set_stream(struct rd_out *o, bool stream);
bool rd_out_is_json(const struct rd_out *o);
/* Print what is pending (the JSON document) and release everything.  -EIO on write errors. */
int rd_out_finish(struct rd_out *o);

int rd_out_table_begin(struct rd_out *o, const char *key, const struct rd_col *cols, size_t ncols,
		       bool header);
int rd_out_table_end(struct rd_out *o);
int rd_out_row_begin(struct rd_out *o);
int rd_out_row_end(struct rd_out *o);

/* Heading printed in text (may be NULL); key names the JSON object in an enclosing object. */
int rd_out_section_begin(struct rd_out *o, const char *key, const char *heading_fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rd_out_section_end(struct rd_out *o);
/* A JSON array (text: nothing, its elements print as they come). */
int rd_out_list_begin(struct rd_out *o, const char *key);
int rd_out_list_end(struct rd_out *o);

void rd_out_str(struct rd_out *o, int kind, const char *key, const char *label, const char *val);
void rd_out_cstr(struct rd_out *o, int kind, const char *key, const char *label,
		 enum rd_color c, const char *val);
void rd_out_u64(struct rd_out *o, int kind, const char *key, const char *label, uint64_t val);
/* JSON gets the number; text gets it formatted (e.g. "0x%llx", "%s (%llu)"). */
void rd_out_u64_fmt(struct rd_out *o, int kind, const char *key, const char *label,
		    uint64_t val, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void rd_out_double(struct rd_out *o, int kind, const char *key, const char *label, double val,
		   const char *textfmt);
void rd_out_bool(struct rd_out *o, int kind, const char *key, const char *label, bool val);
/*
 * The same with a key measured once (rd_name_set): for loops that write the
 * same keys thousands of times, where a plain key is copied without being
 * looked at again.  Text: the key is the label; a section has no heading.
 */
int rd_out_section_begin_name(struct rd_out *o, const struct rd_name *key);
void rd_out_u64_name(struct rd_out *o, int kind, const struct rd_name *key, uint64_t val);
void rd_out_double_name(struct rd_out *o, int kind, const struct rd_name *key, double val,
			const char *textfmt);
/*
 * An object of scalar members under a measured key, as if written by
 * rd_out_section_begin_name, a call per member and rd_out_section_end (text
 * too): in a JSON line an object whose keys are all plain is written in one
 * piece.  Each member has its own kind; textfmt is for doubles in text (NULL:
 * "%g").
 */
enum rd_out_type { RD_OUT_U64, RD_OUT_DOUBLE, RD_OUT_BOOL };
struct rd_out_member {
	const struct rd_name *key;
	int kind;
	enum rd_out_type type;
	union {
		uint64_t u;
		double d;
		bool b;
	};
	const char *textfmt;
};
int rd_out_object_name(struct rd_out *o, const struct rd_name *key, const struct rd_out_member *m,
		       size_t n);
/* JSON array of strings; text joined with sep ("-" in tables when empty). */
void rd_out_strlist(struct rd_out *o, int kind, const char *key, const char *label,
		    const struct rd_strlist *l, const char *sep);
/* A free line of text (text mode only), indented like the current section. */
void rd_out_line(struct rd_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * A piece of a text line (text mode only), coloured, with no indent and no
 * newline added: for lines made of parts, like a streaming tool's events.
 */
void rd_out_text(struct rd_out *o, enum rd_color c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Text for a terminal: a copy of s (malloc'd; NULL without memory) in which
 * control characters (C0, DEL, C1), the bidirectional overrides and
 * isolates (U+202A..202E, U+2066..2069, U+200E/F, U+061C) and bytes that are
 * not UTF-8 are written as \xNN, so that a device name or node_desc holding
 * "\033[2J" or U+202E cannot drive or reorder the terminal.  keep_layout lets '\n' and '\t' through (free text lines).
 * Every text value of the output layer goes through it; JSON escapes by itself.
 */
char *rd_text_escape(const char *s, bool keep_layout);

/*
 * A label value of the Prometheus / OpenMetrics text formats (the part
 * between the quotes): backslash, double quote and newline escaped as the
 * formats want; a control character (C0, DEL, C1) or a byte that is not
 * UTF-8 becomes U+FFFD, since a scraper rejects the whole scrape for one
 * invalid label and a terminal must not act on an escape sequence.  Valid
 * UTF-8 is kept as it is.  Write errors: ferror(fp).
 */
void rd_metric_label_value(FILE *fp, const char *s);

/*
 * A Graphviz DOT string, quotes included: backslash and double quote
 * escaped, control characters (C0, DEL, C1) dropped, valid UTF-8 kept as it
 * is (Graphviz reads UTF-8) and a byte that is not UTF-8 written U+FFFD, as
 * in JSON: Graphviz refuses a graph that is not UTF-8.  Write errors:
 * ferror(fp).
 */
void rd_dot_string(FILE *fp, const char *s);

/*
 * Text or an attribute value of an XML document (an SVG picture): & < > "
 * written as entities, control characters (C0, DEL, C1) dropped, valid
 * UTF-8 kept and a byte that is not UTF-8 (or U+FFFE, U+FFFF) written
 * U+FFFD, so the document stays well-formed whatever a node calls itself.
 * With max_chars, at most that many characters, then U+2026 when some were
 * left out.  Write errors: ferror(fp).
 */
void rd_xml_text(FILE *fp, const char *s, size_t max_chars);

/* Colour decision for --color=auto|always|never with NO_COLOR; -EINVAL on a bad word. */
int rd_color_mode(const char *arg, int fd, bool *color);

#endif

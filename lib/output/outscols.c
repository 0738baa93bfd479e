// SPDX-License-Identifier: MIT
/*
 * Text tables through libsmartcols (util-linux's table library) on a
 * terminal and for --raw: the table fits the terminal, long-text columns
 * wrap inside their column at spaces.  In a pipe output.c prints tables
 * itself, byte for byte as before (scripts parse it).
 */
#define _GNU_SOURCE
#include "outtable.h"
#include "outwidth.h"

#include <errno.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libsmartcols.h>

/*
 * libsmartcols 2.38 shares the width left to columns that wrap one column
 * at a time from each and cuts their lines inside words; so the widths of
 * the wrap columns are decided here, each cell is broken into lines at
 * spaces, and libsmartcols prints the lines of a cell one under the other
 * (its newline wrap).  Widths are terminal columns (a CJK character takes
 * two), as libsmartcols measures them in a UTF-8 locale.
 */
static size_t u8_width(const char *s, size_t n)
{
	return rd_out_text_cols(s, n);
}

/* s broken into lines of at most width columns at spaces ('\n' between them; malloc'd). */
static char *wrap_text(const char *s, size_t width)
{
	size_t len = strlen(s), n = 0, col = 0;
	char *out = malloc(2 * len + 1);	/* a break per character at worst */

	if (!out)
		return NULL;
	while (*s) {
		size_t wlen = strcspn(s, " "), ww = u8_width(s, wlen);

		if (col && col + 1 + ww > width) {	/* the word goes on the next line */
			out[n++] = '\n';
			col = 0;
		} else if (col) {
			out[n++] = ' ';
			col++;
		}
		while (ww > width) {	/* a word wider than the column: cut before a '/', after a ':' or ',' */
			size_t k = rd_out_text_fit(s, width - col), j = k;

			while (j > 1 && !strchr("/:,", s[j - 1]))
				j--;
			if (j > 1)
				k = s[j - 1] == '/' ? j - 1 : j;
			memcpy(out + n, s, k);
			n += k;
			out[n++] = '\n';
			s += k;
			wlen -= k;
			ww = u8_width(s, wlen);
			col = 0;
		}
		memcpy(out + n, s, wlen);
		n += wlen;
		col += ww;
		s += wlen;
		while (*s == ' ')
			s++;
	}
	out[n] = '\0';
	return out;
}

/*
 * The widths of the wrap columns (0 for the others): the room the others
 * leave on the terminal, shared so that a column narrower than its share
 * keeps its width and the rest split what remains; never narrower than its
 * header or 10 columns.
 */
static void wrap_widths(const struct rd_tview *v, size_t termwidth, size_t *ww)
{
	size_t fixed = 2 * (v->nshow - 1), room, left = 0;
	bool changed = true, *settled = calloc(v->nshow ? v->nshow : 1, sizeof(*settled));

	for (size_t i = 0; i < v->nshow; i++) {
		const struct rd_col *c = &v->cols[v->show[i]];
		size_t w = v->header ? u8_width(c->header, SIZE_MAX) : 0;

		for (size_t r = 0; r < v->rows; r++) {
			const struct rd_tcell *cell = &v->cells[r * v->ncols + v->show[i]];
			size_t cw = cell->text ? cell->width : 1;

			if (cw > w)
				w = cw;
		}
		if (i == 0)
			w += (size_t)v->indent;
		if (c->wrap) {
			ww[i] = w;	/* wanted; settled below */
			left++;
		} else {
			fixed += w;
		}
	}
	if (!settled)
		return;	/* out of memory: the wrap columns keep their whole width */
	room = termwidth > fixed ? termwidth - fixed : 0;
	/* The narrow ones keep their width, until every one left wants more than its share. */
	while (changed && left) {
		changed = false;
		for (size_t i = 0; i < v->nshow && left; i++) {
			if (v->cols[v->show[i]].wrap && !settled[i] && ww[i] <= room / left) {
				room -= ww[i];
				left--;
				settled[i] = true;
				changed = true;
			}
		}
	}
	for (size_t i = 0, k = 0; i < v->nshow; i++) {
		size_t min;

		if (!v->cols[v->show[i]].wrap || settled[i])
			continue;
		ww[i] = room / left + (k++ < room % left);
		min = v->header ? u8_width(v->cols[v->show[i]].header, SIZE_MAX) : 1;
		if (min < 10)
			min = 10;
		if (ww[i] < min)
			ww[i] = min;
	}
	free(settled);
}

int rd_out_scols_print(FILE *fp, const struct rd_tview *v, bool raw, bool color, size_t termwidth)
{
	struct libscols_table *tb = scols_new_table();
	size_t *ww = calloc(v->nshow ? v->nshow : 1, sizeof(*ww));
	locale_t loc = newlocale(LC_CTYPE_MASK, "", (locale_t)0), old = (locale_t)0;
	char *first = NULL;
	int err = 0;

	if (!tb || !ww) {
		err = -ENOMEM;
		goto out;
	}
	if (!raw)
		wrap_widths(v, termwidth, ww);
	/* libsmartcols measures and escapes text by the user's character set. */
	if (loc)
		old = uselocale(loc);
	scols_table_set_stream(tb, fp);
	scols_table_enable_noheadings(tb, !v->header);
	scols_table_enable_colors(tb, color);
	if (raw) {
		scols_table_enable_raw(tb, 1);
	} else {
		scols_table_set_column_separator(tb, "  ");
		scols_table_set_termforce(tb, SCOLS_TERMFORCE_ALWAYS);
		scols_table_set_termwidth(tb, termwidth);
	}
	for (size_t i = 0; i < v->nshow; i++) {
		const struct rd_col *c = &v->cols[v->show[i]];
		int flags = c->right ? SCOLS_FL_RIGHT : 0;
		struct libscols_column *cl;
		const char *name = c->header;

		if (ww[i])
			flags |= SCOLS_FL_WRAP;
		if (i == 0 && v->indent > 0 && !raw) {
			if (asprintf(&first, "%*s%s", v->indent, "", name) < 0) {
				first = NULL;
				err = -ENOMEM;
				goto out;
			}
			name = first;
		}
		if (raw && strchr(name, ' ')) {
			/* one word a header, as -o names it: "BAD THROUGH IT" is BAD_THROUGH_IT */
			char *tok = strdup(name);

			if (!tok) {
				err = -ENOMEM;
				goto out;
			}
			for (char *p = tok; *p; p++)
				if (*p == ' ')
					*p = '_';
			cl = scols_table_new_column(tb, tok, 0, flags);
			free(tok);
		} else {
			cl = scols_table_new_column(tb, name, 0, flags);
		}
		if (!cl) {
			err = -ENOMEM;
			goto out;
		}
		if (ww[i]) {
			scols_column_set_wrapfunc(cl, scols_wrapnl_chunksize, scols_wrapnl_nextchunk, NULL);
			scols_column_set_safechars(cl, "\n");
		}
	}
	for (size_t r = 0; r < v->rows; r++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		const struct rd_tcell *row = &v->cells[r * v->ncols];

		if (!ln) {
			err = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < v->nshow; i++) {
			const struct rd_tcell *cell = &row[v->show[i]];
			const char *s = cell->text ? cell->text : "-";
			char *ind = NULL;
			int rc;

			if (ww[i] && cell->text) {
				if (!(ind = wrap_text(s, ww[i]))) {
					err = -ENOMEM;
					goto out;
				}
				s = ind;
			} else if (i == 0 && v->indent > 0 && !raw) {
				if (asprintf(&ind, "%*s%s", v->indent, "", s) < 0) {
					err = -ENOMEM;
					goto out;
				}
				s = ind;
			}
			rc = scols_line_set_data(ln, i, s);
			free(ind);
			if (rc) {
				err = -ENOMEM;
				goto out;
			}
			if (color && cell->color != RD_C_NONE)
				scols_cell_set_color(scols_line_get_cell(ln, i), rd_out_sgr(cell->color));
		}
	}
	if (scols_print_table(tb))
		err = -EIO;
out:
	if (loc) {
		if (old)
			uselocale(old);
		freelocale(loc);
	}
	free(first);
	free(ww);
	scols_unref_table(tb);
	return err;
}

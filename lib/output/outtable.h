/* SPDX-License-Identifier: MIT */
/*
 * A text table ready to print, as output.c hands it to the libsmartcols
 * renderer (outscols.c): the cells already escaped and measured, the
 * columns the user chose (-o) in their order.  Private to lib/output.
 */
#ifndef RD_OUTTABLE_H
#define RD_OUTTABLE_H

#include <stddef.h>
#include <stdio.h>

#include "outcol.h"

struct rd_tcell {
	const char *text;	/* escaped; NULL: unknown, printed "-" */
	size_t width;		/* of text, in terminal columns */
	enum rd_color color;
};

struct rd_tview {
	const struct rd_col *cols;	/* every column of the table */
	size_t ncols;
	const size_t *show;		/* the columns printed, in order */
	size_t nshow;
	const struct rd_tcell *cells;	/* rows * ncols */
	size_t rows;
	bool header;
	int indent;
};

/* The SGR sequence of a colour ("" for none). */
static inline const char *rd_out_sgr(enum rd_color c)
{
	switch (c) {
	case RD_C_GOOD:
		return "\033[32m";
	case RD_C_BAD:
		return "\033[31m";
	case RD_C_WARN:
		return "\033[33m";
	case RD_C_NAME:
		return "\033[1m";
	case RD_C_DIM:
		return "\033[2m";
	default:
		return "";
	}
}

/*
 * Print v through libsmartcols: raw (util-linux --raw: one space between
 * cells, blanks in a value escaped \x20), or aligned to fit termwidth
 * columns, the wrap columns wrapping inside their column.  0 or -errno.
 */
int rd_out_scols_print(FILE *fp, const struct rd_tview *v, bool raw, bool color, size_t termwidth);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The colours and the table columns of the output layer: what a tool hands
 * to rd_out_table_begin (output.h) and what the table printers read.
 */
#ifndef RD_OUTCOL_H
#define RD_OUTCOL_H

#include <stdbool.h>

enum rd_color {
	RD_C_NONE = 0,
	RD_C_GOOD,	/* green: active, up, pass */
	RD_C_BAD,	/* red: down, error, fail */
	RD_C_WARN,	/* yellow: in between */
	RD_C_NAME,	/* bold: device names */
	RD_C_DIM,
};

struct rd_col {
	const char *key;	/* field key that fills this column */
	const char *header;
	bool right;		/* right-align (numbers) */
	bool wrap;		/* long text (WHY, FIX, DETAIL, a GID): wraps inside its column on a terminal */
};

#endif

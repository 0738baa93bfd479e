/* SPDX-License-Identifier: MIT */
/*
 * rdma-top's screen state and its drawing (topdraw.c): the sorted view of
 * the rows and every pane.  The loop and the keys (topui.c) change the state
 * and call rd_topui_draw.
 */
#ifndef RD_TOPDRAW_H
#define RD_TOPDRAW_H

#include <curses.h>
#include <stdbool.h>
#include <time.h>

#include "stats/stats.h"
#include "ticker.h"

struct rd_topui_opts;

enum rd_topui_col {
	C_DEV, C_PORT, C_NETDEV, C_STATE, C_SPEED, C_TX, C_RX, C_TXP, C_RXP, C_UTIL, C_ERR, C_CNP,
	C_ECN, C_COUNT
};

/* Sort keys, in the order 's' walks them. */
#define RD_TOPUI_NSORT 9
extern const enum rd_topui_col rd_topui_sort_keys[RD_TOPUI_NSORT];

struct ui {
	struct rd_portwatch *pw;
	const struct rd_topui_opts *opts;
	struct rd_ticker t;
	SCREEN *scr;
	double interval;
	bool paused, absolute, hide_zero, help, detail, quit;
	size_t sort;			/* index in rd_topui_sort_keys */
	unsigned long sel_id, detail_id;
	int sel, top, dtop;
	struct rd_watch_port **view;
	size_t nview;
	time_t last;			/* wall time of the last refresh */
	unsigned long refreshes;
	attr_t a_bad, a_warn, a_good, a_dim, a_head, a_name;
};

/* Rebuild the sorted view of the rows; the selection follows its port. */
int rd_topui_build_view(struct ui *u);
/* Draw everything; ncurses sends only what changed. */
void rd_topui_draw(struct ui *u);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * rdma-top's interactive screen (ncurses): one row per port, a detail pane
 * with every counter of a port, sorting, pause, absolute/rate, help.  The
 * loop is rd_ticker's: timer, signals (SIGWINCH: resize) and the keyboard.
 */
#ifndef RD_TOPUI_H
#define RD_TOPUI_H

#include <stdbool.h>

#include "stats/stats.h"

struct rd_topui_opts {
	double interval;		/* seconds (at least 0.1) */
	unsigned long count;		/* refreshes before quitting; 0 = until 'q' */
	bool color;			/* colours; otherwise bold/reverse marks */
};

/* Run until 'q', a terminating signal, or count refreshes.  0 or -errno. */
int rd_topui_run(struct rd_portwatch *pw, const struct rd_topui_opts *opts);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * rdma-top's modes other than the screen: the batch loop of -b (a sample on
 * stdout every interval), --textfile (a scrape replacing a file every
 * interval), one scrape on stdout (--format openmetrics, prometheus,
 * node-exporter) and --once.  Each reports its errors through cli and
 * returns an exit status (RD_EXIT_*).
 */
#ifndef RD_TOPRUN_H
#define RD_TOPRUN_H

#include "cli/cli.h"
#include "output/output.h"
#include "stats/stats.h"

/* --format FMT. */
enum rd_top_fmt {
	RD_TOP_TEXT,
	RD_TOP_JSON,
	RD_TOP_OPENMETRICS,
	RD_TOP_PROMETHEUS,
	RD_TOP_NODE_EXPORTER,
};

/* -b: a sample every interval seconds (0: no wait), count samples (0: until a signal). */
int rd_top_run_batch(struct rd_cli *cli, struct rd_portwatch *pw, struct rd_out *o,
		     double interval, unsigned long count);
/* --textfile: path replaced with a scrape (node-exporter or prometheus) every interval. */
int rd_top_run_textfile(struct rd_cli *cli, struct rd_portwatch *pw, enum rd_top_fmt format,
			const char *path, double interval, unsigned long count);
/* One scrape of format on stdout. */
int rd_top_run_scrape(struct rd_cli *cli, struct rd_portwatch *pw, enum rd_top_fmt format);
/* --once: one sample of absolute values (a JSON list with -j). */
int rd_top_run_once(struct rd_cli *cli, struct rd_portwatch *pw, struct rd_out *o);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * One sample of rdma-top's batch mode and --once: a text table of every
 * port (rates, or totals), or one JSON object per port with every counter.
 */
#ifndef RD_TOPSAMPLE_H
#define RD_TOPSAMPLE_H

#include <stdbool.h>

#include "output/output.h"
#include "stats/stats.h"

/* The tables a sample prints (rates, totals), for -o's check. */
#define RD_TOP_NTABLES 2
extern const struct rd_out_colset rd_top_tables[RD_TOP_NTABLES];

/*
 * Print one sample of pw: absolute values (totals) or rates; header: the
 * "rdma-top - TIME - sample N" line over a text table.  0 or -EIO.
 */
int rd_top_print_sample(struct rd_out *o, const struct rd_portwatch *pw, unsigned long sample,
			bool absolute, bool header);

#endif

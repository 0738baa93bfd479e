/* SPDX-License-Identifier: MIT */
/*
 * rdma-top's units, shared by the screen and the batch text: one place that
 * knows that a rate shows "-" before there is one, "sat" when a saturated
 * counter hides it, and "12+" when it is a lower bound.  Also the one-scrape
 * OpenMetrics / Prometheus text exposition.
 */
#ifndef RD_TOPFMT_H
#define RD_TOPFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "stats/stats.h"

/*
 * Numbers with k/M/G/T suffixes ("980", "1.23k", "12.3M"), plain integers
 * without si; frac: one decimal below 10 (rates: 0.5 errors/s).
 */
void rd_fmt_count(double v, bool si, bool frac, char *buf, size_t len);
/* A byte rate as Gb/s ("12.34", "0.00", "<0.01", "123.4"). */
void rd_fmt_gbps_value(double bytes_per_s, char *buf, size_t len);
/* A link speed: "100G", "2.5G", "-". */
void rd_fmt_link(const struct rd_watch_port *p, char *buf, size_t len);
/* The port state for a table: "ACTIVE", "gone", "-". */
const char *rd_fmt_state(const struct rd_watch_port *p);

/*
 * A summary cell.  rate: the per-second value (Gb/s for the byte sums), or
 * the total when !rate.  "-" when absent or not yet known, "sat" when a
 * saturated counter hides it, "?" when unreadable, "N+" for a lower bound.
 */
void rd_fmt_sum(const struct rd_sum_val *s, enum rd_sum which, bool rate, bool si, char *buf,
		size_t len);
/* Utilization in percent ("12.3", "-"). */
void rd_fmt_util(const struct rd_watch_port *p, char *buf, size_t len);
/* A counter's own rate ("1.2k", "sat", "-"); data words shown as Gb/s with the unit. */
void rd_fmt_counter_rate(const struct rd_counter *c, char *buf, size_t len);

/*
 * One scrape of every live port: counters as counter families with labels
 * device, port, netdev.  openmetrics: OpenMetrics 1.0 (TYPE names the family,
 * samples end in _total, "# EOF"); otherwise the Prometheus 0.0.4 text format
 * that node_exporter's textfile collector parses (TYPE names the _total
 * sample).  -EIO on a write error.
 */
int rd_metrics_write(FILE *fp, const struct rd_portwatch *pw, bool openmetrics);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * rdma-top --format node-exporter: one scrape in the Prometheus text format
 * (0.0.4) under the metric names, labels, types and units of node_exporter's
 * infiniband collector, so dashboards and alerts written for it work on what
 * rdma-top writes to the textfile collector; plus, under rdma_, what that
 * collector does not export (every hw counter, and a port info metric to
 * join on).  The name map and its rules are in topne.c and man rdma-top.
 *
 * Also the atomic file rewrite of --textfile.
 */
#ifndef RD_TOPNE_H
#define RD_TOPNE_H

#include <stdio.h>

#include "model/model.h"
#include "stats/stats.h"
#include "sysroot/sysroot.h"
#include "base/base.h"

/*
 * Write the scrape of every live port of pw.  devs: the devices as read for
 * this scrape (port state, physical state, rate, board/firmware/HCA type,
 * PCI facts); a port whose device is not in it gets only its counters.
 * counters_ext/ and hw_counters/lifespan are read from sr here; a malformed
 * one is skipped with a warning in w.  -EIO on a write error, -ENOMEM.
 */
int rd_nodeexp_write(FILE *fp, const struct rd_portwatch *pw, const struct rd_device_list *devs,
		     const struct rd_sysroot *sr, struct rd_warnings *w);

/* The metric name node_exporter gives counters/NAME (dir "counters"), counters_ext/NAME
 * or hw_counters/NAME, without the "node_infiniband_" prefix; NULL if it exports none. */
const char *rd_nodeexp_name(const char *dir, const char *name);

#endif

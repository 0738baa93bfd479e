/* SPDX-License-Identifier: MIT */
/*
 * The stats layer's interface: counter snapshots and rates, RDMA netlink statistics, watched ports.
 * Code outside lib/stats/ includes this header only (lib/README.md).
 */
#ifndef RD_STATS_LAYER_H
#define RD_STATS_LAYER_H

#include "counters.h"
#include "nlstat.h"
#include "portwatch.h"

#endif

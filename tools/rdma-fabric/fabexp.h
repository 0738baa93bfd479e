/* SPDX-License-Identifier: MIT */
/*
 * rdma-fabric --format openmetrics|prometheus: every linked port's counters
 * as metrics named like the fabric exporter people already run
 * (guilbaults/infiniband-exporter: infiniband_<counter>_total with component,
 * local_* and remote_* labels), so its dashboards carry over.
 */
#ifndef RD_FABEXP_H
#define RD_FABEXP_H

#include <stdbool.h>
#include <stdio.h>

#include "fabric/fabric.h"

/* OpenMetrics (with "# EOF") or the Prometheus text format; returns 0 or -errno. */
int rd_fabexp_write(FILE *fp, const struct rd_fab *fab, bool openmetrics);

#endif

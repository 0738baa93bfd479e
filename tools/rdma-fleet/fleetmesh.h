/* SPDX-License-Identifier: MIT */
/* rdma-fleet: the mesh part of the summary (pair matrix, failed and slowest pairs). */
#ifndef RD_FLEETMESH_H
#define RD_FLEETMESH_H

#include "fleet.h"
#include "output/output.h"

/* Nothing when the input had no mesh pairs.  0 or -ENOMEM. */
int rd_fleet_print_mesh(struct rd_out *o, const struct rd_fleet *f);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * rdma-fabric --routes: every switch's unicast forwarding table, as ibroute
 * (and dump_lfts.sh) print it, which OpenSM's file routing engine reads
 * back (opensm -R file -U FILE); with -j, the ports as --links gives them
 * and the tables, the fabric document rdma-fleet --fabric reads.
 */
#ifndef RD_FABROUTES_H
#define RD_FABROUTES_H

#include "fabric/fabric.h"
#include "output/output.h"

/* 0 or -ENOMEM. */
int rd_fabroutes_print(struct rd_out *o, const struct rd_fab *fab);

#endif

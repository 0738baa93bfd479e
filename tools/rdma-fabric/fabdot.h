/* SPDX-License-Identifier: MIT */
/*
 * rdma-fabric --dot FILE: the fabric as a Graphviz graph.  Switches are boxes,
 * HCAs ellipses (labelled with their names), each link one edge labelled with
 * its width, speed and both port numbers; a link a check FAILed is red and
 * bold, one it WARNed orange, a port that is Active but whose peer is unknown
 * a dashed red edge to a "?" node.
 */
#ifndef RD_FABDOT_H
#define RD_FABDOT_H

#include <stdio.h>

#include "fabric/fabric.h"

/* Returns 0, or -EIO when the stream failed. */
int rd_fabdot_write(FILE *fp, const struct rd_fab *fab, const struct rd_fab_report *r);

#endif

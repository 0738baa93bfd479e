/* SPDX-License-Identifier: MIT */
/*
 * rdma-fabric --svg FILE: the fabric as a picture drawn by the tool itself,
 * readable at thousands of HCAs: a row a tier of switches counted from the
 * HCAs up, each leaf's HCAs one box with counts, every host, switch and
 * link a check FAILed or WARNed drawn on its own with a numbered badge, the
 * healthy switch-to-switch links faint, a legend with counts and the list
 * of faults (fabpic.h: where things go; fabsvg.c: the drawing).
 */
#ifndef RD_FABSVG_H
#define RD_FABSVG_H

#include <stdio.h>

#include "fabric/fabric.h"

/* Returns 0, -ENOMEM, or -EIO when the stream failed. */
int rd_fabsvg_write(FILE *fp, const struct rd_fab *fab, const struct rd_fab_report *rep);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * rdma-fabric's pictures written to their files: --dot (fabdot.h) and --svg
 * (fabsvg.h), each replaced whole through rd_outfile or not at all.
 */
#ifndef RD_FABWRITE_H
#define RD_FABWRITE_H

#include "cli/cli.h"
#include "fabric/fabric.h"

/* Each file named (NULL: not asked for).  0, or -1 after the error was reported. */
int rd_fabwrite_pictures(const struct rd_cli *cli, const struct rd_fab *fab, const struct rd_fab_report *rep,
			 const char *dot, const char *svg);

#endif

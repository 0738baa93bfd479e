/* SPDX-License-Identifier: MIT */
/* rdma-fabric's command line: what it asked for, and which options go together. */
#ifndef RD_FABOPTS_H
#define RD_FABOPTS_H

#include <stdbool.h>

#include "cli/cli.h"
#include "fabric/fabric.h"
#include "fabpath.h"

struct rd_fabargs {
	struct rd_strlist only, skip, path_files;
	struct rd_fabpath paths;
	struct rd_fab_sweep_opts so;
	struct rd_fab_check_opts co;
	const char *load, *save, *baseline, *dot, *svg;
	const char *name_map;		/* --node-name-map: an error when it cannot be read */
	const char *default_map;	/* the map read unasked: a warning when it cannot be */
	bool verbose, nhc, list_only, links, sms, errs, routes;
	int metrics;			/* --format: 1 openmetrics, 2 prometheus */
};

/*
 * After the options are parsed: refuse what does not go together, and check
 * every file named (no output may replace an input or the other output)
 * before any is read.  0, or the exit status of the usage error said.
 */
int rd_fabopts_check(struct rd_cli *cli, struct rd_fabargs *a);

void rd_fabargs_free(struct rd_fabargs *a);

#endif

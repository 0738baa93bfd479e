/* SPDX-License-Identifier: MIT */
/* rdma-selftest --mesh: where the host list comes from, and one line per pair. */
#ifndef RD_STMESH_H
#define RD_STMESH_H

#include <stdbool.h>

#include "cli/cli.h"
#include "output/output.h"
#include "selftest/selftest.h"

struct rd_stmesh_opts {
	const char *hosts;	/* --hosts LIST */
	const char *hostfile;	/* --hostfile FILE */
	const char *self;	/* --self NAME */
	struct rd_st_plan plan;	/* --pairs */
	int wait_ms;		/* --mesh-wait */
	const char *devices;	/* --devices all|DEV[:PORT],...: the rails */
	bool cross;		/* --cross: every rail to every rail */
};

/*
 * One device name with an optional port, "DEV[:PORT]" (letters, digits, _ - .):
 * 0 with name[] and *port (0: none given), or -EINVAL.
 */
int rd_stmesh_parse_dev(const char *s, size_t len, char name[64], unsigned int *port);

/* Run this host's part of the mesh and print its pairs; the tool's exit status (*out: the JSON writer). */
int rd_stmesh_main(struct rd_cli *cli, const struct rd_st_config *cfg,
		   const struct rd_stmesh_opts *o, struct rd_out **out);

#endif

/* SPDX-License-Identifier: MIT */
/* rdma-selftest's own options: their ids and how each one sets the self-test's choices. */
#ifndef RD_STOPTS_H
#define RD_STOPTS_H

#include <stdbool.h>

#include "cli/cli.h"
#include "selftest/selftest.h"
#include "stmesh.h"

enum rd_st_opt {
	OPT_SERVER = RD_OPT_TOOL_BASE,
	OPT_BIND,
	OPT_VERBS,
	OPT_WINDOW,
	OPT_SIZES,
	OPT_QUICK,
	OPT_TIMEOUT,
	OPT_EXPECT_GBPS,
	OPT_EXPECT_LAT,
	OPT_PINGS,
	OPT_QP_TIMEOUT,
	OPT_RETRY,
	OPT_RNR_RETRY,
	OPT_MIN_RNR,
	OPT_MTU,
	OPT_ONCE,
	OPT_LAT_ONLY,
	OPT_BW_ONLY,
	OPT_MESH,
	OPT_HOSTFILE,
	OPT_PAIRS,
	OPT_SELF,
	OPT_MESH_WAIT,
	OPT_OP,
	OPT_DENY,
	OPT_NO_COUNTERS,
	OPT_TC,
	OPT_SL,
	OPT_QP,
	OPT_MCAST,
	OPT_DEVICES,
	OPT_CROSS,
	OPT_PEER_DEV,
};

/* What the options choose beyond the engine's config. */
struct rd_st_choices {
	bool server, all_sizes, mesh;
	bool iters_given;	/* -n was given (--mcast sends 100 by default) */
	char peer_dev[64];	/* --peer-dev DEV[:PORT]: the DEV part (c->peer_dev points here) */
	struct rd_stmesh_opts mesh_opts;
};

/*
 * One tool option into c and ch: 0; -EINVAL for a bad value (why[] says more,
 * or is empty); -ENOENT when opt is not one of the tool's own.
 */
int rd_st_opt_apply(int opt, const char *arg, struct rd_st_config *c, struct rd_st_choices *ch,
		    char why[96]);

#endif

/* SPDX-License-Identifier: MIT */
/* rdma-doctor internals shared by the engine (doctor.c), the checks (drchecks.c) and drself.c. */
#ifndef RD_DOCTOR_INT_H
#define RD_DOCTOR_INT_H

#include "stats/stats.h"
#include "drapi.h"
#include "drsys.h"
#include "model/model.h"
#include "gpu/gpu.h"

/* Facts of one port, gathered once before the checks run. */
struct rd_dr_port {
	struct rd_port *p;
	bool selected;		/* passes -p */
	bool roce, ib;
	char netdev[64];	/* "" when nothing maps */
	bool other_netns;	/* sysfs names a netdev not visible here */
	bool has_nd;
	struct rd_netdev_info nd;
	bool has_gids;
	struct rd_gid_table gids;
	const struct rd_gid *best;
	char best_reason[160], best_why[160];
	bool best_elsewhere;	/* no GID: every candidate's netdev is in another namespace */
	bool has_ctrs;
	struct rd_port_ctrs ctrs;
	bool sampled;		/* two readings: deltas are meaningful */
};

struct rd_dr_ctx {
	const struct rd_dr_opts *o;
	const struct rd_sysroot *sr;
	bool live;
	struct rd_device_list *list;
	struct rd_dr_port **ports;	/* [device][port index] */
	struct rd_dr_report *rep;
	struct rd_warnings *w;
	const struct rd_dr_check *cur;
	struct rd_device *cur_dev;
	struct rd_dr_port *cur_port;
	bool has_routes;
	struct rd_routes routes;
	/* the expectation keys some check asked for (rd_dr_expected): a key the
	 * user gave that no check asked for applied to nothing, and is named */
	bool *consulted;
	struct rd_netdev_cache *netdevs;	/* each netdev's files read once for every port and GID */
	struct rd_dr_files *files;		/* the node's files several devices or ports read */
	/* the GPU checks' topology, built at the first of them (drgpu.c) */
	struct rd_gpu_topo *gpu;
	bool gpu_built;
	/* a node check's result about one thing of the node ("GPU3 (0000:61:00.0)"); "" = "node" */
	char object[96];
	int err;
};

/* One result of the running check for the current object; fix NULL: the table's. */
void rd_dr_emit(struct rd_dr_ctx *c, enum rd_dr_status s, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Expected value of a key, or NULL. */
const char *rd_dr_expected(const struct rd_dr_ctx *c, enum rd_dr_expect_key k, double *num);

/*
 * Loopback self-test of one port (two RC QPs on the same port, verified
 * ping-pong): 0 and detail on success, -errno and detail saying where.
 */
int rd_dr_loopback(const struct rd_sysroot *sr, const struct rd_device *dev,
		   const struct rd_dr_port *dp, unsigned int timeout_ms, char *detail,
		   size_t detail_len);

#endif

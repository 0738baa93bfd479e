/* SPDX-License-Identifier: MIT */
/*
 * The mesh self-test: every host of a list (the same list, in the same order,
 * on every host: Slurm's node list or --hosts) serves, and tests its peers as
 * a client in rounds, as the schedule (plan.h) says: in a round each host is
 * a client of at most one peer and the server of at most one peer, and the
 * full mesh takes N - 1 rounds (one for --pairs ring, K for random:K, a leaf
 * count for leaves:S).  With rails (--devices)
 * a round tests the peer on each rail in turn (rail to the same-named rail,
 * or every rail to every rail), so a port carries one pair at a time in each
 * direction.  Nothing is started
 * on another host: the cluster's engine (srun, pdsh, clush) starts one
 * rdma-selftest --mesh per host.
 */
#ifndef RD_ST_MESH_H
#define RD_ST_MESH_H

#include <stdbool.h>
#include <stddef.h>

#include "engine.h"
#include "plan.h"
#include "base/base.h"

struct rd_st_mesh {
	const struct rd_strlist *hosts;	/* every participant, same order everywhere */
	const char *self;		/* this host's name (matched up to the first dot too) */
	const struct rd_st_schedule *sched;	/* who tests whom in each round */
	int wait_ms;			/* how long a peer's server may take to answer */
	/*
	 * --devices: this host's rails, each tested against the peer's port of
	 * the same device name (every peer rail by these names with cross)
	 * through the TCP exchange, which names the peer's device.  nrails 0:
	 * one test per peer, on the port rdma_cm routes to.
	 */
	const struct rd_st_rail *rails;
	size_t nrails;
	bool cross;
};

/* One rail: a port of a device of this host. */
struct rd_st_rail {
	const struct rd_device *dev;
	unsigned int port;
};

/* One tested pair, as it ends. */
struct rd_st_pair {
	const char *src, *dst;
	const char *src_dev, *dst_dev;	/* the rails (NULL without --devices) */
	unsigned int src_port, dst_port;
	unsigned int round;
	unsigned int attempts;		/* connection attempts (the peer's server was busy or not up) */
	double wait_ms;			/* time spent before the attempt that counted */
	const struct rd_st_run *run;
};

typedef void (*rd_st_pair_fn)(void *ctx, const struct rd_st_pair *p);

/* This host's index in m->hosts, or -1. */
int rd_st_mesh_self(const struct rd_st_mesh *m);

/*
 * Run this host's part: serve the peers that test it (until each has come, or
 * the last round's wait is over) and test its own peers; done() is called as
 * each pair ends.  0 with *failed pairs counted; -errno with why[] when it
 * cannot take part (not in the list, cannot listen).
 */
int rd_st_mesh_run(const struct rd_st_config *cfg, const struct rd_sysroot *sr,
		   const struct rd_device_list *list, const struct rd_st_mesh *m,
		   const struct rd_st_hooks *h, rd_st_pair_fn done, void *ctx, unsigned int *failed,
		   char *why, size_t why_len);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * What a port's GID table means to the people who pick an index: the
 * filters a listing and --best share, one port's choice with its reason (the
 * same choice rdma-doctor's roce.gid and rdma-selftest make, through
 * rd_gid_best), NCCL's environment when the choice differs between ports, and
 * show_gids' order for --compat.  The tools keep options and printing.
 */
#ifndef RD_GIDPOLICY_H
#define RD_GIDPOLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "gid.h"

/* The listing filters (-n, -4, -6, --ver, --ip); --best honours them too. */
struct rd_gid_filter {
	const char *netdev;
	bool v4_only, v6_only;
	enum rd_gid_ver ver;	/* UNKNOWN = any */
	bool have_ip;
	uint8_t ip[16];		/* as a GID: IPv4 mapped */
};

bool rd_gid_filter_match(const struct rd_gid *g, const struct rd_gid_filter *f);
bool rd_gid_filter_active(const struct rd_gid_filter *f);

/* One port's answer to "which GID index": kept for every port (the NCCL advice needs all). */
struct rd_gid_choice {
	const struct rd_device *d;
	const struct rd_port *p;
	bool ok;
	struct rd_gid g;
	char text[192];		/* the reason when ok, why not otherwise */
};

/*
 * Choose port p's GID from its table t among the entries f lets through, on
 * VLAN vlan (rd_gid_best's rule; a netdev must be up and in this network
 * namespace, as the run's netdev cache has it: every port's choice asks it):
 * fills c.  Returns -ENOMEM, else 0 (c->ok says whether one was found).
 */
int rd_gid_choose(struct rd_netdev_cache *netdevs, const struct rd_device *d,
		  const struct rd_port *p, const struct rd_gid_table *t,
		  const struct rd_gid_filter *f, int vlan, struct rd_gid_choice *c);

/* The family a chosen GID is for NCCL: 0 IPv4, 1 IPv6. */
int rd_gid_family_index(const struct rd_gid *g);

/*
 * When the chosen RoCE index is not the same on every port, one
 * NCCL_IB_GID_INDEX cannot be right for all of them: NCCL then selects per
 * port by family, address range and RoCE version.  env[fi] is that setting
 * for family fi ("" when no port chose one of it).
 */
struct rd_gid_nccl {
	bool differs;
	char env[2][160];
};

void rd_gid_nccl_advice(const struct rd_gid_choice *c, size_t n, struct rd_gid_nccl *adv);
/* Whether choice c takes part in the advice (a RoCE v1 or v2 GID was chosen). */
bool rd_gid_nccl_counts(const struct rd_gid_choice *c);

/*
 * show_gids' order and rows, for --compat: it walks `ls` of the device, port
 * and gids directories, so names and numbers sort as text (mlx5_10 before
 * mlx5_2, GID 10 before GID 2); it skips empty slots and the bare fe80:: one.
 */
void rd_gid_compat_sort_devices(struct rd_device_list *list);
void rd_gid_compat_sort_table(struct rd_gid_table *t);
bool rd_gid_compat_skipped(const struct rd_gid *g);

#endif

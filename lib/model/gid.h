/* SPDX-License-Identifier: MIT */
/*
 * GID tables: read, classify (IB / RoCE v1 / RoCE v2; IPv4-mapped,
 * link-local, global IPv6), and choose the index a user should use.
 */
#ifndef RD_GID_H
#define RD_GID_H

#include <stdbool.h>
#include <stdint.h>

#include "device.h"
#include "sysroot/sysroot.h"
#include "base/base.h"

enum rd_gid_ver {
	RD_GID_VER_UNKNOWN = 0,
	RD_GID_VER_IB,		/* native InfiniBand GID */
	RD_GID_VER_V1,		/* RoCE v1 (Ethernet, no IP header) */
	RD_GID_VER_V2,		/* RoCE v2 (UDP/IP, routable) */
	RD_GID_VER_IWARP,	/* iWARP: the GID is the MAC, no RoCE version */
};

struct rd_gid {
	unsigned int index;
	uint8_t raw[16];
	enum rd_gid_ver ver;
	char type[24];		/* the kernel's gid_attrs/types string; "" if unreadable */
	char ndev[64];		/* gid_attrs/ndevs; "" if none */
	int vlan;		/* VLAN id of ndev, -1 when it is not a VLAN; RD_VLAN_TAGGED
				 * or RD_VLAN_CANNOT_TELL (netdev.h) in a copy without proc */
};

struct rd_gid_table {
	struct rd_gid *v;
	size_t n;
	size_t slots;		/* slot files seen, used or not */
};

/*
 * Read one port's GID table in numeric index order.  Empty (all-zero) slots
 * are left out unless include_empty.  Unused slots' attribute files fail with
 * EINVAL and ndevs fails on IB ports: expected, silent.  A malformed GID file
 * is skipped with a warning.  -errno only when the gids directory cannot be
 * listed (with a warning too).
 */
int rd_port_gid_table(const struct rd_sysroot *sr, const struct rd_device *dev,
		      const struct rd_port *port, bool include_empty, struct rd_gid_table *t,
		      struct rd_warnings *w);
struct rd_vlan_map;
/* The same with the VLAN map read once by the caller for many ports. */
int rd_port_gid_table_vlans(const struct rd_sysroot *sr, const struct rd_device *dev,
			    const struct rd_port *port, bool include_empty,
			    const struct rd_vlan_map *vlans, struct rd_gid_table *t,
			    struct rd_warnings *w);
void rd_gid_table_free(struct rd_gid_table *t);
/*
 * The netdev the table read for its used GID at index (gid_attrs/ndevs; ""
 * when that read failed), NULL when the table holds no used GID there (and
 * so read nothing).
 */
const char *rd_gid_table_ndev(const struct rd_gid_table *t, unsigned int index);

bool rd_gid_is_zero(const uint8_t g[16]);
/* ::ffff:a.b.c.d — bytes 0-9 zero, 10-11 0xff. */
bool rd_gid_is_v4mapped(const uint8_t g[16]);
/* fe80::/10 */
bool rd_gid_is_link_local(const uint8_t g[16]);
/* The kernel's 8-group form, "fe80:0000:...". */
void rd_gid_format(const uint8_t g[16], char buf[40]);
/* Dotted IPv4 for IPv4-mapped GIDs (*family AF_INET), compressed IPv6 otherwise. */
void rd_gid_address(const uint8_t g[16], char buf[48], int *family);

/*
 * Version from the kernel's type string; the link layer decides IB vs v1
 * (the kernel says "IB/RoCE v1" for both), an iWARP device is never RoCE.
 */
enum rd_gid_ver rd_gid_ver_from(const char *type, enum rd_link_layer ll, bool ll_known);
enum rd_gid_ver rd_port_gid_ver(const struct rd_device *dev, const struct rd_port *port,
				const char *type);
const char *rd_gid_ver_name(enum rd_gid_ver v);	/* "IB", "v1", "v2", "iWARP", NULL */

/* Facts the best-index policy needs about a netdev. */
typedef bool (*rd_netdev_up_fn)(void *ctx, const char *ifname);

/* vlan argument of rd_gid_best: the caller chose the netdev, tagging is no criterion. */
#define RD_GID_VLAN_ANY (-2)

/*
 * The GID index a user should pass to perftest -x, NCCL_IB_GID_INDEX...:
 * RoCE v2 IPv4 > v2 global IPv6 (ULA fc00::/7 included) > v2 link-local >
 * v1 (the same order among v1); on a netdev that is up; untagged unless
 * vlan >= 0 (then only that VLAN) or RD_GID_VLAN_ANY; ties go to the lowest
 * index.  A GID whose VLAN is not known (RD_VLAN_TAGGED / _CANNOT_TELL) is
 * never taken for untagged or for a given VLAN; if it would have won, the
 * answer is NULL (a guess is not a recommendation).  On IB and iWARP ports:
 * the first GID (the port GID; the MAC on iWARP).
 * Returns the chosen entry, or NULL with why[] saying why none qualifies.
 * reason[] says why the chosen one won, e.g. "RoCE v2, 192.168.42.8 on ens1f0".
 */
const struct rd_gid *rd_gid_best(const struct rd_gid_table *t, const struct rd_port *port,
				 int vlan, rd_netdev_up_fn up, void *up_ctx, char *reason,
				 size_t reason_len, char *why, size_t why_len);

/*
 * The netdev test every GID choice of the kit uses (rdma-gids --best,
 * rdma-doctor's roce.gid and ns.gid, rdma-selftest), so that they agree:
 * usable here means in this network namespace and up.  A GID whose netdev
 * another namespace holds (shared RDMA netns mode, a container) cannot be
 * used by a process here, whatever its state.  Pass rd_gid_netdev_usable as
 * rd_gid_best's up and a struct rd_gid_netns as its up_ctx: one a choice (it
 * counts what that choice saw), over the netdev cache the run keeps.
 */
struct rd_netdev_cache;
struct rd_gid_netns {
	struct rd_netdev_cache *netdevs;	/* the run's, each netdev read once (netdev.h) */
	unsigned int checked, elsewhere;
	char elsewhere_name[64];
};
void rd_gid_netns_init(struct rd_gid_netns *u, struct rd_netdev_cache *netdevs);
bool rd_gid_netdev_usable(void *ctx, const char *ifname);
/*
 * After rd_gid_best gave NULL: when every netdev it looked at was in another
 * namespace, put that in why[] ("no usable GID in this network namespace
 * (the GIDs' netdevs, e.g. eth1, are in another one)") and return true.
 */
bool rd_gid_netns_why(const struct rd_gid_netns *u, char *why, size_t why_len);

#endif

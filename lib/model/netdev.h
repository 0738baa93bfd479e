/* SPDX-License-Identifier: MIT */
/*
 * ib port <-> netdev.  For now the sysfs side: the rxe/siw parent, the PCI
 * function's net/ directory, and the netdevs the GID table names.
 */
#ifndef RD_NETDEV_H
#define RD_NETDEV_H

#include <stdio.h>

#include "device.h"
#include "sysroot/sysroot.h"
#include "base/base.h"

/* VLAN netdevs from /proc/net/vlan/config (present once 8021q is loaded). */
struct rd_vlan_map {
	struct rd_strlist names;
	struct rd_strlist lowers;
	int *ids;		/* VLAN id, or RD_VLAN_TAGGED / RD_VLAN_CANNOT_TELL */
	bool ids_unknown;	/* a copied tree without proc/net/vlan/config: from sysfs */
	struct rd_strmap index;	/* name -> position, once the map is read */
};

/* Lookup results besides an id (>= 0) and -1 (not a VLAN netdev). */
#define RD_VLAN_TAGGED		(-2)	/* a VLAN netdev whose id is not known */
#define RD_VLAN_CANNOT_TELL	(-3)	/* stacked on another netdev, no uevent to say how */

/*
 * The map from sysfs alone (lib/vlansys.c): every netdev that is a VLAN
 * (lower_ link and DEVTYPE=vlan) as RD_VLAN_TAGGED, every stacked netdev
 * whose type cannot be read as RD_VLAN_CANNOT_TELL; ids_unknown is set.
 */
int rd_vlan_map_from_sysfs(const struct rd_sysroot *sr, struct rd_vlan_map *map);

/* "ens1f0.100     | 100  | ens1f0" -> name, id, lower.  -EINVAL for other lines. */
int rd_parse_vlan_config_line(const char *line, char *name, size_t name_len, int *vid,
			      char *lower, size_t lower_len);
/*
 * -ENOENT when the file does not exist: live, 8021q is not loaded (no VLANs)
 * and the map is empty; in a --sysroot copy that lacks it, the map comes
 * from rd_vlan_map_from_sysfs() (ids_unknown).
 */
int rd_vlan_map_read(const struct rd_sysroot *sr, struct rd_vlan_map *map);
/* Its parsing half: the map from the file's lines (fmemopen for tests).  -ENOMEM only. */
int rd_vlan_map_parse(FILE *f, struct rd_vlan_map *map);
/*
 * Index the names of a map that is filled (the readers above do it), so that
 * a lookup is a hash probe rather than a scan: rdma-gids looks up every GID's
 * netdev.  Without it (no memory, a map built by hand) lookups scan.
 */
void rd_vlan_map_index(struct rd_vlan_map *map);
/* VLAN id of ifname, -1 if it is not a VLAN netdev. */
int rd_vlan_map_lookup(const struct rd_vlan_map *map, const char *ifname);
const char *rd_vlan_map_lower(const struct rd_vlan_map *map, const char *ifname);
void rd_vlan_map_free(struct rd_vlan_map *map);

/*
 * The one rule for "this netdev carries traffic", used by every tool (the GID
 * choice of rdma-gids --best, rdma-doctor's roce.netdev and roce.gid):
 * operstate "up" unless carrier is 0 (brought up, no peer), or "unknown" with
 * carrier 1 (drivers that do not report operstate).  carrier: 1, 0, -1 unknown.
 */
bool rd_netdev_state_up(const char *operstate, int carrier);

/*
 * The netdevs a run has asked about, each one's files read once.  Every GID
 * choice asks of every candidate GID whether its netdev is here and up, and
 * thousands of GIDs name a few netdevs (read for each GID, operstate and
 * carrier were 8 320 of rdma-doctor's opens on bench/'s 32-device tree, for
 * 128 files); rdma-doctor reads the port's netdev too.  The caller keeps one
 * for the run, as it keeps the VLAN map, and passes it down: a snapshot, so
 * not for a tool that follows changes (rdma-events, rdma-top).  Out of
 * memory, a question is answered uncached.
 */
struct rd_netdev_seen;
struct rd_netdev_cache {
	const struct rd_sysroot *sr;
	struct rd_strmap index;		/* name -> position in v */
	struct rd_netdev_seen *v;
	size_t n, cap;
	int netns_view;			/* /sys/class/net is there: 1, 0; -1 not asked yet */
	bool listed;			/* /sys/class/net listed into names (the IPoIB match) */
	struct rd_strlist names;
};
void rd_netdev_cache_init(struct rd_netdev_cache *nc, const struct rd_sysroot *sr);
/* Forget every netdev (the cache stays usable, empty). */
void rd_netdev_cache_free(struct rd_netdev_cache *nc);

/*
 * rd_netdev_state_up() of a netdev's sysfs operstate and carrier.  A netdev
 * we cannot see (another network namespace) counts as up: we cannot know,
 * so it does not disqualify.
 */
bool rd_netdev_is_up(struct rd_netdev_cache *nc, const char *ifname);
/*
 * /sys/class/net is there (this is a network namespace's view) and has no
 * entry at all for ifname: another namespace holds it.  A dangling link is
 * an entry (a damaged copy), not elsewhere.
 */
bool rd_netdev_elsewhere(struct rd_netdev_cache *nc, const char *ifname);
/* /sys/class/net/IFNAME resolves (links followed): the netdev is visible here. */
bool rd_netdev_visible(struct rd_netdev_cache *nc, const char *ifname);


/* Facts about one netdev. */
struct rd_netdev_info {
	char name[64];
	bool present;		/* visible here (this network namespace) */
	char operstate[16];	/* "up", "down", "unknown"...; "" if unknown */
	int operstate_err;	/* why operstate could not be read (-errno), 0 if it was */
	int carrier;		/* 1, 0, or -1 unknown */
	bool has_mtu, has_speed, has_ifindex;
	uint64_t mtu;
	int64_t speed_mbps;	/* -1 when the driver does not know */
	uint64_t ifindex;
	uint64_t type;		/* ARPHRD: 1 Ethernet, 32 InfiniBand */
	int vlan;		/* VLAN id, -1 if not a VLAN */
	char vlan_lower[64];
	struct rd_strlist bond_slaves;	/* when it is a bond master */
	char master[64];		/* its bond, if it is a slave */
	const char *source;		/* "rtnetlink" or "sysfs" */
};

/*
 * Read netdev facts: live, operstate/MTU/carrier through rtnetlink
 * (libnl-route-3) when it answers, sysfs otherwise and for the rest (speed,
 * bond slaves, master); the VLAN id and lower device from vlans (may be
 * NULL).  0 even when the netdev is not visible (present = false); -ENOMEM only.
 */
int rd_netdev_read(const struct rd_sysroot *sr, const char *name, const struct rd_vlan_map *vlans,
		   struct rd_netdev_info *nd);
/* The same, its operstate and carrier shared with the run's other questions (above). */
int rd_netdev_read_cached(struct rd_netdev_cache *nc, const char *name,
			  const struct rd_vlan_map *vlans, struct rd_netdev_info *nd);
void rd_netdev_info_free(struct rd_netdev_info *nd);
/*
 * Its MTU alone, from where rd_netdev_read takes it (rtnetlink live, else
 * sysfs), for a tool that shows nothing else of the netdev: -ENOENT when
 * the netdev is not visible or says no MTU.
 */
int rd_netdev_mtu(const struct rd_sysroot *sr, const char *name, uint64_t *mtu);
struct rtnl_link;
/* The facts rtnetlink gives, from libnl's parse of an RTM_NEWLINK (present, operstate, carrier,
 * MTU, ifindex, type). */
void rd_netdev_from_rtnl(struct rtnl_link *link, struct rd_netdev_info *nd);
/* The sysfs "speed" value: Mb/s, or -1 when unknown ("-1", 0, not a number). */
int64_t rd_parse_netdev_speed(const char *s);
/* "Up", "Down" or "NA" as ibdev2netdev prints it. */
const char *rd_netdev_updown(const struct rd_netdev_info *nd);

/* Where an ib port -> netdev mapping came from. */
enum rd_map_via {
	RD_VIA_NONE = 0,
	RD_VIA_NETLINK,		/* RDMA_NLDEV_CMD_PORT_GET */
	RD_VIA_GID_NDEV,	/* gid_attrs/ndevs/0 */
	RD_VIA_PARENT,		/* rxe/siw parent file */
	RD_VIA_PCI,		/* device/net/<if> with dev_port */
	RD_VIA_IPOIB_GUID,	/* IPoIB hardware address ends in the port GUID */
};
const char *rd_map_via_name(enum rd_map_via v);

struct rd_nl_ports;

/* "aa:bb:..." (a netdev's address file) into at most max bytes; the count, or -1. */
int rd_parse_hwaddr(const char *s, uint8_t *out, int max);

/* Is ifname an IPoIB netdev (or P_Key child) of this IB port, by its GUID? */
bool rd_ipoib_on_port(const struct rd_sysroot *sr, const struct rd_device *dev,
		      const struct rd_port *port, const char *ifname);

/*
 * The netdev of one port: netlink first (nl may be NULL: sysfs only), then
 * gid_attrs/ndevs/0, the parent of a soft device, the PCI function's netdev
 * for that port, the IPoIB GUID match.  name[0] == '\0' when nothing maps.
 * *other_netns is set when sysfs names a netdev that is not visible here.
 */
int rd_port_netdev(const struct rd_sysroot *sr, const struct rd_nl_ports *nl,
		   const struct rd_device *dev, const struct rd_port *port, char *name,
		   size_t name_len, enum rd_map_via *via, bool *other_netns);
/*
 * The same for a caller that keeps the run's netdev cache (nc: the IPoIB
 * match's listing of /sys/class/net and each netdev's type and address are
 * read once a run, not once a port) and may have read gid_attrs/ndevs/0
 * already (its GID table has: rd_gid_table_ndev): ndev0 is what it read, ""
 * when the read failed; NULL to read it here.
 */
int rd_port_netdev_cached(struct rd_netdev_cache *nc, const struct rd_nl_ports *nl,
			  const struct rd_device *dev, const struct rd_port *port, const char *ndev0,
			  char *name, size_t name_len, enum rd_map_via *via, bool *other_netns);

#endif

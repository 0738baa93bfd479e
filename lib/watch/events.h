/* SPDX-License-Identifier: MIT */
/*
 * Events of RDMA devices, as rdma-events prints them: libibverbs async
 * events, the link changes of the ports' netdevs, GID table changes and
 * devices that come and go.  This part is pure (names, GID table diffs,
 * uevent parsing, the event record); the live watcher is in evwatch.h.
 */
#ifndef RD_EVENTS_H
#define RD_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "model/model.h"
#include "sysroot/sysroot.h"

/* ---- libibverbs async events (enum ibv_event_type) ---- */

/* What an async event is about: a port, the whole device, or one resource. */
enum rd_async_scope {
	RD_ASYNC_UNKNOWN = 0,
	RD_ASYNC_PORT,
	RD_ASYNC_DEVICE,
	RD_ASYNC_QP,
	RD_ASYNC_CQ,
	RD_ASYNC_SRQ,
	RD_ASYNC_WQ,
};

/* "PORT_ERR" for IBV_EVENT_PORT_ERR (no prefix); NULL for a value we do not know. */
const char *rd_async_event_name(int type);
/* A short meaning, "port went down"; NULL for a value we do not know. */
const char *rd_async_event_meaning(int type);
enum rd_async_scope rd_async_event_scope(int type);
/* The highest enum ibv_event_type value named above (for loops in tests). */
int rd_async_event_max(void);

/* ---- GID table diff ---- */

enum rd_gid_change_kind {
	RD_GID_ADDED,		/* index not in the old table */
	RD_GID_REMOVED,		/* index not in the new table */
	RD_GID_CHANGED,		/* same index, other GID, type or netdev */
};

struct rd_gid_change {
	enum rd_gid_change_kind kind;
	struct rd_gid old;	/* REMOVED, CHANGED */
	struct rd_gid cur;	/* ADDED, CHANGED */
};

struct rd_gid_diff {
	struct rd_gid_change *v;
	size_t n;
};

/*
 * Compare two tables of one port (as rd_port_gid_table reads them: by
 * index, empty slots left out).  Changes come in index order.  -ENOMEM only.
 */
int rd_gid_table_diff(const struct rd_gid_table *old, const struct rd_gid_table *cur,
		      struct rd_gid_diff *d);
void rd_gid_diff_free(struct rd_gid_diff *d);

/*
 * Where each GID of a port (address, type and netdev) was last seen, to
 * notice one that comes back at another index: a job that pinned the old
 * index (NCCL_IB_GID_INDEX, perftest -x) now uses another address or none
 * (nccl#2157).
 */
struct rd_gid_memo {
	struct rd_gid *v;
	size_t n, cap;
};

/*
 * Remember the GIDs of cur; for each one that memo last saw at another
 * index, moved(ctx, gid, old_index) is called first.  -ENOMEM only.
 */
int rd_gid_memo_update(struct rd_gid_memo *m, const struct rd_gid_table *cur,
		       void (*moved)(void *ctx, const struct rd_gid *g, unsigned int old_index),
		       void *ctx);
void rd_gid_memo_free(struct rd_gid_memo *m);

/* ---- kernel uevents (NETLINK_KOBJECT_UEVENT) ---- */

struct rd_uevent {
	char action[16];	/* add, remove, move, change... */
	char subsystem[32];	/* infiniband, infiniband_verbs, net... */
	char devpath[256];
	char kname[64];		/* last component of devpath: "rxe1", "uverbs1" */
	char old_kname[64];	/* move: last component of DEVPATH_OLD */
};

/*
 * Parse one kernel uevent datagram ("add@/devices/...\0ACTION=add\0...").
 * -EINVAL when it is not one (libudev's "libudev\0" messages included).
 */
int rd_uevent_parse(const void *buf, size_t len, struct rd_uevent *ev);

/* ---- the event record ---- */

enum rd_ev_source {
	RD_EVSRC_ASYNC,		/* ibv_get_async_event */
	RD_EVSRC_LINK,		/* rtnetlink: the port's netdev */
	RD_EVSRC_GID,		/* GID table re-read after GID_CHANGE */
	RD_EVSRC_DEVICE,	/* hot-plug: added, removed, renamed */
	RD_EVSRC_STATE,		/* the state snapshot of -s */
};
const char *rd_ev_source_name(enum rd_ev_source s);	/* "async", "link"... */

enum rd_ev_severity {
	RD_SEV_INFO = 0,
	RD_SEV_GOOD,		/* came up, appeared */
	RD_SEV_WARN,		/* changed under the user's feet */
	RD_SEV_BAD,		/* went down, failed, vanished */
};

/* A netdev's link as we track it. */
struct rd_ev_link {
	char netdev[64];	/* "" when the port has none we can see */
	char old_netdev[64];	/* LINK_RENAME */
	int ifindex;		/* 0 unknown */
	bool known;		/* the fields below were read */
	char operstate[16];	/* "up", "down", "lowerlayerdown"...; "" unreadable */
	int oper_err;		/* why operstate could not be read (-errno), 0 if it was */
	int carrier;		/* 1, 0, -1 unknown */
	int admin_up;		/* IFF_UP: 1, 0, -1 unknown */
	unsigned int mtu, old_mtu;	/* old_mtu: LINK_MTU */
};
/* Up by model/netdev's one rule (rd_netdev_state_up), as everywhere in the kit. */
bool rd_ev_link_up(const struct rd_ev_link *l);
/* Why a link is not up: "administratively down", "no carrier", "operstate dormant". */
const char *rd_ev_link_why_down(const struct rd_ev_link *l, char *buf, size_t len);

struct rd_event {
	struct timespec time;		/* CLOCK_REALTIME when it was read */
	enum rd_ev_source source;
	enum rd_ev_severity severity;
	char dev[64];
	unsigned int port;		/* 0: about the device, not a port */
	char name[24];			/* PORT_ERR, LINK_DOWN, GID_ADD, DEVICE_ADDED, STATE */
	char text[256];			/* the rest of the text line */
	int async_type;			/* ASYNC: enum ibv_event_type */
	struct rd_ev_link link;		/* LINK, STATE */
	struct rd_gid gid, old_gid;	/* GID (old_gid: GID_MOD) */
	char uverbs[32];		/* DEVICE */
	char old_dev[64];		/* DEVICE_RENAMED */
	const char *reason;		/* DEVICE_REMOVED: uevent, device_fatal, hangup, read_error, vanished */
	unsigned int nports;		/* DEVICE_ADDED */
	/* STATE */
	bool has_state, has_phys_state;
	uint64_t state, phys_state;
	const char *link_layer;		/* "Ethernet", "InfiniBand" or NULL */
};

/* Fill ev for an async event of dev (port ignored for device-level events). */
void rd_event_async(struct rd_event *ev, const char *dev, int type, unsigned int port);
/* A hot-plug event (DEVICE_ADDED, DEVICE_REMOVED, DEVICE_RENAMED); the caller fills the rest. */
void rd_event_device(struct rd_event *ev, const char *dev, const char *name,
		     enum rd_ev_severity sev);
/* One GID table change on dev/port. */
void rd_event_gid(struct rd_event *ev, const char *dev, unsigned int port,
		  const struct rd_gid_change *c);
/* GID_MOVED: g is back at another index than old_index (a warning). */
void rd_event_gid_moved(struct rd_event *ev, const char *dev, unsigned int port,
			const struct rd_gid *g, unsigned int old_index);
/* A link change: name is LINK_UP, LINK_DOWN, LINK_MTU, LINK_RENAME or LINK_GONE. */
void rd_event_link(struct rd_event *ev, const char *dev, unsigned int port, const char *name,
		   const struct rd_ev_link *l);
/* The -s snapshot of one port: its state and its netdev's link. */
void rd_event_port_state(struct rd_event *ev, const struct rd_device *dev,
			 const struct rd_port *port, const struct rd_ev_link *l);

/*
 * A netdev's link from sysfs (operstate, carrier, flags, mtu, ifindex),
 * for --sysroot snapshots.  l->known stays false when the netdev is absent.
 */
void rd_ev_link_from_sysfs(const struct rd_sysroot *sr, const char *ifname,
			   struct rd_ev_link *l);

/* "2026-11-22T10:15:02.123" (local time) or "2026-11-22T10:15:02.123Z" (utc). */
void rd_ev_format_time(const struct timespec *ts, bool utc, char buf[40]);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * fabric/ interface: the InfiniBand fabric seen through its management
 * protocol.  A sweep (libibnetdisc's discovery, then SMInfo and the PMA's
 * PortCounters through libibmad) or a saved fabric (libibnetdisc's cache
 * file, as `ibnetdiscover --cache` writes it) becomes one model: nodes, their
 * ports' PortInfo, the links between them, the subnet managers and the error
 * counters.  The checks (fabchecks.c) judge that model and return results
 * like rdma-doctor's: PASS/WARN/FAIL/SKIP, the object, the detail, the fix.
 *
 * Nothing here prints: libibnetdisc's own complaints (it writes them to
 * stderr) are caught during discovery and kept in the model's messages.
 */
#ifndef RD_FABAPI_H
#define RD_FABAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

enum rd_fab_node_type { RD_FAB_CA = 1, RD_FAB_SWITCH = 2, RD_FAB_ROUTER = 3 };

/* PortInfo's PortState and PortPhysicalState, as the IBA numbers them. */
enum { RD_FAB_DOWN = 1, RD_FAB_INIT = 2, RD_FAB_ARMED = 3, RD_FAB_ACTIVE = 4 };
enum { RD_FAB_PHYS_SLEEP = 1, RD_FAB_PHYS_POLLING = 2, RD_FAB_PHYS_DISABLED = 3,
       RD_FAB_PHYS_TRAINING = 4, RD_FAB_PHYS_LINKUP = 5, RD_FAB_PHYS_ERR_RECOVERY = 6,
       RD_FAB_PHYS_PHYTEST = 7 };

/* The error counters of PortCounters, in the order the checks report them. */
enum rd_fab_ctr {
	RD_FAB_SYMBOL_ERR,
	RD_FAB_LINK_RECOVERY,
	RD_FAB_LINK_DOWNED,
	RD_FAB_RCV_ERR,
	RD_FAB_RCV_REMOTE_PHYS,
	RD_FAB_LOCAL_INTEGRITY,
	RD_FAB_EXCESS_OVERRUN,
	RD_FAB_XMIT_DISCARDS,
	RD_FAB_VL15_DROPPED,
	RD_FAB_SWITCH_RELAY,
	RD_FAB_XMIT_CONSTRAINT,
	RD_FAB_RCV_CONSTRAINT,
	RD_FAB_XMIT_WAIT,	/* congestion, reported apart */
	RD_FAB_XMIT_DATA,	/* data words (x4 for bytes), packets: for the exporter */
	RD_FAB_RCV_DATA,
	RD_FAB_XMIT_PKTS,
	RD_FAB_RCV_PKTS,
	RD_FAB_NCTRS
};

struct rd_fab_ctr_info {
	const char *name;	/* the IBA name: "SymbolErrorCounter" */
	const char *key;	/* JSON key: "symbol_error" */
	unsigned int bits;	/* its width in PortCounters: all ones is saturated */
	bool error;		/* an error counter (checked), not traffic or congestion */
};

const struct rd_fab_ctr_info *rd_fab_ctr_info(enum rd_fab_ctr c);

struct rd_fab_port {
	int num;
	bool has_info;		/* PortInfo read (false: the node answered NodeInfo only) */
	uint64_t guid;
	uint16_t lid;		/* base LID (a switch's port 0 LID for its other ports) */
	uint8_t lmc;
	uint16_t sm_lid;
	uint32_t cap_mask;
	uint8_t state, phys;
	uint8_t w_act, w_en, w_sup;	/* LinkWidth masks: 1 1X, 2 4X, 4 8X, 8 12X, 16 2X */
	uint8_t s_act, s_en, s_sup;	/* LinkSpeed masks: 1 SDR, 2 DDR, 4 QDR */
	uint8_t e_act, e_en, e_sup;	/* LinkSpeedExt: 1 FDR, 2 EDR, 4 HDR, 8 NDR (0 none) */
	int peer_node, peer_port;	/* the far end of the cable, or -1 */
	/*
	 * An Active port whose peer discovery did not take was asked directly
	 * (NodeInfo by directed route): probed, and the GUID that answered (0:
	 * none).  A GUID the fabric already has is two nodes sharing it.
	 */
	bool probed;
	uint64_t probe_guid;
	/*
	 * A position where a GUID that two nodes share answers, or the port of
	 * the node discovery knows by that GUID when no position is surely
	 * its own (see struct rd_fab_seen): id.guid names it, and its link is
	 * not judged (or not there).
	 */
	bool dup;
	bool picked;		/* a port the tool wants counters of (rd_fab_sweep_opts.pick) */
	/* PMA PortCounters: read[] says which sweeps read them (0: first, 1: after --interval) */
	bool ctr_read[2];
	bool ctr_ext;		/* the data and packet counters are PortCountersExtended's 64 bits */
	uint64_t ctr[2][RD_FAB_NCTRS];
};

struct rd_fab_node {
	uint64_t guid;
	int type;			/* enum rd_fab_node_type */
	int nports;
	char desc[65];			/* NodeDescription, as the node says it */
	char name[129];			/* --node-name-map's name, else desc */
	char host[65];			/* the host an HCA's description names, or "" */
	uint16_t lid;			/* a switch's port-0 LID, a CA's first port's LID */
	uint32_t vendor_id, device_id;
	int dr_cnt;			/* the directed route a sweep reached it by (-1: none) */
	uint8_t dr[64];
	struct rd_fab_port *ports;	/* [0..nports]; port 0 is a switch's management port */
	/*
	 * A switch's unicast linear forwarding table: lft[lid] is the port a
	 * packet for that LID leaves by (0: the switch itself, RD_FAB_NO_PORT:
	 * no entry), for LIDs 0..lft_top (SwitchInfo's LinearFDBTop).  NULL
	 * when not read; lft_lost counts 64-LID blocks that did not come back
	 * (their entries stay RD_FAB_NO_PORT and are not judged).
	 */
	uint16_t lft_top;
	uint8_t *lft;
	unsigned int lft_lost;
};

#define RD_FAB_NO_PORT 0xff
/* The highest unicast LID (0xC000 and up are multicast). */
#define RD_FAB_MAX_UCAST_LID 0xbfffu

/*
 * What answered NodeInfo when the sweep asked at a switch port (or at its own
 * port) by directed route: done when discovery lost a link (an Active port
 * without a peer, libibnetdisc's "Duplicate" complaint, a link to a port that
 * is not up), since libibnetdisc takes two nodes with one GUID for one, links
 * the last place it met that GUID and drops the link it had.  Every position
 * is then asked, and each answer is checked against the other end: a switch
 * (or the sweeping node) asked at the port the answer names must name this
 * position back.  A GUID and port that answer at two positions, or whose
 * node names another position, are shared: each such position is dup.
 */
struct rd_fab_seen {
	int node, port;		/* the position: a switch of the model (or the sweeping node) and its port */
	bool answered;
	uint64_t guid;		/* the NodeGUID that answered there */
	int type;		/* its node type (enum rd_fab_node_type) */
	int local_port;		/* its port the query came in by */
	char desc[65];		/* its NodeDescription, read where dup ("" if not read) */
	bool dup;		/* its GUID and port are another node's too */
	bool confirmed;		/* the node discovery knows by this GUID names this position back */
};

/* One subnet manager as SMInfo describes it. */
struct rd_fab_sm {
	uint16_t lid;
	int node, port;			/* the port that answered, -1 when not found */
	uint64_t guid;
	unsigned int priority, state, act_count;
	bool answered;
	char why[96];			/* when it did not answer */
};

struct rd_fab {
	struct rd_fab_node *nodes;
	size_t n_nodes;
	int from_node, from_port;	/* where the sweep started (-1 for a loaded file) */
	bool live;			/* swept now (false: --load) */
	bool have_ctrs, have_sms;	/* counters and SMInfo were read */
	double interval;		/* seconds between the two counter readings, 0 for one */
	struct rd_fab_sm *sms;
	size_t n_sms;
	struct rd_strlist msgs;		/* discovery's own complaints, one line each */
	struct rd_fab_seen *seen;	/* the directed-route probes' answers (may be none) */
	size_t n_seen;
	unsigned int mads;		/* MADs sent (discovery and ours) */
	unsigned int mad_fail;		/* queries that got no answer */
	struct rd_strlist slow;		/* "NODE port N: PortCounters: timeout" */
	unsigned int n_reset;		/* ports whose counters --reset cleared */
	bool have_routes;		/* the switches' forwarding tables were read (or loaded) */
	bool picked;			/* counters only of the ports picked */
	void *ibnd;			/* libibnetdisc's own fabric (for --save) */
};

/* How a sweep runs. */
struct rd_fab_sweep_opts {
	const char *ca;		/* the local HCA the MADs leave from (NULL: the first) */
	int ca_port;		/* 0: its first active port */
	unsigned int timeout_ms;	/* each MAD (default 200) */
	unsigned int retries;		/* each MAD (default 3) */
	double interval;	/* > 0: read counters twice, this many seconds apart */
	bool counters;		/* read PortCounters of every port */
	bool data;		/* and the 64-bit data counters (PortCountersExtended) where there */
	bool reset;		/* --reset: clear every counter read, after reading it */
	bool sms;		/* query SMInfo of every SM-capable port */
	bool routes;		/* read every switch's unicast forwarding table */
	/*
	 * Called after the tables are read, before the counters: it may set
	 * ports' `picked`, and then only those ports' counters are read.
	 */
	void (*pick)(struct rd_fab *fab, void *arg);
	void *pick_arg;
};

/*
 * Sweep the fabric through the local HCA port.  Returns 0, or -errno with why
 * ("no InfiniBand port: umad_get_cas_names found none", "cannot open
 * /dev/infiniband/umad0: Permission denied (run as root or in the rdma group)").
 */
int rd_fab_sweep(struct rd_fab *fab, const struct rd_fab_sweep_opts *o, char *why, size_t why_len);

/* The local HCAs umad knows, for "-d X: no such device (known: ...)". */
int rd_fab_local_cas(struct rd_strlist *names);

/*
 * A saved fabric: libibnetdisc's cache file (ibnetdiscover --cache).  Read
 * under limits (64 MiB, a deadline on a pipe); no counters or SMInfo are in
 * it.  Returns 0 or -errno with why.
 */
int rd_fab_load(struct rd_fab *fab, const char *path, int timeout_ms, char *why, size_t why_len);

/*
 * Save the swept fabric in that cache format to path (rd_outfile's rules: a
 * temporary beside it, renamed over a regular file only).  Only a live sweep
 * can be saved: the cache is written by libibnetdisc from its own fabric.
 */
int rd_fab_save(const struct rd_fab *fab, const char *path, char *why, size_t why_len);

void rd_fab_free(struct rd_fab *fab);

/*
 * --node-name-map FILE (infiniband-diags' format: "GUID name" a line, '#'
 * comments).  A malformed line is skipped with a warning in w naming the
 * file and the line; a file none of whose lines is a map line is -EINVAL
 * ("not a node name map"), one that cannot be read -errno, with why.
 */
int rd_fab_name_map(struct rd_fab *fab, const char *path, int timeout_ms, struct rd_warnings *w,
		    char *why, size_t why_len);

/* ---- rates ---- */
const char *rd_fab_width_name(uint8_t w);	/* "4X"; "?" for a mask that is not one width */
const char *rd_fab_speed_name(const struct rd_fab_port *p);	/* "HDR", "QDR" */
unsigned int rd_fab_width_lanes(uint8_t w);
/* The active lane rate in Mb/s (a QDR lane 10000, HDR 53125), 0 if not known. */
unsigned int rd_fab_lane_mbps(const struct rd_fab_port *p);
/* Best width / lane speed both ends enable (and support). */
uint8_t rd_fab_best_width(const struct rd_fab_port *a, const struct rd_fab_port *b);
unsigned int rd_fab_best_lane_mbps(const struct rd_fab_port *a, const struct rd_fab_port *b);
const char *rd_fab_lane_name(unsigned int mbps);	/* 10000 -> "QDR" */
/* "4xHDR", "4X", "HDR", "1x" -> lanes (0: any) and lane Mb/s (0: any). */
int rd_fab_parse_rate(const char *s, unsigned int *lanes, unsigned int *lane_mbps);
const char *rd_fab_state_name(uint8_t s);	/* "Active": the IBA name, as infiniband-diags print it */
const char *rd_fab_state_key(uint8_t s);	/* "ACTIVE": JSON, as the kernel and rdma-devinfo -j */
const char *rd_fab_phys_name(uint8_t s);	/* "LinkUp" */
const char *rd_fab_type_name(int type);		/* "CA", "Switch" */
const char *rd_fab_sm_state_name(unsigned int s);	/* "master" */

/* ---- routes (fabroute.c): where the switches' forwarding tables send a packet ---- */
enum rd_fab_route_end {
	RD_FAB_ROUTE_OK,	/* it reached the node that has the LID */
	RD_FAB_ROUTE_HOLE,	/* a switch has no entry for the LID */
	RD_FAB_ROUTE_DOWN,	/* a switch sends it out of a port that is not Active, or has no cable */
	RD_FAB_ROUTE_LOOP,	/* it comes back to a switch it passed */
	RD_FAB_ROUTE_UNKNOWN,	/* a switch on the way whose table was not read */
	RD_FAB_ROUTE_DEAD_END,	/* it reached a CA or router that does not have the LID */
	RD_FAB_ROUTE_NO_START,	/* the source port is not Active, or has no cable */
	RD_FAB_ROUTE_TOO_LONG,	/* more hops than a directed route may have (64) */
};

#define RD_FAB_MAX_HOPS 64

/* One node on a route: the port it came in by (-1 at the source) and leaves by (-1 at the end). */
struct rd_fab_hop {
	int node, in_port, out_port;
};

struct rd_fab_route {
	uint16_t dlid;
	enum rd_fab_route_end end;
	size_t n;				/* hops, the source first */
	struct rd_fab_hop hop[RD_FAB_MAX_HOPS + 2];
};

/*
 * Follow the forwarding tables from node's port (a CA's port, or a
 * switch: port 0) to dlid.  Returns 0 with the route (its end says whether
 * and where it broke), -EINVAL for a source that is not a port of the model.
 */
int rd_fab_route(const struct rd_fab *fab, int node, int port, uint16_t dlid, struct rd_fab_route *r);
const char *rd_fab_route_end_name(enum rd_fab_route_end e);	/* "no entry for the LID" */
/* The node and port that own a LID (a switch: port 0), or -1. */
int rd_fab_lid_owner(const struct rd_fab *fab, uint16_t lid, int *port);
/*
 * The owners of LIDs 0..n-1 at once (what rd_fab_lid_owner gives each, the
 * first node in the model's order winning), for a walk over every LID:
 * node[lid] (-1: none) and port[lid], arrays of n the caller gives.
 */
void rd_fab_lid_owners(const struct rd_fab *fab, size_t n, int32_t *node, uint8_t *port);

/*
 * An end of --path: a LID, a node or port GUID (0x...), a node description
 * ("h005 mlx5_0"), a node name map name, or a host ("h005", when it names
 * one node).  A node with several ports gives its first Active one.  0, or
 * -ENOENT / -EINVAL with why (for a host with several HCAs, their names).
 */
int rd_fab_endpoint(const struct rd_fab *fab, const char *spec, int *node, int *port, char *why,
		    size_t why_len);

/* ---- checks ---- */
enum rd_fab_status { RD_FAB_PASS, RD_FAB_SKIP, RD_FAB_WARN, RD_FAB_FAIL, RD_FAB_NSTATUS };

struct rd_fab_check {
	const char *id;		/* "link.degraded" */
	const char *summary;
	const char *fix;	/* the general fix, when a result has none of its own */
};

struct rd_fab_result {
	const struct rd_fab_check *check;
	enum rd_fab_status status;
	char object[256];	/* "h005 mlx5_0 port 1 <-> sw02 port 17" */
	char host[65];		/* the host behind the object, if an HCA names one */
	uint64_t guid;
	int port;
	uint64_t peer_guid;
	int peer_port;
	char detail[320];
	char fix[256];
};

struct rd_fab_report {
	struct rd_fab_result *v;
	size_t n, cap;
	unsigned int count[RD_FAB_NSTATUS];
	unsigned int nodes, switches, cas, links;
};

struct rd_fab_check_opts {
	unsigned int expect_lanes, expect_lane_mbps;	/* --expect-rate, 0: none */
	const char *expect_rate;			/* as the user wrote it */
	const struct rd_fab *baseline;			/* --baseline, or NULL */
	const struct rd_strlist *only, *skip;
};

const struct rd_fab_check *rd_fab_checks(size_t *n);
const struct rd_fab_check *rd_fab_check_find(const char *id);	/* an id or a group ("link") */
int rd_fab_run_checks(const struct rd_fab *fab, const struct rd_fab_check_opts *o,
		      struct rd_fab_report *r);
size_t rd_fab_selected_count(const struct rd_fab_check_opts *o);
/* Whether a check of this group ("sm", "port") is selected: read only what is judged. */
bool rd_fab_group_selected(const struct rd_fab_check_opts *o, const char *group);
enum rd_fab_status rd_fab_report_worst(const struct rd_fab_report *r);
const struct rd_fab_result *rd_fab_report_first_fail(const struct rd_fab_report *r);
const char *rd_fab_status_name(enum rd_fab_status s);	/* "PASS" */
void rd_fab_report_free(struct rd_fab_report *r);

/* The directed route to a node (and on out of port, if >= 0): "0,1,3,2"; "" if unknown. */
void rd_fab_dr_str(const struct rd_fab_node *n, int port, char *buf, size_t len);
/* The node with this GUID, or -1. */
int rd_fab_node_by_guid(const struct rd_fab *fab, uint64_t guid);

/*
 * Each node's tier, counted from the HCAs up: every CA and router 0, a
 * switch with one of them on a port 1, then one more a switch hop (its
 * least distance); a switch no path reaches -1.  With active_only, only
 * Active links are hops (route.balance's up-ports); else every cabled one.
 * tier has n_nodes entries.  Returns the highest tier (0 without switches)
 * or -ENOMEM.
 */
int rd_fab_tiers(const struct rd_fab *fab, bool active_only, int *tier);

/* "h005 mlx5_0" port 1, for messages and the links table. */
void rd_fab_port_label(const struct rd_fab *fab, int node, int port, char *buf, size_t len);

#endif

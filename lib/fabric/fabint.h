/* SPDX-License-Identifier: MIT */
/* fabric/'s own declarations, shared by its files (not an interface). */
#ifndef RD_FABINT_H
#define RD_FABINT_H

#include <stdio.h>

#include "fabapi.h"

/* PortInfo CapabilityMask bits (IBA 14.2.5.6). */
#define RD_FAB_CAP_IS_SM (1u << 1)
#define RD_FAB_CAP_EXT_SPEEDS (1u << 14)

/* The model's pieces, shared by a sweep (rd_fab_from_ibnd) and a cache file (fabfile.c). */
void rd_fab_fill_port(struct rd_fab_port *p, const uint8_t *info, uint64_t guid, uint16_t lid, uint8_t lmc);
/* A node from its NodeInfo facts and raw 64-byte description; allocates its ports. */
int rd_fab_node_setup(struct rd_fab_node *nd, uint64_t guid, int type, int nports, const char *desc,
		      const uint8_t *nodeinfo);
/* A switch's LinearFDBTop from its SwitchInfo, bounded to the unicast LIDs. */
void rd_fab_set_lft_top(struct rd_fab_node *nd, unsigned int top);
/* After its ports: a switch's LID (port 0's) on every port, a CA's first port's LID. */
void rd_fab_node_lids(struct rd_fab_node *nd);
/* The order nodes are listed in: switches first, then description, then GUID. */
int rd_fab_node_order(int ta, const char *da, uint64_t ga, int tb, const char *db, uint64_t gb);

/* Fill fab from libibnetdisc's fabric (ibnd_fabric_t *), which fab keeps. */
int rd_fab_from_ibnd(struct rd_fab *fab, void *ibnd_fabric);

/* A NodeDescription from the wire (64 bytes, NUL-padded) as the model keeps it. */
void rd_fab_clean_desc(const char *in, char *out, size_t len);
/* The host an HCA's description names ("node017 mlx5_0": "node017"), or "". */
void rd_fab_desc_host(int type, const char *desc, char *host, size_t len);

/* The directed-route probes after discovery (fabprobe.c), and their verdict (fabident.c). */
struct ibmad_port;
bool rd_fab_probe_wanted(const struct rd_fab *fab);
void rd_fab_probe(struct rd_fab *fab, struct ibmad_port *mp, unsigned int timeout);
/* Mark each fab->seen entry dup/confirmed and mend discovery's links to what the probes saw. */
void rd_fab_judge_seen(struct rd_fab *fab);

/* Many MADs in flight (fabwin.c): one query of a kind, to a node's port (mod: the attribute modifier). */
struct rd_fab_mad_req {
	int node, port;
	uint32_t mod;
	uint32_t trid;
	unsigned int tries;
};

struct rd_fab_mad_kind {
	int mgtclass;		/* IB_PERFORMANCE_CLASS, or IB_SMI_CLASS (an SMP routed by LID) */
	unsigned int attr;
	const char *name;	/* "PortCounters", for the no-answer lines */
	/* An answer: its data (the SMP's 64 bytes, the PMA's attribute). */
	void (*got)(struct rd_fab *fab, const struct rd_fab_mad_req *r, const uint8_t *data, void *arg);
	/* No answer (timed_out), refused, not sent, or not asked (its switch went silent). */
	void (*lost)(struct rd_fab *fab, const struct rd_fab_mad_req *r, bool timed_out, void *arg);
	void *arg;
};

void rd_fab_mad_window(struct rd_fab *fab, struct ibmad_port *mp, const struct rd_fab_mad_kind *k,
		       struct rd_fab_mad_req *v, size_t n, unsigned int timeout, unsigned int retries);
/* "NODE port N: WHAT: no answer" into fab->slow, counted in mad_fail. */
void rd_fab_add_slow(struct rd_fab *fab, int node, int port, const char *what);
/* The LID a port answers MADs at: a switch's port 0 LID, else its own. */
uint16_t rd_fab_mad_lid(const struct rd_fab_node *n, int p);
/* Read every switch's unicast forwarding table (fablft.c). */
void rd_fab_read_lfts(struct rd_fab *fab, struct ibmad_port *mp, unsigned int timeout, unsigned int retries);

/* The forwarding-table section of a saved fabric (fablft.c). */
bool rd_fab_lft_present(const unsigned char *d, size_t len);
int rd_fab_lft_parse(struct rd_fab *fab, const unsigned char *d, size_t len, char *why, size_t why_len);
int rd_fab_lft_write(const struct rd_fab *fab, FILE *fp);

/*
 * The port a switch's table sends dlid out of (*why RD_FAB_ROUTE_OK), or
 * why it does not: a hole, a port not up (the port is returned), a table
 * not read.
 */
int rd_fab_next_port(const struct rd_fab_node *n, uint16_t dlid, enum rd_fab_route_end *why);

/*
 * Every CA-to-CA route at once (fabrt.c): for each destination, each
 * switch's next hop, and the sources whose routes reach each switch, so a
 * fabric of thousands of HCAs is judged in O(destinations x nodes).
 */
struct rd_fab_ep {
	int node, port;
	uint16_t lid;
	int sw, sw_port;		/* the switch its cable goes to (-1: another CA) */
};

struct rd_fab_loop {
	uint16_t dlid;			/* a destination whose route loops */
	int ep;				/* its endpoint */
	uint64_t sources;		/* routes that enter the loop */
	size_t n;			/* the switches of the loop, in order */
	int sw[RD_FAB_MAX_HOPS];
};

struct rd_fab_rt {
	size_t n_ep;
	struct rd_fab_ep *ep;		/* CA ports with a LID, Active, cabled: the ends of routes */
	uint64_t pairs;			/* source-destination pairs followed */
	uint64_t broken[RD_FAB_ROUTE_TOO_LONG + 1];	/* how each ended */
	size_t *base;			/* node i's port p is channel base[i] + p */
	uint64_t *load;			/* routes that leave by each channel */
	size_t n_loops;			/* destinations whose route loops */
	struct rd_fab_loop loops[16];	/* the first of them */
	/* Credit loops: a cycle of switch-to-switch channels in the dependency graph. */
	size_t n_cycles;
	struct { size_t n; int node[RD_FAB_MAX_HOPS], port[RD_FAB_MAX_HOPS]; } cycles[4];
};

int rd_fab_rt_build(const struct rd_fab *fab, struct rd_fab_rt *rt);
void rd_fab_rt_free(struct rd_fab_rt *rt);
/* Routes that cross the link at node's port, both ways. */
uint64_t rd_fab_rt_link_load(const struct rd_fab *fab, const struct rd_fab_rt *rt, int node, int port);

/* A new zeroed result at the end of r (port numbers -1), or NULL without memory. */
struct rd_fab_result *rd_fab_report_slot(struct rd_fab_report *r);

/* The CA-to-CA routes, built by the first routing check that needs them. */
struct rd_fab_rt_cache {
	bool tried;
	int err;
	struct rd_fab_rt rt;
};

/* The checks' shared state and helpers (fabchecks.c), and the checks themselves. */
struct ctx {
	const struct rd_fab *fab;
	const struct rd_fab_check_opts *o;
	struct rd_fab_report *r;
	const struct rd_fab_check *check;
	size_t first;		/* the report's size when this check began */
	struct rd_fab_rt_cache *rtc;
	const struct rd_fab_check *all;	/* every check, for one that runs others (route.degraded) */
	size_t n_all;
};

struct rd_fab_result *rd_fck_add(struct ctx *c, enum rd_fab_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void rd_fck_fix(struct rd_fab_result *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rd_fck_pass(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rd_fck_skip(struct ctx *c, const char *why);
void rd_fck_port(const struct ctx *c, struct rd_fab_result *x, int node, int port);
void rd_fck_link(const struct ctx *c, struct rd_fab_result *x, int node, int port);
bool rd_fck_first_end(const struct rd_fab *fab, size_t i, int p);
void rd_fck_discovery(struct ctx *c);
void rd_fck_baseline(struct ctx *c);
void rd_fck_answer(struct ctx *c);
void rd_fck_state(struct ctx *c);
void rd_fck_degraded(struct ctx *c);
void rd_fck_mismatch(struct ctx *c);
void rd_fck_counters(struct ctx *c);
void rd_fck_xmitwait(struct ctx *c);
void rd_fck_sm(struct ctx *c);
void rd_fck_smlid(struct ctx *c);
void rd_fck_lids(struct ctx *c);
void rd_fck_guids(struct ctx *c);
void rd_fck_descs(struct ctx *c);
void rd_fck_route_holes(struct ctx *c);
void rd_fck_route_loops(struct ctx *c);
void rd_fck_route_balance(struct ctx *c);
void rd_fck_route_degraded(struct ctx *c);

#endif

/* SPDX-License-Identifier: MIT */
/* fabric/'s own declarations, shared by its files (not an interface). */
#ifndef RD_FABINT_H
#define RD_FABINT_H

#include "fabapi.h"

/* PortInfo CapabilityMask bits (IBA 14.2.5.6). */
#define RD_FAB_CAP_IS_SM (1u << 1)
#define RD_FAB_CAP_EXT_SPEEDS (1u << 14)

/* The model's pieces, shared by a sweep (rd_fab_from_ibnd) and a cache file (fabfile.c). */
void rd_fab_fill_port(struct rd_fab_port *p, const uint8_t *info, uint64_t guid, uint16_t lid, uint8_t lmc);
/* A node from its NodeInfo facts and raw 64-byte description; allocates its ports. */
int rd_fab_node_setup(struct rd_fab_node *nd, uint64_t guid, int type, int nports, const char *desc,
		      const uint8_t *nodeinfo);
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

/* A new zeroed result at the end of r (port numbers -1), or NULL without memory. */
struct rd_fab_result *rd_fab_report_slot(struct rd_fab_report *r);

/* The checks' shared state and helpers (fabchecks.c), and the checks themselves. */
struct ctx {
	const struct rd_fab *fab;
	const struct rd_fab_check_opts *o;
	struct rd_fab_report *r;
	const struct rd_fab_check *check;
	size_t first;		/* the report's size when this check began */
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

#endif

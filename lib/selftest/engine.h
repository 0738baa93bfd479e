/* SPDX-License-Identifier: MIT */
/*
 * The self-test engine: what to run (struct rd_st_config), what happened
 * (struct rd_st_run), and three drivers — loopback on one port, a client
 * against a peer (rdma_cm, or raw verbs with a TCP exchange), and a server.
 * The engine never prints: it reports each stage, note and log line through
 * hooks while it runs, and leaves the whole record in the run for JSON.
 */
#ifndef RD_ST_ENGINE_H
#define RD_ST_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stages.h"
#include "model/model.h"
#include "rc/rc.h"
#include "stats/stats.h"
#include "sysroot/sysroot.h"

#define RD_ST_SERVICE_PORT 18515
#define RD_ST_MAX_SIZES 32
/*
 * Every stage a run can have: address, route, exchange, connect, then per
 * operation a verified stage and a latency and a bandwidth stage per size,
 * two expects, close, server.
 */
#define RD_ST_MAX_STAGES (10 + RD_ST_NOPS * (1 + 2 * RD_ST_MAX_SIZES))
#define RD_ST_MAX_FIGURES (RD_ST_NOPS * RD_ST_MAX_SIZES)

/* What to run: every choice of the command line. */
struct rd_st_config {
	const char *peer;		/* client: the server; NULL for loopback */
	const char *bind;		/* server: listen address; client: source address */
	uint16_t service_port;
	bool verbs;			/* client: raw verbs + TCP exchange instead of rdma_cm */
	const char *peer_dev;		/* client --verbs: the server's device to use (a mesh rail;
					 * exchange version 4); NULL: the port of the address */
	unsigned int peer_port;		/* with peer_dev: its port (0: its first ACTIVE one) */
	bool ud;			/* --qp ud: datagrams (sends only; the TCP exchange) */
	const char *mcast;		/* --mcast GROUP: send to it, or (server) receive */
	bool once;			/* server: exit after one client */
	unsigned int max_clients;	/* server: stop after this many clients (0: no limit) */
	bool quick, lat_only, bw_only;	/* stage selection */
	unsigned int ops;		/* 1 << enum rd_st_op, run in that order; 0: send */
	unsigned int deny;		/* server (and loopback's serving QP): ops its MR refuses (testing) */
	int gid_index;			/* -1: the best GID (rdma-gids --best) */
	uint32_t iters, pings, window, duration_s;
	uint32_t sizes[RD_ST_MAX_SIZES];
	unsigned int nsizes;		/* 0: 64 B latency, 64 KiB bandwidth (UD: the path MTU) */
	bool all_sizes;			/* the sizes are -a's powers of two (UD: up to the path MTU) */
	int timeout_ms;			/* longest wait for any answer */
	double expect_gbps, expect_lat_us;
	bool no_counters;		/* no counter snapshots around the run */
	struct rd_rc_opts rc;
	const volatile int *stop;	/* set from a signal handler: give up at once */
};

void rd_st_config_default(struct rd_st_config *c);
/* Choices that exclude each other (server: the config is for rd_st_server): why, or NULL. */
const char *rd_st_config_conflict(const struct rd_st_config *c, bool server);
/* Once the options are parsed: fewer outstanding sends for big messages (server memory limit). */
void rd_st_config_finish(struct rd_st_config *c);

/* One stage's outcome. */
struct rd_st_stage {
	char name[16];			/* "connect", "pingpong", "latency", ... */
	bool ok;
	bool warn;			/* passed, with something to look at (counters that moved) */
	double ms;
	char detail[512];		/* PASS: what was verified; FAIL: the diagnosis */
	bool wc;			/* the failure came from a work completion: */
	enum ibv_wc_status status;
	uint32_t vendor_err;
};

/* A counter of the run's port that moved and signals trouble. */
struct rd_st_ctrmove {
	char name[48];
	uint8_t src;			/* enum rd_ctr_src */
	uint8_t trouble;		/* enum rd_ctr_trouble */
	uint64_t delta;
};
#define RD_ST_MAX_MOVES 24

/*
 * The port's counters before and after the transfers: port-wide, so other
 * traffic on the port counts too (and both QPs of a loopback run).
 */
struct rd_st_ctr_report {
	unsigned int ncounters;		/* counters read both times */
	unsigned int nunknown;		/* reset, saturated or unreadable: no delta */
	uint64_t sum[RD_TROUBLE_COUNT];	/* per enum rd_ctr_trouble */
	uint64_t tx_pkts, rx_pkts;	/* the port's packets, when it counts them */
	bool have_pkts;
	struct rd_st_ctrmove moves[RD_ST_MAX_MOVES];	/* troubled, largest first */
	unsigned int nmoves;		/* how many troubled counters moved (may exceed the array) */
};

/* --mcast: a receiver's tally of one sender's datagrams. */
struct rd_st_mc_tally {
	char sender[48];		/* its address (from the GRH), or "?" */
	uint32_t src_qpn;
	bool ended;			/* its end marker came: expected is its count */
	uint64_t expected;		/* else the highest number seen + 1 */
	uint64_t received, lost, duplicates, corrupted, reordered;
	uint32_t size;			/* of the last datagram */
	double seconds;			/* first datagram to the last */
};

/* Everything one run found. */
struct rd_st_run {
	char dev[64];			/* "" until known */
	unsigned int port;
	int gid_index;			/* -1: unknown, or none (InfiniBand without GRH) */
	enum rd_gid_ver ver;		/* of that GID */
	char gid_type[16];		/* as the mode reports it ("v2", "RoCE v2") */
	char addr[48];			/* the GID's address */
	char peer_dev[64];		/* the server's device and port, when it said (version 4) */
	unsigned int peer_port;
	bool retry;			/* --verbs: worth another attempt: no server took the
					 * exchange (none listening, or busy past --timeout),
					 * or a passing failure (a REJECT ending RD_OOB_RETRY,
					 * or this side's QP bring-up while an address resolves) */
	enum ibv_mtu path_mtu;		/* 0 until connected */
	bool ud;			/* over a UD QP */
	uint8_t tclass, sl;		/* of the connection's address vector */
	struct rd_st_stage stages[RD_ST_MAX_STAGES];
	unsigned int nstages;
	bool figures;			/* the measuring part was reached: latency/bandwidth are reported */
	struct rd_st_latency lat[RD_ST_MAX_FIGURES];
	unsigned int nlat;
	struct rd_st_bandwidth bw[RD_ST_MAX_FIGURES];
	unsigned int nbw;
	struct rd_st_ctr_report ctr;
	char group[64];			/* --mcast: the group, and the MGID it maps to */
	char mgid[48];
	bool have_mc;			/* a receiver's tally (--once): */
	struct rd_st_mc_tally mc;
	bool warned;			/* a stage passed with a warning */
	bool failed;			/* a stage failed: */
	char fail_stage[16];		/* the first one */
	bool ok;			/* the verdict */
};

/* How the engine reports while it runs.  Every hook may be NULL. */
struct rd_st_hooks {
	void *ctx;
	/* Loopback: the port and its GID are chosen; the stages follow. */
	void (*begin)(void *ctx, const struct rd_st_run *run);
	void (*stage)(void *ctx, const struct rd_st_run *run, const struct rd_st_stage *st);
	/* A remark that is not a stage ("MTU differs ..."). */
	void (*note)(void *ctx, const char *text);
	/* The latency and bandwidth figures are complete (before the closing stage). */
	void (*figures)(void *ctx, const struct rd_st_run *run);
	/* Server: one line per client event. */
	void (*log)(void *ctx, const char *text);
	/* --mcast --server: one sender's run ended (its end marker, or silence). */
	void (*mc_tally)(void *ctx, const struct rd_st_run *run, const struct rd_st_mc_tally *t);
};

/* Loopback between two QPs of one port.  0 with run filled (run->ok the verdict), or -ENOMEM. */
int rd_st_loopback(const struct rd_st_config *cfg, const struct rd_sysroot *sr,
		   const struct rd_device *d, const struct rd_port *p, const struct rd_st_hooks *h,
		   struct rd_st_run *run);
/*
 * Client against cfg->peer.  rdma_cm picks the device by route; --verbs uses
 * the first ACTIVE port of list (port ib_port when non-zero), and asks the
 * server for cfg->peer_dev when set.  0 or -ENOMEM.
 */
int rd_st_client(const struct rd_st_config *cfg, const struct rd_sysroot *sr,
		 const struct rd_device_list *list, unsigned int ib_port,
		 const struct rd_st_hooks *h, struct rd_st_run *run);
/*
 * Serve rdma_cm and --verbs clients one after another until *cfg->stop (or
 * one client with cfg->once).  0: stopped (or the one client passed); 1: the
 * one client's session failed; -errno when it cannot listen, with why[].
 */
int rd_st_server(const struct rd_st_config *cfg, const struct rd_sysroot *sr,
		 const struct rd_device_list *list, const struct rd_st_hooks *h, char *why,
		 size_t why_len);
/*
 * The REJECT reason of a server whose rd_rc_connect failed with err (-errno):
 * it names the error, and ends RD_OOB_RETRY when the error may pass
 * (rd_rc_transient).  Fits the exchange's 64 bytes with the ending whole.
 */
void rd_st_bringup_reason(int err, char *why, size_t why_len);

/*
 * --mcast: join cfg->mcast through rdma_cm (UD QP, from cfg->bind's
 * interface) and send cfg->iters datagrams of cfg->sizes[0] (64) bytes to
 * it, then end markers.  0 with run filled (run->ok), or -ENOMEM.
 */
int rd_st_mcast_send(const struct rd_st_config *cfg, const struct rd_st_hooks *h,
		     struct rd_st_run *run);
/*
 * --mcast --server: join and tally every sender's datagrams (each reported
 * through h->mc_tally) until *cfg->stop; with cfg->once, until the first
 * sender's end, or cfg->timeout_ms without any datagram (a failure).  0 with
 * run filled (run->ok, run->mc for --once), or -ENOMEM.
 */
int rd_st_mcast_recv(const struct rd_st_config *cfg, const struct rd_st_hooks *h,
		     struct rd_st_run *run);

const char *rd_st_mtu_str(enum ibv_mtu m);	/* "1024"; "?" out of range */
/* ", traffic class 96, SL 3" for a connect stage; "" when both are 0. */
const char *rd_st_tc_sl_str(unsigned int tclass, unsigned int sl, char *buf, size_t len);

#endif

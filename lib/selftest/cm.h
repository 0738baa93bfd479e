/* SPDX-License-Identifier: MIT */
/*
 * rdma_cm client and server with a deadline on every stage and a named cause
 * for every failure.
 */
#ifndef RD_CM_H
#define RD_CM_H

#include <rdma/rdma_cma.h>
#include <stdbool.h>
#include <stdint.h>

#include "oob.h"
#include "rc/rc.h"
#include "stages.h"

/* Stage timings and what was chosen, for the report. */
struct rd_cm_info {
	char dev[64];
	uint8_t port;
	int gid_index;			/* -1 unknown */
	char gid_type[16];		/* "RoCE v2", "IB"... */
	char local_addr[64], peer_addr[64];
	uint32_t qpn, peer_qpn, sq_psn, rq_psn;
	enum ibv_mtu path_mtu;
	uint8_t tclass, sl;		/* of the QP's address vector */
	double addr_ms, route_ms, connect_ms;
	struct rd_st_target target;	/* client: the server's, from its REP (zero if none) */
};

/* Why a stage failed: a cause and what to do, in plain words. */
struct rd_cm_error {
	char stage[16];			/* "address", "route", "connect", "accept" */
	char event[32];			/* the rdma_cm event name, if any */
	int status;
	char what[320];
};

struct rd_cm_conn {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct rd_rc rc;
	bool have_rc;
};

/*
 * Client: resolve PEER:port (each stage within timeout_ms), create the QP
 * on the device rdma_cm picked, post receives, connect with params as
 * private data.  0, or -errno with err filled.
 */
int rd_cm_connect(const char *peer, uint16_t port, const char *bind_addr, int timeout_ms,
		  const struct rd_st_params *params, const struct rd_rc_opts *qp,
		  struct rd_cm_conn *c, struct rd_cm_info *info, struct rd_cm_error *err);
void rd_cm_close(struct rd_cm_conn *c);

struct rd_cm_listener {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
};

/* Listen on bind_addr (NULL: every address); tclass >= 0: its type of service (--tc). */
int rd_cm_listen(const char *bind_addr, uint16_t port, int tclass, struct rd_cm_listener *l,
		 struct rd_cm_error *err);
/* fd to poll for a connection request. */
int rd_cm_listener_fd(const struct rd_cm_listener *l);
/*
 * Take one pending connection request (wait until deadline): validate the
 * client's params, reject with a reason, or accept and wait for ESTABLISHED.
 * 0 with c ready to serve; -EAGAIN nothing pending; -errno with err.
 */
int rd_cm_accept(struct rd_cm_listener *l, uint64_t deadline, int timeout_ms, unsigned int deny,
		 struct rd_cm_conn *c, struct rd_cm_info *info, struct rd_st_params *params,
		 struct rd_cm_error *err);
void rd_cm_listener_close(struct rd_cm_listener *l);

/*
 * Private data, versioned as the --verbs exchange's RC messages (RD_CM_VERSION).  REQ: our
 * magic, the version and the test parameters (fits the 56 bytes of a REQ).
 * REP (version 2): magic, version, the server's target area.  Decoding:
 * -EPROTO (no magic), -EPROTONOSUPPORT (another version: rd_cm_priv_version
 * says which).  A server still takes a version 1 REQ (same layout; that
 * client only sends and ignores the REP's data).
 */
/* rdma_cm private data: the RC exchange version (rdma_cm connects RC only). */
#define RD_CM_VERSION RD_OOB_VERSION_RC
#define RD_CM_PRIV_LEN 20
#define RD_CM_REP_LEN 24
void rd_cm_params_encode(const struct rd_st_params *p, uint8_t buf[RD_CM_PRIV_LEN]);
int rd_cm_params_decode(const void *buf, size_t len, struct rd_st_params *p);
/* Helpers shared with the multicast driver (mcast.c). */
/* The next event on ch (non-blocking, rd_cm_nonblock) until deadline; -ETIMEDOUT, -EINTR. */
int rd_cm_next_event(struct rdma_event_channel *ch, uint64_t deadline, struct rdma_cm_event **ev);
int rd_cm_nonblock(struct rdma_event_channel *ch);
/* The address of sa as text ("" for another family). */
void rd_cm_addr_str(const struct sockaddr *sa, char *buf, size_t len);
/* "ADDR_ERROR" for RDMA_CM_EVENT_ADDR_ERROR. */
const char *rd_cm_ev_name(enum rdma_cm_event_type t);
/* The version a REQ's private data speaks (0: not ours). */
uint32_t rd_cm_priv_version(const void *buf, size_t len);
void rd_cm_target_encode(const struct rd_st_target *t, uint8_t buf[RD_CM_REP_LEN]);
int rd_cm_target_decode(const void *buf, size_t len, struct rd_st_target *t);
/* What a version 1 server answers to a newer client. */
#define RD_CM_V1_MISMATCH "protocol version mismatch"

#endif

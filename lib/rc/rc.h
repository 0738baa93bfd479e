/* SPDX-License-Identifier: MIT */
/*
 * RC (and UD) queue pairs: resources (PD, CQ, one registered buffer cut into
 * slots), bring-up RESET -> INIT -> RTR -> RTS, and posting/polling with
 * deadlines.  rdma_cm may create the QP itself on these resources
 * (lib/selftest/cm.c).  A UD QP sends to one peer (an address handle made at
 * bring-up), so the same post and poll calls serve both types.
 */
#ifndef RD_RC_H
#define RD_RC_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rd_rc_opts {
	uint8_t timeout;	/* local ACK timeout, 4.096 us * 2^timeout; default 14 */
	uint8_t retry_cnt;	/* default 7 */
	uint8_t rnr_retry;	/* default 7 (= infinite) */
	uint8_t min_rnr_timer;	/* default 12 (0.64 ms) */
	enum ibv_mtu mtu;	/* 0: the port's active MTU */
	int tclass;		/* GRH traffic class (RoCE: DSCP << 2 | ECN); -1: not chosen (0) */
	int sl;			/* service level; -1: not chosen (0) */
};

void rd_rc_opts_default(struct rd_rc_opts *o);

/* What the other side needs to connect to us (and we to it). */
struct rd_rc_endpoint {
	uint32_t qpn;
	uint32_t psn;
	uint16_t lid;
	uint8_t gid[16];
	bool use_grh;		/* RoCE: always; IB: when the GID is global */
	uint8_t gid_index;	/* local only */
	enum ibv_mtu mtu;	/* active MTU of the port */
	uint32_t qkey;		/* UD: the Q_Key our QP accepts */
};

struct rd_rc {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;	/* CQ events, for waits past the spin */
	unsigned int unacked_events;
	uint32_t max_inline;		/* sends up to this size go inline */
	uint64_t spin_ns;		/* rd_rc_poll's spin; RD_RC_SPIN_FOREVER: never sleep */
	/*
	 * peer_thread: the peer's QP is served by a thread of this process that
	 * serves nothing else (loopback).  spin_alone: the wait at hand needs no
	 * other thread of ours, so rd_rc_poll never yields in it even under
	 * rd_rc_spin_yields (set around one-sided operations when peer_thread:
	 * the peer's kernel answers them, not its thread).  peer_local: the
	 * peer's QP is on this host's port (the same GID, or LID); on a one-CPU
	 * host rd_rc_poll's spins for ever (latency) then yield as under
	 * rd_rc_spin_yields.
	 */
	bool peer_thread, spin_alone, peer_local;
	/*
	 * watch: watch_fd is a connection to the peer whose end means the
	 * session is over (rd_rc_watch): the exchange's TCP socket, or an
	 * rdma_cm event channel.  watch_next: when a spin looks at it next.
	 */
	bool watch, watch_socket;
	int watch_fd;
	uint64_t watch_next;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t slot_size;
	unsigned int nrecv, nsend;	/* slots [0, nrecv) receive, then nsend send slots */
	uint8_t port;
	bool own_qp;			/* false when rdma_cm created it */
	/*
	 * UD: each receive slot keeps RD_RC_GRH bytes in front of the payload
	 * for the GRH the device writes there; rd_rc_slot() returns the
	 * payload and rd_rc_poll() gives receive lengths without the GRH.
	 */
	bool ud;
	bool any_src;			/* UD multicast: datagrams of any sender are ours */
	uint32_t grh;			/* RD_RC_GRH for UD, else 0 */
	size_t stride;			/* bytes from one slot to the next */
	struct ibv_ah *ah;		/* UD: to the peer */
	uint32_t remote_qpn, remote_qkey, qkey;
	uint64_t stray;			/* UD: receives from another QP, dropped */
	enum ibv_mtu path_mtu;		/* set by rd_rc_connect */
	/* Past the slots: extra bytes for one-sided operations (rd_rc_alloc_ex). */
	uint8_t *extra;
	size_t extra_len;
	size_t map_len;			/* the whole mapping of buf: slots and extra */
	uint8_t rd_atomic;		/* outstanding RDMA READs/atomics per direction */
	/* The first error completion: every later one is a consequence. */
	bool has_error;
	struct ibv_wc first_error;
	uint64_t first_error_wr_kind;
};

#define RD_WR_RECV (1ull << 62)
#define RD_WR_SEND (1ull << 61)
#define RD_WR_SLOT(id) ((unsigned int)((id) & 0xffffffffu))
/* The operation a send-side work request carried (rd_rc_post_op), for its completion's diagnosis. */
#define RD_WR_OP(id) ((unsigned int)(((id) >> 48) & 0xffu))

/*
 * PD, CQ (depth nrecv + nsend) and one MR of (nrecv + nsend) * slot_size.
 * -errno; on failure everything is released.
 */
int rd_rc_alloc(struct rd_rc *rc, struct ibv_context *ctx, uint8_t port, size_t slot_size,
		unsigned int nrecv, unsigned int nsend);
/*
 * The same with extra bytes after the slots (rc->extra, for RDMA WRITE, READ
 * and atomics) and the MR registered with access (IBV_ACCESS_* flags; local
 * write is always added).
 */
int rd_rc_alloc_ex(struct rd_rc *rc, struct ibv_context *ctx, uint8_t port, size_t slot_size,
		   unsigned int nrecv, unsigned int nsend, size_t extra, int access);
/*
 * A UD QP's resources: no extra area (UD has no one-sided operations), and
 * slot_size bytes of payload per slot after the GRH room.
 */
#define RD_RC_GRH 40
int rd_rc_alloc_ud(struct rd_rc *rc, struct ibv_context *ctx, uint8_t port, size_t slot_size,
		   unsigned int nrecv, unsigned int nsend);
/* The remote access every QP grants (the MR decides what is allowed). */
#define RD_RC_REMOTE_ACCESS \
	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
/*
 * The QP attributes for those resources, asking for RD_RC_INLINE bytes of
 * inline data (small sends copied into the work request, as ib_send_lat does)
 * or none.  After creating the QP, store attr->cap.max_inline_data (what the
 * device granted) in rc->max_inline.
 */
#define RD_RC_INLINE 128
void rd_rc_qp_attr(const struct rd_rc *rc, struct ibv_qp_init_attr *attr, bool with_inline);
/* A RC (or, after rd_rc_alloc_ud, UD) QP on those resources, with inline sends if the device has them. */
int rd_rc_create_qp(struct rd_rc *rc);
void rd_rc_free(struct rd_rc *rc);

/* Fill our endpoint: QPN, a random PSN, LID, the GID at gid_index, active MTU (UD: our Q_Key). */
int rd_rc_local(struct rd_rc *rc, int gid_index, struct rd_rc_endpoint *ep);
/*
 * RESET -> INIT -> RTR -> RTS against remote; path MTU = min(ours, theirs,
 * opts).  UD: the address handle to remote (its GID or LID, opts' traffic
 * class and SL), and sends go to its QPN and Q_Key.
 */
int rd_rc_connect(struct rd_rc *rc, const struct rd_rc_endpoint *local,
		  const struct rd_rc_endpoint *remote, const struct rd_rc_opts *opts,
		  enum ibv_mtu *path_mtu);

/*
 * An rd_rc_connect error that may pass: on RoCE, modify_qp to RTR resolves the
 * peer's MAC, and the kernel waits only a second for ARP/ND (-ETIMEDOUT, or
 * -ENODATA while the neighbour is unresolved).  A route or attribute error is
 * not one of these.
 */
bool rd_rc_transient(int err);

uint8_t *rd_rc_slot(struct rd_rc *rc, unsigned int slot);
int rd_rc_post_recv(struct rd_rc *rc, unsigned int slot);
/* Send len bytes of a slot with immediate data, signaled. */
int rd_rc_post_send(struct rd_rc *rc, unsigned int slot, uint32_t len, uint32_t imm);
/*
 * The same, signaled only when `covers` > 0: its completion then stands for
 * itself and the covers-1 unsignaled sends before it (RD_WR_COVERS(wr_id)).
 */
int rd_rc_post_send_batch(struct rd_rc *rc, unsigned int slot, uint32_t len, uint32_t imm,
			  unsigned int covers);
#define RD_WR_COVERS(id) ((unsigned int)(((id) >> 32) & 0xffffu))

/*
 * A one-sided work request (RDMA WRITE [with immediate], READ, atomic) from
 * len bytes at local (inside the MR) to raddr/rkey; imm for WRITE_WITH_IMM,
 * add_or_compare and swap for the atomics.  Signaled when covers > 0, as
 * rd_rc_post_send_batch; tag goes into RD_WR_OP of the wr_id.  -EOPNOTSUPP on UD.
 */
int rd_rc_post_op(struct rd_rc *rc, enum ibv_wr_opcode op, void *local, uint32_t len,
		  uint64_t raddr, uint32_t rkey, uint32_t imm, uint64_t add_or_compare, uint64_t swap,
		  unsigned int covers, unsigned int tag);
/*
 * The same work request, built into *wr and *sge (wr->sg_list points at sge)
 * and not posted: a latency loop posts one request again and again with
 * ibv_post_send(rc->qp, wr, ...).  -EOPNOTSUPP on UD.
 */
int rd_rc_op_wr(struct rd_rc *rc, enum ibv_wr_opcode op, void *local, uint32_t len, uint64_t raddr,
		uint32_t rkey, uint32_t imm, uint64_t add_or_compare, uint64_t swap,
		unsigned int covers, unsigned int tag, struct ibv_send_wr *wr, struct ibv_sge *sge);

/*
 * Poll up to n completions; wait until at least one or deadline (CLOCK_MONOTONIC
 * ns).  Returns the count, -ETIMEDOUT, -ECONNRESET (the connection of
 * rd_rc_watch ended), or -errno.  Error completions are
 * returned too (and the first one is remembered in rc->first_error).
 * *stop is checked while waiting (SIGINT); may be NULL.  Busy-polls for
 * rc->spin_ns (RD_RC_SPIN_NS by default), then sleeps on the completion
 * channel: streams and fast round trips never sleep, and an idle or slow
 * peer costs no CPU (on a one-CPU soft-RoCE host the spinning would take it
 * from the kernel's packet processing).  Latency measurements set
 * RD_RC_SPIN_FOREVER, so that no wake-up is ever timed.  UD: a receive from
 * any QP but the peer's is reposted and counted in rc->stray, never returned.
 */
#define RD_RC_SPIN_NS 1000000ull
#define RD_RC_SPIN_FOREVER UINT64_MAX
int rd_rc_poll(struct rd_rc *rc, struct ibv_wc *wc, int n, uint64_t deadline,
	       const volatile int *stop);
/*
 * Several threads of this process poll at once (loopback's two sides, the
 * mesh's server and client): a spinning rd_rc_poll then yields the CPU every
 * 64 empty polls, or a one-CPU host runs the other thread only at the next
 * scheduler tick (loopback send latency under qemu: 4000 us instead of 30).
 * Off (the default: one thread polls), it spins as perftest does, without
 * a system call in the loop; so does a wait with rc->spin_alone set.  A
 * spin for ever (RD_RC_SPIN_FOREVER, a latency stage) yields as well when
 * the process may run on one CPU only and rc->peer_local says the peer's
 * process shares it (a client and a server on a one-CPU host: 4000 us a
 * round trip otherwise).
 */
void rd_rc_spin_yields(bool on);

/*
 * Make rd_rc_poll watch fd, a connection to the peer that lives as long as
 * the session: a TCP socket (socket: its end of file, hang-up or error) or
 * an rdma_cm event channel of this connection alone (any event: after
 * ESTABLISHED each one ends it, DISCONNECTED first).  rd_rc_poll then
 * returns -ECONNRESET once that connection ended and no completion is
 * left: at once from a sleep, within 100 ms from a spin (one poll() system
 * call each time), or at the deadline.  fd < 0: watch nothing.
 */
void rd_rc_watch(struct rd_rc *rc, int fd, bool socket);
/* Has the watched connection ended?  Looks without waiting; false without a watch. */
bool rd_rc_peer_gone(struct rd_rc *rc);

/* 256..4096 bytes -> IBV_MTU_256..IBV_MTU_4096; -EINVAL for any other value. */
int rd_mtu_from_bytes(uint64_t bytes, enum ibv_mtu *mtu);

uint64_t rd_now_ns(void);
/* The bytes of an MTU code (256..4096); 0 out of range. */
uint32_t rd_mtu_bytes(enum ibv_mtu mtu);

/* A plain-words diagnosis of a completion status, with what to check next. */
const char *rd_wc_diagnosis(enum ibv_wc_status st);

#endif

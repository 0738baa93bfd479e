/* SPDX-License-Identifier: MIT */
/*
 * The self-test protocol over a connected RC QP (or a UD QP bound to one
 * peer), and its stages: ping-pong with data verification, latency,
 * bandwidth.  Message types travel in the immediate data (type in the top 4
 * bits, sequence in the low 28), so a payload can be any size, even 0.  On
 * UD a round trip sends its message again when no reply comes in time, the
 * bandwidth stage's end is sent again until its report comes, and losses are
 * counted, not failed.
 */
#ifndef RD_SELFTEST_H
#define RD_SELFTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "rc/rc.h"

enum rd_st_type {
	RD_ST_PING = 1,		/* verified payload, echoed */
	RD_ST_PONG,
	RD_ST_LAT,		/* echoed as is */
	RD_ST_LATR,
	RD_ST_BW,		/* counted */
	RD_ST_BWEND,		/* seq = messages sent (UD: its own number, the count
				 * in a be64 payload); answered with a report */
	RD_ST_BWREP,
	RD_ST_BYE,
	RD_ST_VERIFY,		/* payload: length, seq (be32 each): check the write area */
	RD_ST_VERIFYR,		/* payload: be64 offset of the first wrong byte, ~0 if intact */
	RD_ST_WPING,		/* RDMA WRITE with immediate: check the write area, answer VERIFYR */
	RD_ST_MCDATA,		/* --mcast: datagram seq, payload rd_st_fill(seq) */
	RD_ST_MCEND,		/* --mcast: seq = datagrams sent */
};

/*
 * The transfer types (--op).  Everything but SEND works on the server's
 * target area, whose address and rkey travel in the exchange.
 */
enum rd_st_op {
	RD_ST_OP_SEND,
	RD_ST_OP_WRITE,
	RD_ST_OP_WRITE_IMM,
	RD_ST_OP_READ,
	RD_ST_OP_FADD,
	RD_ST_OP_CSWAP,
	RD_ST_NOPS
};
#define RD_ST_OPS_ALL ((1u << RD_ST_NOPS) - 1)
/* "send", "write", "write-imm", "read", "fetch-add", "cmp-swap" ("?" out of range). */
const char *rd_st_op_name(unsigned int op);
/*
 * --op: a comma list of send, write (with and without immediate), read,
 * atomic (fetch-add and compare-and-swap), all.  0 with *mask, or -EINVAL
 * with the bad word in why[].
 */
int rd_st_ops_parse(const char *s, unsigned int *mask, char *why, size_t why_len);
/* --deny: write, read or atomic (comma list): the ops mask whose remote access the MR lacks. */
int rd_st_deny_parse(const char *s, unsigned int *mask, char *why, size_t why_len);
/* The MR access flags for a target area that denies those ops. */
int rd_st_target_access(unsigned int deny);

/*
 * The server's target area (rc->extra): [0, len) written by the client,
 * [len, 2 len) read by it (pattern RD_ST_READ_SEQ), then the fetch-add word
 * and the compare-and-swap word (both start at 0).
 */
struct rd_st_target {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};
#define RD_ST_READ_SEQ 0x52454144u
static inline size_t rd_st_target_len(size_t slot_size)
{
	return 2 * slot_size + 64;
}
/* Fill the read area, zero the rest, and describe it for the peer. */
void rd_st_target_init(struct rd_rc *rc, struct rd_st_target *t);

#define RD_ST_IMM(type, seq) (((uint32_t)(type) << 28) | ((uint32_t)(seq) & 0x0fffffffu))
#define RD_ST_TYPE(imm) ((imm) >> 28)
#define RD_ST_SEQ(imm) ((imm) & 0x0fffffffu)
/*
 * The sequence numbers of a client's keep-alive pings during one-sided
 * stages: above any ping-pong's (-n is at most 1e8 < 2^27).  A server
 * answers them like any ping, and sleeps at once after (nothing follows
 * soon); an older one spins for a while first.
 */
#define RD_ST_ALIVE_SEQ 0x0ffff000u

/* What a client asks for; the server bounds it. */
struct rd_st_params {
	uint32_t max_size;	/* largest message */
	uint32_t window;	/* outstanding sends in the bandwidth stage */
	uint32_t iters;
	bool ud;		/* a UD QP: deeper receive queues */
};

/* Server-side limits: a client can never make the server allocate more. */
#define RD_ST_MAX_SIZE (8u << 20)
#define RD_ST_MAX_WINDOW 512u
#define RD_ST_MAX_MEM (64u << 20)
#define RD_ST_MAX_ITERS 100000000u
_Static_assert(RD_ST_ALIVE_SEQ > RD_ST_MAX_ITERS, "keep-alive sequences above any ping-pong's");
/* UD: receives kept posted (a datagram that finds none is dropped), as perftest's rx depth. */
#define RD_ST_UD_RECV 512u
/* UD: the largest message, one packet at the largest MTU. */
#define RD_ST_UD_MAX_SIZE 4096u

/* 0 if acceptable; else -EINVAL and why[] says which limit. */
int rd_st_params_check(const struct rd_st_params *p, char *why, size_t why_len);
/* Receive and send slots for these parameters (both sides use the same). */
void rd_st_slots(const struct rd_st_params *p, unsigned int *nrecv, unsigned int *nsend,
		 size_t *slot_size);

/* Deterministic pattern for message seq. */
void rd_st_fill(uint8_t *buf, uint32_t len, uint32_t seq);
/* -1 if intact, else the offset of the first wrong byte. */
long rd_st_check(const uint8_t *buf, uint32_t len, uint32_t seq);

struct rd_st_error {
	char what[512];		/* plain words */
	bool wc;		/* from a completion */
	enum ibv_wc_status status;
	uint32_t vendor_err;
};

/*
 * Inside the layer: how a stage words its failure — a completion error (the
 * first one of the QP: a flush is never the cause) with its diagnosis per
 * operation, a timeout or interruption, a protocol error.
 */
void rd_st_wc_error(struct rd_rc *rc, const struct ibv_wc *wc, struct rd_st_error *err);
void rd_st_error_set(struct rd_st_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int rd_st_poll_error(int ret, int timeout_ms, const char *waiting_for, struct rd_st_error *err);
/* The wr_id tag of an operation's work requests (RD_WR_OP): op + 1; 0 for the protocol's sends. */
#define RD_ST_TAG(op) ((unsigned int)(op) + 1)
/* What a completion status means for the operation of tag (NULL: rd_wc_diagnosis's words). */
const char *rd_st_op_diagnosis(unsigned int tag, enum ibv_wc_status st);

/*
 * Post every receive slot.  Both sides do it once, before the peer may send
 * (rdma_cm: before connect/accept; verbs: before the exchange's last message).
 */
int rd_st_post_receives(struct rd_rc *rc, struct rd_st_error *err);

/*
 * Serve one connected client until BYE (0), an error or idle_ms without
 * traffic (-ETIMEDOUT), or *stop (-EINTR).  Receives must be posted.
 * A connection of the client's that rc watches (rd_rc_watch: the --verbs
 * exchange's socket, or the rdma_cm event channel of this connection alone)
 * ends the session at once when it ends (-ECONNRESET), once what came before
 * it is served, so a client that gave up or died does not hold the server
 * for idle_ms.
 */
int rd_st_serve(struct rd_rc *rc, int idle_ms, const volatile int *stop, struct rd_st_error *err,
		uint64_t *msgs);

struct rd_st_pingpong {
	uint32_t msgs;
	uint32_t resent;	/* UD: messages sent again after a loss */
	uint64_t ns;
};
int rd_st_pingpong(struct rd_rc *rc, uint32_t n, uint32_t size, int timeout_ms,
		   const volatile int *stop, struct rd_st_pingpong *res, struct rd_st_error *err);

struct rd_st_latency {
	uint8_t op;		/* enum rd_st_op */
	bool whole;		/* whole round trips (READ, atomics: one operation, as
				 * ib_read_lat and ib_atomic_lat report); else halves */
	uint32_t iters;
	uint32_t size;
	uint32_t resent;	/* UD: messages sent again after a loss (their samples include the wait) */
	/* half (or whole) round trip, microseconds */
	double min, median, avg, stdev, p99, p999, max;
};
int rd_st_latency(struct rd_rc *rc, uint32_t n, uint32_t size, int timeout_ms,
		  const volatile int *stop, struct rd_st_latency *res, struct rd_st_error *err);

struct rd_st_bandwidth {
	uint8_t op;		/* enum rd_st_op */
	uint32_t size;
	uint64_t msgs, bytes;		/* as the receiver counted them */
	uint64_t lost, reordered;	/* UD: lost = sent but never received */
	uint32_t resent;		/* UD: end messages sent again */
	double seconds, gbps, mpps;	/* gbps, mpps: as received */
	double sent_gbps;		/* as sent: UD received + lost, RC send the same as gbps */
};
/* n messages, or for duration_ms when n == 0. */
int rd_st_bandwidth(struct rd_rc *rc, uint32_t size, uint32_t window, uint64_t n,
		    uint32_t duration_ms, int timeout_ms, const volatile int *stop,
		    struct rd_st_bandwidth *res, struct rd_st_error *err);

/*
 * The one-sided transfers on the peer's target area t: a verified stage
 * (WRITE/WRITE_IMM: the peer checks the pattern; READ: we check it; atomics:
 * every returned value), latency (half of a signaled round trip) and
 * bandwidth.  The atomics' words are tracked in *words (fetch-add, cmp-swap:
 * both 0 on a fresh connection).
 */
struct rd_st_words {
	uint64_t fadd, cswap;
};
int rd_st_op_verify(struct rd_rc *rc, enum rd_st_op op, const struct rd_st_target *t, uint32_t n,
		    uint32_t size, int timeout_ms, const volatile int *stop, struct rd_st_words *words,
		    struct rd_st_pingpong *res, struct rd_st_error *err);
int rd_st_op_latency(struct rd_rc *rc, enum rd_st_op op, const struct rd_st_target *t, uint32_t n,
		     uint32_t size, int timeout_ms, const volatile int *stop, struct rd_st_words *words,
		     struct rd_st_latency *res, struct rd_st_error *err);
int rd_st_op_bandwidth(struct rd_rc *rc, enum rd_st_op op, const struct rd_st_target *t,
		       uint32_t size, uint32_t window, uint64_t n, uint32_t duration_ms, int timeout_ms,
		       const volatile int *stop, struct rd_st_words *words, struct rd_st_bandwidth *res,
		       struct rd_st_error *err);

int rd_st_bye(struct rd_rc *rc, int timeout_ms, struct rd_st_error *err);

/*
 * Latency statistics from samples in ns (round trips); sorts them.  Halves
 * the round trips unless res->whole.
 */
void rd_st_lat_stats(uint64_t *rtt_ns, uint32_t n, struct rd_st_latency *res);

#endif

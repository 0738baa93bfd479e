/* SPDX-License-Identifier: MIT */
/*
 * The self-test protocol over a connected RC QP, and its stages: ping-pong
 * with data verification, latency, bandwidth.  Message types travel in the
 * immediate data (type in the top 4 bits, sequence in the low 28), so a
 * payload can be any size, even 0.
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
	RD_ST_BWEND,		/* seq = messages sent; answered with a report */
	RD_ST_BWREP,
	RD_ST_BYE,
};

#define RD_ST_IMM(type, seq) (((uint32_t)(type) << 28) | ((uint32_t)(seq) & 0x0fffffffu))
#define RD_ST_TYPE(imm) ((imm) >> 28)
#define RD_ST_SEQ(imm) ((imm) & 0x0fffffffu)

/* What a client asks for; the server bounds it. */
struct rd_st_params {
	uint32_t max_size;	/* largest message */
	uint32_t window;	/* outstanding sends in the bandwidth stage */
	uint32_t iters;
};

/* Server-side limits: a client can never make the server allocate more. */
#define RD_ST_MAX_SIZE (8u << 20)
#define RD_ST_MAX_WINDOW 512u
#define RD_ST_MAX_MEM (64u << 20)
#define RD_ST_MAX_ITERS 100000000u

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
 * Post every receive slot.  Both sides do it once, before the peer may send
 * (rdma_cm: before connect/accept; verbs: before the exchange's last message).
 */
int rd_st_post_receives(struct rd_rc *rc, struct rd_st_error *err);

/*
 * Serve one connected client until BYE (0), an error or idle_ms without
 * traffic (-ETIMEDOUT), or *stop (-EINTR).  Receives must be posted.
 */
int rd_st_serve(struct rd_rc *rc, int idle_ms, const volatile int *stop, struct rd_st_error *err,
		uint64_t *msgs);

struct rd_st_pingpong {
	uint32_t msgs;
	uint64_t ns;
};
int rd_st_pingpong(struct rd_rc *rc, uint32_t n, uint32_t size, int timeout_ms,
		   const volatile int *stop, struct rd_st_pingpong *res, struct rd_st_error *err);

struct rd_st_latency {
	uint32_t iters;
	uint32_t size;
	/* half round trip, microseconds */
	double min, median, avg, stdev, p99, p999, max;
};
int rd_st_latency(struct rd_rc *rc, uint32_t n, uint32_t size, int timeout_ms,
		  const volatile int *stop, struct rd_st_latency *res, struct rd_st_error *err);

struct rd_st_bandwidth {
	uint32_t size;
	uint64_t msgs, bytes;		/* as the receiver counted them */
	uint64_t lost, reordered;
	double seconds, gbps, mpps;
};
/* n messages, or for duration_ms when n == 0. */
int rd_st_bandwidth(struct rd_rc *rc, uint32_t size, uint32_t window, uint64_t n,
		    uint32_t duration_ms, int timeout_ms, const volatile int *stop,
		    struct rd_st_bandwidth *res, struct rd_st_error *err);

int rd_st_bye(struct rd_rc *rc, int timeout_ms, struct rd_st_error *err);

/* Latency statistics from samples in ns (round trips); sorts them. */
void rd_st_lat_stats(uint64_t *rtt_ns, uint32_t n, struct rd_st_latency *res);

#endif

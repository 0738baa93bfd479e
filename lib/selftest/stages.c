// SPDX-License-Identifier: MIT
/*
 * The client side of the self-test protocol (stages.h): its limits and
 * buffers, the pattern, the failure wording, the ping-pong, latency and
 * bandwidth stages and the goodbye.  The serving side is serve.c; the
 * transfer types' words and the target area, opwords.c.
 */
#define _GNU_SOURCE
#include "stages.h"

#include <endian.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MS(x) ((uint64_t)(x) * 1000000ull)

int rd_st_params_check(const struct rd_st_params *p, char *why, size_t why_len)
{
	unsigned int nrecv, nsend;
	size_t slot;

	if (p->max_size > RD_ST_MAX_SIZE) {
		snprintf(why, why_len, "message size %u above the server's limit %u", p->max_size,
			 RD_ST_MAX_SIZE);
		return -EINVAL;
	}
	if (p->window == 0 || p->window > RD_ST_MAX_WINDOW) {
		snprintf(why, why_len, "window %u outside 1..%u", p->window, RD_ST_MAX_WINDOW);
		return -EINVAL;
	}
	if (p->ud && p->max_size > RD_ST_UD_MAX_SIZE) {
		snprintf(why, why_len, "UD message size %u above one packet (%u)", p->max_size,
			 RD_ST_UD_MAX_SIZE);
		return -EINVAL;
	}
	if (p->iters > RD_ST_MAX_ITERS) {
		snprintf(why, why_len, "iterations %u above the server's limit %u", p->iters,
			 RD_ST_MAX_ITERS);
		return -EINVAL;
	}
	rd_st_slots(p, &nrecv, &nsend, &slot);
	/* The slots and the target area of the one-sided operations. */
	if ((uint64_t)slot * (nrecv + nsend) + rd_st_target_len(slot) > RD_ST_MAX_MEM) {
		snprintf(why, why_len, "size %u x window %u needs more than the server's %u MiB",
			 p->max_size, p->window, RD_ST_MAX_MEM >> 20);
		return -EINVAL;
	}
	return 0;
}

void rd_st_slots(const struct rd_st_params *p, unsigned int *nrecv, unsigned int *nsend,
		 size_t *slot_size)
{
	size_t s = p->max_size < 64 ? 64 : p->max_size;

	/* The bandwidth stage keeps `window` sends in flight; +2 for control messages. */
	*nrecv = p->window + 2;
	/* UD: nothing paces the sender; the receive queue is all that catches a burst. */
	if (p->ud && *nrecv < RD_ST_UD_RECV)
		*nrecv = RD_ST_UD_RECV;
	*nsend = p->window + 2;
	*slot_size = (s + 63) & ~(size_t)63;
}

void rd_st_fill(uint8_t *buf, uint32_t len, uint32_t seq)
{
	uint32_t x = seq * 2654435761u + 1;

	for (uint32_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
}

long rd_st_check(const uint8_t *buf, uint32_t len, uint32_t seq)
{
	uint32_t x = seq * 2654435761u + 1;

	for (uint32_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		if (buf[i] != (uint8_t)x)
			return (long)i;
	}
	return -1;
}

void rd_st_wc_error(struct rd_rc *rc, const struct ibv_wc *wc, struct rd_st_error *err)
{
	/* A flush is a consequence: report the first error instead. */
	const struct ibv_wc *first = rc->has_error ? &rc->first_error : wc;
	unsigned int tag = (first->wr_id & RD_WR_RECV) ? 0 : RD_WR_OP(first->wr_id);
	const char *d = rd_st_op_diagnosis(tag, first->status);

	err->wc = true;
	err->status = first->status;
	err->vendor_err = first->vendor_err;
	snprintf(err->what, sizeof(err->what), "%s %s (%s, vendor error 0x%x): %s%s",
		 (first->wr_id & RD_WR_RECV) ? "receive" :
		 tag == RD_ST_TAG(RD_ST_OP_WRITE) ? "RDMA WRITE" :
		 tag == RD_ST_TAG(RD_ST_OP_WRITE_IMM) ? "RDMA WRITE with immediate" :
		 tag == RD_ST_TAG(RD_ST_OP_READ) ? "RDMA READ" :
		 tag == RD_ST_TAG(RD_ST_OP_FADD) ? "fetch-and-add" :
		 tag == RD_ST_TAG(RD_ST_OP_CSWAP) ? "compare-and-swap" : "send",
		 "failed", ibv_wc_status_str(first->status), first->vendor_err,
		 d ? d : rd_wc_diagnosis(first->status),
		 first->status == IBV_WC_WR_FLUSH_ERR ?
			 " (no error of ours came before it: the peer's request put the queue pair "
			 "in error, e.g. an access its memory region does not allow)" :
		 rd_rc_peer_gone(rc) ?
			 "; the peer had ended the session: it closed the connection (its log "
			 "says why)" : "");
}

const char *rd_st_op_diagnosis(unsigned int tag, enum ibv_wc_status st)
{
	if (st == IBV_WC_REM_ACCESS_ERR) {
		switch (tag) {
		case RD_ST_TAG(RD_ST_OP_WRITE):
		case RD_ST_TAG(RD_ST_OP_WRITE_IMM):
			return "the peer refused the write: its memory region lacks remote write "
			       "access (IBV_ACCESS_REMOTE_WRITE), or the rkey/address is wrong";
		case RD_ST_TAG(RD_ST_OP_READ):
			return "the peer refused the read: its memory region lacks remote read "
			       "access (IBV_ACCESS_REMOTE_READ), or the rkey/address is wrong";
		case RD_ST_TAG(RD_ST_OP_FADD):
		case RD_ST_TAG(RD_ST_OP_CSWAP):
			return "the peer refused the atomic: its memory region lacks remote atomic "
			       "access (IBV_ACCESS_REMOTE_ATOMIC), or the rkey/address is wrong";
		default:
			return NULL;
		}
	}
	if (st == IBV_WC_REM_INV_REQ_ERR &&
	    (tag == RD_ST_TAG(RD_ST_OP_FADD) || tag == RD_ST_TAG(RD_ST_OP_CSWAP)))
		return "the peer rejected the atomic: its device does not support atomics "
		       "(ibv_devinfo -v: atomic_cap), or the address is not 8-byte aligned";
	if (st == IBV_WC_REM_INV_REQ_ERR &&
	    (tag == RD_ST_TAG(RD_ST_OP_READ) || tag == RD_ST_TAG(RD_ST_OP_WRITE)))
		return "the peer rejected the request: beyond its memory region, or its queue "
		       "pair does not allow the operation (QP access flags)";
	if (st == IBV_WC_RNR_RETRY_EXC_ERR && tag == RD_ST_TAG(RD_ST_OP_WRITE_IMM))
		return "receiver not ready: a write with immediate consumes a receive and the peer "
		       "had none posted in time";
	return NULL;
}

void rd_st_error_set(struct rd_st_error *err, const char *fmt, ...)
{
	va_list ap;

	err->wc = false;
	va_start(ap, fmt);
	(void)vsnprintf(err->what, sizeof(err->what), fmt, ap);	/* truncation is fine */
	va_end(ap);
}

int rd_st_poll_error(int ret, int timeout_ms, const char *waiting_for, struct rd_st_error *err)
{
	if (ret == -ETIMEDOUT)
		rd_st_error_set(err, "no %s within %d ms: the peer stopped answering (crashed, killed, "
				     "or packets are lost without an error yet)", waiting_for, timeout_ms);
	else if (ret == -ECONNRESET)
		rd_st_error_set(err, "no %s: the peer ended the session: it closed the connection (it "
				     "was stopped or killed, or heard nothing from this side within its "
				     "--timeout; its log says which)", waiting_for);
	else if (ret == -EINTR)
		rd_st_error_set(err, "interrupted");
	else
		rd_st_error_set(err, "polling the completion queue failed: %s", strerror(-ret));
	return ret;
}

/* ---- client ---- */

int rd_st_post_receives(struct rd_rc *rc, struct rd_st_error *err)
{
	for (unsigned int i = 0; i < rc->nrecv; i++) {
		int ret = rd_rc_post_recv(rc, i);

		if (ret) {
			rd_st_error_set(err, "cannot post receives: %s", strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/*
 * UD: how long a round trip waits for its reply before it sends its message
 * again (a datagram lost is never retransmitted by the device): 250 ms, far
 * above a round trip even on soft-RoCE under load (a copy sent too early is
 * only a duplicate, dropped), or a quarter of a shorter --timeout.
 */
static uint64_t ud_resend_ns(int timeout_ms)
{
	return MS(timeout_ms / 4 < 250 ? (timeout_ms / 4 ? timeout_ms / 4 : 1) : 250);
}

/*
 * Send one message and wait for its send completion and the reply of
 * want_type.  Returns the reply's receive slot (reposted by the caller via
 * done_reply) and its wc.  UD: the message goes again when no reply came
 * within ud_resend_ns (counted in *resent), and a reply to an earlier copy
 * or message is dropped.
 */
static int round_trip(struct rd_rc *rc, uint32_t len, uint32_t imm, uint32_t want_type,
		      uint32_t want_seq, int timeout_ms, const volatile int *stop, struct ibv_wc *reply,
		      uint32_t *resent, struct rd_st_error *err)
{
	uint64_t deadline = rd_now_ns() + MS(timeout_ms), retry = UINT64_MAX;
	bool sent = false, got = false;
	struct ibv_wc wc[4];
	int ret;

	ret = rd_rc_post_send(rc, rc->nrecv, len, imm);
	if (ret) {
		rd_st_error_set(err, "cannot post a send: %s", strerror(-ret));
		return ret;
	}
	while (!sent || !got) {
		int n = rd_rc_poll(rc, wc, 4, rc->ud && retry < deadline ? retry : deadline, stop);

		if (n == -ETIMEDOUT && rc->ud && rd_now_ns() < deadline) {
			/* The message or its reply was lost: again, from the same slot. */
			ret = rd_rc_post_send(rc, rc->nrecv, len, imm);
			if (ret) {
				rd_st_error_set(err, "cannot post a send: %s", strerror(-ret));
				return ret;
			}
			sent = false;
			retry = UINT64_MAX;
			if (resent)
				(*resent)++;
			continue;
		}
		if (n < 0)
			return rd_st_poll_error(n, timeout_ms, sent ? "reply" : "send completion", err);
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				rd_st_wc_error(rc, &wc[i], err);
				return -EIO;
			}
			if (wc[i].wr_id & RD_WR_SEND) {
				sent = true;
				if (rc->ud)
					retry = rd_now_ns() + ud_resend_ns(timeout_ms);
				continue;
			}
			uint32_t rimm = be32toh(wc[i].imm_data);
			bool typed = wc[i].wc_flags & IBV_WC_WITH_IMM;

			if (rc->ud && !got && (!typed || RD_ST_TYPE(rimm) != want_type ||
					       RD_ST_SEQ(rimm) != (want_seq & 0x0fffffff))) {
				/* A late answer to a copy sent before: not ours to count. */
				ret = rd_rc_post_recv(rc, RD_WR_SLOT(wc[i].wr_id));
				if (ret) {
					rd_st_error_set(err, "cannot repost a receive: %s", strerror(-ret));
					return ret;
				}
				continue;
			}
			if (rc->ud && got) {
				/* The reply to a resent copy, after the first: drop it. */
				ret = rd_rc_post_recv(rc, RD_WR_SLOT(wc[i].wr_id));
				if (ret) {
					rd_st_error_set(err, "cannot repost a receive: %s", strerror(-ret));
					return ret;
				}
				continue;
			}
			if (!typed || RD_ST_TYPE(rimm) != want_type) {
				rd_st_error_set(err, "protocol error: expected reply type %u, got %u", want_type,
					  RD_ST_TYPE(rimm));
				return -EPROTO;
			}
			if (RD_ST_SEQ(rimm) != (want_seq & 0x0fffffff)) {
				rd_st_error_set(err, "%s: expected message %u, got %u",
					  RD_ST_SEQ(rimm) < want_seq ? "duplicate or reordered reply" :
								      "reply lost (skipped ahead)",
					  want_seq, RD_ST_SEQ(rimm));
				return -EPROTO;
			}
			*reply = wc[i];
			got = true;
		}
	}
	return 0;
}

int rd_st_pingpong(struct rd_rc *rc, uint32_t n, uint32_t size, int timeout_ms,
		   const volatile int *stop, struct rd_st_pingpong *res, struct rd_st_error *err)
{
	uint64_t t0 = rd_now_ns();
	struct ibv_wc reply;

	memset(res, 0, sizeof(*res));
	if (size > rc->slot_size) {
		rd_st_error_set(err, "size %u larger than the buffers (%zu)", size, rc->slot_size);
		return -EMSGSIZE;
	}
	for (uint32_t seq = 1; seq <= n; seq++) {
		unsigned int slot;
		long bad;
		int ret;

		rd_st_fill(rd_rc_slot(rc, rc->nrecv), size, seq);
		ret = round_trip(rc, size, RD_ST_IMM(RD_ST_PING, seq), RD_ST_PONG, seq, timeout_ms,
				 stop, &reply, &res->resent, err);
		if (ret)
			return ret;
		slot = RD_WR_SLOT(reply.wr_id);
		if (reply.byte_len != size) {
			rd_st_error_set(err, "message %u came back with %u bytes, sent %u (truncated)", seq,
				  reply.byte_len, size);
			return -EBADMSG;
		}
		bad = rd_st_check(rd_rc_slot(rc, slot), size, seq);
		if (bad >= 0) {
			rd_st_error_set(err, "message %u corrupted: first wrong byte at offset %ld", seq, bad);
			return -EBADMSG;
		}
		ret = rd_rc_post_recv(rc, slot);
		if (ret) {
			rd_st_error_set(err, "cannot repost a receive: %s", strerror(-ret));
			return ret;
		}
		res->msgs++;
	}
	res->ns = rd_now_ns() - t0;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint64_t *s, uint32_t n, double p)
{
	/* nearest rank; the epsilon keeps 99.9% of 1000 at rank 999, not 1000 */
	double r = ceil(p * n / 100.0 - 1e-9);
	uint32_t i = r < 1 ? 0 : (uint32_t)r - 1;

	if (i >= n)
		i = n - 1;
	return (double)s[i];
}

void rd_st_lat_stats(uint64_t *rtt, uint32_t n, struct rd_st_latency *res)
{
	double sum = 0, var = 0, mean, unit = res->whole ? 1000.0 : 2000.0;	/* ns -> us */
	uint32_t mid = n / 2;

	res->iters = n;
	if (!n)
		return;
	qsort(rtt, n, sizeof(*rtt), cmp_u64);
	for (uint32_t i = 0; i < n; i++)
		sum += (double)rtt[i];
	mean = sum / n;
	for (uint32_t i = 0; i < n; i++)
		var += ((double)rtt[i] - mean) * ((double)rtt[i] - mean);
	/* Half (or whole) round trips, in microseconds, in floating point throughout. */
	res->min = (double)rtt[0] / unit;
	res->max = (double)rtt[n - 1] / unit;
	res->avg = mean / unit;
	res->stdev = (n > 1 ? sqrt(var / (n - 1)) : 0) / unit;
	res->median = (n % 2 ? (double)rtt[mid] : ((double)rtt[mid - 1] + (double)rtt[mid]) / 2) / unit;
	res->p99 = pct(rtt, n, 99) / unit;
	res->p999 = pct(rtt, n, 99.9) / unit;
}

int rd_st_latency(struct rd_rc *rc, uint32_t n, uint32_t size, int timeout_ms,
		  const volatile int *stop, struct rd_st_latency *res, struct rd_st_error *err)
{
	uint64_t *rtt;
	struct ibv_wc reply;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	res->size = size;
	if (!n)
		return 0;
	if (size > rc->slot_size) {
		rd_st_error_set(err, "size %u larger than the buffers (%zu)", size, rc->slot_size);
		return -EMSGSIZE;
	}
	rtt = calloc(n, sizeof(*rtt));
	if (!rtt) {
		rd_st_error_set(err, "out of memory for %u samples", n);
		return -ENOMEM;
	}
	/* Busy-poll while timing, as ib_send_lat does: a wake-up is not latency. */
	rc->spin_ns = RD_RC_SPIN_FOREVER;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t t0 = rd_now_ns();

		ret = round_trip(rc, size, RD_ST_IMM(RD_ST_LAT, i), RD_ST_LATR, i, timeout_ms, stop,
				 &reply, &res->resent, err);
		if (ret)
			goto out;
		rtt[i] = rd_now_ns() - t0;
		ret = rd_rc_post_recv(rc, RD_WR_SLOT(reply.wr_id));
		if (ret) {
			rd_st_error_set(err, "cannot repost a receive: %s", strerror(-ret));
			goto out;
		}
	}
	rd_st_lat_stats(rtt, n, res);
	res->size = size;
out:
	rc->spin_ns = RD_RC_SPIN_NS;
	free(rtt);
	return ret;
}

int rd_st_bandwidth(struct rd_rc *rc, uint32_t size, uint32_t window, uint64_t n,
		    uint32_t duration_ms, int timeout_ms, const volatile int *stop,
		    struct rd_st_bandwidth *res, struct rd_st_error *err)
{
	uint64_t t0, t_end, sent = 0, done = 0, deadline_run;
	unsigned int inflight = 0, next = 0;
	struct ibv_wc wc[32], reply;
	uint64_t rep[4];
	int ret;

	memset(res, 0, sizeof(*res));
	res->size = size;
	if (size > rc->slot_size) {
		rd_st_error_set(err, "size %u larger than the buffers (%zu)", size, rc->slot_size);
		return -EMSGSIZE;
	}
	if (window > rc->nsend - 1)
		window = rc->nsend - 1;
	for (unsigned int s = 0; s < window; s++)
		rd_st_fill(rd_rc_slot(rc, rc->nrecv + 1 + s), size, s);
	t0 = rd_now_ns();
	deadline_run = duration_ms ? t0 + MS(duration_ms) : UINT64_MAX;
	/* Signal one send in `sig`: fewer completions to poll, as perftest does. */
	unsigned int sig = window >= 16 ? window / 8 : 1, unsignaled = 0;

	for (;;) {
		bool more = n ? sent < n : rd_now_ns() < deadline_run;

		while (more && inflight < window) {
			bool last;

			sent++;
			more = n ? sent < n : rd_now_ns() < deadline_run;
			last = !more || inflight + 1 == window;
			unsignaled++;
			/* Slot 0 of the send area is for control messages. */
			ret = rd_rc_post_send_batch(rc, rc->nrecv + 1 + next, size,
						    RD_ST_IMM(RD_ST_BW, sent - 1),
						    unsignaled >= sig || last ? unsignaled : 0);
			if (ret) {
				rd_st_error_set(err, "cannot post a send: %s", strerror(-ret));
				return ret;
			}
			if (unsignaled >= sig || last)
				unsignaled = 0;
			next = (next + 1) % window;
			inflight++;
		}
		if (!inflight)
			break;
		int got = rd_rc_poll(rc, wc, 32, rd_now_ns() + MS(timeout_ms), stop);

		if (got < 0)
			return rd_st_poll_error(got, timeout_ms, "send completion", err);
		for (int i = 0; i < got; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				rd_st_wc_error(rc, &wc[i], err);
				return -EIO;
			}
			if (wc[i].wr_id & RD_WR_SEND) {
				unsigned int c = RD_WR_COVERS(wc[i].wr_id);

				inflight -= c <= inflight ? c : inflight;
				done += c;
			} else if (rc->ud) {
				/* A late answer from an earlier stage (a resent copy's): dropped. */
				ret = rd_rc_post_recv(rc, RD_WR_SLOT(wc[i].wr_id));
				if (ret) {
					rd_st_error_set(err, "cannot repost a receive: %s", strerror(-ret));
					return ret;
				}
			} else {
				rd_st_error_set(err, "protocol error: unexpected message during the bandwidth stage");
				return -EPROTO;
			}
		}
	}
	t_end = rd_now_ns();
	if (rc->ud) {
		/*
		 * UD: the end message may be lost too, and is sent again until the
		 * report comes.  Its number is its own (a server answers a copy
		 * with the report it already gave); the count sent is its payload.
		 */
		uint32_t id = (uint32_t)(t_end >> 10) & 0x0fffffffu;
		uint64_t be = htobe64(sent);

		memcpy(rd_rc_slot(rc, rc->nrecv), &be, sizeof(be));
		ret = round_trip(rc, sizeof(be), RD_ST_IMM(RD_ST_BWEND, id), RD_ST_BWREP, id,
				 timeout_ms, stop, &reply, &res->resent, err);
	} else {
		ret = round_trip(rc, 0, RD_ST_IMM(RD_ST_BWEND, sent), RD_ST_BWREP, sent, timeout_ms,
				 stop, &reply, NULL, err);
	}
	if (ret)
		return ret;
	if (reply.byte_len != sizeof(rep)) {
		rd_st_error_set(err, "protocol error: bandwidth report of %u bytes", reply.byte_len);
		return -EPROTO;
	}
	memcpy(rep, rd_rc_slot(rc, RD_WR_SLOT(reply.wr_id)), sizeof(rep));
	ret = rd_rc_post_recv(rc, RD_WR_SLOT(reply.wr_id));
	if (ret) {
		rd_st_error_set(err, "cannot repost a receive: %s", strerror(-ret));
		return ret;
	}
	res->msgs = be64toh(rep[0]);
	res->bytes = be64toh(rep[1]);
	res->lost = be64toh(rep[2]);
	res->reordered = be64toh(rep[3]);
	res->seconds = (double)(t_end - t0) / 1e9;
	if (res->seconds > 0) {
		res->gbps = (double)res->bytes * 8 / res->seconds / 1e9;
		res->mpps = (double)res->msgs / res->seconds / 1e6;
		/* What left this side: a sender's figure, as ib_send_bw's client gives it. */
		res->sent_gbps = (double)done * size * 8 / res->seconds / 1e9;
	}
	if (rc->ud) {
		/*
		 * Datagrams are not retransmitted: what the receiver missed is a
		 * loss to report (res->lost), not a failure, unless nothing came.
		 */
		res->lost = res->msgs < done ? done - res->msgs : 0;
		if (!res->msgs && done) {
			rd_st_error_set(err, "the receiver counted none of %llu datagrams (all lost: "
				  "check the Q_Key, the path MTU and the receiver's queue)",
				  (unsigned long long)done);
			return -EBADMSG;
		}
		return 0;
	}
	if (res->msgs != done || res->lost || res->reordered) {
		rd_st_error_set(err, "the receiver counted %llu of %llu messages (%llu lost, %llu out of order)",
			  (unsigned long long)res->msgs, (unsigned long long)done,
			  (unsigned long long)res->lost, (unsigned long long)res->reordered);
		return -EBADMSG;
	}
	return 0;
}

int rd_st_bye(struct rd_rc *rc, int timeout_ms, struct rd_st_error *err)
{
	struct ibv_wc wc[4];
	uint64_t deadline = rd_now_ns() + MS(timeout_ms);
	int ret;

	if (rc->ud) {
		/* A datagram may be lost: sent again until the server answers it. */
		struct ibv_wc reply;

		ret = round_trip(rc, 0, RD_ST_IMM(RD_ST_BYE, 1), RD_ST_BYE, 1, timeout_ms, NULL,
				 &reply, NULL, err);
		/*
		 * The server closed the session while the goodbye went again: its
		 * answer was lost, and the session is over as the goodbye asked.
		 */
		return ret == -ECONNRESET ? 0 : ret;
	}
	ret = rd_rc_post_send(rc, rc->nrecv, 0, RD_ST_IMM(RD_ST_BYE, 0));

	if (ret) {
		rd_st_error_set(err, "cannot post a send: %s", strerror(-ret));
		return ret;
	}
	for (;;) {
		int n = rd_rc_poll(rc, wc, 4, deadline, NULL);

		if (n < 0)
			return rd_st_poll_error(n, timeout_ms, "send completion", err);
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				rd_st_wc_error(rc, &wc[i], err);
				return -EIO;
			}
			if (wc[i].wr_id & RD_WR_SEND)
				return 0;
		}
	}
}

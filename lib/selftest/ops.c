// SPDX-License-Identifier: MIT
/*
 * The one-sided transfers (stages.h): RDMA WRITE with and without immediate,
 * RDMA READ, fetch-and-add and compare-and-swap on the peer's target area,
 * each with a verified stage, latency and bandwidth.
 *
 * Our own extra area mirrors the peer's: [0, len) is the source of writes,
 * [len, 2 len) the destination of reads, then the word atomics return into.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stages.h"

#define MS(x) ((uint64_t)(x) * 1000000ull)
#define BW_SEQ 0x42570000u	/* the pattern of every bandwidth write */
#define CSWAP_STEP 0x9e3779b97f4a7c15ull

static uint8_t *src_area(struct rd_rc *rc)
{
	return rc->extra;
}

static uint8_t *dst_area(struct rd_rc *rc)
{
	return rc->extra + rc->slot_size;
}

static uint64_t *result_word(struct rd_rc *rc)
{
	return (uint64_t *)(void *)(rc->extra + 2 * rc->slot_size);
}

/* An atomic's returned value: devices that keep the word big-endian return it swapped. */
static bool same_word(uint64_t got, uint64_t want)
{
	return got == want || __builtin_bswap64(got) == want;
}

static enum ibv_wr_opcode opcode(enum rd_st_op op)
{
	switch (op) {
	case RD_ST_OP_WRITE:
		return IBV_WR_RDMA_WRITE;
	case RD_ST_OP_WRITE_IMM:
		return IBV_WR_RDMA_WRITE_WITH_IMM;
	case RD_ST_OP_READ:
		return IBV_WR_RDMA_READ;
	case RD_ST_OP_FADD:
		return IBV_WR_ATOMIC_FETCH_AND_ADD;
	default:
		return IBV_WR_ATOMIC_CMP_AND_SWP;
	}
}

/* Say that op could not be posted (ret: -errno) and return ret. */
static int post_failed(enum rd_st_op op, int ret, struct rd_st_error *err)
{
	rd_st_error_set(err, "cannot post %s: %s", rd_st_op_name(op), strerror(-ret));
	return ret;
}

/*
 * Build one operation of op on t (imm for WRITE_IMM, a/b: add (or compare) and
 * swap) into *wr and *sge, not posted: where it reads from or lands locally,
 * and where on the peer.
 */
static int op_wr(struct rd_rc *rc, enum rd_st_op op, const struct rd_st_target *t, uint32_t size,
		 uint32_t imm, uint64_t a, uint64_t b, unsigned int covers, struct ibv_send_wr *wr,
		 struct ibv_sge *sge, struct rd_st_error *err)
{
	uint64_t raddr = t->addr;
	void *local = src_area(rc);
	int ret;

	if (op == RD_ST_OP_READ) {
		raddr += t->len;
		local = dst_area(rc);
	} else if (op == RD_ST_OP_FADD || op == RD_ST_OP_CSWAP) {
		raddr += 2ull * t->len + (op == RD_ST_OP_CSWAP ? 8 : 0);
		local = result_word(rc);
		size = 8;
	}
	ret = rd_rc_op_wr(rc, opcode(op), local, size, raddr, t->rkey, imm, a, b, covers,
			  RD_ST_TAG(op), wr, sge);
	return ret ? post_failed(op, ret, err) : 0;
}

/* Post one operation of op on t (op_wr). */
static int post(struct rd_rc *rc, enum rd_st_op op, const struct rd_st_target *t, uint32_t size,
		uint32_t imm, uint64_t a, uint64_t b, unsigned int covers, struct rd_st_error *err)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	int ret = op_wr(rc, op, t, size, imm, a, b, covers, &wr, &sge, err);

	if (ret)
		return ret;
	ret = ibv_post_send(rc->qp, &wr, &bad);
	return ret ? post_failed(op, -ret, err) : 0;
}

/*
 * Wait for `sends` signaled send-side completions and, when want_type is not
 * 0, the peer's reply of that type and sequence (its receive is reposted).
 */
static int wait_for(struct rd_rc *rc, unsigned int sends, uint32_t want_type, uint32_t want_seq,
		    int timeout_ms, const volatile int *stop, struct ibv_wc *reply,
		    struct rd_st_error *err)
{
	uint64_t deadline = rd_now_ns() + MS(timeout_ms);
	bool got = want_type == 0;
	struct ibv_wc wc[8];

	memset(reply, 0, sizeof(*reply));

	while (sends || !got) {
		int n = rd_rc_poll(rc, wc, 8, deadline, stop);

		if (n < 0)
			return rd_st_poll_error(n, timeout_ms, sends ? "completion" : "reply", err);
		for (int i = 0; i < n; i++) {
			uint32_t rimm;

			if (wc[i].status != IBV_WC_SUCCESS) {
				rd_st_wc_error(rc, &wc[i], err);
				return -EIO;
			}
			if (wc[i].wr_id & RD_WR_SEND) {
				unsigned int c = RD_WR_COVERS(wc[i].wr_id);

				sends -= c <= sends ? c : sends;
				continue;
			}
			rimm = be32toh(wc[i].imm_data);
			if (got || !(wc[i].wc_flags & IBV_WC_WITH_IMM) || RD_ST_TYPE(rimm) != want_type ||
			    RD_ST_SEQ(rimm) != (want_seq & 0x0fffffff)) {
				rd_st_error_set(err, "protocol error: unexpected reply (type %u, message %u)",
						RD_ST_TYPE(rimm), RD_ST_SEQ(rimm));
				return -EPROTO;
			}
			/* The caller reads the reply's slot, then reposts it. */
			*reply = wc[i];
			got = true;
		}
	}
	return 0;
}

static int repost(struct rd_rc *rc, const struct ibv_wc *reply, struct rd_st_error *err)
{
	int ret = rd_rc_post_recv(rc, RD_WR_SLOT(reply->wr_id));

	if (ret)
		rd_st_error_set(err, "cannot repost a receive: %s", strerror(-ret));
	return ret;
}

/*
 * Keep-alives.  The peer's kernel answers RDMA READ, WRITE without immediate
 * and atomics: the serving process hears nothing of them, and drops a session
 * that stays silent for its --timeout.  So a stage of these operations pings
 * the peer (0 bytes, sequence numbers of their own, RD_ST_ALIVE_SEQ) as it
 * starts and whenever ALIVE_MS, or a quarter of our own --timeout if
 * shorter, passed without one.  Every server version answers PING.  The
 * first one also ends the peer's spin of a latency stage before (which on a
 * one-CPU host would take the CPU from the kernel serving this stage).  The
 * ping is outside the timed path of a latency stage; in a bandwidth stage it
 * travels among the operations.
 */
#define ALIVE_MS 250u

struct alive {
	uint64_t every, next;
	uint32_t seq, want;
	unsigned int due;	/* the ping in flight: its send completion and its reply */
	bool spin_alone;	/* rc->spin_alone while no ping is in flight */
};

/* Whether the peer's process hears nothing of op's transfers. */
static bool quiet_op(enum rd_st_op op)
{
	return op == RD_ST_OP_WRITE || op == RD_ST_OP_READ || op == RD_ST_OP_FADD ||
	       op == RD_ST_OP_CSWAP;
}

static void alive_init(struct alive *a, int timeout_ms, bool quiet, const struct rd_rc *rc)
{
	uint64_t every = MS(ALIVE_MS), quarter = MS(timeout_ms) / 4;

	memset(a, 0, sizeof(*a));
	a->every = quarter && quarter < every ? quarter : every;
	a->next = quiet ? 0 : UINT64_MAX;
	a->spin_alone = rc->spin_alone;
}

/* Post the next ping (a->due: 2); the peer's answer is waited for by the caller. */
static int alive_post(struct rd_rc *rc, struct alive *a, struct rd_st_error *err)
{
	int ret;

	a->want = RD_ST_ALIVE_SEQ | (a->seq++ & 0xfffu);
	ret = rd_rc_post_send(rc, rc->nrecv, 0, RD_ST_IMM(RD_ST_PING, a->want));
	if (ret) {
		rd_st_error_set(err, "cannot post a keep-alive: %s", strerror(-ret));
		return ret;
	}
	a->due = 2;
	/* In loopback the peer is a thread of ours: the spin must let it answer. */
	rc->spin_alone = false;
	return 0;
}

/* A ping and its answer, nothing else in flight, when one is due at now. */
static int alive_tick(struct rd_rc *rc, struct alive *a, uint64_t now, int timeout_ms,
		      const volatile int *stop, struct rd_st_error *err)
{
	struct ibv_wc reply;
	int ret;

	if (now < a->next)
		return 0;
	ret = alive_post(rc, a, err);
	if (!ret)
		ret = wait_for(rc, 1, RD_ST_PONG, a->want, timeout_ms, stop, &reply, err);
	if (!ret)
		ret = repost(rc, &reply, err);
	a->due = 0;
	rc->spin_alone = a->spin_alone;
	a->next = rd_now_ns() + a->every;
	return ret;
}

/*
 * In a bandwidth stage: whether wc is the ping's send completion or its
 * answer (then reposted).  -EPROTO: a message that is neither.
 */
static int alive_wc(struct rd_rc *rc, struct alive *a, const struct ibv_wc *wc, uint64_t now,
		    struct rd_st_error *err)
{
	uint32_t imm = be32toh(wc->imm_data);

	if (wc->wr_id & RD_WR_SEND) {
		if (RD_WR_OP(wc->wr_id) != 0)
			return 0;
	} else if (!a->due || !(wc->wc_flags & IBV_WC_WITH_IMM) || RD_ST_TYPE(imm) != RD_ST_PONG ||
		   RD_ST_SEQ(imm) != a->want) {
		rd_st_error_set(err, "protocol error: unexpected message during the bandwidth stage");
		return -EPROTO;
	} else if (repost(rc, wc, err)) {
		return -EIO;
	}
	if (a->due && !--a->due) {
		rc->spin_alone = a->spin_alone;
		a->next = now + a->every;
	}
	return 1;
}

/* The peer's verdict on its write area: ~0 intact, else the first wrong offset. */
static int verdict(struct rd_rc *rc, const struct ibv_wc *reply, uint64_t *bad, struct rd_st_error *err)
{
	if (reply->byte_len != sizeof(*bad)) {
		rd_st_error_set(err, "protocol error: verify answer of %u bytes", reply->byte_len);
		return -EPROTO;
	}
	memcpy(bad, rd_rc_slot(rc, RD_WR_SLOT(reply->wr_id)), sizeof(*bad));
	*bad = be64toh(*bad);
	return repost(rc, reply, err);
}

/* Ask the peer to check its write area for size bytes of pattern seq. */
static int ask_verify(struct rd_rc *rc, uint32_t size, uint32_t seq, unsigned int extra_sends,
		      int timeout_ms, const volatile int *stop, uint64_t *bad, struct rd_st_error *err)
{
	uint32_t v[2] = { htobe32(size), htobe32(seq) };
	struct ibv_wc reply;
	int ret;

	memcpy(rd_rc_slot(rc, rc->nrecv), v, sizeof(v));
	ret = rd_rc_post_send(rc, rc->nrecv, sizeof(v), RD_ST_IMM(RD_ST_VERIFY, seq));
	if (ret) {
		rd_st_error_set(err, "cannot post a send: %s", strerror(-ret));
		return ret;
	}
	ret = wait_for(rc, 1 + extra_sends, RD_ST_VERIFYR, seq, timeout_ms, stop, &reply, err);
	return ret ? ret : verdict(rc, &reply, bad, err);
}

static int check_target(struct rd_rc *rc, const struct rd_st_target *t, uint32_t size,
			struct rd_st_error *err)
{
	if (!t->rkey && !t->addr) {
		rd_st_error_set(err, "the peer sent no target memory (rkey and address)");
		return -EPROTO;
	}
	if (!rc->extra || size > t->len || size > rc->slot_size) {
		rd_st_error_set(err, "size %u larger than the buffers (%u)", size, t->len);
		return -EMSGSIZE;
	}
	return 0;
}

/*
 * Whether a wait on op needs no thread of ours but this one: a one-sided
 * operation is answered by the peer's kernel, so when the peer is our own
 * loopback thread (rc->peer_thread) or a process on this host
 * (rc->peer_local), the spin has no one to yield to.  A write with
 * immediate is answered by the peer's thread or process.
 */
static bool one_sided_alone(const struct rd_rc *rc, enum rd_st_op op)
{
	return (rc->peer_thread || rc->peer_local) && op != RD_ST_OP_SEND &&
	       op != RD_ST_OP_WRITE_IMM;
}

/* One verified operation number seq (1..n). */
static int verify_one(struct rd_rc *rc, enum rd_st_op op, const struct rd_st_target *t,
		      uint32_t seq, uint32_t size, int timeout_ms, const volatile int *stop,
		      struct rd_st_words *w, struct rd_st_error *err)
{
	struct ibv_wc reply;
	uint64_t bad;
	long off;
	int ret;

	switch (op) {
	case RD_ST_OP_WRITE:
		rd_st_fill(src_area(rc), size, seq);
		ret = post(rc, op, t, size, 0, 0, 0, 1, err);
		if (!ret)
			ret = ask_verify(rc, size, seq, 1, timeout_ms, stop, &bad, err);
		break;
	case RD_ST_OP_WRITE_IMM:
		rd_st_fill(src_area(rc), size, seq);
		ret = post(rc, op, t, size, RD_ST_IMM(RD_ST_WPING, seq), 0, 0, 1, err);
		if (!ret)
			ret = wait_for(rc, 1, RD_ST_VERIFYR, seq, timeout_ms, stop, &reply, err);
		if (!ret)
			ret = verdict(rc, &reply, &bad, err);
		break;
	case RD_ST_OP_READ:
		memset(dst_area(rc), 0, size);
		ret = post(rc, op, t, size, 0, 0, 0, 1, err);
		if (!ret)
			ret = wait_for(rc, 1, 0, 0, timeout_ms, stop, &reply, err);
		if (ret)
			return ret;
		off = rd_st_check(dst_area(rc), size, RD_ST_READ_SEQ);
		if (off >= 0) {
			rd_st_error_set(err, "read %u: the data read differs from the peer's pattern at "
					     "offset %ld", seq, off);
			return -EBADMSG;
		}
		return 0;
	case RD_ST_OP_FADD:
		/* n adds of 1, then an add of 0 that must return the sum. */
		*result_word(rc) = ~0ull;
		ret = post(rc, op, t, 8, 0, seq ? 1 : 0, 0, 1, err);
		if (!ret)
			ret = wait_for(rc, 1, 0, 0, timeout_ms, stop, &reply, err);
		if (ret)
			return ret;
		if (!same_word(*result_word(rc), w->fadd)) {
			rd_st_error_set(err, "fetch-and-add %u returned 0x%llx, expected 0x%llx", seq,
					(unsigned long long)*result_word(rc), (unsigned long long)w->fadd);
			return -EBADMSG;
		}
		w->fadd += seq ? 1 : 0;
		return 0;
	default: {
		/* Every fourth compare is meant to fail: the word must stay. */
		bool miss = seq % 4 == 3;
		uint64_t cmp = miss ? w->cswap ^ 1 : w->cswap;
		uint64_t swp = seq ? w->cswap + CSWAP_STEP : w->cswap;

		*result_word(rc) = ~w->cswap;
		ret = post(rc, op, t, 8, 0, cmp, swp, 1, err);
		if (!ret)
			ret = wait_for(rc, 1, 0, 0, timeout_ms, stop, &reply, err);
		if (ret)
			return ret;
		uint64_t want = w->cswap;

		if (!same_word(*result_word(rc), want)) {
			rd_st_error_set(err, "compare-and-swap %u returned 0x%llx, expected 0x%llx "
					     "(the word before the %s)", seq,
					(unsigned long long)*result_word(rc), (unsigned long long)want,
					miss ? "failing compare" : "swap");
			return -EBADMSG;
		}
		if (!miss)
			w->cswap = swp;
		return 0;
	}
	}
	if (ret)
		return ret;
	if (bad != ~0ull) {
		rd_st_error_set(err, "%s %u: the peer found its memory wrong at offset %llu", rd_st_op_name(op),
				seq, (unsigned long long)bad);
		return -EBADMSG;
	}
	return 0;
}

int rd_st_op_verify(struct rd_rc *rc, enum rd_st_op op, const struct rd_st_target *t, uint32_t n,
		    uint32_t size, int timeout_ms, const volatile int *stop, struct rd_st_words *words,
		    struct rd_st_pingpong *res, struct rd_st_error *err)
{
	uint64_t t0 = rd_now_ns();
	struct alive alive;
	int ret;

	memset(res, 0, sizeof(*res));
	/* A verified WRITE asks the peer to check: it hears of each. */
	alive_init(&alive, timeout_ms, quiet_op(op) && op != RD_ST_OP_WRITE, rc);
	ret = check_target(rc, t, size, err);
	if (!ret)
		ret = alive_tick(rc, &alive, rd_now_ns(), timeout_ms, stop, err);
	for (uint32_t seq = 1; !ret && seq <= n; seq++) {
		ret = verify_one(rc, op, t, seq, size, timeout_ms, stop, words, err);
		if (!ret) {
			res->msgs++;
			ret = alive_tick(rc, &alive, rd_now_ns(), timeout_ms, stop, err);
		}
	}
	/* Atomics: one more that changes nothing and returns the word. */
	if (!ret && (op == RD_ST_OP_FADD || op == RD_ST_OP_CSWAP))
		ret = verify_one(rc, op, t, 0, size, timeout_ms, stop, words, err);
	res->ns = rd_now_ns() - t0;
	return ret;
}

/*
 * One-sided latency: one operation in flight, its completion the round trip
 * (the peer's ACK or response).  The work request is built once and each
 * completion polled on its own, so that the timed path holds the post and the
 * poll and little else, as ib_read_lat's loop does.
 */
static int lat_one_sided(struct rd_rc *rc, enum rd_st_op op, const struct rd_st_target *t, uint32_t n,
			 uint32_t size, int timeout_ms, const volatile int *stop,
			 struct rd_st_words *words, uint64_t *rtt, struct rd_st_error *err)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct alive alive;
	int ret = op_wr(rc, op, t, size, 0, op == RD_ST_OP_FADD ? 1 : words->cswap, words->cswap, 1,
			&wr, &sge, err);

	alive_init(&alive, timeout_ms, quiet_op(op), rc);
	if (!ret)
		ret = alive_tick(rc, &alive, rd_now_ns(), timeout_ms, stop, err);
	for (uint32_t i = 0; i < n && !ret; i++) {
		uint64_t t0 = rd_now_ns(), t1;
		int got;

		ret = ibv_post_send(rc->qp, &wr, &bad);
		if (ret)
			return post_failed(op, -ret, err);
		got = rd_rc_poll(rc, &wc, 1, t0 + MS(timeout_ms), stop);
		t1 = rd_now_ns();
		rtt[i] = t1 - t0;
		if (got < 0)
			return rd_st_poll_error(got, timeout_ms, "completion", err);
		if (wc.status != IBV_WC_SUCCESS) {
			rd_st_wc_error(rc, &wc, err);
			return -EIO;
		}
		if (!(wc.wr_id & RD_WR_SEND)) {
			rd_st_error_set(err, "protocol error: a message from the peer during the %s "
					     "latency stage", rd_st_op_name(op));
			return -EPROTO;
		}
		if (op == RD_ST_OP_FADD) {
			words->fadd++;
		} else if (op == RD_ST_OP_CSWAP && !same_word(*result_word(rc), words->cswap)) {
			rd_st_error_set(err, "compare-and-swap returned 0x%llx, expected 0x%llx",
					(unsigned long long)*result_word(rc),
					(unsigned long long)words->cswap);
			return -EBADMSG;
		}
		ret = alive_tick(rc, &alive, t1, timeout_ms, stop, err);
	}
	return ret;
}

int rd_st_op_latency(struct rd_rc *rc, enum rd_st_op op, const struct rd_st_target *t, uint32_t n,
		     uint32_t size, int timeout_ms, const volatile int *stop, struct rd_st_words *words,
		     struct rd_st_latency *res, struct rd_st_error *err)
{
	struct ibv_wc reply;
	uint64_t *rtt;
	int ret;

	memset(res, 0, sizeof(*res));
	res->op = (uint8_t)op;
	res->size = op == RD_ST_OP_FADD || op == RD_ST_OP_CSWAP ? 8 : size;
	if (!n)
		return 0;
	ret = check_target(rc, t, size, err);
	if (ret)
		return ret;
	rtt = calloc(n, sizeof(*rtt));
	if (!rtt) {
		rd_st_error_set(err, "out of memory for %u samples", n);
		return -ENOMEM;
	}
	rd_st_fill(src_area(rc), size, BW_SEQ);
	rc->spin_ns = RD_RC_SPIN_FOREVER;
	rc->spin_alone = one_sided_alone(rc, op);
	if (op != RD_ST_OP_WRITE_IMM)
		ret = lat_one_sided(rc, op, t, n, size, timeout_ms, stop, words, rtt, err);
	for (uint32_t i = 0; op == RD_ST_OP_WRITE_IMM && i < n && !ret; i++) {
		uint64_t t0 = rd_now_ns();

		/* The peer answers each with an empty reply: a round trip like send's. */
		ret = post(rc, op, t, size, RD_ST_IMM(RD_ST_LAT, i), 0, 0, 1, err);
		if (!ret)
			ret = wait_for(rc, 1, RD_ST_LATR, i, timeout_ms, stop, &reply, err);
		if (!ret)
			ret = repost(rc, &reply, err);
		rtt[i] = rd_now_ns() - t0;
	}
	rc->spin_ns = RD_RC_SPIN_NS;
	rc->spin_alone = false;
	if (!ret) {
		/* READ and atomics: one operation is the figure, as ib_read_lat reports it. */
		res->whole = op == RD_ST_OP_READ || op == RD_ST_OP_FADD || op == RD_ST_OP_CSWAP;
		rd_st_lat_stats(rtt, n, res);
		res->op = (uint8_t)op;
		res->size = op == RD_ST_OP_FADD || op == RD_ST_OP_CSWAP ? 8 : size;
	}
	free(rtt);
	return ret;
}

/* After a bandwidth run: what landed must be what was sent. */
static int bw_check(struct rd_rc *rc, enum rd_st_op op, const struct rd_st_target *t, uint32_t size,
		    uint64_t done, int timeout_ms, const volatile int *stop, struct rd_st_words *w,
		    struct rd_st_error *err)
{
	struct ibv_wc reply;
	uint64_t bad = ~0ull;
	long off;
	int ret = 0;

	switch (op) {
	case RD_ST_OP_WRITE:
	case RD_ST_OP_WRITE_IMM:
		ret = ask_verify(rc, size, BW_SEQ, 0, timeout_ms, stop, &bad, err);
		if (!ret && bad != ~0ull) {
			rd_st_error_set(err, "after the stream the peer found its memory wrong at "
					     "offset %llu", (unsigned long long)bad);
			ret = -EBADMSG;
		}
		return ret;
	case RD_ST_OP_READ:
		off = rd_st_check(dst_area(rc), size, RD_ST_READ_SEQ);
		if (off >= 0) {
			rd_st_error_set(err, "the data read differs from the peer's pattern at offset %ld",
					off);
			return -EBADMSG;
		}
		return 0;
	case RD_ST_OP_FADD:
		w->fadd += done;
		*result_word(rc) = ~0ull;
		ret = post(rc, op, t, 8, 0, 0, 0, 1, err);
		if (!ret)
			ret = wait_for(rc, 1, 0, 0, timeout_ms, stop, &reply, err);
		if (!ret && !same_word(*result_word(rc), w->fadd)) {
			rd_st_error_set(err, "after %llu adds the word is 0x%llx, expected 0x%llx",
					(unsigned long long)done, (unsigned long long)*result_word(rc),
					(unsigned long long)w->fadd);
			ret = -EBADMSG;
		}
		return ret;
	default:
		if (!same_word(*result_word(rc), w->cswap)) {
			rd_st_error_set(err, "compare-and-swap returned 0x%llx, expected 0x%llx",
					(unsigned long long)*result_word(rc), (unsigned long long)w->cswap);
			return -EBADMSG;
		}
		return 0;
	}
}

/*
 * The bandwidth stage's stream: n operations (or until deadline_run), at most
 * window in flight, one signaled in sig.  *sent and *done count them.
 */
static int stream(struct rd_rc *rc, enum rd_st_op op, const struct rd_st_target *t, uint32_t size,
		  uint32_t window, uint64_t n, uint64_t deadline_run, int timeout_ms,
		  const volatile int *stop, const struct rd_st_words *words, uint64_t *sent_out,
		  uint64_t *done_out, struct rd_st_error *err)
{
	unsigned int inflight = 0, sig = window >= 16 ? window / 8 : 1, unsignaled = 0;
	uint64_t sent = 0, done = 0;
	struct ibv_wc wc[32];
	struct alive alive;
	int ret = 0;

	alive_init(&alive, timeout_ms, quiet_op(op), rc);
	for (;;) {
		uint64_t now = rd_now_ns();
		bool more = n ? sent < n : now < deadline_run;

		/* Its window leaves a send free: the keep-alive travels among the operations. */
		if (more && !alive.due && now >= alive.next) {
			ret = alive_post(rc, &alive, err);
			if (ret)
				goto out;
		}

		while (more && inflight < window) {
			bool last;

			sent++;
			more = n ? sent < n : rd_now_ns() < deadline_run;
			last = !more || inflight + 1 == window;
			unsignaled++;
			ret = post(rc, op, t, size, RD_ST_IMM(RD_ST_BW, sent - 1),
				   op == RD_ST_OP_FADD ? 1 : words->cswap, words->cswap,
				   unsignaled >= sig || last ? unsignaled : 0, err);
			if (ret)
				goto out;
			if (unsignaled >= sig || last)
				unsignaled = 0;
			inflight++;
		}
		if (!inflight && !alive.due)
			break;
		int got = rd_rc_poll(rc, wc, 32, rd_now_ns() + MS(timeout_ms), stop);

		if (got < 0) {
			ret = rd_st_poll_error(got, timeout_ms, inflight ? "completion" : "reply", err);
			goto out;
		}
		for (int i = 0; i < got; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				rd_st_wc_error(rc, &wc[i], err);
				ret = -EIO;
				goto out;
			}
			ret = alive_wc(rc, &alive, &wc[i], now, err);
			if (ret < 0)
				goto out;
			if (ret) {
				ret = 0;
				continue;
			}
			unsigned int c = RD_WR_COVERS(wc[i].wr_id);

			inflight -= c <= inflight ? c : inflight;
			done += c;
		}
	}
out:
	rc->spin_alone = alive.spin_alone;
	*sent_out = sent;
	*done_out = done;
	return ret;
}

int rd_st_op_bandwidth(struct rd_rc *rc, enum rd_st_op op, const struct rd_st_target *t,
		       uint32_t size, uint32_t window, uint64_t n, uint32_t duration_ms, int timeout_ms,
		       const volatile int *stop, struct rd_st_words *words, struct rd_st_bandwidth *res,
		       struct rd_st_error *err)
{
	bool atomic = op == RD_ST_OP_FADD || op == RD_ST_OP_CSWAP;
	uint64_t t0, t_end, sent = 0, done = 0, deadline_run;
	struct ibv_wc reply;
	int ret;

	memset(res, 0, sizeof(*res));
	res->op = (uint8_t)op;
	res->size = atomic ? 8 : size;
	ret = check_target(rc, t, size, err);
	if (ret)
		return ret;
	if (window > rc->nsend - 1)
		window = rc->nsend - 1;
	if (!window)
		window = 1;
	rd_st_fill(src_area(rc), size, BW_SEQ);
	memset(dst_area(rc), 0, size);
	t0 = rd_now_ns();
	deadline_run = duration_ms ? t0 + MS(duration_ms) : UINT64_MAX;
	rc->spin_alone = one_sided_alone(rc, op);
	ret = stream(rc, op, t, size, window, n, deadline_run, timeout_ms, stop, words, &sent, &done,
		     err);
	rc->spin_alone = false;
	if (ret)
		return ret;
	t_end = rd_now_ns();
	res->msgs = done;
	res->bytes = done * res->size;
	if (op == RD_ST_OP_WRITE_IMM) {
		/* The peer counted the immediates: its count is the figure. */
		uint64_t rep[4];

		ret = rd_rc_post_send(rc, rc->nrecv, 0, RD_ST_IMM(RD_ST_BWEND, sent));
		if (ret) {
			rd_st_error_set(err, "cannot post a send: %s", strerror(-ret));
			return ret;
		}
		ret = wait_for(rc, 1, RD_ST_BWREP, (uint32_t)sent, timeout_ms, stop, &reply, err);
		if (ret)
			return ret;
		if (reply.byte_len != sizeof(rep)) {
			rd_st_error_set(err, "protocol error: bandwidth report of %u bytes", reply.byte_len);
			return -EPROTO;
		}
		memcpy(rep, rd_rc_slot(rc, RD_WR_SLOT(reply.wr_id)), sizeof(rep));
		ret = repost(rc, &reply, err);
		if (ret)
			return ret;
		res->msgs = be64toh(rep[0]);
		res->bytes = be64toh(rep[1]);
		res->lost = be64toh(rep[2]);
		res->reordered = be64toh(rep[3]);
		if (res->msgs != done || res->lost || res->reordered) {
			rd_st_error_set(err, "the receiver counted %llu of %llu writes with immediate "
					     "(%llu lost, %llu out of order)",
					(unsigned long long)res->msgs, (unsigned long long)done,
					(unsigned long long)res->lost, (unsigned long long)res->reordered);
			return -EBADMSG;
		}
	}
	res->seconds = (double)(t_end - t0) / 1e9;
	if (res->seconds > 0) {
		res->gbps = (double)res->bytes * 8 / res->seconds / 1e9;
		res->mpps = (double)res->msgs / res->seconds / 1e6;
	}
	return bw_check(rc, op, t, size, done, timeout_ms, stop, words, err);
}

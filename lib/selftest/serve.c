// SPDX-License-Identifier: MIT
/*
 * The serving side of the self-test protocol (stages.h): answer a client's
 * pings, latency messages, bandwidth ends and verify requests until its
 * goodbye, silence, or the end of its connection (the exchange socket, or
 * its rdma_cm connection).
 */
#define _GNU_SOURCE
#include "stages.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

#define MS(x) ((uint64_t)(x) * 1000000ull)

/* UD: answer the goodbye and wait for the answer to leave (a datagram's send completion). */
static int bye_reply(struct rd_rc *rc, unsigned int slot, uint32_t seq, int idle_ms,
		     struct rd_st_error *err)
{
	uint64_t deadline = rd_now_ns() + MS(idle_ms);
	struct ibv_wc wc[16];
	int ret = rd_rc_post_send(rc, slot, 0, RD_ST_IMM(RD_ST_BYE, seq));

	if (ret) {
		rd_st_error_set(err, "cannot post a reply: %s", strerror(-ret));
		return ret;
	}
	for (;;) {
		int n = rd_rc_poll(rc, wc, 16, deadline, NULL);

		if (n < 0)
			return rd_st_poll_error(n, idle_ms, "send completion", err);
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				rd_st_wc_error(rc, &wc[i], err);
				return -EIO;
			}
			if ((wc[i].wr_id & RD_WR_SEND) && RD_WR_SLOT(wc[i].wr_id) == slot)
				return 0;
		}
	}
}

int rd_st_serve(struct rd_rc *rc, int idle_ms, const volatile int *stop, struct rd_st_error *err,
		uint64_t *msgs)
{
	uint64_t idle_end = rd_now_ns() + MS(idle_ms);
	unsigned int inflight = 0, next_send = 0;
	uint64_t expect_bw = 0, bw_msgs = 0, bw_bytes = 0, lost = 0, reordered = 0, last_rep[4];
	uint32_t last_end = 0;
	bool have_last = false;
	struct ibv_wc wc[16];
	int ret;

	*msgs = 0;
	for (;;) {
		/* In slices of 250 ms, to notice a silence (below). */
		uint64_t slice = rd_now_ns() + MS(250);
		int n = rd_rc_poll(rc, wc, 16, slice < idle_end ? slice : idle_end, stop);

		if (n == -ETIMEDOUT && rd_now_ns() < idle_end) {
			/*
			 * 250 ms of silence: no round trip of the client is under
			 * way (a READ or write stage, a paused or gone client).
			 * Sleep at once until its next message, which sets the spin
			 * again: the CPU is left to this host's kernel, which
			 * serves the client's READs and WRITEs.
			 */
			rc->spin_ns = 0;
			continue;
		}
		if (n == -ECONNRESET) {
			/* What came just before the close is served first. */
			rc->watch = false;
			n = rd_rc_poll(rc, wc, 16, rd_now_ns(), stop);
			if (n == -ETIMEDOUT) {
				rd_st_error_set(err, "the client %s: it gave up or ended (its own "
						     "output says why)", rc->watch_socket ?
						"closed its exchange connection" : "disconnected");
				return -ECONNRESET;
			}
			rc->watch = true;	/* still closed: back here once these are served */
		}
		if (n < 0)
			return rd_st_poll_error(n, idle_ms, "message from the client", err);
		idle_end = rd_now_ns() + MS(idle_ms);
		for (int i = 0; i < n; i++) {
			uint32_t imm, type, seq, len;
			unsigned int slot = RD_WR_SLOT(wc[i].wr_id);
			uint32_t reply = 0, reply_len = 0;
			uint8_t *rbuf;

			if (wc[i].status != IBV_WC_SUCCESS) {
				rd_st_wc_error(rc, &wc[i], err);
				return -EIO;
			}
			if (wc[i].wr_id & RD_WR_SEND) {
				if (inflight)
					inflight--;
				continue;
			}
			if (!(wc[i].wc_flags & IBV_WC_WITH_IMM) || slot >= rc->nrecv) {
				rd_st_error_set(err, "protocol error: a message without a type");
				return -EPROTO;
			}
			imm = be32toh(wc[i].imm_data);
			type = RD_ST_TYPE(imm);
			rc->spin_ns = RD_RC_SPIN_NS;
			seq = RD_ST_SEQ(imm);
			len = wc[i].byte_len;
			rbuf = rd_rc_slot(rc, slot);
			/* A write with immediate: the data is in the write area, not in rbuf. */
			bool wimm = wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM;
			(*msgs)++;
			switch (type) {
			case RD_ST_PING:
				/* Echo as received: the client checks both directions. */
				reply = RD_ST_IMM(RD_ST_PONG, seq);
				reply_len = len;
				/* A keep-alive: no round trip of the client follows. */
				if (seq >= RD_ST_ALIVE_SEQ)
					rc->spin_ns = 0;
				break;
			case RD_ST_LAT:
				reply = RD_ST_IMM(RD_ST_LATR, seq);
				reply_len = wimm ? 0 : len;
				/* The client times our answers: no sleeping until it stops. */
				rc->spin_ns = RD_RC_SPIN_FOREVER;
				break;
			case RD_ST_BW:
				if (seq != (uint32_t)(expect_bw & 0x0fffffff)) {
					if (seq > (expect_bw & 0x0fffffff)) {
						lost += seq - (expect_bw & 0x0fffffff);
						expect_bw = seq + 1;
					} else {
						reordered++;
					}
				} else {
					expect_bw++;
				}
				bw_msgs++;
				bw_bytes += len;
				break;
			case RD_ST_BWEND: {
				uint64_t rep[4] = { htobe64(bw_msgs), htobe64(bw_bytes), htobe64(lost),
						    htobe64(reordered) };

				/* UD: a copy of the end we answered (our report was lost): the same report. */
				if (rc->ud && have_last && seq == last_end)
					memcpy(rep, last_rep, sizeof(rep));
				reply = RD_ST_IMM(RD_ST_BWREP, seq);
				reply_len = sizeof(rep);
				memcpy(rd_rc_slot(rc, rc->nrecv + next_send), rep, sizeof(rep));
				memcpy(last_rep, rep, sizeof(rep));
				last_end = seq;
				have_last = true;
				bw_msgs = bw_bytes = lost = reordered = expect_bw = 0;
				break;
			}
			case RD_ST_VERIFY:
			case RD_ST_WPING: {
				uint32_t v[2] = { 0, 0 };
				uint64_t bad;

				if (type == RD_ST_VERIFY && len == sizeof(v)) {
					memcpy(v, rbuf, sizeof(v));
					v[0] = be32toh(v[0]);
					v[1] = be32toh(v[1]);
				} else if (type == RD_ST_WPING && wimm) {
					v[0] = len;
					v[1] = seq;
				} else {
					rd_st_error_set(err, "protocol error: a malformed verify request");
					return -EPROTO;
				}
				if (!rc->extra || v[0] > rc->slot_size) {
					rd_st_error_set(err, "protocol error: verify of %u bytes beyond the "
							     "write area", v[0]);
					return -EPROTO;
				}
				long off = rd_st_check(rc->extra, v[0], v[1]);

				bad = htobe64(off < 0 ? ~0ull : (uint64_t)off);
				reply = RD_ST_IMM(RD_ST_VERIFYR, seq);
				reply_len = sizeof(bad);
				memcpy(rd_rc_slot(rc, rc->nrecv + next_send), &bad, sizeof(bad));
				break;
			}
			case RD_ST_BYE:
				/* UD: the goodbye is answered, or the client could not know it arrived. */
				if (rc->ud)
					return bye_reply(rc, rc->nrecv + next_send, seq, idle_ms, err);
				return 0;
			default:
				rd_st_error_set(err, "protocol error: unknown message type %u", type);
				return -EPROTO;
			}
			if (reply) {
				if (inflight >= rc->nsend) {
					rd_st_error_set(err, "protocol error: the client does not wait for replies");
					return -EPROTO;
				}
				if ((type == RD_ST_PING || type == RD_ST_LAT) && !wimm) {
					if (reply_len > rc->slot_size)
						reply_len = (uint32_t)rc->slot_size;
					memcpy(rd_rc_slot(rc, rc->nrecv + next_send), rbuf, reply_len);
				}
				ret = rd_rc_post_send(rc, rc->nrecv + next_send, reply_len, reply);
				if (ret) {
					rd_st_error_set(err, "cannot post a reply: %s", strerror(-ret));
					return ret;
				}
				inflight++;
				next_send = (next_send + 1) % rc->nsend;
			}
			ret = rd_rc_post_recv(rc, slot);
			if (ret) {
				rd_st_error_set(err, "cannot repost a receive: %s", strerror(-ret));
				return ret;
			}
		}
	}
}


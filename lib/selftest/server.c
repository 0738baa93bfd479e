// SPDX-License-Identifier: MIT
/*
 * Server driver: rdma_cm and --verbs (TCP exchange) clients, one after
 * another.  Every wait has a deadline, a bad or silent client is logged and
 * dropped, and nothing a client sends can make the server exceed its limits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cm.h"
#include "ctrs.h"
#include "engine.h"
#include "local.h"
#include "oob.h"
#include "run.h"
#include "base/base.h"

/* After a session: one log line when a counter that signals trouble moved on the port. */
static void log_counters(struct rd_st_ctrs *c, const struct rd_st_hooks *h, const char *who,
			 const char *dev, unsigned int port)
{
	struct rd_st_ctr_report r;
	char words[512];

	rd_st_ctrs_end(c, &r);
	if (r.ncounters && rd_st_ctr_words(&r, dev, port, words, sizeof(words)))
		rd_st_log(h, "%s: counters: %s", who, words);
}

static uint64_t deadline(const struct rd_st_config *cfg)
{
	return rd_now_ns() + (uint64_t)cfg->timeout_ms * 1000000;
}

/* One pending rdma_cm client: 0 served, 1 failed, -1 nothing pending. */
static int serve_cm(const struct rd_st_config *cfg, const struct rd_sysroot *sr,
		    struct rd_cm_listener *l, const struct rd_st_hooks *h)
{
	struct rd_st_ctrs ctr = { .open = false };
	char who[96];
	struct rd_cm_conn c;
	struct rd_cm_info info;
	struct rd_st_params prm = { 0 };
	struct rd_cm_error err = { 0 };
	struct rd_st_error serr = { 0 };
	uint64_t msgs;
	int ret;

	ret = rd_cm_accept(l, rd_now_ns() + 10000000ull, cfg->timeout_ms, cfg->deny, &c, &info, &prm,
			   &err);
	if (ret == -EAGAIN)
		return -1;
	if (ret) {
		rd_st_log(h, "rdma_cm client: %s", err.what);
		return 1;
	}
	rd_st_log(h, "rdma_cm client %s: connected on %s port %u GID %d, QPN 0x%x, size <= %u, window %u",
		  info.peer_addr, info.dev, info.port, info.gid_index, info.qpn, prm.max_size,
		  prm.window);
	if (!cfg->no_counters)
		(void)rd_st_ctrs_start(&ctr, sr, info.dev, info.port);	/* none: no counters line */
	/* The session's own rdma_cm channel: the client's disconnect ends it at once. */
	if (c.ch)
		rd_rc_watch(&c.rc, c.ch->fd, false);
	ret = rd_st_serve(&c.rc, cfg->timeout_ms, cfg->stop, &serr, &msgs);
	if (ret)
		rd_st_log(h, "rdma_cm client %s: session failed after %llu messages: %s", info.peer_addr,
			  (unsigned long long)msgs, serr.what);
	else
		rd_st_log(h, "rdma_cm client %s: done, %llu messages", info.peer_addr,
			  (unsigned long long)msgs);
	snprintf(who, sizeof(who), "rdma_cm client %s", info.peer_addr);
	log_counters(&ctr, h, who, info.dev, info.port);
	rd_cm_close(&c);
	return ret ? 1 : 0;
}

/* A REJECT in the client's version when we can write it (1 to ours), so that it can show why. */
void rd_st_bringup_reason(int err, char *why, size_t why_len)
{
	snprintf(why, why_len, "server QP bring-up failed: %s%s", strerror(-err),
		 rd_rc_transient(err) ? RD_OOB_RETRY : "");
}

static void oob_reject(int fd, const char *why, uint16_t version)
{
	struct rd_oob_msg m = {
		.version = version >= 1 && version <= RD_OOB_VERSION ? version : RD_OOB_VERSION,
		.type = RD_OOB_REJECT,
	};
	uint8_t buf[RD_OOB_LEN];
	size_t len;

	rd_strlcpy(m.reason, why, sizeof(m.reason));
	len = rd_oob_encode(&m, buf);
	(void)rd_tcp_send_all(fd, buf, len, rd_now_ns() + 1000000000ull);
}

/*
 * After a REJECT sent before the client's whole message was read: say we are
 * done, then read and drop what it still sends (at most 1 s, 64 KiB), so that
 * closing with unread data does not reset the connection before the client
 * has read the REJECT.
 */
static void drain_after_reject(int fd)
{
	uint64_t end = rd_now_ns() + 1000000000ull;
	uint8_t sink[1024];
	size_t total = 0;

	(void)shutdown(fd, SHUT_WR);
	while (total < 65536) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = rd_now_ns();
		ssize_t n;

		if (now >= end || poll(&p, 1, (int)((end - now) / 1000000) + 1) <= 0)
			break;
		n = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);
		if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR)))
			break;
		total += n > 0 ? (size_t)n : 0;
	}
}

/*
 * One pending --verbs client: 0 served, 1 failed, -1 none pending, -2 failed
 * before its first message (maybe a client that gave up waiting while
 * another was served, or one refused with RD_OOB_RETRY: it comes again, not
 * one that counts for max_clients).
 */
static int serve_verbs(const struct rd_st_config *cfg, int lfd, const struct rd_sysroot *sr,
		       const struct rd_device_list *list, const struct rd_st_hooks *h)
{
	struct rd_st_ctrs ctr = { .open = false };
	struct sockaddr_storage local = { 0 };
	socklen_t sl = sizeof(local);
	struct rd_oob_msg m, reply;
	struct rd_st_target tgt;
	struct rd_st_params prm = { 0 };
	struct rd_st_local lp;
	struct rd_rc rc = { 0 };
	struct rd_rc_endpoint me, them;
	struct rd_st_error serr = { 0 };
	struct ibv_context *ctx = NULL;
	uint8_t buf[RD_OOB_LEN];
	char peer[64] = "?", why[200] = "";
	unsigned int nrecv, nsend;
	size_t slot, len = 0;
	uint64_t msgs;
	bool ud = false;
	int fd, ret, status = 1;

	fd = rd_tcp_accept(lfd, rd_now_ns() + 10000000ull, peer, sizeof(peer));
	if (fd == -EAGAIN)
		return -1;
	if (fd < 0)
		return 1;
	/* A half-open or silent client gets --timeout, then the next one is served. */
	ret = rd_oob_recv(fd, buf, &len, deadline(cfg));
	if (ret == -EPROTONOSUPPORT) {
		char r[64];

		snprintf(r, sizeof(r), "server speaks exchange version %d, client %u", RD_OOB_VERSION,
			 rd_oob_hdr_version(buf));
		rd_st_log(h, "verbs client %s: rejected: peer speaks exchange version %u, this side "
			  "speaks %d", peer, rd_oob_hdr_version(buf), RD_OOB_VERSION);
		oob_reject(fd, r, RD_OOB_VERSION);
		drain_after_reject(fd);
		goto out;
	}
	if (ret) {
		rd_st_log(h, "verbs client %s: %s", peer,
			  ret == -ETIMEDOUT ? "incomplete exchange message (timed out); dropped" :
			  ret == -ECONNRESET ? "closed before a whole exchange message; dropped" :
					       strerror(-ret));
		goto out;
	}
	ret = rd_oob_decode(buf, len, &m, why, sizeof(why));
	if (ret || m.type != RD_OOB_HELLO) {
		rd_st_log(h, "verbs client %s: rejected: %s", peer, ret ? why : "not a HELLO");
		if (ret == -EPROTONOSUPPORT) {
			char r[64];

			snprintf(r, sizeof(r), "server speaks exchange version %d, client %u",
				 RD_OOB_VERSION, (unsigned int)m.version);
			oob_reject(fd, r, RD_OOB_VERSION);
		}
		goto out;
	}
	prm.max_size = m.max_size;
	prm.window = m.window;
	prm.ud = m.qp_type == RD_OOB_QP_UD;
	prm.iters = m.iters;
	if (rd_st_params_check(&prm, why, sizeof(why))) {
		rd_st_log(h, "verbs client %s: rejected: %s", peer, why);
		oob_reject(fd, why, m.version);
		goto out;
	}
	/*
	 * The port the client named (a mesh rail), else the one that owns the
	 * address the client reached us on, unless -d/-x say.
	 */
	if (getsockname(fd, (struct sockaddr *)&local, &sl) < 0)
		local.ss_family = AF_UNSPEC;	/* no port owns it: rejected below */
	if (m.version >= RD_OOB_VERSION_DEV && m.dev[0]) {
		ret = rd_st_port_named(list, sr, m.dev, m.port, cfg->gid_index, &lp, why,
				       sizeof(m.reason));
		if (ret) {
			rd_st_log(h, "verbs client %s: rejected: %s", peer, why);
			oob_reject(fd, why, m.version);
			goto out;
		}
	} else if (cfg->gid_index >= 0 && list->n && list->v[0].nports)
		ret = rd_st_pick_gid(sr, &list->v[0], &list->v[0].ports[0], cfg->gid_index, &lp);
	else
		ret = rd_st_port_for_addr(&local, list, sr, &lp);
	if (ret) {
		rd_st_log(h, "verbs client %s: no local RDMA port owns the address it connected to", peer);
		oob_reject(fd, "server: no RDMA port owns this address", m.version);
		goto out;
	}
	if (rd_st_gid_mismatch(m.gid_kind, m.gid, &lp, why, sizeof(m.reason))) {
		rd_st_log(h, "verbs client %s: rejected: %s", peer, why);
		oob_reject(fd, why, m.version);
		goto out;
	}
	ctx = rd_st_open_device(lp.dev, why, sizeof(why));
	rd_st_slots(&prm, &nrecv, &nsend, &slot);
	ud = m.qp_type == RD_OOB_QP_UD;
	if (!ctx ||
	    (ud ? rd_rc_alloc_ud(&rc, ctx, lp.port, slot, nrecv, nsend) :
		  rd_rc_alloc_ex(&rc, ctx, lp.port, slot, nrecv, nsend, rd_st_target_len(slot),
				 rd_st_target_access(cfg->deny))) ||
	    rd_rc_create_qp(&rc) ||
	    rd_rc_local(&rc, lp.gid_index, &me)) {
		rd_st_log(h, "verbs client %s: cannot set up a QP: %s", peer, why[0] ? why : strerror(errno));
		oob_reject(fd, "server cannot create a QP", m.version);
		goto out;
	}
	rd_st_endpoint_from(&m, &them);
	/* Ready (RTS, receives posted) before the client may send. */
	ret = rd_rc_connect(&rc, &me, &them, &cfg->rc, NULL);
	if (ret) {
		/*
		 * RTR resolves the client's address: on a fabric still learning
		 * it (ARP under load) the same HELLO may succeed in a moment,
		 * and the reason says so (a mesh client tries again).
		 */
		rd_st_log(h, "verbs client %s: QP bring-up failed: %s", peer, strerror(-ret));
		rd_st_bringup_reason(ret, why, sizeof(why));
		oob_reject(fd, why, m.version);
		if (rd_rc_transient(ret))
			status = -2;	/* it comes again: not one that counts */
		goto out;
	}
	if (rd_st_post_receives(&rc, &serr)) {
		rd_st_log(h, "verbs client %s: QP bring-up failed: %s", peer, serr.what);
		oob_reject(fd, "server QP bring-up failed: cannot post receives", m.version);
		goto out;
	}
	if (cfg->rc.mtu && cfg->rc.mtu < me.mtu)
		me.mtu = cfg->rc.mtu;	/* --mtu: offered, so both sides choose the same */
	rd_st_hello(&reply, RD_OOB_ACCEPT, &me, &lp, &prm);
	rd_st_target_init(&rc, &tgt);
	reply.rkey = tgt.rkey;
	reply.addr = tgt.addr;
	reply.area_len = tgt.len;
	reply.version = m.version;	/* a version 1 client reads 112 bytes */
	rd_strlcpy(reply.dev, lp.dev, sizeof(reply.dev));	/* version 4: the rail it got */
	reply.port = lp.port;
	len = rd_oob_encode(&reply, buf);
	if (rd_tcp_send_all(fd, buf, len, deadline(cfg))) {
		rd_st_log(h, "verbs client %s: gone before the reply", peer);
		status = -2;
		goto out;
	}
	/* One line per client event: an older client's version goes on its accept line. */
	rd_st_log(h, "verbs client %s: %s port %u GID %d (%s), %sQPN 0x%x <-> 0x%x%s", peer, lp.dev,
		  lp.port, lp.gid_index, rd_st_kind_name(rd_st_gid_kind(&lp)), ud ? "UD " : "", me.qpn,
		  them.qpn, m.version == 1 ? " (exchange version 1, an older rdma-selftest: send "
					     "only; answered in its version)" : "");
	if (!cfg->no_counters)
		(void)rd_st_ctrs_start(&ctr, sr, lp.dev, lp.port);	/* none: no counters line */
	/* The exchange's socket stays open while the client runs: its close ends the session. */
	rd_rc_watch(&rc, fd, true);
	ret = rd_st_serve(&rc, cfg->timeout_ms, cfg->stop, &serr, &msgs);
	if (ret)
		rd_st_log(h, "verbs client %s: session failed after %llu messages: %s", peer,
			  (unsigned long long)msgs, serr.what);
	else if (rc.stray)
		rd_st_log(h, "verbs client %s: done, %llu messages, %llu datagrams from other QPs "
			  "dropped", peer, (unsigned long long)msgs, (unsigned long long)rc.stray);
	else
		rd_st_log(h, "verbs client %s: done, %llu messages", peer, (unsigned long long)msgs);
	snprintf(why, sizeof(why), "verbs client %s", peer);
	log_counters(&ctr, h, why, lp.dev, lp.port);
	/*
	 * Failed before its first message: a client that gave up waiting (its
	 * HELLO sat in the backlog while another was served) and may come again,
	 * or one that failed on its side.  Either way not one that counts.
	 */
	status = ret ? (msgs ? 1 : -2) : 0;
out:
	close(fd);
	rd_rc_free(&rc);
	if (ctx)
		ibv_close_device(ctx);
	return status;
}

int rd_st_server(const struct rd_st_config *cfg, const struct rd_sysroot *sr,
		 const struct rd_device_list *list, const struct rd_st_hooks *h, char *why,
		 size_t why_len)
{
	struct rd_cm_listener l;
	struct rd_cm_error err = { 0 };
	unsigned int served = 0;
	int lfd, ret, status = 0;

	ret = rd_cm_listen(cfg->bind, cfg->service_port, cfg->rc.tclass, &l, &err);
	if (ret) {
		rd_strlcpy(why, err.what, why_len);
		return ret < 0 ? ret : -EIO;
	}
	lfd = rd_tcp_listen(cfg->bind, cfg->service_port, why, why_len);
	if (lfd < 0) {
		rd_cm_listener_close(&l);
		return lfd;
	}
	rd_st_log(h, "serving on %s port %u (rdma_cm and TCP for --verbs); Ctrl-C to stop",
		  cfg->bind ? cfg->bind : "every address", cfg->service_port);
	while (!*cfg->stop) {
		struct pollfd p[2] = { { .fd = rd_cm_listener_fd(&l), .events = POLLIN },
				       { .fd = lfd, .events = POLLIN } };
		int n = poll(p, 2, 1000), r = -1;

		if (n <= 0)
			continue;
		if (p[0].revents)
			r = serve_cm(cfg, sr, &l, h);
		if (p[1].revents)
			r = serve_verbs(cfg, lfd, sr, list, h);
		if (r == -2)
			r = cfg->once ? 1 : -1;	/* --once: that client was the one */
		if (cfg->once && r >= 0) {
			status = r;
			break;
		}
		if (r >= 0 && cfg->max_clients && ++served >= cfg->max_clients)
			break;
	}
	rd_st_log(h, "stopped");
	close(lfd);
	rd_cm_listener_close(&l);
	return status;
}

// SPDX-License-Identifier: MIT
/*
 * Multicast driver (--mcast GROUP): like rdma-core's mckey, a UD QP joins the
 * group through rdma_cm; a sender sends numbered, patterned datagrams and end
 * markers, each receiver tallies every sender's run (received, lost,
 * duplicates, corrupted, out of order).  Every wait has a deadline.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cm.h"
#include "engine.h"
#include "run.h"
#include "base/base.h"

#define MS(x) ((uint64_t)(x) * 1000000ull)
#define MC_RECV 512u		/* receives kept posted, as a UD receiver's */
#define MC_WINDOW 16u		/* sends in flight */
#define MC_ENDS 3		/* end markers, 20 ms apart: one may be lost */
#define MC_MAX_SEQ (1u << 28)	/* the 28 bits of a message number */

struct mc {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct rd_rc rc;
	bool have_rc, joined;
	struct sockaddr_storage group;
};

static double ms_since(uint64_t t0)
{
	return (double)(rd_now_ns() - t0) / 1e6;
}

static void mc_close(struct mc *m)
{
	if (m->joined)
		(void)rdma_leave_multicast(m->id, (struct sockaddr *)&m->group);
	m->joined = false;
	if (m->id && m->id->qp)
		rdma_destroy_qp(m->id);
	m->rc.qp = NULL;
	if (m->have_rc)
		rd_rc_free(&m->rc);
	m->have_rc = false;
	if (m->id)
		rdma_destroy_id(m->id);
	m->id = NULL;
	if (m->ch)
		rdma_destroy_event_channel(m->ch);
	m->ch = NULL;
}

static int parse_host(const char *host, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *res;

	if (getaddrinfo(host, NULL, &hints, &res))
		return -EINVAL;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

static bool is_multicast(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return IN_MULTICAST(ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr));
	return ss->ss_family == AF_INET6 &&
	       IN6_IS_ADDR_MULTICAST(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/*
 * Without --bind and without a route for the group, the source is the
 * host's one address on an RDMA netdev, if it has exactly one of the group's
 * family (IPv6: global ones): rdma_bind_addr() to an address succeeds only
 * where an RDMA device serves its netdev, so the kernel says which they are.
 * Returns how many there are; the first in *src (its netdev in ifname), and
 * all of them, "ADDR (IF)" comma-separated, in list.
 */
static unsigned int rdma_sources(int family, struct sockaddr_storage *src, char *ifname,
				 size_t iflen, char *list, size_t list_len)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct ifaddrs *ifs = NULL;
	unsigned int n = 0;
	size_t used = 0;

	list[0] = '\0';
	if (!ch)
		return 0;
	if (getifaddrs(&ifs)) {
		rdma_destroy_event_channel(ch);
		return 0;
	}
	for (struct ifaddrs *a = ifs; a; a = a->ifa_next) {
		struct rdma_cm_id *id = NULL;
		char addr[64] = "";
		bool rdma;

		if (!a->ifa_addr || a->ifa_addr->sa_family != family || (a->ifa_flags & IFF_LOOPBACK))
			continue;
		if (family == AF_INET6 &&
		    IN6_IS_ADDR_LINKLOCAL(&((const struct sockaddr_in6 *)a->ifa_addr)->sin6_addr))
			continue;
		if (rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
			continue;
		rdma = rdma_bind_addr(id, a->ifa_addr) == 0 && id->verbs;
		rdma_destroy_id(id);
		if (!rdma)
			continue;
		if (n++ == 0) {
			memcpy(src, a->ifa_addr, family == AF_INET ? sizeof(struct sockaddr_in) :
								     sizeof(struct sockaddr_in6));
			rd_strlcpy(ifname, a->ifa_name, iflen);
		}
		rd_cm_addr_str(a->ifa_addr, addr, sizeof(addr));
		if (used < list_len) {
			int w = snprintf(list + used, list_len - used, "%s%s (%s)", used ? ", " : "", addr,
					 a->ifa_name);

			used += w > 0 ? (size_t)w : 0;
		}
	}
	freeifaddrs(ifs);
	rdma_destroy_event_channel(ch);
	return n;
}

/* rdma_resolve_addr of the group from src (NULL: as routed); why says what failed. */
static int mc_resolve(const struct rd_st_config *cfg, struct mc *m, struct sockaddr *src,
		      uint64_t t0, struct rdma_cm_event **ev, char *why, size_t why_len)
{
	int ret;

	*ev = NULL;
	if (!m->ch) {
		m->ch = rdma_create_event_channel();
		if (!m->ch || rd_cm_nonblock(m->ch)) {
			ret = errno ? -errno : -EIO;
			snprintf(why, why_len, "rdma_cm: %s (is rdma_ucm loaded, /dev/infiniband/rdma_cm there?)",
				 strerror(-ret));
			return ret;
		}
	}
	if (m->id)
		rdma_destroy_id(m->id);
	m->id = NULL;
	if (rdma_create_id(m->ch, &m->id, NULL, RDMA_PS_UDP)) {
		ret = errno ? -errno : -EIO;
		snprintf(why, why_len, "rdma_cm: %s (is rdma_ucm loaded, /dev/infiniband/rdma_cm there?)",
			 strerror(-ret));
		return ret;
	}
	/* An error at once (no route, no device) or as an event (or none in time). */
	if (rdma_resolve_addr(m->id, src, (struct sockaddr *)&m->group, cfg->timeout_ms)) {
		ret = errno ? -errno : -EIO;
		snprintf(why, why_len, "rdma_resolve_addr: %s", strerror(-ret));
		return ret;
	}
	if ((ret = rd_cm_next_event(m->ch, t0 + MS(cfg->timeout_ms) + MS(1000), ev))) {
		snprintf(why, why_len, "no answer from rdma_cm: %s", strerror(-ret));
		return ret;
	}
	snprintf(why, why_len, "%s (status %d)", rd_cm_ev_name((*ev)->event), (*ev)->status);
	if ((*ev)->event != RDMA_CM_EVENT_ADDR_RESOLVED) {
		rdma_ack_cm_event(*ev);
		*ev = NULL;
		return -EHOSTUNREACH;
	}
	return 0;
}

/*
 * The address stage (resolve the group from --bind's interface), the UD QP
 * on the device rdma_cm chose (receives posted for a receiver), the join
 * stage.  True when joined, with the address handle to the group in m->rc.
 */
static bool mc_join(const struct rd_st_config *cfg, const struct rd_st_hooks *h,
		    struct rd_st_run *run, struct mc *m, bool receiver)
{
	struct sockaddr_storage src = { 0 };
	struct rd_st_params prm = { .max_size = rd_st_max_size(cfg), .window = MC_WINDOW,
				    .iters = cfg->iters, .ud = true };
	struct ibv_qp_init_attr qa;
	struct rdma_cm_event *ev = NULL;
	struct rd_st_error perr;
	unsigned int nrecv, nsend;
	char local[64] = "", why[160], picked[160] = "";
	union ibv_gid mgid;
	size_t slot;
	uint64_t t0 = rd_now_ns();
	int ret;

	rd_strlcpy(run->group, cfg->mcast, sizeof(run->group));
	if (parse_host(cfg->mcast, &m->group) || !is_multicast(&m->group)) {
		rd_st_stage_add(run, h, "address", false, 0, NULL,
				"%s is not a multicast address (IPv4 224.0.0.0/4, as 239.1.1.1, or "
				"IPv6 ff00::/8)", cfg->mcast);
		return false;
	}
	if (cfg->bind && parse_host(cfg->bind, &src)) {
		rd_st_stage_add(run, h, "address", false, 0, NULL,
				"--bind %s is not an IP address of this host", cfg->bind);
		return false;
	}
	ret = mc_resolve(cfg, m, cfg->bind ? (struct sockaddr *)&src : NULL, t0, &ev, why, sizeof(why));
	if (ret && !cfg->bind && m->id) {
		/* No route for the group: the host's one RDMA address, when it has one. */
		char ifname[IF_NAMESIZE] = "", list[512];
		unsigned int n = rdma_sources(m->group.ss_family, &src, ifname, sizeof(ifname), list,
					      sizeof(list));

		if (n == 1) {
			char addr[64] = "";

			rd_cm_addr_str((struct sockaddr *)&src, addr, sizeof(addr));
			snprintf(picked, sizeof(picked), " (no --bind: %s on %s, the only RDMA address)",
				 addr, ifname);
			ret = mc_resolve(cfg, m, (struct sockaddr *)&src, rd_now_ns(), &ev, why,
					 sizeof(why));
		} else if (n > 1) {
			rd_st_stage_add(run, h, "address", false, ms_since(t0), NULL,
					"%s: no route for %s and %u RDMA addresses to send from: give "
					"--bind one of %s", why, cfg->mcast, n, list);
			return false;
		}
	}
	if (!m->id) {	/* rdma_cm itself is not there */
		rd_st_stage_add(run, h, "address", false, ms_since(t0), NULL, "%s", why);
		return false;
	}
	if (ret) {
		rd_st_stage_add(run, h, "address", false, ms_since(t0), NULL,
				"%s: no RDMA device reaches %s%s%s: give --bind the address of an "
				"RDMA netdev (rdma-devmap), or route the group to one (ip route add "
				"%s dev NETDEV)", why, cfg->mcast,
				cfg->bind ? " from " : "", cfg->bind ? cfg->bind : "",
				m->group.ss_family == AF_INET ? "224.0.0.0/4" : "ff00::/8");
		return false;
	}
	rdma_ack_cm_event(ev);
	ev = NULL;
	rd_strlcpy(run->dev, ibv_get_device_name(m->id->verbs->device), sizeof(run->dev));
	run->port = m->id->port_num;
	rd_cm_addr_str(rdma_get_local_addr(m->id), local, sizeof(local));
	rd_strlcpy(run->addr, local, sizeof(run->addr));
	rd_st_stage_add(run, h, "address", true, ms_since(t0), NULL, "%s port %u, %s -> %s%s", run->dev,
			run->port, local[0] ? local : "?", cfg->mcast, picked);

	t0 = rd_now_ns();
	rd_st_slots(&prm, &nrecv, &nsend, &slot);
	if (receiver && nrecv < MC_RECV)
		nrecv = MC_RECV;
	ret = rd_rc_alloc_ud(&m->rc, m->id->verbs, m->id->port_num, slot, nrecv, nsend);
	if (!ret) {
		m->have_rc = true;
		m->rc.any_src = true;
		rd_rc_qp_attr(&m->rc, &qa, true);
		if (rdma_create_qp(m->id, m->rc.pd, &qa)) {
			rd_rc_qp_attr(&m->rc, &qa, false);
			ret = rdma_create_qp(m->id, m->rc.pd, &qa) ? -errno : 0;
		}
	}
	if (ret) {
		rd_st_stage_add(run, h, "join", false, 0, NULL, "cannot create the UD queue pair: %s",
				strerror(-ret));
		return false;
	}
	m->rc.qp = m->id->qp;
	m->rc.max_inline = qa.cap.max_inline_data;
	if (receiver && rd_st_post_receives(&m->rc, &perr)) {
		rd_st_stage_add(run, h, "join", false, 0, NULL, "%s", perr.what);
		return false;
	}
	if (rdma_join_multicast(m->id, (struct sockaddr *)&m->group, NULL)) {
		rd_st_stage_add(run, h, "join", false, ms_since(t0), NULL,
				"rdma_join_multicast: %s", strerror(errno));
		return false;
	}
	ret = rd_cm_next_event(m->ch, t0 + MS(cfg->timeout_ms), &ev);
	if (ret == -ETIMEDOUT) {
		rd_st_stage_add(run, h, "join", false, ms_since(t0), NULL,
				"the join never completed within %d ms: on InfiniBand no subnet manager "
				"answered (sminfo), on RoCE the kernel did not finish joining the IP "
				"group on the netdev", cfg->timeout_ms);
		return false;
	}
	if (ret || !ev) {
		rd_st_stage_add(run, h, "join", false, ms_since(t0), NULL,
				"waiting for the join: %s", strerror(ret ? -ret : EIO));
		return false;
	}
	if (ev->event != RDMA_CM_EVENT_MULTICAST_JOIN) {
		rd_st_stage_add(run, h, "join", false, ms_since(t0), NULL,
				"%s (status %d): the join was refused: on InfiniBand by the subnet "
				"manager (partition, MGID rules), on RoCE by the netdev (multicast "
				"filter, IGMP)", rd_cm_ev_name(ev->event), ev->status);
		rdma_ack_cm_event(ev);
		return false;
	}
	m->joined = true;
	m->rc.ah = ibv_create_ah(m->rc.pd, &ev->param.ud.ah_attr);
	m->rc.remote_qpn = ev->param.ud.qp_num;
	m->rc.remote_qkey = ev->param.ud.qkey;
	mgid = ev->param.ud.ah_attr.grh.dgid;
	rdma_ack_cm_event(ev);
	if (!m->rc.ah) {
		rd_st_stage_add(run, h, "join", false, ms_since(t0), NULL,
				"cannot make the address handle to the group: %s", strerror(errno));
		return false;
	}
	{
		struct ibv_port_attr pa;

		if (ibv_query_port(m->id->verbs, m->id->port_num, &pa) == 0)
			run->path_mtu = pa.active_mtu;
	}
	run->ud = true;
	inet_ntop(AF_INET6, mgid.raw, run->mgid, sizeof(run->mgid));
	rd_st_stage_add(run, h, "join", true, ms_since(t0), NULL,
			"QPN 0x%x joined %s (MGID %s), Q_Key 0x%x, path MTU %s", m->rc.qp->qp_num,
			cfg->mcast, run->mgid, m->rc.remote_qkey, rd_st_mtu_str(run->path_mtu));
	return true;
}

/* The sender's side: cfg->iters numbered datagrams, then the end markers. */
static bool mc_send(const struct rd_st_config *cfg, const struct rd_st_hooks *h,
		    struct rd_st_run *run, struct mc *m)
{
	uint32_t size = cfg->nsizes ? cfg->sizes[0] : 64, n = cfg->iters;
	uint32_t mtu = rd_mtu_bytes(run->path_mtu);
	/* The QP has MC_WINDOW + 2 send slots (rd_st_slots): the first is for the end markers. */
	unsigned int inflight = 0, window = MC_WINDOW;
	uint64_t t0 = rd_now_ns(), sent = 0;
	struct rd_st_error err = { 0 };
	struct ibv_wc wc[16];
	int ret;

	if (mtu && size > mtu) {
		rd_st_stage_add(run, h, "send", false, 0, NULL,
				"a datagram is one packet: %u B is above the path MTU %u (use -s %u "
				"or less)", size, mtu, mtu);
		return false;
	}
	while (sent < n || inflight) {
		while (sent < n && inflight < window && !*cfg->stop) {
			unsigned int slot = m->rc.nrecv + 1 + (unsigned int)(sent % window);
			bool last = sent + 1 == n || inflight + 1 == window;

			rd_st_fill(rd_rc_slot(&m->rc, slot), size, (uint32_t)sent);
			ret = rd_rc_post_send_batch(&m->rc, slot, size,
						    RD_ST_IMM(RD_ST_MCDATA, sent), last ? inflight + 1 : 0);
			if (ret) {
				rd_st_stage_add(run, h, "send", false, ms_since(t0), NULL,
						"after %llu datagrams: cannot post a send: %s",
						(unsigned long long)sent, strerror(-ret));
				return false;
			}
			sent++;
			inflight++;
		}
		if (*cfg->stop && !inflight)
			break;
		ret = rd_rc_poll(&m->rc, wc, 16, rd_now_ns() + MS(cfg->timeout_ms), cfg->stop);
		if (ret < 0) {
			rd_st_poll_error(ret, cfg->timeout_ms, "send completion", &err);
			rd_st_stage_add(run, h, "send", false, ms_since(t0), &err, "after %llu datagrams: %s",
					(unsigned long long)sent, err.what);
			return false;
		}
		for (int i = 0; i < ret; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				rd_st_wc_error(&m->rc, &wc[i], &err);
				rd_st_stage_add(run, h, "send", false, ms_since(t0), &err,
						"after %llu datagrams: %s", (unsigned long long)sent, err.what);
				return false;
			}
			if (wc[i].wr_id & RD_WR_SEND) {
				unsigned int c = RD_WR_COVERS(wc[i].wr_id);

				inflight -= c <= inflight ? c : inflight;
			}
		}
	}
	if (*cfg->stop) {
		rd_st_stage_add(run, h, "send", false, ms_since(t0), NULL, "interrupted after %llu datagrams",
				(unsigned long long)sent);
		return false;
	}
	/* The end markers, spaced: a receiver takes the first and ignores the rest. */
	for (int e = 0; e < MC_ENDS; e++) {
		struct timespec gap = { 0, 20000000 };

		ret = rd_rc_post_send(&m->rc, m->rc.nrecv, 0, RD_ST_IMM(RD_ST_MCEND, n));
		while (!ret) {
			int got = rd_rc_poll(&m->rc, wc, 16, rd_now_ns() + MS(cfg->timeout_ms), NULL);

			if (got < 0) {
				ret = got;
				break;
			}
			for (int i = 0; i < got; i++)
				if (wc[i].status != IBV_WC_SUCCESS)
					ret = -EIO;
			if (got > 0 && !ret)
				break;
		}
		if (ret) {
			rd_st_stage_add(run, h, "send", false, ms_since(t0), NULL,
					"%llu datagrams sent, but not the end marker: %s",
					(unsigned long long)sent, strerror(-ret));
			return false;
		}
		if (e + 1 < MC_ENDS)
			nanosleep(&gap, NULL);
	}
	rd_st_stage_add(run, h, "send", true, ms_since(t0), NULL,
			"%u datagrams of %u B sent to %s, then %d end markers (each receiver tallies "
			"them)", n, size, cfg->mcast, MC_ENDS);
	return true;
}


/* ---- receiving ---- */

/* One sender's run as it comes in: which numbers arrived (a bitmap that grows). */
struct tally {
	struct rd_st_mc_tally t;
	bool active;
	uint8_t *seen;
	size_t cap;		/* bits */
	uint32_t last_seq;
	uint64_t first_ns, last_ns;
};

/* The sender's address, from the GRH in front of a datagram (RoCE v2 IPv4: an IPv4 header in its last 20 bytes). */
static void grh_source(const uint8_t *grh, char *buf, size_t len)
{
	if ((grh[20] >> 4) == 4)
		inet_ntop(AF_INET, grh + 32, buf, (socklen_t)len);
	else
		inet_ntop(AF_INET6, grh + 8, buf, (socklen_t)len);
}

static int tally_mark(struct tally *t, uint32_t seq)
{
	if (seq >= t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		uint8_t *p;

		while (cap <= seq)
			cap *= 2;
		p = realloc(t->seen, cap / 8);
		if (!p)
			return -ENOMEM;
		memset(p + t->cap / 8, 0, (cap - t->cap) / 8);
		t->seen = p;
		t->cap = cap;
	}
	if (t->seen[seq / 8] & (1u << (seq % 8)))
		return 1;
	t->seen[seq / 8] |= (uint8_t)(1u << (seq % 8));
	return 0;
}

static void tally_start(struct tally *t, uint32_t src_qpn, const char *sender)
{
	uint8_t *seen = t->seen;
	size_t cap = t->cap;

	memset(t, 0, sizeof(*t));
	t->seen = seen;
	t->cap = cap;
	if (seen)
		memset(seen, 0, cap / 8);
	t->active = true;
	t->t.src_qpn = src_qpn;
	rd_strlcpy(t->t.sender, sender, sizeof(t->t.sender));
}

/* The run is over (its end marker, a new sender, or silence): fill the figures. */
static void tally_close(struct tally *t, bool ended, uint64_t count)
{
	t->t.ended = ended;
	if (!ended) {
		count = 0;
		for (size_t i = t->cap; i > 0; i--)
			if (t->seen[(i - 1) / 8] & (1u << ((i - 1) % 8))) {
				count = i;
				break;
			}
	}
	t->t.expected = count;
	t->t.lost = count > t->t.received ? count - t->t.received : 0;
	t->t.seconds = t->last_ns > t->first_ns ? (double)(t->last_ns - t->first_ns) / 1e9 : 0;
	t->active = false;
}

/* The receive stage for --once: its verdict on the tally. */
static void receive_stage(const struct rd_st_hooks *h, struct rd_st_run *run,
			  const struct rd_st_mc_tally *t, double ms)
{
	char what[320];

	snprintf(what, sizeof(what), "%llu of %llu datagrams of %u B from %s (QPN 0x%x): %llu lost, "
		 "%llu duplicates, %llu corrupted, %llu out of order%s",
		 (unsigned long long)t->received, (unsigned long long)t->expected, t->size, t->sender,
		 t->src_qpn, (unsigned long long)t->lost, (unsigned long long)t->duplicates,
		 (unsigned long long)t->corrupted, (unsigned long long)t->reordered,
		 t->ended ? "" : " (no end marker: the sender stopped, or it was lost)");
	if (t->corrupted)
		rd_st_stage_add(run, h, "receive", false, ms, NULL, "%s: data corrupted on the way",
				what);
	else if (t->lost || t->duplicates || t->reordered || !t->ended)
		rd_st_stage_warn(run, h, "receive", "%s", what);
	else
		rd_st_stage_add(run, h, "receive", true, ms, NULL, "%s", what);
}

static void report(const struct rd_st_hooks *h, struct rd_st_run *run, const struct tally *t)
{
	if (h && h->mc_tally)
		h->mc_tally(h->ctx, run, &t->t);
}

/* One datagram: 1 when it ended a run (that run's figures in *closed), 0, or -errno. */
static int take(struct mc *m, const struct ibv_wc *wc, struct tally *t, uint32_t *done_qpn,
		struct rd_st_mc_tally *closed, const struct rd_st_hooks *h, struct rd_st_run *run)
{
	unsigned int slot = RD_WR_SLOT(wc->wr_id);
	const uint8_t *p = rd_rc_slot(&m->rc, slot);
	uint32_t imm = be32toh(wc->imm_data), seq = RD_ST_SEQ(imm);
	char sender[48] = "?";
	int ret = 0;

	if ((wc->wc_flags & IBV_WC_GRH))
		grh_source(p - RD_RC_GRH, sender, sizeof(sender));
	if (!(wc->wc_flags & IBV_WC_WITH_IMM) ||
	    (RD_ST_TYPE(imm) != RD_ST_MCDATA && RD_ST_TYPE(imm) != RD_ST_MCEND))
		goto repost;	/* not ours */
	if (RD_ST_TYPE(imm) == RD_ST_MCEND) {
		/* The first end marker of the current run; copies and strays are ignored. */
		if (t->active && t->t.src_qpn == wc->src_qp) {
			tally_close(t, true, seq);
			*done_qpn = wc->src_qp;
			report(h, run, t);
			*closed = t->t;
			ret = 1;
		}
		goto repost;
	}
	if (wc->src_qp == *done_qpn && !t->active)
		goto repost;	/* a late datagram of a run already reported */
	if (t->active && t->t.src_qpn != wc->src_qp) {
		/* Another sender: the current one's run ends here, without its marker. */
		tally_close(t, false, 0);
		report(h, run, t);
		*closed = t->t;
		ret = 1;
	}
	if (!t->active) {
		tally_start(t, wc->src_qp, sender);
		t->first_ns = rd_now_ns();
		*done_qpn = 0;
	}
	t->last_ns = rd_now_ns();
	t->t.size = wc->byte_len;
	switch (tally_mark(t, seq)) {
	case 1:
		t->t.duplicates++;
		break;
	case 0:
		t->t.received++;
		if (seq < t->last_seq)
			t->t.reordered++;
		t->last_seq = seq;
		if (rd_st_check(p, wc->byte_len, seq) >= 0)
			t->t.corrupted++;
		break;
	default:
		return -ENOMEM;
	}
repost:
	{
		int r = rd_rc_post_recv(&m->rc, slot);

		return r ? r : ret;
	}
}

static bool mc_receive(const struct rd_st_config *cfg, const struct rd_st_hooks *h,
		       struct rd_st_run *run, struct mc *m)
{
	struct tally t = { .active = false };
	struct rd_st_mc_tally closed = { .src_qpn = 0 };
	uint64_t t0 = rd_now_ns(), quiet_since = rd_now_ns();
	struct rd_st_error err = { 0 };
	uint32_t done_qpn = 0;
	struct ibv_wc wc[32];
	bool ok = false, finished = false;

	rd_st_log(h, "joined %s on %s port %u (MGID %s); waiting for senders%s", cfg->mcast, run->dev,
		  run->port, run->mgid, cfg->once ? "" : "; Ctrl-C to stop");
	while (!finished && !*cfg->stop) {
		int n = rd_rc_poll(&m->rc, wc, 32, rd_now_ns() + MS(250), cfg->stop);

		if (n == -ETIMEDOUT || n == -EINTR) {
			uint64_t quiet = rd_now_ns() - quiet_since;

			if (t.active && quiet >= MS(cfg->timeout_ms)) {
				/* A sender went silent without its end marker. */
				tally_close(&t, false, 0);
				report(h, run, &t);
				if (cfg->once) {
					run->mc = t.t;
					run->have_mc = true;
					receive_stage(h, run, &t.t, ms_since(t0));
					ok = !run->failed;
					finished = true;
				}
			} else if (cfg->once && !t.active && quiet >= MS(cfg->timeout_ms)) {
				rd_st_stage_add(run, h, "receive", false, ms_since(t0), NULL,
						"joined, but nothing arrived within %d ms: no sender yet, a "
						"sender on another interface or subnet (--bind both to the "
						"same RDMA netdev's subnet), IGMP snooping on a switch that "
						"saw no report, or a sender in another RoCE mode (v1 and v2 "
						"do not see each other: rdma-gids)", cfg->timeout_ms);
				finished = true;
			}
			continue;
		}
		if (n < 0) {
			rd_st_poll_error(n, cfg->timeout_ms, "datagram", &err);
			rd_st_stage_add(run, h, "receive", false, ms_since(t0), NULL, "%s", err.what);
			break;
		}
		for (int i = 0; i < n && !finished; i++) {
			int r;

			if (wc[i].status != IBV_WC_SUCCESS) {
				rd_st_wc_error(&m->rc, &wc[i], &err);
				rd_st_stage_add(run, h, "receive", false, ms_since(t0), &err, "%s", err.what);
				finished = true;
				break;
			}
			if (wc[i].wr_id & RD_WR_SEND)
				continue;
			quiet_since = rd_now_ns();
			r = take(m, &wc[i], &t, &done_qpn, &closed, h, run);
			if (r < 0) {
				rd_st_stage_add(run, h, "receive", false, ms_since(t0), NULL,
						"cannot go on: %s", strerror(-r));
				finished = true;
			} else if (r == 1 && cfg->once) {
				/* The first run that ended (a new sender's datagram may have ended it). */
				run->mc = closed;
				run->have_mc = true;
				receive_stage(h, run, &closed, ms_since(t0));
				ok = !run->failed;
				finished = true;
			}
		}
	}
	if (!finished && *cfg->stop && cfg->once)
		rd_st_stage_add(run, h, "receive", false, ms_since(t0), NULL, "interrupted");
	if (!cfg->once)
		ok = !run->failed;	/* a server stops on a signal: that is no failure */
	free(t.seen);
	return ok;
}

/* Join, then send or receive, then leave. */
static int mc_run(const struct rd_st_config *cfg, const struct rd_st_hooks *h,
		  struct rd_st_run *run, bool receiver)
{
	struct mc m = { 0 };

	memset(run, 0, sizeof(*run));
	run->gid_index = -1;
	if (mc_join(cfg, h, run, &m, receiver))
		run->ok = receiver ? mc_receive(cfg, h, run, &m) : mc_send(cfg, h, run, &m);
	mc_close(&m);
	run->ok = run->ok && !run->failed;
	return 0;
}

int rd_st_mcast_send(const struct rd_st_config *cfg, const struct rd_st_hooks *h,
		     struct rd_st_run *run)
{
	return mc_run(cfg, h, run, false);
}

int rd_st_mcast_recv(const struct rd_st_config *cfg, const struct rd_st_hooks *h,
		     struct rd_st_run *run)
{
	return mc_run(cfg, h, run, true);
}

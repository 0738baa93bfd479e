// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "cm.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oob.h"
#include "base/base.h"

#define MS(x) ((uint64_t)(x) * 1000000ull)

void rd_cm_params_encode(const struct rd_st_params *p, uint8_t buf[RD_CM_PRIV_LEN])
{
	uint32_t v[5] = { htobe32(RD_OOB_MAGIC), htobe32(RD_CM_VERSION), htobe32(p->max_size),
			  htobe32(p->window), htobe32(p->iters) };

	memcpy(buf, v, RD_CM_PRIV_LEN);
}

int rd_cm_params_decode(const void *buf, size_t len, struct rd_st_params *p)
{
	uint32_t v[5];

	if (!buf || len < RD_CM_PRIV_LEN)
		return -EPROTO;
	memcpy(v, buf, sizeof(v));
	if (be32toh(v[0]) != RD_OOB_MAGIC)
		return -EPROTO;
	/* Version 1 asked for the same test: its client only sends. */
	if (be32toh(v[1]) != RD_CM_VERSION && be32toh(v[1]) != 1)
		return -EPROTONOSUPPORT;
	p->ud = false;	/* rdma_cm connects RC */
	p->max_size = be32toh(v[2]);
	p->window = be32toh(v[3]);
	p->iters = be32toh(v[4]);
	return 0;
}

uint32_t rd_cm_priv_version(const void *buf, size_t len)
{
	uint32_t v[2];

	if (!buf || len < sizeof(v))
		return 0;
	memcpy(v, buf, sizeof(v));
	return be32toh(v[0]) == RD_OOB_MAGIC ? be32toh(v[1]) : 0;
}

void rd_cm_target_encode(const struct rd_st_target *t, uint8_t buf[RD_CM_REP_LEN])
{
	uint32_t v[4] = { htobe32(RD_OOB_MAGIC), htobe32(RD_CM_VERSION), htobe32(t->rkey),
			  htobe32(t->len) };
	uint64_t a = htobe64(t->addr);

	memcpy(buf, v, sizeof(v));
	memcpy(buf + sizeof(v), &a, sizeof(a));
}

int rd_cm_target_decode(const void *buf, size_t len, struct rd_st_target *t)
{
	uint32_t v[4];
	uint64_t a;

	memset(t, 0, sizeof(*t));
	if (!buf || len < RD_CM_REP_LEN)
		return -EPROTO;
	memcpy(v, buf, sizeof(v));
	memcpy(&a, (const uint8_t *)buf + sizeof(v), sizeof(a));
	if (be32toh(v[0]) != RD_OOB_MAGIC)
		return -EPROTO;
	if (be32toh(v[1]) != RD_CM_VERSION)
		return -EPROTONOSUPPORT;
	t->rkey = be32toh(v[2]);
	t->len = be32toh(v[3]);
	t->addr = be64toh(a);
	if (t->len > RD_OOB_MAX_AREA || t->addr > UINT64_MAX - 2ull * t->len - 64) {
		memset(t, 0, sizeof(*t));
		return -EINVAL;
	}
	return 0;
}

static void cm_err(struct rd_cm_error *err, const char *stage, const char *event, int status,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void cm_err(struct rd_cm_error *err, const char *stage, const char *event, int status,
		   const char *fmt, ...)
{
	va_list ap;

	rd_strlcpy(err->stage, stage, sizeof(err->stage));
	rd_strlcpy(err->event, event ? event : "", sizeof(err->event));
	err->status = status;
	va_start(ap, fmt);
	(void)vsnprintf(err->what, sizeof(err->what), fmt, ap);	/* truncation is fine */
	va_end(ap);
}

int rd_cm_next_event(struct rdma_event_channel *ch, uint64_t deadline, struct rdma_cm_event **ev)
{
	for (;;) {
		uint64_t now = rd_now_ns();
		struct pollfd p = { .fd = ch->fd, .events = POLLIN };
		int ms, n;

		if (rdma_get_cm_event(ch, ev) == 0)
			return 0;
		if (errno != EAGAIN)
			return -errno;
		if (now >= deadline)
			return -ETIMEDOUT;
		ms = (int)((deadline - now + 999999) / 1000000);
		n = poll(&p, 1, ms > 500 ? 500 : ms);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n < 0)
			return -EINTR;
	}
}

int rd_cm_nonblock(struct rdma_event_channel *ch)
{
	int fl = fcntl(ch->fd, F_GETFL);

	return fl < 0 || fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -errno : 0;
}

static int parse_addr(const char *host, uint16_t port, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;

	if (getaddrinfo(host, NULL, &hints, &res))
		return -EHOSTUNREACH;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	return 0;
}

void rd_cm_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	buf[0] = '\0';
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf, (socklen_t)len);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf, (socklen_t)len);
}

/* Fill device, port, GID index/type, QPNs, PSNs, path MTU from the connected QP. */
static void conn_facts(struct rdma_cm_id *id, struct rd_cm_info *info)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	rd_strlcpy(info->dev, ibv_get_device_name(id->verbs->device), sizeof(info->dev));
	info->port = id->port_num;
	info->gid_index = -1;
	rd_cm_addr_str(rdma_get_local_addr(id), info->local_addr, sizeof(info->local_addr));
	rd_cm_addr_str(rdma_get_peer_addr(id), info->peer_addr, sizeof(info->peer_addr));
	if (id->qp && ibv_query_qp(id->qp, &a, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				   IBV_QP_SQ_PSN | IBV_QP_RQ_PSN, &ia) == 0) {
		info->qpn = id->qp->qp_num;
		info->peer_qpn = a.dest_qp_num;
		info->sq_psn = a.sq_psn;
		info->rq_psn = a.rq_psn;
		info->path_mtu = a.path_mtu;
		info->sl = a.ah_attr.sl;
		info->tclass = a.ah_attr.is_global ? a.ah_attr.grh.traffic_class : 0;
		if (a.ah_attr.is_global) {
			char path[160];
			FILE *f;

			info->gid_index = a.ah_attr.grh.sgid_index;
			snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/gid_attrs/types/%d",
				 info->dev, info->port, info->gid_index);
			f = fopen(path, "re");
			if (f) {
				char type[32];

				if (fgets(type, sizeof(type), f)) {
					type[strcspn(type, "\n")] = '\0';
					rd_strlcpy(info->gid_type, type, sizeof(info->gid_type));
				}
				(void)fclose(f);	/* read-only stream */
			}
		}
	}
}

const char *rd_cm_ev_name(enum rdma_cm_event_type t)
{
	/* "RDMA_CM_EVENT_ADDR_ERROR" -> "ADDR_ERROR" */
	const char *s = rdma_event_str(t);

	return strncmp(s, "RDMA_CM_EVENT_", 14) == 0 ? s + 14 : s;
}

/* Both ends of the connection on one address: the peer is a process of this host. */
static bool same_address(struct rdma_cm_id *id)
{
	const struct sockaddr *a = rdma_get_local_addr(id), *b = rdma_get_peer_addr(id);

	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			      &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
	return false;
}

static int create_conn_qp(struct rd_cm_conn *c, struct rdma_cm_id *id,
			  const struct rd_st_params *params, int access)
{
	unsigned int nrecv, nsend;
	size_t slot;
	struct ibv_qp_init_attr qa = { 0 };
	int ret;

	rd_st_slots(params, &nrecv, &nsend, &slot);
	ret = rd_rc_alloc_ex(&c->rc, id->verbs, id->port_num, slot, nrecv, nsend,
			     rd_st_target_len(slot), access);
	if (ret)
		return ret;
	c->have_rc = true;
	rd_rc_qp_attr(&c->rc, &qa, true);
	if (rdma_create_qp(id, c->rc.pd, &qa)) {
		/* A device without inline sends. */
		rd_rc_qp_attr(&c->rc, &qa, false);
		if (rdma_create_qp(id, c->rc.pd, &qa))
			return errno ? -errno : -EIO;
	}
	c->rc.max_inline = qa.cap.max_inline_data;
	c->rc.qp = id->qp;
	c->rc.own_qp = false;
	c->rc.peer_local = same_address(id);
	return 0;
}

int rd_cm_connect(const char *peer, uint16_t port, const char *bind_addr, int timeout_ms,
		  const struct rd_st_params *params, const struct rd_rc_opts *qp,
		  struct rd_cm_conn *c, struct rd_cm_info *info, struct rd_cm_error *err)
{
	struct sockaddr_storage dst, src;
	struct rdma_cm_event *ev = NULL;
	struct rdma_conn_param cp = { 0 };
	uint8_t priv[RD_CM_PRIV_LEN];
	uint64_t t;
	int ret;

	memset(c, 0, sizeof(*c));
	memset(info, 0, sizeof(*info));
	info->gid_index = -1;
	if (parse_addr(peer, port, &dst)) {
		cm_err(err, "address", NULL, 0, "cannot resolve the name %s", peer);
		return -EHOSTUNREACH;
	}
	if (bind_addr && parse_addr(bind_addr, 0, &src)) {
		cm_err(err, "address", NULL, 0, "--bind %s is not an address", bind_addr);
		return -EINVAL;
	}
	c->ch = rdma_create_event_channel();
	if (!c->ch) {
		cm_err(err, "address", NULL, errno,
		       "cannot open the RDMA CM (%s): is rdma_ucm loaded and /dev/infiniband/rdma_cm "
		       "accessible?", strerror(errno));
		return -errno;
	}
	rd_cm_nonblock(c->ch);
	if (rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP)) {
		cm_err(err, "address", NULL, errno, "rdma_create_id: %s", strerror(errno));
		return -errno;
	}
	/* --tc: the type of service of the connection, before its route is resolved. */
	if (qp->tclass >= 0) {
		uint8_t tos = (uint8_t)qp->tclass;

		if (rdma_set_option(c->id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos))) {
			cm_err(err, "address", NULL, errno, "cannot set the type of service %u: %s",
			       tos, strerror(errno));
			return -errno;
		}
	}

	/* 1. address: which local RDMA device and port reach PEER */
	t = rd_now_ns();
	if (rdma_resolve_addr(c->id, bind_addr ? (struct sockaddr *)&src : NULL,
			      (struct sockaddr *)&dst, timeout_ms)) {
		ret = -errno;
		cm_err(err, "address", NULL, -ret,
		       "cannot resolve %s: %s; is it reachable through an RDMA netdev? (see rdma-devmap)",
		       peer, strerror(-ret));
		return ret;
	}
	ret = rd_cm_next_event(c->ch, t + MS(timeout_ms) + MS(1000), &ev);
	if (ret) {
		cm_err(err, "address", NULL, 0, "no answer resolving %s within %d ms", peer, timeout_ms);
		return -ETIMEDOUT;
	}
	if (ev->event != RDMA_CM_EVENT_ADDR_RESOLVED) {
		cm_err(err, "address", rd_cm_ev_name(ev->event), ev->status,
		       "%s (status %d %s): no RDMA device reaches %s — is it the IP of an RDMA netdev, "
		       "and does it answer ARP/ND? see rdma-devmap and rdma-gids --ip",
		       rd_cm_ev_name(ev->event), ev->status, strerror(-ev->status < 0 ? ev->status : -ev->status),
		       peer);
		rdma_ack_cm_event(ev);
		return -EHOSTUNREACH;
	}
	rdma_ack_cm_event(ev);
	info->addr_ms = (double)(rd_now_ns() - t) / 1e6;

	/* 2. route */
	t = rd_now_ns();
	if (rdma_resolve_route(c->id, timeout_ms)) {
		ret = -errno;
		cm_err(err, "route", NULL, -ret, "rdma_resolve_route: %s", strerror(-ret));
		return ret;
	}
	ret = rd_cm_next_event(c->ch, t + MS(timeout_ms) + MS(1000), &ev);
	if (ret) {
		cm_err(err, "route", NULL, 0, "no route to %s within %d ms", peer, timeout_ms);
		return -ETIMEDOUT;
	}
	if (ev->event != RDMA_CM_EVENT_ROUTE_RESOLVED) {
		cm_err(err, "route", rd_cm_ev_name(ev->event), ev->status,
		       "%s (status %d): no path to %s (IB: is the subnet manager running? RoCE: is "
		       "there a route and a GID for it?)", rd_cm_ev_name(ev->event), ev->status, peer);
		rdma_ack_cm_event(ev);
		return -ENETUNREACH;
	}
	rdma_ack_cm_event(ev);
	info->route_ms = (double)(rd_now_ns() - t) / 1e6;

	/* The local ACK timeout is the one QP attribute rdma_cm lets us choose. */
	{
		uint8_t ack = qp->timeout;

		(void)rdma_set_option(c->id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &ack, sizeof(ack));
	}

	/* 3. QP, receives, connect */
	ret = create_conn_qp(c, c->id, params, 0);
	if (ret) {
		cm_err(err, "connect", NULL, -ret, "cannot create the QP: %s", strerror(-ret));
		return ret;
	}
	for (unsigned int i = 0; i < c->rc.nrecv; i++) {
		ret = rd_rc_post_recv(&c->rc, i);
		if (ret) {
			cm_err(err, "connect", NULL, -ret, "cannot post receives: %s", strerror(-ret));
			return ret;
		}
	}
	rd_cm_params_encode(params, priv);
	cp.private_data = priv;
	cp.private_data_len = sizeof(priv);
	cp.retry_count = qp->retry_cnt;
	cp.rnr_retry_count = qp->rnr_retry;
	cp.responder_resources = c->rc.rd_atomic;
	cp.initiator_depth = c->rc.rd_atomic;
	t = rd_now_ns();
	if (rdma_connect(c->id, &cp)) {
		ret = -errno;
		cm_err(err, "connect", NULL, -ret, "rdma_connect: %s", strerror(-ret));
		return ret;
	}
	ret = rd_cm_next_event(c->ch, t + MS(timeout_ms), &ev);
	if (ret) {
		cm_err(err, "connect", NULL, 0,
		       "no answer from %s port %u within %d ms: no server there, or the CM messages "
		       "are lost", peer, port, timeout_ms);
		return -ETIMEDOUT;
	}
	if (ev->event != RDMA_CM_EVENT_ESTABLISHED) {
		char reason[150] = "";

		if (ev->event == RDMA_CM_EVENT_REJECTED && ev->param.conn.private_data &&
		    ev->param.conn.private_data_len >= 8) {
			const uint8_t *pd = ev->param.conn.private_data;
			uint32_t magic;

			memcpy(&magic, pd, 4);
			if (be32toh(magic) == RD_OOB_MAGIC) {
				size_t n = ev->param.conn.private_data_len - 4;

				if (n >= sizeof(reason))
					n = sizeof(reason) - 1;
				memcpy(reason, pd + 4, n);
				reason[n] = '\0';
				for (char *p = reason; *p; p++)
					if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
						*p = '?';
			}
		}
		if (ev->event == RDMA_CM_EVENT_REJECTED && strcmp(reason, RD_CM_V1_MISMATCH) == 0)
			cm_err(err, "connect", "REJECTED", ev->status,
			       "the server on %s port %u speaks protocol version 1 (an older "
			       "rdma-selftest), this side speaks %d: run the same version on both sides",
			       peer, port, RD_CM_VERSION);
		else if (ev->event == RDMA_CM_EVENT_REJECTED && reason[0])
			cm_err(err, "connect", "REJECTED", ev->status,
			       "the server on %s port %u refused the test: %s", peer, port, reason);
		else if (ev->event == RDMA_CM_EVENT_REJECTED)
			cm_err(err, "connect", "REJECTED", ev->status,
			       "REJECTED (reason %d): no rdma-selftest server on %s port %u — start "
			       "'rdma-selftest --server' there, or check -P", ev->status, peer, port);
		else if (ev->event == RDMA_CM_EVENT_UNREACHABLE)
			cm_err(err, "connect", "UNREACHABLE", ev->status,
			       "UNREACHABLE (status %d): %s never answered the connection request "
			       "(packets lost, wrong GID type or MTU on the path)", ev->status, peer);
		else
			cm_err(err, "connect", rd_cm_ev_name(ev->event), ev->status, "%s (status %d)",
			       rd_cm_ev_name(ev->event), ev->status);
		rdma_ack_cm_event(ev);
		return -ECONNREFUSED;
	}
	/* The server's target area travels in its REP. */
	(void)rd_cm_target_decode(ev->param.conn.private_data, ev->param.conn.private_data_len,
				  &info->target);
	rdma_ack_cm_event(ev);
	info->connect_ms = (double)(rd_now_ns() - t) / 1e6;
	conn_facts(c->id, info);
	return 0;
}

void rd_cm_close(struct rd_cm_conn *c)
{
	if (c->id) {
		if (c->id->qp)
			rdma_disconnect(c->id);
		if (c->id->qp)
			rdma_destroy_qp(c->id);
		c->rc.qp = NULL;
	}
	if (c->have_rc)
		rd_rc_free(&c->rc);
	c->have_rc = false;
	if (c->id)
		rdma_destroy_id(c->id);
	c->id = NULL;
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	c->ch = NULL;
}

int rd_cm_listen(const char *bind_addr, uint16_t port, int tclass, struct rd_cm_listener *l,
		 struct rd_cm_error *err)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;

	memset(l, 0, sizeof(*l));
	if (bind_addr) {
		if (parse_addr(bind_addr, port, &ss)) {
			cm_err(err, "listen", NULL, 0, "--bind %s is not an address", bind_addr);
			return -EINVAL;
		}
	} else {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		a6->sin6_addr = in6addr_any;
	}
	l->ch = rdma_create_event_channel();
	if (!l->ch) {
		cm_err(err, "listen", NULL, errno,
		       "cannot open the RDMA CM (%s): is rdma_ucm loaded?", strerror(errno));
		return -errno;
	}
	rd_cm_nonblock(l->ch);
	if (rdma_create_id(l->ch, &l->id, NULL, RDMA_PS_TCP) ||
	    (tclass >= 0 && rdma_set_option(l->id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS,
					    &(uint8_t){ (uint8_t)tclass }, sizeof(uint8_t))) ||
	    rdma_bind_addr(l->id, (struct sockaddr *)&ss) || rdma_listen(l->id, 8)) {
		int e = errno;

		cm_err(err, "listen", NULL, e,
		       "cannot listen on %s port %u: %s%s", bind_addr ? bind_addr : "every address", port,
		       strerror(e), e == EADDRNOTAVAIL || e == ENODEV ?
				    " (no RDMA device owns that address; see rdma-devmap)" : "");
		rd_cm_listener_close(l);
		return -e;
	}
	return 0;
}

int rd_cm_listener_fd(const struct rd_cm_listener *l)
{
	return l->ch ? l->ch->fd : -1;
}

static void reject(struct rdma_cm_id *id, const char *why)
{
	uint8_t buf[148];	/* an IB CM REJ carries up to 148 bytes of private data */
	uint32_t magic = htobe32(RD_OOB_MAGIC);
	size_t n = strlen(why);

	if (n > sizeof(buf) - 5)
		n = sizeof(buf) - 5;
	memcpy(buf, &magic, 4);
	memcpy(buf + 4, why, n);
	buf[4 + n] = '\0';
	rdma_reject(id, buf, (uint8_t)(n + 5));
}

int rd_cm_accept(struct rd_cm_listener *l, uint64_t deadline, int timeout_ms, unsigned int deny,
		 struct rd_cm_conn *c, struct rd_cm_info *info, struct rd_st_params *params,
		 struct rd_cm_error *err)
{
	struct rdma_cm_event *ev;
	struct rdma_conn_param cp = { 0 };
	struct rd_st_target tgt;
	uint8_t rep[RD_CM_REP_LEN];
	char why[128];
	int ret;

	memset(c, 0, sizeof(*c));
	memset(info, 0, sizeof(*info));
	info->gid_index = -1;
	for (;;) {
		ret = rd_cm_next_event(l->ch, deadline, &ev);
		if (ret == -ETIMEDOUT)
			return -EAGAIN;
		if (ret)
			return ret;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			break;
		/* Late events of earlier sessions (DISCONNECTED, TIMEWAIT_EXIT...). */
		rdma_ack_cm_event(ev);
	}
	c->id = ev->id;
	ret = rd_cm_params_decode(ev->param.conn.private_data, ev->param.conn.private_data_len, params);
	if (ret) {
		uint32_t v = rd_cm_priv_version(ev->param.conn.private_data,
						ev->param.conn.private_data_len);

		if (ret == -EPROTONOSUPPORT) {
			cm_err(err, "accept", "CONNECT_REQUEST", 0,
			       "client speaks protocol version %u, this server %d; rejected", v,
			       RD_CM_VERSION);
			snprintf(why, sizeof(why), "server speaks protocol version %d, client %u: run the "
				 "same rdma-selftest version on both sides", RD_CM_VERSION, v);
		} else {
			cm_err(err, "accept", "CONNECT_REQUEST", 0,
			       "not an rdma-selftest client (no parameters); rejected");
		}
		reject(c->id, ret == -EPROTONOSUPPORT ? why : "not rdma-selftest");
		rdma_ack_cm_event(ev);
		rdma_destroy_id(c->id);
		c->id = NULL;
		return -EPROTO;
	}
	if (rd_st_params_check(params, why, sizeof(why))) {
		cm_err(err, "accept", "CONNECT_REQUEST", 0, "rejected: %s", why);
		reject(c->id, why);
		rdma_ack_cm_event(ev);
		rdma_destroy_id(c->id);
		c->id = NULL;
		return -EINVAL;
	}
	rdma_ack_cm_event(ev);
	ret = create_conn_qp(c, c->id, params, rd_st_target_access(deny));
	if (ret) {
		cm_err(err, "accept", NULL, -ret, "cannot create the QP: %s", strerror(-ret));
		reject(c->id, "server cannot create a QP");
		goto fail;
	}
	for (unsigned int i = 0; i < c->rc.nrecv; i++) {
		ret = rd_rc_post_recv(&c->rc, i);
		if (ret) {
			cm_err(err, "accept", NULL, -ret, "cannot post receives: %s", strerror(-ret));
			reject(c->id, "server cannot post receives");
			goto fail;
		}
	}
	rd_st_target_init(&c->rc, &tgt);
	rd_cm_target_encode(&tgt, rep);
	cp.private_data = rep;
	cp.private_data_len = sizeof(rep);
	cp.responder_resources = c->rc.rd_atomic;
	cp.initiator_depth = c->rc.rd_atomic;
	cp.rnr_retry_count = 7;
	if (rdma_accept(c->id, &cp)) {
		ret = -errno;
		cm_err(err, "accept", NULL, -ret, "rdma_accept: %s", strerror(-ret));
		goto fail;
	}
	/* ESTABLISHED arrives on the listener's channel. */
	for (;;) {
		ret = rd_cm_next_event(l->ch, rd_now_ns() + MS(timeout_ms), &ev);
		if (ret) {
			cm_err(err, "accept", NULL, 0, "the client never completed the connection");
			goto fail;
		}
		if (ev->id != c->id) {
			if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
				/* The request's id is ours to destroy (after the ack). */
				struct rdma_cm_id *other = ev->id;

				reject(other, "server busy with another client" RD_OOB_RETRY);
				rdma_ack_cm_event(ev);
				rdma_destroy_id(other);
				continue;
			}
			rdma_ack_cm_event(ev);
			continue;
		}
		if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
			rdma_ack_cm_event(ev);
			break;
		}
		cm_err(err, "accept", rd_cm_ev_name(ev->event), ev->status, "%s while accepting",
		       rd_cm_ev_name(ev->event));
		rdma_ack_cm_event(ev);
		ret = -ECONNABORTED;
		goto fail;
	}
	/*
	 * The session's own channel, off the listener's: the server watches it
	 * (rd_rc_watch), and a client's DISCONNECTED, or the kernel's when the
	 * client's process died, ends the session at once.  Without it (the
	 * migration failed) the session ends on the client's silence instead.
	 */
	c->ch = rdma_create_event_channel();
	if (c->ch && (rd_cm_nonblock(c->ch) || rdma_migrate_id(c->id, c->ch))) {
		rdma_destroy_event_channel(c->ch);
		c->ch = NULL;
	}
	conn_facts(c->id, info);
	return 0;
fail:
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	c->rc.qp = NULL;
	if (c->have_rc)
		rd_rc_free(&c->rc);
	c->have_rc = false;
	if (c->id)
		rdma_destroy_id(c->id);
	c->id = NULL;
	return ret < 0 ? ret : -EIO;
}

void rd_cm_listener_close(struct rd_cm_listener *l)
{
	if (l->id)
		rdma_destroy_id(l->id);
	l->id = NULL;
	if (l->ch)
		rdma_destroy_event_channel(l->ch);
	l->ch = NULL;
}

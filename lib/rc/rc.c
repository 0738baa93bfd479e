// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "rc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

void rd_rc_opts_default(struct rd_rc_opts *o)
{
	o->timeout = 14;
	o->retry_cnt = 7;
	o->rnr_retry = 7;
	o->min_rnr_timer = 12;
	o->mtu = 0;
	o->tclass = -1;
	o->sl = -1;
}

uint64_t rd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int rd_rc_alloc(struct rd_rc *rc, struct ibv_context *ctx, uint8_t port, size_t slot_size,
		unsigned int nrecv, unsigned int nsend)
{
	return rd_rc_alloc_ex(rc, ctx, port, slot_size, nrecv, nsend, 0, 0);
}

static int alloc(struct rd_rc *rc, struct ibv_context *ctx, uint8_t port, size_t slot_size,
		 unsigned int nrecv, unsigned int nsend, size_t extra, int access, bool ud)
{
	struct ibv_device_attr da;
	size_t total;
	int ret;

	memset(rc, 0, sizeof(*rc));
	rc->ctx = ctx;
	rc->port = port;
	rc->slot_size = slot_size;
	rc->nrecv = nrecv;
	rc->nsend = nsend;
	rc->spin_ns = RD_RC_SPIN_NS;
	rc->ud = ud;
	rc->grh = ud ? RD_RC_GRH : 0;
	if (!slot_size || !nrecv || !nsend || nrecv + nsend > 65536 || slot_size > SIZE_MAX / 2)
		return -EINVAL;
	/* UD: the GRH room in front, and the payloads kept 64-byte aligned. */
	rc->stride = ud ? (slot_size + RD_RC_GRH + 63) & ~(size_t)63 : slot_size;
	if (rc->stride > SIZE_MAX / (nrecv + nsend))
		return -EOVERFLOW;
	total = rc->stride * (nrecv + nsend);
	if (extra > SIZE_MAX - total)
		return -EOVERFLOW;
	total += extra;
	/*
	 * Mapped, not malloc'ed: page-aligned, zeroed, and given back to the
	 * kernel by rd_rc_free.  From malloc, a buffer below glibc's (raised)
	 * mmap threshold stays resident in the heap after the session: a
	 * long-running server would keep the largest buffer any client asked
	 * for (up to 64 MiB).
	 */
	rc->buf = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (rc->buf == MAP_FAILED) {
		rc->buf = NULL;
		return -ENOMEM;
	}
	rc->map_len = total;
	rc->pd = ibv_alloc_pd(ctx);
	if (!rc->pd) {
		ret = errno ? -errno : -ENOMEM;
		goto fail;
	}
	/*
	 * A completion channel lets rd_rc_poll sleep once a wait outlasts its
	 * spin.  Without one (the device cannot) it keeps spinning.
	 */
	rc->chan = ibv_create_comp_channel(ctx);
	if (rc->chan && fcntl(rc->chan->fd, F_SETFL, fcntl(rc->chan->fd, F_GETFL) | O_NONBLOCK) < 0) {
		ibv_destroy_comp_channel(rc->chan);
		rc->chan = NULL;
	}
	rc->cq = ibv_create_cq(ctx, (int)(nrecv + nsend), NULL, rc->chan, 0);
	if (!rc->cq) {
		ret = errno ? -errno : -ENOMEM;
		goto fail;
	}
	rc->mr = ibv_reg_mr(rc->pd, rc->buf, total, IBV_ACCESS_LOCAL_WRITE | access);
	if (!rc->mr) {
		ret = errno ? -errno : -ENOMEM;
		goto fail;
	}
	rc->extra = extra ? rc->buf + rc->stride * (nrecv + nsend) : NULL;
	rc->extra_len = extra;
	/* Several READs/atomics in flight (perftest's default is 16), within the device's limits. */
	rc->rd_atomic = 1;
	if (ibv_query_device(ctx, &da) == 0) {
		int n = da.max_qp_rd_atom < da.max_qp_init_rd_atom ? da.max_qp_rd_atom :
								      da.max_qp_init_rd_atom;

		rc->rd_atomic = n >= 16 ? 16 : n >= 1 ? (uint8_t)n : 1;
	}
	return 0;
fail:
	rd_rc_free(rc);
	return ret;
}

int rd_rc_alloc_ex(struct rd_rc *rc, struct ibv_context *ctx, uint8_t port, size_t slot_size,
		   unsigned int nrecv, unsigned int nsend, size_t extra, int access)
{
	return alloc(rc, ctx, port, slot_size, nrecv, nsend, extra, access, false);
}

int rd_rc_alloc_ud(struct rd_rc *rc, struct ibv_context *ctx, uint8_t port, size_t slot_size,
		   unsigned int nrecv, unsigned int nsend)
{
	uint32_t rnd = 0;
	int ret = alloc(rc, ctx, port, slot_size, nrecv, nsend, 0, 0, true);

	if (ret)
		return ret;
	/*
	 * A Q_Key of our own per QP: a datagram from anyone who does not know
	 * it is dropped by the device.  The top bit marks controlled Q_Keys
	 * (privileged): kept clear.
	 */
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (uint32_t)rd_now_ns();
	rc->qkey = (rnd & 0x7fffffffu) | 0x11;
	return 0;
}

void rd_rc_qp_attr(const struct rd_rc *rc, struct ibv_qp_init_attr *attr, bool with_inline)
{
	memset(attr, 0, sizeof(*attr));
	attr->send_cq = rc->cq;
	attr->recv_cq = rc->cq;
	attr->qp_type = rc->ud ? IBV_QPT_UD : IBV_QPT_RC;
	attr->cap.max_send_wr = rc->nsend;
	attr->cap.max_recv_wr = rc->nrecv;
	attr->cap.max_send_sge = 1;
	attr->cap.max_recv_sge = 1;
	attr->cap.max_inline_data = with_inline ? RD_RC_INLINE : 0;
}

int rd_rc_create_qp(struct rd_rc *rc)
{
	struct ibv_qp_init_attr attr;

	rd_rc_qp_attr(rc, &attr, true);
	rc->qp = ibv_create_qp(rc->pd, &attr);
	if (!rc->qp) {
		/* A device without inline sends. */
		rd_rc_qp_attr(rc, &attr, false);
		rc->qp = ibv_create_qp(rc->pd, &attr);
	}
	if (!rc->qp)
		return errno ? -errno : -ENOMEM;
	rc->max_inline = attr.cap.max_inline_data;
	rc->own_qp = true;
	return 0;
}

void rd_rc_free(struct rd_rc *rc)
{
	if (rc->qp && rc->own_qp)
		ibv_destroy_qp(rc->qp);
	rc->qp = NULL;
	if (rc->ah)
		ibv_destroy_ah(rc->ah);
	rc->ah = NULL;
	if (rc->mr)
		ibv_dereg_mr(rc->mr);
	rc->mr = NULL;
	if (rc->cq) {
		if (rc->unacked_events)
			ibv_ack_cq_events(rc->cq, rc->unacked_events);
		ibv_destroy_cq(rc->cq);
	}
	rc->cq = NULL;
	rc->unacked_events = 0;
	if (rc->chan)
		ibv_destroy_comp_channel(rc->chan);
	rc->chan = NULL;
	if (rc->pd)
		ibv_dealloc_pd(rc->pd);
	rc->pd = NULL;
	/* All of it: the slots and the extra area (the target of one-sided operations). */
	if (rc->buf)
		munmap(rc->buf, rc->map_len);
	rc->buf = NULL;
}

int rd_rc_local(struct rd_rc *rc, int gid_index, struct rd_rc_endpoint *ep)
{
	struct ibv_port_attr pa;
	union ibv_gid gid;
	uint32_t rnd = 0;

	memset(ep, 0, sizeof(*ep));
	if (ibv_query_port(rc->ctx, rc->port, &pa))
		return errno ? -errno : -EIO;
	ep->lid = pa.lid;
	ep->mtu = pa.active_mtu;
	ep->qpn = rc->qp ? rc->qp->qp_num : 0;
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (uint32_t)rd_now_ns();
	ep->psn = rnd & 0xffffff;
	ep->qkey = rc->qkey;
	if (gid_index >= 0) {
		if (ibv_query_gid(rc->ctx, rc->port, gid_index, &gid))
			return errno ? -errno : -EIO;
		memcpy(ep->gid, gid.raw, 16);
		ep->gid_index = (uint8_t)gid_index;
		ep->use_grh = true;
	}
	/* RoCE has no LIDs: addressing is by GID only. */
	if (pa.link_layer == IBV_LINK_LAYER_ETHERNET && gid_index < 0)
		return -EINVAL;
	return 0;
}

/* The address vector to remote: its LID, or its GID with a GRH from our GID. */
static void ah_attr_to(const struct rd_rc *rc, const struct rd_rc_endpoint *local,
		       const struct rd_rc_endpoint *remote, const struct rd_rc_opts *opts,
		       struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = remote->lid;
	ah->sl = (uint8_t)(opts->sl > 0 ? opts->sl : 0);
	ah->port_num = rc->port;
	if (remote->use_grh || local->use_grh) {
		ah->is_global = 1;
		ah->grh.hop_limit = 64;
		ah->grh.traffic_class = (uint8_t)(opts->tclass > 0 ? opts->tclass : 0);
		ah->grh.sgid_index = local->gid_index;
		memcpy(ah->grh.dgid.raw, remote->gid, 16);
	}
}

/* UD: INIT (with our Q_Key), RTR, RTS; then the address handle to the peer. */
static int connect_ud(struct rd_rc *rc, const struct rd_rc_endpoint *local,
		      const struct rd_rc_endpoint *remote, const struct rd_rc_opts *opts)
{
	struct ibv_ah_attr ah;
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = rc->port;
	a.qkey = rc->qkey;
	if (ibv_modify_qp(rc->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return errno ? -errno : -EIO;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(rc->qp, &a, IBV_QP_STATE))
		return errno ? -errno : -EIO;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = local->psn;
	if (ibv_modify_qp(rc->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return errno ? -errno : -EIO;
	ah_attr_to(rc, local, remote, opts, &ah);
	if (rc->ah)
		ibv_destroy_ah(rc->ah);
	rc->ah = ibv_create_ah(rc->pd, &ah);
	if (!rc->ah)
		return errno ? -errno : -EIO;
	rc->remote_qpn = remote->qpn;
	rc->remote_qkey = remote->qkey;
	return 0;
}

int rd_rc_connect(struct rd_rc *rc, const struct rd_rc_endpoint *local,
		  const struct rd_rc_endpoint *remote, const struct rd_rc_opts *opts,
		  enum ibv_mtu *path_mtu)
{
	enum ibv_mtu mtu = local->mtu < remote->mtu ? local->mtu : remote->mtu;
	struct ibv_qp_attr a;

	if (opts->mtu && opts->mtu < mtu)
		mtu = opts->mtu;
	if (path_mtu)
		*path_mtu = mtu;
	rc->path_mtu = mtu;
	/* The same port on both ends: the peer is a process (or thread) of this host. */
	rc->peer_local = local->use_grh || remote->use_grh ?
				 memcmp(local->gid, remote->gid, sizeof(local->gid)) == 0 :
				 local->lid && local->lid == remote->lid;
	if (rc->ud)
		return connect_ud(rc, local, remote, opts);

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = rc->port;
	a.qp_access_flags = RD_RC_REMOTE_ACCESS;
	if (ibv_modify_qp(rc->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return errno ? -errno : -EIO;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = remote->qpn;
	a.rq_psn = remote->psn;
	a.max_dest_rd_atomic = rc->rd_atomic ? rc->rd_atomic : 1;
	a.min_rnr_timer = opts->min_rnr_timer;
	ah_attr_to(rc, local, remote, opts, &a.ah_attr);
	if (ibv_modify_qp(rc->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		return errno ? -errno : -EIO;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = opts->timeout;
	a.retry_cnt = opts->retry_cnt;
	a.rnr_retry = opts->rnr_retry;
	a.sq_psn = local->psn;
	a.max_rd_atomic = rc->rd_atomic ? rc->rd_atomic : 1;
	if (ibv_modify_qp(rc->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return errno ? -errno : -EIO;
	return 0;
}

bool rd_rc_transient(int err)
{
	return err == -ETIMEDOUT || err == -ENODATA;
}

uint8_t *rd_rc_slot(struct rd_rc *rc, unsigned int slot)
{
	return rc->buf + (size_t)slot * rc->stride + rc->grh;
}

int rd_rc_post_recv(struct rd_rc *rc, unsigned int slot)
{
	/* UD: from the slot's start, where the device puts the GRH. */
	struct ibv_sge sge = {
		.addr = (uintptr_t)(rc->buf + (size_t)slot * rc->stride),
		.length = (uint32_t)(rc->slot_size + rc->grh),
		.lkey = rc->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = RD_WR_RECV | slot, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret = ibv_post_recv(rc->qp, &wr, &bad);

	return ret ? -ret : 0;
}

int rd_rc_post_send(struct rd_rc *rc, unsigned int slot, uint32_t len, uint32_t imm)
{
	return rd_rc_post_send_batch(rc, slot, len, imm, 1);
}

int rd_rc_post_send_batch(struct rd_rc *rc, unsigned int slot, uint32_t len, uint32_t imm,
			  unsigned int covers)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rd_rc_slot(rc, slot),
		.length = len,
		.lkey = rc->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = RD_WR_SEND | ((uint64_t)(covers & 0xffff) << 32) | slot,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = (covers ? IBV_SEND_SIGNALED : 0) |
			      (len && len <= rc->max_inline ? IBV_SEND_INLINE : 0),
		.imm_data = htobe32(imm),
	};
	struct ibv_send_wr *bad;
	int ret;

	if (len > rc->slot_size)
		return -EMSGSIZE;
	if (rc->ud) {
		if (!rc->ah)
			return -ENOTCONN;
		wr.wr.ud.ah = rc->ah;
		wr.wr.ud.remote_qpn = rc->remote_qpn;
		wr.wr.ud.remote_qkey = rc->remote_qkey;
	}
	ret = ibv_post_send(rc->qp, &wr, &bad);
	return ret ? -ret : 0;
}

int rd_rc_op_wr(struct rd_rc *rc, enum ibv_wr_opcode op, void *local, uint32_t len, uint64_t raddr,
		uint32_t rkey, uint32_t imm, uint64_t add_or_compare, uint64_t swap,
		unsigned int covers, unsigned int tag, struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	if (rc->ud)
		return -EOPNOTSUPP;	/* UD carries sends only */
	*sge = (struct ibv_sge){ .addr = (uintptr_t)local, .length = len, .lkey = rc->mr->lkey };
	*wr = (struct ibv_send_wr){
		.wr_id = RD_WR_SEND | ((uint64_t)(tag & 0xff) << 48) | ((uint64_t)(covers & 0xffff) << 32),
		.sg_list = sge,
		.num_sge = len ? 1 : 0,
		.opcode = op,
		.send_flags = covers ? IBV_SEND_SIGNALED : 0,
	};
	if ((op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM) && len && len <= rc->max_inline)
		wr->send_flags |= IBV_SEND_INLINE;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr->wr.atomic.remote_addr = raddr;
		wr->wr.atomic.rkey = rkey;
		wr->wr.atomic.compare_add = add_or_compare;
		wr->wr.atomic.swap = swap;
	} else {
		wr->wr.rdma.remote_addr = raddr;
		wr->wr.rdma.rkey = rkey;
	}
	if (op == IBV_WR_RDMA_WRITE_WITH_IMM)
		wr->imm_data = htobe32(imm);
	return 0;
}

int rd_rc_post_op(struct rd_rc *rc, enum ibv_wr_opcode op, void *local, uint32_t len,
		  uint64_t raddr, uint32_t rkey, uint32_t imm, uint64_t add_or_compare, uint64_t swap,
		  unsigned int covers, unsigned int tag)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	int ret = rd_rc_op_wr(rc, op, local, len, raddr, rkey, imm, add_or_compare, swap, covers,
			      tag, &wr, &sge);

	if (ret)
		return ret;
	ret = ibv_post_send(rc->qp, &wr, &bad);
	return ret ? -ret : 0;
}

void rd_rc_watch(struct rd_rc *rc, int fd, bool socket)
{
	rc->watch = fd >= 0;
	rc->watch_fd = fd;
	rc->watch_socket = socket;
	rc->watch_next = 0;
}

bool rd_rc_peer_gone(struct rd_rc *rc)
{
	struct pollfd p = { .fd = rc->watch_fd, .events = POLLIN | POLLRDHUP };
	char c;

	if (!rc->watch || poll(&p, 1, 0) <= 0)
		return false;
	if (!rc->watch_socket)
		return p.revents != 0;	/* an rdma_cm event, or the channel broke */
	if (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL))
		return true;
	/* Data: the exchange carries none during a session, but leave it unread. */
	if ((p.revents & POLLIN) && recv(rc->watch_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
		return true;
	rc->watch = false;	/* readable, not ended: polling it again would never sleep */
	return false;
}

/*
 * Sleep on the completion channel until a CQ event, the deadline, or *stop;
 * the CQ is armed.  0: poll the CQ again; -ETIMEDOUT, -EINTR, -EIO, and
 * -ECONNRESET when the watched connection ended (rd_rc_watch).
 */
static int wait_cq_event(struct rd_rc *rc, uint64_t deadline, const volatile int *stop)
{
	struct pollfd pfd[2] = { { .fd = rc->chan->fd, .events = POLLIN } };

	for (;;) {
		uint64_t now = rd_now_ns();
		struct ibv_cq *cq;
		void *cq_ctx;
		int ms;

		if (stop && *stop)
			return -EINTR;
		if (now >= deadline)
			return rd_rc_peer_gone(rc) ? -ECONNRESET : -ETIMEDOUT;
		/* Wake at least every 100 ms to look at *stop. */
		ms = deadline - now > 100000000ull ? 100 : (int)((deadline - now + 999999) / 1000000);
		pfd[0].revents = 0;
		pfd[1] = (struct pollfd){ .fd = rc->watch ? rc->watch_fd : -1,
					  .events = POLLIN | POLLRDHUP };
		if (poll(pfd, 2, ms) < 0) {
			if (errno == EINTR)
				continue;
			return -EIO;
		}
		if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL))
			return -EIO;
		if (!(pfd[0].revents & POLLIN)) {
			if (pfd[1].revents && rd_rc_peer_gone(rc))
				return -ECONNRESET;
			continue;
		}
		if (ibv_get_cq_event(rc->chan, &cq, &cq_ctx) == 0 && ++rc->unacked_events >= 64) {
			ibv_ack_cq_events(rc->cq, rc->unacked_events);
			rc->unacked_events = 0;
		}
		return 0;
	}
}

/*
 * UD receives: drop (and repost) a datagram from any QP but the peer's, and
 * give the payload's length without the GRH.  Returns how many are left.
 */
static int ud_filter(struct rd_rc *rc, struct ibv_wc *wc, int got)
{
	int keep = 0;

	for (int i = 0; i < got; i++) {
		if ((wc[i].wr_id & RD_WR_RECV) && wc[i].status == IBV_WC_SUCCESS) {
			if ((!rc->any_src && wc[i].src_qp != rc->remote_qpn) ||
			    wc[i].byte_len < rc->grh) {
				rc->stray++;
				if (rd_rc_post_recv(rc, RD_WR_SLOT(wc[i].wr_id)))
					return -EIO;
				continue;
			}
			wc[i].byte_len -= rc->grh;
		}
		wc[keep++] = wc[i];
	}
	return keep;
}

static bool spin_yields;

void rd_rc_spin_yields(bool on)
{
	__atomic_store_n(&spin_yields, on, __ATOMIC_RELAXED);
}

/*
 * Whether this process may run on one CPU only (its affinity, which a cpuset
 * narrows too): then a peer process on this host that spins too gets the CPU
 * only when our spin yields it, or at the scheduler tick.  Read once; 0
 * unknown, 1 one CPU, 2 more.
 */
static int cpus_known;

static bool one_cpu(void)
{
	int k = __atomic_load_n(&cpus_known, __ATOMIC_RELAXED);

	if (!k) {
		cpu_set_t set;

		k = sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) == 1 ? 1 : 2;
		__atomic_store_n(&cpus_known, k, __ATOMIC_RELAXED);
	}
	return k == 1;
}

int rd_rc_poll(struct rd_rc *rc, struct ibv_wc *wc, int n, uint64_t deadline,
	       const volatile int *stop)
{
	unsigned int spins = 0;
	uint64_t now, spin_end = 0;
	bool armed = false, gone = false;
	int ret;

	for (;;) {
		int got = ibv_poll_cq(rc->cq, n, wc);

		if (got < 0)
			return -EIO;
		if (got > 0 && rc->ud)
			got = ud_filter(rc, wc, got);
		if (got > 0) {
			for (int i = 0; i < got; i++) {
				if (wc[i].status != IBV_WC_SUCCESS && !rc->has_error) {
					rc->has_error = true;
					rc->first_error = wc[i];
				}
			}
			return got;
		}
		if (got < 0)
			return got;
		if (gone)
			return -ECONNRESET;
		if (stop && *stop)
			return -EINTR;
		if ((++spins & 63) != 0)
			continue;
		now = rd_now_ns();
		if (rc->watch && (now >= deadline || now >= rc->watch_next)) {
			rc->watch_next = now + 100000000ull;
			if (rd_rc_peer_gone(rc)) {
				gone = true;	/* the CQ once more: the close may trail completions */
				continue;
			}
		}
		if (now >= deadline)
			return -ETIMEDOUT;
		if (!spin_end)
			spin_end = rc->spin_ns > UINT64_MAX - now ? UINT64_MAX : now + rc->spin_ns;
		if (!rc->chan || now < spin_end) {
			/*
			 * Another thread of ours may need this CPU (rd_rc_spin_yields),
			 * or, on one CPU, the peer's process on this host, spinning for
			 * ever too (a latency stage).  A wait that ends in sleep lets
			 * the peer run then, with fewer switches: a bandwidth stream
			 * keeps twice the rate (UD between two processes under qemu).
			 */
			if (!rc->spin_alone && (__atomic_load_n(&spin_yields, __ATOMIC_RELAXED) ||
						(rc->peer_local && rc->spin_ns == RD_RC_SPIN_FOREVER &&
						 one_cpu())))
				sched_yield();
			continue;
		}
		if (!armed) {
			/* A completion queued before the arm raises no event: poll once more. */
			if (ibv_req_notify_cq(rc->cq, 0))
				return -EIO;
			armed = true;
			spins = 63;
			continue;
		}
		ret = wait_cq_event(rc, deadline, stop);
		if (ret == -ECONNRESET)
			gone = true;
		else if (ret)
			return ret;
		armed = false;
		spins = 63;
	}
}

const char *rd_wc_diagnosis(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_SUCCESS:
		return "success";
	case IBV_WC_RETRY_EXC_ERR:
		return "packets lost: the peer never acknowledged after every retry; check the link "
		       "(ip link, rdma-devmap), PFC/ECN on the switch, MTU on the path, and that both "
		       "sides use the same GID type (RoCE v1/v2, rdma-gids --best)";
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return "receiver not ready: the peer had no receive posted in time (it stalled, "
		       "crashed, or posts too few receives)";
	case IBV_WC_WR_FLUSH_ERR:
		return "the queue pair was already in error; the first error is the cause";
	case IBV_WC_LOC_LEN_ERR:
		return "a message was larger than the receive buffer: sizes disagree";
	case IBV_WC_REM_INV_REQ_ERR:
		return "the peer rejected the request as invalid (message larger than its receive "
		       "buffer, or an operation it does not allow)";
	case IBV_WC_REM_ACCESS_ERR:
		return "the peer refused access to its memory";
	case IBV_WC_REM_OP_ERR:
		return "the peer could not complete the operation";
	case IBV_WC_LOC_PROT_ERR:
		return "local protection error: a buffer outside its registered memory";
	case IBV_WC_LOC_QP_OP_ERR:
		return "local QP operation error (bad work request or QP state)";
	case IBV_WC_BAD_RESP_ERR:
		return "unexpected response from the peer";
	case IBV_WC_FATAL_ERR:
		return "fatal device error: the device needs a reset";
	default:
		return "unexpected completion error";
	}
}

uint32_t rd_mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0;
}

int rd_mtu_from_bytes(uint64_t bytes, enum ibv_mtu *mtu)
{
	static const enum ibv_mtu m[] = { IBV_MTU_256, IBV_MTU_512, IBV_MTU_1024, IBV_MTU_2048,
					  IBV_MTU_4096 };

	for (unsigned int i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (bytes == 256ull << i) {
			*mtu = m[i];
			return 0;
		}
	return -EINVAL;
}

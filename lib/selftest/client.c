// SPDX-License-Identifier: MIT
/* Client driver: against rdma-selftest --server, through rdma_cm or raw verbs with a TCP exchange. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cm.h"
#include "engine.h"
#include "local.h"
#include "oob.h"
#include "run.h"
#include "base/base.h"

static double ms_since(uint64_t t0)
{
	return (double)(rd_now_ns() - t0) / 1e6;
}

static uint64_t deadline(const struct rd_st_config *cfg)
{
	return rd_now_ns() + (uint64_t)cfg->timeout_ms * 1000000;
}

static void client_cm(const struct rd_st_config *cfg, const struct rd_sysroot *sr,
		      const struct rd_st_params *prm,
		      const struct rd_st_hooks *h, struct rd_st_run *run)
{
	struct rd_cm_conn c;
	struct rd_cm_info info;
	struct rd_cm_error err = { 0 };
	char tcsl[48];
	int ret;

	ret = rd_cm_connect(cfg->peer, cfg->service_port, cfg->bind, cfg->timeout_ms, prm, &cfg->rc,
			    &c, &info, &err);
	if (ret) {
		bool addr = strcmp(err.stage, "address") == 0, route = strcmp(err.stage, "route") == 0;

		if (!addr)
			rd_st_stage_add(run, h, "address", true, info.addr_ms, NULL, "resolved");
		if (!addr && !route)
			rd_st_stage_add(run, h, "route", true, info.route_ms, NULL, "resolved");
		rd_st_stage_add(run, h, addr ? "address" : route ? "route" : "connect", false, 0, NULL,
				"%s", err.what);
		rd_cm_close(&c);
		return;
	}
	rd_strlcpy(run->dev, info.dev, sizeof(run->dev));
	run->port = info.port;
	run->gid_index = info.gid_index;
	rd_strlcpy(run->gid_type, info.gid_type, sizeof(run->gid_type));
	rd_strlcpy(run->addr, info.local_addr, sizeof(run->addr));
	rd_st_stage_add(run, h, "address", true, info.addr_ms, NULL, "%s port %u, GID %d (%s), %s -> %s",
			info.dev, info.port, info.gid_index, info.gid_type[0] ? info.gid_type : "?",
			info.local_addr, info.peer_addr);
	rd_st_stage_add(run, h, "route", true, info.route_ms, NULL, "resolved");
	rd_st_stage_add(run, h, "connect", true, info.connect_ms, NULL,
			"QPN 0x%x -> 0x%x, PSN 0x%06x/0x%06x, path MTU %s%s", info.qpn, info.peer_qpn,
			info.sq_psn, info.rq_psn, rd_st_mtu_str(info.path_mtu),
			rd_st_tc_sl_str(info.tclass, info.sl, tcsl, sizeof(tcsl)));
	run->path_mtu = info.path_mtu;
	run->tclass = info.tclass;
	run->sl = info.sl;
	/* Its connection's events, DISCONNECTED first, end the run at once (the server ended it). */
	rd_rc_watch(&c.rc, c.ch->fd, false);
	run->ok = rd_st_run_stages(cfg, sr, &c.rc, &info.target, h, run);
	rd_cm_close(&c);
}

/* The first ACTIVE port of the list (with number ib_port when non-zero). */
static bool first_active(const struct rd_device_list *list, unsigned int ib_port,
			 const struct rd_device **d, const struct rd_port **p)
{
	for (unsigned int i = 0; i < list->n; i++)
		for (unsigned int j = 0; j < list->v[i].nports; j++)
			if ((!ib_port || list->v[i].ports[j].num == ib_port) &&
			    list->v[i].ports[j].state == 4) {
				*d = &list->v[i];
				*p = &list->v[i].ports[j];
				return true;
			}
	return false;
}

static void client_verbs(const struct rd_st_config *cfg, const struct rd_sysroot *sr,
			 const struct rd_device_list *list, unsigned int ib_port,
			 const struct rd_st_params *prm, const struct rd_st_hooks *h,
			 struct rd_st_run *run)
{
	const struct rd_device *d = NULL;
	const struct rd_port *p = NULL;
	struct rd_st_local lp;
	struct rd_rc rc = { 0 };
	struct rd_rc_endpoint me, them;
	struct rd_oob_msg m;
	struct rd_st_target tgt;
	struct rd_st_error perr;
	struct ibv_context *ctx = NULL;
	uint8_t buf[RD_OOB_LEN];
	unsigned int nrecv, nsend;
	size_t slot, len = 0;
	char why[256] = "";
	enum ibv_mtu mtu;
	unsigned int sent_version = 0;
	struct rd_st_config run_cfg;
	uint64_t t0;
	int fd = -1, ret;

	if (!first_active(list, ib_port, &d, &p)) {
		if (list->n == 1 && rd_st_port_unusable(&list->v[0], ib_port, why, sizeof(why))) {
			/* one device asked for (a mesh rail, -d): say what its port is */
			rd_strlcpy(run->dev, list->v[0].name, sizeof(run->dev));
			run->port = ib_port;
			rd_st_stage_add(run, h, "connect", false, 0, NULL,
					"%s on this host: nothing to test from it (rdma-devinfo -v "
					"and rdma-doctor say why)", why);
		} else {
			rd_st_stage_add(run, h, "connect", false, 0, NULL, "no ACTIVE port%s",
					ib_port ? " with that number" : "");
		}
		return;
	}
	rd_strlcpy(run->dev, d->name, sizeof(run->dev));
	run->port = p->num;
	if (rd_st_pick_gid(sr, d, p, cfg->gid_index, &lp) && !lp.ib) {
		rd_st_stage_add(run, h, "connect", false, 0, NULL, "%s port %u: no usable GID: %s", d->name,
				p->num, lp.why);
		return;
	}
	if (!lp.ib) {
		run->gid_index = lp.gid_index;
		run->ver = lp.ver;
		rd_strlcpy(run->gid_type, rd_st_kind_name(rd_st_gid_kind(&lp)), sizeof(run->gid_type));
		rd_strlcpy(run->addr, lp.addr, sizeof(run->addr));
	}
	t0 = rd_now_ns();
	ctx = rd_st_open_device(d->name, why, sizeof(why));
	if (!ctx) {
		rd_st_stage_add(run, h, "connect", false, 0, NULL, "%s", why);
		return;
	}
	rd_st_slots(prm, &nrecv, &nsend, &slot);
	ret = cfg->ud ? rd_rc_alloc_ud(&rc, ctx, lp.port, slot, nrecv, nsend) :
			rd_rc_alloc_ex(&rc, ctx, lp.port, slot, nrecv, nsend, rd_st_target_len(slot), 0);
	if (ret || (ret = rd_rc_create_qp(&rc)) ||
	    (ret = rd_rc_local(&rc, lp.ib ? -1 : lp.gid_index, &me))) {
		rd_st_stage_add(run, h, "connect", false, 0, NULL, "cannot create the queue pair: %s",
				strerror(-ret));
		goto out;
	}
	/* --mtu: offer the smaller MTU, so both sides choose the same path MTU. */
	if (cfg->rc.mtu && cfg->rc.mtu < me.mtu)
		me.mtu = cfg->rc.mtu;
	fd = rd_tcp_connect(cfg->peer, cfg->service_port, deadline(cfg), why, sizeof(why));
	if (fd < 0) {
		rd_st_stage_add(run, h, "exchange", false, ms_since(t0), NULL, "%s%s", why,
				fd == -ECONNREFUSED ? ": no rdma-selftest server there (start "
						      "'rdma-selftest --server' on the peer, or check -P)" : "");
		run->retry = fd == -ECONNREFUSED;
		goto out;
	}
	rd_st_hello(&m, RD_OOB_HELLO, &me, &lp, prm);
	if (cfg->peer_dev) {
		/* the server's device by name (a rail of the mesh): version 4 carries it */
		m.version = RD_OOB_VERSION_DEV;
		rd_strlcpy(m.dev, cfg->peer_dev, sizeof(m.dev));
		m.port = (uint8_t)cfg->peer_port;
	}
	sent_version = m.version;
	len = rd_oob_encode(&m, buf);
	ret = rd_tcp_send_all(fd, buf, len, deadline(cfg));
	if (!ret)
		ret = rd_oob_recv(fd, buf, &len, deadline(cfg));
	if (ret == -EPROTONOSUPPORT) {
		rd_st_stage_add(run, h, "exchange", false, ms_since(t0), NULL,
				"the server speaks exchange version %u (another rdma-selftest), this "
				"side speaks %u: run the same version on both sides",
				rd_oob_hdr_version(buf), sent_version);
		goto out;
	}
	if (ret) {
		rd_st_stage_add(run, h, "exchange", false, ms_since(t0), NULL,
				"no answer from the server's TCP exchange: %s", strerror(-ret));
		/* timed out: busy with another client (a mesh peer), or wedged */
		run->retry = ret == -ETIMEDOUT;
		goto out;
	}
	ret = rd_oob_decode(buf, len, &m, why, sizeof(why));
	if (!ret && m.version != sent_version) {
		/* An old server: its REJECT of our HELLO. */
		rd_st_stage_add(run, h, "exchange", false, ms_since(t0), NULL,
				"the server speaks exchange version %u (an older rdma-selftest), this "
				"side speaks %u: %s%s%s", (unsigned int)m.version, sent_version,
				cfg->peer_dev && m.version < RD_OOB_VERSION_DEV ?
					"it cannot serve a device by name (a mesh rail, --peer-dev: "
					"needs a newer rdma-selftest on the peer)" :
				cfg->ud && m.version < RD_OOB_VERSION_UD ?
					"it has no UD test (--qp ud needs a newer rdma-selftest "
					"--server on the peer)" : "run the same version on both sides",
				m.type == RD_OOB_REJECT ? "; it said: " : "",
				m.type == RD_OOB_REJECT ? m.reason : "");
		goto out;
	}
	if (ret == -EPROTONOSUPPORT) {
		rd_st_stage_add(run, h, "exchange", false, ms_since(t0), NULL, "the server %s",
				why + strlen("peer "));
		goto out;
	}
	if (ret) {
		rd_st_stage_add(run, h, "exchange", false, 0, NULL, "bad answer from the server: %s", why);
		goto out;
	}
	if (m.type == RD_OOB_REJECT && strncmp(m.reason, "GID ", 4) == 0) {
		/* Before any QP moved: the two sides' GIDs cannot talk to each other. */
		rd_st_stage_add(run, h, "exchange", false, ms_since(t0), NULL,
				"the server refused: %s; this side uses %s GID %d (%s, %s): choose GIDs "
				"of one RoCE version and one address family on both sides (-x here, -x "
				"or -d on the server; rdma-gids --best shows the usual choice)",
				m.reason, rd_st_kind_name(rd_st_gid_kind(&lp)), lp.gid_index,
				rd_st_gid_family(lp.raw), lp.addr);
		goto out;
	}
	if (m.type == RD_OOB_REJECT) {
		rd_st_stage_add(run, h, "exchange", false, ms_since(t0), NULL, "the server refused: %s",
				m.reason);
		run->retry = rd_oob_retry_reason(m.reason);
		goto out;
	}
	if (m.qp_type != (cfg->ud ? RD_OOB_QP_UD : RD_OOB_QP_RC)) {
		rd_st_stage_add(run, h, "exchange", false, ms_since(t0), NULL,
				"protocol error: the server answered with a %s QP, this side asked for %s",
				m.qp_type == RD_OOB_QP_UD ? "UD" : "RC", cfg->ud ? "UD" : "RC");
		goto out;
	}
	if (m.version >= RD_OOB_VERSION_DEV && m.dev[0]) {
		rd_strlcpy(run->peer_dev, m.dev, sizeof(run->peer_dev));
		run->peer_port = m.port;
	}
	if (cfg->peer_dev && (strcmp(run->peer_dev, cfg->peer_dev) != 0 ||
			      (cfg->peer_port && run->peer_port != cfg->peer_port))) {
		rd_st_stage_add(run, h, "exchange", false, ms_since(t0), NULL,
				"protocol error: this side asked for the server's %s port %u, it "
				"answered with %s port %u", cfg->peer_dev, cfg->peer_port,
				run->peer_dev[0] ? run->peer_dev : "?", run->peer_port);
		goto out;
	}
	if (run->peer_dev[0])
		rd_st_stage_add(run, h, "exchange", true, ms_since(t0), NULL,
				"%s port %u GID %d (%s) <-> peer %s port %u GID %s, %sQPN 0x%x <-> 0x%x",
				d->name, p->num, lp.gid_index, rd_st_kind_name(rd_st_gid_kind(&lp)),
				run->peer_dev, run->peer_port, rd_st_kind_name(m.gid_kind),
				cfg->ud ? "UD " : "", me.qpn, m.qpn);
	else
		rd_st_stage_add(run, h, "exchange", true, ms_since(t0), NULL,
				"%s port %u GID %d (%s) <-> peer GID %s, %sQPN 0x%x <-> 0x%x", d->name,
				p->num, lp.gid_index, rd_st_kind_name(rd_st_gid_kind(&lp)),
				rd_st_kind_name(m.gid_kind), cfg->ud ? "UD " : "", me.qpn, m.qpn);
	rd_st_endpoint_from(&m, &them);
	tgt.addr = m.addr;
	tgt.rkey = m.rkey;
	tgt.len = m.area_len;
	if (m.mtu != me.mtu)
		rd_st_note(h, "MTU differs: this side offers %s%s, the peer %s; the path uses the smaller",
			   rd_st_mtu_str(me.mtu), cfg->rc.mtu && cfg->rc.mtu == me.mtu ? " (--mtu)" : "",
			   rd_st_mtu_str((enum ibv_mtu)m.mtu));
	t0 = rd_now_ns();
	ret = rd_rc_connect(&rc, &me, &them, &cfg->rc, &mtu);
	if (ret) {
		rd_st_stage_add(run, h, "connect", false, 0, NULL, "QP bring-up failed: %s", strerror(-ret));
		run->retry = rd_rc_transient(ret);	/* the peer's address still resolving */
		goto out;
	}
	if (rd_st_post_receives(&rc, &perr)) {
		rd_st_stage_add(run, h, "connect", false, 0, NULL, "%s", perr.what);
		goto out;
	}
	run->path_mtu = mtu;
	run->ud = cfg->ud;
	run->tclass = (uint8_t)(cfg->rc.tclass > 0 ? cfg->rc.tclass : 0);
	run->sl = (uint8_t)(cfg->rc.sl > 0 ? cfg->rc.sl : 0);
	if (rd_st_ud_sizes(cfg, mtu, &run_cfg, why, sizeof(why))) {
		rd_st_stage_add(run, h, "connect", false, ms_since(t0), NULL, "%s", why);
		goto out;
	}
	if (cfg->ud)
		rd_st_stage_add(run, h, "connect", true, ms_since(t0), NULL,
				"UD RESET->INIT->RTR->RTS, address handle to the peer's GID, Q_Key "
				"0x%x/0x%x, path MTU %s%s", me.qkey, them.qkey, rd_st_mtu_str(mtu),
				rd_st_tc_sl_str(run->tclass, run->sl, why, sizeof(why)));
	else
		rd_st_stage_add(run, h, "connect", true, ms_since(t0), NULL,
				"RESET->INIT->RTR->RTS, PSN 0x%06x/0x%06x, path MTU %s%s", me.psn,
				them.psn, rd_st_mtu_str(mtu),
				rd_st_tc_sl_str(run->tclass, run->sl, why, sizeof(why)));
	/* The server closes the exchange when it ends the session: the run ends at once. */
	rd_rc_watch(&rc, fd, true);
	run->ok = rd_st_run_stages(&run_cfg, sr, &rc, &tgt, h, run);
out:
	if (fd >= 0)
		close(fd);
	rd_rc_free(&rc);
	ibv_close_device(ctx);
}

int rd_st_client(const struct rd_st_config *cfg, const struct rd_sysroot *sr,
		 const struct rd_device_list *list, unsigned int ib_port,
		 const struct rd_st_hooks *h, struct rd_st_run *run)
{
	struct rd_st_params prm = { .max_size = rd_st_max_size(cfg), .window = cfg->window,
				    .ud = cfg->ud,
				    .iters = cfg->iters };

	memset(run, 0, sizeof(*run));
	run->gid_index = -1;
	/* UD has no connection for rdma_cm to make: the endpoints go over the TCP exchange. */
	if (cfg->verbs || cfg->ud)
		client_verbs(cfg, sr, list, ib_port, &prm, h, run);
	else
		client_cm(cfg, sr, &prm, h, run);
	run->ok = run->ok && !run->failed;
	return 0;
}

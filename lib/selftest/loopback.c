// SPDX-License-Identifier: MIT
/* Loopback driver: two QPs (RC, or UD) of one port, a server thread answering the client's stages. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "local.h"
#include "run.h"
#include "base/base.h"

struct serve_arg {
	struct rd_rc *rc;
	int idle_ms;
	const volatile int *halt;
	struct rd_st_error err;
	uint64_t msgs;
	int ret;
};

static void *serve_thread(void *p)
{
	struct serve_arg *a = p;

	a->ret = rd_st_serve(a->rc, a->idle_ms, a->halt, &a->err, &a->msgs);
	return NULL;
}

static void take_local(struct rd_st_run *run, const struct rd_st_local *lp)
{
	rd_strlcpy(run->dev, lp->dev, sizeof(run->dev));
	run->port = lp->port;
	if (lp->ib || lp->gid_index < 0)
		return;
	run->gid_index = lp->gid_index;
	run->ver = lp->ver;
	rd_strlcpy(run->gid_type, rd_gid_ver_name(lp->ver) ? rd_gid_ver_name(lp->ver) : "?",
		   sizeof(run->gid_type));
	rd_strlcpy(run->addr, lp->addr, sizeof(run->addr));
}

int rd_st_loopback(const struct rd_st_config *cfg, const struct rd_sysroot *sr,
		   const struct rd_device *d, const struct rd_port *p, const struct rd_st_hooks *h,
		   struct rd_st_run *run)
{
	struct rd_rc srv = { 0 }, cli = { 0 };
	struct rd_rc_endpoint es, ec;
	struct rd_st_params prm = { .max_size = rd_st_max_size(cfg), .window = cfg->window,
				    .ud = cfg->ud,
				    .iters = cfg->iters };
	struct rd_st_error perr;
	struct rd_st_local lp;
	struct rd_st_target tgt;
	struct rd_st_config run_cfg;
	struct ibv_context *ctx;
	unsigned int nrecv, nsend;
	size_t slot;
	char why[200] = "";
	enum ibv_mtu mtu;
	bool ok = false;
	uint64_t t0;
	int ret;

	memset(run, 0, sizeof(*run));
	run->gid_index = -1;
	ret = rd_st_pick_gid(sr, d, p, cfg->gid_index, &lp);
	take_local(run, &lp);
	if (h && h->begin)
		h->begin(h->ctx, run);
	if (ret && !lp.ib) {
		rd_st_stage_add(run, h, "connect", false, 0, NULL, "no usable GID: %s", lp.why);
		goto done;
	}
	t0 = rd_now_ns();
	ctx = rd_st_open_device(d->name, why, sizeof(why));
	if (!ctx) {
		rd_st_stage_add(run, h, "connect", false, 0, NULL, "%s", why);
		goto done;
	}
	run->figures = true;
	rd_st_slots(&prm, &nrecv, &nsend, &slot);
	if (cfg->ud)
		ret = rd_rc_alloc_ud(&srv, ctx, lp.port, slot, nrecv, nsend);
	else
		ret = rd_rc_alloc_ex(&srv, ctx, lp.port, slot, nrecv, nsend, rd_st_target_len(slot),
				     rd_st_target_access(cfg->deny));
	if (!ret)
		ret = cfg->ud ? rd_rc_alloc_ud(&cli, ctx, lp.port, slot, nrecv, nsend) :
				rd_rc_alloc_ex(&cli, ctx, lp.port, slot, nrecv, nsend,
					       rd_st_target_len(slot), 0);
	if (ret || (ret = rd_rc_create_qp(&srv)) || (ret = rd_rc_create_qp(&cli)) ||
	    (ret = rd_rc_local(&srv, lp.ib ? -1 : lp.gid_index, &es)) ||
	    (ret = rd_rc_local(&cli, lp.ib ? -1 : lp.gid_index, &ec))) {
		rd_st_stage_add(run, h, "connect", false, 0, NULL, "cannot create the queue pairs: %s",
				strerror(-ret));
		goto free;
	}
	if ((ret = rd_rc_connect(&srv, &es, &ec, &cfg->rc, &mtu)) ||
	    (ret = rd_rc_connect(&cli, &ec, &es, &cfg->rc, &mtu))) {
		rd_st_stage_add(run, h, "connect", false, 0, NULL,
				"QP bring-up RESET->INIT->RTR->RTS failed: %s", strerror(-ret));
		goto free;
	}
	if (rd_st_post_receives(&srv, &perr) || rd_st_post_receives(&cli, &perr)) {
		rd_st_stage_add(run, h, "connect", false, 0, NULL, "%s", perr.what);
		goto free;
	}
	run->path_mtu = mtu;
	run->ud = cfg->ud;
	run->tclass = (uint8_t)(cfg->rc.tclass > 0 ? cfg->rc.tclass : 0);
	run->sl = (uint8_t)(cfg->rc.sl > 0 ? cfg->rc.sl : 0);
	if (rd_st_ud_sizes(cfg, mtu, &run_cfg, why, sizeof(why))) {
		rd_st_stage_add(run, h, "connect", false, (double)(rd_now_ns() - t0) / 1e6, NULL, "%s",
				why);
		goto free;
	}
	rd_st_stage_add(run, h, "connect", true, (double)(rd_now_ns() - t0) / 1e6, NULL,
			"%sQPN 0x%x <-> 0x%x, %s 0x%06x/0x%06x, path MTU %s%s", cfg->ud ? "UD " : "",
			es.qpn, ec.qpn, cfg->ud ? "Q_Key" : "PSN", cfg->ud ? es.qkey : es.psn,
			cfg->ud ? ec.qkey : ec.psn, rd_st_mtu_str(mtu),
			rd_st_tc_sl_str(run->tclass, run->sl, why, sizeof(why)));
	{
		/* The server thread stops on its own at the client's goodbye, or when told to. */
		volatile int halt = 0;
		struct serve_arg sa = { .rc = &srv, .idle_ms = cfg->timeout_ms, .halt = &halt };
		pthread_t th;

		/* two threads polling: on one CPU each must let the other run */
		rd_rc_spin_yields(true);
		cli.peer_thread = true;
		if (pthread_create(&th, NULL, serve_thread, &sa)) {
			rd_rc_spin_yields(false);
			rd_st_stage_add(run, h, "pingpong", false, 0, NULL, "cannot start the server thread");
			goto free;
		}
		rd_st_target_init(&srv, &tgt);
		ok = rd_st_run_stages(&run_cfg, sr, &cli, &tgt, h, run);
		if (!ok)
			halt = 1;	/* no goodbye is coming: give up at once */
		pthread_join(th, NULL);
		rd_rc_spin_yields(false);
		if (ok && sa.ret)
			rd_st_stage_add(run, h, "server", false, 0, NULL, "the receiving side failed: %s",
					sa.err.what);
		ok = ok && !sa.ret;
	}
free:
	rd_rc_free(&cli);
	rd_rc_free(&srv);
	ibv_close_device(ctx);
done:
	run->ok = ok && !run->failed;
	return 0;
}

// SPDX-License-Identifier: MIT
/* Recording a run, and the stage sequence on a connected QP (run.h). */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "ctrs.h"

void rd_st_config_default(struct rd_st_config *c)
{
	memset(c, 0, sizeof(*c));
	c->service_port = RD_ST_SERVICE_PORT;
	c->gid_index = -1;
	c->iters = 1000;
	c->pings = 100;
	c->window = 128;
	c->timeout_ms = 5000;
	rd_rc_opts_default(&c->rc);
}

const char *rd_st_config_conflict(const struct rd_st_config *c, bool server)
{
	if (server && c->peer)
		return "--server takes no PEER";
	if (c->once && !server)
		return "--once goes with --server";
	if (c->verbs && !c->peer)
		return "--verbs needs a PEER (the server accepts both kinds)";
	if ((c->quick && (c->lat_only || c->bw_only)) || (c->lat_only && c->bw_only))
		return "choose one of --quick, --latency-only, --bandwidth-only";
	if (c->lat_only && c->expect_gbps > 0)
		return "--expect-gbps needs the stage that --latency-only skips";
	if (c->bw_only && c->expect_lat_us > 0)
		return "--expect-lat-us needs the stage that --bandwidth-only skips";
	if (server && (c->quick || c->lat_only || c->bw_only))
		return c->quick ? "the client chooses the stages: --quick goes without --server" :
		       c->lat_only ? "the client chooses the stages: --latency-only goes without --server" :
				     "the client chooses the stages: --bandwidth-only goes without --server";
	if (server && c->ops)
		return "the client chooses the operations: --op goes without --server";
	if (c->deny && c->peer)
		return "--deny is for the serving side: --server or loopback";
	if (c->peer && !c->verbs && !c->ud && c->rc.sl >= 0)
		return "--sl needs --verbs: rdma_cm takes the service level from the path (on RoCE from --tc)";
	if (c->peer && !c->verbs && !c->ud && c->rc.mtu)
		return "--mtu needs --verbs: rdma_cm takes the path MTU from the route";
	if (c->mcast && c->peer)
		return "--mcast takes no PEER: the group is the destination (receivers: --mcast GROUP --server)";
	if (c->mcast && (c->verbs || c->ud))
		return "--mcast joins through rdma_cm on a UD QP of its own: no --verbs or --qp";
	if (c->mcast && (c->ops || c->deny))
		return "--mcast sends datagrams: no --op or --deny";
	if (c->mcast && (c->quick || c->lat_only || c->bw_only || c->expect_gbps > 0 ||
			 c->expect_lat_us > 0))
		return "--mcast has its own stages (address, join, send or receive): no --quick, "
		       "--latency-only, --bandwidth-only or --expect-*";
	if (c->mcast && c->nsizes > 1)
		return "--mcast sends one size: -s BYTES";
	if (c->mcast && c->nsizes && c->sizes[0] > RD_ST_UD_MAX_SIZE)
		return "--mcast: a datagram is one packet, at most 4096 B (the largest MTU; the join "
		       "checks the port's)";
	if (c->ud && server)
		return "the client chooses the QP type: --qp goes without --server (it serves both)";
	if (c->ud && c->ops & ~(1u << RD_ST_OP_SEND))
		return "--qp ud carries sends only: RDMA WRITE, READ and atomics need --qp rc";
	for (unsigned int i = 0; c->ud && i < c->nsizes; i++)
		if (c->sizes[i] > RD_ST_UD_MAX_SIZE)
			return "--qp ud: a datagram is one packet, at most 4096 B (the largest MTU; "
			       "the run checks the path's)";
	return NULL;
}

void rd_st_config_finish(struct rd_st_config *c)
{
	/* Keep within the server's memory limit: fewer outstanding sends for big messages. */
	struct rd_st_params t = { .window = c->window, .ud = c->ud };
	uint32_t maxs = 65536;
	unsigned int nr, ns;
	size_t slot;

	for (unsigned int i = 0; i < c->nsizes; i++)
		maxs = i == 0 || c->sizes[i] > maxs ? c->sizes[i] : maxs;
	t.max_size = maxs;
	rd_st_slots(&t, &nr, &ns, &slot);
	while (c->window > 1 && (uint64_t)slot * (nr + ns) + rd_st_target_len(slot) > RD_ST_MAX_MEM) {
		t.window = --c->window;
		rd_st_slots(&t, &nr, &ns, &slot);
	}
}

uint32_t rd_st_max_size(const struct rd_st_config *cfg)
{
	uint32_t m = 65536;

	if (cfg->ud && !cfg->nsizes)
		return 4096;	/* UD: at most one packet, and the default size is the path MTU */
	for (unsigned int i = 0; i < cfg->nsizes; i++)
		m = i == 0 ? cfg->sizes[0] : (cfg->sizes[i] > m ? cfg->sizes[i] : m);
	return cfg->nsizes && m < 64 ? 64 : m;
}

const char *rd_st_ud_sizes(const struct rd_st_config *cfg, enum ibv_mtu path_mtu,
			   struct rd_st_config *out, char *buf, size_t len)
{
	uint32_t mtu = rd_mtu_bytes(path_mtu), big = 0;

	*out = *cfg;
	if (!cfg->ud || !mtu)
		return NULL;
	if (cfg->all_sizes) {
		/* -a: every power of two up to the path's packet. */
		out->nsizes = 0;
		for (unsigned int i = 0; i < cfg->nsizes; i++)
			if (cfg->sizes[i] <= mtu)
				out->sizes[out->nsizes++] = cfg->sizes[i];
		return NULL;
	}
	for (unsigned int i = 0; i < cfg->nsizes; i++)
		big = cfg->sizes[i] > big ? cfg->sizes[i] : big;
	if (big <= mtu)
		return NULL;
	snprintf(buf, len, "a UD message is one packet: %u B is above the path MTU %u (use -s %u or "
		 "less, or raise the MTU of both ports' netdevs)", big, mtu, mtu);
	return buf;
}

const char *rd_st_mtu_str(enum ibv_mtu m)
{
	static const char *const s[] = { "?", "256", "512", "1024", "2048", "4096" };

	return m >= 1 && m <= 5 ? s[m] : "?";
}

static struct rd_st_stage *stage_new(struct rd_st_run *run, const char *name, bool ok, double ms,
				     const char *fmt, va_list ap)
{
	/* Sized for every stage a run can have; were it ever full, the last slot is reused. */
	struct rd_st_stage *st =
		&run->stages[run->nstages < RD_ST_MAX_STAGES ? run->nstages++ : RD_ST_MAX_STAGES - 1];

	memset(st, 0, sizeof(*st));
	rd_strlcpy(st->name, name, sizeof(st->name));
	st->ok = ok;
	st->ms = ms;
	(void)vsnprintf(st->detail, sizeof(st->detail), fmt, ap);	/* truncation is fine */
	return st;
}

const char *rd_st_tc_sl_str(unsigned int tclass, unsigned int sl, char *buf, size_t len)
{
	if (!tclass && !sl)
		return "";
	snprintf(buf, len, ", traffic class %u, SL %u", tclass, sl);
	return buf;
}

void rd_st_stage_add(struct rd_st_run *run, const struct rd_st_hooks *h, const char *name, bool ok,
		     double ms, const struct rd_st_error *err, const char *fmt, ...)
{
	struct rd_st_stage *st;
	va_list ap;

	va_start(ap, fmt);
	st = stage_new(run, name, ok, ms, fmt, ap);
	va_end(ap);
	if (!ok && err && err->wc) {
		st->wc = true;
		st->status = err->status;
		st->vendor_err = err->vendor_err;
	}
	if (!ok && !run->failed) {
		run->failed = true;
		rd_strlcpy(run->fail_stage, name, sizeof(run->fail_stage));
	}
	if (h && h->stage)
		h->stage(h->ctx, run, st);
}

void rd_st_stage_warn(struct rd_st_run *run, const struct rd_st_hooks *h, const char *name,
		      const char *fmt, ...)
{
	struct rd_st_stage *st;
	va_list ap;

	va_start(ap, fmt);
	st = stage_new(run, name, true, 0, fmt, ap);
	va_end(ap);
	st->warn = true;
	run->warned = true;
	if (h && h->stage)
		h->stage(h->ctx, run, st);
}

void rd_st_counters_stage(const struct rd_st_hooks *h, struct rd_st_run *run)
{
	char words[sizeof(run->stages[0].detail)];

	if (!run->ctr.ncounters)
		return;	/* nothing readable twice: no verdict to give */
	if (rd_st_ctr_words(&run->ctr, run->dev, run->port, words, sizeof(words)))
		rd_st_stage_warn(run, h, "counters", "%s", words);
	else
		rd_st_stage_add(run, h, "counters", true, 0, NULL, "%s", words);
}

static void vhook(void (*fn)(void *, const char *), void *ctx, const char *fmt, va_list ap)
{
	char text[512];

	if (!fn)
		return;
	(void)vsnprintf(text, sizeof(text), fmt, ap);	/* truncation is fine */
	fn(ctx, text);
}

void rd_st_note(const struct rd_st_hooks *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (h)
		vhook(h->note, h->ctx, fmt, ap);
	va_end(ap);
}

void rd_st_log(const struct rd_st_hooks *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (h)
		vhook(h->log, h->ctx, fmt, ap);
	va_end(ap);
}

static double ms_since(uint64_t t0)
{
	return (double)(rd_now_ns() - t0) / 1e6;
}

/* A stage name for op: send keeps its own ("pingpong", "latency", "bandwidth"). */
static const char *stage_name(enum rd_st_op op, const char *kind, char *buf, size_t len)
{
	if (op == RD_ST_OP_SEND)
		return strcmp(kind, "verify") == 0 ? "pingpong" : kind;
	if (strcmp(kind, "verify") == 0)
		return rd_st_op_name(op);
	snprintf(buf, len, "%s-%s", rd_st_op_name(op), strcmp(kind, "latency") == 0 ? "lat" : "bw");
	return buf;
}

/* The verified stage of op.  False when it failed (the QP is then unusable). */
static bool verify_stage(const struct rd_st_config *cfg, struct rd_rc *rc, enum rd_st_op op,
			 const struct rd_st_target *t, struct rd_st_words *w,
			 const struct rd_st_hooks *h, struct rd_st_run *run)
{
	struct rd_st_error err = { 0 };
	struct rd_st_pingpong pp;
	uint32_t size = cfg->nsizes ? cfg->sizes[0] : 64;
	bool atomic = op == RD_ST_OP_FADD || op == RD_ST_OP_CSWAP;
	const char *name = stage_name(op, "verify", NULL, 0);
	uint64_t t0 = rd_now_ns();
	int ret;

	if (op == RD_ST_OP_SEND)
		ret = rd_st_pingpong(rc, cfg->pings, size, cfg->timeout_ms, cfg->stop, &pp, &err);
	else
		ret = rd_st_op_verify(rc, op, t, cfg->pings, size, cfg->timeout_ms, cfg->stop, w, &pp,
				      &err);
	if (ret) {
		/* pp.ns is the time of the messages that passed: the stage lasted until the failure. */
		rd_st_stage_add(run, h, name, false, ms_since(t0), &err,
				"after %u good %s: %s", pp.msgs,
				op == RD_ST_OP_SEND ? "messages" : "operations", err.what);
		return false;
	}
	if (op == RD_ST_OP_SEND && pp.resent)
		rd_st_stage_warn(run, h, name, "%u datagrams of %u B verified both ways, %u sent again "
				 "after a loss", pp.msgs, size, pp.resent);
	else if (op == RD_ST_OP_SEND)
		rd_st_stage_add(run, h, name, true, (double)pp.ns / 1e6, NULL,
				"%u %s of %u B verified both ways", pp.msgs,
				rc->ud ? "datagrams" : "messages", size);
	else if (atomic)
		rd_st_stage_add(run, h, name, true, (double)pp.ns / 1e6, NULL,
				"%u %s on the peer's word, every returned value as expected%s", pp.msgs,
				op == RD_ST_OP_FADD ? "adds" : "compares (1 in 4 meant to miss)",
				op == RD_ST_OP_FADD ? ", the sum checked" : ", the word checked");
	else
		rd_st_stage_add(run, h, name, true, (double)pp.ns / 1e6, NULL,
				"%u x %u B verified %s", pp.msgs, size,
				op == RD_ST_OP_READ ? "as read from the peer's memory" :
						      "in the peer's memory by the peer");
	return true;
}

static bool stages(const struct rd_st_config *cfg, struct rd_rc *rc, const struct rd_st_target *t,
		   const struct rd_st_hooks *h, struct rd_st_run *run)
{
	struct rd_st_error err = { 0 };
	struct rd_st_words words = { 0, 0 };
	unsigned int ops = cfg->ops ? cfg->ops : 1u << RD_ST_OP_SEND;
	unsigned int nsz = cfg->nsizes ? cfg->nsizes : 1;
	bool broken = false;	/* the QP failed: no goodbye possible */
	char nb[16];
	int ret;

	run->figures = true;
	for (unsigned int op = 0; op < RD_ST_NOPS; op++) {
		if (!(ops & (1u << op)))
			continue;
		if (!verify_stage(cfg, rc, (enum rd_st_op)op, t, &words, h, run))
			return false;
	}
	if (cfg->quick && (cfg->expect_gbps > 0 || cfg->expect_lat_us > 0))
		rd_st_note(h, "--expect-* checks need the latency and bandwidth stages (not --quick)");
	if (cfg->quick)
		goto bye;

	for (unsigned int op = 0; op < RD_ST_NOPS; op++) {
		bool atomic = op == RD_ST_OP_FADD || op == RD_ST_OP_CSWAP;
		unsigned int n = atomic ? 1 : nsz;

		if (!(ops & (1u << op)))
			continue;
		for (unsigned int i = 0; i < n && !*cfg->stop && !cfg->bw_only; i++) {
			uint32_t size = cfg->nsizes ? cfg->sizes[i] : 64;
			struct rd_st_latency *lat = &run->lat[run->nlat];
			const char *name = stage_name(op, "latency", nb, sizeof(nb));
			uint64_t t0 = rd_now_ns();

			if (op == RD_ST_OP_SEND)
				ret = rd_st_latency(rc, cfg->iters, size, cfg->timeout_ms, cfg->stop, lat,
						    &err);
			else
				ret = rd_st_op_latency(rc, op, t, cfg->iters, size, cfg->timeout_ms,
						       cfg->stop, &words, lat, &err);
			if (ret) {
				rd_st_stage_add(run, h, name, false, ms_since(t0), &err, "%u B: %s",
						lat->size ? lat->size : size, err.what);
				broken = true;
				goto figures;
			}
			if (lat->resent)
				rd_st_stage_warn(run, h, name, "%u x %u B: median %.2f us, p99 %.2f us "
						 "(half round trip); %u sent again after a loss (their "
						 "wait is in the samples)", cfg->iters, lat->size,
						 lat->median, lat->p99, lat->resent);
			else
				rd_st_stage_add(run, h, name, true, ms_since(t0), NULL,
						"%u x %u B: median %.2f us, p99 %.2f us (%s)", cfg->iters,
						lat->size, lat->median, lat->p99,
						lat->whole ? "one operation, a whole round trip" :
							     "half round trip");
			run->nlat++;
		}
		for (unsigned int i = 0; i < n && !*cfg->stop && !cfg->lat_only; i++) {
			/* UD: one packet per message, so the path MTU by default (as ib_send_bw -c UD). */
			uint32_t size = cfg->nsizes ? cfg->sizes[i] :
					rc->ud ? rd_mtu_bytes(rc->path_mtu) : 65536;
			struct rd_st_bandwidth *bw = &run->bw[run->nbw];
			const char *name = stage_name(op, "bandwidth", nb, sizeof(nb));
			uint64_t t0 = rd_now_ns();

			if (op == RD_ST_OP_SEND)
				ret = rd_st_bandwidth(rc, size, cfg->window,
						      cfg->duration_s ? 0 : cfg->iters,
						      cfg->duration_s * 1000, cfg->timeout_ms, cfg->stop,
						      bw, &err);
			else
				ret = rd_st_op_bandwidth(rc, op, t, size, cfg->window,
							 cfg->duration_s ? 0 : cfg->iters,
							 cfg->duration_s * 1000, cfg->timeout_ms,
							 cfg->stop, &words, bw, &err);
			if (ret) {
				rd_st_stage_add(run, h, name, false, ms_since(t0), &err, "%u B: %s",
						bw->size ? bw->size : size, err.what);
				broken = true;
				goto figures;
			}
			uint64_t sent = bw->msgs + bw->lost;

			if (bw->lost)
				rd_st_stage_warn(run, h, name, "%llu x %u B: %.3f Gb/s, %.4f Mpps as "
						 "received (%.3f Gb/s as sent); %llu of %llu datagrams "
						 "lost (UD does not retransmit: the receiver ran out of "
						 "posted receives, or the network dropped them: see the "
						 "counters)",
						 (unsigned long long)bw->msgs, bw->size, bw->gbps,
						 bw->mpps, bw->sent_gbps, (unsigned long long)bw->lost,
						 (unsigned long long)sent);
			else
				rd_st_stage_add(run, h, name, true, ms_since(t0), NULL,
						"%llu x %u B: %.3f Gb/s, %.4f Mpps%s",
						(unsigned long long)bw->msgs, bw->size, bw->gbps,
						bw->mpps, op == RD_ST_OP_SEND ? "" :
						op == RD_ST_OP_READ ? ", the last data read verified" :
						atomic ? ", the word verified" :
							 ", the last data verified by the peer");
			run->nbw++;
		}
	}
	if (cfg->expect_lat_us > 0 && run->nlat && run->lat[0].median > cfg->expect_lat_us)
		rd_st_stage_add(run, h, "expect", false, 0, NULL,
				"median latency %.2f us above --expect-lat-us %.2f", run->lat[0].median,
				cfg->expect_lat_us);
	if (cfg->expect_gbps > 0 && run->nbw) {
		double best = 0;

		for (unsigned int i = 0; i < run->nbw; i++)
			best = run->bw[i].gbps > best ? run->bw[i].gbps : best;
		if (best < cfg->expect_gbps)
			rd_st_stage_add(run, h, "expect", false, 0, NULL,
					"bandwidth %.3f Gb/s below --expect-gbps %.3f", best,
					cfg->expect_gbps);
	}
figures:
	if (h && h->figures)
		h->figures(h->ctx, run);
	if (broken || *cfg->stop)
		return false;
bye:
	if (rd_st_bye(rc, cfg->timeout_ms, &err))
		rd_st_stage_add(run, h, "close", false, 0, NULL, "%s", err.what);
	return !run->failed;
}

bool rd_st_run_stages(const struct rd_st_config *cfg, const struct rd_sysroot *sr, struct rd_rc *rc,
		      const struct rd_st_target *t, const struct rd_st_hooks *h, struct rd_st_run *run)
{
	struct rd_st_ctrs c = { .open = false };
	bool ok;
	int ret;

	if (!cfg->no_counters && sr && run->dev[0] && run->port &&
	    (ret = rd_st_ctrs_start(&c, sr, run->dev, run->port)))
		rd_st_note(h, "%s port %u: %s: no counters stage", run->dev, run->port,
			   ret == -ENOENT ? "no counters to read" : strerror(-ret));
	ok = stages(cfg, rc, t, h, run);
	if (c.open) {
		rd_st_ctrs_end(&c, &run->ctr);
		rd_st_counters_stage(h, run);
	}
	return ok && !run->failed;
}

// SPDX-License-Identifier: MIT
/*
 * rdma-selftest: loopback or peer send/recv self-test with staged PASS/FAIL,
 * a diagnosis for every failure, latency and bandwidth.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cm.h"
#include "device.h"
#include "gid.h"
#include "netdev.h"
#include "oob.h"
#include "output.h"
#include "rc.h"
#include "selftest.h"

enum {
	OPT_SERVER = RD_OPT_TOOL_BASE,
	OPT_BIND,
	OPT_VERBS,
	OPT_WINDOW,
	OPT_SIZES,
	OPT_QUICK,
	OPT_TIMEOUT,
	OPT_EXPECT_GBPS,
	OPT_EXPECT_LAT,
	OPT_PINGS,
	OPT_QP_TIMEOUT,
	OPT_RETRY,
	OPT_RNR_RETRY,
	OPT_MIN_RNR,
	OPT_MTU,
	OPT_ONCE,
	OPT_LAT_ONLY,
	OPT_BW_ONLY,
};

#define DEFAULT_SERVICE_PORT 18515

struct opts {
	bool server, verbs, quick, all_sizes, once, lat_only, bw_only;
	const char *peer, *bind;
	uint16_t service_port;
	int gid_index;		/* -x, -1 = choose */
	uint32_t iters, pings, window, duration_s;
	uint32_t sizes[32];
	unsigned int nsizes;
	int timeout_ms;
	double expect_gbps, expect_lat_us;
	struct rd_rc_opts rc;
};

static volatile int stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(const char *prog)
{
	printf("Usage: %s [options]                 loopback test of every active port\n"
	       "       %s [options] PEER            test against 'rdma-selftest --server' on PEER\n"
	       "       %s --server [options]        serve clients, forever\n"
	       "Staged RDMA send/recv self-test: connect, ping-pong with data verification,\n"
	       "latency, bandwidth; PASS/FAIL per stage with a diagnosis.\n"
	       "\n"
	       "Options:\n"
	       "  -d, --device NAME     RDMA device (loopback: only this one; --verbs: use it)\n"
	       "  -p, --port N          its port\n"
	       "  -x, --gid-index N     GID index (--verbs and loopback; default: rdma-gids --best)\n"
	       "      --verbs           connect with raw verbs and a TCP exchange, not rdma_cm\n"
	       "      --server          serve clients one after another until SIGINT/SIGTERM\n"
	       "      --once            with --server: exit after one client (status = its result)\n"
	       "      --bind ADDR       server: listen on ADDR; client: use ADDR as source\n"
	       "  -P, --service-port P  rdma_cm and TCP port (default %d)\n"
	       "  -n, --iters N         latency round trips and bandwidth messages (default 1000)\n"
	       "      --pings N         verified ping-pong messages (default 100)\n"
	       "  -s, --size BYTES      message size (default 64; bandwidth 65536)\n"
	       "      --sizes LIST      bandwidth and latency for each size (comma list)\n"
	       "  -a, --all-sizes       every power of two from 2 B to 1 MiB\n"
	       "      --window N        outstanding sends in the bandwidth stage (default 128;\n"
	       "                        lowered for big messages to fit the server's 64 MiB)\n"
	       "  -D, --duration SEC    bandwidth for SEC seconds instead of -n messages\n"
	       "      --quick           connect and ping-pong only\n"
	       "      --latency-only    skip the bandwidth stage\n"
	       "      --bandwidth-only  skip the latency stage\n"
	       "      --timeout SEC     longest wait for any answer (CM event, completion,\n"
	       "                        TCP), default 5\n"
	       "      --expect-gbps X   fail when the bandwidth is below X Gb/s\n"
	       "      --expect-lat-us Y fail when the median latency is above Y us\n"
	       "      --qp-timeout N --retry-cnt N --rnr-retry N --min-rnr-timer N --mtu BYTES\n"
	       "                        RC QP attributes (defaults 14, 7, 7, 12, the port's)\n"
	       "  -j, --json            one JSON document\n"
	       "      --color[=WHEN]    colour: auto (default), always, never\n"
	       "  -h, --help            this help\n"
	       "  -V, --version         version\n"
	       "\n"
	       "Exit status: 0 every stage passed, 1 a stage failed, 2 usage error.\n",
	       prog, prog, prog, DEFAULT_SERVICE_PORT);
}

/* ---- reporting ---- */

struct report {
	struct rd_out *o;
	bool color, json;
	bool failed;
	char fail_stage[32];
	const struct rd_st_error *err;	/* the completion error behind the next FAIL */
	bool printed_failed_stage;
};

static void stage(struct report *r, const char *name, bool ok, double ms, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void stage(struct report *r, const char *name, bool ok, double ms, const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(detail, sizeof(detail), fmt, ap);	/* truncation is fine */
	va_end(ap);
	if (!ok && !r->failed) {
		r->failed = true;
		rd_strlcpy(r->fail_stage, name, sizeof(r->fail_stage));
	}
	if (r->json) {
		rd_out_section_begin(r->o, NULL, NULL);
		rd_out_str(r->o, RD_JSON, "stage", NULL, name);
		rd_out_str(r->o, RD_JSON, "result", NULL, ok ? "pass" : "fail");
		rd_out_double(r->o, RD_JSON, "ms", NULL, round(ms * 1000) / 1000, NULL);
		rd_out_str(r->o, RD_JSON, ok ? "detail" : "diagnosis", NULL, detail);
		if (!ok && r->err && r->err->wc) {
			rd_out_str(r->o, RD_JSON, "wc_status", NULL, ibv_wc_status_str(r->err->status));
			rd_out_u64(r->o, RD_JSON, "vendor_err", NULL, r->err->vendor_err);
		}
		r->err = NULL;
		rd_out_section_end(r->o);
		return;
	}
	r->err = NULL;
	printf("  %s%s%s  %-10s %10.2f ms  %s\n", r->color ? (ok ? "\033[32m" : "\033[31m") : "",
	       ok ? "PASS" : "FAIL", r->color ? "\033[0m" : "", name, ms, detail);
	fflush(stdout);
}

static const char *mtu_str(enum ibv_mtu m)
{
	static const char *const s[] = { "?", "256", "512", "1024", "2048", "4096" };

	return m >= 1 && m <= 5 ? s[m] : "?";
}

struct results {
	struct rd_st_latency lat[32];
	struct rd_st_bandwidth bw[32];
	unsigned int nlat, nbw;
};

/* The figures, after the stages list (JSON only). */
static void print_results_json(struct report *r, const struct results *res)
{
	if (!r->json)
		return;
	rd_out_list_begin(r->o, "latency");
	for (unsigned int i = 0; i < res->nlat; i++) {
		const struct rd_st_latency *l = &res->lat[i];

		rd_out_section_begin(r->o, NULL, NULL);
		rd_out_u64(r->o, RD_JSON, "bytes", NULL, l->size);
		rd_out_u64(r->o, RD_JSON, "iterations", NULL, l->iters);
		rd_out_double(r->o, RD_JSON, "min_us", NULL, l->min, NULL);
		rd_out_double(r->o, RD_JSON, "median_us", NULL, l->median, NULL);
		rd_out_double(r->o, RD_JSON, "avg_us", NULL, l->avg, NULL);
		rd_out_double(r->o, RD_JSON, "stdev_us", NULL, l->stdev, NULL);
		rd_out_double(r->o, RD_JSON, "p99_us", NULL, l->p99, NULL);
		rd_out_double(r->o, RD_JSON, "p99_9_us", NULL, l->p999, NULL);
		rd_out_double(r->o, RD_JSON, "max_us", NULL, l->max, NULL);
		rd_out_section_end(r->o);
	}
	rd_out_list_end(r->o);
	rd_out_list_begin(r->o, "bandwidth");
	for (unsigned int i = 0; i < res->nbw; i++) {
		const struct rd_st_bandwidth *b = &res->bw[i];

		rd_out_section_begin(r->o, NULL, NULL);
		rd_out_u64(r->o, RD_JSON, "bytes", NULL, b->size);
		rd_out_u64(r->o, RD_JSON, "messages", NULL, b->msgs);
		rd_out_double(r->o, RD_JSON, "seconds", NULL, b->seconds, NULL);
		rd_out_double(r->o, RD_JSON, "gbps", NULL, b->gbps, NULL);
		rd_out_double(r->o, RD_JSON, "mpps", NULL, b->mpps, NULL);
		rd_out_section_end(r->o);
	}
	rd_out_list_end(r->o);
	if (r->failed) {
		rd_out_str(r->o, RD_JSON, "failed_stage", NULL, r->fail_stage);
		r->printed_failed_stage = true;
	}
}

/* Stages 2-4 on a connected client QP; returns true if all passed. */
static bool run_stages(struct report *r, const struct opts *op, struct rd_rc *rc,
		       struct results *res)
{
	struct rd_st_error err = { 0 };
	struct rd_st_pingpong pp;
	bool broken = false;	/* the QP failed: no goodbye possible */

	r->err = NULL;
	uint32_t ping_size = op->nsizes ? op->sizes[0] : 64;
	int ret;

	ret = rd_st_pingpong(rc, op->pings, ping_size, op->timeout_ms, &stop, &pp, &err);
	if (ret) {
		/* cppcheck-suppress autoVariables ; stage() next uses it and clears it */
		r->err = &err;
		stage(r, "pingpong", false, 0, "after %u good messages: %s", pp.msgs, err.what);
		return false;
	}
	if (op->quick && (op->expect_gbps > 0 || op->expect_lat_us > 0) && !r->json)
		printf("  note: --expect-* checks need the latency and bandwidth stages (not --quick)\n");
	stage(r, "pingpong", true, (double)pp.ns / 1e6, "%u messages of %u B verified both ways",
	      pp.msgs, ping_size);
	if (op->quick)
		goto bye;

	/* Latency and bandwidth for each size. */
	struct rd_st_latency *lat = res->lat;
	struct rd_st_bandwidth *bw = res->bw;
	unsigned int nsz = op->nsizes ? op->nsizes : 1, nlat = 0, nbw = 0;

	for (unsigned int i = 0; i < nsz && !stop && !op->bw_only; i++) {
		uint32_t size = op->nsizes ? op->sizes[i] : 64;
		uint64_t t0 = rd_now_ns();

		ret = rd_st_latency(rc, op->iters, size, op->timeout_ms, &stop, &lat[nlat], &err);
		if (ret) {
			/* cppcheck-suppress autoVariables ; stage() next uses it and clears it */
			r->err = &err;
			stage(r, "latency", false, (double)(rd_now_ns() - t0) / 1e6, "%u B: %s", size,
			      err.what);
			broken = true;
			goto tables;
		}
		stage(r, "latency", true, (double)(rd_now_ns() - t0) / 1e6,
		      "%u x %u B: median %.2f us, p99 %.2f us (half round trip)", op->iters, size,
		      lat[nlat].median, lat[nlat].p99);
		nlat++;
	}
	for (unsigned int i = 0; i < nsz && !stop && !op->lat_only; i++) {
		uint32_t size = op->nsizes ? op->sizes[i] : 65536;
		uint64_t t0 = rd_now_ns();

		ret = rd_st_bandwidth(rc, size, op->window, op->duration_s ? 0 : op->iters,
				      op->duration_s * 1000, op->timeout_ms, &stop, &bw[nbw], &err);
		if (ret) {
			/* cppcheck-suppress autoVariables ; stage() next uses it and clears it */
			r->err = &err;
			stage(r, "bandwidth", false, (double)(rd_now_ns() - t0) / 1e6, "%u B: %s", size,
			      err.what);
			broken = true;
			goto tables;
		}
		stage(r, "bandwidth", true, (double)(rd_now_ns() - t0) / 1e6,
		      "%llu x %u B: %.3f Gb/s, %.4f Mpps", (unsigned long long)bw[nbw].msgs, size,
		      bw[nbw].gbps, bw[nbw].mpps);
		nbw++;
	}
	if (op->expect_lat_us > 0 && nlat && lat[0].median > op->expect_lat_us)
		stage(r, "expect", false, 0, "median latency %.2f us above --expect-lat-us %.2f",
		      lat[0].median, op->expect_lat_us);
	if (op->expect_gbps > 0 && nbw) {
		double best = 0;

		for (unsigned int i = 0; i < nbw; i++)
			best = bw[i].gbps > best ? bw[i].gbps : best;
		if (best < op->expect_gbps)
			stage(r, "expect", false, 0, "bandwidth %.3f Gb/s below --expect-gbps %.3f", best,
			      op->expect_gbps);
	}
tables:
	res->nlat = nlat;
	res->nbw = nbw;
	if (!r->json) {
		if (nlat) {
			printf("\n %7s %11s %11s %11s %11s %11s %11s %11s %11s\n", "#bytes", "#iterations",
			       "t_min[us]", "t_median", "t_avg", "t_stdev", "t_p99", "t_p99.9", "t_max");
			for (unsigned int i = 0; i < nlat; i++)
				printf(" %7u %11u %11.2f %11.2f %11.2f %11.2f %11.2f %11.2f %11.2f\n",
				       lat[i].size, lat[i].iters, lat[i].min, lat[i].median, lat[i].avg,
				       lat[i].stdev, lat[i].p99, lat[i].p999, lat[i].max);
		}
		if (nbw) {
			printf("\n %7s %11s %11s %14s\n", "#bytes", "#messages", "BW[Gb/s]",
			       "MsgRate[Mpps]");
			for (unsigned int i = 0; i < nbw; i++)
				printf(" %7u %11llu %11.3f %14.4f\n", bw[i].size,
				       (unsigned long long)bw[i].msgs, bw[i].gbps, bw[i].mpps);
		}
		if (nlat || nbw)
			printf("\n");
	}
	if (broken || stop)
		return false;
bye:
	if (rd_st_bye(rc, op->timeout_ms, &err))
		stage(r, "close", false, 0, "%s", err.what);
	return !r->failed;
}

/* ---- choosing a GID for verbs modes ---- */

struct local_port {
	char dev[64];
	uint8_t port;
	int gid_index;
	enum rd_gid_ver ver;
	bool ib;
	char addr[48];
	char why[160];
};

static bool up_fn(void *ctx, const char *ifname)
{
	return rd_netdev_is_up(ctx, ifname);
}

/* The best GID of a port (or the given index), as rdma-gids --best. */
static int pick_gid(const struct rd_sysroot *sr, struct rd_device *d, struct rd_port *p,
		    int want, struct local_port *lp)
{
	struct rd_gid_table t;
	const struct rd_gid *g = NULL;

	memset(lp, 0, sizeof(*lp));
	rd_strlcpy(lp->dev, d->name, sizeof(lp->dev));
	lp->port = (uint8_t)p->num;
	lp->ib = (p->known & RD_PORT_LINK_LAYER) && p->link_layer == RD_LL_INFINIBAND;
	if (rd_port_gid_table(sr, d, p, false, &t, NULL)) {
		snprintf(lp->why, sizeof(lp->why), "cannot read the GID table");
		return -ENOENT;
	}
	if (want >= 0) {
		for (size_t i = 0; i < t.n; i++)
			if ((int)t.v[i].index == want)
				g = &t.v[i];
		if (!g)
			snprintf(lp->why, sizeof(lp->why), "GID index %d is empty (see rdma-gids)", want);
	} else {
		char reason[160];

		g = rd_gid_best(&t, p, -1, up_fn, (void *)sr, reason, sizeof(reason), lp->why,
				sizeof(lp->why));
	}
	if (g) {
		lp->gid_index = (int)g->index;
		lp->ver = g->ver;
		rd_gid_address(g->raw, lp->addr, NULL);
	}
	rd_gid_table_free(&t);
	return g ? 0 : -ENOENT;
}

static enum rd_gid_kind gid_kind(const struct local_port *lp)
{
	switch (lp->ver) {
	case RD_GID_VER_V1:
		return RD_GK_ROCE_V1;
	case RD_GID_VER_V2:
		return RD_GK_ROCE_V2;
	case RD_GID_VER_IB:
		return RD_GK_IB;
	default:
		return RD_GK_NONE;
	}
}

static const char *kind_name(unsigned int k)
{
	static const char *const n[] = { "none", "IB", "RoCE v1", "RoCE v2" };

	return k < 4 ? n[k] : "?";
}

static struct ibv_context *open_dev(const char *name, char *why, size_t why_len)
{
	struct ibv_device **l;
	struct ibv_context *ctx = NULL;
	int n = 0;

	l = ibv_get_device_list(&n);
	if (!l) {
		snprintf(why, why_len, "libibverbs: %s", strerror(errno));
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(l[i]), name) == 0) {
			ctx = ibv_open_device(l[i]);
			if (!ctx)
				snprintf(why, why_len, "cannot open %s: %s", name, strerror(errno));
		}
	}
	if (!ctx && !why[0])
		snprintf(why, why_len, "%s has no userspace verbs provider (ibverbs-providers?)", name);
	ibv_free_device_list(l);
	return ctx;
}

/* ---- loopback ---- */

struct serve_arg {
	struct rd_rc *rc;
	int idle_ms;
	struct rd_st_error err;
	uint64_t msgs;
	int ret;
};

static void *serve_thread(void *p)
{
	struct serve_arg *a = p;

	a->ret = rd_st_serve(a->rc, a->idle_ms, &stop, &a->err, &a->msgs);
	return NULL;
}

static bool loopback_port(struct report *r, const struct opts *op, const struct rd_sysroot *sr,
			  struct rd_device *d, struct rd_port *p)
{
	struct rd_rc srv = { 0 }, cli = { 0 };
	struct rd_rc_endpoint es, ec;
	struct rd_st_params prm = { .max_size = 64, .window = op->window, .iters = op->iters };
	struct local_port lp;
	struct ibv_context *ctx;
	unsigned int nrecv, nsend;
	size_t slot;
	char why[200] = "";
	enum ibv_mtu mtu;
	bool ok = false;
	uint64_t t0;
	int ret;

	struct results *res = calloc(1, sizeof(*res));

	if (!res)
		return false;
	r->failed = false;
	for (unsigned int i = 0; i < op->nsizes; i++)
		prm.max_size = op->sizes[i] > prm.max_size ? op->sizes[i] : prm.max_size;
	if (!op->nsizes)
		prm.max_size = 65536;
	rd_out_section_begin(r->o, NULL, NULL);
	rd_out_str(r->o, RD_JSON, "dev", NULL, d->name);
	rd_out_u64(r->o, RD_JSON, "port", NULL, p->num);
	ret = pick_gid(sr, d, p, op->gid_index, &lp);
	if (!r->json)
		printf("%s port %u: loopback\n", d->name, p->num);
	if (ret && !lp.ib) {
		rd_out_list_begin(r->o, "stages");
		stage(r, "connect", false, 0, "no usable GID: %s", lp.why);
		rd_out_list_end(r->o);
		goto done;
	}
	if (!lp.ib) {
		rd_out_u64(r->o, RD_JSON, "gid_index", NULL, (uint64_t)lp.gid_index);
		rd_out_str(r->o, RD_JSON, "gid_type", NULL, rd_gid_ver_name(lp.ver));
	}
	if (!r->json && !lp.ib)
		printf("  GID %d (%s, %s)\n", lp.gid_index, lp.ver == RD_GID_VER_V2 ? "RoCE v2" :
		       lp.ver == RD_GID_VER_V1 ? "RoCE v1" : rd_gid_ver_name(lp.ver) ?
		       rd_gid_ver_name(lp.ver) : "?", lp.addr);
	rd_out_list_begin(r->o, "stages");
	t0 = rd_now_ns();
	ctx = open_dev(d->name, why, sizeof(why));
	if (!ctx) {
		stage(r, "connect", false, 0, "%s", why);
		rd_out_list_end(r->o);
		goto done;
	}
	rd_st_slots(&prm, &nrecv, &nsend, &slot);
	if ((ret = rd_rc_alloc(&srv, ctx, (uint8_t)p->num, slot, nrecv, nsend)) ||
	    (ret = rd_rc_alloc(&cli, ctx, (uint8_t)p->num, slot, nrecv, nsend)) ||
	    (ret = rd_rc_create_qp(&srv)) || (ret = rd_rc_create_qp(&cli)) ||
	    (ret = rd_rc_local(&srv, lp.ib ? -1 : lp.gid_index, &es)) ||
	    (ret = rd_rc_local(&cli, lp.ib ? -1 : lp.gid_index, &ec))) {
		stage(r, "connect", false, 0, "cannot create the queue pairs: %s", strerror(-ret));
		goto free;
	}
	if ((ret = rd_rc_connect(&srv, &es, &ec, &op->rc, &mtu)) ||
	    (ret = rd_rc_connect(&cli, &ec, &es, &op->rc, &mtu))) {
		stage(r, "connect", false, 0, "QP bring-up RESET->INIT->RTR->RTS failed: %s",
		      strerror(-ret));
		goto free;
	}
	{
		struct rd_st_error perr;

		if (rd_st_post_receives(&srv, &perr) || rd_st_post_receives(&cli, &perr)) {
			stage(r, "connect", false, 0, "%s", perr.what);
			goto free;
		}
	}
	stage(r, "connect", true, (double)(rd_now_ns() - t0) / 1e6,
	      "QPN 0x%x <-> 0x%x, PSN 0x%06x/0x%06x, path MTU %s", es.qpn, ec.qpn, es.psn, ec.psn,
	      mtu_str(mtu));
	{
		struct serve_arg sa = { .rc = &srv, .idle_ms = op->timeout_ms };
		pthread_t th;

		if (pthread_create(&th, NULL, serve_thread, &sa)) {
			stage(r, "pingpong", false, 0, "cannot start the server thread");
			goto free;
		}
		ok = run_stages(r, op, &cli, res);
		if (!ok)
			stop = stop ? stop : 2;	/* make the server thread give up at once */
		pthread_join(th, NULL);
		if (stop == 2)
			stop = 0;
		if (ok && sa.ret)
			stage(r, "server", false, 0, "the receiving side failed: %s", sa.err.what);
		ok = ok && !sa.ret;
	}
free:
	rd_out_list_end(r->o);
	print_results_json(r, res);
	rd_rc_free(&cli);
	rd_rc_free(&srv);
	if (ctx)
		ibv_close_device(ctx);
done:
	free(res);
	rd_out_str(r->o, RD_JSON, "result", NULL, ok && !r->failed ? "pass" : "fail");
	rd_out_section_end(r->o);
	if (!r->json)
		printf("%s port %u: %s%s%s\n\n", d->name, p->num, ok && !r->failed ? "PASS" : "FAIL",
		       r->failed ? " at " : "", r->failed ? r->fail_stage : "");
	return ok && !r->failed;
}

/* ---- client ---- */

static bool client_cm(struct report *r, const struct opts *op, const struct rd_st_params *prm)
{
	struct rd_cm_conn c;
	struct rd_cm_info info;
	struct rd_cm_error err = { 0 };
	bool ok;
	int ret;

	rd_out_list_begin(r->o, "stages");
	ret = rd_cm_connect(op->peer, op->service_port, op->bind, op->timeout_ms, prm, &op->rc, &c,
			    &info, &err);
	if (ret) {
		bool addr = strcmp(err.stage, "address") == 0, route = strcmp(err.stage, "route") == 0;

		if (!addr)
			stage(r, "address", true, info.addr_ms, "resolved");
		if (!addr && !route)
			stage(r, "route", true, info.route_ms, "resolved");
		stage(r, addr ? "address" : route ? "route" : "connect", false, 0, "%s", err.what);
		rd_out_list_end(r->o);
		rd_cm_close(&c);
		return false;
	}
	stage(r, "address", true, info.addr_ms, "%s port %u, GID %d (%s), %s -> %s", info.dev,
	      info.port, info.gid_index, info.gid_type[0] ? info.gid_type : "?", info.local_addr,
	      info.peer_addr);
	stage(r, "route", true, info.route_ms, "resolved");
	stage(r, "connect", true, info.connect_ms, "QPN 0x%x -> 0x%x, PSN 0x%06x/0x%06x, path MTU %s",
	      info.qpn, info.peer_qpn, info.sq_psn, info.rq_psn, mtu_str(info.path_mtu));
	{
		struct results *res = calloc(1, sizeof(*res));

		ok = res && run_stages(r, op, &c.rc, res);
		rd_out_list_end(r->o);
		if (res)
			print_results_json(r, res);
		free(res);
	}
	rd_out_str(r->o, RD_JSON, "dev", NULL, info.dev);
	rd_out_u64(r->o, RD_JSON, "port", NULL, info.port);
	if (info.gid_index >= 0)
		rd_out_u64(r->o, RD_JSON, "gid_index", NULL, (uint64_t)info.gid_index);
	if (info.gid_type[0])
		rd_out_str(r->o, RD_JSON, "gid_type", NULL, info.gid_type);
	rd_cm_close(&c);
	return ok;
}

static void fill_hello(struct rd_oob_msg *m, int type, const struct rd_rc_endpoint *ep,
		       const struct local_port *lp, const struct rd_st_params *prm)
{
	memset(m, 0, sizeof(*m));
	m->version = RD_OOB_VERSION;
	m->type = (uint16_t)type;
	m->qpn = ep->qpn;
	m->psn = ep->psn;
	m->lid = ep->lid;
	m->mtu = (uint8_t)ep->mtu;
	m->gid_kind = (uint8_t)gid_kind(lp);
	memcpy(m->gid, ep->gid, 16);
	m->max_size = prm->max_size;
	m->window = prm->window;
	m->iters = prm->iters;
}

static void endpoint_from(const struct rd_oob_msg *m, struct rd_rc_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	ep->qpn = m->qpn;
	ep->psn = m->psn;
	ep->lid = m->lid;
	ep->mtu = (enum ibv_mtu)m->mtu;
	memcpy(ep->gid, m->gid, 16);
	ep->use_grh = m->gid_kind != RD_GK_NONE && m->gid_kind != RD_GK_IB;
}

static bool client_verbs(struct report *r, const struct opts *op, const struct rd_sysroot *sr,
			 struct rd_device_list *list, unsigned int ib_port,
			 const struct rd_st_params *prm)
{
	struct rd_device *d = NULL;
	struct rd_port *p = NULL;
	struct results *res = NULL;
	struct local_port lp = { .gid_index = -1 };
	struct rd_rc rc = { 0 };
	struct rd_rc_endpoint me, them;
	struct rd_oob_msg m;
	struct ibv_context *ctx = NULL;
	uint8_t buf[RD_OOB_LEN];
	unsigned int nrecv, nsend;
	size_t slot;
	char why[256] = "";
	enum ibv_mtu mtu;
	uint64_t t0;
	int fd = -1, ret;
	bool ok = false;

	rd_out_list_begin(r->o, "stages");
	/* The first active port of the chosen device(s). */
	for (unsigned int i = 0; i < list->n && !p; i++)
		for (unsigned int j = 0; j < list->v[i].nports && !p; j++)
			if ((!ib_port || list->v[i].ports[j].num == ib_port) &&
			    list->v[i].ports[j].state == 4) {
				d = &list->v[i];
				p = &list->v[i].ports[j];
			}
	if (!p) {
		stage(r, "connect", false, 0, "no ACTIVE port%s", ib_port ? " with that number" : "");
		goto out;
	}
	if (pick_gid(sr, d, p, op->gid_index, &lp) && !lp.ib) {
		stage(r, "connect", false, 0, "%s port %u: no usable GID: %s", d->name, p->num, lp.why);
		goto out;
	}
	t0 = rd_now_ns();
	ctx = open_dev(d->name, why, sizeof(why));
	if (!ctx) {
		stage(r, "connect", false, 0, "%s", why);
		goto out;
	}
	rd_st_slots(prm, &nrecv, &nsend, &slot);
	if ((ret = rd_rc_alloc(&rc, ctx, lp.port, slot, nrecv, nsend)) || (ret = rd_rc_create_qp(&rc)) ||
	    (ret = rd_rc_local(&rc, lp.ib ? -1 : lp.gid_index, &me))) {
		stage(r, "connect", false, 0, "cannot create the queue pair: %s", strerror(-ret));
		goto out;
	}
	fd = rd_tcp_connect(op->peer, op->service_port, rd_now_ns() + (uint64_t)op->timeout_ms * 1000000,
			    why, sizeof(why));
	if (fd < 0) {
		stage(r, "exchange", false, (double)(rd_now_ns() - t0) / 1e6, "%s%s", why,
		      fd == -ECONNREFUSED ? ": no rdma-selftest server there (start 'rdma-selftest "
					    "--server' on the peer, or check -P)" : "");
		goto out;
	}
	fill_hello(&m, RD_OOB_HELLO, &me, &lp, prm);
	rd_oob_encode(&m, buf);
	ret = rd_tcp_send_all(fd, buf, sizeof(buf), rd_now_ns() + (uint64_t)op->timeout_ms * 1000000);
	if (!ret)
		ret = rd_tcp_recv_all(fd, buf, sizeof(buf), rd_now_ns() + (uint64_t)op->timeout_ms * 1000000);
	if (ret) {
		stage(r, "exchange", false, (double)(rd_now_ns() - t0) / 1e6,
		      "no answer from the server's TCP exchange: %s", strerror(-ret));
		goto out;
	}
	ret = rd_oob_decode(buf, sizeof(buf), &m, why, sizeof(why));
	if (ret) {
		stage(r, "exchange", false, 0, "bad answer from the server: %s", why);
		goto out;
	}
	if (m.type == RD_OOB_REJECT) {
		stage(r, "exchange", false, (double)(rd_now_ns() - t0) / 1e6, "the server refused: %s",
		      m.reason);
		goto out;
	}
	stage(r, "exchange", true, (double)(rd_now_ns() - t0) / 1e6,
	      "%s port %u GID %d (%s) <-> peer GID %s, QPN 0x%x <-> 0x%x", d->name, p->num,
	      lp.gid_index, kind_name(gid_kind(&lp)), kind_name(m.gid_kind), me.qpn, m.qpn);
	endpoint_from(&m, &them);
	if (m.mtu != me.mtu && !r->json)
		printf("  note: MTU differs: local %s, peer %s; the path uses the smaller\n",
		       mtu_str(me.mtu), mtu_str((enum ibv_mtu)m.mtu));
	t0 = rd_now_ns();
	ret = rd_rc_connect(&rc, &me, &them, &op->rc, &mtu);
	if (ret) {
		stage(r, "connect", false, 0, "QP bring-up failed: %s", strerror(-ret));
		goto out;
	}
	{
		struct rd_st_error perr;

		if (rd_st_post_receives(&rc, &perr)) {
			stage(r, "connect", false, 0, "%s", perr.what);
			goto out;
		}
	}
	stage(r, "connect", true, (double)(rd_now_ns() - t0) / 1e6,
	      "RESET->INIT->RTR->RTS, PSN 0x%06x/0x%06x, path MTU %s", me.psn, them.psn, mtu_str(mtu));
	res = calloc(1, sizeof(*res));
	ok = res && run_stages(r, op, &rc, res);
out:
	rd_out_list_end(r->o);
	if (res)
		print_results_json(r, res);
	free(res);
	if (d && p) {
		rd_out_str(r->o, RD_JSON, "dev", NULL, d->name);
		rd_out_u64(r->o, RD_JSON, "port", NULL, p->num);
		if (!lp.ib) {
			rd_out_u64(r->o, RD_JSON, "gid_index", NULL, (uint64_t)lp.gid_index);
			rd_out_str(r->o, RD_JSON, "gid_type", NULL, kind_name(gid_kind(&lp)));
		}
	}
	if (fd >= 0)
		close(fd);
	rd_rc_free(&rc);
	if (ctx)
		ibv_close_device(ctx);
	return ok;
}

/* ---- server ---- */

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
	char ts[32];
	struct timespec now;
	struct tm tm;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	(void)strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);	/* fits: 19 chars */
	printf("%s.%03ld ", ts, now.tv_nsec / 1000000);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int serve_cm(const struct opts *op, struct rd_cm_listener *l)
{
	struct rd_cm_conn c;
	struct rd_cm_info info;
	struct rd_st_params prm;
	struct rd_cm_error err = { 0 };
	struct rd_st_error serr = { 0 };
	uint64_t msgs;
	int ret;

	ret = rd_cm_accept(l, rd_now_ns() + 10000000ull, op->timeout_ms, &c, &info, &prm, &err);
	if (ret == -EAGAIN)
		return 0;
	if (ret) {
		logf_("rdma_cm client: %s", err.what);
		return 1;
	}
	logf_("rdma_cm client %s: connected on %s port %u GID %d, QPN 0x%x, size <= %u, window %u",
	      info.peer_addr, info.dev, info.port, info.gid_index, info.qpn, prm.max_size, prm.window);
	ret = rd_st_serve(&c.rc, op->timeout_ms, &stop, &serr, &msgs);
	if (ret)
		logf_("rdma_cm client %s: session failed after %llu messages: %s", info.peer_addr,
		      (unsigned long long)msgs, serr.what);
	else
		logf_("rdma_cm client %s: done, %llu messages", info.peer_addr, (unsigned long long)msgs);
	rd_cm_close(&c);
	return ret ? 1 : 0;
}

/* Which local port owns this address: the GID that carries it. */
static int port_for_addr(const struct sockaddr_storage *ss, struct rd_device_list *list,
			 const struct rd_sysroot *sr, struct local_port *lp)
{
	uint8_t want[16] = { 0 };

	if (ss->ss_family == AF_INET) {
		want[10] = want[11] = 0xff;
		memcpy(want + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		memcpy(want, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	} else {
		return -EAFNOSUPPORT;
	}
	for (unsigned int i = 0; i < list->n; i++) {
		for (unsigned int j = 0; j < list->v[i].nports; j++) {
			struct rd_gid_table t;
			const struct rd_gid *best = NULL;

			if (rd_port_gid_table(sr, &list->v[i], &list->v[i].ports[j], false, &t, NULL))
				continue;
			for (size_t k = 0; k < t.n; k++)
				if (memcmp(t.v[k].raw, want, 16) == 0 &&
				    (!best || t.v[k].ver == RD_GID_VER_V2))
					best = &t.v[k];
			if (best) {
				memset(lp, 0, sizeof(*lp));
				rd_strlcpy(lp->dev, list->v[i].name, sizeof(lp->dev));
				lp->port = (uint8_t)list->v[i].ports[j].num;
				lp->gid_index = (int)best->index;
				lp->ver = best->ver;
				rd_gid_address(best->raw, lp->addr, NULL);
				rd_gid_table_free(&t);
				return 0;
			}
			rd_gid_table_free(&t);
		}
	}
	return -ENOENT;
}

static void oob_reject(int fd, const char *why)
{
	struct rd_oob_msg m = { .version = RD_OOB_VERSION, .type = RD_OOB_REJECT };
	uint8_t buf[RD_OOB_LEN];

	rd_strlcpy(m.reason, why, sizeof(m.reason));
	rd_oob_encode(&m, buf);
	(void)rd_tcp_send_all(fd, buf, sizeof(buf), rd_now_ns() + 1000000000ull);
}

static int serve_verbs(const struct opts *op, int lfd, const struct rd_sysroot *sr,
		       struct rd_device_list *list)
{
	struct sockaddr_storage local = { 0 };
	socklen_t sl = sizeof(local);
	struct rd_oob_msg m, reply;
	struct rd_st_params prm;
	struct local_port lp;
	struct rd_rc rc = { 0 };
	struct rd_rc_endpoint me, them;
	struct rd_st_error serr = { 0 };
	struct ibv_context *ctx = NULL;
	uint8_t buf[RD_OOB_LEN];
	char peer[64] = "?", why[200] = "";
	unsigned int nrecv, nsend;
	size_t slot;
	uint64_t msgs;
	int fd, ret, status = 1;

	fd = rd_tcp_accept(lfd, rd_now_ns() + 10000000ull, peer, sizeof(peer));
	if (fd == -EAGAIN)
		return 0;
	if (fd < 0)
		return 1;
	/* A half-open or silent client gets --timeout, then the next one is served. */
	ret = rd_tcp_recv_all(fd, buf, sizeof(buf), rd_now_ns() + (uint64_t)op->timeout_ms * 1000000);
	if (ret) {
		logf_("verbs client %s: %s", peer,
		      ret == -ETIMEDOUT ? "incomplete exchange message (timed out); dropped" :
		      ret == -ECONNRESET ? "closed before a whole exchange message; dropped" :
					   strerror(-ret));
		goto out;
	}
	ret = rd_oob_decode(buf, sizeof(buf), &m, why, sizeof(why));
	if (ret || m.type != RD_OOB_HELLO) {
		logf_("verbs client %s: rejected: %s", peer, ret ? why : "not a HELLO");
		if (ret == -EPROTONOSUPPORT)
			oob_reject(fd, "protocol version mismatch");
		goto out;
	}
	prm.max_size = m.max_size;
	prm.window = m.window;
	prm.iters = m.iters;
	if (rd_st_params_check(&prm, why, sizeof(why))) {
		logf_("verbs client %s: rejected: %s", peer, why);
		oob_reject(fd, why);
		goto out;
	}
	/* The port that owns the address the client reached us on, unless -d/-x say. */
	if (getsockname(fd, (struct sockaddr *)&local, &sl) < 0)
		local.ss_family = AF_UNSPEC;	/* no port owns it: rejected below */
	if (op->gid_index >= 0 && list->n && list->v[0].nports) {
		ret = pick_gid(sr, &list->v[0], &list->v[0].ports[0], op->gid_index, &lp);
	} else {
		ret = port_for_addr(&local, list, sr, &lp);
	}
	if (ret) {
		logf_("verbs client %s: no local RDMA port owns the address it connected to", peer);
		oob_reject(fd, "server: no RDMA port owns this address");
		goto out;
	}
	if (m.gid_kind != gid_kind(&lp)) {
		snprintf(why, sizeof(why), "GID type mismatch: client %s, server %s",
			 kind_name(m.gid_kind), kind_name(gid_kind(&lp)));
		logf_("verbs client %s: rejected: %s", peer, why);
		oob_reject(fd, why);
		goto out;
	}
	ctx = open_dev(lp.dev, why, sizeof(why));
	rd_st_slots(&prm, &nrecv, &nsend, &slot);
	if (!ctx || rd_rc_alloc(&rc, ctx, lp.port, slot, nrecv, nsend) || rd_rc_create_qp(&rc) ||
	    rd_rc_local(&rc, lp.gid_index, &me)) {
		logf_("verbs client %s: cannot set up a QP: %s", peer, why[0] ? why : strerror(errno));
		oob_reject(fd, "server cannot create a QP");
		goto out;
	}
	endpoint_from(&m, &them);
	/* Ready (RTS, receives posted) before the client may send. */
	if (rd_rc_connect(&rc, &me, &them, &op->rc, NULL) || rd_st_post_receives(&rc, &serr)) {
		logf_("verbs client %s: QP bring-up failed", peer);
		oob_reject(fd, "server QP bring-up failed");
		goto out;
	}
	fill_hello(&reply, RD_OOB_ACCEPT, &me, &lp, &prm);
	rd_oob_encode(&reply, buf);
	if (rd_tcp_send_all(fd, buf, sizeof(buf), rd_now_ns() + (uint64_t)op->timeout_ms * 1000000)) {
		logf_("verbs client %s: gone before the reply", peer);
		goto out;
	}
	logf_("verbs client %s: %s port %u GID %d (%s), QPN 0x%x <-> 0x%x", peer, lp.dev, lp.port,
	      lp.gid_index, kind_name(gid_kind(&lp)), me.qpn, them.qpn);
	ret = rd_st_serve(&rc, op->timeout_ms, &stop, &serr, &msgs);
	if (ret)
		logf_("verbs client %s: session failed after %llu messages: %s", peer,
		      (unsigned long long)msgs, serr.what);
	else
		logf_("verbs client %s: done, %llu messages", peer, (unsigned long long)msgs);
	status = ret ? 1 : 0;
out:
	close(fd);
	rd_rc_free(&rc);
	if (ctx)
		ibv_close_device(ctx);
	return status;
}

static int server(const struct opts *op, const struct rd_sysroot *sr, struct rd_device_list *list)
{
	struct rd_cm_listener l;
	struct rd_cm_error err = { 0 };
	char why[200];
	int lfd, status = 0;

	if (rd_cm_listen(op->bind, op->service_port, &l, &err)) {
		fprintf(stderr, "rdma-selftest: %s\n", err.what);
		return RD_EXIT_FAIL;
	}
	lfd = rd_tcp_listen(op->bind, op->service_port, why, sizeof(why));
	if (lfd < 0) {
		fprintf(stderr, "rdma-selftest: %s\n", why);
		rd_cm_listener_close(&l);
		return RD_EXIT_FAIL;
	}
	logf_("serving on %s port %u (rdma_cm and TCP for --verbs); Ctrl-C to stop",
	      op->bind ? op->bind : "every address", op->service_port);
	while (!stop) {
		struct pollfd p[2] = { { .fd = rd_cm_listener_fd(&l), .events = POLLIN },
				       { .fd = lfd, .events = POLLIN } };
		int n = poll(p, 2, 1000), r = -1;

		if (n <= 0)
			continue;
		if (p[0].revents)
			r = serve_cm(op, &l);
		if (p[1].revents)
			r = serve_verbs(op, lfd, sr, list);
		if (op->once && r >= 0) {
			status = r;
			break;
		}
	}
	logf_("stopped");
	close(lfd);
	rd_cm_listener_close(&l);
	return status ? RD_EXIT_FAIL : RD_EXIT_OK;
}

/* ---- options ---- */

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *v)
{
	uint64_t x;

	if (rd_parse_u64(s, &x) || x < lo || x > hi)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

static int parse_size(const char *s, uint32_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	if (!*s || *s == '-')
		return -EINVAL;
	x = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		x <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		x <<= 20, end++;
	if (*end || x > RD_ST_MAX_SIZE)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

static int mtu_enum(uint32_t bytes, enum ibv_mtu *m)
{
	switch (bytes) {
	case 256: *m = IBV_MTU_256; return 0;
	case 512: *m = IBV_MTU_512; return 0;
	case 1024: *m = IBV_MTU_1024; return 0;
	case 2048: *m = IBV_MTU_2048; return 0;
	case 4096: *m = IBV_MTU_4096; return 0;
	default: return -EINVAL;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "server", no_argument, NULL, OPT_SERVER },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "bind", required_argument, NULL, OPT_BIND },
		{ "service-port", required_argument, NULL, 'P' },
		{ "verbs", no_argument, NULL, OPT_VERBS },
		{ "gid-index", required_argument, NULL, 'x' },
		{ "iters", required_argument, NULL, 'n' },
		{ "pings", required_argument, NULL, OPT_PINGS },
		{ "size", required_argument, NULL, 's' },
		{ "sizes", required_argument, NULL, OPT_SIZES },
		{ "all-sizes", no_argument, NULL, 'a' },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "duration", required_argument, NULL, 'D' },
		{ "quick", no_argument, NULL, OPT_QUICK },
		{ "latency-only", no_argument, NULL, OPT_LAT_ONLY },
		{ "bandwidth-only", no_argument, NULL, OPT_BW_ONLY },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "expect-gbps", required_argument, NULL, OPT_EXPECT_GBPS },
		{ "expect-lat-us", required_argument, NULL, OPT_EXPECT_LAT },
		{ "qp-timeout", required_argument, NULL, OPT_QP_TIMEOUT },
		{ "retry-cnt", required_argument, NULL, OPT_RETRY },
		{ "rnr-retry", required_argument, NULL, OPT_RNR_RETRY },
		{ "min-rnr-timer", required_argument, NULL, OPT_MIN_RNR },
		{ "mtu", required_argument, NULL, OPT_MTU },
		RD_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct opts op = { .service_port = DEFAULT_SERVICE_PORT, .gid_index = -1, .iters = 1000,
			   .pings = 100, .window = 128, .timeout_ms = 5000 };
	struct rd_device_list list = { 0 };
	struct report rep = { 0 };
	struct rd_cli cli;
	struct sigaction sa = { .sa_handler = on_signal };
	int opt, ret = RD_EXIT_FAIL;
	uint32_t v;
	double dv;
	char *end;

	rd_cli_init(&cli, "rdma-selftest");
	rd_rc_opts_default(&op.rc);
	while ((opt = rd_cli_getopt(&cli, argc, argv, ":P:x:n:s:aD:" RD_COMMON_SHORTOPTS, longopts)) != -1) {
		if (opt == RD_CLI_OPT_USAGE) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
		switch (opt) {
		case OPT_SERVER:
			op.server = true;
			break;
		case OPT_ONCE:
			op.once = true;
			break;
		case OPT_BIND:
			op.bind = optarg;
			break;
		case 'P':
			if (parse_u32(optarg, 1, 65535, &v))
				goto bad;
			op.service_port = (uint16_t)v;
			break;
		case OPT_VERBS:
			op.verbs = true;
			break;
		case 'x':
			if (parse_u32(optarg, 0, 0xffffff, &v))
				goto bad;
			op.gid_index = (int)v;
			break;
		case 'n':
			if (parse_u32(optarg, 1, RD_ST_MAX_ITERS, &op.iters))
				goto bad;
			break;
		case OPT_PINGS:
			if (parse_u32(optarg, 1, RD_ST_MAX_ITERS, &op.pings))
				goto bad;
			break;
		case 's':
			if (parse_size(optarg, &v))
				goto bad;
			op.sizes[0] = v;
			op.nsizes = 1;
			break;
		case OPT_SIZES: {
			char *copy = strdup(optarg), *save = NULL, *tok;

			op.nsizes = 0;
			for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (op.nsizes == RD_ARRAY_SIZE(op.sizes) || parse_size(tok, &v)) {
					free(copy);
					goto bad;
				}
				op.sizes[op.nsizes++] = v;
			}
			free(copy);
			if (!op.nsizes)
				goto bad;
			break;
		}
		case 'a':
			op.all_sizes = true;
			break;
		case OPT_WINDOW:
			if (parse_u32(optarg, 1, RD_ST_MAX_WINDOW, &op.window))
				goto bad;
			break;
		case 'D':
			if (parse_u32(optarg, 1, 86400, &op.duration_s))
				goto bad;
			break;
		case OPT_QUICK:
			op.quick = true;
			break;
		case OPT_LAT_ONLY:
			op.lat_only = true;
			break;
		case OPT_BW_ONLY:
			op.bw_only = true;
			break;
		case OPT_TIMEOUT:
			dv = strtod(optarg, &end);
			if (*end || !(dv >= 0.001) || dv > 3600)
				goto bad;
			op.timeout_ms = (int)(dv * 1000);
			break;
		case OPT_EXPECT_GBPS:
			dv = strtod(optarg, &end);
			if (*end || !(dv > 0))
				goto bad;
			op.expect_gbps = dv;
			break;
		case OPT_EXPECT_LAT:
			dv = strtod(optarg, &end);
			if (*end || !(dv > 0))
				goto bad;
			op.expect_lat_us = dv;
			break;
		case OPT_QP_TIMEOUT:
			if (parse_u32(optarg, 0, 31, &v))
				goto bad;
			op.rc.timeout = (uint8_t)v;
			break;
		case OPT_RETRY:
			if (parse_u32(optarg, 0, 7, &v))
				goto bad;
			op.rc.retry_cnt = (uint8_t)v;
			break;
		case OPT_RNR_RETRY:
			if (parse_u32(optarg, 0, 7, &v))
				goto bad;
			op.rc.rnr_retry = (uint8_t)v;
			break;
		case OPT_MIN_RNR:
			if (parse_u32(optarg, 0, 31, &v))
				goto bad;
			op.rc.min_rnr_timer = (uint8_t)v;
			break;
		case OPT_MTU:
			if (parse_u32(optarg, 256, 4096, &v) || mtu_enum(v, &op.rc.mtu))
				goto bad;
			break;
		default:
			ret = rd_cli_getopt_error(&cli, opt, argv);
			goto out;
		}
		continue;
bad:
		for (const struct option *lo = longopts; lo->name; lo++) {
			if (lo->val == opt) {
				ret = rd_cli_usage_error(&cli, "invalid value '%s' for --%s", optarg, lo->name);
				goto out;
			}
		}
		ret = rd_cli_usage_error(&cli, "invalid value '%s'", optarg);
		goto out;
	}
	ret = rd_cli_help_version(&cli, usage);
	if (ret >= 0)
		goto out;
	if (optind < argc)
		op.peer = argv[optind++];
	if (optind < argc) {
		ret = rd_cli_usage_error(&cli, "unexpected argument '%s' (one PEER)", argv[optind]);
		goto out;
	}
	if (op.server && op.peer) {
		ret = rd_cli_usage_error(&cli, "--server takes no PEER");
		goto out;
	}
	if (op.once && !op.server) {
		ret = rd_cli_usage_error(&cli, "--once goes with --server");
		goto out;
	}
	if (op.verbs && !op.peer) {
		ret = rd_cli_usage_error(&cli, "--verbs needs a PEER (the server accepts both kinds)");
		goto out;
	}
	if ((op.quick && (op.lat_only || op.bw_only)) || (op.lat_only && op.bw_only)) {
		ret = rd_cli_usage_error(&cli, "choose one of --quick, --latency-only, --bandwidth-only");
		goto out;
	}
	if ((op.lat_only && op.expect_gbps > 0) || (op.bw_only && op.expect_lat_us > 0)) {
		ret = rd_cli_usage_error(&cli, "--expect-%s needs the stage that --%s-only skips",
					 op.lat_only ? "gbps" : "lat-us",
					 op.lat_only ? "latency" : "bandwidth");
		goto out;
	}
	if (op.server && (op.quick || op.lat_only || op.bw_only)) {
		ret = rd_cli_usage_error(&cli, "the client chooses the stages: --%s goes without --server",
					 op.quick ? "quick" : op.lat_only ? "latency-only" : "bandwidth-only");
		goto out;
	}
	if (cli.sysroot_dir) {
		ret = rd_cli_usage_error(&cli, "--sysroot: a self-test needs the live system");
		goto out;
	}
	if (op.all_sizes) {
		op.nsizes = 0;
		for (uint32_t sz = 2; sz <= (1u << 20); sz <<= 1)
			op.sizes[op.nsizes++] = sz;
	}
	{
		/* Keep within the server's memory limit: fewer outstanding sends for big messages. */
		uint32_t maxs = 65536;
		struct rd_st_params t;
		unsigned int nr, ns;
		size_t slot;

		for (unsigned int i = 0; i < op.nsizes; i++)
			maxs = i == 0 || op.sizes[i] > maxs ? op.sizes[i] : maxs;
		t.max_size = maxs;
		t.window = op.window;
		rd_st_slots(&t, &nr, &ns, &slot);
		while (op.window > 1 && (uint64_t)slot * (2ull * op.window + 4) > RD_ST_MAX_MEM)
			op.window--;
	}
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	(void)signal(SIGPIPE, SIG_IGN);	/* a valid signal: cannot fail */

	/* The client side of rdma_cm picks its device by route; others scan. */
	if (!(op.peer && !op.verbs)) {
		ret = rd_cli_scan_devices(&cli, &list);
		if (ret)
			goto out;
	}
	if (op.server) {
		rd_cli_flush_warnings(&cli);
		ret = server(&op, &cli.sr, &list);
		goto out;
	}

	rep.json = cli.json;
	rep.color = cli.color;
	rep.o = rd_out_new(stdout, cli.json, false);
	if (!rep.o) {
		ret = RD_EXIT_FAIL;
		goto out;
	}
	rd_out_section_begin(rep.o, NULL, NULL);
	rd_out_str(rep.o, RD_JSON, "mode", NULL, op.peer ? (op.verbs ? "verbs" : "rdma_cm") : "loopback");
	if (op.peer) {
		struct rd_st_params prm = { .max_size = 65536, .window = op.window, .iters = op.iters };
		bool ok;

		for (unsigned int i = 0; i < op.nsizes; i++)
			prm.max_size = i == 0 ? op.sizes[0] : (op.sizes[i] > prm.max_size ? op.sizes[i] : prm.max_size);
		if (op.nsizes && prm.max_size < 64)
			prm.max_size = 64;
		rd_out_str(rep.o, RD_JSON, "peer", NULL, op.peer);
		rd_out_u64(rep.o, RD_JSON, "service_port", NULL, op.service_port);
		if (!cli.json)
			printf("rdma-selftest: %s port %u (%s)\n", op.peer, op.service_port,
			       op.verbs ? "verbs with a TCP exchange" : "rdma_cm");
		ok = op.verbs ? client_verbs(&rep, &op, &cli.sr, &list, cli.port, &prm) :
				client_cm(&rep, &op, &prm);
		rd_out_str(rep.o, RD_JSON, "result", NULL, ok ? "pass" : "fail");
		if (rep.failed && !rep.printed_failed_stage)
			rd_out_str(rep.o, RD_JSON, "failed_stage", NULL, rep.fail_stage);
		if (!cli.json)
			printf("rdma-selftest: %s%s%s\n", ok ? "PASS" : "FAIL", rep.failed ? " at " : "",
			       rep.failed ? rep.fail_stage : "");
		ret = ok ? RD_EXIT_OK : RD_EXIT_FAIL;
	} else {
		bool all = true;
		unsigned int tested = 0;

		rd_out_list_begin(rep.o, "ports");
		for (unsigned int i = 0; i < list.n && !stop; i++) {
			for (unsigned int j = 0; j < list.v[i].nports && !stop; j++) {
				struct rd_port *p = &list.v[i].ports[j];

				if (!rd_cli_port_selected(&cli, p))
					continue;
				/* Without -d/-p, only ACTIVE ports; asked for, a down port fails. */
				if (!cli.devices.n && !cli.port && p->state != 4)
					continue;
				tested++;
				all = loopback_port(&rep, &op, &cli.sr, &list.v[i], p) && all;
			}
		}
		rd_out_list_end(rep.o);
		if (!tested) {
			all = false;
			rd_cli_error(&cli, "no ACTIVE port to test (see rdma-devinfo)");
		}
		rd_out_str(rep.o, RD_JSON, "result", NULL, all ? "pass" : "fail");
		ret = all ? RD_EXIT_OK : RD_EXIT_FAIL;
	}
	if (stop)
		ret = RD_EXIT_FAIL;
	rd_out_section_end(rep.o);
out:
	if (rep.o && rd_out_finish(rep.o) && ret == RD_EXIT_OK)
		ret = RD_EXIT_FAIL;
	rd_cli_flush_warnings(&cli);
	rd_device_list_free(&list);
	rd_cli_free(&cli);
	return rd_cli_stdout_status(ret);
}

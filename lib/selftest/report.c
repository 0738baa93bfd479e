// SPDX-License-Identifier: MIT
/* Writing a run as text lines and JSON fields (report.h). */
#define _GNU_SOURCE
#include "report.h"

#include <math.h>
#include <string.h>

void rd_st_print_stage(FILE *f, const struct rd_st_stage *st, bool color)
{
	const char *word = !st->ok ? "FAIL" : st->warn ? "WARN" : "PASS";
	const char *on = !st->ok ? "\033[31m" : st->warn ? "\033[33m" : "\033[32m";

	fprintf(f, "  %s%s%s  %-13s %10.2f ms  %s\n", color ? on : "", word, color ? "\033[0m" : "",
		st->name, st->ms, st->detail);
	fflush(f);
}

void rd_st_verdict(const struct rd_st_run *run, char *buf, size_t len)
{
	size_t n;

	if (!run->ok) {
		snprintf(buf, len, "FAIL%s%s", run->failed ? " at " : "",
			 run->failed ? run->fail_stage : "");
		return;
	}
	n = (size_t)snprintf(buf, len, "PASS");
	for (unsigned int i = 0, k = 0; i < run->nstages && n < len; i++)
		if (run->stages[i].warn)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", k++ ? ", " : ", with a warning at ",
					      run->stages[i].name);
}

static void json_counters(struct rd_out *o, const struct rd_st_ctr_report *r)
{
	rd_out_section_begin(o, "counters", NULL);
	rd_out_u64(o, RD_JSON, "read", NULL, r->ncounters);
	rd_out_u64(o, RD_JSON, "without_delta", NULL, r->nunknown);
	for (unsigned int t = RD_TROUBLE_RETRANS; t < RD_TROUBLE_COUNT; t++)
		rd_out_u64(o, RD_JSON, rd_ctr_trouble_name((enum rd_ctr_trouble)t), NULL, r->sum[t]);
	if (r->have_pkts) {
		rd_out_u64(o, RD_JSON, "tx_packets", NULL, r->tx_pkts);
		rd_out_u64(o, RD_JSON, "rx_packets", NULL, r->rx_pkts);
	}
	rd_out_list_begin(o, "moved");
	for (unsigned int i = 0; i < r->nmoves && i < RD_ST_MAX_MOVES; i++) {
		const struct rd_st_ctrmove *m = &r->moves[i];

		rd_out_section_begin(o, NULL, NULL);
		rd_out_str(o, RD_JSON, "name", NULL, m->name);
		rd_out_str(o, RD_JSON, "source", NULL, rd_ctr_src_dir((enum rd_ctr_src)m->src));
		rd_out_str(o, RD_JSON, "class", NULL, rd_ctr_trouble_name((enum rd_ctr_trouble)m->trouble));
		rd_out_u64(o, RD_JSON, "delta", NULL, m->delta);
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
	rd_out_section_end(o);
}

void rd_st_print_figures(FILE *f, const struct rd_st_run *run)
{
	bool ops = false;	/* an operation other than send: an op column */

	for (unsigned int i = 0; i < run->nlat; i++)
		ops = ops || run->lat[i].op != RD_ST_OP_SEND;
	for (unsigned int i = 0; i < run->nbw; i++)
		ops = ops || run->bw[i].op != RD_ST_OP_SEND;
	if (run->nlat)
		fprintf(f, "\n%s %7s %11s %11s %11s %11s %11s %11s %11s %11s\n", ops ? " op        " : "",
			"#bytes", "#iterations", "t_min[us]", "t_median", "t_avg", "t_stdev", "t_p99",
			"t_p99.9", "t_max");
	for (unsigned int i = 0; i < run->nlat; i++) {
		const struct rd_st_latency *l = &run->lat[i];

		if (ops)
			fprintf(f, " %-10s", rd_st_op_name(l->op));
		fprintf(f, " %7u %11u %11.2f %11.2f %11.2f %11.2f %11.2f %11.2f %11.2f\n", l->size, l->iters,
		       l->min, l->median, l->avg, l->stdev, l->p99, l->p999, l->max);
	}
	if (run->nbw)
		fprintf(f, "\n%s %7s %11s %11s %14s\n", ops ? " op        " : "", "#bytes", "#messages",
			"BW[Gb/s]", "MsgRate[Mpps]");
	for (unsigned int i = 0; i < run->nbw; i++) {
		if (ops)
			fprintf(f, " %-10s", rd_st_op_name(run->bw[i].op));
		fprintf(f, " %7u %11llu %11.3f %14.4f\n", run->bw[i].size,
			(unsigned long long)run->bw[i].msgs, run->bw[i].gbps, run->bw[i].mpps);
	}
	if (run->nlat || run->nbw)
		fprintf(f, "\n");
}

#define PUT(buf, n, ...) \
	do { \
		if ((n) < sizeof(buf)) \
			(n) += (size_t)snprintf((buf) + (n), sizeof(buf) - (n), __VA_ARGS__); \
	} while (0)

void rd_st_next_cmds(const struct rd_st_config *cfg, const struct rd_st_run *run, const char *peer,
		     struct rd_st_next *n)
{
	static const char *const tools[RD_ST_NOPS] = {
		[RD_ST_OP_SEND] = "ib_send_bw", [RD_ST_OP_WRITE] = "ib_write_bw",
		[RD_ST_OP_WRITE_IMM] = "ib_write_bw", [RD_ST_OP_READ] = "ib_read_bw",
		[RD_ST_OP_FADD] = "ib_atomic_bw", [RD_ST_OP_CSWAP] = "ib_atomic_bw",
	};
	unsigned int ops = cfg->ops ? cfg->ops : 1u << RD_ST_OP_SEND, op = 0;
	size_t c = 0, l = 0, k = 0;

	memset(n, 0, sizeof(*n));
	while (op < RD_ST_NOPS - 1 && !(ops & (1u << op)))
		op++;
	snprintf(n->tool, sizeof(n->tool), "%s", tools[op]);
	PUT(n->common, c, "--report_gbits");
	if (op == RD_ST_OP_CSWAP)
		PUT(n->common, c, " -A CMP_AND_SWAP");
	if (cfg->nsizes && op != RD_ST_OP_FADD && op != RD_ST_OP_CSWAP)
		PUT(n->common, c, " -s %u", cfg->sizes[0]);
	if (run->ud)
		PUT(n->common, c, " -c UD");
	if (run->path_mtu && cfg->rc.mtu)
		PUT(n->common, c, " -m %s", rd_st_mtu_str(run->path_mtu));
	if (run->tclass)
		PUT(n->common, c, " --tclass=%u", run->tclass);
	if (run->sl)
		PUT(n->common, c, " -S %u", run->sl);
	PUT(n->local, l, "%s -d %s -i %u", n->tool, run->dev, run->port);
	if (run->gid_index >= 0)
		PUT(n->local, l, " -x %d", run->gid_index);
	PUT(n->local, l, " %s%s%s", n->common, peer ? " " : "", peer ? peer : "");
	PUT(n->nccl, k, "NCCL_IB_HCA=%s:%u", run->dev, run->port);
	if (run->gid_index >= 0)
		PUT(n->nccl, k, " NCCL_IB_GID_INDEX=%d", run->gid_index);
	if (run->tclass)
		PUT(n->nccl, k, " NCCL_IB_TC=%u", run->tclass);
	if (run->sl)
		PUT(n->nccl, k, " NCCL_IB_SL=%u", run->sl);
	if (cfg->rc.timeout != 14)
		PUT(n->nccl, k, " NCCL_IB_TIMEOUT=%u", cfg->rc.timeout);
	if (cfg->rc.retry_cnt != 7)
		PUT(n->nccl, k, " NCCL_IB_RETRY_CNT=%u", cfg->rc.retry_cnt);
}

void rd_st_print_next(FILE *f, const struct rd_st_next *n, const char *peer)
{
	if (peer) {
		fprintf(f, "  next: on %s:  %s %s  (with its own -d and -x: rdma-gids --best there)\n",
			peer, n->tool, n->common);
		fprintf(f, "        here:  %s\n", n->local);
	} else {
		fprintf(f, "  next: %s &  %s localhost\n", n->local, n->local);
	}
	fprintf(f, "        NCCL:  %s\n", n->nccl);
}

void rd_st_json_next(struct rd_out *o, const struct rd_st_next *n)
{
	rd_out_section_begin(o, "next", NULL);
	rd_out_str(o, RD_JSON, "perftest", NULL, n->local);
	rd_out_str(o, RD_JSON, "perftest_peer_options", NULL, n->common);
	rd_out_str(o, RD_JSON, "nccl", NULL, n->nccl);
	rd_out_section_end(o);
}

void rd_st_ops_str(unsigned int ops, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (!ops)
		ops = 1u << RD_ST_OP_SEND;
	for (unsigned int op = 0; op < RD_ST_NOPS && len; op++)
		if (ops & (1u << op) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", rd_st_op_name(op));
}

void rd_st_json_stages(struct rd_out *o, const struct rd_st_run *run)
{
	/* Once connected: the QP type and the path MTU the stages ran on. */
	if (run->path_mtu) {
		rd_out_str(o, RD_JSON, "qp_type", NULL, run->ud ? "ud" : "rc");
		rd_out_u64(o, RD_JSON, "path_mtu", NULL, rd_mtu_bytes(run->path_mtu));
	}
	rd_out_list_begin(o, "stages");
	for (unsigned int i = 0; i < run->nstages; i++) {
		const struct rd_st_stage *st = &run->stages[i];

		rd_out_section_begin(o, NULL, NULL);
		rd_out_str(o, RD_JSON, "stage", NULL, st->name);
		rd_out_str(o, RD_JSON, "result", NULL, !st->ok ? "fail" : st->warn ? "warn" : "pass");
		rd_out_double(o, RD_JSON, "ms", NULL, round(st->ms * 1000) / 1000, NULL);
		rd_out_str(o, RD_JSON, st->ok ? "detail" : "diagnosis", NULL, st->detail);
		if (st->wc) {
			rd_out_str(o, RD_JSON, "wc_status", NULL, ibv_wc_status_str(st->status));
			rd_out_u64(o, RD_JSON, "vendor_err", NULL, st->vendor_err);
		}
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
	if (run->ctr.ncounters)
		json_counters(o, &run->ctr);
	if (!run->figures)
		return;	/* the caller names the failed stage */
	/* Each array only when its stages ran and measured (not --quick, --*-only). */
	if (!run->nlat)
		goto bandwidth;
	rd_out_list_begin(o, "latency");
	for (unsigned int i = 0; i < run->nlat; i++) {
		const struct rd_st_latency *l = &run->lat[i];

		rd_out_section_begin(o, NULL, NULL);
		rd_out_str(o, RD_JSON, "op", NULL, rd_st_op_name(l->op));
		rd_out_u64(o, RD_JSON, "bytes", NULL, l->size);
		rd_out_u64(o, RD_JSON, "iterations", NULL, l->iters);
		rd_out_str(o, RD_JSON, "round_trip", NULL, l->whole ? "whole" : "half");
		rd_out_double(o, RD_JSON, "min_us", NULL, l->min, NULL);
		rd_out_double(o, RD_JSON, "median_us", NULL, l->median, NULL);
		rd_out_double(o, RD_JSON, "avg_us", NULL, l->avg, NULL);
		rd_out_double(o, RD_JSON, "stdev_us", NULL, l->stdev, NULL);
		rd_out_double(o, RD_JSON, "p99_us", NULL, l->p99, NULL);
		rd_out_double(o, RD_JSON, "p99_9_us", NULL, l->p999, NULL);
		rd_out_double(o, RD_JSON, "max_us", NULL, l->max, NULL);
		if (l->resent)
			rd_out_u64(o, RD_JSON, "resent", NULL, l->resent);
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
bandwidth:
	if (!run->nbw)
		goto failed;
	rd_out_list_begin(o, "bandwidth");
	for (unsigned int i = 0; i < run->nbw; i++) {
		const struct rd_st_bandwidth *b = &run->bw[i];

		rd_out_section_begin(o, NULL, NULL);
		rd_out_str(o, RD_JSON, "op", NULL, rd_st_op_name(b->op));
		rd_out_u64(o, RD_JSON, "bytes", NULL, b->size);
		rd_out_u64(o, RD_JSON, "messages", NULL, b->msgs);
		if (run->ud)
			rd_out_u64(o, RD_JSON, "lost", NULL, b->lost);
		rd_out_double(o, RD_JSON, "seconds", NULL, b->seconds, NULL);
		rd_out_double(o, RD_JSON, "gbps", NULL, b->gbps, NULL);
		if (run->ud)
			rd_out_double(o, RD_JSON, "sent_gbps", NULL, b->sent_gbps, NULL);
		rd_out_double(o, RD_JSON, "mpps", NULL, b->mpps, NULL);
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
failed:
	if (run->failed)
		rd_out_str(o, RD_JSON, "failed_stage", NULL, run->fail_stage);
}

void rd_st_json_where(struct rd_out *o, const struct rd_st_run *run)
{
	if (!run->dev[0])
		return;
	rd_out_str(o, RD_JSON, "dev", NULL, run->dev);
	rd_out_u64(o, RD_JSON, "port", NULL, run->port);
	if (run->gid_index >= 0)
		rd_out_u64(o, RD_JSON, "gid_index", NULL, (uint64_t)run->gid_index);
	if (run->gid_type[0])
		rd_out_str(o, RD_JSON, "gid_type", NULL, run->gid_type);
}

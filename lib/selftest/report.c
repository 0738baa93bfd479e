// SPDX-License-Identifier: MIT
/* Writing a run as text lines and JSON fields (report.h). */
#define _GNU_SOURCE
#include "report.h"

#include <math.h>

void rd_st_print_stage(FILE *f, const struct rd_st_stage *st, bool color)
{
	const char *word = !st->ok ? "FAIL" : st->warn ? "WARN" : "PASS";
	const char *on = !st->ok ? "\033[31m" : st->warn ? "\033[33m" : "\033[32m";

	fprintf(f, "  %s%s%s  %-10s %10.2f ms  %s\n", color ? on : "", word, color ? "\033[0m" : "",
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
	unsigned int shown = r->nmoves < RD_ST_MAX_MOVES ? r->nmoves : RD_ST_MAX_MOVES;

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
	for (unsigned int i = 0; i < shown; i++) {
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
		return;
	rd_out_list_begin(o, "latency");
	for (unsigned int i = 0; i < run->nlat; i++) {
		const struct rd_st_latency *l = &run->lat[i];

		rd_out_section_begin(o, NULL, NULL);
		rd_out_str(o, RD_JSON, "op", NULL, rd_st_op_name(l->op));
		rd_out_u64(o, RD_JSON, "bytes", NULL, l->size);
		rd_out_u64(o, RD_JSON, "iterations", NULL, l->iters);
		rd_out_double(o, RD_JSON, "min_us", NULL, l->min, NULL);
		rd_out_double(o, RD_JSON, "median_us", NULL, l->median, NULL);
		rd_out_double(o, RD_JSON, "avg_us", NULL, l->avg, NULL);
		rd_out_double(o, RD_JSON, "stdev_us", NULL, l->stdev, NULL);
		rd_out_double(o, RD_JSON, "p99_us", NULL, l->p99, NULL);
		rd_out_double(o, RD_JSON, "p99_9_us", NULL, l->p999, NULL);
		rd_out_double(o, RD_JSON, "max_us", NULL, l->max, NULL);
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
	rd_out_list_begin(o, "bandwidth");
	for (unsigned int i = 0; i < run->nbw; i++) {
		const struct rd_st_bandwidth *b = &run->bw[i];

		rd_out_section_begin(o, NULL, NULL);
		rd_out_str(o, RD_JSON, "op", NULL, rd_st_op_name(b->op));
		rd_out_u64(o, RD_JSON, "bytes", NULL, b->size);
		rd_out_u64(o, RD_JSON, "messages", NULL, b->msgs);
		rd_out_double(o, RD_JSON, "seconds", NULL, b->seconds, NULL);
		rd_out_double(o, RD_JSON, "gbps", NULL, b->gbps, NULL);
		rd_out_double(o, RD_JSON, "mpps", NULL, b->mpps, NULL);
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
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

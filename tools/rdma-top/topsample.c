// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "topsample.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/base.h"
#include "topfmt.h"

/* JSON numbers: rounded where more digits mean nothing, printed without float noise. */
static double round_to(double v, double unit)
{
	return round(v / unit) * unit;
}

static void json_sum(struct rd_out *o, const struct rd_sum_val *s, const char *total_key,
		     const char *rate_key, double rate_scale, double unit)
{
	if (!s->present)
		return;
	if (s->total_known)
		rd_out_u64(o, RD_JSON, total_key, NULL, s->total);
	if (s->rate_state == RD_RATE_OK || s->rate_state == RD_RATE_PARTIAL)
		rd_out_double(o, RD_JSON, rate_key, NULL, round_to(s->rate * rate_scale, unit), NULL);
}

static void json_counters(struct rd_out *o, const struct rd_watch_port *p, enum rd_ctr_src src)
{
	static const struct rd_name k_value = RD_NAME_PLAIN("value"),
				    k_delta = RD_NAME_PLAIN("delta"), k_rate = RD_NAME_PLAIN("rate"),
				    k_wrapped = RD_NAME_PLAIN("wrapped"),
				    k_reset = RD_NAME_PLAIN("reset"),
				    k_saturated = RD_NAME_PLAIN("saturated");
	bool any = false;

	for (size_t i = 0; i < p->ctrs.n; i++)
		any |= p->ctrs.v[i].src == src;
	if (!any)
		return;
	rd_out_section_begin(o, rd_ctr_src_dir(src), NULL);
	for (size_t i = 0; i < p->ctrs.n; i++) {
		const struct rd_counter *c = &p->ctrs.v[i];
		struct rd_out_member m[4];
		size_t n = 0;

		if (c->src != src)
			continue;
		if (c->err) {
			rd_out_section_begin_name(o, &c->key);
			rd_out_str(o, RD_JSON, "error", NULL, rd_read_strerror(c->err));
			rd_out_section_end(o);
			continue;
		}
		m[n++] = (struct rd_out_member){ &k_value, RD_JSON, RD_OUT_U64, .u = c->value };
		switch (c->kind) {
		case RD_DELTA_OK:
		case RD_DELTA_WRAP:
			m[n++] = (struct rd_out_member){ &k_delta, RD_JSON, RD_OUT_U64, .u = c->delta };
			m[n++] = (struct rd_out_member){ &k_rate, RD_JSON, RD_OUT_DOUBLE,
							 .d = round_to(c->rate, 1e-3) };
			if (c->kind == RD_DELTA_WRAP)
				m[n++] = (struct rd_out_member){ &k_wrapped, RD_JSON, RD_OUT_BOOL,
								 .b = true };
			break;
		case RD_DELTA_RESET:
			m[n++] = (struct rd_out_member){ &k_reset, RD_JSON, RD_OUT_BOOL, .b = true };
			break;
		case RD_DELTA_SATURATED:
			m[n++] = (struct rd_out_member){ &k_saturated, RD_JSON, RD_OUT_BOOL, .b = true };
			break;
		default:
			break;
		}
		rd_out_object_name(o, &c->key, m, n);
	}
	rd_out_section_end(o);
}

/* One port as a JSON object: facts, totals, rates, every counter. */
static void json_port(struct rd_out *o, const struct rd_watch_port *p, double now,
		      unsigned long sample)
{
	rd_out_section_begin(o, NULL, NULL);
	if (now > 0) {
		char when[40];
		time_t t = (time_t)now;
		struct tm tm;

		gmtime_r(&t, &tm);
		(void)strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);	/* fits */
		snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03dZ",
			 (int)((now - (double)t) * 1000) % 1000);
		rd_out_str(o, RD_JSON, "time", NULL, when);
	}
	if (sample)
		rd_out_u64(o, RD_JSON, "sample", NULL, sample);
	rd_out_str(o, RD_JSON, "dev", NULL, p->dev);
	rd_out_u64(o, RD_JSON, "port", NULL, p->port);
	rd_out_str(o, RD_JSON, "netdev", NULL, p->netdev[0] ? p->netdev : NULL);
	if (p->gone) {
		rd_out_bool(o, RD_JSON, "gone", NULL, true);
		rd_out_section_end(o);
		return;
	}
	rd_out_str(o, RD_JSON, "transport", NULL, p->transport);
	rd_out_str(o, RD_JSON, "state", NULL, p->state_known ? p->state_name : NULL);
	if (p->link_known)
		rd_out_double(o, RD_JSON, "rate_gbps", NULL, p->link_gbps, NULL);
	if (p->ctrs.have_prev && p->ctrs.interval > 0)
		rd_out_double(o, RD_JSON, "interval", NULL, round_to(p->ctrs.interval, 1e-6), NULL);
	json_sum(o, &p->sum[RD_SUM_TX_BYTES], "tx_bytes", "tx_gbps", 8e-9, 1e-6);
	json_sum(o, &p->sum[RD_SUM_RX_BYTES], "rx_bytes", "rx_gbps", 8e-9, 1e-6);
	json_sum(o, &p->sum[RD_SUM_TX_PKTS], "tx_packets", "tx_pps", 1, 1e-3);
	json_sum(o, &p->sum[RD_SUM_RX_PKTS], "rx_packets", "rx_pps", 1, 1e-3);
	if (p->util_known)
		rd_out_double(o, RD_JSON, "util_pct", NULL, round_to(p->util_pct, 1e-3), NULL);
	json_sum(o, &p->sum[RD_SUM_ERRORS], "errors", "errors_per_s", 1, 1e-3);
	/* Some error counter saturated or unreadable: errors and errors_per_s are lower bounds. */
	if (p->sum[RD_SUM_ERRORS].rate_state == RD_RATE_PARTIAL || p->sum[RD_SUM_ERRORS].total_partial)
		rd_out_bool(o, RD_JSON, "errors_partial", NULL, true);
	json_sum(o, &p->sum[RD_SUM_CNP], "cnp", "cnp_per_s", 1, 1e-3);
	json_sum(o, &p->sum[RD_SUM_ECN], "ecn", "ecn_per_s", 1, 1e-3);
	rd_out_str(o, RD_JSON, "hw_source", NULL, p->hw_source);
	json_counters(o, p, RD_SRC_PMA);
	json_counters(o, p, RD_SRC_HW);
	rd_out_section_end(o);
}

static const struct rd_col rate_cols[] = {
	{ "dev", "DEV", false, false },	 { "port", "PORT", true, false },     { "netdev", "NETDEV", false, false },
	{ "state", "STATE", false, false },	 { "speed", "SPEED", true, false },   { "tx", "TX_Gbps", true, false },
	{ "rx", "RX_Gbps", true, false },	 { "txp", "TX_pps", true, false },    { "rxp", "RX_pps", true, false },
	{ "util", "UTIL%", true, false },	 { "err", "ERR/s", true, false },     { "cnp", "CNP/s", true, false },
	{ "ecn", "ECN/s", true, false },
};

static const struct rd_col total_cols[] = {
	{ "dev", "DEV", false, false },	  { "port", "PORT", true, false },	   { "netdev", "NETDEV", false, false },
	{ "state", "STATE", false, false },	  { "speed", "SPEED", true, false },	   { "tx", "TX_BYTES", true, false },
	{ "rx", "RX_BYTES", true, false },	  { "txp", "TX_PKTS", true, false },	   { "rxp", "RX_PKTS", true, false },
	{ "err", "ERRORS", true, false },	  { "cnp", "CNP", true, false },	   { "ecn", "ECN", true, false },
};
const struct rd_out_colset rd_top_tables[RD_TOP_NTABLES] = {
	{ rate_cols, RD_ARRAY_SIZE(rate_cols) },
	{ total_cols, RD_ARRAY_SIZE(total_cols) },
};

static enum rd_color state_color(const struct rd_watch_port *p)
{
	if (p->gone)
		return RD_C_DIM;
	if (!p->state_known)
		return RD_C_NONE;
	return p->state == 4 ? RD_C_GOOD : p->state == 1 ? RD_C_BAD : RD_C_WARN;
}

/* One table row of text: rates, or totals with absolute. */
static void text_port(struct rd_out *o, const struct rd_watch_port *p, bool absolute)
{
	static const struct {
		const char *key;
		enum rd_sum which;
	} cells[] = {
		{ "tx", RD_SUM_TX_BYTES }, { "rx", RD_SUM_RX_BYTES }, { "txp", RD_SUM_TX_PKTS },
		{ "rxp", RD_SUM_RX_PKTS }, { "err", RD_SUM_ERRORS },  { "cnp", RD_SUM_CNP },
		{ "ecn", RD_SUM_ECN },
	};
	char buf[32];

	rd_out_row_begin(o);
	rd_out_cstr(o, RD_TEXT, "dev", NULL, RD_C_NAME, p->dev);
	rd_out_u64(o, RD_TEXT, "port", NULL, p->port);
	rd_out_str(o, RD_TEXT, "netdev", NULL, p->netdev[0] ? p->netdev : NULL);
	rd_out_cstr(o, RD_TEXT, "state", NULL, state_color(p), rd_fmt_state(p));
	rd_fmt_link(p, buf, sizeof(buf));
	rd_out_str(o, RD_TEXT, "speed", NULL, buf);
	for (size_t i = 0; i < RD_ARRAY_SIZE(cells); i++) {
		const struct rd_sum_val *s = &p->sum[cells[i].which];
		enum rd_color c = RD_C_NONE;

		rd_fmt_sum(s, cells[i].which, !absolute, false, buf, sizeof(buf));
		if (cells[i].which == RD_SUM_ERRORS && !absolute &&
		    (s->rate_state == RD_RATE_OK || s->rate_state == RD_RATE_PARTIAL) && s->rate > 0)
			c = RD_C_BAD;
		else if (s->saturated && !absolute)
			c = RD_C_WARN;
		rd_out_cstr(o, RD_TEXT, cells[i].key, NULL, c, buf);
	}
	if (!absolute) {
		rd_fmt_util(p, buf, sizeof(buf));
		rd_out_str(o, RD_TEXT, "util", NULL, buf);
	}
	rd_out_row_end(o);
}

static double realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int rd_top_print_sample(struct rd_out *o, const struct rd_portwatch *pw, unsigned long sample,
			bool absolute, bool header)
{
	double now = realtime();

	if (rd_out_is_json(o)) {
		for (size_t i = 0; i < pw->n; i++)
			json_port(o, pw->v[i], absolute ? 0 : now, absolute ? 0 : sample);
		return 0;
	}
	if (header) {
		time_t t = (time_t)now;
		struct tm tm;
		char when[32];

		localtime_r(&t, &tm);
		(void)strftime(when, sizeof(when), "%H:%M:%S", &tm);	/* fits */
		rd_out_line(o, "%srdma-top - %s - sample %lu - %zu port%s", sample > 1 ? "\n" : "", when,
			    sample, rd_portwatch_live(pw), rd_portwatch_live(pw) == 1 ? "" : "s");
	}
	if (absolute)
		rd_out_table_begin(o, NULL, total_cols, RD_ARRAY_SIZE(total_cols), true);
	else
		rd_out_table_begin(o, NULL, rate_cols, RD_ARRAY_SIZE(rate_cols), true);
	for (size_t i = 0; i < pw->n; i++)
		text_port(o, pw->v[i], absolute);
	rd_out_table_end(o);
	return fflush(stdout) ? rd_write_error(errno) : 0;
}

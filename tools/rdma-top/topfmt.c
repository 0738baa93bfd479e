// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "topfmt.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "output/output.h"

/*
 * Integer and fixed-point text without printf: the batch table formats a
 * dozen numbers per port at every refresh, and printf's float path was a
 * fifth of a refresh.
 */
static void put_u64(char *buf, size_t len, uint64_t v)
{
	char tmp[24];
	size_t n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < sizeof(tmp));
	if (n >= len)
		n = len - 1;	/* callers pass room for 20 digits; never cut in practice */
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
}

/* v >= 0 with dec (0-3) decimals, rounded half up; suffix appended if not 0. */
static void put_fixed(char *buf, size_t len, double v, int dec, char suffix)
{
	static const double scale[] = { 1, 10, 100, 1000 };
	uint64_t x = (uint64_t)(v * scale[dec] + 0.5), whole = x, frac = 0;
	size_t n;

	for (int i = 0; i < dec; i++)
		whole /= 10;
	frac = x - whole * (uint64_t)scale[dec];
	put_u64(buf, len, whole);
	n = strlen(buf);
	if (dec && n + 1 + (size_t)dec < len) {
		buf[n++] = '.';
		for (int i = dec - 1; i >= 0; i--) {
			buf[n + (size_t)i] = (char)('0' + frac % 10);
			frac /= 10;
		}
		n += (size_t)dec;
		buf[n] = '\0';
	}
	if (suffix && n + 1 < len) {
		buf[n++] = suffix;
		buf[n] = '\0';
	}
}

void rd_fmt_count(double v, bool si, bool frac, char *buf, size_t len)
{
	static const char suffix[] = "kMGTPE";
	int i = -1;

	if (v < 0 || isnan(v) || v > 1e19) {
		snprintf(buf, len, "?");
		return;
	}
	if (frac && v > 0 && v < 9.95) {
		/* Fractional event rates: 0.5 errors/s is one error in two seconds. */
		put_fixed(buf, len, v, 1, 0);
		return;
	}
	if (!si || v < 999.5) {
		put_fixed(buf, len, v, 0, 0);
		return;
	}
	/* v >= 999.5 here: at least one step, so i >= 0. */
	do {
		v /= 1000;
		i++;
	} while (v >= 999.5 && i < (int)sizeof(suffix) - 2);
	put_fixed(buf, len, v, v < 9.995 ? 2 : v < 99.95 ? 1 : 0, suffix[i]);
}

void rd_fmt_gbps_value(double bytes_per_s, char *buf, size_t len)
{
	double g = bytes_per_s * 8 / 1e9;

	if (g > 0 && g < 0.005)
		snprintf(buf, len, "<0.01");
	else if (!(g >= 0) || g > 1e15)
		snprintf(buf, len, "?");
	else
		put_fixed(buf, len, g, g >= 99.95 ? 1 : 2, 0);
}

void rd_fmt_link(const struct rd_watch_port *p, char *buf, size_t len)
{
	if (!p->link_known)
		snprintf(buf, len, "-");
	else if (p->link_gbps == floor(p->link_gbps))
		snprintf(buf, len, "%.0fG", p->link_gbps);
	else
		snprintf(buf, len, "%.1fG", p->link_gbps);
}

const char *rd_fmt_state(const struct rd_watch_port *p)
{
	if (p->gone)
		return "gone";
	return p->state_known && p->state_name[0] ? p->state_name : "-";
}

void rd_fmt_sum(const struct rd_sum_val *s, enum rd_sum which, bool rate, bool si, char *buf,
		size_t len)
{
	bool bytes = which == RD_SUM_TX_BYTES || which == RD_SUM_RX_BYTES;
	char num[32];

	if (!s->present) {
		snprintf(buf, len, "-");
		return;
	}
	if (!rate) {
		if (!s->total_known) {
			snprintf(buf, len, "?");
			return;
		}
		if (!si)
			put_u64(num, sizeof(num) - 1, s->total);
		else
			rd_fmt_count((double)s->total, true, false, num, sizeof(num) - 1);
		snprintf(buf, len, "%s%s", num, s->total_partial ? "+" : "");
		return;
	}
	switch (s->rate_state) {
	case RD_RATE_NONE:
		snprintf(buf, len, "-");
		return;
	case RD_RATE_UNKNOWN:
		snprintf(buf, len, s->saturated ? "sat" : s->reset ? "reset" : "?");
		return;
	case RD_RATE_OK:
	case RD_RATE_PARTIAL:
		break;
	}
	if (bytes)
		rd_fmt_gbps_value(s->rate, num, sizeof(num) - 1);
	else
		rd_fmt_count(s->rate, si, true, num, sizeof(num) - 1);
	snprintf(buf, len, "%s%s", num, s->rate_state == RD_RATE_PARTIAL ? "+" : "");
}

void rd_fmt_util(const struct rd_watch_port *p, char *buf, size_t len)
{
	if (!p->util_known || !(p->util_pct >= 0) || p->util_pct > 1e9)
		snprintf(buf, len, "-");
	else
		put_fixed(buf, len, p->util_pct, 1, 0);
}

void rd_fmt_counter_rate(const struct rd_counter *c, char *buf, size_t len)
{
	char num[32];

	switch (c->kind) {
	case RD_DELTA_OK:
	case RD_DELTA_WRAP:
		break;
	case RD_DELTA_SATURATED:
		snprintf(buf, len, "sat");
		return;
	case RD_DELTA_RESET:
		snprintf(buf, len, "reset");
		return;
	case RD_DELTA_ERROR:
		snprintf(buf, len, "?");
		return;
	default:
		snprintf(buf, len, "-");
		return;
	}
	if (c->info.scale == 4) {
		rd_fmt_gbps_value(c->rate * c->info.scale, num, sizeof(num));
		snprintf(buf, len, "%s Gb/s", num);
	} else {
		rd_fmt_count(c->rate, true, true, num, sizeof(num));
		snprintf(buf, len, "%s/s", num);
	}
}

/* ---- OpenMetrics / Prometheus text ---- */

struct metrics_ctx {
	FILE *fp;
	bool om;
	const struct rd_portwatch *pw;
};

static void put_labels(FILE *fp, const struct rd_watch_port *p)
{
	fputs("{device=\"", fp);
	rd_metric_label_value(fp, p->dev);
	fprintf(fp, "\",port=\"%u\",netdev=\"", p->port);
	rd_metric_label_value(fp, p->netdev);
	/* The node GUID under rdma-fabric's name and form: a host's port joins the fabric's cable. */
	fprintf(fp, "\",local_guid=\"%s\"}", p->guid);
}

/* Metric names: [a-zA-Z0-9_:], anything else becomes '_'. */
static void metric_name(char *buf, size_t len, const char *prefix, const char *name)
{
	size_t off = (size_t)snprintf(buf, len, "%s", prefix);

	for (; *name && off + 1 < len; name++, off++) {
		char c = *name;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == ':'))
			c = '_';
		buf[off] = c;
	}
	buf[off < len ? off : len - 1] = '\0';
}

static void family(const struct metrics_ctx *m, const char *name, const char *type,
		   const char *help)
{
	const char *sfx = !m->om && strcmp(type, "counter") == 0 ? "_total" : "";

	fprintf(m->fp, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, sfx, help, name, sfx, type);
}

static void sample(const struct metrics_ctx *m, const char *name, bool counter,
		   const struct rd_watch_port *p, const char *value)
{
	fprintf(m->fp, "%s%s", name, counter ? "_total" : "");
	put_labels(m->fp, p);
	fprintf(m->fp, " %s\n", value);
}

static const struct {
	enum rd_sum which;
	const char *name, *help;
} sum_families[] = {
	{ RD_SUM_TX_BYTES, "rdma_tx_bytes",
	  "Bytes transmitted (port_xmit_data x 4, or the device's byte counter)." },
	{ RD_SUM_RX_BYTES, "rdma_rx_bytes",
	  "Bytes received (port_rcv_data x 4, or the device's byte counter)." },
	{ RD_SUM_TX_PKTS, "rdma_tx_packets", "Packets transmitted." },
	{ RD_SUM_RX_PKTS, "rdma_rx_packets", "Packets received." },
	{ RD_SUM_ERRORS, "rdma_errors", "Sum of the port's error counters." },
	{ RD_SUM_CNP, "rdma_cnp_handled", "Congestion notification packets handled (reaction point)." },
	{ RD_SUM_ECN, "rdma_ecn_marked_packets", "ECN-marked RoCE packets received (notification point)." },
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every counter family: the sorted union of the names over the live ports. */
static int counter_families(const struct metrics_ctx *m, enum rd_ctr_src src)
{
	const struct rd_portwatch *pw = m->pw;
	struct rd_strlist names = { 0 };
	char mname[192], help[256], val[32];

	for (size_t i = 0; i < pw->n; i++) {
		const struct rd_watch_port *p = pw->v[i];

		for (size_t k = 0; !p->gone && k < p->ctrs.n; k++)
			if (p->ctrs.v[k].src == src && rd_strlist_add_unique(&names, p->ctrs.v[k].name))
				goto nomem;
	}
	if (names.n > 1)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t j = 0; j < names.n; j++) {
		struct rd_ctr_info info;

		rd_ctr_classify(src, names.v[j], &info);
		metric_name(mname, sizeof(mname), src == RD_SRC_PMA ? "rdma_" : "rdma_hw_", names.v[j]);
		if (src == RD_SRC_HW)
			snprintf(help, sizeof(help), "hw_counters/%s (driver statistic).", names.v[j]);
		else if (info.scale == 4)
			snprintf(help, sizeof(help),
				 "counters/%s: data in 4-octet words, x4 for bytes (PMA; 32 or 64 bits).",
				 names.v[j]);
		else if (info.role != RD_SUM_NONE)
			snprintf(help, sizeof(help), "counters/%s (PMA; 32 or 64 bits).", names.v[j]);
		else
			snprintf(help, sizeof(help), "counters/%s (PMA; %u bits, saturates).", names.v[j],
				 info.width);
		family(m, mname, "counter", help);
		for (size_t i = 0; i < pw->n; i++) {
			const struct rd_watch_port *p = pw->v[i];

			for (size_t k = 0; !p->gone && k < p->ctrs.n; k++) {
				const struct rd_counter *c = &p->ctrs.v[k];

				if (c->src != src || c->err || strcmp(c->name, names.v[j]) != 0)
					continue;
				snprintf(val, sizeof(val), "%llu", (unsigned long long)c->value);
				sample(m, mname, true, p, val);
			}
		}
	}
	rd_strlist_free(&names);
	return 0;
nomem:
	rd_strlist_free(&names);
	return -ENOMEM;
}

int rd_metrics_write(FILE *fp, const struct rd_portwatch *pw, bool openmetrics)
{
	struct metrics_ctx m = { .fp = fp, .om = openmetrics, .pw = pw };
	char val[32];
	int ret;

	bool any = false;

	for (size_t i = 0; i < pw->n; i++) {
		if (pw->v[i]->gone || !pw->v[i]->state_known)
			continue;
		if (!any)
			family(&m, "rdma_port_state", "gauge",
			       "IB port state: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE.");
		any = true;
		snprintf(val, sizeof(val), "%llu", (unsigned long long)pw->v[i]->state);
		sample(&m, "rdma_port_state", false, pw->v[i], val);
	}
	any = false;
	for (size_t i = 0; i < pw->n; i++) {
		if (pw->v[i]->gone || !pw->v[i]->link_known)
			continue;
		if (!any)
			family(&m, "rdma_link_speed_bytes_per_second", "gauge",
			       "Link speed: the netdev's (RoCE, iWARP) or the port rate (InfiniBand).");
		any = true;
		snprintf(val, sizeof(val), "%.0f", pw->v[i]->link_gbps * 1e9 / 8);
		sample(&m, "rdma_link_speed_bytes_per_second", false, pw->v[i], val);
	}
	for (size_t f = 0; f < RD_ARRAY_SIZE(sum_families); f++) {
		any = false;
		for (size_t i = 0; i < pw->n; i++)
			any |= !pw->v[i]->gone && pw->v[i]->sum[sum_families[f].which].total_known;
		if (!any)
			continue;
		family(&m, sum_families[f].name, "counter", sum_families[f].help);
		for (size_t i = 0; i < pw->n; i++) {
			const struct rd_sum_val *s = &pw->v[i]->sum[sum_families[f].which];

			if (pw->v[i]->gone || !s->total_known)
				continue;
			snprintf(val, sizeof(val), "%llu", (unsigned long long)s->total);
			sample(&m, sum_families[f].name, true, pw->v[i], val);
		}
	}
	ret = counter_families(&m, RD_SRC_PMA);
	if (ret == 0)
		ret = counter_families(&m, RD_SRC_HW);
	if (openmetrics)
		fputs("# EOF\n", fp);
	if (fflush(fp))
		return rd_write_error(errno);
	if (ferror(fp))
		return rd_write_error(0);
	return ret;
}

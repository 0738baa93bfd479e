// SPDX-License-Identifier: MIT
/* rdma-top: live RDMA port counters as rates; batch, JSON lines and OpenMetrics modes. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "stats/stats.h"
#include "output/output.h"
#include "base/base.h"
#include "rdma-top/ticker.h"
#include "rdma-top/topfmt.h"
#include "rdma-top/topne.h"
#include "rdma-top/topui.h"

enum {
	OPT_ONCE = RD_OPT_TOOL_BASE,
	OPT_FORMAT,
	OPT_TEXTFILE,
};

enum fmt { FMT_TEXT, FMT_JSON, FMT_OPENMETRICS, FMT_PROMETHEUS, FMT_NODE_EXPORTER };

static void usage(const char *prog)
{
	printf("Usage: %s [options]\n"
	       "Live RDMA port counters as rates: Gb/s, packets/s, utilization, errors/s,\n"
	       "CNP/ECN per second; every counter of a port in a detail pane.\n"
	       "\n"
	       "Options:\n"
	       "  -b, --batch           print samples as text (or JSON lines with -j) instead\n"
	       "                        of the screen; the default when stdout is not a tty\n"
	       "  -n, --iterations N    stop after N samples (the screen too)\n"
	       "  -i, --interval SEC    time between samples (default 1; 0 in batch: no wait)\n"
	       "      --once            one sample of absolute values, no rates\n"
	       "      --format FMT      text, json (like -j), or one scrape: openmetrics,\n"
	       "                        prometheus, node-exporter (node_exporter's infiniband\n"
	       "                        collector names, for its textfile collector)\n"
	       "      --textfile PATH   rewrite PATH atomically with a node-exporter (or\n"
	       "                        --format prometheus) scrape every interval\n"
	       "  -d, --device NAME     only this device (repeatable)\n"
	       "  -p, --port N          only port N\n"
	       "  -j, --json            JSON: one object per port per sample (JSON lines)\n"
	       RD_TABLE_USAGE("dev,port,tx_gbps")
	       "      --sysroot DIR     read DIR/sys instead of /sys (no netlink)\n"
	       "      --color[=WHEN]    colour: auto (default), always, never\n"
	       "  -h, --help            this help\n"
	       "  -V, --version         version\n"
	       "\n"
	       "Keys: q quit, arrows/j/k move, Enter/d detail, s/S sort, +/- interval,\n"
	       "p pause, a absolute/rates, z hide zero-rate counters, h help.\n"
	       "\n"
	       "Exit status: 0 ok, 1 failure (no such device, no devices, write error),\n"
	       "2 usage error.\n",
	       prog);
}

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
static const struct rd_out_colset tables[] = {
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

/* Print one sample; 0 or -EIO. */
static int print_sample(struct rd_out *o, const struct rd_portwatch *pw, unsigned long sample,
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

/*
 * The sampling loop of -b and --textfile: refresh, one step (print a sample,
 * replace the file; nonzero ends the loop with failure), wait for the tick;
 * count steps at most, and signals end it cleanly.
 */
static int sample_loop(struct rd_cli *cli, struct rd_portwatch *pw, double interval,
		       unsigned long count, int (*step)(void *ctx, unsigned long sample), void *ctx)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, 0 };
	struct rd_ticker t;
	int ret;

	ret = rd_ticker_open(&t, -1, sigs);
	if (ret == 0 && interval > 0)
		ret = rd_ticker_arm(&t, interval);
	if (ret) {
		rd_cli_error(cli, "cannot set up the sampling loop: %s", strerror(-ret));
		rd_ticker_close(&t);
		return RD_EXIT_FAIL;
	}
	ret = RD_EXIT_OK;
	for (unsigned long sample = 1;; sample++) {
		unsigned int ev = 0;
		int signo;

		if (rd_portwatch_refresh(pw)) {
			rd_cli_error(cli, "out of memory");
			ret = RD_EXIT_FAIL;
			break;
		}
		if (step(ctx, sample)) {
			ret = RD_EXIT_FAIL;
			break;
		}
		if (count && sample >= count)
			break;
		/* With -i 0 only look for a signal; otherwise sleep until the tick. */
		rd_sysroot_forget();	/* no directory kept open while waiting */
		do {
			if (rd_ticker_wait(&t, interval > 0 ? -1 : 0, &ev, &signo))
				ev = RD_EV_SIGNAL;
		} while (interval > 0 && !ev);
		if (ev & RD_EV_SIGNAL)
			break;
	}
	rd_ticker_close(&t);
	return ret;
}

struct batch {
	struct rd_cli *cli;
	struct rd_portwatch *pw;
	struct rd_out *o;
};

/* -b: one sample on stdout. */
static int batch_step(void *ctx, unsigned long sample)
{
	struct batch *b = ctx;

	if (print_sample(b->o, b->pw, sample, false, true))	/* reported at exit */
		return -EIO;
	rd_cli_flush_warnings(b->cli);	/* e.g. about a device that appeared */
	return 0;
}

static int run_batch(struct rd_cli *cli, struct rd_portwatch *pw, struct rd_out *o,
		     double interval, unsigned long count)
{
	struct batch b = { .cli = cli, .pw = pw, .o = o };

	return sample_loop(cli, pw, interval, count, batch_step, &b);
}

/* One metrics scrape into fp (the callback of rd_textfile_replace too). */
struct scrape {
	struct rd_cli *cli;
	struct rd_portwatch *pw;
	enum fmt format;
};

static int write_scrape(FILE *fp, void *arg)
{
	struct scrape *s = arg;
	struct rd_device_list list = { 0 };
	const char *unknown = NULL;
	int ret;

	if (s->format != FMT_NODE_EXPORTER)
		return rd_metrics_write(fp, s->pw, s->format == FMT_OPENMETRICS);
	/* State, physical state, rate and device facts as they are now (not the netdev lists). */
	ret = rd_device_scan_flags(&s->cli->sr, &s->cli->devices, &list, &unknown, &s->cli->warnings,
				   RD_SCAN_NO_NETDEVS);
	if (ret == -ENODEV)	/* a -d device went away: the others still count */
		ret = rd_device_scan_flags(&s->cli->sr, NULL, &list, &unknown, &s->cli->warnings,
					   RD_SCAN_NO_NETDEVS);
	if (ret == -ENOMEM)
		return ret;
	ret = rd_nodeexp_write(fp, s->pw, ret ? NULL : &list, &s->cli->sr, &s->cli->warnings);
	rd_device_list_free(&list);
	return ret;
}

/* --textfile: the file replaced with one scrape. */
struct textfile {
	struct scrape *sc;
	const char *path;
	struct rd_outfile of;
};

static void textfile_error(struct rd_cli *cli, const char *path, int err, const char *why)
{
	rd_cli_error(cli, "%s: cannot write: %s%s", path, why,
		     err == -EACCES || err == -EPERM || err == -EROFS ?
			" (the directory must be writable: a temporary file is renamed over it)" : "");
}

static int textfile_step(void *ctx, unsigned long sample)
{
	struct textfile *tf = ctx;
	struct rd_cli *cli = tf->sc->cli;
	char why[160];
	int err = rd_outfile_replace(&tf->of, write_scrape, tf->sc, why, sizeof(why));

	(void)sample;
	rd_cli_flush_warnings(cli);
	if (err)
		textfile_error(cli, tf->path, err, why);
	return err;
}

static int run_textfile(struct rd_cli *cli, struct scrape *sc, const char *path, double interval,
			unsigned long count)
{
	struct textfile tf = { .sc = sc, .path = path };
	char why[160];
	int err, ret;

	/* The directory once, before the first sample: a bad path fails at once. */
	err = rd_outfile_open(&tf.of, path, why, sizeof(why));
	if (err) {
		textfile_error(cli, path, err, why);
		return RD_EXIT_FAIL;
	}
	ret = sample_loop(cli, sc->pw, interval, count, textfile_step, &tf);
	rd_outfile_close(&tf.of);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'i' },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "textfile", required_argument, NULL, OPT_TEXTFILE },
		RD_COMMON_LONGOPTS,
		RD_TABLE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct rd_device_list list = { 0 };
	struct rd_portwatch pw = { 0 };
	bool batch = false, once = false, have_interval = false, have_count = false;
	bool have_format = false;
	const char *textfile = NULL;
	enum fmt format = FMT_TEXT;
	unsigned long count = 0;
	double interval = 1.0;
	struct rd_out *o = NULL;
	struct rd_cli cli;
	int opt, ret = RD_EXIT_FAIL;
	uint64_t num;

	rd_cli_init(&cli, "rdma-top");
	while ((opt = rd_cli_getopt(&cli, argc, argv, ":bn:i:" RD_COMMON_SHORTOPTS RD_TABLE_SHORTOPTS, longopts)) != -1) {
		if (opt == RD_CLI_OPT_USAGE) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
		switch (opt) {
		case 'b':
			batch = true;
			break;
		case 'n':
			ret = rd_cli_uint(&cli, "--iterations", optarg, 1, 1000000000, &num);
			if (ret)
				goto out;
			count = (unsigned long)num;
			have_count = true;
			break;
		case 'i':
			ret = rd_cli_duration(&cli, "--interval", optarg, 0, 86400, &interval);
			if (ret)
				goto out;
			have_interval = true;
			break;
		case OPT_ONCE:
			once = true;
			break;
		case OPT_FORMAT:
			have_format = true;
			if (strcmp(optarg, "text") == 0)
				format = FMT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				format = FMT_JSON;
			else if (strcmp(optarg, "openmetrics") == 0)
				format = FMT_OPENMETRICS;
			else if (strcmp(optarg, "prometheus") == 0)
				format = FMT_PROMETHEUS;
			else if (strcmp(optarg, "node-exporter") == 0)
				format = FMT_NODE_EXPORTER;
			else {
				ret = rd_cli_usage_error(&cli, "invalid --format '%s' (text, json, openmetrics, prometheus or node-exporter)",
							 optarg);
				goto out;
			}
			break;
		case OPT_TEXTFILE:
			if (!*optarg) {
				ret = rd_cli_usage_error(&cli, "--textfile needs a file name (e.g. /var/lib/node_exporter/textfile/rdma.prom)");
				goto out;
			}
			textfile = optarg;
			break;
		default:
			ret = rd_cli_getopt_error(&cli, opt, argv);
			goto out;
		}
	}
	ret = rd_cli_operands(&cli, argc, argv, usage, 0, NULL);
	if (ret >= 0)
		goto out;
	if (have_format && format == FMT_TEXT && cli.json) {
		ret = rd_cli_usage_error(&cli, "--format text and -j do not go together");
		goto out;
	}
	if (textfile) {
		if (!have_format)
			format = FMT_NODE_EXPORTER;
		if (format != FMT_NODE_EXPORTER && format != FMT_PROMETHEUS) {
			ret = rd_cli_usage_error(&cli, "--textfile writes node-exporter or prometheus text, not --format %s",
						 format == FMT_OPENMETRICS ? "openmetrics" : format == FMT_JSON ? "json" : "text");
			goto out;
		}
		if (cli.json || batch) {
			ret = rd_cli_usage_error(&cli, "--textfile writes a file; not with -j or -b");
			goto out;
		}
		if (once && (have_count || have_interval)) {
			ret = rd_cli_usage_error(&cli, "--once writes the file once; not with -n or -i");
			goto out;
		}
		if (once)
			count = 1;
		/* "-" or the --sysroot tree the samples come from: a usage error now. */
		ret = rd_cli_output_file(&cli, "--textfile", textfile);
		if (ret)
			goto out;
	} else if (format == FMT_JSON)
		cli.json = true;
	if (textfile) {
		/* the checks above */
	} else if (format == FMT_OPENMETRICS || format == FMT_PROMETHEUS || format == FMT_NODE_EXPORTER) {
		if (cli.json || batch || have_count || have_interval || once) {
			ret = rd_cli_usage_error(&cli, "--format %s prints one scrape; not with -j, -b, -n, -i or --once (--textfile repeats it)",
						 format == FMT_OPENMETRICS ? "openmetrics" :
						 format == FMT_PROMETHEUS ? "prometheus" : "node-exporter");
			goto out;
		}
		once = true;
	} else if (once && (batch || have_count || have_interval)) {
		ret = rd_cli_usage_error(&cli, "--once takes one sample; not with -b, -n or -i");
		goto out;
	}
	if (textfile || format == FMT_OPENMETRICS || format == FMT_PROMETHEUS || format == FMT_NODE_EXPORTER)
		ret = rd_cli_table_none(&cli, textfile ? "--textfile" : "a metrics scrape (--format)");
	else
		ret = rd_cli_table_check(&cli, tables, RD_ARRAY_SIZE(tables));
	if (ret)
		goto out;
	/* JSON, stdout not a terminal, or a table asked for (-o, --raw): the batch mode. */
	if (!textfile && !once && (cli.json || !isatty(STDOUT_FILENO) || rd_cli_table_opts_given(&cli)))
		batch = true;
	/* A loop warns of a fact once, not at every interval (a service's log stays readable). */
	cli.warn_once = textfile || batch;

	cli.scan_flags = RD_SCAN_NO_NETDEVS;	/* the ports' netdev lists are not shown */
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;
	ret = rd_cli_scan_devices(&cli, &list);
	if (ret)
		goto out;
	ret = rd_portwatch_init(&pw, &cli.sr, &cli.devices, cli.port, &list, &cli.warnings);
	rd_device_list_free(&list);
	if (ret) {
		rd_cli_error(&cli, "cannot watch the ports: %s", strerror(-ret));
		ret = RD_EXIT_FAIL;
		goto out;
	}
	if (pw.n == 0) {
		rd_cli_flush_warnings(&cli);
		rd_cli_error(&cli, "no port to watch");
		ret = RD_EXIT_FAIL;
		goto out;
	}
	if (textfile) {
		struct scrape sc = { .cli = &cli, .pw = &pw, .format = format };

		ret = run_textfile(&cli, &sc, textfile, interval, count);
		goto out;
	}
	if (format == FMT_OPENMETRICS || format == FMT_PROMETHEUS || format == FMT_NODE_EXPORTER) {
		struct scrape sc = { .cli = &cli, .pw = &pw, .format = format };

		if (rd_portwatch_refresh(&pw)) {
			rd_cli_error(&cli, "out of memory");
			ret = RD_EXIT_FAIL;
			goto out;
		}
		ret = write_scrape(stdout, &sc);
		rd_cli_flush_warnings(&cli);
		if (ret == -ENOMEM)
			rd_cli_error(&cli, "out of memory");
		ret = ret ? RD_EXIT_FAIL : RD_EXIT_OK;	/* a write error is reported at exit */
		goto out;
	}
	if (!once && !batch) {
		struct rd_topui_opts uo = {
			.interval = interval < 0.1 ? 0.1 : interval,
			.count = count,
			.color = cli.color,
		};

		pw.keep_gone = 10;
		ret = rd_topui_run(&pw, &uo);
		if (ret == -ENOTTY) {
			rd_cli_error(&cli, "cannot drive this terminal (TERM=%s); -b prints the samples instead",
				     getenv("TERM") ? getenv("TERM") : "");
			ret = RD_EXIT_FAIL;
		} else if (ret) {
			rd_cli_error(&cli, "screen: %s", strerror(-ret));
			ret = RD_EXIT_FAIL;
		} else {
			ret = RD_EXIT_OK;
		}
		rd_cli_flush_warnings(&cli);
		goto out;
	}
	o = rd_out_new(stdout, cli.json, cli.color);
	if (!o) {
		rd_cli_error(&cli, "out of memory");
		ret = RD_EXIT_FAIL;
		goto out;
	}
	rd_out_set_table_opts(o, &cli.table);
	if (once) {
		ret = RD_EXIT_OK;
		if (rd_portwatch_refresh(&pw)) {
			rd_cli_error(&cli, "out of memory");
			ret = RD_EXIT_FAIL;
			goto out;
		}
		if (cli.json)
			rd_out_list_begin(o, NULL);
		print_sample(o, &pw, 1, true, false);
		if (cli.json)
			rd_out_list_end(o);
		goto out;
	}
	rd_out_set_stream(o, cli.json);
	ret = run_batch(&cli, &pw, o, interval, count);
out:
	rd_device_list_free(&list);
	rd_portwatch_free(&pw);
	return rd_cli_exit(&cli, o, ret);
}

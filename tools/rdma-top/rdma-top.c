// SPDX-License-Identifier: MIT
/* rdma-top: live RDMA port counters as rates; batch, JSON lines and OpenMetrics modes. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "stats/stats.h"
#include "output/output.h"
#include "toprun.h"
#include "topsample.h"
#include "topui.h"

enum {
	OPT_ONCE = RD_OPT_TOOL_BASE,
	OPT_FORMAT,
	OPT_TEXTFILE,
};

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
	       RD_COMMON_USAGE_END
	       "\n"
	       "Keys: q quit, arrows/j/k move, Enter/d detail, s/S sort, +/- interval,\n"
	       "p pause, a absolute/rates, z hide zero-rate counters, h help.\n"
	       "\n"
	       "Exit status: 0 ok, 1 failure (no such device, no devices, write error),\n"
	       "2 usage error.\n",
	       prog);
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
	enum rd_top_fmt format = RD_TOP_TEXT;
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
				format = RD_TOP_TEXT;
			else if (strcmp(optarg, "json") == 0)
				format = RD_TOP_JSON;
			else if (strcmp(optarg, "openmetrics") == 0)
				format = RD_TOP_OPENMETRICS;
			else if (strcmp(optarg, "prometheus") == 0)
				format = RD_TOP_PROMETHEUS;
			else if (strcmp(optarg, "node-exporter") == 0)
				format = RD_TOP_NODE_EXPORTER;
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
	if (have_format && format == RD_TOP_TEXT && cli.json) {
		ret = rd_cli_usage_error(&cli, "--format text and -j do not go together");
		goto out;
	}
	if (textfile) {
		if (!have_format)
			format = RD_TOP_NODE_EXPORTER;
		if (format != RD_TOP_NODE_EXPORTER && format != RD_TOP_PROMETHEUS) {
			ret = rd_cli_usage_error(&cli, "--textfile writes node-exporter or prometheus text, not --format %s",
						 format == RD_TOP_OPENMETRICS ? "openmetrics" : format == RD_TOP_JSON ? "json" : "text");
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
	} else if (format == RD_TOP_JSON)
		cli.json = true;
	if (textfile) {
		/* the checks above */
	} else if (format == RD_TOP_OPENMETRICS || format == RD_TOP_PROMETHEUS || format == RD_TOP_NODE_EXPORTER) {
		if (cli.json || batch || have_count || have_interval || once) {
			ret = rd_cli_usage_error(&cli, "--format %s prints one scrape; not with -j, -b, -n, -i or --once (--textfile repeats it)",
						 format == RD_TOP_OPENMETRICS ? "openmetrics" :
						 format == RD_TOP_PROMETHEUS ? "prometheus" : "node-exporter");
			goto out;
		}
		once = true;
	} else if (once && (batch || have_count || have_interval)) {
		ret = rd_cli_usage_error(&cli, "--once takes one sample; not with -b, -n or -i");
		goto out;
	}
	if (textfile || format == RD_TOP_OPENMETRICS || format == RD_TOP_PROMETHEUS || format == RD_TOP_NODE_EXPORTER)
		ret = rd_cli_table_none(&cli, textfile ? "--textfile" : "a metrics scrape (--format)");
	else
		ret = rd_cli_table_check(&cli, rd_top_tables, RD_TOP_NTABLES);
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
		ret = rd_top_run_textfile(&cli, &pw, format, textfile, interval, count);
		goto out;
	}
	if (format == RD_TOP_OPENMETRICS || format == RD_TOP_PROMETHEUS || format == RD_TOP_NODE_EXPORTER) {
		ret = rd_top_run_scrape(&cli, &pw, format);
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
	o = rd_cli_out(&cli);
	if (!o) {
		ret = RD_EXIT_FAIL;
		goto out;
	}
	if (once) {
		ret = rd_top_run_once(&cli, &pw, o);
		goto out;
	}
	rd_out_set_stream(o, cli.json);
	ret = rd_top_run_batch(&cli, &pw, o, interval, count);
out:
	rd_device_list_free(&list);
	rd_portwatch_free(&pw);
	return rd_cli_exit(&cli, o, ret);
}

// SPDX-License-Identifier: MIT
/* rdma-fabric: the InfiniBand fabric seen whole, with a verdict and the fix. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fabric/fabric.h"
#include "model/model.h"
#include "output/output.h"
#include "fabexp.h"
#include "fabopts.h"
#include "fabpath.h"
#include "fabroutes.h"
#include "fabusage.h"
#include "fabview.h"
#include "fabwrite.h"

enum {
	OPT_NHC = RD_OPT_TOOL_BASE,
	OPT_LIST,
	OPT_ONLY,
	OPT_SKIP,
	OPT_LINKS,
	OPT_SM,
	OPT_ERRORS,
	OPT_LOAD,
	OPT_SAVE,
	OPT_EXPECT_RATE,
	OPT_TIMEOUT,
	OPT_RETRIES,
	OPT_NAME_MAP,
	OPT_BASELINE,
	OPT_FORMAT,
	OPT_RESET,
	OPT_DOT,
	OPT_PATH,
	OPT_PATH_FILE,
	OPT_ROUTES,
	OPT_SVG,
};

/* Files a user names: a FIFO that never delivers is an error after this long. */
#define FILE_TIMEOUT_MS 10000

static const struct rd_out_colset tables[] = {
	{ rd_fabview_result_cols, RD_FABVIEW_RESULT_COLS },
	{ rd_fabview_port_cols, RD_FABVIEW_PORT_COLS },
	{ rd_fabview_sm_cols, RD_FABVIEW_SM_COLS },
	{ rd_fabview_error_cols, RD_FABVIEW_ERROR_COLS },
	{ rd_fabview_list_cols, RD_FABVIEW_LIST_COLS },
	{ rd_fabpath_cols, RD_FABPATH_NCOLS },
};

static bool known_check(const char *id)
{
	return rd_fab_check_find(id) != NULL;
}


int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "nhc", no_argument, NULL, OPT_NHC },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "only", required_argument, NULL, OPT_ONLY },
		{ "skip", required_argument, NULL, OPT_SKIP },
		{ "links", no_argument, NULL, OPT_LINKS },
		{ "sm", no_argument, NULL, OPT_SM },
		{ "errors", no_argument, NULL, OPT_ERRORS },
		{ "routes", no_argument, NULL, OPT_ROUTES },
		{ "load", required_argument, NULL, OPT_LOAD },
		{ "save", required_argument, NULL, OPT_SAVE },
		{ "expect-rate", required_argument, NULL, OPT_EXPECT_RATE },
		{ "interval", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "retries", required_argument, NULL, OPT_RETRIES },
		{ "node-name-map", required_argument, NULL, OPT_NAME_MAP },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "reset", no_argument, NULL, OPT_RESET },
		{ "dot", required_argument, NULL, OPT_DOT },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "path", required_argument, NULL, OPT_PATH },
		{ "path-file", required_argument, NULL, OPT_PATH_FILE },
		RD_COMMON_LONGOPTS,
		RD_TABLE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct rd_fabargs a = { .so = { .timeout_ms = 200, .retries = 3 } };
	struct rd_fab_report rep = { 0 };
	struct rd_fab fab = { 0 }, base = { 0 };
	struct rd_out *o = NULL;
	struct rd_cli cli;
	char nhc_error[512] = "";
	char why[512] = "";
	int opt, ret = RD_EXIT_FAIL;

	rd_cli_init(&cli, "rdma-fabric");
	cli.repeatable = (const int[]){ OPT_ONLY, OPT_SKIP, OPT_PATH, OPT_PATH_FILE, 0 };
	while ((opt = rd_cli_getopt(&cli, argc, argv, ":vi:" RD_COMMON_SHORTOPTS RD_TABLE_SHORTOPTS,
				    longopts)) != -1) {
		if (opt == RD_CLI_OPT_USAGE) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
		switch (opt) {
		case 'v':
			a.verbose = true;
			break;
		case OPT_NHC:
			a.nhc = true;
			/* An error before the report is NHC's ERROR line too (rd_cli_exit). */
			cli.nhc = true;
			cli.last_error = nhc_error;
			cli.last_error_len = sizeof(nhc_error);
			break;
		case OPT_LIST:
			a.list_only = true;
			break;
		case OPT_ONLY:
		case OPT_SKIP:
			ret = rd_cli_check_ids(&cli, opt == OPT_ONLY ? &a.only : &a.skip, optarg,
					       opt == OPT_ONLY ? "--only" : "--skip", known_check);
			if (ret)
				goto out;
			break;
		case OPT_LINKS:
			a.links = true;
			break;
		case OPT_SM:
			a.sms = true;
			break;
		case OPT_ERRORS:
			a.errs = true;
			break;
		case OPT_ROUTES:
			a.routes = true;
			break;
		case OPT_LOAD:
			a.load = optarg;
			break;
		case OPT_SAVE:
			a.save = optarg;
			break;
		case OPT_NAME_MAP:
			a.name_map = optarg;
			break;
		case OPT_BASELINE:
			a.baseline = optarg;
			break;
		case OPT_DOT:
			a.dot = optarg;
			break;
		case OPT_SVG:
			a.svg = optarg;
			break;
		case OPT_PATH:
			/* Two values: SRC is the option's, DST the next word. */
			if (optind >= argc || (argv[optind][0] == '-' && argv[optind][1])) {
				ret = rd_cli_usage_error(&cli, "--path needs two ends: --path SRC DST");
				goto out;
			}
			if (!*optarg || !*argv[optind]) {
				ret = rd_cli_usage_error(&cli, "--path: an empty name");
				goto out;
			}
			if (rd_fabpath_add(&a.paths, optarg, argv[optind], "--path")) {
				ret = rd_cli_usage_error(&cli, "--path: too many pairs (at most %d)",
							 RD_FABPATH_MAX);
				goto out;
			}
			optind++;
			break;
		case OPT_PATH_FILE:
			if (rd_strlist_add(&a.path_files, optarg)) {
				rd_cli_error(&cli, "out of memory");
				ret = RD_EXIT_FAIL;
				goto out;
			}
			break;
		case OPT_RESET:
			a.so.reset = true;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "openmetrics") == 0) {
				a.metrics = 1;
			} else if (strcmp(optarg, "prometheus") == 0) {
				a.metrics = 2;
			} else {
				ret = rd_cli_usage_error(&cli, "invalid --format '%s' (openmetrics or "
							 "prometheus)", optarg);
				goto out;
			}
			break;
		case OPT_EXPECT_RATE:
			if (rd_fab_parse_rate(optarg, &a.co.expect_lanes, &a.co.expect_lane_mbps)) {
				ret = rd_cli_usage_error(&cli, "invalid --expect-rate '%s' (a width, a speed "
							 "or both: 4X, HDR, 4xHDR; speeds SDR DDR QDR FDR "
							 "EDR HDR NDR)", optarg);
				goto out;
			}
			a.co.expect_rate = optarg;
			break;
		case 'i':
			ret = rd_cli_duration(&cli, "--interval", optarg, 0, 3600, &a.so.interval);
			if (ret)
				goto out;
			break;
		case OPT_TIMEOUT: {
			/* seconds, as every --timeout of the kit: 0.2 or 200ms */
			double secs = 0;

			ret = rd_cli_duration(&cli, "--timeout", optarg, 0.001, 60, &secs);
			if (ret)
				goto out;
			a.so.timeout_ms = (unsigned int)(secs * 1000 + 0.5);
			break;
		}
		case OPT_RETRIES: {
			uint64_t n = 0;

			ret = rd_cli_uint(&cli, "--retries", optarg, 0, 20, &n);
			if (ret)
				goto out;
			a.so.retries = (unsigned int)n;
			break;
		}
		default:
			ret = rd_cli_getopt_error(&cli, opt, argv);
			goto out;
		}
	}
	ret = rd_cli_help_version(&cli, rd_fabric_usage);
	if (ret >= 0)
		goto out;
	ret = rd_cli_operands(&cli, argc, argv, rd_fabric_usage, 0, NULL);
	if (ret >= 0)
		goto out;
	ret = rd_cli_table_check(&cli, tables, RD_ARRAY_SIZE(tables));
	if (ret)
		goto out;
	ret = rd_fabopts_check(&cli, &a);
	if (ret)
		goto out;
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;
	o = rd_cli_out(&cli);
	if (!o) {
		ret = RD_EXIT_FAIL;
		goto out;
	}
	if (a.list_only) {
		rd_fabview_list(o);
		ret = RD_EXIT_OK;
		goto out;
	}
	for (size_t i = 0; i < a.path_files.n; i++)
		if (rd_fabpath_read(&a.paths, a.path_files.v[i], FILE_TIMEOUT_MS, why, sizeof(why))) {
			rd_cli_error(&cli, "--path-file %s: %s", a.path_files.v[i], why);
			ret = RD_EXIT_FAIL;
			goto out;
		}
	if (a.baseline) {
		/* Read before the sweep: a bad baseline is said before any MAD is sent. */
		ret = rd_fab_load(&base, a.baseline, FILE_TIMEOUT_MS, why, sizeof(why));
		if (ret) {
			rd_cli_error(&cli, "--baseline %s: %s", a.baseline, why);
			ret = RD_EXIT_FAIL;
			goto out;
		}
		a.co.baseline = &base;
	}
	if (a.load) {
		ret = rd_fab_load(&fab, a.load, FILE_TIMEOUT_MS, why, sizeof(why));
		if (ret) {
			rd_cli_error(&cli, "--load %s: %s", a.load, why);
			ret = RD_EXIT_FAIL;
			goto out;
		}
	} else {
		if (cli.devices.n) {
			struct rd_strlist cas = { 0 };

			if (rd_fab_local_cas(&cas) >= 0 && !rd_strlist_has(&cas, cli.devices.v[0])) {
				char *known = rd_strlist_join(&cas, " ");

				if (known && *known)
					rd_cli_error(&cli, "%s: no such device (known: %s)", cli.devices.v[0], known);
				else
					rd_cli_error(&cli, "%s: no such device (no RDMA device with a MAD "
						     "interface here: is ib_umad loaded?)", cli.devices.v[0]);
				free(known);
				rd_strlist_free(&cas);
				ret = RD_EXIT_FAIL;
				goto out;
			}
			rd_strlist_free(&cas);
			a.so.ca = cli.devices.v[0];
		}
		a.so.ca_port = (int)cli.port;
		a.so.counters = a.errs || a.metrics || a.so.reset ||
			      (!a.links && !a.sms && !a.routes && (rd_fab_group_selected(&a.co, "port") ||
							     rd_fab_group_selected(&a.co, "route.degraded")));
		a.so.data = a.metrics;	/* the checks judge error counters only */
		/* The metrics carry the subnet managers too (rdma_fabric_sm_*). */
		a.so.sms = a.sms || a.metrics ||
			   (!a.links && !a.errs && !a.routes && rd_fab_group_selected(&a.co, "sm"));
		a.so.routes = a.routes ||
			      (!a.links && !a.sms && !a.errs && !a.metrics && rd_fab_group_selected(&a.co, "route"));
		if (a.paths.n) {
			/* The routes, and the counters of the ports on them only. */
			a.so.routes = a.so.counters = true;
			a.so.sms = false;
			a.so.pick = rd_fabpath_pick;
			a.so.pick_arg = &a.paths;
		}
		ret = rd_fab_sweep(&fab, &a.so, why, sizeof(why));
		if (ret) {
			rd_cli_error(&cli, "%s", why);
			ret = RD_EXIT_FAIL;
			goto out;
		}
	}
	if (a.name_map && (rd_fab_name_map(&fab, a.name_map, FILE_TIMEOUT_MS, &cli.warnings, why, sizeof(why)) ||
			 (a.baseline && rd_fab_name_map(&base, a.name_map, FILE_TIMEOUT_MS, &cli.warnings, why,
						      sizeof(why))))) {
		rd_cli_error(&cli, "--node-name-map %s: %s", a.name_map, why);
		ret = RD_EXIT_FAIL;
		goto out;
	}
	/*
	 * The default map is read on every run without being asked for: one
	 * that cannot be read is a warning, and the run goes on with the nodes'
	 * own descriptions (as infiniband-diags do).
	 */
	if (a.default_map &&
	    (rd_fab_name_map(&fab, a.default_map, FILE_TIMEOUT_MS, &cli.warnings, why, sizeof(why)) ||
	     (a.baseline && rd_fab_name_map(&base, a.default_map, FILE_TIMEOUT_MS, &cli.warnings, why,
					  sizeof(why)))))
		rd_warn(&cli.warnings, "node name map %s: %s (skipped)", a.default_map, why);
	if (a.save && rd_fab_save(&fab, a.save, why, sizeof(why))) {
		rd_cli_error(&cli, "--save %s: %s", a.save, why);
		ret = RD_EXIT_FAIL;
		goto out;
	}
	for (size_t i = 0; i < fab.msgs.n; i++)
		rd_warn(&cli.warnings, "discovery: %s", fab.msgs.v[i]);
	if (a.paths.n) {
		ret = rd_fabpath_run(&cli, o, &fab, &a.paths, a.load);
		goto out;
	}
	if (a.metrics) {
		ret = rd_fabexp_write(stdout, &fab, a.metrics == 1) ? RD_EXIT_FAIL : RD_EXIT_OK;
		goto out;
	}
	if (a.routes) {
		if (!fab.have_routes) {
			rd_cli_error(&cli, "--routes: %s has no forwarding tables (ibnetdiscover --cache keeps "
				     "none: save the fabric with rdma-fabric --save)", a.load ? a.load : "the sweep");
			ret = RD_EXIT_FAIL;
			goto out;
		}
		rd_out_section_begin(o, NULL, NULL);
		if (rd_out_is_json(o))
			rd_fabview_links(o, &fab);
		if (rd_fabroutes_print(o, &fab)) {
			rd_cli_error(&cli, "out of memory");
			ret = RD_EXIT_FAIL;
			goto out;
		}
		rd_out_section_end(o);
		ret = RD_EXIT_OK;
		goto out;
	}
	if (a.links || a.sms || a.errs) {
		rd_out_section_begin(o, NULL, NULL);
		if (a.links)
			rd_fabview_links(o, &fab);
		else if (a.sms)
			rd_fabview_sms(o, &fab);
		else
			rd_fabview_errors(o, &fab);
		rd_out_section_end(o);
		ret = RD_EXIT_OK;
		goto out;
	}
	rd_fab_run_checks(&fab, &a.co, &rep);
	if ((a.dot || a.svg) && rd_fabwrite_pictures(&cli, &fab, &rep, a.dot, a.svg)) {
		ret = RD_EXIT_FAIL;
		goto out;
	}
	if (a.nhc) {
		rd_fabview_nhc(&rep);
		cli.nhc = false;	/* the report has spoken */
	}
	else
		rd_fabview_report(o, &fab, &rep, a.verbose);
	/* A failure, or nothing checked at all, is not a pass. */
	ret = rep.count[RD_FAB_FAIL] || rd_fab_report_worst(&rep) == RD_FAB_SKIP ? RD_EXIT_FAIL :
									   RD_EXIT_OK;
out:
	rd_fab_report_free(&rep);
	rd_fab_free(&fab);
	rd_fab_free(&base);
	rd_fabargs_free(&a);
	return rd_cli_exit(&cli, o, ret);
}

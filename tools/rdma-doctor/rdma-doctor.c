// SPDX-License-Identifier: MIT
/* rdma-doctor: is this node ready for RDMA traffic, and what to fix. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/model.h"
#include "doctor/doctor.h"
#include "output/output.h"

enum {
	OPT_NHC = RD_OPT_TOOL_BASE,
	OPT_LIST,
	OPT_ONLY,
	OPT_SKIP,
	OPT_EXPECT,
	OPT_SELFTEST,
	OPT_TIMEOUT,
};

static const struct rd_col list_cols[] = {
	{ "id", "CHECK", false, false },
	{ "scope", "SCOPE", false, false },
	{ "summary", "WHAT", false, true },
	{ "reads", "READS", false, true },
};
static const struct rd_col result_cols[] = {
	{ "check", "CHECK", false, false },
	{ "object", "OBJECT", false, false },
	{ "status", "STATUS", false, false },
	{ "detail", "DETAIL", false, true },
	{ "fix", "FIX", false, true },
};
static const struct rd_out_colset tables[] = {
	{ result_cols, RD_ARRAY_SIZE(result_cols) },
	{ list_cols, RD_ARRAY_SIZE(list_cols) },
};

static void usage(const char *prog)
{
	printf("Usage: %s [options] [DEVICE...]\n"
	       "Check whether this node is ready for RDMA traffic: devices, software, ports,\n"
	       "PCIe, firmware, RoCE and InfiniBand settings; each check PASS, WARN, FAIL or\n"
	       "SKIP with the reason and the command that fixes or inspects it.\n"
	       "\n"
	       "Options:\n"
	       "  -v, --verbose         show PASS results too (default: summary and the rest)\n"
	       "      --list            list the checks and exit\n"
	       "      --only ID,...     run only these checks (an id, or a group: roce, port...)\n"
	       "      --skip ID,...     do not run these checks\n"
	       "      --expect FILE     key=value facts this node must match (devices, rate,\n"
	       "                        mtu, active_mtu, fw, pcie_width, pcie_speed,\n"
	       "                        roce_mode, gid_index, link_layer); a mismatch FAILs\n"
	       "      --timeout SEC     give up on an --expect pipe or FIFO silent for SEC\n"
	       "                        seconds (default 10, at most 86400)\n"
	       "  -i, --interval SEC    sample error counters over SEC seconds (default 1;\n"
	       "                        0: one reading, rising counters are not detected)\n"
	       "      --selftest        also run a loopback self-test on every ACTIVE port\n"
	       "      --nhc             Node Health Check output: silent when healthy, else\n"
	       "                        one line 'ERROR: rdma-doctor: CHECK: REASON'\n"
	       "  -d, --device NAME     only this device (repeatable); also positional\n"
	       "  -p, --port N          only port N\n"
	       "  -j, --json            JSON output\n"
	       RD_TABLE_USAGE("check,status,detail")
	       "      --sysroot DIR     read DIR/sys, DIR/proc and DIR/dev, not the live system\n"
	       RD_COMMON_USAGE_END
	       "\n"
	       "Exit status: 0 every check PASS, WARN or SKIP; 1 a check FAILed; 2 usage error.\n",
	       prog);
}

/* "a,b" into l, each checked against the table. */
static bool known_check(const char *id)
{
	return rd_dr_check_find(id) != NULL;
}

static const char *scope_name(enum rd_dr_scope s)
{
	return s == RD_DR_NODE ? "node" : s == RD_DR_DEVICE ? "device" : "port";
}

static void print_list(struct rd_out *o)
{
	size_t n;
	const struct rd_dr_check *t = rd_dr_checks(&n);

	rd_out_table_begin(o, NULL, list_cols, RD_ARRAY_SIZE(list_cols), true);
	for (size_t i = 0; i < n; i++) {
		rd_out_row_begin(o);
		rd_out_str(o, RD_ANY, "id", NULL, t[i].id);
		rd_out_str(o, RD_ANY, "scope", NULL, scope_name(t[i].scope));
		rd_out_str(o, RD_ANY, "summary", NULL, t[i].summary);
		rd_out_str(o, RD_ANY, "reads", NULL, t[i].reads);
		rd_out_str(o, RD_JSON, "fix", NULL, t[i].fix);
		rd_out_bool(o, RD_JSON, "selftest_only", NULL, t[i].selftest);
		rd_out_row_end(o);
	}
	rd_out_table_end(o);
}

static enum rd_color status_color(enum rd_dr_status s)
{
	switch (s) {
	case RD_DR_PASS:
		return RD_C_GOOD;
	case RD_DR_WARN:
		return RD_C_WARN;
	case RD_DR_FAIL:
		return RD_C_BAD;
	default:
		return RD_C_DIM;
	}
}

/* A GPU check's SKIP on a node without a GPU: one line for all in the text table. */
static bool no_gpu_skip(const struct rd_dr_result *x)
{
	return x->status == RD_DR_SKIP && strcmp(x->detail, RD_DR_NO_GPU) == 0;
}

/* Whether every check of id's family ("gdr" of "gdr.path") is among the no-GPU SKIPs. */
static bool family_skipped(const struct rd_dr_report *r, const char *id, size_t *members)
{
	size_t n, flen = strcspn(id, ".");
	const struct rd_dr_check *t = rd_dr_checks(&n);

	*members = 0;
	for (size_t i = 0; i < n; i++) {
		bool in = false;

		if (strncmp(t[i].id, id, flen) != 0 || t[i].id[flen] != '.')
			continue;
		(*members)++;
		for (size_t k = 0; k < r->n && !in; k++)
			in = r->v[k].check == &t[i] && no_gpu_skip(&r->v[k]);
		if (!in)
			return false;
	}
	return true;
}

/*
 * "gdr.*, pci.acs, iommu.mode, ...: SKIP, no GPU on this node": the checks in
 * table order, a family whose every check is here as its name and a star.
 */
static void print_no_gpu(struct rd_out *o, const struct rd_dr_report *r, bool after_table)
{
	char ids[512] = "";
	size_t len = 0, members;

	for (size_t i = 0; i < r->n; i++) {
		const char *id = r->v[i].check->id;
		size_t flen = strcspn(id, ".");
		int w;

		if (!no_gpu_skip(&r->v[i]))
			continue;
		if (family_skipped(r, id, &members) && members > 1) {
			bool dup = false;

			for (size_t k = 0; k < i && !dup; k++)
				dup = no_gpu_skip(&r->v[k]) && strncmp(r->v[k].check->id, id, flen + 1) == 0;
			if (dup)
				continue;
			w = snprintf(ids + len, sizeof(ids) - len, "%s%.*s.*", len ? ", " : "", (int)flen, id);
		} else {
			w = snprintf(ids + len, sizeof(ids) - len, "%s%s", len ? ", " : "", id);
		}
		if (w < 0 || (size_t)w >= sizeof(ids) - len)
			break;
		len += (size_t)w;
	}
	if (len)
		rd_out_line(o, "%s%s: SKIP, " RD_DR_NO_GPU, after_table ? "\n" : "", ids);
}

static void print_report(struct rd_out *o, const struct rd_dr_report *r, bool verbose)
{
	bool json = rd_out_is_json(o), any = false, no_gpu = false;
	enum rd_dr_status worst = rd_dr_report_worst(r);

	rd_out_section_begin(o, NULL, NULL);
	rd_out_str(o, RD_JSON, "verdict", NULL, rd_dr_status_word(worst));
	rd_out_section_begin(o, "summary", NULL);
	rd_out_u64(o, RD_JSON, "checks", NULL, r->n);
	rd_out_u64(o, RD_JSON, "pass", NULL, r->count[RD_DR_PASS]);
	rd_out_u64(o, RD_JSON, "warn", NULL, r->count[RD_DR_WARN]);
	rd_out_u64(o, RD_JSON, "fail", NULL, r->count[RD_DR_FAIL]);
	rd_out_u64(o, RD_JSON, "skip", NULL, r->count[RD_DR_SKIP]);
	rd_out_u64(o, RD_JSON, "devices", NULL, r->devices);
	rd_out_u64(o, RD_JSON, "ports", NULL, r->ports);
	rd_out_double(o, RD_JSON, "interval", NULL, r->interval, "%g");
	rd_out_section_end(o);
	for (size_t i = 0; i < r->n; i++) {
		bool folded = !json && no_gpu_skip(&r->v[i]);

		no_gpu = no_gpu || folded;
		any = any || (!folded && (verbose || json || r->v[i].status != RD_DR_PASS));
	}
	if (any) {
		rd_out_table_begin(o, "results", result_cols, RD_ARRAY_SIZE(result_cols), true);
		for (size_t i = 0; i < r->n; i++) {
			const struct rd_dr_result *x = &r->v[i];

			if (!json && (x->status == RD_DR_PASS ? !verbose : no_gpu_skip(x)))
				continue;
			rd_out_row_begin(o);
			rd_out_str(o, RD_ANY, "check", NULL, x->check->id);
			rd_out_str(o, RD_ANY, "object", NULL, x->object);
			rd_out_str(o, RD_JSON, "dev", NULL, x->dev[0] ? x->dev : NULL);
			if (x->port)
				rd_out_u64(o, RD_JSON, "port", NULL, x->port);
			rd_out_cstr(o, RD_TEXT, "status", NULL, status_color(x->status),
				    rd_dr_status_name(x->status));
			rd_out_str(o, RD_JSON, "status", NULL, rd_dr_status_word(x->status));
			rd_out_str(o, RD_ANY, "detail", NULL, x->detail);
			rd_out_str(o, RD_ANY, "fix", NULL, x->fix[0] ? x->fix : NULL);
			rd_out_row_end(o);
		}
		rd_out_table_end(o);
	}
	if (no_gpu)
		print_no_gpu(o, r, any);
	rd_out_line(o, "%s%s: %zu check%s on %u device%s, %u port%s: %u pass, %u warn, %u fail, %u skip",
		    any || no_gpu ? "\n" : "", rd_dr_status_name(worst), r->n, r->n == 1 ? "" : "s", r->devices,
		    r->devices == 1 ? "" : "s", r->ports, r->ports == 1 ? "" : "s",
		    r->count[RD_DR_PASS], r->count[RD_DR_WARN], r->count[RD_DR_FAIL],
		    r->count[RD_DR_SKIP]);
	if (worst == RD_DR_SKIP)
		rd_out_line(o, "nothing was checked: %s; this is not a healthy verdict",
			    r->n ? "every selected check was skipped on this node (each one's reason is above)" :
				   "no selected check applies to this node's devices and ports");
	rd_out_section_end(o);
}

/* NHC: silent when healthy; the first failure on one line.  A run that
 * checked nothing is not healthy: silence would say it was. */
static void print_nhc(const struct rd_dr_report *r)
{
	const struct rd_dr_result *x = rd_dr_report_first_fail(r);
	char *detail;

	if (!x && rd_dr_report_worst(r) == RD_DR_SKIP) {
		x = r->n ? &r->v[0] : NULL;
		detail = x ? rd_text_escape(x->detail, false) : NULL;
		printf("ERROR: rdma-doctor: nothing checked: %s", x ? "every selected check was skipped" :
		       "no selected check applies to this node");
		if (x)
			printf(" (first: %s: %s: %s)", x->check->id, x->object, detail ? detail : "");
		printf("\n");
		free(detail);
		return;
	}
	if (!x)
		return;
	detail = rd_text_escape(x->detail, false);
	printf("ERROR: rdma-doctor: %s: %s: %s", x->check->id, x->object, detail ? detail : "");
	if (r->count[RD_DR_FAIL] > 1)
		printf(" (and %u more failure%s)", r->count[RD_DR_FAIL] - 1,
		       r->count[RD_DR_FAIL] > 2 ? "s" : "");
	printf("\n");
	free(detail);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "nhc", no_argument, NULL, OPT_NHC },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "only", required_argument, NULL, OPT_ONLY },
		{ "skip", required_argument, NULL, OPT_SKIP },
		{ "expect", required_argument, NULL, OPT_EXPECT },
		{ "interval", required_argument, NULL, 'i' },
		{ "selftest", no_argument, NULL, OPT_SELFTEST },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		RD_COMMON_LONGOPTS,
		RD_TABLE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct rd_strlist only = { 0 }, skip = { 0 };
	struct rd_device_list list = { 0 };
	struct rd_dr_report rep = { 0 };
	struct rd_dr_expect expect;
	struct rd_dr_opts dopts = { .interval = 1.0, .selftest_ms = 5000 };
	const char *expect_file = NULL;
	int expect_timeout_ms = 10000;
	bool verbose = false, nhc = false, list_only = false;
	struct rd_out *o = NULL;
	struct rd_cli cli;
	char nhc_error[512] = "";
	int opt, ret = RD_EXIT_FAIL;

	rd_cli_init(&cli, "rdma-doctor");
	cli.repeatable = (const int[]){ OPT_ONLY, OPT_SKIP, 0 };
	while ((opt = rd_cli_getopt(&cli, argc, argv, ":vi:" RD_COMMON_SHORTOPTS RD_TABLE_SHORTOPTS, longopts)) != -1) {
		if (opt == RD_CLI_OPT_USAGE) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
		switch (opt) {
		case 'v':
			verbose = true;
			break;
		case OPT_NHC:
			nhc = true;
			/* An error before the report is NHC's ERROR line too (rd_cli_exit). */
			cli.nhc = true;
			cli.last_error = nhc_error;
			cli.last_error_len = sizeof(nhc_error);
			break;
		case OPT_LIST:
			list_only = true;
			break;
		case OPT_ONLY:
		case OPT_SKIP:
			ret = rd_cli_check_ids(&cli, opt == OPT_ONLY ? &only : &skip, optarg,
					       opt == OPT_ONLY ? "--only" : "--skip", known_check);
			if (ret)
				goto out;
			break;
		case OPT_EXPECT:
			expect_file = optarg;
			break;
		case 'i':
			ret = rd_cli_duration(&cli, "--interval", optarg, 0, 60, &dopts.interval);
			if (ret)
				goto out;
			break;
		case OPT_TIMEOUT:
			ret = rd_cli_file_timeout(&cli, optarg, &expect_timeout_ms);
			if (ret)
				goto out;
			break;
		case OPT_SELFTEST:
			dopts.selftest = true;
			break;
		default:
			ret = rd_cli_getopt_error(&cli, opt, argv);
			goto out;
		}
	}
	ret = rd_cli_help_version(&cli, usage);
	if (ret >= 0)
		goto out;
	for (; optind < argc; optind++) {
		if (rd_cli_common_opt(&cli, 'd', argv[optind]) < 0) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
	}
	if (nhc && (cli.json || verbose || list_only)) {
		ret = rd_cli_usage_error(&cli, "--nhc has its own output; not with -j, -v or --list");
		goto out;
	}
	if (nhc && (ret = rd_cli_table_none(&cli, "--nhc")))
		goto out;
	ret = rd_cli_table_check(&cli, tables, RD_ARRAY_SIZE(tables));
	if (ret)
		goto out;
	if (expect_file) {
		char why[256] = "";

		ret = rd_cli_input_file(&cli, "--expect", expect_file);
		if (ret)
			goto out;

		ret = rd_dr_expect_read(expect_file, expect_timeout_ms, &expect, why, sizeof(why));
		if (ret) {
			ret = rd_cli_usage_error(&cli, "--expect %s: %s", expect_file, why);
			goto out;
		}
		dopts.expect = &expect;
	}
	dopts.only = &only;
	dopts.skip = &skip;
	/* A run that checks nothing would print PASS: it is a usage error instead. */
	if (!list_only && rd_dr_selected_count(&dopts) == 0) {
		bool st = false;

		dopts.selftest = true;
		st = rd_dr_selected_count(&dopts) > 0;
		ret = rd_cli_usage_error(&cli, "no check selected%s (see --list)",
					 st ? ": the selftest checks run only with --selftest" :
					 ": --only and --skip leave nothing to run");
		goto out;
	}
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;
	o = rd_cli_out(&cli);
	if (!o) {
		ret = RD_EXIT_FAIL;
		goto out;
	}
	if (list_only) {
		print_list(o);
		ret = RD_EXIT_OK;
		goto out;
	}
	/* The checks map netdevs through netlink and the GID table, not the ports' lists. */
	cli.scan_flags = RD_SCAN_NO_NETDEVS;
	if (cli.devices.n || cli.port) {
		/* Named devices or a port: the common errors (unknown name, no such port). */
		ret = rd_cli_scan_devices(&cli, &list);
		if (ret)
			goto out;
	} else {
		/* No device at all is a verdict (dev.present), not an error. */
		dopts.scan_err = rd_device_scan_flags(&cli.sr, NULL, &list, NULL, &cli.warnings,
						       cli.scan_flags);
		if (dopts.scan_err && dopts.scan_err != -ENOENT) {
			rd_cli_error(&cli, "cannot list RDMA devices: %s", strerror(-dopts.scan_err));
			ret = RD_EXIT_FAIL;
			goto out;
		}
	}
	dopts.sr = &cli.sr;
	dopts.port = cli.port;
	if (rd_doctor_run(&dopts, &list, &rep, &cli.warnings)) {
		rd_cli_error(&cli, "out of memory");
		ret = RD_EXIT_FAIL;
		goto out;
	}
	if (nhc) {
		print_nhc(&rep);
		cli.nhc = false;	/* the report has spoken */
	}
	else
		print_report(o, &rep, verbose);
	/* A failure, or nothing checked at all, is not a pass. */
	ret = rep.count[RD_DR_FAIL] || rd_dr_report_worst(&rep) == RD_DR_SKIP ? RD_EXIT_FAIL :
									 RD_EXIT_OK;
out:
	rd_dr_report_free(&rep);
	rd_device_list_free(&list);
	rd_strlist_free(&only);
	rd_strlist_free(&skip);
	return rd_cli_exit(&cli, o, ret);
}

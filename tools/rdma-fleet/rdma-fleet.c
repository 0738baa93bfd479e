// SPDX-License-Identifier: MIT
/*
 * rdma-fleet: one summary of the JSON that rdma-devinfo and rdma-gids --best
 * printed on many hosts (through pdsh, clush, srun or files): per fact the
 * majority value and the hosts that differ, and every host whose input could
 * not be used.  It launches nothing: the cluster's own engine runs the tools.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fleet.h"
#include "fleetprint.h"
#include "fleetsuspect.h"
#include "base/base.h"
#include "output/output.h"

enum {
	OPT_HOSTFILE = RD_OPT_TOOL_BASE,
	OPT_PREFIX,
	OPT_TIMEOUT,
	OPT_SVG,
	OPT_OUTLIERS,
	OPT_FABRIC,
	OPT_SVG_GROUPS,
};

static void usage(const char *prog)
{
	printf("Usage: %s [options] [FILE...]\n"
	       "       %s --prefix[=NAME]\n"
	       "Summarize RDMA facts from many hosts: the majority value of each and the\n"
	       "hosts that differ. Reads rdma-devinfo -j [-v], rdma-gids --best -j and\n"
	       "rdma-doctor -j output (each check's status is a fact; a FAIL is a problem)\n"
	       "and rdma-selftest --mesh -j lines (a pair matrix and the slowest pairs)\n"
	       "from the FILEs or stdin (\"-\"): plain or pretty JSON documents, JSON lines,\n"
	       "or \"host: \" prefixed lines from pdsh, clush -L or srun -l.\n"
	       "\n"
	       "Options:\n"
	       "  -w, --hosts LIST      hosts that must answer (Slurm syntax, e.g. node[01-16])\n"
	       "      --hostfile FILE   the same from a file: a host or list a line, # comments\n"
	       "      --prefix[=NAME]   filter mode, on each host: copy stdin to stdout with\n"
	       "                        \"NAME: \" before each line (default $SLURMD_NODENAME,\n"
	       "                        else the short host name), for srun and files\n"
	       "      --timeout SEC     give up on a pipe or FIFO silent for SEC seconds\n"
	       "                        (default 600, at most 86400)\n"
	       "      --outliers        list only the facts where some host differs\n"
	       "      --svg FILE        draw the mesh's pair matrix (rdma-selftest --mesh -j\n"
	       "                        input) as an SVG picture: bandwidth per pair, failures\n"
	       "                        in red, hosts labelled\n"
	       "      --svg-groups BY   past 200 hosts the picture is a matrix of host groups:\n"
	       "                        auto (default), hosts (no groups), leaf (the switch\n"
	       "                        each host is cabled to, with --fabric), N hosts a\n"
	       "                        block, re:REGEX (what its first group matches)\n"
	       "      --fabric FILE     place the mesh's pairs on the fabric's routes\n"
	       "                        (rdma-fabric --routes -j output) and name the links\n"
	       "                        that explain the failed and slow pairs\n"
	       "  -j, --json            JSON output\n"
	       RD_TABLE_USAGE("fact,majority,outliers")
	       "      --color[=WHEN]    colour: auto (default), always, never\n"
	       "  -h, --help            this help\n"
	       "  -V, --version         version\n"
	       "\n"
	       "Exit status: 0 every host agrees, 1 an outlier, a host with unusable input\n"
	       "or a failed item, a listed host that sent nothing, or no input; 2 usage error.\n",
	       prog, prog);
}

/*
 * What one input may hold: 10,000 hosts of pretty JSON are ~35 MB, and one
 * compact line of a 32-NIC host ~200 KB.  The idle deadline applies to pipes
 * and FIFOs only (--timeout).
 */
static const struct rd_infile_limits fleet_limits = {
	.max_bytes = (size_t)1 << 30,
	.max_line = (size_t)16 << 20,
	.max_lines = 50000000,
	.timeout_ms = 600000,
};

/* A host name as a prefix: what --prefix=NAME and $SLURMD_NODENAME may hold. */
static bool prefix_name_ok(const char *name)
{
	if (!*name || strlen(name) > 255)
		return false;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (*c <= ' ' || *c == ':' || *c == 0x7f)
			return false;
	return true;
}

/* --prefix: "NAME: line" for every line of stdin. */
static int prefix_mode(struct rd_cli *cli, const char *name, const struct rd_infile_limits *lim)
{
	char host[256], why[160], *line;
	struct rd_infile in;
	size_t len;
	int ret = RD_EXIT_OK, rc;

	if (!name || !*name) {
		name = getenv("SLURMD_NODENAME");
		if (name && *name && !prefix_name_ok(name))
			return rd_cli_usage_error(cli, "invalid host name in SLURMD_NODENAME (a space, "
						  "control character or ':'): give --prefix=NAME");
	}
	if (!name || !*name) {
		if (gethostname(host, sizeof(host)) != 0) {
			rd_cli_error(cli, "cannot get the host name: %s (give --prefix=NAME)",
				     strerror(errno));
			return RD_EXIT_FAIL;
		}
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		name = host;
	}
	rc = rd_infile_open(&in, "-", lim, why, sizeof(why));
	while (rc == 0 && (rc = rd_infile_line(&in, &line, &len, why, sizeof(why))) == 1) {
		if (printf("%s: %s\n", name, line) < 0)
			break;
		rc = 0;
	}
	rd_infile_close(&in);
	if (rc < 0) {
		rd_cli_error(cli, "stdin: %s", why);
		ret = RD_EXIT_FAIL;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		rd_cli_error(cli, "write error on stdout: %s", strerror(errno));
		ret = RD_EXIT_FAIL;
	}
	return ret;
}

/*
 * Read one input into the fleet.  RD_EXIT_OK; RD_EXIT_FAIL when it cannot be
 * opened or memory ran out (the run stops); and when it breaks off after
 * lines arrived (a pipe silent past --timeout, a limit, a read error) it
 * keeps what arrived, names the input and the line where it stopped in
 * *broken, and returns RD_EXIT_OK: the report of what arrived goes on, and
 * the hosts that never answered are named there.
 */
static int read_source(struct rd_cli *cli, struct rd_fleet *f, const char *path,
		       const struct rd_infile_limits *lim, struct rd_strlist *broken)
{
	const char *name = strcmp(path, "-") ? path : "stdin";
	struct rd_infile in;
	char why[160], *line;
	size_t len;
	int rc;

	rc = rd_infile_open(&in, path, lim, why, sizeof(why));
	if (rc) {
		rd_cli_error(cli, "%s: cannot read: %s", name, why);
		return RD_EXIT_FAIL;
	}
	while ((rc = rd_infile_line(&in, &line, &len, why, sizeof(why))) == 1) {
		while (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		rc = rd_fleet_feed(f, path, in.lineno, line);
		if (rc)
			break;
	}
	rd_infile_close(&in);
	if (rc == -ENOMEM) {
		rd_cli_error(cli, "out of memory");
		return RD_EXIT_FAIL;
	}
	if (rc < 0) {
		char msg[320];

		if (in.lineno == 0) {
			rd_cli_error(cli, "%s: cannot read: %s", name, why);
			return RD_EXIT_FAIL;
		}
		snprintf(msg, sizeof(msg), "%s: stopped after line %zu: %s; what arrived before it is "
			 "reported", name, in.lineno, why);
		rd_cli_error(cli, "%s", msg);
		if (rd_strlist_add(broken, msg))
			return RD_EXIT_FAIL;
	}
	rc = rd_fleet_source_end(f, path);
	if (rc == -ENOMEM)
		rd_cli_error(cli, "out of memory");
	return rc ? RD_EXIT_FAIL : RD_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "hosts", required_argument, NULL, 'w' },
		{ "hostfile", required_argument, NULL, OPT_HOSTFILE },
		{ "prefix", optional_argument, NULL, OPT_PREFIX },
		{ "outliers", no_argument, NULL, OPT_OUTLIERS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "fabric", required_argument, NULL, OPT_FABRIC },
		{ "svg-groups", required_argument, NULL, OPT_SVG_GROUPS },
		{ "json", no_argument, NULL, 'j' },
		{ "color", optional_argument, NULL, RD_OPT_COLOR },
		{ "colour", optional_argument, NULL, RD_OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		RD_TABLE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct rd_strlist expect = { 0 }, hostfiles = { 0 }, broken = { 0 };
	struct rd_infile_limits lim = fleet_limits;
	struct rd_hostlist_error he = { 0 };
	struct rd_fleet *f = NULL;
	struct rd_out *o = NULL;
	bool prefix = false, have_expect = false, only_outliers = false;
	const char *prefix_name = NULL, *svg = NULL;
	struct rd_fleet_tomo tomo = { 0 };
	struct rd_fleet_group_by group_by = { 0 };
	bool have_groups = false;
	size_t nbad = 0, nprob = 0;
	struct rd_cli cli;
	int opt, ret = RD_EXIT_FAIL, rc;

	rd_cli_init(&cli, "rdma-fleet");
	cli.repeatable = (const int[]){ 'w', OPT_HOSTFILE, 0 };
	while ((opt = rd_cli_getopt(&cli, argc, argv, ":w:jhV" RD_TABLE_SHORTOPTS, longopts)) != -1) {
		if (opt == RD_CLI_OPT_USAGE) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
		switch (opt) {
		case 'w':
			have_expect = true;
			rc = rd_hostlist_expand(optarg, &expect, &he);
			if (rc == -ENOMEM) {
				rd_cli_error(&cli, "out of memory");
				goto out;
			}
			if (rc) {
				ret = rd_cli_usage_error(&cli, "--hosts '%s': column %zu: %s", optarg,
							 he.column, he.msg);
				goto out;
			}
			break;
		case OPT_HOSTFILE:
			/* Read after the options: --timeout bounds the wait on a FIFO. */
			have_expect = true;
			if (rd_strlist_add(&hostfiles, optarg)) {
				rd_cli_error(&cli, "out of memory");
				goto out;
			}
			break;
		case OPT_OUTLIERS:
			only_outliers = true;
			break;
		case OPT_SVG:
			svg = optarg;
			break;
		case OPT_FABRIC:
			tomo.path = optarg;
			break;
		case OPT_SVG_GROUPS: {
			char why[200];

			if (rd_fleet_group_by_parse(optarg, &group_by, why, sizeof(why))) {
				ret = rd_cli_usage_error(&cli, "--svg-groups %s", why);
				goto out;
			}
			have_groups = true;
			break;
		}
		case OPT_TIMEOUT:
			ret = rd_cli_file_timeout(&cli, optarg, &lim.timeout_ms);
			if (ret)
				goto out;
			break;
		case OPT_PREFIX:
			prefix = true;
			prefix_name = optarg;
			break;
		default:
			ret = rd_cli_getopt_error(&cli, opt, argv);
			goto out;
		}
	}
	ret = rd_cli_operands(&cli, argc, argv, usage, -1, NULL);
	if (ret >= 0)
		goto out;
	ret = rd_cli_table_check(&cli, rd_fleet_tables, RD_FLEET_NTABLES);
	if (ret)
		goto out;
	if (prefix) {
		if (optind < argc || have_expect || cli.json || only_outliers || svg || tomo.path) {
			ret = rd_cli_usage_error(&cli, "--prefix copies stdin to stdout; no files, -w, -o, "
						 "-j, --svg or --fabric");
			goto out;
		}
		if (prefix_name && !prefix_name_ok(prefix_name)) {
			/* Not echoed: it may hold the very newline it is refused for. */
			ret = rd_cli_usage_error(&cli, "invalid --prefix name: no spaces, control "
						 "characters or ':', at most 255 bytes");
			goto out;
		}
		ret = prefix_mode(&cli, prefix_name, &lim);
		goto out;
	}
	/* Every file named before any is read: no output may replace an input. */
	for (size_t i = 0; i < hostfiles.n; i++) {
		ret = rd_cli_input_file(&cli, "--hostfile", hostfiles.v[i]);
		if (ret)
			goto out;
	}
	for (int i = optind; i < argc; i++) {
		ret = rd_cli_input_file(&cli, NULL, argv[i]);
		if (ret)
			goto out;
	}
	if (optind == argc && (ret = rd_cli_input_file(&cli, NULL, "-")))
		goto out;
	if (tomo.path && (ret = rd_cli_input_file(&cli, "--fabric", tomo.path)))
		goto out;
	if (svg && (ret = rd_cli_output_file(&cli, "--svg", svg)))
		goto out;
	if (have_groups && !svg) {
		ret = rd_cli_usage_error(&cli, "--svg-groups shapes the --svg picture: give --svg FILE too");
		goto out;
	}
	if (group_by.kind == RD_GROUP_LEAF && !tomo.path) {
		ret = rd_cli_usage_error(&cli, "--svg-groups leaf needs --fabric FILE (the switch each host is "
					 "cabled to)");
		goto out;
	}
	for (size_t i = 0; i < hostfiles.n; i++) {
		rc = rd_hostfile_read(hostfiles.v[i], lim.timeout_ms, &expect, &he);
		if (rc == -ENOMEM) {
			rd_cli_error(&cli, "out of memory");
			ret = RD_EXIT_FAIL;
			goto out;
		}
		if (rc == -EINVAL && he.line) {
			ret = rd_cli_usage_error(&cli, "--hostfile %s: line %zu, column %zu: %s (one host "
						 "or host list a line)", hostfiles.v[i], he.line, he.column,
						 he.msg);
			goto out;
		}
		if (rc && he.line) {
			ret = rd_cli_usage_error(&cli, "--hostfile %s: line %zu, column %zu: %s",
						 hostfiles.v[i], he.line, he.column, he.msg);
			goto out;
		}
		if (rc) {
			ret = rd_cli_usage_error(&cli, "--hostfile %s: %s", hostfiles.v[i], he.msg);
			goto out;
		}
	}
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;
	ret = RD_EXIT_FAIL;
	if (tomo.path) {
		char why[300];

		rc = rd_fleet_fabric_load(tomo.path, &lim, &tomo.fab, why, sizeof(why));
		if (rc == -ENOMEM) {
			rd_cli_error(&cli, "out of memory");
			goto out;
		}
		if (rc) {
			ret = rd_cli_usage_error(&cli, "--fabric %s: %s", tomo.path, why);
			goto out;
		}
	}
	if (have_expect && expect.n == 0) {
		ret = rd_cli_usage_error(&cli, "the host list is empty");
		goto out;
	}
	f = rd_fleet_new();
	if (!f || rd_fleet_expect(f, &expect)) {
		rd_cli_error(&cli, "out of memory");
		goto out;
	}
	rd_strlist_free(&expect);	/* the fleet has its own copy */
	if (optind == argc) {
		if (isatty(STDIN_FILENO)) {
			ret = rd_cli_usage_error(&cli, "no input: name files, or pipe pdsh, clush or srun output in");
			goto out;
		}
		if (read_source(&cli, f, "-", &lim, &broken))
			goto out;
	}
	for (int i = optind; i < argc; i++)
		if (read_source(&cli, f, argv[i], &lim, &broken))
			goto out;
	if (rd_fleet_analyze(f)) {
		rd_cli_error(&cli, "out of memory");
		goto out;
	}
	if (rd_fleet_hosts(f)->n == 0) {
		rd_cli_error(&cli, "no input: the input held no JSON document (run rdma-devinfo -j or "
				   "rdma-gids --best -j on the hosts)");
		goto out;
	}
	if (tomo.fab) {
		rc = rd_fleet_tomo_run(f, &tomo);
		if (rc == -ENOENT) {
			rd_cli_error(&cli, "--fabric %s: the input holds no mesh pairs to place on it "
					   "(rdma-selftest --mesh -j output)", tomo.path);
			goto out;
		}
		if (rc) {
			rd_cli_error(&cli, "out of memory");
			goto out;
		}
	}
	if (svg && rd_fleet_save_svg(&cli, f, &tomo, &group_by, svg))
		goto out;
	o = rd_cli_out(&cli);
	if (!o)
		goto out;
	if (rd_fleet_print_summary(o, f, only_outliers, &broken, &tomo, &nbad, &nprob)) {
		rd_cli_error(&cli, "out of memory");
		goto out;
	}
	ret = nbad || nprob || broken.n || !rd_fleet_documents(f) ? RD_EXIT_FAIL : RD_EXIT_OK;
out:
	rd_fleet_tomo_free(&tomo);
	rd_strlist_free(&broken);
	rd_fleet_free(f);
	rd_strlist_free(&expect);
	rd_strlist_free(&hostfiles);
	return rd_cli_exit(&cli, o, ret);
}

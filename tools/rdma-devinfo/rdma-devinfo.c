// SPDX-License-Identifier: MIT
/* rdma-devinfo: list RDMA devices and ports; -v for every sysfs and verbs fact. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "model/model.h"
#include "output/output.h"
#include "devprint.h"

enum { OPT_NO_VERBS = RD_OPT_TOOL_BASE };

static void usage(const char *prog)
{
	printf("Usage: %s [options]\n"
	       "List RDMA devices (InfiniBand, RoCE, iWARP) and their ports.\n"
	       "\n"
	       "Options:\n"
	       "  -v, --verbose         every fact per device and port, with verbs attributes\n"
	       "  -l, --list            device names only, one per line\n"
	       "      --no-verbs        with -v: sysfs facts only, do not open devices\n"
	       "  -d, --device NAME     only this device (repeatable, or a comma list)\n"
	       "  -p, --port N          only port N\n"
	       "  -j, --json            JSON output\n"
	       RD_TABLE_USAGE("device,state,fw")
	       "      --sysroot DIR     read DIR/sys instead of /sys (no verbs)\n"
	       RD_COMMON_USAGE_END
	       "\n"
	       "Exit status: 0 ok, 1 failure (no such device/port, no devices), 2 usage error.\n",
	       prog);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "list", no_argument, NULL, 'l' },
		{ "no-verbs", no_argument, NULL, OPT_NO_VERBS },
		RD_COMMON_LONGOPTS,
		RD_TABLE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct rd_device_list list = { 0 };
	bool verbose = false, names_only = false, no_verbs = false;
	struct rd_out *o = NULL;
	struct rd_cli cli;
	int opt, ret = RD_EXIT_FAIL;

	rd_cli_init(&cli, "rdma-devinfo");
	while ((opt = rd_cli_getopt(&cli, argc, argv, ":vl" RD_COMMON_SHORTOPTS RD_TABLE_SHORTOPTS, longopts)) != -1) {
		if (opt == RD_CLI_OPT_USAGE) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
		switch (opt) {
		case 'v':
			verbose = true;
			break;
		case 'l':
			names_only = true;
			break;
		case OPT_NO_VERBS:
			no_verbs = true;
			break;
		default:
			ret = rd_cli_getopt_error(&cli, opt, argv);
			goto out;
		}
	}
	ret = rd_cli_operands(&cli, argc, argv, usage, 0, NULL);
	if (ret >= 0)
		goto out;
	ret = rd_cli_table_check(&cli, rd_devinfo_tables, RD_DEVINFO_NTABLES);
	if (ret)
		goto out;
	if (verbose && names_only) {
		ret = rd_cli_usage_error(&cli, "-v and -l do not go together");
		goto out;
	}
	if ((verbose && (ret = rd_cli_table_none(&cli, "-v"))) ||
	    (names_only && (ret = rd_cli_table_none(&cli, "-l"))))
		goto out;
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;

	ret = rd_cli_scan_devices(&cli, &list);
	if (ret)
		goto out;
	if (verbose && !no_verbs && rd_sysroot_is_live(&cli.sr))
		rd_verbs_query(&list);

	o = rd_cli_out(&cli);
	if (!o) {
		ret = RD_EXIT_FAIL;
		goto out;
	}
	if (names_only)
		rd_devinfo_print_names(o, &cli, &list);
	else if (verbose)
		rd_devinfo_print_detail(o, &cli, &list);
	else
		rd_devinfo_print_table(o, &cli, &list);
	ret = RD_EXIT_OK;
out:
	rd_device_list_free(&list);
	return rd_cli_exit(&cli, o, ret);
}

// SPDX-License-Identifier: MIT
/* rdma-gids: GID tables with RoCE version, address, netdev and VLAN; which index to use. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/model.h"
#include "output/output.h"
#include "base/base.h"
#include "gidprint.h"

enum {
	OPT_VER = RD_OPT_TOOL_BASE,
	OPT_IP,
	OPT_BEST,
	OPT_VLAN,
	OPT_COMPAT,
};

/* The model's filters, and what only this tool's options add. */
struct gid_filter {
	struct rd_gid_filter m;
	const char *ip_arg;
	bool all;
	int vlan;		/* --vlan for --best; -1 none */
};

static void usage(const char *prog)
{
	printf("Usage: %s [options] [DEVICE...]\n"
	       "Show RDMA GID tables: index, GID, address, RoCE version, netdev, VLAN.\n"
	       "\n"
	       "Options:\n"
	       "      --all             include empty (all-zero) slots\n"
	       "      --netdev IF       only GIDs of this netdev\n"
	       "  -4                    only IPv4-mapped GIDs\n"
	       "  -6                    only IPv6 GIDs (link-local and global)\n"
	       "      --ver VER         only this GID version: v1, v2, IB or iWARP\n"
	       "      --ip ADDR         which device, port and index carry this address\n"
	       "      --best            per port, the GID index to use (perftest -x,\n"
	       "                        NCCL_IB_GID_INDEX, UCX_IB_GID_INDEX) and why\n"
	       "      --vlan N          with --best: choose among GIDs on VLAN N\n"
	       "      --compat          show_gids' exact layout (numeric order, right IPv4 test)\n"
	       "  -d, --device NAME     only this device (repeatable); also positional\n"
	       "  -p, --port N          only port N\n"
	       "  -j, --json            JSON output\n"
	       RD_TABLE_USAGE("dev,port,index,gid")
	       "      --sysroot DIR     read DIR/sys and DIR/proc instead of /sys and /proc\n"
	       RD_COMMON_USAGE_END
	       "\n"
	       "Exit status: 0 ok, 1 failure (a filter matched nothing; with --best: no port\n"
	       "has a usable index), 2 usage error.\n",
	       prog);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "netdev", required_argument, NULL, 'n' },
		{ "ver", required_argument, NULL, OPT_VER },
		{ "ip", required_argument, NULL, OPT_IP },
		{ "best", no_argument, NULL, OPT_BEST },
		{ "vlan", required_argument, NULL, OPT_VLAN },
		{ "compat", no_argument, NULL, OPT_COMPAT },
		RD_COMMON_LONGOPTS,
		RD_TABLE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct gid_filter f = { .vlan = -1 };
	struct rd_device_list list = { 0 };
	struct rd_vlan_map vlans = { 0 };
	struct rd_netdev_cache netdevs;
	struct rd_gid_live *live = NULL;
	bool best = false, compat = false;
	unsigned int found = 0, best_found = 0;
	struct rd_gid_choice *res = NULL;
	size_t nres = 0, capres = 0;
	struct rd_gids_vlan_note vlan_unknown = { 0 };
	struct rd_out *o = NULL;
	struct rd_cli cli;
	int opt, ret = RD_EXIT_FAIL;
	uint64_t num;

	rd_cli_init(&cli, "rdma-gids");
	rd_netdev_cache_init(&netdevs, &cli.sr);
	while ((opt = rd_cli_getopt(&cli, argc, argv, ":46" RD_COMMON_SHORTOPTS RD_TABLE_SHORTOPTS, longopts)) != -1) {
		if (opt == RD_CLI_OPT_USAGE) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
		switch (opt) {
		case 'a':
			f.all = true;
			break;
		case 'n':
			f.m.netdev = optarg;
			break;
		case '4':
			f.m.v4_only = true;
			break;
		case '6':
			f.m.v6_only = true;
			break;
		case OPT_VER:
			if (strcasecmp(optarg, "v1") == 0)
				f.m.ver = RD_GID_VER_V1;
			else if (strcasecmp(optarg, "v2") == 0)
				f.m.ver = RD_GID_VER_V2;
			else if (strcasecmp(optarg, "IB") == 0)
				f.m.ver = RD_GID_VER_IB;
			else if (strcasecmp(optarg, "iWARP") == 0)
				f.m.ver = RD_GID_VER_IWARP;
			else {
				ret = rd_cli_usage_error(&cli, "invalid --ver '%s' (v1, v2, IB or iWARP)", optarg);
				goto out;
			}
			break;
		case OPT_IP: {
			struct in_addr a4;

			f.ip_arg = optarg;
			memset(f.m.ip, 0, sizeof(f.m.ip));
			if (inet_pton(AF_INET, optarg, &a4) == 1) {
				f.m.ip[10] = f.m.ip[11] = 0xff;
				memcpy(f.m.ip + 12, &a4, 4);
			} else if (inet_pton(AF_INET6, optarg, f.m.ip) != 1) {
				ret = rd_cli_usage_error(&cli, "invalid --ip '%s' (an IPv4 or IPv6 address)", optarg);
				goto out;
			}
			f.m.have_ip = true;
			break;
		}
		case OPT_BEST:
			best = true;
			break;
		case OPT_VLAN:
			ret = rd_cli_uint(&cli, "--vlan", optarg, 0, 4094, &num);
			if (ret)
				goto out;
			f.vlan = (int)num;
			break;
		case OPT_COMPAT:
			compat = true;
			break;
		default:
			ret = rd_cli_getopt_error(&cli, opt, argv);
			goto out;
		}
	}
	ret = rd_cli_operands(&cli, argc, argv, usage, -1, NULL);
	if (ret >= 0)
		goto out;
	ret = rd_cli_table_check(&cli, rd_gids_tables, RD_GIDS_NTABLES);
	if (ret)
		goto out;
	/* Positional arguments are device names, as show_gids takes one. */
	for (; optind < argc; optind++) {
		if (rd_cli_common_opt(&cli, 'd', argv[optind]) < 0) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
	}
	if (f.m.v4_only && f.m.v6_only) {
		ret = rd_cli_usage_error(&cli, "-4 and -6 do not go together");
		goto out;
	}
	if ((best && (ret = rd_cli_table_none(&cli, "--best"))) ||
	    (compat && (ret = rd_cli_table_none(&cli, "--compat"))))
		goto out;
	if (f.vlan >= 0 && !best) {
		ret = rd_cli_usage_error(&cli, "--vlan goes with --best");
		goto out;
	}
	if (f.all && (best || compat)) {
		ret = rd_cli_usage_error(&cli, "--all lists empty slots; not with --best or --compat");
		goto out;
	}
	if (compat && (best || cli.json)) {
		ret = rd_cli_usage_error(&cli, "--compat prints show_gids' text layout; not with --best or -j");
		goto out;
	}
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;
	/*
	 * Only GIDs are shown: no warning about a port's rate, LID or state;
	 * the function (a soft device's parent) names a GID's netdev.
	 */
	cli.scan_flags = RD_SCAN_DEV_FN;
	ret = rd_cli_scan_devices(&cli, &list);
	if (ret)
		goto out;
	(void)rd_vlan_map_read(&cli.sr, &vlans);
	/*
	 * Live, the table comes from ibv_query_gid_table() (one call per device)
	 * unless RDMA_GIDS_SOURCE=sysfs; --all needs the empty slots only sysfs lists.
	 */
	{
		const char *src = getenv("RDMA_GIDS_SOURCE");

		if (!(f.all && !best && !compat) && !(src && strcmp(src, "sysfs") == 0))
			live = rd_gid_live_open(&cli.sr);
	}
	/* --netdev naming a VLAN netdev chooses that VLAN: the netdev filter decides, not tagging. */
	if (best && f.m.netdev && f.vlan < 0)
		f.vlan = RD_GID_VLAN_ANY;

	if (compat) {
		rd_gid_compat_sort_devices(&list);
		rd_gids_compat_header(stdout);
	} else {
		o = rd_cli_out(&cli);
		if (!o) {
			ret = RD_EXIT_FAIL;
			goto out;
		}
		if (!best)
			rd_gids_table_begin(o);
		else
			rd_out_list_begin(o, NULL);
	}

	for (unsigned int i = 0; i < list.n; i++) {
		struct rd_device *d = &list.v[i];

		for (unsigned int j = 0; j < d->nports; j++) {
			struct rd_port *p = &d->ports[j];
			struct rd_gid_table t;

			if (!rd_cli_port_selected(&cli, p))
				continue;
			if (rd_gid_port_table(live, &cli.sr, d, p, f.all && !best && !compat, &vlans,
					      &t, &cli.warnings))
				continue;	/* warned; the other ports go on */
			if (compat)
				rd_gid_compat_sort_table(&t);
			if (best) {
				struct rd_gid_choice *r;

				if (nres == capres) {
					size_t nc = capres ? capres * 2 : 16;
					struct rd_gid_choice *nr = realloc(res, nc * sizeof(*nr));

					if (!nr) {
						rd_gid_table_free(&t);
						rd_cli_error(&cli, "out of memory");
						ret = RD_EXIT_FAIL;
						goto out;
					}
					res = nr;
					capres = nc;
				}
				r = &res[nres++];
				/* --best honours the listing filters: --netdev, -4, -6, --ver. */
				if (rd_gid_choose(&netdevs, d, p, &t, &f.m, f.vlan, r)) {
					rd_gid_table_free(&t);
					rd_cli_error(&cli, "out of memory");
					ret = RD_EXIT_FAIL;
					goto out;
				}
				if (r->ok) {
					best_found++;
					rd_gids_vlan_note_add(&vlan_unknown, &r->g);
				} else {
					for (size_t k = 0; k < t.n; k++)
						if (rd_gid_filter_match(&t.v[k], &f.m))
							rd_gids_vlan_note_add(&vlan_unknown, &t.v[k]);
				}
				rd_gid_table_free(&t);
				continue;
			}
			for (size_t k = 0; k < t.n; k++) {
				const struct rd_gid *g = &t.v[k];

				if (!rd_gid_filter_match(g, &f.m))
					continue;
				if (compat) {
					if (rd_gid_compat_skipped(g))
						continue;
					rd_gids_print_compat_row(stdout, d, p, g);
					found++;
					continue;
				}
				found++;
				rd_gids_vlan_note_add(&vlan_unknown, g);
				rd_gids_print_row(o, d, p, g);
			}
			rd_gid_table_free(&t);
		}
	}

	if (compat) {
		printf("n_gids_found=%u\n", found);
		ret = RD_EXIT_OK;
		if (fflush(stdout) != 0) {	/* reported at exit, with the reason */
			rd_write_error(errno);
			ret = RD_EXIT_FAIL;
		}
		if (!found && rd_gid_filter_active(&f.m)) {
			rd_cli_flush_warnings(&cli);
			rd_cli_error(&cli, "no GID matches the filters");
			ret = RD_EXIT_FAIL;
		}
		goto out;
	}
	if (best)
		rd_gids_print_best(o, res, nres, cli.json);
	else
		rd_out_table_end(o);
	rd_gids_vlan_note_warn(&vlan_unknown, &vlans, &cli.warnings);
	ret = RD_EXIT_OK;
	if (best && best_found == 0) {
		ret = RD_EXIT_FAIL;
	} else if (!best && found == 0 && rd_gid_filter_active(&f.m)) {
		ret = RD_EXIT_FAIL;
		(void)rd_out_finish(o);	/* a write error is reported at exit */
		o = NULL;
		rd_cli_flush_warnings(&cli);
		if (f.m.have_ip)
			rd_cli_error(&cli, "no GID carries %s (is it an address of an RDMA netdev? see rdma-devmap)",
				     f.ip_arg);
		else if (f.m.netdev)
			rd_cli_error(&cli, "no GID on netdev %s", f.m.netdev);
		else
			rd_cli_error(&cli, "no GID matches the filters");
	}
out:
	rd_gid_live_close(live);
	free(res);
	rd_netdev_cache_free(&netdevs);
	rd_vlan_map_free(&vlans);
	rd_device_list_free(&list);
	return rd_cli_exit(&cli, o, ret);
}

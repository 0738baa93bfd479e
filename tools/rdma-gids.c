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
	       "      --color[=WHEN]    colour: auto (default), always, never\n"
	       "  -h, --help            this help\n"
	       "  -V, --version         version\n"
	       "\n"
	       "Exit status: 0 ok, 1 failure (a filter matched nothing; with --best: no port\n"
	       "has a usable index), 2 usage error.\n",
	       prog);
}

static const struct rd_col gid_cols[] = {
	{ "dev", "DEV", false, false },
	{ "port", "PORT", true, false },
	{ "index", "INDEX", true, false },
	{ "gid", "GID", false, false },
	{ "address", "ADDRESS", false, false },
	{ "ver", "VER", false, false },
	{ "netdev", "NETDEV", false, false },
	{ "vlan", "VLAN", true, false },
};
static const struct rd_out_colset tables[] = {
	{ gid_cols, RD_ARRAY_SIZE(gid_cols) },
};

/* The fields of one GID entry, shared by the listing and --best. */
static void print_gid_fields(struct rd_out *o, int kind, const struct rd_device *d,
			     const struct rd_port *p, const struct rd_gid *g)
{
	char gid[40];

	rd_gid_format(g->raw, gid);
	rd_out_cstr(o, kind, "dev", NULL, RD_C_NAME, d->name);
	rd_out_u64(o, kind, "port", NULL, p->num);
	rd_out_u64(o, kind, "index", NULL, g->index);
	rd_out_str(o, kind, "gid", NULL, gid);
	if (rd_gid_is_zero(g->raw)) {
		rd_out_str(o, kind & RD_TEXT, "address", NULL, NULL);
	} else {
		char addr[48];
		int family;

		rd_gid_address(g->raw, addr, &family);
		rd_out_str(o, kind & RD_TEXT, "address", NULL, addr);
		rd_out_str(o, kind & RD_JSON, family == AF_INET ? "ipv4" : "ipv6", NULL, addr);
	}
	rd_out_str(o, kind, "ver", NULL, rd_gid_ver_name(g->ver));
	rd_out_str(o, kind & RD_JSON, "type", NULL, g->type[0] ? g->type : NULL);
	rd_out_str(o, kind, "netdev", NULL, g->ndev[0] ? g->ndev : NULL);
	if (g->vlan >= 0) {
		rd_out_u64(o, kind, "vlan", NULL, (uint64_t)g->vlan);
	} else if (g->vlan == RD_VLAN_TAGGED || g->vlan == RD_VLAN_CANNOT_TELL) {
		/* A copy without proc/net/vlan/config: the id (or even the tagging) is unknown. */
		rd_out_str(o, kind & RD_TEXT, "vlan", NULL, "?");
		if (g->vlan == RD_VLAN_TAGGED)
			rd_out_bool(o, kind & RD_JSON, "vlan_tagged", NULL, true);
		rd_out_bool(o, kind & RD_JSON, "vlan_known", NULL, false);
	}
	rd_out_str(o, kind & RD_JSON, "link_layer", NULL,
		   (p->known & RD_PORT_LINK_LAYER) ? rd_link_layer_name(p->link_layer) : NULL);
}

/* show_gids: VER is the digit suffix of the kernel type ("IB/RoCE v1" -> v1). */
static void print_compat_row(FILE *fp, const struct rd_device *d, const struct rd_port *p,
			     const struct rd_gid *g)
{
	const char *ver = strrchr(g->type, 'v');
	char gid[40];

	if (!ver)
		ver = strrchr(g->type, 'V');
	rd_gid_format(g->raw, gid);
	/* sysfs strings: their control bytes are escaped as everywhere in text. */
	char *name = rd_text_escape(d->name, false), *v = rd_text_escape(ver ? ver : "", false);
	char *ndev = rd_text_escape(g->ndev, false);

	if (name && v && ndev && rd_gid_is_v4mapped(g->raw)) {
		char ip[16];

		inet_ntop(AF_INET, g->raw + 12, ip, sizeof(ip));
		fprintf(fp, "%s\t%u\t%u\t%s\t%s  \t%s\t%s\n", name, p->num, g->index, gid, ip, v,
			ndev);
	} else if (name && v && ndev) {
		fprintf(fp, "%s\t%u\t%u\t%s\t\t\t%s\t%s\n", name, p->num, g->index, gid, v, ndev);
	}
	free(name);
	free(v);
	free(ndev);
}

/* Remember the first netdev of each kind whose VLAN is shown as "?" (for one warning). */
static void note_vlan_unknown(const struct rd_gid *g, char names[2][64], bool *seen)
{
	int k = g->vlan == RD_VLAN_TAGGED ? 0 : g->vlan == RD_VLAN_CANNOT_TELL ? 1 : -1;

	if (k < 0 || !g->ndev[0])
		return;
	*seen = true;
	if (!names[k][0])
		rd_strlcpy(names[k], g->ndev, 64);
}

/*
 * The chosen index differs between ports (model/gidpolicy.c): the note after
 * the per-port lines, with each family's ports and NCCL's settings for them.
 */
static void nccl_note(struct rd_out *o, const struct rd_gid_choice *c, size_t n,
		      const struct rd_gid_nccl *adv)
{
	rd_out_line(o, "note: the best GID index differs between ports: leave NCCL_IB_GID_INDEX unset and let NCCL select by family:");
	for (int fi = 0; fi < 2; fi++) {
		char who[256] = "";
		size_t w = 0;

		if (!adv->env[fi][0])
			continue;
		for (size_t i = 0; i < n && w < sizeof(who); i++) {
			if (!rd_gid_nccl_counts(&c[i]) || rd_gid_family_index(&c[i].g) != fi)
				continue;
			w += (size_t)snprintf(who + w, sizeof(who) - w, "%s%s/%u", w ? " " : "",
					      c[i].d->name, c[i].p->num);
		}
		rd_out_line(o, "  %s (%s): %s", fi ? "IPv6" : "IPv4", who, adv->env[fi]);
	}
	if (adv->env[0][0] && adv->env[1][0])
		rd_out_line(o, "  no one setting fits both families (NCCL keeps index 0 on a port without a GID of its family): run each group with its own, e.g. NCCL_IB_HCA naming its devices");
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
	unsigned int found = 0, best_found = 0, best_ports = 0;
	struct rd_gid_choice *res = NULL;
	size_t nres = 0, capres = 0;
	char vlan_unknown[2][64] = { "", "" };	/* netdevs shown with VLAN "?": tagged, unsure */
	bool vlan_unknown_seen = false;
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
	ret = rd_cli_table_check(&cli, tables, RD_ARRAY_SIZE(tables));
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
		ret = rd_cli_usage_error(&cli, "-a lists empty slots; not with --best or --compat");
		goto out;
	}
	if (compat && (best || cli.json)) {
		ret = rd_cli_usage_error(&cli, "--compat prints show_gids' text layout; not with --best or -j");
		goto out;
	}
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;
	/* Only GIDs are shown: no warning about a port's rate, LID or state. */
	cli.scan_flags = 0;
	ret = rd_cli_scan_devices(&cli, &list);
	if (ret)
		goto out;
	(void)rd_vlan_map_read(&cli.sr, &vlans);
	/*
	 * Live, the table comes from ibv_query_gid_table() (one call per device)
	 * unless RDMA_GIDS_SOURCE=sysfs; -a needs the empty slots only sysfs lists.
	 */
	{
		const char *src = getenv("RDMA_GIDS_SOURCE");

		if (!(f.all && !best && !compat) && !(src && strcmp(src, "sysfs") == 0))
			live = rd_gid_live_open(&cli.sr);
	}
	/* -n naming a VLAN netdev chooses that VLAN: the netdev filter decides, not tagging. */
	if (best && f.m.netdev && f.vlan < 0)
		f.vlan = RD_GID_VLAN_ANY;

	if (compat) {
		rd_gid_compat_sort_devices(&list);
		printf("DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n");
		printf("---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n");
	} else {
		o = rd_out_new(stdout, cli.json, cli.color);
		if (!o) {
			rd_cli_error(&cli, "out of memory");
			ret = RD_EXIT_FAIL;
			goto out;
		}
		rd_out_set_table_opts(o, &cli.table);
		if (!best)
			rd_out_table_begin(o, NULL, gid_cols, RD_ARRAY_SIZE(gid_cols), true);
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
				/* --best honours the listing filters: -n, -4, -6, --ver. */
				if (rd_gid_choose(&netdevs, d, p, &t, &f.m, f.vlan, r)) {
					rd_gid_table_free(&t);
					rd_cli_error(&cli, "out of memory");
					ret = RD_EXIT_FAIL;
					goto out;
				}
				best_ports++;
				if (r->ok) {
					best_found++;
					note_vlan_unknown(&r->g, vlan_unknown, &vlan_unknown_seen);
				} else {
					for (size_t k = 0; k < t.n; k++)
						if (rd_gid_filter_match(&t.v[k], &f.m))
							note_vlan_unknown(&t.v[k], vlan_unknown,
									  &vlan_unknown_seen);
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
					print_compat_row(stdout, d, p, g);
					found++;
					continue;
				}
				found++;
				note_vlan_unknown(g, vlan_unknown, &vlan_unknown_seen);
				rd_out_row_begin(o);
				print_gid_fields(o, RD_ANY, d, p, g);
				rd_out_row_end(o);
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
	if (best) {
		struct rd_gid_nccl adv;

		rd_gid_nccl_advice(res, nres, &adv);
		for (size_t i = 0; i < nres; i++) {
			const struct rd_gid_choice *r = &res[i];

			rd_out_section_begin(o, NULL, NULL);
			if (r->ok) {
				print_gid_fields(o, RD_JSON, r->d, r->p, &r->g);
				rd_out_str(o, RD_JSON, "reason", NULL, r->text);
				if (adv.differs && rd_gid_nccl_counts(r)) {
					rd_out_bool(o, RD_JSON, "index_differs", NULL, true);
					rd_out_str(o, RD_JSON, "nccl_env", NULL,
						   adv.env[rd_gid_family_index(&r->g)]);
				}
				rd_out_line(o, "%s %u %u (%s)", r->d->name, r->p->num, r->g.index, r->text);
			} else {
				rd_out_str(o, RD_JSON, "dev", NULL, r->d->name);
				rd_out_u64(o, RD_JSON, "port", NULL, r->p->num);
				rd_out_str(o, RD_JSON, "reason", NULL, r->text);
				rd_out_line(o, "%s %u - (%s)", r->d->name, r->p->num, r->text);
			}
			rd_out_section_end(o);
		}
		rd_out_list_end(o);
		if (adv.differs && !cli.json)	/* after the per-port lines */
			nccl_note(o, res, nres, &adv);
	} else {
		rd_out_table_end(o);
	}
	if (vlans.ids_unknown && vlan_unknown_seen)
		rd_warn(&cli.warnings, "VLAN ids unknown: the sysroot has no proc/net/vlan/config, so VLAN shows ?%s%s%s%s%s%s (copy /proc/net/vlan/config along with /sys)",
			vlan_unknown[0][0] ? "; sysfs says " : "", vlan_unknown[0],
			vlan_unknown[0][0] ? " is a VLAN netdev" : "",
			vlan_unknown[1][0] ? "; cannot tell whether " : "", vlan_unknown[1],
			vlan_unknown[1][0] ? " is one" : "");
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

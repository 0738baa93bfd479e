// SPDX-License-Identifier: MIT
/* rdma-gids: GID tables with RoCE version, address, netdev and VLAN; which index to use. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "device.h"
#include "gid.h"
#include "netdev.h"
#include "output.h"

enum {
	OPT_VER = RD_OPT_TOOL_BASE,
	OPT_IP,
	OPT_BEST,
	OPT_VLAN,
	OPT_COMPAT,
};

struct gid_filter {
	const char *netdev;
	bool v4_only, v6_only;
	enum rd_gid_ver ver;	/* UNKNOWN = any */
	bool have_ip;
	uint8_t ip[16];		/* as a GID: IPv4 mapped */
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
	       "  -a, --all             include empty (all-zero) slots\n"
	       "  -n, --netdev IF       only GIDs of this netdev\n"
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
	       "      --sysroot DIR     read DIR/sys and DIR/proc instead of /sys and /proc\n"
	       "      --color[=WHEN]    colour: auto (default), always, never\n"
	       "  -h, --help            this help\n"
	       "  -V, --version         version\n"
	       "\n"
	       "Exit status: 0 ok, 1 failure (a filter matched nothing; with --best: no port\n"
	       "has a usable index), 2 usage error.\n",
	       prog);
}

static bool gid_matches(const struct rd_gid *g, const struct gid_filter *f)
{
	if (f->netdev && strcmp(g->ndev, f->netdev) != 0)
		return false;
	if (f->v4_only && !rd_gid_is_v4mapped(g->raw))
		return false;
	if (f->v6_only && rd_gid_is_v4mapped(g->raw))
		return false;
	if (f->ver != RD_GID_VER_UNKNOWN && g->ver != f->ver)
		return false;
	if (f->have_ip && memcmp(g->raw, f->ip, 16) != 0)
		return false;
	return true;
}

static bool filter_active(const struct gid_filter *f)
{
	return f->netdev || f->v4_only || f->v6_only || f->ver != RD_GID_VER_UNKNOWN || f->have_ip;
}

static const struct rd_col gid_cols[] = {
	{ "dev", "DEV", false },
	{ "port", "PORT", true },
	{ "index", "INDEX", true },
	{ "gid", "GID", false },
	{ "address", "ADDRESS", false },
	{ "ver", "VER", false },
	{ "netdev", "NETDEV", false },
	{ "vlan", "VLAN", true },
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
	if (g->vlan >= 0)
		rd_out_u64(o, kind, "vlan", NULL, (uint64_t)g->vlan);
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

/*
 * --compat lists in show_gids' order: it walks `ls` of the device, port and
 * gids directories, so names and numbers sort as text (mlx5_10 before
 * mlx5_2, GID 10 before GID 2), not in the natural order of the table.
 */
static int text_order_u(unsigned int a, unsigned int b)
{
	char sa[16], sb[16];

	snprintf(sa, sizeof(sa), "%u", a);
	snprintf(sb, sizeof(sb), "%u", b);
	return strcmp(sa, sb);
}

static int compat_dev_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rd_device *)a)->name, ((const struct rd_device *)b)->name);
}

static int compat_port_cmp(const void *a, const void *b)
{
	return text_order_u(((const struct rd_port *)a)->num, ((const struct rd_port *)b)->num);
}

static int compat_gid_cmp(const void *a, const void *b)
{
	return text_order_u(((const struct rd_gid *)a)->index, ((const struct rd_gid *)b)->index);
}

static bool compat_skipped(const struct rd_gid *g)
{
	static const uint8_t ll_zero[16] = { 0xfe, 0x80 };

	return rd_gid_is_zero(g->raw) || memcmp(g->raw, ll_zero, 16) == 0;
}

struct up_ctx {
	const struct rd_sysroot *sr;
};

static bool netdev_up(void *ctx, const char *ifname)
{
	return rd_netdev_is_up(((struct up_ctx *)ctx)->sr, ifname);
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
		{ NULL, 0, NULL, 0 },
	};
	struct gid_filter f = { .vlan = -1 };
	struct rd_device_list list = { 0 };
	struct rd_vlan_map vlans = { 0 };
	bool best = false, compat = false;
	unsigned int found = 0, best_found = 0, best_ports = 0;
	struct rd_out *o = NULL;
	struct rd_cli cli;
	int opt, ret = RD_EXIT_FAIL;
	uint64_t num;

	rd_cli_init(&cli, "rdma-gids");
	while ((opt = rd_cli_getopt(&cli, argc, argv, ":an:46" RD_COMMON_SHORTOPTS, longopts)) != -1) {
		if (opt == RD_CLI_OPT_USAGE) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
		switch (opt) {
		case 'a':
			f.all = true;
			break;
		case 'n':
			f.netdev = optarg;
			break;
		case '4':
			f.v4_only = true;
			break;
		case '6':
			f.v6_only = true;
			break;
		case OPT_VER:
			if (strcasecmp(optarg, "v1") == 0)
				f.ver = RD_GID_VER_V1;
			else if (strcasecmp(optarg, "v2") == 0)
				f.ver = RD_GID_VER_V2;
			else if (strcasecmp(optarg, "IB") == 0)
				f.ver = RD_GID_VER_IB;
			else if (strcasecmp(optarg, "iWARP") == 0)
				f.ver = RD_GID_VER_IWARP;
			else {
				ret = rd_cli_usage_error(&cli, "invalid --ver '%s' (v1, v2, IB or iWARP)", optarg);
				goto out;
			}
			break;
		case OPT_IP: {
			struct in_addr a4;

			f.ip_arg = optarg;
			memset(f.ip, 0, sizeof(f.ip));
			if (inet_pton(AF_INET, optarg, &a4) == 1) {
				f.ip[10] = f.ip[11] = 0xff;
				memcpy(f.ip + 12, &a4, 4);
			} else if (inet_pton(AF_INET6, optarg, f.ip) != 1) {
				ret = rd_cli_usage_error(&cli, "invalid --ip '%s' (an IPv4 or IPv6 address)", optarg);
				goto out;
			}
			f.have_ip = true;
			break;
		}
		case OPT_BEST:
			best = true;
			break;
		case OPT_VLAN:
			if (rd_parse_u64(optarg, &num) || num > 4094) {
				ret = rd_cli_usage_error(&cli, "invalid --vlan '%s' (0-4094)", optarg);
				goto out;
			}
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
	ret = rd_cli_help_version(&cli, usage);
	if (ret >= 0)
		goto out;
	/* Positional arguments are device names, as show_gids takes one. */
	for (; optind < argc; optind++) {
		if (rd_cli_common_opt(&cli, 'd', argv[optind]) < 0) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
	}
	if (f.v4_only && f.v6_only) {
		ret = rd_cli_usage_error(&cli, "-4 and -6 do not go together");
		goto out;
	}
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

	if (compat) {
		qsort(list.v, list.n, sizeof(*list.v), compat_dev_cmp);
		for (unsigned int i = 0; i < list.n; i++)
			if (list.v[i].nports)	/* a device without ports has no array */
				qsort(list.v[i].ports, list.v[i].nports, sizeof(*list.v[i].ports),
				      compat_port_cmp);
		printf("DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n");
		printf("---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n");
	} else {
		o = rd_out_new(stdout, cli.json, cli.color);
		if (!o) {
			rd_cli_error(&cli, "out of memory");
			ret = RD_EXIT_FAIL;
			goto out;
		}
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
			if (rd_port_gid_table_vlans(&cli.sr, d, p, f.all && !best && !compat, &vlans, &t,
						    &cli.warnings))
				continue;	/* warned; the other ports go on */
			if (compat && t.n)
				qsort(t.v, t.n, sizeof(*t.v), compat_gid_cmp);
			if (best) {
				struct up_ctx uc = { .sr = &cli.sr };
				struct rd_gid_table sel = { 0 };
				char reason[160], why[160];
				const struct rd_gid *g;

				/* --best honours the listing filters: -n, -4, -6, --ver. */
				sel.v = calloc(t.n ? t.n : 1, sizeof(*sel.v));
				for (size_t k = 0; sel.v && k < t.n; k++)
					if (gid_matches(&t.v[k], &f))
						sel.v[sel.n++] = t.v[k];
				g = rd_gid_best(&sel, p, f.vlan, netdev_up, &uc, reason, sizeof(reason),
						why, sizeof(why));
				if (!g && sel.n == 0 && t.n > 0 && filter_active(&f))
					snprintf(why, sizeof(why), "no GID matches the filters");
				best_ports++;
				rd_out_section_begin(o, NULL, NULL);
				if (g) {
					best_found++;
					print_gid_fields(o, RD_JSON, d, p, g);
					rd_out_str(o, RD_JSON, "reason", NULL, reason);
					rd_out_line(o, "%s %u %u (%s)", d->name, p->num, g->index, reason);
				} else {
					rd_out_str(o, RD_JSON, "dev", NULL, d->name);
					rd_out_u64(o, RD_JSON, "port", NULL, p->num);
					rd_out_str(o, RD_JSON, "reason", NULL, why);
					rd_out_line(o, "%s %u - (%s)", d->name, p->num, why);
				}
				rd_out_section_end(o);
				free(sel.v);
				rd_gid_table_free(&t);
				continue;
			}
			for (size_t k = 0; k < t.n; k++) {
				const struct rd_gid *g = &t.v[k];

				if (!gid_matches(g, &f))
					continue;
				if (compat) {
					if (compat_skipped(g))
						continue;
					print_compat_row(stdout, d, p, g);
					found++;
					continue;
				}
				found++;
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
		if (!found && filter_active(&f)) {
			rd_cli_flush_warnings(&cli);
			rd_cli_error(&cli, "no GID matches the filters");
			ret = RD_EXIT_FAIL;
		}
		goto out;
	}
	if (best)
		rd_out_list_end(o);
	else
		rd_out_table_end(o);
	ret = RD_EXIT_OK;
	if (best && best_found == 0) {
		ret = RD_EXIT_FAIL;
	} else if (!best && found == 0 && filter_active(&f)) {
		ret = RD_EXIT_FAIL;
		(void)rd_out_finish(o);	/* a write error is reported at exit */
		o = NULL;
		rd_cli_flush_warnings(&cli);
		if (f.have_ip)
			rd_cli_error(&cli, "no GID carries %s (is it an address of an RDMA netdev? see rdma-devmap)",
				     f.ip_arg);
		else if (f.netdev)
			rd_cli_error(&cli, "no GID on netdev %s", f.netdev);
		else
			rd_cli_error(&cli, "no GID matches the filters");
	}
out:
	rd_vlan_map_free(&vlans);
	rd_device_list_free(&list);
	return rd_cli_exit(&cli, o, ret);
}

// SPDX-License-Identifier: MIT
/* rdma-devmap: ib device/port <-> netdev, with reverse lookups by netdev or address. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/model.h"
#include "output/output.h"

struct port_map {
	struct rd_device *dev;
	struct rd_port *port;
	char netdev[64];
	enum rd_map_via via;
	bool other_netns;
	struct rd_netdev_info nd;
	const char *pf_dev;	/* VF: the ib device of its PF */
};

static void usage(const char *prog)
{
	printf("Usage: %s [options] [NETDEV | ADDRESS]\n"
	       "Map RDMA device ports to network interfaces (ibdev2netdev, for every driver).\n"
	       "With NETDEV or ADDRESS: which device, port and GID indexes use it.\n"
	       "\n"
	       "Options:\n"
	       "  -v, --verbose         PCI address, firmware, port state, link layer, MTU,\n"
	       "                        speed, and where the mapping came from\n"
	       "  -d, --device NAME     only this device (repeatable)\n"
	       "  -p, --port N          only port N\n"
	       "  -j, --json            JSON output\n"
	       RD_TABLE_USAGE("dev,port,netdev")
	       "      --sysroot DIR     read DIR/sys and DIR/proc (no netlink)\n"
	       RD_COMMON_USAGE_END
	       "\n"
	       "Exit status: 0 ok, 1 failure (unknown netdev or address), 2 usage error.\n",
	       prog);
}

static const char *find_pf_dev(const struct rd_device_list *all, const struct rd_device *d)
{
	if (!d->pf_pci[0])
		return NULL;
	for (unsigned int i = 0; i < all->n; i++)
		if (strcmp(all->v[i].pci, d->pf_pci) == 0)
			return all->v[i].name;
	return NULL;
}

static enum rd_color updown_color(const char *s)
{
	return strcmp(s, "Up") == 0 ? RD_C_GOOD : strcmp(s, "Down") == 0 ? RD_C_BAD : RD_C_WARN;
}

static const struct rd_col verbose_cols[] = {
	{ "dev", "DEV", false, false },
	{ "port", "PORT", true, false },
	{ "netdev", "NETDEV", false, false },
	{ "netdev_state", "STATE", false, false },
	{ "state", "PORT_STATE", false, false },
	{ "link_layer", "LINK", false, false },
	{ "pci", "PCI", false, false },
	{ "fw_ver", "FW", false, false },
	{ "netdev_mtu", "MTU", true, false },
	{ "speed", "SPEED", true, false },
	{ "via", "VIA", false, false },
	{ "notes", "NOTES", false, true },
};
static const struct rd_out_colset tables[] = {
	{ verbose_cols, RD_ARRAY_SIZE(verbose_cols) },
};

static void print_map(struct rd_out *o, bool verbose, const struct port_map *m)
{
	const char *ud = m->other_netns ? "NA" : rd_netdev_updown(&m->nd);
	struct rd_strlist notes = { 0 };
	char buf[160];

	if (!verbose && !rd_out_is_json(o)) {
		/*
		 * ibdev2netdev's line, with what it leaves out appended; in parts,
		 * so that --color colours the device and the link state as the
		 * -v table does.
		 */
		rd_out_text(o, RD_C_NAME, "%s", m->dev->name);
		rd_out_text(o, RD_C_NONE, " port %u ==> %s (", m->port->num,
			    m->netdev[0] ? m->netdev : "-");
		if (!m->netdev[0])
			rd_out_text(o, RD_C_WARN, "NA");
		else if (m->other_netns)
			rd_out_text(o, RD_C_WARN, "NA, in another network namespace");
		else
			rd_out_text(o, updown_color(ud), "%s", ud);
		rd_out_text(o, RD_C_NONE, ")");
		buf[0] = '\0';
		size_t off = 0;

		if (m->nd.bond_slaves.n) {
			char *j = rd_strlist_join(&m->nd.bond_slaves, ",");

			off += (size_t)snprintf(buf + off, sizeof(buf) - off, " bond slaves %s", j ? j : "");
			free(j);
		}
		if (m->dev->pf_pci[0] && off < sizeof(buf))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, " VF of %s",
						m->pf_dev ? m->pf_dev : m->dev->pf_pci);
		if (m->dev->num_vfs > 0 && off < sizeof(buf))
			snprintf(buf + off, sizeof(buf) - off, " PF with %d VFs", m->dev->num_vfs);
		rd_out_text(o, RD_C_NONE, "%s\n", buf);
		return;
	}
	rd_out_row_begin(o);
	rd_out_cstr(o, RD_ANY, "dev", NULL, RD_C_NAME, m->dev->name);
	rd_out_u64(o, RD_ANY, "port", NULL, m->port->num);
	rd_out_str(o, RD_ANY, "netdev", NULL, m->netdev[0] ? m->netdev : NULL);
	if (m->netdev[0]) {
		const char *js = m->other_netns ? "other_netns" :
				 !m->nd.present || strcmp(ud, "Unknown") == 0 ? "unknown" :
				 strcmp(ud, "Up") == 0 ? "up" : "down";

		rd_out_cstr(o, RD_TEXT, "netdev_state", NULL, updown_color(ud), ud);
		rd_out_str(o, RD_JSON, "netdev_state", NULL, js);
	}
	rd_out_str(o, RD_ANY, "via", NULL, rd_map_via_name(m->via));
	if (m->other_netns)
		rd_out_str(o, RD_JSON, "netns", NULL, "other");
	if (verbose) {
		if (m->port->known & RD_PORT_STATE)
			rd_out_str(o, RD_ANY, "state", NULL, rd_port_state_name(m->port->state));
		if (m->port->known & RD_PORT_LINK_LAYER)
			rd_out_str(o, RD_ANY, "link_layer", NULL, rd_link_layer_name(m->port->link_layer));
		rd_out_str(o, RD_ANY, "fw_ver", NULL, m->dev->fw_ver[0] ? m->dev->fw_ver : NULL);
	}
	rd_out_str(o, RD_ANY, "pci", NULL, m->dev->pci[0] ? m->dev->pci : NULL);
	if (m->nd.has_mtu)
		rd_out_u64(o, RD_ANY, "netdev_mtu", NULL, m->nd.mtu);
	if (m->nd.has_speed) {
		rd_out_u64_fmt(o, RD_JSON, "netdev_speed_mbps", NULL, (uint64_t)m->nd.speed_mbps, "%" PRId64,
			       m->nd.speed_mbps);
		rd_out_u64_fmt(o, RD_TEXT, "speed", NULL, 0, "%gG", (double)m->nd.speed_mbps / 1000);
	}
	if (m->nd.vlan >= 0)
		rd_out_u64(o, RD_JSON, "vlan", NULL, (uint64_t)m->nd.vlan);
	if (m->nd.bond_slaves.n) {
		rd_out_strlist(o, RD_JSON, "bond_slaves", NULL, &m->nd.bond_slaves, ",");
		char *j = rd_strlist_join(&m->nd.bond_slaves, ",");

		snprintf(buf, sizeof(buf), "bond slaves %s", j ? j : "");
		free(j);
		rd_strlist_add(&notes, buf);
	}
	if (m->dev->pf_pci[0]) {
		rd_out_bool(o, RD_JSON, "vf", NULL, true);
		rd_out_str(o, RD_JSON, "pf", NULL, m->pf_dev ? m->pf_dev : m->dev->pf_pci);
		snprintf(buf, sizeof(buf), "VF of %s", m->pf_dev ? m->pf_dev : m->dev->pf_pci);
		rd_strlist_add(&notes, buf);
	}
	if (m->dev->num_vfs > 0) {
		rd_out_u64(o, RD_JSON, "num_vfs", NULL, (uint64_t)m->dev->num_vfs);
		snprintf(buf, sizeof(buf), "PF with %d VFs", m->dev->num_vfs);
		rd_strlist_add(&notes, buf);
	}
	if (m->other_netns)
		rd_strlist_add(&notes, "netdev in another network namespace");
	rd_out_strlist(o, RD_TEXT, "notes", NULL, &notes, "; ");
	rd_strlist_free(&notes);
	rd_out_row_end(o);
}

/* Reverse lookup: a netdev name or an IP address. */
static int lookup(struct rd_cli *cli, struct rd_out *o, struct port_map *maps, size_t nmaps,
		  const struct rd_vlan_map *vlans, const char *query)
{
	uint8_t want[16] = { 0 };
	bool is_ip = false;
	struct in_addr a4;
	unsigned int hits = 0;

	if (inet_pton(AF_INET, query, &a4) == 1) {
		want[10] = want[11] = 0xff;
		memcpy(want + 12, &a4, 4);
		is_ip = true;
	} else if (inet_pton(AF_INET6, query, want) == 1) {
		is_ip = true;
	}
	rd_out_list_begin(o, NULL);
	for (size_t i = 0; i < nmaps; i++) {
		struct port_map *m = &maps[i];
		struct rd_gid_table t;
		struct rd_strlist idx = { 0 }, ndevs = { 0 };
		char num[16], netdev[64] = "";
		bool port_match = !is_ip && strcmp(m->netdev, query) == 0;

		/* A bond slave leads to the LAG device, an IPoIB P_Key child to its port. */
		if (!is_ip && (rd_strlist_has(&m->nd.bond_slaves, query) ||
			       rd_ipoib_on_port(&cli->sr, m->dev, m->port, query)))
			port_match = true;
		if (rd_port_gid_table_vlans(&cli->sr, m->dev, m->port, false, vlans, &t, &cli->warnings))
			continue;
		for (size_t k = 0; k < t.n; k++) {
			bool hit = is_ip ? memcmp(t.v[k].raw, want, 16) == 0 :
					   strcmp(t.v[k].ndev, query) == 0;

			if (!hit)
				continue;
			snprintf(num, sizeof(num), "%u", t.v[k].index);
			rd_strlist_add(&idx, num);
			/* A link-local address is on the VLANs too: name every netdev. */
			if (t.v[k].ndev[0])
				rd_strlist_add_unique(&ndevs, t.v[k].ndev);
			if (!netdev[0])
				rd_strlcpy(netdev, t.v[k].ndev, sizeof(netdev));
		}
		rd_gid_table_free(&t);
		if (!port_match && !idx.n) {
			rd_strlist_free(&ndevs);
			continue;
		}
		/* By address or through a bond slave: name the port's own netdev. */
		if (!netdev[0])
			rd_strlcpy(netdev, is_ip || rd_strlist_has(&m->nd.bond_slaves, query) ?
					   m->netdev : query, sizeof(netdev));
		hits++;
		rd_out_section_begin(o, NULL, NULL);
		rd_out_str(o, RD_JSON, "query", NULL, query);
		rd_out_str(o, RD_JSON, "dev", NULL, m->dev->name);
		rd_out_u64(o, RD_JSON, "port", NULL, m->port->num);
		rd_out_str(o, RD_JSON, "netdev", NULL, netdev[0] ? netdev : NULL);
		if (ndevs.n > 1)
			rd_out_strlist(o, RD_JSON, "netdevs", NULL, &ndevs, ",");
		if (!rd_out_is_json(o)) {
			char *j = rd_strlist_join(&idx, ",");
			char *nj = ndevs.n > 1 ? rd_strlist_join(&ndevs, ",") : NULL;

			rd_out_line(o, "%s ==> %s port %u netdev %s gid %s", query, m->dev->name,
				    m->port->num, nj ? nj : netdev[0] ? netdev : "-", idx.n && j ? j : "-");
			free(nj);
			free(j);
		} else {
			rd_out_list_begin(o, "gid_indexes");
			for (size_t k = 0; k < idx.n; k++)
				rd_out_u64(o, RD_JSON, NULL, NULL, strtoull(idx.v[k], NULL, 10));
			rd_out_list_end(o);
		}
		rd_out_section_end(o);
		rd_strlist_free(&idx);
		rd_strlist_free(&ndevs);
	}
	rd_out_list_end(o);
	if (hits)
		return RD_EXIT_OK;
	if (is_ip)
		rd_cli_error(cli, "%s: no RDMA port has a GID for this address "
				  "(is it configured on an RDMA netdev?)", query);
	else
		rd_cli_error(cli, "%s: no RDMA port uses this netdev", query);
	return RD_EXIT_FAIL;
}

/*
 * The positional argument: an IPv4/IPv6 address or a netdev name as the
 * kernel allows them (dev_valid_name: 1-15 bytes, not "." or "..", no '/',
 * ':' or blank).  Something that looks like an address but does not parse
 * is a typo, not a netdev to look for.  0 if fine, else a usage error.
 */
static int check_query(const struct rd_cli *cli, const char *q)
{
	uint8_t a[16];
	bool dotted = strchr(q, '.') != NULL;

	if (!*q)
		return rd_cli_usage_error(cli, "empty NETDEV or ADDRESS argument");
	if (inet_pton(AF_INET, q, a) == 1 || inet_pton(AF_INET6, q, a) == 1)
		return 0;
	if (strchr(q, ':'))
		return rd_cli_usage_error(cli, "%s: not a valid IPv6 address", q);
	for (const char *p = q; *p && dotted; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			dotted = false;
	if (dotted)
		return rd_cli_usage_error(cli, "%s: not a valid IPv4 address", q);
	if (strlen(q) > 15 || strcmp(q, ".") == 0 || strcmp(q, "..") == 0 || strpbrk(q, "/ \t\n\v\f\r"))
		return rd_cli_usage_error(cli, "%s: not a netdev name or an IP address "
					  "(a netdev name has 1-15 characters, no '/' or blanks)", q);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		RD_COMMON_LONGOPTS,
		RD_TABLE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct rd_device_list list = { 0 }, all = { 0 };
	struct rd_nl_ports nl = { 0 };
	struct rd_vlan_map vlans = { 0 };
	struct rd_netdev_cache netdevs;
	struct port_map *maps = NULL;
	size_t nmaps = 0, cap = 0;
	const char *query = NULL;
	bool verbose = false, have_nl = false;
	struct rd_out *o = NULL;
	struct rd_cli cli;
	int opt, ret = RD_EXIT_FAIL;

	rd_cli_init(&cli, "rdma-devmap");
	rd_netdev_cache_init(&netdevs, &cli.sr);
	while ((opt = rd_cli_getopt(&cli, argc, argv, ":v" RD_COMMON_SHORTOPTS RD_TABLE_SHORTOPTS, longopts)) != -1) {
		if (opt == RD_CLI_OPT_USAGE) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
		if (opt == 'v') {
			verbose = true;
			continue;
		}
		ret = rd_cli_getopt_error(&cli, opt, argv);
		goto out;
	}
	ret = rd_cli_operands(&cli, argc, argv, usage, 1, "one NETDEV or ADDRESS");
	if (ret >= 0)
		goto out;
	ret = rd_cli_table_check(&cli, tables, RD_ARRAY_SIZE(tables));
	if (ret)
		goto out;
	/* The table is -v's: -o, --raw and --noheadings ask for it. */
	if (rd_cli_table_opts_given(&cli))
		verbose = true;
	if (optind < argc) {
		query = argv[optind++];
		ret = check_query(&cli, query);
		if (!ret)
			ret = rd_cli_table_none(&cli, "a NETDEV or ADDRESS lookup");
		if (ret)
			goto out;
	}
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;
	/*
	 * rd_port_netdev maps ports (no netdev lists needed); -v shows the port
	 * state and firmware, and the function (SR-IOV, driver, a soft
	 * device's parent), nothing else of the device.
	 */
	cli.scan_flags = RD_SCAN_PORT_STATE | RD_SCAN_DEV_FW | RD_SCAN_DEV_FN;
	ret = rd_cli_scan_devices(&cli, &list);
	if (ret)
		goto out;
	/* VFs name their PF by PCI address: the whole list finds its ib device. */
	if (cli.devices.n && rd_device_scan(&cli.sr, NULL, &all, NULL, NULL) != 0)
		all.n = 0;
	if (rd_sysroot_is_live(&cli.sr)) {
		int err = rd_nldev_ports(&nl, 2000);

		if (err == 0)
			have_nl = true;
		else
			rd_warn(&cli.warnings, "RDMA netlink unavailable (%s); using sysfs", strerror(-err));
	}
	(void)rd_vlan_map_read(&cli.sr, &vlans);

	for (unsigned int i = 0; i < list.n; i++) {
		struct rd_device *d = &list.v[i];

		for (unsigned int j = 0; j < d->nports; j++) {
			struct port_map *m;

			if (!rd_cli_port_selected(&cli, &d->ports[j]))
				continue;
			if (nmaps == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				struct port_map *v = realloc(maps, ncap * sizeof(*v));

				if (!v) {
					rd_cli_error(&cli, "out of memory");
					ret = RD_EXIT_FAIL;
					goto out;
				}
				maps = v;
				cap = ncap;
			}
			m = &maps[nmaps++];
			memset(m, 0, sizeof(*m));
			m->dev = d;
			m->port = &d->ports[j];
			rd_port_netdev_cached(&netdevs, have_nl ? &nl : NULL, d, m->port, NULL,
					      m->netdev, sizeof(m->netdev), &m->via, &m->other_netns);
			if (m->netdev[0] && !m->other_netns) {
				/* Named, yet not readable here (a copy with a dangling link). */
				int why = rd_sys_check_dir(&cli.sr, "/sys/class/net/%s", m->netdev);

				if (why)
					rd_warn(&cli.warnings, "%s port %u: netdev %s: %s (%s/sys/class/net/%s)",
						d->name, m->port->num, m->netdev, rd_read_strerror(why),
						cli.sr.root, m->netdev);
			}
			rd_netdev_read(&cli.sr, m->netdev, &vlans, &m->nd);
			if (m->nd.present && m->nd.operstate_err)
				rd_warn(&cli.warnings, "%s: operstate: %s; its state is unknown", m->netdev,
					rd_read_strerror(m->nd.operstate_err));
			m->pf_dev = find_pf_dev(cli.devices.n ? &all : &list, d);
		}
	}

	o = rd_cli_out(&cli);
	if (!o) {
		ret = RD_EXIT_FAIL;
		goto out;
	}
	if (query) {
		ret = lookup(&cli, o, maps, nmaps, &vlans, query);
		goto out;
	}
	if (verbose || cli.json)
		rd_out_table_begin(o, NULL, verbose_cols, RD_ARRAY_SIZE(verbose_cols), true);
	for (size_t i = 0; i < nmaps; i++)
		print_map(o, verbose, &maps[i]);
	if (verbose || cli.json)
		rd_out_table_end(o);
	ret = RD_EXIT_OK;
out:
	for (size_t i = 0; i < nmaps; i++)
		rd_netdev_info_free(&maps[i].nd);
	free(maps);
	rd_vlan_map_free(&vlans);
	rd_netdev_cache_free(&netdevs);
	rd_nl_ports_free(&nl);
	rd_device_list_free(&all);
	rd_device_list_free(&list);
	return rd_cli_exit(&cli, o, ret);
}

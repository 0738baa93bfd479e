// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "devprint.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static enum rd_color state_color(const struct rd_port *p)
{
	if (!(p->known & RD_PORT_STATE))
		return RD_C_WARN;
	switch (p->state) {
	case 4:
		return RD_C_GOOD;
	case 1:
		return RD_C_BAD;
	default:
		return RD_C_WARN;
	}
}

/* The name of a kernel number, or "UNKNOWN(n)" for one the kit has no name for. */
static const char *name_or_number(const char *name, uint64_t v, char *buf, size_t len)
{
	if (name)
		return name;
	snprintf(buf, len, "UNKNOWN(%" PRIu64 ")", v);
	return buf;
}

static const char *state_text(const struct rd_port *p, char *buf, size_t len)
{
	if (!(p->known & RD_PORT_STATE))
		return NULL;
	return name_or_number(rd_port_state_name(p->state), p->state, buf, len);
}

/* The device's transport as users say it; "InfiniBand,RoCE" on a mixed VPI card. */
static const char *device_transport(const struct rd_device *d, const struct rd_cli *cli,
				    char *buf, size_t len)
{
	struct rd_strlist t = { 0 };
	char *j;

	buf[0] = '\0';
	for (unsigned int i = 0; i < d->nports; i++) {
		const char *s = rd_port_transport(d, &d->ports[i]);

		if (s && rd_cli_port_selected(cli, &d->ports[i]))
			rd_strlist_add_unique(&t, s);
	}
	if (!t.n && d->nports == 0)
		rd_strlist_add_unique(&t, rd_port_transport(d, NULL) ? rd_port_transport(d, NULL) : "");
	j = rd_strlist_join(&t, ",");
	if (j)
		rd_strlcpy(buf, j, len);
	free(j);
	rd_strlist_free(&t);
	return buf[0] ? buf : NULL;
}

/* Text as sysfs and ibv_devinfo write a GUID, JSON as the whole kit does (0x...). */
static void print_guid(struct rd_out *o, int kind, const char *key, bool known, uint64_t guid)
{
	char buf[20];

	if (!known) {
		rd_out_str(o, kind, key, NULL, NULL);
		return;
	}
	if (kind & RD_TEXT) {
		rd_format_guid(guid, buf);
		rd_out_str(o, RD_TEXT, key, NULL, buf);
	}
	if (kind & RD_JSON) {
		rd_format_guid_hex(guid, buf);
		rd_out_str(o, RD_JSON, key, NULL, buf);
	}
}

static const char *node_type_text(const struct rd_device *d, char *buf, size_t len)
{
	if (!(d->known & RD_DEV_NODE_TYPE))
		return NULL;
	return name_or_number(rd_node_type_name(d->node_type), d->node_type, buf, len);
}

/* ---- default: one row per device ---- */

static const struct rd_col table_cols[] = {
	{ "dev", "DEVICE", false, false },
	{ "node_type", "TYPE", false, false },
	{ "transport", "LINK", false, false },
	{ "ports", "PORTS", true, false },
	{ "state", "STATE", false, false },
	{ "fw_ver", "FW", false, false },
	{ "node_guid", "NODE_GUID", false, false },
	{ "netdevs", "NETDEVS", false, true },	/* a list: broken after a ',' on a narrow terminal */
};
const struct rd_out_colset rd_devinfo_tables[RD_DEVINFO_NTABLES] = {
	{ table_cols, RD_ARRAY_SIZE(table_cols) },
};

static void port_json_brief(struct rd_out *o, const struct rd_device *d, const struct rd_port *p)
{
	char buf[32];

	rd_out_u64(o, RD_JSON, "port", NULL, p->num);
	rd_out_str(o, RD_JSON, "state", NULL, state_text(p, buf, sizeof(buf)));
	if (p->known & RD_PORT_PHYS_STATE)
		rd_out_str(o, RD_JSON, "phys_state", NULL, rd_phys_state_name(p->phys_state));
	rd_out_str(o, RD_JSON, "link_layer", NULL,
		   (p->known & RD_PORT_LINK_LAYER) ? rd_link_layer_name(p->link_layer) : NULL);
	rd_out_str(o, RD_JSON, "transport", NULL, rd_port_transport(d, p));
	if (p->known & RD_PORT_RATE)
		rd_out_str(o, RD_JSON, "rate", NULL, p->rate_str);
	rd_out_strlist(o, RD_JSON, "netdevs", NULL, &p->netdevs, ",");
}

static void print_row(struct rd_out *o, const struct rd_cli *cli, const struct rd_device *d)
{
	char tbuf[64], nbuf[32], states[256] = "";
	struct rd_strlist netdevs = { 0 };
	unsigned int nsel = 0;
	enum rd_color scolor = RD_C_NONE;
	size_t off = 0;

	rd_out_row_begin(o);
	rd_out_cstr(o, RD_ANY, "dev", NULL, RD_C_NAME, d->name);
	rd_out_str(o, RD_ANY, "node_type", NULL, node_type_text(d, nbuf, sizeof(nbuf)));
	rd_out_str(o, RD_ANY, "transport", NULL, device_transport(d, cli, tbuf, sizeof(tbuf)));
	/* Soft devices have an empty fw_ver: "" in JSON, "-" in the table. */
	rd_out_str(o, RD_JSON, "fw_ver", NULL, (d->known & RD_DEV_FW_VER) ? d->fw_ver : NULL);
	rd_out_str(o, RD_TEXT, "fw_ver", NULL, d->fw_ver[0] ? d->fw_ver : NULL);
	print_guid(o, RD_ANY, "node_guid", d->known & RD_DEV_NODE_GUID, d->node_guid);

	rd_out_list_begin(o, "ports");
	for (unsigned int i = 0; i < d->nports; i++) {
		const struct rd_port *p = &d->ports[i];
		char sbuf[32];
		const char *s;

		if (!rd_cli_port_selected(cli, p))
			continue;
		nsel++;
		s = state_text(p, sbuf, sizeof(sbuf));
		off += (size_t)snprintf(states + off, off < sizeof(states) ? sizeof(states) - off : 0,
					"%s%s", off ? "," : "", s ? s : "-");	/* unknown: "-" */
		/* One colour for the cell: red if any port is down, yellow if any is odd. */
		enum rd_color c = state_color(p);

		if (c == RD_C_BAD || (c == RD_C_WARN && scolor != RD_C_BAD) || scolor == RD_C_NONE)
			scolor = c;
		for (size_t j = 0; j < p->netdevs.n; j++)
			rd_strlist_add_unique(&netdevs, p->netdevs.v[j]);
		rd_out_section_begin(o, NULL, NULL);
		port_json_brief(o, d, p);
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
	rd_out_u64(o, RD_TEXT, "ports", NULL, nsel);
	rd_out_cstr(o, RD_TEXT, "state", NULL, scolor, nsel ? states : NULL);
	rd_out_strlist(o, RD_ANY, "netdevs", NULL, &netdevs, ",");
	rd_strlist_free(&netdevs);
	rd_out_row_end(o);
}

/* ---- -v: everything ---- */

static void print_verbs_device(struct rd_out *o, const struct rd_verbs_device *v)
{
	const struct ibv_device_attr *a = &v->attr;

	rd_out_section_begin(o, "verbs", "verbs:");
	rd_out_str(o, RD_ANY, "fw_ver", NULL, a->fw_ver[0] ? a->fw_ver : NULL);
	rd_out_u64_fmt(o, RD_ANY, "vendor_id", NULL, a->vendor_id, "0x%04x", a->vendor_id);
	rd_out_u64_fmt(o, RD_ANY, "vendor_part_id", NULL, a->vendor_part_id, "%u", a->vendor_part_id);
	rd_out_u64_fmt(o, RD_ANY, "hw_ver", NULL, a->hw_ver, "0x%x", a->hw_ver);
	rd_out_u64(o, RD_ANY, "phys_port_cnt", NULL, a->phys_port_cnt);
	rd_out_u64_fmt(o, RD_ANY, "max_mr_size", NULL, a->max_mr_size, "0x%" PRIx64, (uint64_t)a->max_mr_size);
	rd_out_u64_fmt(o, RD_ANY, "page_size_cap", NULL, a->page_size_cap, "0x%" PRIx64, (uint64_t)a->page_size_cap);
	rd_out_u64(o, RD_ANY, "max_qp", NULL, (uint64_t)a->max_qp);
	rd_out_u64(o, RD_ANY, "max_qp_wr", NULL, (uint64_t)a->max_qp_wr);
	rd_out_u64_fmt(o, RD_ANY, "device_cap_flags", NULL, a->device_cap_flags, "0x%08x", a->device_cap_flags);
	rd_out_u64(o, RD_ANY, "max_sge", NULL, (uint64_t)a->max_sge);
	rd_out_u64(o, RD_ANY, "max_sge_rd", NULL, (uint64_t)a->max_sge_rd);
	rd_out_u64(o, RD_ANY, "max_cq", NULL, (uint64_t)a->max_cq);
	rd_out_u64(o, RD_ANY, "max_cqe", NULL, (uint64_t)a->max_cqe);
	rd_out_u64(o, RD_ANY, "max_mr", NULL, (uint64_t)a->max_mr);
	rd_out_u64(o, RD_ANY, "max_pd", NULL, (uint64_t)a->max_pd);
	rd_out_u64(o, RD_ANY, "max_qp_rd_atom", NULL, (uint64_t)a->max_qp_rd_atom);
	rd_out_u64(o, RD_ANY, "max_qp_init_rd_atom", NULL, (uint64_t)a->max_qp_init_rd_atom);
	rd_out_u64(o, RD_ANY, "max_res_rd_atom", NULL, (uint64_t)a->max_res_rd_atom);
	rd_out_u64(o, RD_ANY, "max_ee_rd_atom", NULL, (uint64_t)a->max_ee_rd_atom);
	rd_out_u64(o, RD_ANY, "max_ee_init_rd_atom", NULL, (uint64_t)a->max_ee_init_rd_atom);
	rd_out_str(o, RD_ANY, "atomic_cap", NULL, rd_atomic_cap_str(a->atomic_cap));
	rd_out_u64(o, RD_ANY, "max_ee", NULL, (uint64_t)a->max_ee);
	rd_out_u64(o, RD_ANY, "max_rdd", NULL, (uint64_t)a->max_rdd);
	rd_out_u64(o, RD_ANY, "max_mw", NULL, (uint64_t)a->max_mw);
	rd_out_u64(o, RD_ANY, "max_raw_ipv6_qp", NULL, (uint64_t)a->max_raw_ipv6_qp);
	rd_out_u64(o, RD_ANY, "max_raw_ethy_qp", NULL, (uint64_t)a->max_raw_ethy_qp);
	rd_out_u64(o, RD_ANY, "max_mcast_grp", NULL, (uint64_t)a->max_mcast_grp);
	rd_out_u64(o, RD_ANY, "max_mcast_qp_attach", NULL, (uint64_t)a->max_mcast_qp_attach);
	rd_out_u64(o, RD_ANY, "max_total_mcast_qp_attach", NULL, (uint64_t)a->max_total_mcast_qp_attach);
	rd_out_u64(o, RD_ANY, "max_ah", NULL, (uint64_t)a->max_ah);
	rd_out_u64(o, RD_ANY, "max_srq", NULL, (uint64_t)a->max_srq);
	rd_out_u64(o, RD_ANY, "max_srq_wr", NULL, (uint64_t)a->max_srq_wr);
	rd_out_u64(o, RD_ANY, "max_srq_sge", NULL, (uint64_t)a->max_srq_sge);
	rd_out_u64(o, RD_ANY, "max_pkeys", NULL, a->max_pkeys);
	rd_out_u64(o, RD_ANY, "local_ca_ack_delay", NULL, a->local_ca_ack_delay);
	rd_out_section_end(o);
}

static void print_verbs_port(struct rd_out *o, const struct rd_verbs_port *v)
{
	const struct ibv_port_attr *a = &v->attr;
	const char *w = rd_width_str(a->active_width), *s = rd_speed_str(a->active_speed);

	rd_out_section_begin(o, "verbs", "verbs:");
	rd_out_u64_fmt(o, RD_ANY, "state_code", "state", a->state, "%s (%u)",
		       rd_port_state_name(a->state) ? rd_port_state_name(a->state) : "?", a->state);
	if (rd_mtu_str(a->max_mtu))
		rd_out_u64(o, RD_ANY, "max_mtu", NULL, strtoull(rd_mtu_str(a->max_mtu), NULL, 10));
	if (rd_mtu_str(a->active_mtu))
		rd_out_u64(o, RD_ANY, "active_mtu", NULL, strtoull(rd_mtu_str(a->active_mtu), NULL, 10));
	rd_out_u64(o, RD_ANY, "gid_tbl_len", NULL, (uint64_t)a->gid_tbl_len);
	rd_out_u64(o, RD_ANY, "pkey_tbl_len", NULL, a->pkey_tbl_len);
	rd_out_u64_fmt(o, RD_ANY, "port_cap_flags", NULL, a->port_cap_flags, "0x%08x", a->port_cap_flags);
	rd_out_u64_fmt(o, RD_ANY, "port_cap_flags2", NULL, a->port_cap_flags2, "0x%04x", a->port_cap_flags2);
	rd_out_u64_fmt(o, RD_ANY, "max_msg_sz", NULL, a->max_msg_sz, "0x%x", a->max_msg_sz);
	rd_out_u64(o, RD_ANY, "lid", NULL, a->lid);
	rd_out_u64(o, RD_ANY, "sm_lid", NULL, a->sm_lid);
	rd_out_u64(o, RD_ANY, "sm_sl", NULL, a->sm_sl);
	rd_out_u64(o, RD_ANY, "lmc", NULL, a->lmc);
	rd_out_u64(o, RD_ANY, "max_vl_num", NULL, a->max_vl_num);
	rd_out_u64(o, RD_ANY, "subnet_timeout", NULL, a->subnet_timeout);
	rd_out_u64(o, RD_ANY, "bad_pkey_cntr", NULL, a->bad_pkey_cntr);
	rd_out_u64(o, RD_ANY, "qkey_viol_cntr", NULL, a->qkey_viol_cntr);
	rd_out_str(o, RD_ANY, "active_width", NULL, w);
	rd_out_str(o, RD_ANY, "active_speed", NULL, s);
	rd_out_section_end(o);
}

/* The MTU of the port's own netdev (its first), which RoCE's path MTU follows. */
static void print_netdev_mtu(struct rd_out *o, const struct rd_sysroot *sr, const struct rd_port *p)
{
	uint64_t mtu;

	if (p->netdevs.n && rd_netdev_mtu(sr, p->netdevs.v[0], &mtu) == 0)
		rd_out_u64(o, RD_ANY, "netdev_mtu", NULL, mtu);
}

static void print_port_detail(struct rd_out *o, const struct rd_sysroot *sr, const struct rd_device *d,
			      const struct rd_port *p)
{
	rd_out_section_begin(o, NULL, "port %u", p->num);
	rd_out_u64(o, RD_JSON, "port", NULL, p->num);
	if (p->known & RD_PORT_STATE) {
		char buf[64];

		rd_out_cstr(o, RD_ANY, "state", NULL, state_color(p), state_text(p, buf, sizeof(buf)));
	}
	if (p->known & RD_PORT_PHYS_STATE) {
		const char *n = rd_phys_state_name(p->phys_state);

		rd_out_str(o, RD_ANY, "phys_state", NULL, n ? n : "UNKNOWN");
	}
	rd_out_str(o, RD_ANY, "link_layer", NULL,
		   (p->known & RD_PORT_LINK_LAYER) ? rd_link_layer_name(p->link_layer) : NULL);
	rd_out_str(o, RD_ANY, "transport", NULL, rd_port_transport(d, p));
	if (p->known & RD_PORT_RATE) {
		rd_out_str(o, RD_ANY, "rate", NULL, p->rate_str);
		rd_out_double(o, RD_JSON, "rate_gbps", NULL, p->rate.gbps, NULL);
		if (p->rate.width[0])
			rd_out_str(o, RD_JSON, "width", NULL, p->rate.width);
		if (p->rate.speed[0])
			rd_out_str(o, RD_JSON, "speed", NULL, p->rate.speed);
	}
	if (p->known & RD_PORT_LID)
		rd_out_u64_fmt(o, RD_ANY, "lid", NULL, p->lid, "0x%" PRIx64, p->lid);
	if (p->known & RD_PORT_SM_LID)
		rd_out_u64_fmt(o, RD_ANY, "sm_lid", NULL, p->sm_lid, "0x%" PRIx64, p->sm_lid);
	if (p->known & RD_PORT_SM_SL)
		rd_out_u64(o, RD_ANY, "sm_sl", NULL, p->sm_sl);
	if (p->known & RD_PORT_LMC)
		rd_out_u64(o, RD_ANY, "lid_mask_count", NULL, p->lid_mask_count);
	if (p->known & RD_PORT_CAP_MASK)
		rd_out_u64_fmt(o, RD_ANY, "cap_mask", NULL, p->cap_mask, "0x%08" PRIx64, p->cap_mask);
	if (p->netdevs.n)
		rd_out_strlist(o, RD_ANY, "netdevs", NULL, &p->netdevs, ", ");
	print_netdev_mtu(o, sr, p);
	if (p->verbs)
		print_verbs_port(o, p->verbs);
	rd_out_section_end(o);
}

/*
 * The RDMA stack (a node fact, shown with each device so that one device's
 * document carries it to rdma-fleet) and the driver module's own version.
 */
static void print_stack(struct rd_out *o, const struct rd_cli *cli, const struct rd_device *d,
			struct rd_stack *st)
{
	char ver[64];

	if (d->driver[0] && rd_stack_driver_version(st, &cli->sr, d->driver, ver, sizeof(ver)) == 0 &&
	    ver[0])
		rd_out_str(o, RD_ANY, "driver_version", NULL, ver);
	rd_out_str(o, RD_JSON, "stack", NULL, rd_stack_name(st));
	rd_out_str(o, RD_JSON, "stack_kernel", NULL, rd_stack_kind_name(st->kernel));
	rd_out_str(o, RD_JSON, "stack_user", NULL, rd_stack_kind_name(st->user));
	rd_out_str(o, RD_JSON, "libibverbs_pkg", NULL, st->verbs_pkg[0] ? st->verbs_pkg : NULL);
	rd_out_str(o, RD_JSON, "libibverbs_lib", NULL, st->verbs_lib[0] ? st->verbs_lib : NULL);
	rd_out_str(o, RD_JSON, "ofed", NULL, st->ofed[0] ? st->ofed : NULL);
	if (rd_stack_name(st)) {
		char desc[320];

		rd_stack_describe(st, desc, sizeof(desc));
		rd_out_str(o, RD_TEXT, "stack", NULL, desc);
	}
}

static void print_detail(struct rd_out *o, const struct rd_cli *cli, const struct rd_device *d,
			 struct rd_stack *st)
{
	char buf[64], nbuf[32];

	rd_out_section_begin(o, NULL, "%s", d->name);
	rd_out_str(o, RD_JSON, "dev", NULL, d->name);
	if (d->known & RD_DEV_NODE_TYPE)
		rd_out_u64_fmt(o, RD_TEXT, "node_type", NULL, d->node_type, "%s (%" PRIu64 ")",
			       node_type_text(d, nbuf, sizeof(nbuf)), d->node_type);
	rd_out_str(o, RD_JSON, "node_type", NULL, node_type_text(d, nbuf, sizeof(nbuf)));
	rd_out_str(o, RD_ANY, "transport", NULL, device_transport(d, cli, buf, sizeof(buf)));
	print_guid(o, RD_ANY, "node_guid", d->known & RD_DEV_NODE_GUID, d->node_guid);
	print_guid(o, RD_ANY, "sys_image_guid", d->known & RD_DEV_SYS_IMAGE_GUID, d->sys_image_guid);
	if (d->known & RD_DEV_FW_VER) {
		rd_out_str(o, RD_JSON, "fw_ver", NULL, d->fw_ver);
		rd_out_str(o, RD_TEXT, "fw_ver", NULL, d->fw_ver[0] ? d->fw_ver : "(none)");
	}
	rd_out_str(o, RD_ANY, "hca_type", NULL, (d->known & RD_DEV_HCA_TYPE) ? d->hca_type : NULL);
	rd_out_str(o, RD_ANY, "board_id", NULL, (d->known & RD_DEV_BOARD_ID) ? d->board_id : NULL);
	rd_out_str(o, RD_JSON, "node_desc", NULL, (d->known & RD_DEV_NODE_DESC) ? d->node_desc : NULL);
	/* An empty node_desc (it is writable) reads like an empty fw_ver. */
	rd_out_str(o, RD_TEXT, "node_desc", NULL,
		   !(d->known & RD_DEV_NODE_DESC) ? NULL : d->node_desc[0] ? d->node_desc : "(none)");
	rd_out_str(o, RD_ANY, "pci", NULL, d->pci[0] ? d->pci : NULL);
	rd_out_str(o, RD_ANY, "driver", NULL, d->driver[0] ? d->driver : NULL);
	print_stack(o, cli, d, st);
	rd_out_str(o, RD_ANY, "parent", NULL, d->parent[0] ? d->parent : NULL);
	if (d->pf_pci[0])
		rd_out_str(o, RD_ANY, "pf_pci", "sriov_pf", d->pf_pci);
	if (d->num_vfs > 0)
		rd_out_u64(o, RD_ANY, "num_vfs", "sriov_vfs", (uint64_t)d->num_vfs);
	if (d->uverbs[0]) {
		snprintf(buf, sizeof(buf), "/dev/infiniband/%s", d->uverbs);
		rd_out_str(o, RD_ANY, "uverbs", NULL, buf);
	}
	if (d->netdevs.n)
		rd_out_strlist(o, RD_ANY, "netdevs", NULL, &d->netdevs, ", ");
	if (d->verbs)
		print_verbs_device(o, d->verbs);
	else if (d->verbs_error[0])
		rd_out_str(o, RD_ANY, "verbs_error", "verbs", d->verbs_error);

	rd_out_list_begin(o, "ports");
	for (unsigned int i = 0; i < d->nports; i++)
		if (rd_cli_port_selected(cli, &d->ports[i]))
			print_port_detail(o, &cli->sr, d, &d->ports[i]);
	rd_out_list_end(o);
	rd_out_section_end(o);
}

/* The devices that have the -p port (all without -p). */
static bool device_selected(const struct rd_cli *cli, struct rd_device *d)
{
	return !cli->port || rd_device_port(d, cli->port);
}

void rd_devinfo_print_names(struct rd_out *o, const struct rd_cli *cli,
			    struct rd_device_list *list)
{
	rd_out_list_begin(o, NULL);
	for (unsigned int i = 0; i < list->n; i++) {
		if (!device_selected(cli, &list->v[i]))
			continue;
		if (cli->json)
			rd_out_str(o, RD_JSON, NULL, NULL, list->v[i].name);
		else
			rd_out_line(o, "%s", list->v[i].name);
	}
	rd_out_list_end(o);
}

void rd_devinfo_print_detail(struct rd_out *o, const struct rd_cli *cli,
			     struct rd_device_list *list)
{
	struct rd_stack st;

	rd_stack_read(&cli->sr, &st);
	rd_out_list_begin(o, NULL);
	for (unsigned int i = 0, shown = 0; i < list->n; i++) {
		if (!device_selected(cli, &list->v[i]))
			continue;
		if (shown++)
			rd_out_line(o, "%s", "");
		print_detail(o, cli, &list->v[i], &st);
	}
	rd_out_list_end(o);
}

void rd_devinfo_print_table(struct rd_out *o, const struct rd_cli *cli,
			    struct rd_device_list *list)
{
	rd_out_table_begin(o, NULL, table_cols, RD_ARRAY_SIZE(table_cols), true);
	for (unsigned int i = 0; i < list->n; i++) {
		if (!device_selected(cli, &list->v[i]))
			continue;
		print_row(o, cli, &list->v[i]);
	}
	rd_out_table_end(o);
}

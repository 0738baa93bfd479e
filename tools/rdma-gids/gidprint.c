// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "gidprint.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static const struct rd_col gid_cols[] = {
	{ "dev", "DEV", false, false },
	{ "port", "PORT", true, false },
	{ "index", "INDEX", true, false },
	{ "gid", "GID", false, true },		/* on a narrow terminal: broken after a ':' */
	{ "address", "ADDRESS", false, true },
	{ "ver", "VER", false, false },
	{ "netdev", "NETDEV", false, false },
	{ "vlan", "VLAN", true, false },
};
const struct rd_out_colset rd_gids_tables[RD_GIDS_NTABLES] = {
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

void rd_gids_compat_header(FILE *fp)
{
	fprintf(fp, "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n");
	fprintf(fp, "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n");
}

/* show_gids: VER is the digit suffix of the kernel type ("IB/RoCE v1" -> v1). */
void rd_gids_print_compat_row(FILE *fp, const struct rd_device *d, const struct rd_port *p,
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

void rd_gids_vlan_note_add(struct rd_gids_vlan_note *vn, const struct rd_gid *g)
{
	int k = g->vlan == RD_VLAN_TAGGED ? 0 : g->vlan == RD_VLAN_CANNOT_TELL ? 1 : -1;

	if (k < 0 || !g->ndev[0])
		return;
	vn->seen = true;
	if (!vn->names[k][0])
		rd_strlcpy(vn->names[k], g->ndev, sizeof(vn->names[k]));
}

void rd_gids_vlan_note_warn(const struct rd_gids_vlan_note *vn, const struct rd_vlan_map *vlans,
			    struct rd_warnings *w)
{
	if (vlans->ids_unknown && vn->seen) {
		const char (*n)[64] = vn->names;

		rd_warn(w, "VLAN ids unknown: the sysroot has no proc/net/vlan/config, so VLAN shows ?%s%s%s%s%s%s (copy /proc/net/vlan/config along with /sys)",
			n[0][0] ? "; sysfs says " : "", n[0], n[0][0] ? " is a VLAN netdev" : "",
			n[1][0] ? "; cannot tell whether " : "", n[1], n[1][0] ? " is one" : "");
	}
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

void rd_gids_table_begin(struct rd_out *o)
{
	rd_out_table_begin(o, NULL, gid_cols, RD_ARRAY_SIZE(gid_cols), true);
}

void rd_gids_print_row(struct rd_out *o, const struct rd_device *d, const struct rd_port *p,
		       const struct rd_gid *g)
{
	rd_out_row_begin(o);
	print_gid_fields(o, RD_ANY, d, p, g);
	rd_out_row_end(o);
}

void rd_gids_print_best(struct rd_out *o, const struct rd_gid_choice *res, size_t n, bool json)
{
	struct rd_gid_nccl adv;

	rd_gid_nccl_advice(res, n, &adv);
	for (size_t i = 0; i < n; i++) {
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
	if (adv.differs && !json)	/* after the per-port lines */
		nccl_note(o, res, n, &adv);
}

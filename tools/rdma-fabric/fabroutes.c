// SPDX-License-Identifier: MIT
/*
 * rdma-fabric --routes.  Text: per switch ibroute's block, "Unicast lids
 * [0x0-0xTOP] of switch Lid L guid G (NAME):", its two header lines, a line
 * per LID that has a port ("0x0005 002 : (Channel Adapter portguid G:
 * 'h002 mlx5_0')", or "(no node has this LID)"), and "N valid lids dumped".
 * JSON: "lfts", one object a switch: its node, GUID, LID, LinearFDBTop,
 * the blocks lost when it was read, and "lft", the port of each LID from 0
 * to the top (255: no entry).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabroutes.h"
#include "model/model.h"

static void text_block(struct rd_out *o, const struct rd_fab *fab, const struct rd_fab_node *n,
		       const int32_t *owners, const uint8_t *ports)
{
	char g[19];
	unsigned int valid = 0;

	rd_format_guid_hex(n->guid, g);
	rd_out_line(o, "Unicast lids [0x0-0x%x] of switch Lid %u guid %s (%s):", n->lft_top, n->lid, g,
		    n->name);
	rd_out_line(o, "  Lid  Out   Destination");
	rd_out_line(o, "       Port     Info ");
	for (unsigned int lid = 0; lid <= n->lft_top; lid++) {
		int port, owner;
		const struct rd_fab_node *d;
		char pg[19];

		if (n->lft[lid] == RD_FAB_NO_PORT)
			continue;
		valid++;
		if (owners && ports) {
			owner = owners[lid];
			port = ports[lid];
		} else {
			owner = rd_fab_lid_owner(fab, (uint16_t)lid, &port);
		}
		if (owner < 0) {
			rd_out_line(o, "0x%04x %03u : (no node has this LID)", lid, n->lft[lid]);
			continue;
		}
		d = &fab->nodes[owner];
		rd_format_guid_hex(d->ports[port].guid ? d->ports[port].guid : d->guid, pg);
		rd_out_line(o, "0x%04x %03u : (%s portguid %s: '%s')", lid, n->lft[lid],
			    d->type == RD_FAB_SWITCH ? "Switch" : d->type == RD_FAB_ROUTER ? "Router" :
			    "Channel Adapter", pg, d->name);
	}
	rd_out_line(o, "%u valid lids dumped ", valid);
}

int rd_fabroutes_print(struct rd_out *o, const struct rd_fab *fab)
{
	bool json = rd_out_is_json(o);
	int32_t *owners = NULL;
	uint8_t *ports = NULL;
	size_t nlids = 0;

	/* who has each LID, looked up once for every switch's table (text) */
	for (size_t i = 0; !json && i < fab->n_nodes; i++)
		if (fab->nodes[i].type == RD_FAB_SWITCH && fab->nodes[i].lft && fab->nodes[i].lft_top + 1u > nlids)
			nlids = fab->nodes[i].lft_top + 1u;
	if (nlids) {
		owners = malloc(nlids * sizeof(*owners));
		ports = malloc(nlids);
		if (!owners || !ports) {
			free(owners);
			free(ports);
			return -ENOMEM;
		}
		rd_fab_lid_owners(fab, nlids, owners, ports);
	}

	if (json)
		rd_out_list_begin(o, "lfts");
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];
		char g[19];

		if (n->type != RD_FAB_SWITCH || !n->lft)
			continue;
		if (!json) {
			text_block(o, fab, n, owners, ports);
			continue;
		}
		rd_out_section_begin(o, NULL, NULL);
		rd_out_str(o, RD_JSON, "node", NULL, n->name);
		rd_format_guid_hex(n->guid, g);
		rd_out_str(o, RD_JSON, "guid", NULL, g);
		rd_out_u64(o, RD_JSON, "lid", NULL, n->lid);
		rd_out_u64(o, RD_JSON, "lft_top", NULL, n->lft_top);
		rd_out_u64(o, RD_JSON, "lost_blocks", NULL, n->lft_lost);
		rd_out_list_begin(o, "lft");
		for (unsigned int lid = 0; lid <= n->lft_top; lid++)
			rd_out_u64(o, RD_JSON, NULL, NULL, n->lft[lid]);
		rd_out_list_end(o);
		rd_out_section_end(o);
	}
	if (json)
		rd_out_list_end(o);
	free(owners);
	free(ports);
	return 0;
}

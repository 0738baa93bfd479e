// SPDX-License-Identifier: MIT
/*
 * Routes: where the switches' forwarding tables send a packet for a LID,
 * hop by hop, as ibtracert follows them, but from the tables the sweep read
 * (or a saved fabric kept) instead of a MAD per hop; and the ends of a route
 * named the ways users name them (a host, a description, a GUID, a LID).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabapi.h"
#include "fabint.h"

const char *rd_fab_route_end_name(enum rd_fab_route_end e)
{
	switch (e) {
	case RD_FAB_ROUTE_OK:
		return "reached";
	case RD_FAB_ROUTE_HOLE:
		return "no forwarding entry for the LID";
	case RD_FAB_ROUTE_DOWN:
		return "forwarded out of a port that is not up";
	case RD_FAB_ROUTE_LOOP:
		return "a loop";
	case RD_FAB_ROUTE_UNKNOWN:
		return "a switch whose forwarding table was not read";
	case RD_FAB_ROUTE_DEAD_END:
		return "delivered to a node that does not have the LID";
	case RD_FAB_ROUTE_NO_START:
		return "the source port is not up";
	case RD_FAB_ROUTE_TOO_LONG:
		return "more than 64 hops";
	}
	return "?";
}

/* Whether node n's port p (a switch: port 0) answers to lid: its base LID and the LMC's range. */
static bool owns_lid(const struct rd_fab_node *n, int p, uint16_t lid)
{
	const struct rd_fab_port *pt = &n->ports[n->type == RD_FAB_SWITCH ? 0 : p];
	unsigned int base = n->type == RD_FAB_SWITCH ? n->lid : pt->lid;

	return base && lid >= base && lid < base + (1u << (pt->lmc & 7));
}

int rd_fab_lid_owner(const struct rd_fab *fab, uint16_t lid, int *port)
{
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];

		if (n->type == RD_FAB_SWITCH) {
			if (n->ports[0].has_info && owns_lid(n, 0, lid)) {
				*port = 0;
				return (int)i;
			}
			continue;
		}
		for (int p = 1; p <= n->nports; p++)
			if (n->ports[p].has_info && owns_lid(n, p, lid)) {
				*port = p;
				return (int)i;
			}
	}
	return -1;
}

void rd_fab_lid_owners(const struct rd_fab *fab, size_t n, int32_t *node, uint8_t *port)
{
	for (size_t l = 0; l < n; l++)
		node[l] = -1;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *nd = &fab->nodes[i];
		int first = nd->type == RD_FAB_SWITCH ? 0 : 1, last = nd->type == RD_FAB_SWITCH ? 0 : nd->nports;

		for (int p = first; p <= last; p++) {
			const struct rd_fab_port *pt = &nd->ports[p];
			unsigned int base = nd->type == RD_FAB_SWITCH ? nd->lid : pt->lid;

			if (!pt->has_info || !base)
				continue;
			for (size_t l = base; l < base + (1u << (pt->lmc & 7)) && l < n; l++)
				if (node[l] < 0) {	/* the first owner, as rd_fab_lid_owner finds it */
					node[l] = (int32_t)i;
					port[l] = (uint8_t)p;
				}
		}
	}
}

/* A port a packet can leave by: Active, with a cable to a node of the model. */
static bool port_up(const struct rd_fab_node *n, int p)
{
	const struct rd_fab_port *pt = &n->ports[p];

	return p >= 1 && p <= n->nports && pt->has_info && pt->state == RD_FAB_ACTIVE && pt->peer_node >= 0;
}

int rd_fab_next_port(const struct rd_fab_node *n, uint16_t dlid, enum rd_fab_route_end *why)
{
	int o;

	if (!n->lft || n->lft_lost) {
		/* A table with lost blocks: an entry still set was read; a missing one is not known. */
		if (!n->lft || dlid > n->lft_top || n->lft[dlid] == RD_FAB_NO_PORT) {
			*why = RD_FAB_ROUTE_UNKNOWN;
			return -1;
		}
	}
	if (dlid > n->lft_top || n->lft[dlid] == RD_FAB_NO_PORT) {
		*why = RD_FAB_ROUTE_HOLE;
		return -1;
	}
	o = n->lft[dlid];
	/* Port 0 is the switch itself: for a LID that is not its own, nowhere; a port it lacks, nowhere. */
	if (o == 0 || o > n->nports) {
		*why = RD_FAB_ROUTE_HOLE;
		return -1;
	}
	if (!port_up(n, o)) {
		*why = RD_FAB_ROUTE_DOWN;
		return o;
	}
	*why = RD_FAB_ROUTE_OK;
	return o;
}

static void add_hop(struct rd_fab_route *r, int node, int in, int out)
{
	r->hop[r->n++] = (struct rd_fab_hop){ node, in, out };
}

int rd_fab_route(const struct rd_fab *fab, int node, int port, uint16_t dlid, struct rd_fab_route *r)
{
	int cur = node, in = -1;

	memset(r, 0, sizeof(*r));
	r->dlid = dlid;
	if (node < 0 || (size_t)node >= fab->n_nodes || port < 0 || port > fab->nodes[node].nports)
		return -EINVAL;
	for (;;) {
		const struct rd_fab_node *n = &fab->nodes[cur];
		enum rd_fab_route_end why = RD_FAB_ROUTE_OK;
		int out;

		if (r->n >= RD_FAB_MAX_HOPS + 1) {
			r->end = RD_FAB_ROUTE_TOO_LONG;
			return 0;
		}
		if (n->type != RD_FAB_SWITCH) {
			/* A CA or router: the source sends out of its port; anywhere else it is the end. */
			if (r->n == 0) {
				if (owns_lid(n, port, dlid)) {
					add_hop(r, cur, -1, -1);
					return 0;
				}
				add_hop(r, cur, -1, port);
				if (!port_up(n, port)) {
					r->end = RD_FAB_ROUTE_NO_START;
					return 0;
				}
				in = n->ports[port].peer_port;
				cur = n->ports[port].peer_node;
				continue;
			}
			add_hop(r, cur, in, -1);
			r->end = owns_lid(n, in, dlid) ? RD_FAB_ROUTE_OK : RD_FAB_ROUTE_DEAD_END;
			return 0;
		}
		/* A switch met twice: the route loops. */
		for (size_t k = 0; k < r->n; k++)
			if (r->hop[k].node == cur) {
				add_hop(r, cur, in, -1);
				r->end = RD_FAB_ROUTE_LOOP;
				return 0;
			}
		if (owns_lid(n, 0, dlid)) {
			add_hop(r, cur, in, -1);
			return 0;
		}
		out = rd_fab_next_port(n, dlid, &why);
		add_hop(r, cur, in, out);
		if (why != RD_FAB_ROUTE_OK) {
			r->end = why;
			return 0;
		}
		in = n->ports[out].peer_port;
		cur = n->ports[out].peer_node;
	}
}

/* A node's port for a route's end: a switch's port 0, a CA's first Active port with a LID. */
static int end_port(const struct rd_fab_node *n)
{
	int first = -1;

	if (n->type == RD_FAB_SWITCH)
		return 0;
	for (int p = 1; p <= n->nports; p++) {
		const struct rd_fab_port *pt = &n->ports[p];

		if (!pt->has_info)
			continue;
		if (pt->state == RD_FAB_ACTIVE && pt->lid)
			return p;
		if (first < 0)
			first = p;
	}
	return first < 0 ? 1 : first;
}

static bool all_hex(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F')))
			return false;
	return true;
}

int rd_fab_endpoint(const struct rd_fab *fab, const char *spec, int *node, int *port, char *why,
		    size_t why_len)
{
	int found = -1, nfound = 0, kind;
	char names[200] = "";
	uint64_t v;

	*node = *port = -1;
	if (!*spec) {
		snprintf(why, why_len, "an empty name");
		return -EINVAL;
	}
	/* A GUID: 0x and hex digits, a node's or a port's. */
	if ((spec[0] == '0' && (spec[1] == 'x' || spec[1] == 'X')) && all_hex(spec + 2)) {
		if (strlen(spec + 2) > 16) {
			snprintf(why, why_len, "%s: not a GUID (at most 16 hex digits)", spec);
			return -EINVAL;
		}
		v = strtoull(spec + 2, NULL, 16);	/* hex digits only, at most 16: no overflow */
		for (size_t i = 0; i < fab->n_nodes; i++) {
			const struct rd_fab_node *n = &fab->nodes[i];

			if (n->guid == v) {
				*node = (int)i;
				*port = end_port(n);
				return 0;
			}
			for (int p = n->type == RD_FAB_SWITCH ? 0 : 1; p <= n->nports; p++)
				if (n->ports[p].has_info && n->ports[p].guid == v) {
					*node = (int)i;
					*port = n->type == RD_FAB_SWITCH ? 0 : p;
					return 0;
				}
		}
		snprintf(why, why_len, "%s: no node or port has this GUID", spec);
		return -ENOENT;
	}
	/* A LID: a decimal number. */
	if (spec[0] >= '0' && spec[0] <= '9') {
		if (rd_parse_u64(spec, &v) || v == 0 || v > RD_FAB_MAX_UCAST_LID) {
			snprintf(why, why_len, "%s: not a LID (1 to %u) or a GUID (0x...)", spec,
				 RD_FAB_MAX_UCAST_LID);
			return -EINVAL;
		}
		*node = rd_fab_lid_owner(fab, (uint16_t)v, port);
		if (*node < 0) {
			snprintf(why, why_len, "LID %s: no port has it", spec);
			return -ENOENT;
		}
		return 0;
	}
	/* A name: the description, then the node name map's name, then the host an HCA names. */
	for (kind = 0; kind < 3 && !nfound; kind++)
		for (size_t i = 0; i < fab->n_nodes; i++) {
			const struct rd_fab_node *n = &fab->nodes[i];
			const char *s = kind == 0 ? n->desc : kind == 1 ? n->name : n->host;
			size_t l = strlen(names);

			if (strcmp(s, spec) != 0)
				continue;
			if (!nfound++)
				found = (int)i;
			if (nfound <= 4)
				rd_snprintf(names + l, sizeof(names) - l, "%s'%s'", l ? ", " : "", n->desc);
		}
	if (nfound == 1) {
		*node = found;
		*port = end_port(&fab->nodes[found]);
		return 0;
	}
	if (nfound > 1) {
		snprintf(why, why_len, "%s names %d nodes (%s%s): give the description, a GUID or a LID",
			 spec, nfound, names, nfound > 4 ? ", ..." : "");
		return -EINVAL;
	}
	snprintf(why, why_len, "%s: no node has this description, name or host", spec);
	return -ENOENT;
}

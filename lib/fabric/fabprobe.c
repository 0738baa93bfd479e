// SPDX-License-Identifier: MIT
/*
 * The sweep's directed-route probes, after discovery.  An Active port whose
 * peer discovery did not take is asked for NodeInfo by directed route (the
 * node's route plus the port): no answer is a dead or hung node
 * (node.answer).  When such a peer answers, or discovery complained of a
 * duplicate, or discovery linked a port that says it is not up, libibnetdisc
 * has taken two nodes with one GUID for one: every switch port and the
 * sweeping port are then asked, the answers are judged (fabident.c), and
 * each position where a shared GUID answers has its own NodeDescription
 * read, so that every copy is named by what it calls itself.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabapi.h"
#include "fabint.h"

/* The directed route to node n's port p: n's own route, then p. */
static bool port_route(const struct rd_fab_node *n, int p, ib_portid_t *id)
{
	memset(id, 0, sizeof(*id));
	if (n->dr_cnt < 0 || n->dr_cnt + 1 >= IB_SUBNET_PATH_HOPS_MAX ||
	    n->dr_cnt + 1 >= (int)sizeof(n->dr))
		return false;
	memcpy(id->drpath.p, n->dr, (size_t)n->dr_cnt + 1);
	id->drpath.p[n->dr_cnt + 1] = (uint8_t)p;
	id->drpath.cnt = n->dr_cnt + 1;
	id->drpath.drslid = id->drpath.drdlid = 0xffff;
	return true;
}

/* An Active port whose peer discovery did not take. */
static bool dark(const struct rd_fab_port *pt)
{
	return pt->state == RD_FAB_ACTIVE && pt->peer_node < 0;
}

/*
 * Signs that discovery merged two nodes without a dark port to show for it:
 * its own "Duplicate Port" complaint, or a link it made to a port whose own
 * PortInfo says it has no link (a copy reached by a port the original does
 * not have cabled).
 */
static bool merged_quietly(const struct rd_fab *fab)
{
	for (size_t i = 0; i < fab->msgs.n; i++)
		if (strcasestr(fab->msgs.v[i], "duplicate"))
			return true;
	for (size_t i = 0; i < fab->n_nodes; i++)
		for (int p = 1; p <= fab->nodes[i].nports; p++) {
			const struct rd_fab_port *pt = &fab->nodes[i].ports[p];

			if (pt->peer_node >= 0 && pt->has_info && pt->phys != RD_FAB_PHYS_LINKUP)
				return true;
		}
	return false;
}

bool rd_fab_probe_wanted(const struct rd_fab *fab)
{
	for (size_t i = 0; i < fab->n_nodes; i++)
		for (int p = 1; p <= fab->nodes[i].nports; p++)
			if (dark(&fab->nodes[i].ports[p]))
				return true;
	return merged_quietly(fab);
}

/* Ask NodeInfo at node's port; the answer goes into the next entry of fab->seen. */
static bool ask(struct rd_fab *fab, struct ibmad_port *mp, unsigned int timeout, int node, int port)
{
	struct rd_fab_node *n = &fab->nodes[node];
	struct rd_fab_seen *s = &fab->seen[fab->n_seen];
	uint8_t buf[1024] = { 0 };
	ib_portid_t id;

	if (!port_route(n, port, &id))
		return false;
	memset(s, 0, sizeof(*s));
	fab->n_seen++;
	s->node = node;
	s->port = port;
	n->ports[port].probed = true;
	fab->mads++;
	if (!smp_query_via(buf, &id, IB_ATTR_NODE_INFO, 0, timeout, mp)) {
		fab->mad_fail++;
		return false;
	}
	s->answered = true;
	s->guid = mad_get_field64(buf, 0, IB_NODE_GUID_F);
	s->type = (int)mad_get_field(buf, 0, IB_NODE_TYPE_F);
	s->local_port = (int)mad_get_field(buf, 0, IB_NODE_LOCAL_PORT_F);
	n->ports[port].probe_guid = s->guid;
	return true;
}

/* The NodeDescription of what answered at s. */
static void ask_desc(struct rd_fab *fab, struct ibmad_port *mp, unsigned int timeout, struct rd_fab_seen *s)
{
	uint8_t buf[1024] = { 0 };
	ib_portid_t id;

	if (!port_route(&fab->nodes[s->node], s->port, &id))
		return;
	fab->mads++;
	if (!smp_query_via(buf, &id, IB_ATTR_NODE_DESC, 0, timeout, mp)) {
		fab->mad_fail++;
		return;
	}
	rd_fab_clean_desc((const char *)buf, s->desc, sizeof(s->desc));
}

/*
 * libibnetdisc reads the PortInfo of a CA each time it meets its GUID, so a
 * copy of the sweeping node's GUID met after it left the copy's PortInfo
 * (its LID) on the sweeping port: read the port's own again, by the route
 * to itself, when a copy of its GUID answered.
 */
static void reread_own_port(struct rd_fab *fab, struct ibmad_port *mp, unsigned int timeout)
{
	struct rd_fab_node *n;
	struct rd_fab_port *pt;
	uint8_t buf[1024] = { 0 };
	ib_portid_t id = { 0 };
	bool copied = false;

	if (fab->from_node < 0 || fab->from_port < 1 || fab->from_port > fab->nodes[fab->from_node].nports)
		return;
	n = &fab->nodes[fab->from_node];
	for (size_t k = 0; k < fab->n_seen; k++)
		copied |= fab->seen[k].dup && fab->seen[k].guid == n->guid &&
			  fab->seen[k].local_port == fab->from_port;
	if (!copied)
		return;
	pt = &n->ports[fab->from_port];
	id.drpath.cnt = 0;
	id.drpath.drslid = id.drpath.drdlid = 0xffff;
	fab->mads++;
	if (!smp_query_via(buf, &id, IB_ATTR_PORT_INFO, (unsigned int)fab->from_port, timeout, mp)) {
		fab->mad_fail++;
		return;
	}
	rd_fab_fill_port(pt, buf, pt->guid, (uint16_t)mad_get_field(buf, 0, IB_PORT_LID_F),
			 (uint8_t)mad_get_field(buf, 0, IB_PORT_LMC_F));
	n->lid = 0;
	rd_fab_node_lids(n);
}

void rd_fab_probe(struct rd_fab *fab, struct ibmad_port *mp, unsigned int timeout)
{
	bool all = merged_quietly(fab), answered = false;
	size_t cap = 1;

	for (size_t i = 0; i < fab->n_nodes; i++)
		cap += (size_t)fab->nodes[i].nports;
	fab->seen = calloc(cap, sizeof(*fab->seen));
	if (!fab->seen)
		return;
	/* First the dark ports alone: a healthy fabric with a dead node costs nothing more. */
	for (size_t i = 0; i < fab->n_nodes; i++)
		for (int p = 1; p <= fab->nodes[i].nports; p++)
			if (dark(&fab->nodes[i].ports[p]) && fab->n_seen < cap)
				answered |= ask(fab, mp, timeout, (int)i, p);
	if (!all && !answered)
		return;
	/* A GUID met twice: every switch port that is up, and the sweeping port. */
	for (size_t i = 0; i < fab->n_nodes; i++) {
		struct rd_fab_node *n = &fab->nodes[i];

		for (int p = 1; p <= n->nports; p++) {
			const struct rd_fab_port *pt = &n->ports[p];
			bool mine = (int)i == fab->from_node && p == fab->from_port;

			if (pt->probed || fab->n_seen >= cap || !(n->type == RD_FAB_SWITCH || mine) ||
			    !(mine || (pt->has_info && pt->phys == RD_FAB_PHYS_LINKUP)))
				continue;
			(void)ask(fab, mp, timeout, (int)i, p);
		}
	}
	rd_fab_judge_seen(fab);
	for (size_t k = 0; k < fab->n_seen; k++)
		if (fab->seen[k].dup)
			ask_desc(fab, mp, timeout, &fab->seen[k]);
	reread_own_port(fab, mp, timeout);
}

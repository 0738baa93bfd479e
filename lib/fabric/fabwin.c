// SPDX-License-Identifier: MIT
/*
 * Many MADs in flight at once.  libibmad's rpc sends a query and waits for
 * its answer: over a fabric of thousands of ports the round trips, not the
 * agents, are the cost.  Here up to RD_FAB_WINDOW queries are out at once,
 * each with the sweep's timeout and retries (umad hands every query back,
 * answered or with a timeout status after its own deadline); a switch that
 * lets one query go unanswered through every retry is not asked again.
 * The PMA's PortCounters and the switches' forwarding tables go through here.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "fabapi.h"
#include "fabint.h"

#define RD_FAB_WINDOW 16

_Static_assert(IB_SMP_DATA_OFFS == IB_PC_DATA_OFFS, "the SMP and PMA data offsets differ");

void rd_fab_add_slow(struct rd_fab *fab, int node, int port, const char *what)
{
	char l[200], line[300];

	fab->mad_fail++;
	if (fab->slow.n >= 100)
		return;
	rd_fab_port_label(fab, node, port, l, sizeof(l));
	rd_snprintf(line, sizeof(line), "%s: %s: no answer", l, what);
	rd_strlist_add(&fab->slow, line);
}

uint16_t rd_fab_mad_lid(const struct rd_fab_node *n, int p)
{
	return n->type == RD_FAB_SWITCH ? n->lid : n->ports[p].lid;
}

static int send_one(struct ibmad_port *mp, const struct rd_fab *fab, const struct rd_fab_mad_kind *k,
		    struct rd_fab_mad_req *r, unsigned int timeout)
{
	const struct rd_fab_node *n = &fab->nodes[r->node];
	uint8_t data[IB_SMP_DATA_SIZE > IB_PC_DATA_SZ ? IB_SMP_DATA_SIZE : IB_PC_DATA_SZ] = { 0 };
	ib_rpc_t rpc = { 0 };
	ib_portid_t id = { 0 };

	if (k->mgtclass == IB_PERFORMANCE_CLASS) {
		ib_portid_set(&id, rd_fab_mad_lid(n, r->port), 1, IB_DEFAULT_QP1_QKEY);
		rpc.datasz = IB_PC_DATA_SZ;
		rpc.dataoffs = IB_PC_DATA_OFFS;
		mad_set_field(data, 0, IB_PC_PORT_SELECT_F, (uint32_t)r->port);
	} else {
		/* An SMP routed by LID: QP0 of the node that has it. */
		ib_portid_set(&id, rd_fab_mad_lid(n, r->port), 0, 0);
		rpc.datasz = IB_SMP_DATA_SIZE;
		rpc.dataoffs = IB_SMP_DATA_OFFS;
	}
	rpc.mgtclass = k->mgtclass;
	rpc.method = IB_MAD_METHOD_GET;
	rpc.attr.id = k->attr;
	rpc.attr.mod = r->mod;
	rpc.timeout = (int)timeout;
	rpc.trid = mad_trid();
	r->trid = (uint32_t)rpc.trid;
	r->tries++;
	return mad_send_via(&rpc, &id, NULL, data, mp);
}

void rd_fab_mad_window(struct rd_fab *fab, struct ibmad_port *mp, const struct rd_fab_mad_kind *k,
		       struct rd_fab_mad_req *v, size_t n, unsigned int timeout, unsigned int retries)
{
	struct rd_fab_mad_req *fly[RD_FAB_WINDOW];
	size_t next = 0, nfly = 0;
	bool *dead = calloc(fab->n_nodes ? fab->n_nodes : 1, sizeof(*dead));
	void *umad = mad_alloc();

	if (!dead || !umad)
		goto out;
	while (next < n || nfly) {
		uint8_t *mad;
		uint32_t trid;
		size_t i;

		while (nfly < RD_FAB_WINDOW && next < n) {
			struct rd_fab_mad_req *r = &v[next++];

			if (dead[r->node]) {
				k->lost(fab, r, false, k->arg);
				continue;
			}
			fab->mads++;
			if (send_one(mp, fab, k, r, timeout) < 0) {
				char what[96];

				snprintf(what, sizeof(what), "%s (not sent)", k->name);
				rd_fab_add_slow(fab, r->node, r->port, what);
				k->lost(fab, r, false, k->arg);
				continue;
			}
			fly[nfly++] = r;
		}
		if (!nfly)
			break;
		if (!mad_receive_via(umad, (int)(timeout * 4 + 1000), mp)) {
			/* Nothing at all came back: give up on what is in flight, say so. */
			for (i = 0; i < nfly; i++) {
				rd_fab_add_slow(fab, fly[i]->node, fly[i]->port, k->name);
				k->lost(fab, fly[i], true, k->arg);
			}
			nfly = 0;
			continue;
		}
		mad = umad_get_mad(umad);
		trid = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F);
		for (i = 0; i < nfly && fly[i]->trid != trid; i++)
			;
		if (i == nfly)
			continue;	/* an answer to a query given up on, or not ours */
		{
			struct rd_fab_mad_req *r = fly[i];
			const struct rd_fab_node *nd = &fab->nodes[r->node];

			fly[i] = fly[--nfly];
			if (umad_status(umad) != 0 || mad_get_field(mad, 0, IB_MAD_STATUS_F) != 0) {
				bool timed_out = umad_status(umad) != 0;
				char what[96];

				if (timed_out && r->tries <= retries) {
					fab->mads++;
					if (send_one(mp, fab, k, r, timeout) == 0) {
						fly[nfly++] = r;
						continue;
					}
				}
				snprintf(what, sizeof(what), "%s%s", k->name, timed_out ? "" : " (refused)");
				rd_fab_add_slow(fab, r->node, r->port, what);
				dead[r->node] = timed_out && nd->type == RD_FAB_SWITCH;
				k->lost(fab, r, timed_out, k->arg);
				continue;
			}
			/* An SMP's data and the PMA's attribute both start 64 bytes in. */
			k->got(fab, r, mad + IB_SMP_DATA_OFFS, k->arg);
		}
	}
out:
	/* Memory ran out before any was sent: every query is lost, and counted. */
	if (!dead || !umad)
		for (size_t i = 0; i < n; i++) {
			rd_fab_add_slow(fab, v[i].node, v[i].port, k->name);
			k->lost(fab, &v[i], false, k->arg);
		}
	free(dead);
	if (umad)
		mad_free(umad);
}

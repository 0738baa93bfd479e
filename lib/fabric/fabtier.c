// SPDX-License-Identifier: MIT
/*
 * The fabric in tiers, counted from the HCAs up (fabapi.h rd_fab_tiers):
 * what route.balance calls an up-port and what rdma-fabric --svg draws in
 * rows.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "fabapi.h"

/* A switch port that counts as a hop: cabled, and Active when only Active links count. */
static bool hop(const struct rd_fab_port *pt, bool active_only)
{
	return pt->peer_node >= 0 && (!active_only || pt->state == RD_FAB_ACTIVE);
}

int rd_fab_tiers(const struct rd_fab *fab, bool active_only, int *tier)
{
	int *q = malloc((fab->n_nodes ? fab->n_nodes : 1) * sizeof(*q));
	size_t head = 0, tail = 0;
	int top = 0;

	if (!q)
		return -ENOMEM;
	for (size_t i = 0; i < fab->n_nodes; i++)
		tier[i] = fab->nodes[i].type == RD_FAB_SWITCH ? -1 : 0;
	/* Tier 1: a switch with an HCA (or router) on one of its own ports. */
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];

		for (int p = 1; tier[i] < 0 && p <= n->nports; p++) {
			const struct rd_fab_port *pt = &n->ports[p];

			if (hop(pt, active_only) && fab->nodes[pt->peer_node].type != RD_FAB_SWITCH) {
				tier[i] = 1;
				top = 1;
				q[tail++] = (int)i;
			}
		}
	}
	/* Then one more a switch hop, breadth first: each switch at its least distance. */
	while (head < tail) {
		const struct rd_fab_node *n = &fab->nodes[q[head]];
		int ti = tier[q[head++]];

		for (int p = 1; p <= n->nports; p++) {
			const struct rd_fab_port *pt = &n->ports[p];

			if (!hop(pt, active_only) || tier[pt->peer_node] >= 0 ||
			    fab->nodes[pt->peer_node].type != RD_FAB_SWITCH)
				continue;
			tier[pt->peer_node] = ti + 1;
			top = ti + 1 > top ? ti + 1 : top;
			q[tail++] = pt->peer_node;
		}
	}
	free(q);
	return top;
}

// SPDX-License-Identifier: MIT
/*
 * Where each GUID answers: the directed-route probes' answers (struct
 * rd_fab_seen, asked by fabprobe.c) judged against each other and against
 * the nodes discovery found, and discovery's links mended to what the probes
 * saw.  libibnetdisc takes two nodes that share a GUID for one and links the
 * last place it met it, dropping the link it had: a healthy switch could
 * lose its link to one of its peers that way and be blamed for it.  No MAD
 * here: the sweep asks, this decides.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "fabapi.h"
#include "fabint.h"

struct key {
	uint64_t guid;
	int port;
	size_t idx;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->port - y->port;
}

static void unlink_port(struct rd_fab *fab, int node, int port)
{
	struct rd_fab_port *pt = &fab->nodes[node].ports[port];

	if (pt->peer_node >= 0) {
		struct rd_fab_port *pp = &fab->nodes[pt->peer_node].ports[pt->peer_port];

		if (pp->peer_node == node && pp->peer_port == port)
			pp->peer_node = pp->peer_port = -1;
	}
	pt->peer_node = pt->peer_port = -1;
}

static void link_ports(struct rd_fab *fab, int a, int pa, int b, int pb)
{
	unlink_port(fab, a, pa);
	unlink_port(fab, b, pb);
	fab->nodes[a].ports[pa].peer_node = b;
	fab->nodes[a].ports[pa].peer_port = pb;
	fab->nodes[b].ports[pb].peer_node = a;
	fab->nodes[b].ports[pb].peer_port = pa;
}

/* The node discovery knows by an answer's GUID, and that node's port it names (-1: none). */
static int answer_node(const struct rd_fab *fab, const struct rd_fab_seen *s)
{
	int g = rd_fab_node_by_guid(fab, s->guid);

	return g >= 0 && s->local_port >= 1 && s->local_port <= fab->nodes[g].nports ? g : -1;
}

/*
 * For each answer: dup when its GUID and port answer at another position
 * too, or when the node discovery knows by that GUID, asked the same way at
 * that port (a switch, or the sweeping node), names another position or has
 * no link there; confirmed when that node names this position back, which
 * is what tells the original from the copy where it can be told.
 */
static void judge(struct rd_fab *fab, const int *at, const size_t *first, const struct key *keys,
		  size_t nk)
{
	for (size_t a = 0; a < nk;) {
		size_t b = a;

		while (b < nk && !key_cmp(&keys[a], &keys[b]))
			b++;
		for (size_t k = a; k < b; k++) {
			struct rd_fab_seen *s = &fab->seen[keys[k].idx];
			int g = answer_node(fab, s);
			bool mismatch = false;

			if (g >= 0 && (fab->nodes[g].type == RD_FAB_SWITCH || g == fab->from_node)) {
				int r = at[first[g] + (size_t)s->local_port];
				const struct rd_fab_port *gp = &fab->nodes[g].ports[s->local_port];

				if (r >= 0 && fab->seen[r].answered) {
					s->confirmed = fab->seen[r].guid == fab->nodes[s->node].guid &&
						       fab->seen[r].local_port == s->port;
					mismatch = !s->confirmed;
				} else {
					mismatch = gp->has_info && gp->phys != RD_FAB_PHYS_LINKUP;
				}
			}
			s->dup = b - a > 1 || mismatch;
		}
		a = b;
	}
}

void rd_fab_judge_seen(struct rd_fab *fab)
{
	size_t *first = calloc(fab->n_nodes + 1, sizeof(*first)), nk = 0;
	struct key *keys = calloc(fab->n_seen ? fab->n_seen : 1, sizeof(*keys));
	int *at = NULL;

	if (!first || !keys)
		goto out;
	for (size_t i = 0; i < fab->n_nodes; i++)
		first[i + 1] = first[i] + (size_t)fab->nodes[i].nports + 1;
	at = malloc((first[fab->n_nodes] ? first[fab->n_nodes] : 1) * sizeof(*at));
	if (!at)
		goto out;
	for (size_t i = 0; i < first[fab->n_nodes]; i++)
		at[i] = -1;
	for (size_t k = 0; k < fab->n_seen; k++) {
		const struct rd_fab_seen *s = &fab->seen[k];

		at[first[s->node] + (size_t)s->port] = (int)k;
		if (s->answered)
			keys[nk++] = (struct key){ s->guid, s->local_port, k };
	}
	qsort(keys, nk, sizeof(*keys), key_cmp);
	judge(fab, at, first, keys, nk);
	/* A copy's position keeps no link: discovery's there joined it to the original. */
	for (size_t k = 0; k < fab->n_seen; k++) {
		const struct rd_fab_seen *s = &fab->seen[k];

		if (s->answered && s->dup && !s->confirmed)
			unlink_port(fab, s->node, s->port);
		fab->nodes[s->node].ports[s->port].dup = s->answered && s->dup;
	}
	/* Every other answer is the cable as it is: link its two ends. */
	for (size_t k = 0; k < fab->n_seen; k++) {
		const struct rd_fab_seen *s = &fab->seen[k];
		int g = s->answered ? answer_node(fab, s) : -1;

		if (g >= 0 && !(s->dup && !s->confirmed))
			link_ports(fab, s->node, s->port, g, s->local_port);
	}
	/* A shared GUID and port with no position surely its own: its node's port links nowhere. */
	for (size_t a = 0; a < nk;) {
		size_t b = a;
		bool confirmed = false, dup = false;

		while (b < nk && !key_cmp(&keys[a], &keys[b])) {
			confirmed |= fab->seen[keys[b].idx].confirmed;
			dup |= fab->seen[keys[b].idx].dup;
			b++;
		}
		if (dup && !confirmed) {
			int g = answer_node(fab, &fab->seen[keys[a].idx]);

			if (g >= 0) {
				unlink_port(fab, g, keys[a].port);
				fab->nodes[g].ports[keys[a].port].dup = true;
			}
		}
		a = b;
	}
out:
	free(first);
	free(keys);
	free(at);
}

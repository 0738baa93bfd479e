// SPDX-License-Identifier: MIT
/*
 * rdma-fabric's check against a saved baseline (--baseline FILE, the cache
 * format): links of the baseline that are down or moved now, nodes gone, and
 * what is new.  A port never cabled in the baseline is never a fault, so this
 * is how a dead link is told from an empty port.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabapi.h"
#include "fabint.h"

struct gidx {
	uint64_t guid;
	int idx;
};

static int gidx_cmp(const void *a, const void *b)
{
	const struct gidx *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static struct gidx *index_nodes(const struct rd_fab *f)
{
	struct gidx *v = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < f->n_nodes; i++)
		v[i] = (struct gidx){ f->nodes[i].guid, (int)i };
	qsort(v, f->n_nodes, sizeof(*v), gidx_cmp);
	return v;
}

static int lookup(const struct gidx *v, size_t n, uint64_t guid)
{
	struct gidx want = { guid, -1 };
	const struct gidx *g = bsearch(&want, v, n, sizeof(*v), gidx_cmp);

	return g ? g->idx : -1;
}

/* Whether any node of b is in the fabric whose index is inow. */
static bool shares_a_node(const struct rd_fab *b, const struct gidx *inow, size_t n_now)
{
	for (size_t i = 0; i < b->n_nodes; i++)
		if (lookup(inow, n_now, b->nodes[i].guid) >= 0)
			return true;
	return false;
}

/* "h005 mlx5_0 port 1" of the baseline, by its own names. */
static void base_label(const struct rd_fab *b, int node, int port, char *buf, size_t len)
{
	rd_fab_port_label(b, node, port, buf, len);
}

void rd_fck_baseline(struct ctx *c)
{
	const struct rd_fab *now = c->fab, *base = c->o->baseline;
	struct gidx *inow = NULL, *ibase = NULL;
	unsigned int links = 0;

	if (!base) {
		rd_fck_skip(c, "no --baseline: a link that is down cannot be told from an empty port");
		return;
	}
	inow = index_nodes(now);
	ibase = index_nodes(base);
	if (!inow || !ibase)
		goto out;
	/*
	 * A baseline that shares no node with the fabric is of another fabric
	 * (another site's, a test bed's): every node gone and every node new
	 * would bury that in hundreds of results, so say it once.
	 */
	if (base->n_nodes && now->n_nodes && !shares_a_node(base, inow, now->n_nodes)) {
		struct rd_fab_result *x = rd_fck_add(c, RD_FAB_FAIL, "the baseline is of another fabric: "
						     "none of its %zu node GUIDs is among this fabric's %zu",
						     base->n_nodes, now->n_nodes);

		if (x)
			rd_strlcpy(x->object, "baseline", sizeof(x->object));
		rd_fck_fix(x, "compare with a baseline saved from this fabric (rdma-fabric --save FILE "
			   "here, when it is as it should be)");
		goto out;
	}
	/* Nodes of the baseline that are gone. */
	for (size_t i = 0; i < base->n_nodes; i++) {
		if (lookup(inow, now->n_nodes, base->nodes[i].guid) >= 0)
			continue;
		{
			struct rd_fab_result *x = rd_fck_add(c, RD_FAB_FAIL, "in the baseline, not in the "
							     "fabric now");

			if (x) {
				snprintf(x->object, sizeof(x->object), "%s (0x%016llx)", base->nodes[i].name,
					 (unsigned long long)base->nodes[i].guid);
				x->guid = base->nodes[i].guid;
				rd_strlcpy(x->host, base->nodes[i].host, sizeof(x->host));
			}
			rd_fck_fix(x, "the node is off, hung, or every cable to it is down: power and "
				   "cables first; if it was removed on purpose, save a new baseline");
		}
	}
	/* Links of the baseline: still there, down, or moved. */
	for (size_t i = 0; i < base->n_nodes; i++) {
		const struct rd_fab_node *bn = &base->nodes[i];
		int ni = lookup(inow, now->n_nodes, bn->guid);

		for (int p = 1; p <= bn->nports; p++) {
			const struct rd_fab_port *bp = &bn->ports[p];
			const struct rd_fab_node *bpeer;
			const struct rd_fab_port *np;
			struct rd_fab_result *x;
			char was[200], is[200];

			if (!rd_fck_first_end(base, i, p) || bp->state != RD_FAB_ACTIVE)
				continue;
			links++;
			bpeer = &base->nodes[bp->peer_node];
			if (ni < 0 || p > now->nodes[ni].nports) {
				/* This end is gone: said above, unless the far end is here and alone. */
				continue;
			}
			np = &now->nodes[ni].ports[p];
			base_label(base, bp->peer_node, bp->peer_port, was, sizeof(was));
			if (np->peer_node >= 0 && now->nodes[np->peer_node].guid == bpeer->guid &&
			    np->peer_port == bp->peer_port && np->state == RD_FAB_ACTIVE)
				continue;
			if (np->peer_node >= 0) {
				rd_fab_port_label(now, np->peer_node, np->peer_port, is, sizeof(is));
				if (now->nodes[np->peer_node].guid == bpeer->guid &&
				    np->peer_port == bp->peer_port) {
					x = rd_fck_add(c, RD_FAB_FAIL, "%s now (Active in the baseline)",
						       rd_fab_state_name(np->state));
					rd_fck_link(c, x, ni, p);
					rd_fck_fix(x, "cabled as before but not Active: the subnet manager "
						   "has not brought it up (see link.state, sm.master)");
					continue;
				}
				x = rd_fck_add(c, RD_FAB_FAIL, "the cable moved: it went to %s, it goes to "
					       "%s now", was, is);
				rd_fck_link(c, x, ni, p);
				rd_fck_fix(x, "if the move was meant, save a new baseline; else put the "
					   "cable back");
				continue;
			}
			/* This end is dark: did the far end's cable go somewhere else? */
			{
				int fi = lookup(inow, now->n_nodes, bpeer->guid);
				const struct rd_fab_port *fp = fi >= 0 && bp->peer_port <= now->nodes[fi].nports ?
					&now->nodes[fi].ports[bp->peer_port] : NULL;

				if (fp && fp->peer_node >= 0 && fp->state == RD_FAB_ACTIVE) {
					char here[200];

					rd_fab_port_label(now, ni, p, here, sizeof(here));
					rd_fab_port_label(now, fp->peer_node, fp->peer_port, is, sizeof(is));
					x = rd_fck_add(c, RD_FAB_FAIL, "the cable moved: %s went to %s, it "
						       "goes to %s now", was, here, is);
					rd_fck_link(c, x, fi, bp->peer_port);
					rd_fck_fix(x, "if the move was meant, save a new baseline; else put "
						   "the cable back");
					continue;
				}
			}
			if (!np->has_info)
				x = rd_fck_add(c, RD_FAB_FAIL, "the link to %s is gone: the port did not "
					       "answer", was);
			else
				x = rd_fck_add(c, RD_FAB_FAIL, "the link to %s is down: %s, %s", was,
					       rd_fab_state_name(np->state), rd_fab_phys_name(np->phys));
			rd_fck_port(c, x, ni, p);
			if (x) {
				char here[200];

				rd_fab_port_label(now, ni, p, here, sizeof(here));
				rd_snprintf(x->object, sizeof(x->object), "%s <-> %s", here, was);
				x->peer_guid = bpeer->guid;
				x->peer_port = bp->peer_port;
				if (!x->host[0])
					rd_strlcpy(x->host, bpeer->host, sizeof(x->host));
			}
			rd_fck_fix(x, "Polling: no light from the far end (its port, the cable, the "
				   "transceiver); Disabled: someone disabled it (ibportstate ... enable)");
		}
	}
	/* What is new: nodes and Active links the baseline did not have. */
	for (size_t i = 0; i < now->n_nodes; i++) {
		const struct rd_fab_node *nn = &now->nodes[i];
		int bi = lookup(ibase, base->n_nodes, nn->guid);

		if (bi < 0) {
			struct rd_fab_result *x = rd_fck_add(c, RD_FAB_WARN, "new since the baseline");

			rd_fck_port(c, x, (int)i, -1);
			rd_fck_fix(x, "if it belongs here, save a new baseline (--save)");
			continue;
		}
		for (int p = 1; p <= nn->nports; p++) {
			const struct rd_fab_port *np = &nn->ports[p];
			const struct rd_fab_port *bp;

			if (!rd_fck_first_end(now, i, p) || np->state != RD_FAB_ACTIVE)
				continue;
			if (lookup(ibase, base->n_nodes, now->nodes[np->peer_node].guid) < 0)
				continue;	/* the new node says it */
			bp = p <= base->nodes[bi].nports ? &base->nodes[bi].ports[p] : NULL;
			if (bp && bp->peer_node >= 0)
				continue;	/* linked in the baseline: judged above */
			{
				/* The far end was linked in the baseline: a moved cable, said above. */
				const struct rd_fab_node *pn = &now->nodes[np->peer_node];
				int pb = lookup(ibase, base->n_nodes, pn->guid);

				if (pb >= 0 && np->peer_port <= base->nodes[pb].nports &&
				    base->nodes[pb].ports[np->peer_port].peer_node >= 0)
					continue;
			}
			{
				struct rd_fab_result *x = rd_fck_add(c, RD_FAB_WARN, "a link the baseline "
								     "did not have");

				rd_fck_link(c, x, (int)i, p);
				rd_fck_fix(x, "a cable was added: if it belongs, save a new baseline");
			}
		}
	}
	rd_fck_pass(c, "the %u links and %zu nodes of the baseline are all here and Active",
		    links, base->n_nodes);
out:
	free(inow);
	free(ibase);
}

// SPDX-License-Identifier: MIT
/*
 * Every CA-to-CA route at once.  For one destination LID each switch's
 * table names one next hop, so the routes to it form a graph in which every
 * switch has one way out: the sources that reach a switch are those attached
 * to it plus those of every switch whose next hop it is.  Taking switches in
 * the order of that graph (those nothing leads to first) adds each switch's
 * sources to its next hop's, which gives every channel's load and where each
 * route ends without following routes one by one; a switch never taken is
 * on a loop.  On the way, each switch notes which of its input ports feed
 * which output port: the channel dependency graph, whose cycles are the
 * credit loops that can deadlock the fabric (Dally and Seitz).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabapi.h"
#include "fabint.h"

enum next_kind { TO_SWITCH, ARRIVE, BROKEN };

struct work {
	size_t n_sw;
	int *sw;		/* switch k's node */
	int *swk;		/* node -> k, or -1 */
	size_t *depbase;	/* switch k's dependency bits start here ... */
	uint8_t *dep;		/* ... (nports+1)^2 bits: input port x output port */
	/* per destination */
	uint8_t *kind;
	int *nxt, *nxt_in, *out;
	enum rd_fab_route_end *why;
	uint64_t *cnt;
	int *indeg, *queue;
	bool *done;
};

static size_t nports1(const struct rd_fab *fab, const struct work *w, size_t k)
{
	return (size_t)fab->nodes[w->sw[k]].nports + 1;
}

static void dep_mark(const struct rd_fab *fab, struct work *w, size_t k, int in, int out)
{
	size_t np = nports1(fab, w, k), bit;

	if (in < 0 || out < 0 || (size_t)in >= np || (size_t)out >= np)
		return;
	bit = w->depbase[k] + (size_t)in * np + (size_t)out;
	w->dep[bit / 8] |= (uint8_t)(1u << (bit % 8));
}

static bool dep_has(const struct rd_fab *fab, const struct work *w, size_t k, int in, int out)
{
	size_t np = nports1(fab, w, k), bit = w->depbase[k] + (size_t)in * np + (size_t)out;

	return w->dep[bit / 8] & (1u << (bit % 8));
}

static bool owns(const struct rd_fab_node *n, int p, uint16_t lid)
{
	const struct rd_fab_port *pt = &n->ports[p];

	return pt->lid && lid >= pt->lid && lid < pt->lid + (1u << (pt->lmc & 7));
}

static void work_free(struct work *w)
{
	free(w->sw);
	free(w->swk);
	free(w->depbase);
	free(w->dep);
	free(w->kind);
	free(w->nxt);
	free(w->nxt_in);
	free(w->out);
	free(w->why);
	free(w->cnt);
	free(w->indeg);
	free(w->queue);
	free(w->done);
}

static int work_init(const struct rd_fab *fab, struct rd_fab_rt *rt, struct work *w)
{
	size_t bits = 0, ports = 0, n = fab->n_nodes ? fab->n_nodes : 1;

	memset(w, 0, sizeof(*w));
	w->swk = calloc(n, sizeof(*w->swk));
	w->sw = calloc(n, sizeof(*w->sw));
	rt->base = calloc(n, sizeof(*rt->base));
	if (!w->swk || !w->sw || !rt->base)
		return -ENOMEM;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *nd = &fab->nodes[i];

		rt->base[i] = ports;
		ports += (size_t)nd->nports + 1;
		w->swk[i] = -1;
		if (nd->type == RD_FAB_SWITCH) {
			w->swk[i] = (int)w->n_sw;
			w->sw[w->n_sw++] = (int)i;
		}
	}
	rt->load = calloc(ports ? ports : 1, sizeof(*rt->load));
	rt->ep = calloc(ports ? ports : 1, sizeof(*rt->ep));
	n = w->n_sw ? w->n_sw : 1;
	w->depbase = calloc(n, sizeof(*w->depbase));
	w->kind = calloc(n, sizeof(*w->kind));
	w->nxt = calloc(n, sizeof(*w->nxt));
	w->nxt_in = calloc(n, sizeof(*w->nxt_in));
	w->out = calloc(n, sizeof(*w->out));
	w->why = calloc(n, sizeof(*w->why));
	w->cnt = calloc(n, sizeof(*w->cnt));
	w->indeg = calloc(n, sizeof(*w->indeg));
	w->queue = calloc(n, sizeof(*w->queue));
	w->done = calloc(n, sizeof(*w->done));
	if (!rt->load || !rt->ep || !w->depbase || !w->kind || !w->nxt || !w->nxt_in || !w->out ||
	    !w->why || !w->cnt || !w->indeg || !w->queue || !w->done)
		return -ENOMEM;
	for (size_t k = 0; k < w->n_sw; k++) {
		w->depbase[k] = bits;
		bits += nports1(fab, w, k) * nports1(fab, w, k);
	}
	w->dep = calloc(bits / 8 + 1, 1);
	if (!w->dep)
		return -ENOMEM;
	/* The ends of routes: CA (and router) ports with a LID, Active, cabled. */
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *nd = &fab->nodes[i];

		if (nd->type == RD_FAB_SWITCH)
			continue;
		for (int p = 1; p <= nd->nports; p++) {
			const struct rd_fab_port *pt = &nd->ports[p];
			struct rd_fab_ep *e;

			if (!pt->has_info || pt->state != RD_FAB_ACTIVE || !pt->lid || pt->peer_node < 0)
				continue;
			e = &rt->ep[rt->n_ep++];
			e->node = (int)i;
			e->port = p;
			e->lid = pt->lid;
			e->sw = fab->nodes[pt->peer_node].type == RD_FAB_SWITCH ? pt->peer_node : -1;
			e->sw_port = pt->peer_port;
		}
	}
	return 0;
}

/* Each switch's way out for one destination. */
static void next_hops(const struct rd_fab *fab, struct work *w, const struct rd_fab_ep *d)
{
	for (size_t k = 0; k < w->n_sw; k++) {
		const struct rd_fab_node *n = &fab->nodes[w->sw[k]];
		enum rd_fab_route_end why;
		int o = rd_fab_next_port(n, d->lid, &why);

		w->done[k] = false;
		w->cnt[k] = 0;
		w->indeg[k] = 0;
		w->out[k] = o;
		w->why[k] = why;
		w->kind[k] = BROKEN;
		if (why != RD_FAB_ROUTE_OK)
			continue;
		{
			const struct rd_fab_port *pt = &n->ports[o];
			const struct rd_fab_node *peer = &fab->nodes[pt->peer_node];

			if (peer->type == RD_FAB_SWITCH) {
				w->kind[k] = TO_SWITCH;
				w->nxt[k] = w->swk[pt->peer_node];
				w->nxt_in[k] = pt->peer_port;
			} else if (pt->peer_node == d->node && owns(peer, pt->peer_port, d->lid)) {
				w->kind[k] = ARRIVE;
			} else {
				w->why[k] = RD_FAB_ROUTE_DEAD_END;
			}
		}
	}
	for (size_t k = 0; k < w->n_sw; k++)
		if (w->kind[k] == TO_SWITCH)
			w->indeg[w->nxt[k]]++;
}

static void note_loop(const struct rd_fab *fab, struct rd_fab_rt *rt, const struct work *w, size_t di)
{
	struct rd_fab_loop *l;
	uint64_t sources = 0;
	size_t start = w->n_sw, k;

	for (k = 0; k < w->n_sw; k++)
		if (!w->done[k]) {
			sources += w->cnt[k];
			if (start == w->n_sw)
				start = k;
		}
	if (start == w->n_sw)
		return;
	rt->broken[RD_FAB_ROUTE_LOOP] += sources;
	if (rt->n_loops++ >= RD_ARRAY_SIZE(rt->loops))
		return;
	l = &rt->loops[rt->n_loops - 1];
	l->dlid = rt->ep[di].lid;
	l->ep = (int)di;
	l->sources = sources;
	/* Walk the loop from a switch on it: every switch not taken leads around one. */
	k = start;
	for (size_t step = 0; step < w->n_sw; step++)
		k = (size_t)w->nxt[k];
	start = k;
	do {
		if (l->n < RD_FAB_MAX_HOPS)
			l->sw[l->n++] = w->sw[k];
		k = (size_t)w->nxt[k];
	} while (k != start && l->n < RD_FAB_MAX_HOPS);
	(void)fab;
}

static void one_destination(const struct rd_fab *fab, struct rd_fab_rt *rt, struct work *w, size_t di)
{
	const struct rd_fab_ep *d = &rt->ep[di];
	size_t head = 0, tail = 0;

	next_hops(fab, w, d);
	for (size_t ei = 0; ei < rt->n_ep; ei++) {
		const struct rd_fab_ep *e = &rt->ep[ei];
		int k;

		if (ei == di)
			continue;
		rt->pairs++;
		rt->load[rt->base[e->node] + (size_t)e->port]++;
		if (e->sw < 0) {
			/* Two CAs cabled back to back. */
			const struct rd_fab_port *pt = &fab->nodes[e->node].ports[e->port];

			rt->broken[pt->peer_node == d->node && pt->peer_port == d->port ? RD_FAB_ROUTE_OK :
				   RD_FAB_ROUTE_DEAD_END]++;
			continue;
		}
		k = w->swk[e->sw];
		w->cnt[k]++;
		if (w->kind[k] != BROKEN)
			dep_mark(fab, w, (size_t)k, e->sw_port, w->out[k]);
	}
	for (size_t k = 0; k < w->n_sw; k++)
		if (!w->indeg[k])
			w->queue[tail++] = (int)k;
	while (head < tail) {
		size_t k = (size_t)w->queue[head++];
		int node = w->sw[k];

		w->done[k] = true;
		if (w->kind[k] == BROKEN) {
			rt->broken[w->why[k]] += w->cnt[k];
			continue;
		}
		rt->load[rt->base[node] + (size_t)w->out[k]] += w->cnt[k];
		if (w->kind[k] == ARRIVE) {
			rt->broken[RD_FAB_ROUTE_OK] += w->cnt[k];
			continue;
		}
		{
			size_t t = (size_t)w->nxt[k];

			w->cnt[t] += w->cnt[k];
			if (w->cnt[k] && w->kind[t] != BROKEN)
				dep_mark(fab, w, t, w->nxt_in[k], w->out[t]);
			if (--w->indeg[t] == 0)
				w->queue[tail++] = (int)t;
		}
	}
	if (tail < w->n_sw)
		note_loop(fab, rt, w, di);
}

/* A channel between switches: switch k's port o, Active, cabled to a switch. */
static bool sw_channel(const struct rd_fab *fab, const struct work *w, size_t k, int o)
{
	const struct rd_fab_port *pt = &fab->nodes[w->sw[k]].ports[o];

	return pt->has_info && pt->state == RD_FAB_ACTIVE && pt->peer_node >= 0 &&
	       w->swk[pt->peer_node] >= 0;
}

/*
 * Cycles in the channel dependency graph, by depth-first search without
 * recursion.  A vertex is a channel (switch k, port o); its edges go to the
 * channels of the next switch that its traffic was seen to feed.
 */
static int credit_loops(const struct rd_fab *fab, struct rd_fab_rt *rt, const struct work *w)
{
	size_t *vbase = calloc(w->n_sw ? w->n_sw : 1, sizeof(*vbase)), nv = 0;
	uint8_t *color = NULL;
	struct frame { size_t k; int o, next; } *stack = NULL;
	int ret = -ENOMEM;

	if (!vbase)
		return ret;
	for (size_t k = 0; k < w->n_sw; k++) {
		vbase[k] = nv;
		nv += nports1(fab, w, k);
	}
	color = calloc(nv ? nv : 1, 1);
	stack = calloc(nv ? nv : 1, sizeof(*stack));
	if (!color || !stack)
		goto out;
	for (size_t k0 = 0; k0 < w->n_sw; k0++)
		for (int o0 = 1; o0 < (int)nports1(fab, w, k0); o0++) {
			size_t sp = 0;

			if (color[vbase[k0] + (size_t)o0] || !sw_channel(fab, w, k0, o0))
				continue;
			color[vbase[k0] + (size_t)o0] = 1;
			stack[sp++] = (struct frame){ k0, o0, 1 };
			while (sp) {
				struct frame *f = &stack[sp - 1];
				const struct rd_fab_port *pt = &fab->nodes[w->sw[f->k]].ports[f->o];
				size_t t = (size_t)w->swk[pt->peer_node];
				int in = pt->peer_port, o2;
				bool pushed = false;

				for (o2 = f->next; o2 < (int)nports1(fab, w, t) && !pushed; o2++) {
					size_t v = vbase[t] + (size_t)o2;

					if (!dep_has(fab, w, t, in, o2) || !sw_channel(fab, w, t, o2))
						continue;
					if (color[v] == 1) {
						/* Back to a channel on the stack: the stack from it is a cycle. */
						size_t from = sp;

						while (from > 0 && !(stack[from - 1].k == t && stack[from - 1].o == o2))
							from--;
						if (from > 0 && rt->n_cycles < RD_ARRAY_SIZE(rt->cycles)) {
							__typeof__(rt->cycles[0]) *c = &rt->cycles[rt->n_cycles];

							c->n = 0;
							for (size_t s = from - 1; s < sp && c->n < RD_FAB_MAX_HOPS; s++) {
								c->node[c->n] = w->sw[stack[s].k];
								c->port[c->n++] = stack[s].o;
							}
						}
						rt->n_cycles++;
						continue;
					}
					if (color[v])
						continue;
					f->next = o2 + 1;
					color[v] = 1;
					stack[sp++] = (struct frame){ t, o2, 1 };
					pushed = true;
				}
				if (!pushed) {
					color[vbase[f->k] + (size_t)f->o] = 2;
					sp--;
				}
			}
		}
	ret = 0;
out:
	free(vbase);
	free(color);
	free(stack);
	return ret;
}

int rd_fab_rt_build(const struct rd_fab *fab, struct rd_fab_rt *rt)
{
	struct work w;
	int ret;

	memset(rt, 0, sizeof(*rt));
	ret = work_init(fab, rt, &w);
	if (!ret) {
		for (size_t di = 0; di < rt->n_ep; di++)
			one_destination(fab, rt, &w, di);
		ret = credit_loops(fab, rt, &w);
	}
	work_free(&w);
	if (ret)
		rd_fab_rt_free(rt);
	return ret;
}

void rd_fab_rt_free(struct rd_fab_rt *rt)
{
	free(rt->ep);
	free(rt->base);
	free(rt->load);
	memset(rt, 0, sizeof(*rt));
}

uint64_t rd_fab_rt_link_load(const struct rd_fab *fab, const struct rd_fab_rt *rt, int node, int port)
{
	const struct rd_fab_port *pt = &fab->nodes[node].ports[port];
	uint64_t v = rt->load[rt->base[node] + (size_t)port];

	if (pt->peer_node >= 0)
		v += rt->load[rt->base[pt->peer_node] + (size_t)pt->peer_port];
	return v;
}

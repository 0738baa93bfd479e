// SPDX-License-Identifier: MIT
/*
 * rdma-fabric's routing checks, over the switches' forwarding tables: can
 * every CA's LID be reached from every switch (route.holes), do routes loop
 * or depend on each other in a cycle that can deadlock (route.loops), do the
 * switches spread destinations over their up-ports (route.balance), and how
 * many routes cross each degraded or erroring link (route.degraded).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabapi.h"
#include "fabint.h"

/* The CA-to-CA routes, built once for all the checks of a run. */
static const struct rd_fab_rt *routes(struct ctx *c)
{
	struct rd_fab_rt_cache *rc = c->rtc;

	if (!rc)
		return NULL;
	if (!rc->tried) {
		rc->tried = true;
		rc->err = rd_fab_rt_build(c->fab, &rc->rt);
	}
	return rc->err ? NULL : &rc->rt;
}

static bool have_tables(struct ctx *c)
{
	if (c->fab->have_routes)
		return true;
	rd_fck_skip(c, c->fab->live ? "the forwarding tables were not read" :
		    "no forwarding tables in this file (ibnetdiscover --cache keeps none)");
	return false;
}

static const struct rd_fab_rt *need_routes(struct ctx *c)
{
	const struct rd_fab_rt *rt;

	if (!have_tables(c))
		return NULL;
	rt = routes(c);
	if (!rt)
		rd_fck_skip(c, "out of memory following the routes");
	return rt;
}

static void ep_label(const struct rd_fab *fab, const struct rd_fab_ep *e, uint16_t lid, char *buf, size_t len)
{
	char l[200];

	rd_fab_port_label(fab, e->node, e->port, l, sizeof(l));
	rd_snprintf(buf, len, "%s (LID %u)", l, lid);
}

/* "a, b, c" of up to three examples, then ", ..." */
static void add_example(char *buf, size_t len, unsigned int nth, const char *what)
{
	size_t l = strlen(buf);

	if (nth < 3)
		rd_snprintf(buf + l, len - l, "%s%s", l ? ", " : "", what);
	else if (nth == 3)
		rd_snprintf(buf + l, len - l, ", ...");
}

/* ---- route.holes ---- */
void rd_fck_route_holes(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	const struct rd_fab_rt *rt = need_routes(c);
	unsigned int switches = 0, lids = 0;

	if (!rt)
		return;
	for (size_t i = 0; i < rt->n_ep; i++)
		lids += 1u << (fab->nodes[rt->ep[i].node].ports[rt->ep[i].port].lmc & 7);
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];
		unsigned int holes = 0, downs = 0, unknown = 0, down_port = 0;
		char hx[240] = "", dx[240] = "";
		struct rd_fab_result *x;

		if (n->type != RD_FAB_SWITCH || !n->ports[0].has_info)
			continue;
		switches++;
		if (!n->lft) {
			x = rd_fck_add(c, RD_FAB_WARN, "%s", n->lid ? "its forwarding table did not come back: "
				       "not judged" : "it has no LID: its forwarding table cannot be read");
			rd_fck_port(c, x, (int)i, 0);
			rd_fck_fix(x, "%s", n->lid ? "see the MADs without an answer (-v); check the switch's "
				   "management agent" : "the subnet manager has not given it a LID: check the SM");
			continue;
		}
		for (size_t e = 0; e < rt->n_ep; e++) {
			const struct rd_fab_ep *ep = &rt->ep[e];
			unsigned int span = 1u << (fab->nodes[ep->node].ports[ep->port].lmc & 7);

			for (unsigned int k = 0; k < span; k++) {
				uint16_t lid = (uint16_t)(ep->lid + k);
				enum rd_fab_route_end why;
				int o = rd_fab_next_port(n, lid, &why);
				char l[240];

				if (why == RD_FAB_ROUTE_OK || why == RD_FAB_ROUTE_UNKNOWN) {
					unknown += why == RD_FAB_ROUTE_UNKNOWN;
					continue;
				}
				ep_label(fab, ep, lid, l, sizeof(l));
				if (why == RD_FAB_ROUTE_DOWN) {
					if (!downs)
						down_port = (unsigned int)o;
					add_example(dx, sizeof(dx), downs++, l);
				} else {
					add_example(hx, sizeof(hx), holes++, l);
				}
			}
		}
		if (holes) {
			x = rd_fck_add(c, RD_FAB_FAIL, "no forwarding entry for %u of the %u CA LIDs: %s; "
				       "packets for them are dropped here", holes, lids, hx);
			rd_fck_port(c, x, (int)i, 0);
			rd_fck_fix(x, "the subnet manager did not program this switch (it joined after the "
				   "last sweep, or the SM failed to set it): check the SM's log and make it "
				   "resweep (kill -HUP the OpenSM process)");
		}
		if (downs) {
			x = rd_fck_add(c, RD_FAB_FAIL, "sends %u CA LID%s out of ports that are not up "
				       "(port %u first): %s", downs, downs == 1 ? "" : "s", down_port, dx);
			rd_fck_port(c, x, (int)i, (int)down_port);
			rd_fck_fix(x, "the routes still use a link that went down and the SM has not rerouted: "
				   "check the SM (sm.master) and make it resweep; put the link back");
		}
		if (n->lft_lost) {
			x = rd_fck_add(c, RD_FAB_WARN, "%u block%s of its forwarding table (64 LIDs each) did "
				       "not come back: %u CA LID%s not judged", n->lft_lost,
				       n->lft_lost == 1 ? "" : "s", unknown, unknown == 1 ? "" : "s");
			rd_fck_port(c, x, (int)i, 0);
			rd_fck_fix(x, "run again; if it stays, check the switch's management agent");
		}
	}
	rd_fck_pass(c, "%u switch%s forward every one of the %u CA LIDs to a port that is up", switches,
		    switches == 1 ? "" : "es", lids);
}

/* "leaf01 port 3 -> spine01 port 4 -> ..." into buf. */
static void chain(const struct rd_fab *fab, const int *node, const int *port, size_t n, char *buf,
		  size_t len)
{
	buf[0] = '\0';
	for (size_t k = 0; k < n; k++) {
		size_t l = strlen(buf);

		if (port)
			rd_snprintf(buf + l, len - l, "%s%s port %d", k ? " -> " : "", fab->nodes[node[k]].name,
				    port[k]);
		else
			rd_snprintf(buf + l, len - l, "%s%s", k ? " -> " : "", fab->nodes[node[k]].name);
	}
}

/* ---- route.loops ---- */
void rd_fck_route_loops(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	const struct rd_fab_rt *rt = need_routes(c);
	size_t shown;

	if (!rt)
		return;
	shown = rt->n_loops < RD_ARRAY_SIZE(rt->loops) ? rt->n_loops : RD_ARRAY_SIZE(rt->loops);
	for (size_t i = 0; i < shown; i++) {
		const struct rd_fab_loop *l = &rt->loops[i];
		char who[240], ring[240];
		struct rd_fab_result *x;

		ep_label(fab, &rt->ep[l->ep], l->dlid, who, sizeof(who));
		chain(fab, l->sw, NULL, l->n, ring, sizeof(ring));
		x = rd_fck_add(c, RD_FAB_FAIL, "packets for %s go round %s -> %s (%llu route%s enter%s the "
			       "loop): they never arrive", who, ring, fab->nodes[l->sw[0]].name,
			       (unsigned long long)l->sources, l->sources == 1 ? "" : "s",
			       l->sources == 1 ? "s" : "");
		rd_fck_port(c, x, l->sw[0], 0);
		rd_fck_fix(x, "the switches' tables disagree (a sweep cut short, or tables set by hand): "
			   "make the SM resweep; if the loop stays, check its routing engine and log");
	}
	if (rt->n_loops > shown) {
		struct rd_fab_result *x = rd_fck_add(c, RD_FAB_FAIL, "and %zu more destination LIDs whose "
						      "routes loop", rt->n_loops - shown);

		if (x)
			rd_strlcpy(x->object, "fabric", sizeof(x->object));
	}
	for (size_t i = 0; i < rt->n_cycles && i < RD_ARRAY_SIZE(rt->cycles); i++) {
		char ring[300];
		struct rd_fab_result *x;

		chain(fab, rt->cycles[i].node, rt->cycles[i].port, rt->cycles[i].n, ring, sizeof(ring));
		x = rd_fck_add(c, RD_FAB_FAIL, "credit loop: the routes make a cycle of %zu switch-to-switch "
			       "channels, each waiting on the next: %s -> back to the first; under load "
			       "this routing can deadlock", rt->cycles[i].n, ring);
		rd_fck_link(c, x, rt->cycles[i].node[0], rt->cycles[i].port[0]);
		rd_fck_fix(x, "use a deadlock-free routing: OpenSM's updn or ftree with the fabric's root "
			   "switches (-a FILE of root GUIDs), or dfsssp/lash with enough VLs");
	}
	if (rt->n_cycles > RD_ARRAY_SIZE(rt->cycles)) {
		struct rd_fab_result *x = rd_fck_add(c, RD_FAB_FAIL, "and %zu more dependency cycles",
						      rt->n_cycles - RD_ARRAY_SIZE(rt->cycles));

		if (x)
			rd_strlcpy(x->object, "fabric", sizeof(x->object));
	}
	rd_fck_pass(c, "%zu CA LIDs: no route loops, and the %llu CA-to-CA routes make no credit loop",
		    rt->n_ep, (unsigned long long)rt->pairs);
}

/* ---- route.balance ---- */
void rd_fck_route_balance(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	const struct rd_fab_rt *rt = need_routes(c);
	unsigned int judged = 0;
	int *t;

	if (!rt)
		return;
	/* Up-ports lead to a switch of a higher tier (rd_fab_tiers: Active links only). */
	t = malloc((fab->n_nodes ? fab->n_nodes : 1) * sizeof(*t));
	if (!t || rd_fab_tiers(fab, true, t) < 0) {
		free(t);
		rd_fck_skip(c, "out of memory");
		return;
	}
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];
		unsigned int cnt[256] = { 0 }, ups = 0, max = 0, min = ~0u, maxp = 0, minp = 0, total = 0;
		bool up[256] = { false };
		char list[240] = "";

		if (n->type != RD_FAB_SWITCH || !n->lft || t[i] < 0)
			continue;
		for (int p = 1; p <= n->nports; p++) {
			const struct rd_fab_port *pt = &n->ports[p];

			up[p] = pt->state == RD_FAB_ACTIVE && pt->peer_node >= 0 && t[pt->peer_node] > t[i];
			ups += up[p];
		}
		if (ups < 2)
			continue;
		judged++;
		for (size_t e = 0; e < rt->n_ep; e++) {
			enum rd_fab_route_end why;
			int o = rd_fab_next_port(n, rt->ep[e].lid, &why);

			if (why == RD_FAB_ROUTE_OK && up[o]) {
				cnt[o]++;
				total++;
			}
		}
		for (int p = 1; p <= n->nports; p++) {
			size_t l = strlen(list);

			if (!up[p])
				continue;
			if (cnt[p] > max) {
				max = cnt[p];
				maxp = (unsigned int)p;
			}
			if (cnt[p] < min) {
				min = cnt[p];
				minp = (unsigned int)p;
			}
			rd_snprintf(list + l, sizeof(list) - l, "%sport %d: %u", l ? ", " : "", p, cnt[p]);
		}
		/* Judged with 4 destinations an up-port or more: below that, 2 against 0 is chance. */
		if (total < 4 * ups) {
			judged--;
			continue;
		}
		if (max > 2 * min) {
			struct rd_fab_result *x = rd_fck_add(c, RD_FAB_WARN, "its %u up-ports carry the routes "
							      "to %u CA LIDs unevenly (%s): port %u carries %u, "
							      "more than twice port %u's %u", ups, total, list,
							      maxp, max, minp, min);

			rd_fck_port(c, x, (int)i, (int)maxp);
			rd_fck_fix(x, "after a link or spine was lost the SM rerouted onto fewer paths: put the "
				   "link back, then make the SM resweep (kill -HUP opensm) so routes spread "
				   "again; check the routing engine (ftree or updn for fat trees)");
		}
	}
	free(t);
	rd_fck_pass(c, "%u switch%s with two or more up-ports (and 4 CA LIDs or more an up-port) spread "
		    "the CA LIDs over them within 2x", judged, judged == 1 ? "" : "es");
}

/* ---- route.degraded ---- */
static const struct rd_fab_check *check_by_id(const struct ctx *c, const char *id)
{
	for (size_t i = 0; i < c->n_all; i++)
		if (strcmp(c->all[i].id, id) == 0)
			return &c->all[i];
	return c->check;
}

struct impact {
	const struct rd_fab_result *r;
	int node, port;
	uint64_t routes;
};

static int impact_cmp(const void *a, const void *b)
{
	const struct impact *x = a, *y = b;

	return x->routes < y->routes ? 1 : x->routes > y->routes ? -1 : 0;
}

void rd_fck_route_degraded(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	const struct rd_fab_rt *rt = need_routes(c);
	struct rd_fab_report scratch = { 0 };
	struct ctx sc = *c;
	struct impact *v;
	size_t n = 0;

	if (!rt)
		return;
	/* The links the link and counter checks find wanting, judged here whatever --only says. */
	sc.r = &scratch;
	sc.first = 0;
	sc.check = check_by_id(c, "link.degraded");
	rd_fck_degraded(&sc);
	if (fab->have_ctrs) {
		sc.first = scratch.n;
		sc.check = check_by_id(c, "port.errors");
		rd_fck_counters(&sc);
	}
	v = calloc(scratch.n ? scratch.n : 1, sizeof(*v));
	if (!v) {
		rd_fab_report_free(&scratch);
		rd_fck_skip(c, "out of memory");
		return;
	}
	for (size_t i = 0; i < scratch.n; i++) {
		const struct rd_fab_result *r = &scratch.v[i];
		int node;

		if (r->status != RD_FAB_FAIL && r->status != RD_FAB_WARN)
			continue;
		if (!r->guid || r->port < 1 || (node = rd_fab_node_by_guid(fab, r->guid)) < 0 ||
		    r->port > fab->nodes[node].nports)
			continue;
		/* One entry a link: a port with errors and the link's other end are one cable. */
		{
			bool seen = false;

			for (size_t k = 0; k < n && !seen; k++) {
				const struct rd_fab_port *pt = &fab->nodes[v[k].node].ports[v[k].port];

				seen = (v[k].node == node && v[k].port == r->port) ||
				       (pt->peer_node == node && pt->peer_port == r->port);
			}
			if (seen)
				continue;
		}
		v[n++] = (struct impact){ r, node, r->port, rd_fab_rt_link_load(fab, rt, node, r->port) };
	}
	qsort(v, n, sizeof(*v), impact_cmp);
	for (size_t i = 0; i < n; i++) {
		struct rd_fab_result *x = rd_fck_add(c, RD_FAB_WARN, "%llu of the %llu CA-to-CA routes cross "
						      "it (%s: %s)", (unsigned long long)v[i].routes,
						      (unsigned long long)rt->pairs, v[i].r->check->id,
						      v[i].r->detail);

		if (!x)
			continue;
		rd_strlcpy(x->object, v[i].r->object, sizeof(x->object));
		rd_strlcpy(x->host, v[i].r->host, sizeof(x->host));
		x->guid = v[i].r->guid;
		x->port = v[i].r->port;
		x->peer_guid = v[i].r->peer_guid;
		x->peer_port = v[i].r->peer_port;
		rd_fck_fix(x, "fix the links that carry the most routes first: %s", v[i].r->fix[0] ?
			   v[i].r->fix : v[i].r->check->fix);
	}
	free(v);
	rd_fab_report_free(&scratch);
	rd_fck_pass(c, "no degraded or erroring link on the %llu CA-to-CA routes",
		    (unsigned long long)rt->pairs);
}

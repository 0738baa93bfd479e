// SPDX-License-Identifier: MIT
/*
 * rdma-fabric's checks of nodes, links and counters: do the nodes answer, are
 * the links Active, at their best rate, agreeing end to end, and error free.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabapi.h"
#include "fabint.h"

/* ---- discovery ---- */
void rd_fck_discovery(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;

	if (!fab->live) {
		rd_fck_skip(c, "a saved fabric: nothing was swept");
		return;
	}
	for (size_t i = 0; i < fab->msgs.n; i++) {
		struct rd_fab_result *x = rd_fck_add(c, RD_FAB_WARN, "libibnetdisc: %s", fab->msgs.v[i]);

		if (x)
			rd_strlcpy(x->object, "discovery", sizeof(x->object));
	}
	rd_fck_pass(c, "%zu nodes found with %u MADs, no discovery error", fab->n_nodes, fab->mads);
}

/* ---- nodes that do not answer ---- */
void rd_fck_answer(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	unsigned int ports = 0;

	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];
		bool any_info = false;

		for (int p = n->type == RD_FAB_SWITCH ? 0 : 1; p <= n->nports; p++) {
			const struct rd_fab_port *pt = &n->ports[p];

			any_info = any_info || pt->has_info;
			if (!pt->has_info || p == 0)
				continue;
			ports++;
			/* Where a shared GUID answers: id.guid names it. */
			if (pt->dup)
				continue;
			if (pt->state == RD_FAB_ACTIVE && pt->peer_node < 0 && fab->live) {
				char dr[200];
				struct rd_fab_result *x;

				rd_fab_dr_str(n, p, dr, sizeof(dr));
				/* A GUID the fabric has: two nodes share it (id.guid says so). */
				if (pt->probe_guid && rd_fab_node_by_guid(fab, pt->probe_guid) >= 0)
					continue;
				if (pt->probe_guid)
					x = rd_fck_add(c, RD_FAB_FAIL, "Active and linked; the node behind it "
						       "answers NodeInfo (GUID 0x%016llx) when asked directly, but "
						       "discovery could not take it",
						       (unsigned long long)pt->probe_guid);
				else
					x = rd_fck_add(c, RD_FAB_FAIL, "Active and linked, but the node behind "
						       "it does not answer%s%s%s", pt->probed ? " (NodeInfo by "
						       "directed route " : "", pt->probed ? dr : "",
						       pt->probed ? ": no answer)" : "");
				rd_fck_port(c, x, (int)i, p);
				rd_fck_fix(x, "the far node is hung, lost its management agent or drops MADs: "
					   "check it (smpquery -D nodeinfo %s), reset it or reseat the cable",
					   dr[0] ? dr : "...");
			}
		}
		if (!any_info) {
			struct rd_fab_result *x = rd_fck_add(c, RD_FAB_FAIL, "answered NodeInfo but no PortInfo");

			rd_fck_port(c, x, (int)i, -1);
			rd_fck_fix(x, "its management agent is failing: reset the node; "
				"smpquery portinfo on its LID shows the same");
		}
	}
	for (size_t i = 0; i < fab->slow.n; i++) {
		struct rd_fab_result *x = rd_fck_add(c, RD_FAB_WARN, "%s", fab->slow.v[i]);

		if (x)
			rd_strlcpy(x->object, "PMA", sizeof(x->object));
		rd_fck_fix(x, "the node drops performance MADs: its counters were not read");
	}
	rd_fck_pass(c, "every linked port's peer answered (%u ports)", ports);
}

/* ---- links down or stuck ---- */
static bool stuck(const struct rd_fab_port *p)
{
	return p->has_info && p->phys == RD_FAB_PHYS_LINKUP && p->state != RD_FAB_ACTIVE;
}

void rd_fck_state(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	unsigned int links = 0;

	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];

		for (int p = 1; p <= n->nports; p++) {
			const struct rd_fab_port *pt = &n->ports[p], *peer = NULL;
			struct rd_fab_result *x;

			if (!pt->has_info)
				continue;
			/* A link once, from its first end; a port without a known peer alone. */
			if (pt->peer_node >= 0) {
				if (!rd_fck_first_end(fab, i, p))
					continue;
				peer = &fab->nodes[pt->peer_node].ports[pt->peer_port];
			}
			if (pt->phys == RD_FAB_PHYS_LINKUP)
				links++;
			if (stuck(pt) || (peer && stuck(peer))) {
				const struct rd_fab_port *s = stuck(pt) ? pt : peer;

				if (peer && peer->has_info && pt->state != peer->state)
					x = rd_fck_add(c, RD_FAB_FAIL, "physically up but stuck: %s here, %s there; no "
						"subnet manager has brought it to Active",
						rd_fab_state_name(pt->state), rd_fab_state_name(peer->state));
				else
					x = rd_fck_add(c, RD_FAB_FAIL, "physically up (LinkUp) but stuck in %s: no "
						"subnet manager has brought it to Active",
						rd_fab_state_name(s->state));
				rd_fck_link(c, x, (int)i, p);
				rd_fck_fix(x, "check the subnet manager (rdma-fabric --sm); a port stuck in "
					"Init after the SM swept is refused by it: see its log");
			} else if (pt->phys == RD_FAB_PHYS_ERR_RECOVERY || pt->phys == RD_FAB_PHYS_TRAINING ||
				   (peer && (peer->phys == RD_FAB_PHYS_ERR_RECOVERY ||
					     peer->phys == RD_FAB_PHYS_TRAINING))) {
				const struct rd_fab_port *s = pt->phys == RD_FAB_PHYS_ERR_RECOVERY ||
					pt->phys == RD_FAB_PHYS_TRAINING ? pt : peer;

				x = rd_fck_add(c, RD_FAB_WARN, "physical state %s: the link is retraining",
					rd_fab_phys_name(s->phys));
				rd_fck_link(c, x, (int)i, p);
				rd_fck_fix(x, "if it stays, reseat or replace the cable");
			}
		}
	}
	rd_fck_pass(c, "every physically up link is Active (%u links)", links);
}

/* ---- degraded links ---- */
struct usual {
	unsigned int count, total;
	unsigned int lanes, mbps;
};

enum { KIND_CA, KIND_SW, KIND_N };

static int link_kind(const struct rd_fab *fab, size_t i, const struct rd_fab_port *pt)
{
	return fab->nodes[i].type == RD_FAB_SWITCH && fab->nodes[pt->peer_node].type == RD_FAB_SWITCH ?
	       KIND_SW : KIND_CA;
}

/* The most common active rate of each kind of link: the rate this fabric is built for. */
static void usual_rates(const struct rd_fab *fab, struct usual u[KIND_N])
{
	struct {
		unsigned int lanes, mbps, n;
	} seen[KIND_N][32];
	size_t nseen[KIND_N] = { 0 };

	memset(u, 0, sizeof(struct usual) * KIND_N);
	for (size_t i = 0; i < fab->n_nodes; i++) {
		for (int p = 1; p <= fab->nodes[i].nports; p++) {
			const struct rd_fab_port *pt = &fab->nodes[i].ports[p];
			unsigned int lanes, mbps;
			int k;
			size_t j;

			if (!rd_fck_first_end(fab, i, p) || pt->state != RD_FAB_ACTIVE)
				continue;
			k = link_kind(fab, i, pt);
			lanes = rd_fab_width_lanes(pt->w_act);
			mbps = rd_fab_lane_mbps(pt);
			for (j = 0; j < nseen[k]; j++)
				if (seen[k][j].lanes == lanes && seen[k][j].mbps == mbps)
					break;
			if (j == nseen[k]) {
				if (j == RD_ARRAY_SIZE(seen[k]))
					continue;
				seen[k][j].lanes = lanes;
				seen[k][j].mbps = mbps;
				seen[k][j].n = 0;
				nseen[k]++;
			}
			seen[k][j].n++;
			u[k].total++;
		}
	}
	for (int k = 0; k < KIND_N; k++)
		for (size_t j = 0; j < nseen[k]; j++)
			if (seen[k][j].n > u[k].count) {
				u[k].count = seen[k][j].n;
				u[k].lanes = seen[k][j].lanes;
				u[k].mbps = seen[k][j].mbps;
			}
}

void rd_fck_degraded(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	static const char *const kind_name[KIND_N] = { "HCA", "switch-to-switch" };
	unsigned int links = 0;
	struct usual u[KIND_N];

	usual_rates(fab, u);
	for (size_t i = 0; i < fab->n_nodes; i++) {
		for (int p = 1; p <= fab->nodes[i].nports; p++) {
			const struct rd_fab_port *a = &fab->nodes[i].ports[p], *b;
			unsigned int lanes, mbps, best_lanes, best_mbps;
			char why[256] = "", fix[200] = "";
			int k;

			if (!rd_fck_first_end(fab, i, p) || a->state != RD_FAB_ACTIVE || !a->has_info)
				continue;
			b = &fab->nodes[a->peer_node].ports[a->peer_port];
			if (!b->has_info || b->state != RD_FAB_ACTIVE)
				continue;
			links++;
			k = link_kind(fab, i, a);
			lanes = rd_fab_width_lanes(a->w_act);
			mbps = rd_fab_lane_mbps(a);
			best_lanes = rd_fab_width_lanes(rd_fab_best_width(a, b));
			best_mbps = rd_fab_best_lane_mbps(a, b);
			if (best_lanes && lanes < best_lanes)
				snprintf(why, sizeof(why), "trained at %uX where both ends enable %uX",
					 lanes, best_lanes);
			else if (best_mbps && mbps < best_mbps)
				snprintf(why, sizeof(why), "runs at %s where both ends enable %s",
					 rd_fab_lane_name(mbps), rd_fab_lane_name(best_mbps));
			else if ((c->o->expect_lanes && lanes < c->o->expect_lanes) ||
				 (c->o->expect_lane_mbps && mbps < c->o->expect_lane_mbps))
				snprintf(why, sizeof(why), "%uX %s, below the expected %s", lanes,
					 rd_fab_lane_name(mbps), c->o->expect_rate);
			else if (u[k].count * 2 > u[k].total && u[k].total >= 3 &&
				 (lanes < u[k].lanes || (lanes == u[k].lanes && mbps < u[k].mbps)))
				snprintf(why, sizeof(why), "%uX %s where %u of this fabric's %u %s links run %uX %s",
					 lanes, rd_fab_lane_name(mbps), u[k].count, u[k].total, kind_name[k],
					 u[k].lanes, rd_fab_lane_name(u[k].mbps));
			if (!why[0])
				continue;
			if (lanes < (best_lanes > u[k].lanes ? best_lanes : u[k].lanes))
				snprintf(fix, sizeof(fix), "lanes are missing: reseat the cable at both ends, "
					 "then replace it; check the port's lanes with mlxlink");
			else
				snprintf(fix, sizeof(fix), "the link trained slow: check the cable's rating "
					 "(and that both ends enable the speed: ibportstate), reseat, replace");
			{
				struct rd_fab_result *x = rd_fck_add(c, RD_FAB_FAIL, "%s", why);

				rd_fck_link(c, x, (int)i, p);
				rd_fck_fix(x, "%s", fix);
			}
		}
	}
	rd_fck_pass(c, "%u active links at their best rate (usual: %uX %s to HCAs, %uX %s between switches)",
		      links, u[KIND_CA].lanes, u[KIND_CA].count ? rd_fab_lane_name(u[KIND_CA].mbps) : "-",
		      u[KIND_SW].lanes, u[KIND_SW].count ? rd_fab_lane_name(u[KIND_SW].mbps) : "-");
}

/* ---- the two ends of a link agree ---- */
void rd_fck_mismatch(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	unsigned int links = 0;

	for (size_t i = 0; i < fab->n_nodes; i++) {
		for (int p = 1; p <= fab->nodes[i].nports; p++) {
			const struct rd_fab_port *a = &fab->nodes[i].ports[p], *b;
			struct rd_fab_result *x;

			if (!rd_fck_first_end(fab, i, p) || !a->has_info)
				continue;
			b = &fab->nodes[a->peer_node].ports[a->peer_port];
			if (!b->has_info)
				continue;
			links++;
			if (a->state == RD_FAB_ACTIVE && b->state == RD_FAB_ACTIVE &&
			    (a->w_act != b->w_act || rd_fab_lane_mbps(a) != rd_fab_lane_mbps(b))) {
				x = rd_fck_add(c, RD_FAB_FAIL, "the ends disagree: %s %s here, %s %s there",
					rd_fab_width_name(a->w_act), rd_fab_speed_name(a),
					rd_fab_width_name(b->w_act), rd_fab_speed_name(b));
				rd_fck_link(c, x, (int)i, p);
				rd_fck_fix(x, "one end's PortInfo is stale or wrong: reset the link "
					"(ibportstate ... reset) and check both ends' firmware");
			} else if (a->state != b->state &&
				   (a->state == RD_FAB_ACTIVE || b->state == RD_FAB_ACTIVE)) {
				x = rd_fck_add(c, RD_FAB_FAIL, "the ends disagree: %s here, %s there",
					rd_fab_state_name(a->state), rd_fab_state_name(b->state));
				rd_fck_link(c, x, (int)i, p);
				rd_fck_fix(x, "check the subnet manager's log for this port; reset the link");
			}
		}
	}
	rd_fck_pass(c, "both ends agree on %u links", links);
}

/* ---- error counters ---- */
static bool saturated(enum rd_fab_ctr k, uint64_t v)
{
	unsigned int bits = rd_fab_ctr_info(k)->bits;

	return bits < 64 && v == (1ull << bits) - 1;
}

static void check_errors(struct ctx *c, bool wait)
{
	const struct rd_fab *fab = c->fab;
	unsigned int ports = 0;

	if (!fab->have_ctrs) {
		rd_fck_skip(c, fab->live ? "counters not read" : "a saved fabric holds no counters");
		return;
	}
	for (size_t i = 0; i < fab->n_nodes; i++) {
		for (int p = 1; p <= fab->nodes[i].nports; p++) {
			const struct rd_fab_port *pt = &fab->nodes[i].ports[p];
			char detail[320] = "";
			bool rising = false, any = false, sat = false;
			size_t len = 0;

			if (!pt->ctr_read[0])
				continue;
			ports++;
			for (int k = 0; k < RD_FAB_NCTRS; k++) {
				const struct rd_fab_ctr_info *ci = rd_fab_ctr_info((enum rd_fab_ctr)k);
				bool two = pt->ctr_read[1];
				uint64_t v = two ? pt->ctr[1][k] : pt->ctr[0][k];
				uint64_t d = two && pt->ctr[1][k] > pt->ctr[0][k] ? pt->ctr[1][k] - pt->ctr[0][k] : 0;

				if (wait ? k != RD_FAB_XMIT_WAIT : !ci->error)
					continue;
				if (!v)
					continue;
				any = true;
				rising = rising || d;
				sat = sat || saturated((enum rd_fab_ctr)k, v);
				if (len < sizeof(detail))
					len += (size_t)snprintf(detail + len, sizeof(detail) - len, "%s%s=%llu%s",
							len ? ", " : "", ci->name, (unsigned long long)v,
							saturated((enum rd_fab_ctr)k, v) ? " (saturated)" : "");
				if (d && len < sizeof(detail))
					len += (size_t)snprintf(detail + len, sizeof(detail) - len,
							" (+%llu in %g s)", (unsigned long long)d, fab->interval);
			}
			if (!any)
				continue;
			{
				enum rd_fab_status st = wait ? RD_FAB_WARN : rising ? RD_FAB_FAIL : RD_FAB_WARN;
				struct rd_fab_result *x = rd_fck_add(c, st, "%s%s", detail,
							      sat ? "; a saturated counter no longer counts" : "");

				rd_fck_link(c, x, (int)i, p);
				if (wait)
					rd_fck_fix(x, "congestion, not a broken link: the port waited to send; look "
						"at the traffic pattern and routing (not the cable)");
				else if (rising)
					rd_fck_fix(x, "errors are rising now: reseat or replace the cable, then "
						"clear the counters (perfquery -R) and watch again");
				else
					rd_fck_fix(x, "errors counted since the last clear: clear them "
						"(perfquery -R LID PORT) and run again with --interval to see "
						"whether they still rise");
			}
		}
	}
	if (wait)
		rd_fck_pass(c, "no port waited to send (%u ports read)", ports);
	else
		rd_fck_pass(c, "no error counted on %u ports%s", ports,
			      fab->interval > 0 ? "" : " (one reading: --interval shows rising counters)");
}

void rd_fck_counters(struct ctx *c)
{
	check_errors(c, false);
}

void rd_fck_xmitwait(struct ctx *c)
{
	check_errors(c, true);
}

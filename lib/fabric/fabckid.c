// SPDX-License-Identifier: MIT
/*
 * rdma-fabric's checks of subnet managers and identities: one master SM that
 * every port names, unique LIDs, GUIDs and node descriptions.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabapi.h"
#include "fabint.h"

/* ---- subnet managers ---- */
static void sm_label(const struct ctx *c, const struct rd_fab_sm *s, char *buf, size_t len)
{
	if (s->node >= 0) {
		char l[200];

		rd_fab_port_label(c->fab, s->node, s->port, l, sizeof(l));
		snprintf(buf, len, "SM at LID %u (%s)", s->lid, l);
	} else {
		snprintf(buf, len, "SM at LID %u", s->lid);
	}
}

/*
 * A result about one SM: its object the SM's label, its guid, port and host
 * those of the port that answered (when the sweep found it), as every result
 * about one port carries them.
 */
static void sm_object(const struct ctx *c, struct rd_fab_result *x, const struct rd_fab_sm *s)
{
	if (!x)
		return;
	if (s->node >= 0)
		rd_fck_port(c, x, s->node, s->port);
	sm_label(c, s, x->object, sizeof(x->object));
}

static const struct rd_fab_sm *master_sm(const struct rd_fab *fab, unsigned int *n_master)
{
	const struct rd_fab_sm *m = NULL;

	*n_master = 0;
	for (size_t i = 0; i < fab->n_sms; i++)
		if (fab->sms[i].answered && fab->sms[i].state == 3) {
			(*n_master)++;
			if (!m)
				m = &fab->sms[i];
		}
	return m;
}

void rd_fck_sm(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	const struct rd_fab_sm *m, *best = NULL;
	unsigned int n_master, answered = 0;
	struct rd_fab_result *x;

	if (!fab->have_sms) {
		rd_fck_skip(c, fab->live ? "SMInfo not read" : "a saved fabric holds no SMInfo");
		return;
	}
	m = master_sm(fab, &n_master);
	for (size_t i = 0; i < fab->n_sms; i++) {
		const struct rd_fab_sm *s = &fab->sms[i];

		if (!s->answered) {
			char l[300];

			sm_label(c, s, l, sizeof(l));
			x = rd_fck_add(c, RD_FAB_WARN, "%s: %s", l, s->why);
			sm_object(c, x, s);
			rd_fck_fix(x, "a port names this LID as its SM, or the port says it runs one, "
				"but SMInfo got no answer: is the SM process alive?");
			continue;
		}
		answered++;
		/* The IBA's election: the highest priority, then the lowest GUID. */
		if (s->state != 0 && (!best || s->priority > best->priority ||
				      (s->priority == best->priority && s->guid < best->guid)))
			best = s;
	}
	if (!answered) {
		x = rd_fck_add(c, RD_FAB_FAIL, "no subnet manager answered SMInfo: nothing configures the "
			"fabric (new links stay in Init)");
		if (x)
			rd_strlcpy(x->object, "fabric", sizeof(x->object));
		rd_fck_fix(x, "start one: systemctl start opensm on a management node, or enable the "
			"switch's embedded SM");
		return;
	}
	if (n_master == 0) {
		x = rd_fck_add(c, RD_FAB_FAIL, "%u subnet manager%s answered, none is master", answered,
			answered == 1 ? "" : "s");
		if (x)
			rd_strlcpy(x->object, "fabric", sizeof(x->object));
		rd_fck_fix(x, "restart the SM meant to be master; check its log for why it stays standby");
	} else if (n_master > 1) {
		char list[200] = "";
		size_t len = 0;

		for (size_t i = 0; i < fab->n_sms; i++)
			if (fab->sms[i].answered && fab->sms[i].state == 3 && len < sizeof(list))
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%sLID %u",
							len ? ", " : "", fab->sms[i].lid);
		x = rd_fck_add(c, RD_FAB_FAIL, "%u masters (%s): the subnet is split or the SMs cannot reach "
			"each other", n_master, list);
		if (x)
			rd_strlcpy(x->object, "fabric", sizeof(x->object));
		rd_fck_fix(x, "stop all but one SM (or give them the same SM key and let them elect); "
			"the masters' logs name the port each one sweeps from");
	}
	if (m && n_master == 1 && best && best != m && best->priority > m->priority) {
		x = rd_fck_add(c, RD_FAB_WARN, "the master has priority %u, but the SM at LID %u has priority %u "
			"and is %s", m->priority, best->lid, best->priority, rd_fab_sm_state_name(best->state));
		sm_object(c, x, m);
		rd_fck_fix(x, "the master should hand over to the higher priority at its next sweep; "
			"when it does not, it ignores other SMs (OpenSM: ignore_other_sm, -d0) or their "
			"SM keys differ (sm_key): mend its configuration and restart it, and the "
			"higher-priority SM takes over");
	}
	if (m && c->r->n == c->first) {
		x = rd_fck_add(c, RD_FAB_PASS, "one master (LID %u, priority %u), %u SM%s answered", m->lid,
			       m->priority, answered, answered == 1 ? "" : "s");
		sm_object(c, x, m);
	}
}

void rd_fck_smlid(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	const struct rd_fab_sm *m;
	unsigned int n_master, ports = 0;

	if (!fab->have_sms) {
		rd_fck_skip(c, fab->live ? "SMInfo not read" : "a saved fabric holds no SMInfo");
		return;
	}
	m = master_sm(fab, &n_master);
	if (!m) {
		rd_fck_skip(c, "no master SM to compare with (see sm.master)");
		return;
	}
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];

		for (int p = n->type == RD_FAB_SWITCH ? 0 : 1; p <= (n->type == RD_FAB_SWITCH ? 0 : n->nports); p++) {
			const struct rd_fab_port *pt = &n->ports[p];
			bool known = false;
			struct rd_fab_result *x;

			if (!pt->has_info || pt->state != RD_FAB_ACTIVE)
				continue;
			ports++;
			if (pt->sm_lid == m->lid)
				continue;
			for (size_t k = 0; k < fab->n_sms; k++)
				known = known || (fab->sms[k].lid == pt->sm_lid && fab->sms[k].answered);
			x = rd_fck_add(c, RD_FAB_FAIL, "its SMLid is %u, %s; the master is LID %u", pt->sm_lid,
				known ? "a standby SM" : "where no SM answers", m->lid);
			rd_fck_port(c, x, (int)i, p);
			rd_fck_fix(x, "traps and SA queries from this port go astray: the master's next "
				"heavy sweep resets it (opensm: kill -HUP, or -e once)");
		}
	}
	rd_fck_pass(c, "%u ports name the master (LID %u) as their SM", ports, m->lid);
}

/* ---- identity ---- */
struct lidref {
	uint16_t lo, hi;
	int node, port;
};

static int lidref_cmp(const void *a, const void *b)
{
	const struct lidref *x = a, *y = b;

	return x->lo != y->lo ? x->lo - y->lo : x->node - y->node;
}

void rd_fck_lids(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	struct lidref *v;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < fab->n_nodes; i++)
		cap += (size_t)fab->nodes[i].nports + 1;
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *nd = &fab->nodes[i];

		for (int p = nd->type == RD_FAB_SWITCH ? 0 : 1; p <= (nd->type == RD_FAB_SWITCH ? 0 : nd->nports); p++) {
			const struct rd_fab_port *pt = &nd->ports[p];

			if (!pt->has_info || pt->state < RD_FAB_ARMED)
				continue;
			if (pt->lid == 0 || pt->lid >= 0xc000) {
				struct rd_fab_result *x = pt->lid ?
					rd_fck_add(c, RD_FAB_FAIL, "%s with a multicast LID %#x",
					    rd_fab_state_name(pt->state), pt->lid) :
					rd_fck_add(c, RD_FAB_FAIL, "%s but without a LID", rd_fab_state_name(pt->state));

				rd_fck_port(c, x, (int)i, p);
				rd_fck_fix(x, "the SM did not give it a LID: check the SM's log for this GUID "
					"(0x%016llx)", (unsigned long long)pt->guid);
				continue;
			}
			v[n].lo = pt->lid;
			v[n].hi = (uint16_t)(pt->lid + (1u << (pt->lmc > 7 ? 7 : pt->lmc)) - 1);
			v[n].node = (int)i;
			v[n].port = p;
			n++;
		}
	}
	qsort(v, n, sizeof(*v), lidref_cmp);
	for (size_t k = 1; k < n; k++) {
		/* Overlapping ranges (LMC > 0 covers 2^LMC LIDs) are duplicates too. */
		for (size_t j = k; j-- > 0;) {
			char other[200];
			struct rd_fab_result *x;

			if (v[j].hi < v[k].lo)
				continue;
			if (j + 8 < k)
				break;
			rd_fab_port_label(fab, v[j].node, v[j].port, other, sizeof(other));
			x = rd_fck_add(c, RD_FAB_FAIL, "LID %u is also %s's", v[k].lo, other);
			rd_fck_port(c, x, v[k].node, v[k].port);
			rd_fck_fix(x, "two ports with one LID lose each other's traffic: let the SM reassign "
				"(restart it with a clean guid2lid cache, or check for a second subnet "
				"merged in)");
		}
	}
	rd_fck_pass(c, "%zu LIDs, each unique", n);
	free(v);
}

struct guidref {
	uint64_t guid;
	int node, port;
};

static int guidref_cmp(const void *a, const void *b)
{
	const struct guidref *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/*
 * The other positions where the GUID of seen[k] answers, for its detail:
 * 'leaf01 port 1 ("h001 mlx5_0")'.  One node reached over another of its
 * cables (the same description, another port) is not another position.
 */
static void other_positions(const struct rd_fab *fab, size_t k, char *buf, size_t len)
{
	const struct rd_fab_seen *s = &fab->seen[k];
	size_t l = 0;
	unsigned int shown = 0, more = 0;

	buf[0] = '\0';
	for (size_t j = 0; j < fab->n_seen; j++) {
		const struct rd_fab_seen *o = &fab->seen[j];
		char pos[200];

		if (j == k || !o->answered || !o->dup || o->guid != s->guid ||
		    (strcmp(o->desc, s->desc) == 0 && o->local_port != s->local_port))
			continue;
		if (shown == 3) {
			more++;
			continue;
		}
		rd_fab_port_label(fab, o->node, o->port, pos, sizeof(pos));
		if (l < len)
			l += (size_t)snprintf(buf + l, len - l, "%s%s%s%s%s", shown ? ", " : "", pos,
					      o->desc[0] ? " (\"" : "", o->desc, o->desc[0] ? "\")" : "");
		shown++;
	}
	if (more && l < len)
		snprintf(buf + l, len - l, " and %u more", more);
}

/*
 * A position where a GUID two nodes share answers (the sweep's directed-route
 * probes): one FAIL each, on the switch port it sits behind, named by the
 * description it answers with, with the other places the GUID answers.
 */
static void shared_guids(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;

	for (size_t k = 0; k < fab->n_seen; k++) {
		const struct rd_fab_seen *s = &fab->seen[k];
		int g = rd_fab_node_by_guid(fab, s->guid);
		bool mine = s->confirmed && g >= 0 && g == fab->from_node && s->local_port == fab->from_port;
		char dr[200], others[220], as[80] = "";
		struct rd_fab_result *x;

		if (!s->answered || !s->dup)
			continue;
		rd_fab_dr_str(&fab->nodes[s->node], s->port, dr, sizeof(dr));
		other_positions(fab, k, others, sizeof(others));
		if (!others[0] && g >= 0) {
			char dg[200];

			rd_fab_dr_str(&fab->nodes[g], -1, dg, sizeof(dg));
			rd_snprintf(others, sizeof(others), "%s (directed route %s), which does not name "
				    "this port as its peer", fab->nodes[g].name, dg);
		}
		if (s->desc[0])
			snprintf(as, sizeof(as), " as \"%s\"", s->desc);
		x = rd_fck_add(c, RD_FAB_FAIL, "GUID 0x%016llx port %d answers here%s (directed route %s%s); "
			       "it also answers at %s", (unsigned long long)s->guid, s->local_port, as, dr,
			       mine ? ": the port this sweep runs from" : "", others[0] ? others : "?");
		rd_fck_port(c, x, s->node, s->port);
		if (x) {
			x->peer_guid = s->guid;
			x->peer_port = s->local_port;
			rd_fab_desc_host(s->type, s->desc, x->host, sizeof(x->host));
		}
		rd_fck_fix(x, "two nodes answer with one GUID, and the SM can send one's traffic to the "
			   "other: see which one's GUID is copied (smpquery -D nodedesc %s, and at the other "
			   "places) and give it its own (an HCA: flint -d DEVICE sg GUID)", dr);
	}
}

void rd_fck_guids(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	struct guidref *v;
	size_t n = 0, cap = 0, before = c->r->n;
	bool placed;

	shared_guids(c);
	/*
	 * libibnetdisc's own "duplicate" complaint, when the probes did not
	 * place the GUID (a port that would not answer them).
	 */
	placed = c->r->n > before;
	for (size_t i = 0; i < fab->msgs.n && !placed; i++) {
		if (strcasestr(fab->msgs.v[i], "duplicate")) {
			struct rd_fab_result *x = rd_fck_add(c, RD_FAB_FAIL, "%s", fab->msgs.v[i]);

			if (x)
				rd_strlcpy(x->object, "discovery", sizeof(x->object));
			rd_fck_fix(x, "two nodes or ports share a GUID: one of them is hidden behind the other; "
				"find the card with the copied GUID (flint query) and burn its own");
		}
	}
	for (size_t i = 0; i < fab->n_nodes; i++)
		cap += (size_t)fab->nodes[i].nports + 2;
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *nd = &fab->nodes[i];

		v[n++] = (struct guidref){ nd->guid, (int)i, -1 };
		/* A CA's ports have their own GUIDs; a switch's all share port 0's. */
		for (int p = 1; nd->type != RD_FAB_SWITCH && p <= nd->nports; p++)
			if (nd->ports[p].has_info && nd->ports[p].guid && nd->ports[p].guid != nd->guid)
				v[n++] = (struct guidref){ nd->ports[p].guid, (int)i, p };
	}
	qsort(v, n, sizeof(*v), guidref_cmp);
	for (size_t k = 1; k < n; k++) {
		char other[200];
		struct rd_fab_result *x;

		if (v[k].guid != v[k - 1].guid || v[k].node == v[k - 1].node)
			continue;
		rd_fab_port_label(fab, v[k - 1].node, v[k - 1].port, other, sizeof(other));
		x = rd_fck_add(c, RD_FAB_FAIL, "GUID 0x%016llx is also %s's", (unsigned long long)v[k].guid, other);
		rd_fck_port(c, x, v[k].node, v[k].port);
		rd_fck_fix(x, "burn the card's own GUID (flint -d ... sg) or fix the virtual GUID setup");
	}
	rd_fck_pass(c, "%zu GUIDs, each unique", n);
	free(v);
}

static int desc_cmp(const void *a, const void *b)
{
	const struct rd_fab_node *const *x = a, *const *y = b;

	return strcmp((*x)->desc, (*y)->desc);
}

void rd_fck_descs(struct ctx *c)
{
	const struct rd_fab *fab = c->fab;
	const struct rd_fab_node **v = calloc(fab->n_nodes ? fab->n_nodes : 1,
					      sizeof(const struct rd_fab_node *));
	size_t n = 0;

	if (!v)
		return;
	for (size_t i = 0; i < fab->n_nodes; i++)
		if (fab->nodes[i].desc[0])
			v[n++] = &fab->nodes[i];
	qsort(v, n, sizeof(const struct rd_fab_node *), desc_cmp);
	for (size_t k = 1; k < n; k++) {
		struct rd_fab_result *x;

		if (strcmp(v[k]->desc, v[k - 1]->desc) != 0)
			continue;
		x = rd_fck_add(c, RD_FAB_WARN, "the description \"%s\" is also node 0x%016llx's", v[k]->desc,
			(unsigned long long)v[k - 1]->guid);
		rd_fck_port(c, x, (int)(v[k] - fab->nodes), -1);
		if (x)
			snprintf(x->object, sizeof(x->object), "%s (0x%016llx)", v[k]->name,
				 (unsigned long long)v[k]->guid);
		rd_fck_fix(x, "tools and people tell nodes apart by description: set the host name "
			"(the kernel writes it to node_desc) or name the GUID in the node name map");
	}
	rd_fck_pass(c, "%zu node descriptions, each unique", n);
	free(v);
}

// SPDX-License-Identifier: MIT
/*
 * rdma-fabric's checks: one table, each entry an id, what it judges and its
 * general fix, and a verdict function over the fabric model.  A check that
 * finds nothing wrong leaves one PASS saying what it looked at; one without
 * its evidence (no counters in a saved fabric) leaves a SKIP with the reason.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabapi.h"
#include "fabint.h"

static const struct {
	struct rd_fab_check check;
	void (*fn)(struct ctx *c);
} table[] = {
	{ { "fabric.discovery", "discovery ran without errors",
	    "see the messages; a node that does not answer is named by node.answer" }, rd_fck_discovery },
	{ { "node.answer", "every linked port's peer answered; every node gave PortInfo",
	    "reset or reseat the node that does not answer" }, rd_fck_answer },
	{ { "link.baseline", "every Active link of the --baseline is here and Active, no node is gone "
	    "(new nodes and links are noted)", "put the cable back, or save a new baseline" },
	  rd_fck_baseline },
	{ { "link.state", "every physically up link is Active (not stuck in Init or Armed)",
	    "check the subnet manager" }, rd_fck_state },
	{ { "link.degraded", "links at the best width and speed both ends enable, --expect-rate "
	    "and the fabric's usual rate", "reseat or replace the cable" }, rd_fck_degraded },
	{ { "link.mismatch", "both ends of a link report the same state, width and speed",
	    "reset the link" }, rd_fck_mismatch },
	{ { "port.errors", "error counters zero, and not rising over --interval",
	    "replace the cable whose errors rise; clear the counters" }, rd_fck_counters },
	{ { "port.xmitwait", "PortXmitWait: time a port waited to send (congestion)",
	    "look at traffic and routing" }, rd_fck_xmitwait },
	{ { "sm.master", "exactly one master subnet manager, the one with the highest priority",
	    "run one SM as master" }, rd_fck_sm },
	{ { "sm.lid", "every port's SMLid is the master's LID", "resweep from the master" }, rd_fck_smlid },
	{ { "id.lid", "every LID is set and unique", "let the SM reassign LIDs" }, rd_fck_lids },
	{ { "id.guid", "every node and port GUID is unique", "give each card its own GUID" }, rd_fck_guids },
	{ { "id.desc", "node descriptions are unique", "set host names or a node name map" }, rd_fck_descs },
	{ { "route.holes", "every switch forwards every CA's LID, to a port that is up",
	    "make the subnet manager resweep" }, rd_fck_route_holes },
	{ { "route.loops", "no route loops, and the routes make no credit loop (a cycle of channels "
	    "waiting on each other)", "use a deadlock-free routing engine" }, rd_fck_route_loops },
	{ { "route.balance", "each switch spreads the CA LIDs over its up-ports within 2x",
	    "put the lost link back and make the SM resweep" }, rd_fck_route_balance },
	{ { "route.degraded", "how many CA-to-CA routes cross each degraded or erroring link",
	    "fix the links that carry the most routes first" }, rd_fck_route_degraded },
};

const struct rd_fab_check *rd_fab_checks(size_t *n)
{
	static struct rd_fab_check v[RD_ARRAY_SIZE(table)];

	for (size_t i = 0; i < RD_ARRAY_SIZE(table); i++)
		v[i] = table[i].check;
	*n = RD_ARRAY_SIZE(table);
	return v;
}

/* An id, or a group: the part before the dot ("link" is link.state, link.degraded...). */
static bool id_matches(const char *id, const char *want)
{
	size_t l = strlen(want);

	return strcmp(id, want) == 0 || (strncmp(id, want, l) == 0 && id[l] == '.');
}

const struct rd_fab_check *rd_fab_check_find(const char *id)
{
	size_t n;
	const struct rd_fab_check *v = rd_fab_checks(&n);

	for (size_t i = 0; i < n; i++)
		if (id_matches(v[i].id, id))
			return &v[i];
	return NULL;
}

static bool selected(const struct rd_fab_check_opts *o, const char *id)
{
	bool in = !o->only || o->only->n == 0;

	for (size_t i = 0; o->only && i < o->only->n && !in; i++)
		in = id_matches(id, o->only->v[i]);
	for (size_t i = 0; o->skip && i < o->skip->n && in; i++)
		in = !id_matches(id, o->skip->v[i]);
	return in;
}

bool rd_fab_group_selected(const struct rd_fab_check_opts *o, const char *group)
{
	for (size_t i = 0; i < RD_ARRAY_SIZE(table); i++)
		if (id_matches(table[i].check.id, group) && selected(o, table[i].check.id))
			return true;
	return false;
}

size_t rd_fab_selected_count(const struct rd_fab_check_opts *o)
{
	size_t n = 0;

	for (size_t i = 0; i < RD_ARRAY_SIZE(table); i++)
		n += selected(o, table[i].check.id);
	return n;
}

int rd_fab_run_checks(const struct rd_fab *fab, const struct rd_fab_check_opts *o,
		      struct rd_fab_report *r)
{
	size_t n;
	const struct rd_fab_check *v = rd_fab_checks(&n);
	struct rd_fab_rt_cache rtc = { 0 };

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *nd = &fab->nodes[i];

		r->nodes++;
		r->switches += nd->type == RD_FAB_SWITCH;
		r->cas += nd->type == RD_FAB_CA;
		for (int p = 1; p <= nd->nports; p++)
			r->links += rd_fck_first_end(fab, i, p);
	}
	for (size_t i = 0; i < n; i++) {
		struct ctx c = { fab, o, r, NULL, r->n, &rtc, v, n };

		if (!selected(o, table[i].check.id))
			continue;
		c.check = &v[i];
		table[i].fn(&c);
	}
	if (rtc.tried && !rtc.err)
		rd_fab_rt_free(&rtc.rt);
	return 0;
}

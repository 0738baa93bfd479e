// SPDX-License-Identifier: MIT
/*
 * rdma-fabric's report: the results the checks add, their counts, the
 * verdict.  The array grows here, apart from the checks (fabchecks.c).
 */
#include <stdlib.h>
#include <string.h>

#include "fabapi.h"
#include "fabint.h"

struct rd_fab_result *rd_fab_report_slot(struct rd_fab_report *r)
{
	struct rd_fab_result *x;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct rd_fab_result *v = realloc(r->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->v = v;
		r->cap = cap;
	}
	x = &r->v[r->n++];
	memset(x, 0, sizeof(*x));
	x->port = x->peer_port = -1;
	return x;
}

enum rd_fab_status rd_fab_report_worst(const struct rd_fab_report *r)
{
	if (r->count[RD_FAB_FAIL])
		return RD_FAB_FAIL;
	if (r->count[RD_FAB_WARN])
		return RD_FAB_WARN;
	if (r->count[RD_FAB_PASS])
		return RD_FAB_PASS;
	return RD_FAB_SKIP;
}

const struct rd_fab_result *rd_fab_report_first_fail(const struct rd_fab_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].status == RD_FAB_FAIL)
			return &r->v[i];
	return NULL;
}

const char *rd_fab_status_name(enum rd_fab_status s)
{
	static const char *const n[] = { "PASS", "SKIP", "WARN", "FAIL" };

	return s < RD_FAB_NSTATUS ? n[s] : "?";
}

void rd_fab_report_free(struct rd_fab_report *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}

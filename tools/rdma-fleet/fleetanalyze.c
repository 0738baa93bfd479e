// SPDX-License-Identifier: MIT
/*
 * Fleet summary: the analysis.  The fact table (every fact any host gave,
 * each host's value or "absent"), its values by number of hosts (the
 * majority first, then the outliers), the problems by host and the hosts
 * that were expected and sent nothing.
 */
#define _GNU_SOURCE
#include "fleetint.h"
#include "fleet.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static unsigned int kind_bit(const char *kind)
{
	for (size_t i = 0; i < rd_fleet_nreaders; i++)
		if (strcmp(rd_fleet_readers[i].name, kind) == 0)
			return 1u << i;
	return 0;
}

/* Values by number of hosts, most first; equal counts keep their first-seen order. */
static int value_cmp(const void *pa, const void *pb)
{
	const struct rd_fleet_value *a = pa, *b = pb;

	if (a->hosts.n != b->hosts.n)
		return a->hosts.n > b->hosts.n ? -1 : 1;
	return a->seen < b->seen ? -1 : a->seen > b->seen;
}

/* Problems by their host's first appearance; stable within a host. */
struct problem_order {
	size_t host, at;
};

static int problem_cmp(const void *pa, const void *pb)
{
	const struct problem_order *a = pa, *b = pb;

	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static int sort_problems(struct rd_fleet *f)
{
	struct problem_order *ord;
	struct rd_fleet_problem *sorted;

	if (f->nproblems < 2)
		return 0;
	ord = calloc(f->nproblems, sizeof(*ord));
	sorted = calloc(f->nproblems, sizeof(*sorted));
	if (!ord || !sorted) {
		free(ord);
		free(sorted);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->nproblems; i++) {
		ord[i].at = i;
		ord[i].host = f->problems[i].hostno;
	}
	qsort(ord, f->nproblems, sizeof(*ord), problem_cmp);
	for (size_t i = 0; i < f->nproblems; i++)
		sorted[i] = f->problems[ord[i].at];
	memcpy(f->problems, sorted, f->nproblems * sizeof(*sorted));
	free(sorted);
	free(ord);
	return 0;
}

/*
 * Add host h's value of fact k (vid, or none: absent) to k's values.  vmap
 * maps (fact, value) to the value's place in k->vals.
 */
static int fact_host(struct rd_fleet *f, struct rd_strmap *vmap, size_t out, const struct host *h,
		     uint32_t vid, bool has)
{
	struct rd_fleet_fact *k = &f->facts[out];
	uint64_t key[2] = { out, has ? (uint64_t)vid + 1 : 0 };
	size_t at = k->nvals;
	struct rd_fleet_value *v;
	int rc;

	k->nhosts++;
	rc = rd_strmap_get_or_add(vmap, key, sizeof(key), &at);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		v = realloc(k->vals, (k->nvals + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		k->vals = v;
		v = &k->vals[k->nvals];
		memset(v, 0, sizeof(*v));
		v->seen = k->nvals;
		v->key = strdup(has ? f->vtexts[vid] : "");
		RD_GCC_LEAK_FP_BEGIN	/* in k->vals, freed by rd_fleet_free */
		if (!v->key)
			return -ENOMEM;
		RD_GCC_LEAK_FP_END
		if (has) {
			v->val = json_tokener_parse(f->vtexts[vid]);
			if (!v->val)
				return -ENOMEM;	/* our own canonical text parses */
		}
		k->nvals++;
	}
	return rd_fleet_list_borrow(&k->vals[at].hosts, h->name);
}

RD_GCC_LEAK_FP_BEGIN	/* the facts and their values go into f->facts, freed by rd_fleet_free */
int rd_fleet_analyze(struct rd_fleet *f)
{
	struct rd_strmap vmap = { 0 };
	uint32_t *cur = NULL;	/* per fact key: the host's value + 1, 0 when absent */
	unsigned int *bits = NULL;
	int rc = 0;

	/* The facts in first-seen order over the hosts. */
	for (size_t i = 0; i < f->nfkeys; i++)
		f->fkeys[i].out = SIZE_MAX;
	f->facts = calloc(f->nfkeys ? f->nfkeys : 1, sizeof(*f->facts));
	cur = calloc(f->nfkeys ? f->nfkeys : 1, sizeof(*cur));
	bits = calloc(f->nfkeys ? f->nfkeys : 1, sizeof(*bits));
	if (!f->facts || !cur || !bits) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < f->nhosts; i++) {
		const struct host *h = &f->hosts[i];

		for (size_t j = 0; j < h->nfacts; j++) {
			struct fact_key *fk = &f->fkeys[h->facts[j].fid];
			struct rd_fleet_fact *k;

			if (fk->out != SIZE_MAX)
				continue;
			fk->out = f->nfacts;
			bits[f->nfacts] = kind_bit(fk->kind);
			k = &f->facts[f->nfacts++];
			k->kind = strdup(fk->kind);
			k->name = strdup(fk->name);
			k->dev = fk->dev ? strdup(fk->dev) : NULL;
			k->port = fk->port;
			if (!k->kind || !k->name || (fk->dev && !k->dev)) {
				rc = -ENOMEM;
				goto out;
			}
		}
	}
	/*
	 * Each host's value of every fact of the kinds of document it sent (a
	 * fact it lacks is "absent"); a fact reported twice: the latest.
	 */
	for (size_t i = 0; !rc && i < f->nhosts; i++) {
		const struct host *h = &f->hosts[i];

		if (!h->kinds)
			continue;
		for (size_t j = 0; j < h->nfacts; j++)
			cur[f->fkeys[h->facts[j].fid].out] = h->facts[j].vid + 1;
		for (size_t k = 0; !rc && k < f->nfacts; k++)
			if (h->kinds & bits[k])
				rc = fact_host(f, &vmap, k, h, cur[k] ? cur[k] - 1 : 0, cur[k] != 0);
		for (size_t j = 0; j < h->nfacts; j++)
			cur[f->fkeys[h->facts[j].fid].out] = 0;
	}
	for (size_t i = 0; !rc && i < f->nfacts; i++) {
		struct rd_fleet_fact *k = &f->facts[i];

		if (k->nvals > 1)
			qsort(k->vals, k->nvals, sizeof(*k->vals), value_cmp);
		k->tie = k->nvals > 1 && k->vals[0].hosts.n == k->vals[1].hosts.n;
	}
	/* problems grouped by host, in the hosts' order; stable within a host */
	if (!rc)
		rc = sort_problems(f);
	/* then the hosts that sent nothing usable and have no other problem */
	for (size_t i = 0; !rc && i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];

		if (!h->kinds && !h->problem)
			rc = rd_fleet_problem_host_add(f, h, NULL, 0, "expected, but sent nothing");
	}
out:
	rd_strmap_free(&vmap);
	free(cur);
	free(bits);
	return rc;
}
RD_GCC_LEAK_FP_END

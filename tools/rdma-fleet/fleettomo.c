// SPDX-License-Identifier: MIT
/*
 * rdma-fleet --fabric: the mesh's pairs placed on the fabric, and the links
 * ranked by how well they explain the bad (failed or slow) pairs.  See
 * fleettomo.h for the rule.
 */
#define _GNU_SOURCE
#include "fleettomo.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define MIN_BAD 2		/* a single bad pair cannot single out one of its links */
#define MIN_PRECISION 0.5	/* at least half of a suspect's pairs are bad */
#define ALPHA 0.01		/* the chance, over all links, of naming one by luck */
#define ROUTE_ROOM 256		/* links of a pair's two routes (2 x 64 hops at most, and room) */

void rd_tomo_suspects_free(struct rd_tomo_suspect *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		free(s[i].same);
		free(s[i].obs);
	}
	free(s);
}

/*
 * log10 of P(X >= k) for X ~ Binomial(n, p), 0 < p < 1, k > n p: the terms
 * from k on shrink, and are summed until they stop counting.
 */
static double binom_tail_log10(size_t n, size_t k, double p)
{
	double lt = lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
		    (double)k * log(p) + (double)(n - k) * log1p(-p);
	double sum = 1, term = 1;

	for (size_t i = k; i < n; i++) {
		term *= (double)(n - i) / (double)(i + 1) * p / (1 - p);
		sum += term;
		if (term < sum * 1e-12)
			break;
	}
	return (lt + log(sum)) / log(10);
}

/* The links' observations, by link (CSR), with counts and a fingerprint of each set. */
struct incidence {
	size_t *start;		/* nlinks + 1 */
	size_t *obs;
	size_t *through, *bad_all;
	size_t *bad, *expl;	/* unexplained bad, and explained, pairs through each link */
	uint64_t *print;
	bool *used;
};

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static int incidence_build(struct incidence *in, size_t nlinks, const struct rd_tomo_obs *obs, size_t nobs)
{
	size_t total = 0;

	in->start = calloc(nlinks + 1, sizeof(*in->start));
	in->through = calloc(nlinks ? nlinks : 1, sizeof(*in->through));
	in->bad_all = calloc(nlinks ? nlinks : 1, sizeof(*in->bad_all));
	in->bad = calloc(nlinks ? nlinks : 1, sizeof(*in->bad));
	in->expl = calloc(nlinks ? nlinks : 1, sizeof(*in->expl));
	in->print = calloc(nlinks ? nlinks : 1, sizeof(*in->print));
	in->used = calloc(nlinks ? nlinks : 1, sizeof(*in->used));
	if (!in->start || !in->through || !in->bad_all || !in->bad || !in->expl || !in->print || !in->used)
		return -ENOMEM;
	for (size_t i = 0; i < nobs; i++)
		for (uint32_t k = 0; k < obs[i].nlinks; k++) {
			uint32_t l = obs[i].links[k];

			in->through[l]++;
			in->bad_all[l] += obs[i].bad;
			in->print[l] += mix(i);
			total++;
		}
	for (size_t l = 0; l < nlinks; l++)
		in->start[l + 1] = in->start[l] + in->through[l];
	in->obs = malloc((total ? total : 1) * sizeof(*in->obs));
	if (!in->obs)
		return -ENOMEM;
	{
		size_t *fill = in->bad;	/* borrowed as the write position, then reset */

		for (size_t l = 0; l < nlinks; l++)
			fill[l] = in->start[l];
		for (size_t i = 0; i < nobs; i++)
			for (uint32_t k = 0; k < obs[i].nlinks; k++)
				in->obs[fill[obs[i].links[k]]++] = i;
		for (size_t l = 0; l < nlinks; l++)
			fill[l] = in->bad_all[l];
	}
	return 0;
}

static void incidence_free(struct incidence *in)
{
	free(in->start);
	free(in->obs);
	free(in->through);
	free(in->bad_all);
	free(in->bad);
	free(in->expl);
	free(in->print);
	free(in->used);
}

static bool same_pairs(const struct incidence *in, size_t a, size_t b)
{
	size_t n = in->through[a];

	return n == in->through[b] && in->bad_all[a] == in->bad_all[b] && in->print[a] == in->print[b] &&
	       memcmp(&in->obs[in->start[a]], &in->obs[in->start[b]], n * sizeof(*in->obs)) == 0;
}

/* Name link l as a suspect: its equals, and the bad pairs it explains taken out of the rest. */
static int name_suspect(struct incidence *in, size_t nlinks, const struct rd_tomo_obs *obs, size_t nobs,
			bool *explained, size_t nbad, size_t l, double score, double lp, struct rd_tomo_suspect *s)
{
	memset(s, 0, sizeof(*s));
	s->link = (uint32_t)l;
	s->through = in->through[l] - in->expl[l];
	s->bad = in->bad[l];
	s->through_all = in->through[l];
	s->bad_all = in->bad_all[l];
	s->others = nobs - in->through[l];
	s->bad_others = nbad - in->bad_all[l];
	s->score = score;
	s->log10_p = lp;
	in->used[l] = true;
	for (size_t m = 0; m < nlinks; m++) {
		if (m == l || in->used[m] || !same_pairs(in, l, m))
			continue;
		if (s->nsame % 8 == 0) {
			uint32_t *v = realloc(s->same, (s->nsame + 8) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			s->same = v;
		}
		s->same[s->nsame++] = (uint32_t)m;
		in->used[m] = true;
	}
	s->obs = malloc((s->bad ? s->bad : 1) * sizeof(*s->obs));
	if (!s->obs)
		return -ENOMEM;
	for (size_t j = in->start[l], k = 0; j < in->start[l + 1]; j++) {
		size_t i = in->obs[j];

		if (!obs[i].bad || explained[i])
			continue;
		explained[i] = true;
		s->obs[k++] = i;
		for (uint32_t q = 0; q < obs[i].nlinks; q++) {
			in->bad[obs[i].links[q]]--;
			in->expl[obs[i].links[q]]++;
		}
	}
	return 0;
}

int rd_tomo_rank(size_t nlinks, const struct rd_tomo_obs *obs, size_t nobs, size_t max,
		 struct rd_tomo_suspect **out, size_t *n)
{
	struct incidence in = { 0 };
	bool *explained = calloc(nobs ? nobs : 1, sizeof(*explained));
	struct rd_tomo_suspect *s = calloc(max ? max : 1, sizeof(*s));
	size_t nbad = 0, left, nexpl = 0, crossed = 0;
	double limit;
	int rc = -ENOMEM;

	*out = NULL;
	*n = 0;
	if (!explained || !s || incidence_build(&in, nlinks, obs, nobs))
		goto out;
	for (size_t i = 0; i < nobs; i++)
		nbad += obs[i].bad;
	for (size_t l = 0; l < nlinks; l++)
		crossed += in.through[l] > 0;
	/* Bonferroni: ALPHA over the links that any pair crosses */
	limit = log10(ALPHA / (double)(crossed ? crossed : 1));
	left = nbad;
	while (*n < max && left >= MIN_BAD) {
		size_t best = SIZE_MAX, live = nobs - nexpl;
		double best_score = 0, best_lp = 0;

		for (size_t l = 0; l < nlinks; l++) {
			size_t b = in.bad[l], t = in.through[l] - in.expl[l];
			double prec, score, p0, lp;

			if (in.used[l] || b < MIN_BAD || (double)b < MIN_PRECISION * (double)t)
				continue;
			prec = (double)b / (double)t;
			score = prec * (double)b / (double)left;
			if (best != SIZE_MAX) {
				size_t bb = in.bad[best], bt = in.through[best] - in.expl[best];

				if (score < best_score || (score == best_score && (b < bb || (b == bb && t >= bt))))
					continue;	/* ties: more bad pairs, then fewer pairs, then the lower link */
			}
			/* the rest's rate of bad pairs, with one of each added: never 0 or 1 */
			p0 = ((double)(left - b) + 1) / ((double)(live - t) + 2);
			if ((double)b <= (double)t * p0)
				continue;
			lp = binom_tail_log10(t, b, p0);
			if (lp > limit)
				continue;
			best = l;
			best_score = score;
			best_lp = lp;
		}
		if (best == SIZE_MAX)
			break;
		if (name_suspect(&in, nlinks, obs, nobs, explained, nbad, best, best_score, best_lp, &s[*n])) {
			(*n)++;
			goto out;
		}
		left -= s[*n].bad;
		nexpl += s[*n].bad;
		(*n)++;
	}
	rc = 0;
out:
	incidence_free(&in);
	free(explained);
	if (rc) {
		rd_tomo_suspects_free(s, *n);
		*n = 0;
	} else {
		*out = s;
	}
	return rc;
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Pass, but far from the mesh's median: twice its latency, or half its bandwidth. */
static bool slow_pair(const struct rd_fleet_pair *p, double mlat, double mbw)
{
	return p->ok && ((mlat > 0 && p->latency_us > 0 && p->latency_us >= 2 * mlat) ||
			 (mbw > 0 && p->gbps > 0 && p->gbps <= mbw / 2));
}

static int keep_why(char **dst, const char *src, const char *what)
{
	if (*dst)
		return 0;
	if (asprintf(dst, "%s: %s", what, src) < 0) {
		*dst = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * Both ends of pair p on the fabric and its two routes' links (sorted,
 * unique) in v[0..*nv): 0; 1 an end not found; 2 a route broken; -ENOMEM.
 */
static int place(const struct rd_tomo_fabric *fab, const struct rd_fleet_pair *p, uint32_t *v, size_t *nv,
		 struct rd_tomo_result *r, struct rd_strmap *unknown)
{
	uint32_t sn, dn;
	unsigned int sp, dp;
	uint16_t sl, dl;
	bool sk, dk;
	char why[400], what[400] = "", other[400] = "";
	int rc;

	*nv = 0;
	rc = rd_tomo_end_find(fab, p->src, p->dev, p->port, NULL, &sn, &sp, &sl, &sk, why, sizeof(why));
	/* the other end too, for the list of hosts not on the fabric; the first reason kept */
	if (rd_tomo_end_find(fab, p->dst, p->dst_dev, p->dst_port, p->dev, &dn, &dp, &dl, &dk,
			     rc ? other : why, sizeof(why)) && !rc)
		rc = -ENOENT;
	if (rc) {
		const char *ends[2] = { sk ? NULL : p->src, dk ? NULL : p->dst };

		r->unmapped++;
		(void)snprintf(what, sizeof(what), "%s -> %s", p->src, p->dst);
		if (keep_why(&r->unmapped_why, why, what))
			return -ENOMEM;
		for (int e = 0; e < 2; e++) {
			size_t at = 0;
			int k;

			if (!ends[e])
				continue;
			k = rd_strmap_sget_or_add(unknown, ends[e], &at);
			if (k < 0 || (k == 0 && rd_strlist_add(&r->unmapped_hosts, ends[e])))
				return -ENOMEM;
		}
		return 1;
	}
	rc = rd_tomo_route(fab, sn, sp, dl, dn, v, nv, ROUTE_ROOM, why, sizeof(why));
	if (!rc)
		rc = rd_tomo_route(fab, dn, dp, sl, sn, v, nv, ROUTE_ROOM, why, sizeof(why));
	if (rc) {
		r->unroutable++;
		(void)snprintf(what, sizeof(what), "%s -> %s", p->src, p->dst);
		return keep_why(&r->unroutable_why, why, what) ? -ENOMEM : 2;
	}
	qsort(v, *nv, sizeof(*v), u32_cmp);
	{
		size_t k = 0;

		for (size_t i = 0; i < *nv; i++)
			if (!k || v[i] != v[k - 1])
				v[k++] = v[i];
		*nv = k;
	}
	return 0;
}

int rd_tomo_run(const struct rd_tomo_fabric *fab, const struct rd_fleet_pair *pv, size_t np,
		double mlat, double mbw, size_t max, struct rd_tomo_result *r)
{
	struct rd_strmap unknown = { 0 };
	struct rd_tomo_obs *obs = calloc(np ? np : 1, sizeof(*obs));
	size_t *off = calloc(np ? np : 1, sizeof(*off));
	uint32_t *pool = NULL, route[ROUTE_ROOM];
	size_t npool = 0, cap = 0, nobs = 0, cas, sws, nlinks;
	int rc = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->pairs = np;
	r->obs_pair = calloc(np ? np : 1, sizeof(*r->obs_pair));
	r->obs_failed = calloc(np ? np : 1, sizeof(*r->obs_failed));
	if (!obs || !off || !r->obs_pair || !r->obs_failed)
		goto out;
	for (size_t i = 0; i < np; i++) {
		size_t nv;
		bool slow = slow_pair(&pv[i], mlat, mbw);
		int k = place(fab, &pv[i], route, &nv, r, &unknown);

		if (k < 0)
			goto out;
		if (k) {
			r->unroutable_bad += k == 2 && (!pv[i].ok || slow);
			continue;
		}
		if (npool + nv > cap) {
			size_t nc = cap ? 2 * cap : 4096;
			uint32_t *v;

			while (nc < npool + nv)
				nc *= 2;
			v = realloc(pool, nc * sizeof(*v));
			if (!v)
				goto out;
			pool = v;
			cap = nc;
		}
		if (nv)
			memcpy(pool + npool, route, nv * sizeof(*route));
		off[nobs] = npool;
		obs[nobs].nlinks = (uint32_t)nv;
		obs[nobs].bad = !pv[i].ok || slow;
		r->obs_pair[nobs] = i;
		r->obs_failed[nobs] = !pv[i].ok;
		r->failed += !pv[i].ok;
		r->slow += slow;
		npool += nv;
		nobs++;
	}
	for (size_t i = 0; i < nobs; i++)
		obs[i].links = pool + off[i];
	r->routed = nobs;
	rd_tomo_fabric_size(fab, &cas, &sws, &nlinks);
	rc = rd_tomo_rank(nlinks, obs, nobs, max, &r->sus, &r->nsus);
out:
	rd_strmap_free(&unknown);
	free(obs);
	free(off);
	free(pool);
	return rc;
}

void rd_tomo_result_free(struct rd_tomo_result *r)
{
	rd_tomo_suspects_free(r->sus, r->nsus);
	rd_strlist_free(&r->unmapped_hosts);
	free(r->unmapped_why);
	free(r->unroutable_why);
	free(r->obs_pair);
	free(r->obs_failed);
	memset(r, 0, sizeof(*r));
}

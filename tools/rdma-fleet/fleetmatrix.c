// SPDX-License-Identifier: MIT
/*
 * rdma-fleet's pair matrix (fleetmesh.h): the mesh pairs by tester and tested
 * host, in natural host order, with the medians the slow pairs are judged by.
 */
#define _GNU_SOURCE
#include "fleetmesh.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
static int name_cmp(const void *a, const void *b)
{
	return rd_natural_cmp(*(char *const *)a, *(char *const *)b);
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A pair's cell. */
struct pair_ref {
	size_t row, col, pair;
};

static int ref_cmp(const void *pa, const void *pb)
{
	const struct pair_ref *a = pa, *b = pb;

	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return a->pair < b->pair ? -1 : a->pair > b->pair;
}

int rd_fleet_matrix_build(const struct rd_fleet *f, struct rd_fleet_matrix *m)
{
	struct rd_strmap seen = { 0 }, at = { 0 };
	struct pair_ref *refs = NULL;
	size_t nrefs = 0;
	double *lat = NULL, *bw = NULL;
	size_t nlat = 0, nbw = 0;
	int ret = -ENOMEM;

	memset(m, 0, sizeof(*m));
	m->pv = rd_fleet_pairs(f, &m->np);
	if (!m->np)
		return 0;
	m->hosts = calloc(2 * m->np, sizeof(*m->hosts));
	lat = calloc(m->np, sizeof(*lat));
	bw = calloc(m->np, sizeof(*bw));
	if (!m->hosts || !lat || !bw)
		goto out;
	for (size_t i = 0; i < m->np; i++) {
		const struct rd_fleet_pair *p = &m->pv[i];
		const char *ends[2] = { p->src, p->dst };

		for (size_t e = 0; e < 2; e++) {
			size_t j = m->nh;
			int rc = rd_strmap_sget_or_add(&seen, ends[e], &j);

			if (rc < 0)
				goto out;
			if (rc == 0)
				m->hosts[m->nh++] = (char *)ends[e];
		}
		m->nfail += !p->ok;
		m->nwarn += p->ok && p->warning;
		if (p->ok && p->latency_us > 0)
			lat[nlat++] = p->latency_us;
		if (p->ok && p->gbps > 0)
			bw[nbw++] = p->gbps;
	}
	qsort(m->hosts, m->nh, sizeof(*m->hosts), name_cmp);
	m->mlat = nlat ? median(lat, nlat) : 0;
	m->mbw = nbw ? median(bw, nbw) : 0;
	for (size_t i = 0; i < m->nh; i++) {
		size_t v = i;

		if (rd_strmap_sget_or_add(&at, m->hosts[i], &v) < 0)
			goto out;
	}
	m->cells = calloc(m->np, sizeof(*m->cells));
	m->row_start = calloc(m->nh + 1, sizeof(*m->row_start));
	m->col_start = calloc(m->nh + 1, sizeof(*m->col_start));
	m->by_col = calloc(m->np, sizeof(*m->by_col));
	if (!m->cells || !m->row_start || !m->col_start || !m->by_col)
		goto out;
	/* the pairs by (row, column), input order within: a cell is a run of them */
	refs = calloc(m->np, sizeof(*refs));
	if (!refs)
		goto out;
	for (size_t i = 0; i < m->np; i++) {
		struct pair_ref *r = &refs[nrefs];

		if (!rd_strmap_sget(&at, m->pv[i].src, &r->row) || !rd_strmap_sget(&at, m->pv[i].dst, &r->col))
			continue;
		r->pair = i;
		nrefs++;
	}
	qsort(refs, nrefs, sizeof(*refs), ref_cmp);
	for (size_t k = 0; k < nrefs; k++) {
		const struct rd_fleet_pair *p = &m->pv[refs[k].pair];
		unsigned char mark = !p->ok ? 3 : p->warning ? 2 : 1;
		struct rd_fleet_cell *c = m->ncells ? &m->cells[m->ncells - 1] : NULL;

		if (!c || c->row != refs[k].row || c->col != refs[k].col) {
			c = &m->cells[m->ncells++];
			*c = (struct rd_fleet_cell){ .row = refs[k].row, .col = refs[k].col, .gbps = -1,
						     .lat = -1, .pair = refs[k].pair };
		}
		if (!c->npairs++ || (mark == 3 && c->mark < 3))
			c->pair = refs[k].pair;
		if (c->mark < mark)
			c->mark = mark;
		if (p->ok && p->gbps > 0 && (c->gbps < 0 || p->gbps < c->gbps))
			c->gbps = p->gbps;
		if (p->ok && p->latency_us > 0 && p->latency_us > c->lat)
			c->lat = p->latency_us;
	}
	/* the rows' and the columns' first cells (counting sort for the columns) */
	for (size_t i = 0; i < m->ncells; i++) {
		m->row_start[m->cells[i].row + 1]++;
		m->col_start[m->cells[i].col + 1]++;
	}
	for (size_t i = 0; i < m->nh; i++) {
		m->row_start[i + 1] += m->row_start[i];
		m->col_start[i + 1] += m->col_start[i];
	}
	{
		size_t *fill = calloc(m->nh ? m->nh : 1, sizeof(*fill));

		if (!fill)
			goto out;
		for (size_t i = 0; i < m->ncells; i++) {
			size_t c = m->cells[i].col;

			m->by_col[m->col_start[c] + fill[c]++] = i;
		}
		free(fill);
	}
	ret = 0;
out:
	rd_strmap_free(&seen);
	rd_strmap_free(&at);
	free(refs);
	free(lat);
	free(bw);
	if (ret)
		rd_fleet_matrix_free(m);
	return ret;
}

void rd_fleet_matrix_free(struct rd_fleet_matrix *m)
{
	free(m->hosts);
	free(m->cells);
	free(m->row_start);
	free(m->col_start);
	free(m->by_col);
	memset(m, 0, sizeof(*m));
}

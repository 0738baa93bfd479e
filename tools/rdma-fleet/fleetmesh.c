// SPDX-License-Identifier: MIT
/*
 * The mesh part of rdma-fleet's summary: the pair matrix (row: the host that
 * tested, column: the host it tested; "." PASS, "X" FAIL, "?" not reported,
 * "-" itself; with rails a cell is every rail pair of the two hosts: X when
 * one failed), the rails that failed with every peer, and the slowest pairs
 * against the median of the mesh.
 */
#define _GNU_SOURCE
#include "fleetmesh.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define SLOWEST 3

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

/*
 * The matrix cells, row src, column dst (indexes into the sorted hosts): 0
 * none reported, else the worst of its pairs: 1 all passed, 2 one warned, 3
 * one failed.
 */
static unsigned char *cells_fill(const struct rd_fleet_pair *pv, size_t np, char **hosts, size_t nh)
{
	unsigned char *m = calloc(nh ? nh * nh : 1, 1);
	struct rd_strmap at = { 0 };

	if (!m)
		return NULL;
	for (size_t i = 0; i < nh; i++) {
		size_t v = i;

		if (rd_strmap_sget_or_add(&at, hosts[i], &v) < 0)
			goto oom;
	}
	for (size_t i = 0; i < np; i++) {
		size_t r, c;
		unsigned char mark = !pv[i].ok ? 3 : pv[i].warning ? 2 : 1;

		if (!rd_strmap_sget(&at, pv[i].src, &r) || !rd_strmap_sget(&at, pv[i].dst, &c))
			continue;
		if (m[r * nh + c] < mark)
			m[r * nh + c] = mark;
	}
	rd_strmap_free(&at);
	return m;
oom:
	rd_strmap_free(&at);
	free(m);
	return NULL;
}

/* One end of a rail pair: a host's port. */
struct rail_end {
	const char *host, *dev;
	unsigned int port;
	size_t pairs, failed;
};

static int rail_cmp(const void *a, const void *b)
{
	const struct rail_end *x = a, *y = b;
	int c = rd_natural_cmp(x->host, y->host);

	if (!c)
		c = rd_natural_cmp(x->dev, y->dev);
	return c ? c : (int)x->port - (int)y->port;
}

static int rail_count(struct rail_end *v, size_t *n, struct rd_strmap *seen,
		      struct rd_strmap_keybuf *kb, const char *host, const char *dev, unsigned int port,
		      bool ok)
{
	char pbuf[16];
	const char *parts[] = { host, dev, pbuf };
	size_t i = *n, len;
	int rc;

	(void)snprintf(pbuf, sizeof(pbuf), "%u", port);
	len = rd_strmap_key(kb, parts, RD_ARRAY_SIZE(parts));
	if (!len)
		return -ENOMEM;
	rc = rd_strmap_get_or_add(seen, kb->s, len, &i);
	if (rc < 0)
		return rc;
	if (rc == 0)
		v[(*n)++] = (struct rail_end){ .host = host, .dev = dev, .port = port };
	v[i].pairs++;
	v[i].failed += !ok;
	return 0;
}

/* Every rail end of the pairs (--devices), sorted; *nrails: distinct device/port names. */
static struct rail_end *rails_collect(const struct rd_fleet_pair *pv, size_t np, size_t *n,
				      size_t *nrails)
{
	struct rail_end *v = calloc(2 * np + 1, sizeof(*v));
	struct rd_strmap ends = { 0 }, names = { 0 };
	struct rd_strmap_keybuf kb = { 0 };
	int rc = 0;

	*n = *nrails = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; !rc && i < np; i++) {
		if (!pv[i].dst_dev || !pv[i].dev)
			continue;
		rc = rail_count(v, n, &ends, &kb, pv[i].src, pv[i].dev, pv[i].port, pv[i].ok);
		if (!rc)
			rc = rail_count(v, n, &ends, &kb, pv[i].dst, pv[i].dst_dev,
					pv[i].dst_port, pv[i].ok);
	}
	qsort(v, *n, sizeof(*v), rail_cmp);
	/* the distinct device/port names */
	for (size_t i = 0; !rc && i < *n; i++) {
		char pbuf[16];
		const char *parts[] = { v[i].dev, pbuf };
		size_t len, x = 0;

		(void)snprintf(pbuf, sizeof(pbuf), "%u", v[i].port);
		len = rd_strmap_key(&kb, parts, RD_ARRAY_SIZE(parts));
		rc = len ? rd_strmap_get_or_add(&names, kb.s, len, &x) : -ENOMEM;
		if (rc >= 0) {
			*nrails += rc == 0;
			rc = 0;
		}
	}
	rd_strmap_free(&ends);
	rd_strmap_free(&names);
	free(kb.s);
	if (rc) {
		free(v);
		return NULL;
	}
	return v;
}

/*
 * The rails (host, device, port) that failed in every pair they were in, with
 * two pairs or more: the end to look at, whatever the other ends were.  Text
 * lines and a JSON list "rails_failing".
 */
static void print_failing_rails(struct rd_out *o, const struct rail_end *v, size_t n)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += v[i].failed == v[i].pairs && v[i].pairs >= 2;
	if (!bad)
		return;
	rd_out_line(o, "rails that failed in every pair they were in:");
	rd_out_list_begin(o, "rails_failing");
	for (size_t i = 0; i < n; i++) {
		if (v[i].failed != v[i].pairs || v[i].pairs < 2)
			continue;
		rd_out_line(o, "  %s %s/%u: %zu of %zu pairs failed", v[i].host, v[i].dev, v[i].port,
			    v[i].failed, v[i].pairs);
		rd_out_section_begin(o, NULL, NULL);
		rd_out_str(o, RD_JSON, "host", NULL, v[i].host);
		rd_out_str(o, RD_JSON, "dev", NULL, v[i].dev);
		rd_out_u64(o, RD_JSON, "port", NULL, v[i].port);
		rd_out_u64(o, RD_JSON, "pairs", NULL, v[i].pairs);
		rd_out_u64(o, RD_JSON, "failed", NULL, v[i].failed);
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
}

/* What worst() sorts: a pair's figure, and its place for a stable order. */
struct ranked {
	double v;	/* latency, or minus the bandwidth: higher is worse */
	size_t i;
};

static int ranked_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/*
 * Indexes of the passed pairs with a figure, worst first: latency high, or
 * bandwidth low (equal figures in input order).  -1: out of memory.
 */
static ssize_t worst(const struct rd_fleet_pair *pv, size_t np, bool lat, size_t *idx)
{
	struct ranked *r = calloc(np ? np : 1, sizeof(*r));
	size_t n = 0;

	if (!r)
		return -1;
	for (size_t i = 0; i < np; i++)
		if (pv[i].ok && (lat ? pv[i].latency_us : pv[i].gbps) > 0)
			r[n++] = (struct ranked){ lat ? pv[i].latency_us : -pv[i].gbps, i };
	qsort(r, n, sizeof(*r), ranked_cmp);
	for (size_t i = 0; i < n; i++)
		idx[i] = r[i].i;
	free(r);
	return (ssize_t)n;
}

static void rtrim(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == ' ')
		s[--n] = '\0';
}

static const struct rd_col slow_cols[] = {
	{ "pair", "PAIR", false },
	{ "what", "FIGURE", false },
	{ "value", "VALUE", true },
	{ "median", "MEDIAN", true },
	{ "ratio", "VS MEDIAN", true },
};

int rd_fleet_print_mesh(struct rd_out *o, const struct rd_fleet *f)
{
	size_t np, nh = 0, nfail = 0, nwarn = 0, nlat = 0, nbw = 0, *idx = NULL, nrails = 0, nrv = 0;
	struct rail_end *rv = NULL;
	char rails[32] = "";
	const struct rd_fleet_pair *pv = rd_fleet_pairs(f, &np);
	double *lat = NULL, *bw = NULL, mlat = 0, mbw = 0;
	char **hosts = NULL;
	struct rd_strmap seen = { 0 };
	unsigned char *cells = NULL;
	int ret = -ENOMEM;

	if (!np)
		return 0;
	hosts = calloc(2 * np, sizeof(*hosts));
	lat = calloc(np, sizeof(*lat));
	bw = calloc(np, sizeof(*bw));
	idx = calloc(np, sizeof(*idx));
	if (!hosts || !lat || !bw || !idx)
		goto out;
	for (size_t i = 0; i < np; i++) {
		const char *ends[2] = { pv[i].src, pv[i].dst };

		for (size_t e = 0; e < 2; e++) {
			size_t j = nh;
			int rc = rd_strmap_sget_or_add(&seen, ends[e], &j);

			if (rc < 0)
				goto out;
			if (rc == 0)
				hosts[nh++] = (char *)ends[e];
		}
		nfail += !pv[i].ok;
		nwarn += pv[i].ok && pv[i].warning;
		if (pv[i].ok && pv[i].latency_us > 0)
			lat[nlat++] = pv[i].latency_us;
		if (pv[i].ok && pv[i].gbps > 0)
			bw[nbw++] = pv[i].gbps;
	}
	qsort(hosts, nh, sizeof(*hosts), name_cmp);
	cells = cells_fill(pv, np, hosts, nh);
	if (!cells)
		goto out;
	mlat = nlat ? median(lat, nlat) : 0;
	mbw = nbw ? median(bw, nbw) : 0;
	rv = rails_collect(pv, np, &nrv, &nrails);
	if (!rv)
		goto out;
	if (nrails)
		snprintf(rails, sizeof(rails), " on %zu rail%s", nrails, nrails == 1 ? "" : "s");

	if (nwarn)
		rd_out_line(o, "\nmesh: %zu pair%s of %zu host%s%s, %zu pass (%zu with a warning), %zu fail (row tested column: . pass, w pass with a warning, X fail, ? not reported)",
			    np, np == 1 ? "" : "s", nh, nh == 1 ? "" : "s", rails, np - nfail, nwarn, nfail);
	else
		rd_out_line(o, "\nmesh: %zu pair%s of %zu host%s%s, %zu pass, %zu fail (row tested column: . pass, X fail, ? not reported)",
			    np, np == 1 ? "" : "s", nh, nh == 1 ? "" : "s", rails, np - nfail, nfail);
	if (!rd_out_is_json(o)) {
		static const char *const marks[] = { "?", ".", "w", "X" };
		size_t w = 4;
		char line[4096];
		int at;

		for (size_t i = 0; i < nh; i++)
			w = strlen(hosts[i]) > w ? strlen(hosts[i]) : w;
		at = snprintf(line, sizeof(line), "%-*s", (int)w, "FROM");
		for (size_t j = 0; j < nh && at < (int)sizeof(line); j++)
			at += snprintf(line + at, sizeof(line) - (size_t)at, "  %-*s", (int)w, hosts[j]);
		rtrim(line);
		rd_out_line(o, "%s", line);
		for (size_t i = 0; i < nh; i++) {
			at = snprintf(line, sizeof(line), "%-*s", (int)w, hosts[i]);
			for (size_t j = 0; j < nh && at < (int)sizeof(line); j++) {
				const char *mark = i == j ? "-" : marks[cells[i * nh + j]];

				at += snprintf(line + at, sizeof(line) - (size_t)at, "  %-*s", (int)w, mark);
			}
			rtrim(line);
			rd_out_line(o, "%s", line);
		}
		for (size_t i = 0; i < np; i++) {
			char r[300];

			rd_fleet_pair_rails(&pv[i], r, sizeof(r));
			if (pv[i].ok && pv[i].warning)
				rd_out_line(o, "warning: %s -> %s%s: %s", pv[i].src, pv[i].dst, r,
					    pv[i].warning);
		}
	}
	print_failing_rails(o, rv, nrv);
	rd_out_u64(o, RD_JSON, "mesh_pairs", NULL, np);
	rd_out_u64(o, RD_JSON, "mesh_pairs_failed", NULL, nfail);
	rd_out_u64(o, RD_JSON, "mesh_pairs_warned", NULL, nwarn);
	if (nlat)
		rd_out_double(o, RD_JSON, "mesh_median_latency_us", NULL, mlat, NULL);
	if (nbw)
		rd_out_double(o, RD_JSON, "mesh_median_gbps", NULL, mbw, NULL);
	rd_out_list_begin(o, "pairs");
	for (size_t i = 0; i < np; i++) {
		rd_out_section_begin(o, NULL, NULL);
		rd_out_str(o, RD_JSON, "src", NULL, pv[i].src);
		rd_out_str(o, RD_JSON, "dst", NULL, pv[i].dst);
		if (pv[i].dev) {
			rd_out_str(o, RD_JSON, "dev", NULL, pv[i].dev);
			rd_out_u64(o, RD_JSON, "port", NULL, pv[i].port);
		}
		if (pv[i].dst_dev) {
			rd_out_str(o, RD_JSON, "dst_dev", NULL, pv[i].dst_dev);
			rd_out_u64(o, RD_JSON, "dst_port", NULL, pv[i].dst_port);
		}
		rd_out_str(o, RD_JSON, "result", NULL, pv[i].ok ? "pass" : "fail");
		if (!pv[i].ok) {
			rd_out_str(o, RD_JSON, "failed_stage", NULL, pv[i].stage);
			rd_out_str(o, RD_JSON, "diagnosis", NULL, pv[i].diagnosis);
		}
		if (pv[i].warning)
			rd_out_str(o, RD_JSON, "warning", NULL, pv[i].warning);
		if (pv[i].latency_us > 0)
			rd_out_double(o, RD_JSON, "latency_us", NULL, pv[i].latency_us, NULL);
		if (pv[i].gbps > 0)
			rd_out_double(o, RD_JSON, "gbps", NULL, pv[i].gbps, NULL);
		rd_out_section_end(o);
	}
	rd_out_list_end(o);

	/* the slowest pairs: highest latency and lowest bandwidth against the median */
	{
		if (nlat || nbw)
			rd_out_line(o, "%s", "");
		rd_out_table_begin(o, "slowest", slow_cols, RD_ARRAY_SIZE(slow_cols), nlat || nbw);
		for (int kind = 0; kind < 2; kind++) {
			bool is_lat = kind == 0;

			ssize_t sw = worst(pv, np, is_lat, idx);
			size_t nw;

			if (sw < 0)
				goto out;
			nw = (size_t)sw;

			for (size_t k = 0; k < nw && k < SLOWEST; k++) {
				const struct rd_fleet_pair *p = &pv[idx[k]];
				double v = is_lat ? p->latency_us : p->gbps, m = is_lat ? mlat : mbw;
				char pair[480], r[300], val[32], med[32], ratio[32];

				rd_fleet_pair_rails(p, r, sizeof(r));
				(void)snprintf(pair, sizeof(pair), "%s -> %s%s", p->src, p->dst, r);
				(void)snprintf(val, sizeof(val), is_lat ? "%.1f us" : "%.3f Gb/s", v);
				(void)snprintf(med, sizeof(med), is_lat ? "%.1f us" : "%.3f Gb/s", m);
				(void)snprintf(ratio, sizeof(ratio), "%.2fx", m > 0 ? v / m : 0);
				rd_out_row_begin(o);
				rd_out_str(o, RD_ANY, "pair", NULL, pair);
				rd_out_str(o, RD_ANY, "what", NULL, is_lat ? "latency" : "bandwidth");
				rd_out_str(o, RD_TEXT, "value", NULL, val);
				rd_out_double(o, RD_JSON, "value", NULL, v, NULL);
				rd_out_str(o, RD_TEXT, "median", NULL, med);
				rd_out_double(o, RD_JSON, "median", NULL, m, NULL);
				rd_out_str(o, RD_TEXT, "ratio", NULL, ratio);
				rd_out_double(o, RD_JSON, "ratio", NULL, m > 0 ? round(v / m * 100) / 100 : 0, NULL);
				rd_out_row_end(o);
			}
		}
		rd_out_table_end(o);
	}
	ret = 0;
out:
	rd_strmap_free(&seen);
	free(cells);
	free(rv);
	free(hosts);
	free(lat);
	free(bw);
	free(idx);
	return ret;
}

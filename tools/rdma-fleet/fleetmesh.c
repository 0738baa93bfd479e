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

/* The matrix cell of src -> dst: "?" none reported, "X" one failed, "w" one warned, "." all passed. */
static const char *cell(const struct rd_fleet_pair *pv, size_t np, const char *src, const char *dst)
{
	const char *mark = "?";

	for (size_t i = 0; i < np; i++) {
		if (strcmp(pv[i].src, src) != 0 || strcmp(pv[i].dst, dst) != 0)
			continue;
		if (!pv[i].ok)
			return "X";
		if (pv[i].warning)
			mark = "w";
		else if (strcmp(mark, "?") == 0)
			mark = ".";
	}
	return mark;
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

static void rail_count(struct rail_end *v, size_t *n, const char *host, const char *dev,
		       unsigned int port, bool ok)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (strcmp(v[i].host, host) == 0 && strcmp(v[i].dev, dev) == 0 && v[i].port == port)
			break;
	if (i == *n)
		v[(*n)++] = (struct rail_end){ .host = host, .dev = dev, .port = port };
	v[i].pairs++;
	v[i].failed += !ok;
}

/* Every rail end of the pairs (--devices), sorted; *nrails: distinct device/port names. */
static struct rail_end *rails_collect(const struct rd_fleet_pair *pv, size_t np, size_t *n,
				      size_t *nrails)
{
	struct rail_end *v = calloc(2 * np + 1, sizeof(*v));

	*n = *nrails = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < np; i++) {
		if (!pv[i].dst_dev || !pv[i].dev)
			continue;
		rail_count(v, n, pv[i].src, pv[i].dev, pv[i].port, pv[i].ok);
		rail_count(v, n, pv[i].dst, pv[i].dst_dev, pv[i].dst_port, pv[i].ok);
	}
	qsort(v, *n, sizeof(*v), rail_cmp);
	for (size_t i = 0; i < *n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = strcmp(v[j].dev, v[i].dev) == 0 && v[j].port == v[i].port;
		*nrails += !seen;
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

/* Indexes of the passed pairs with a figure, worst first: latency high, or bandwidth low. */
static size_t worst(const struct rd_fleet_pair *pv, size_t np, bool lat, size_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < np; i++)
		if (pv[i].ok && (lat ? pv[i].latency_us : pv[i].gbps) > 0)
			idx[n++] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0; j--) {
			const struct rd_fleet_pair *a = &pv[idx[j - 1]], *b = &pv[idx[j]];
			bool swap = lat ? b->latency_us > a->latency_us : b->gbps < a->gbps;
			size_t t;

			if (!swap)
				break;
			t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	return n;
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
			size_t j = 0;

			while (j < nh && strcmp(hosts[j], ends[e]) != 0)
				j++;
			if (j == nh)
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
				const char *mark = i == j ? "-" : cell(pv, np, hosts[i], hosts[j]);

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

			size_t nw = worst(pv, np, is_lat, idx);

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
	free(rv);
	free(hosts);
	free(lat);
	free(bw);
	free(idx);
	return ret;
}

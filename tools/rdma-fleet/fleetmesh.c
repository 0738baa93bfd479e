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
#define WIDE_WARNINGS 10	/* warning lines under the per-host lines of a wide mesh */

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

const struct rd_col rd_fleet_slow_cols[RD_FLEET_SLOW_NCOLS] = {
	{ "pair", "PAIR", false, false },
	{ "what", "FIGURE", false, false },
	{ "value", "VALUE", true, false },
	{ "median", "MEDIAN", true, false },
	{ "ratio", "VS MEDIAN", true, false },
};

/* The full matrix, one column a host ("." pass, "w" warned, "X" failed, "?" not reported). */
static void print_matrix(struct rd_out *o, const struct rd_fleet_matrix *m, size_t w)
{
	static const char *const marks[] = { "?", ".", "w", "X" };
	size_t len = w + m->nh * (w + 2) + 1;
	char *line = malloc(len);
	size_t at;

	if (!line)
		return;
	at = (size_t)snprintf(line, len, "%-*s", (int)w, "FROM");
	for (size_t j = 0; j < m->nh; j++)
		at += (size_t)snprintf(line + at, len - at, "  %-*s", (int)w, m->hosts[j]);
	rtrim(line);
	rd_out_line(o, "%s", line);
	for (size_t i = 0; i < m->nh; i++) {
		size_t k = m->row_start[i];

		at = (size_t)snprintf(line, len, "%-*s", (int)w, m->hosts[i]);
		for (size_t j = 0; j < m->nh; j++) {
			unsigned char mark = 0;

			if (k < m->row_start[i + 1] && m->cells[k].col == j)
				mark = m->cells[k++].mark;
			at += (size_t)snprintf(line + at, len - at, "  %-*s", (int)w,
					       i == j ? "-" : marks[mark]);
		}
		rtrim(line);
		rd_out_line(o, "%s", line);
	}
	free(line);
}

/* Pass, but far from the mesh's median: twice its latency, or half its bandwidth. */
static const char *slow_what(const struct rd_fleet_matrix *m, const struct rd_fleet_cell *c)
{
	if (c->mark == 0 || c->mark == 3)
		return NULL;
	if (m->mlat > 0 && c->lat > 0 && c->lat >= 2 * m->mlat)
		return "latency";
	if (m->mbw > 0 && c->gbps > 0 && c->gbps <= m->mbw / 2)
		return "bandwidth";
	return NULL;
}

/* Peers of one kind ("failed to", "failed from", "slow to"), by their reason. */
struct peer_group {
	const char *why;
	struct rd_strlist peers;	/* borrowed names */
};

RD_GCC_LEAK_FP_BEGIN	/* *g and its lists grow in place, freed by row_text() */
static int peer_add(struct peer_group **g, size_t *n, const char *why, const char *peer)
{
	struct peer_group *v;
	size_t i;

	for (i = 0; i < *n && strcmp((*g)[i].why, why) != 0; i++)
		;
	if (i == *n) {
		v = realloc(*g, (*n + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		*g = v;
		memset(&v[i], 0, sizeof(v[i]));
		v[i].why = why;
		(*n)++;
	}
	if ((*g)[i].peers.n == (*g)[i].peers.cap) {
		size_t cap = (*g)[i].peers.cap ? (*g)[i].peers.cap * 2 : 8;
		char **pv = realloc((*g)[i].peers.v, cap * sizeof(*pv));

		if (!pv)
			return -ENOMEM;
		(*g)[i].peers.v = pv;
		(*g)[i].peers.cap = cap;
	}
	(*g)[i].peers.v[(*g)[i].peers.n++] = (char *)peer;
	return 0;
}
RD_GCC_LEAK_FP_END

/* "; failed to node[1-3] (connect), node9 (rts)" onto *text; the groups emptied. */
static int peer_text(char **text, const char *what, struct peer_group *g, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		char *hl = rc ? NULL : rd_hostlist_compress(&g[i].peers), *t = NULL;

		free(g[i].peers.v);
		g[i].peers.v = NULL;
		if (!hl || asprintf(&t, "%s%s%s%s (%s)", *text ? *text : "",
				    i ? ", " : *text ? "; " : "", i ? "" : what, hl, g[i].why) < 0) {
			free(hl);
			rc = -ENOMEM;
			continue;
		}
		free(hl);
		free(*text);
		*text = t;
	}
	return rc;
}

/* What one host's row says in the wide form; NULL (and *text NULL) when nothing. */
static int row_text(const struct rd_fleet_matrix *m, size_t i, char **text)
{
	struct peer_group *to = NULL, *from = NULL, *slow = NULL;
	size_t nto = 0, nfrom = 0, nslow = 0;
	int rc = 0;

	*text = NULL;
	for (size_t k = m->row_start[i]; !rc && k < m->row_start[i + 1]; k++) {
		const struct rd_fleet_cell *out = &m->cells[k];
		const char *sw = slow_what(m, out);

		if (out->mark == 3)
			rc = peer_add(&to, &nto, m->pv[out->pair].stage, m->hosts[out->col]);
		if (!rc && sw)
			rc = peer_add(&slow, &nslow, sw, m->hosts[out->col]);
	}
	for (size_t k = m->col_start[i]; !rc && k < m->col_start[i + 1]; k++) {
		const struct rd_fleet_cell *in = &m->cells[m->by_col[k]];

		if (in->mark == 3)
			rc = peer_add(&from, &nfrom, m->pv[in->pair].stage, m->hosts[in->row]);
	}
	if (!rc)
		rc = peer_text(text, "failed to ", to, nto);
	if (!rc)
		rc = peer_text(text, "failed from ", from, nfrom);
	if (!rc)
		rc = peer_text(text, "slow to ", slow, nslow);
	for (size_t k = 0; k < nto; k++)
		free(to[k].peers.v);
	for (size_t k = 0; k < nfrom; k++)
		free(from[k].peers.v);
	for (size_t k = 0; k < nslow; k++)
		free(slow[k].peers.v);
	free(to);
	free(from);
	free(slow);
	if (rc) {
		free(*text);
		*text = NULL;
	}
	return rc;
}

/*
 * Too wide for a matrix: per host, the peers it failed to test or be tested
 * by, by stage, and the peers it reached slowly; hosts whose lines read the
 * same are one line ("node[0001-0016,0018-1000]: failed to node0017
 * (connect)"), and the hosts with nothing to say are counted.
 */
static int print_wide(struct rd_out *o, const struct rd_fleet_matrix *m)
{
	char **texts = calloc(m->nh ? m->nh : 1, sizeof(*texts));
	size_t *group = calloc(m->nh ? m->nh : 1, sizeof(*group)), ng = 0, quiet = 0;
	struct rd_strlist *members = NULL;
	struct rd_strmap map = { 0 };
	int rc = texts && group ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < m->nh; i++) {
		rc = row_text(m, i, &texts[i]);
		if (rc || !texts[i]) {
			quiet += !rc;
			continue;
		}
		group[i] = ng;
		rc = rd_strmap_sget_or_add(&map, texts[i], &group[i]);
		if (rc > 0)
			rc = 0;
		else if (rc == 0)
			ng++;
	}
	members = rc ? NULL : calloc(ng ? ng : 1, sizeof(*members));
	if (!rc && !members)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < m->nh; i++) {
		struct rd_strlist *l = &members[group[i]];

		if (!texts[i])
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 4;
			char **v = realloc(l->v, cap * sizeof(*v));

			if (!v) {
				rc = -ENOMEM;
				break;
			}
			l->v = v;
			l->cap = cap;
		}
		l->v[l->n++] = m->hosts[i];
	}
	/* the groups in the order of their first host */
	for (size_t i = 0, next = 0; !rc && i < m->nh; i++) {
		char *hl;

		if (!texts[i] || group[i] != next)
			continue;
		next++;
		hl = rd_hostlist_compress(&members[group[i]]);
		if (!hl) {
			rc = -ENOMEM;
			break;
		}
		rd_out_line(o, "%s: %s", hl, texts[i]);
		free(hl);
	}
	if (!rc && quiet)
		rd_out_line(o, "%zu other host%s: every pair %s in passed at the usual speed", quiet,
			    quiet == 1 ? "" : "s", quiet == 1 ? "it was" : "they were");
	for (size_t i = 0; members && i < ng; i++)
		free(members[i].v);
	free(members);
	for (size_t i = 0; texts && i < m->nh; i++)
		free(texts[i]);
	free(texts);
	free(group);
	rd_strmap_free(&map);
	return rc;
}

int rd_fleet_print_mesh(struct rd_out *o, const struct rd_fleet *f, unsigned int width)
{
	size_t np, nh, nfail, nwarn, nlat = 0, nbw = 0, *idx = NULL, nrails = 0, nrv = 0;
	struct rail_end *rv = NULL;
	char rails[32] = "";
	const struct rd_fleet_pair *pv;
	double mlat, mbw;
	struct rd_fleet_matrix mx;
	int ret = -ENOMEM;

	if (rd_fleet_matrix_build(f, &mx))
		return -ENOMEM;
	if (!mx.np)
		return 0;
	pv = mx.pv;
	np = mx.np;
	nh = mx.nh;
	nfail = mx.nfail;
	nwarn = mx.nwarn;
	mlat = mx.mlat;
	mbw = mx.mbw;
	for (size_t i = 0; i < np; i++) {
		nlat += pv[i].ok && pv[i].latency_us > 0;
		nbw += pv[i].ok && pv[i].gbps > 0;
	}
	idx = calloc(np, sizeof(*idx));
	if (!idx)
		goto out;
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
		bool wide;

		for (size_t i = 0; i < nh; i++)
			w = strlen(mx.hosts[i]) > w ? strlen(mx.hosts[i]) : w;
		wide = w + nh * (w + 2) > width;
		if (!wide) {
			print_matrix(o, &mx, w);
		} else {
			rd_out_line(o, "(%zu hosts make a matrix %zu columns wide, more than %u: each host's "
				    "failed and slow pairs instead; rdma-fleet --svg draws the whole matrix)",
				    nh, w + nh * (w + 2), width);
			if (print_wide(o, &mx))
				goto out;
		}
		/* every warning beside a matrix; past one, the first WIDE_WARNINGS */
		for (size_t i = 0, shown = 0; i < np; i++) {
			char r[300];

			if (!pv[i].ok || !pv[i].warning)
				continue;
			if (wide && shown == WIDE_WARNINGS) {
				rd_out_line(o, "(and %zu more pairs with a warning: rdma-fleet -j lists "
					    "them all)", nwarn - shown);
				break;
			}
			rd_fleet_pair_rails(&pv[i], r, sizeof(r));
			rd_out_line(o, "warning: %s -> %s%s: %s", pv[i].src, pv[i].dst, r, pv[i].warning);
			shown++;
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
		rd_out_table_begin(o, "slowest", rd_fleet_slow_cols, RD_FLEET_SLOW_NCOLS, nlat || nbw);
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
	rd_fleet_matrix_free(&mx);
	free(rv);
	free(idx);
	return ret;
}

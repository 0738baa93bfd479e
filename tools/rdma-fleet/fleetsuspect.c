// SPDX-License-Identifier: MIT
/*
 * rdma-fleet --fabric: reading the fabric document, and the suspects'
 * section of the summary (a table of the links that explain the bad pairs,
 * then each suspect's evidence in words).
 */
#define _GNU_SOURCE
#include "fleetsuspect.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define EXAMPLES 3		/* pairs named in a suspect's evidence line */

int rd_fleet_fabric_load(const char *path, const struct rd_infile_limits *lim,
			 struct rd_tomo_fabric **fab, char *why, size_t why_len)
{
	struct rd_infile in;
	const char *data;
	size_t len;
	int rc = rd_infile_open(&in, path, lim, why, why_len);

	*fab = NULL;
	if (rc)
		return rc;
	rc = rd_infile_all(&in, &data, &len, why, why_len);
	if (!rc)
		rc = rd_tomo_fabric_parse(data, len, fab, why, why_len);
	rd_infile_close(&in);
	return rc;
}

#define MAX_SUSPECTS 10

int rd_fleet_tomo_run(const struct rd_fleet *f, struct rd_fleet_tomo *t)
{
	struct rd_fleet_matrix m;
	int rc;

	if (rd_fleet_matrix_build(f, &m))
		return -ENOMEM;
	rc = m.np ? rd_tomo_run(t->fab, m.pv, m.np, m.mlat, m.mbw, MAX_SUSPECTS, &t->res) : -ENOENT;
	rd_fleet_matrix_free(&m);
	return rc;
}

void rd_fleet_tomo_free(struct rd_fleet_tomo *t)
{
	rd_tomo_result_free(&t->res);
	rd_tomo_fabric_free(t->fab);
	t->fab = NULL;
}

int rd_fleet_tomo_marks(const struct rd_fleet_tomo *t, struct rd_fleet_svg_mark **marks, size_t *n)
{
	const struct rd_tomo_result *r = &t->res;
	struct rd_fleet_svg_mark *v = calloc(r->nsus ? r->nsus : 1, sizeof(*v));

	*marks = NULL;
	*n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < r->nsus; k++) {
		const struct rd_tomo_suspect *s = &r->sus[k];
		char link[600];

		rd_tomo_link_text(t->fab, s->link, link, sizeof(link));
		v[k].pairs = malloc((s->bad ? s->bad : 1) * sizeof(*v[k].pairs));
		if (!v[k].pairs || asprintf(&v[k].label, "%s: %zu bad pair%s", link, s->bad,
					    s->bad == 1 ? "" : "s") < 0) {
			v[k].label = NULL;
			rd_fleet_svg_marks_free(v, k + 1);
			return -ENOMEM;
		}
		for (size_t j = 0; j < s->bad; j++)
			v[k].pairs[j] = r->obs_pair[s->obs[j]];
		v[k].n = s->bad;
	}
	*marks = v;
	*n = r->nsus;
	return 0;
}

void rd_fleet_svg_marks_free(struct rd_fleet_svg_mark *marks, size_t n)
{
	for (size_t k = 0; marks && k < n; k++) {
		free(marks[k].label);
		free(marks[k].pairs);
	}
	free(marks);
}

const struct rd_col rd_fleet_suspect_cols[RD_FLEET_SUSPECT_NCOLS] = {
	{ "rank", "RANK", true, false },
	{ "link", "LINK", false, true },
	{ "bad_through", "BAD THROUGH IT", true, false },
	{ "bad_elsewhere", "BAD ELSEWHERE", true, false },
	{ "explains", "EXPLAINS", true, false },
};

/* "1,188" */
static const char *count(char *buf, size_t len, size_t n)
{
	char raw[32];
	size_t l, o = 0;

	l = (size_t)snprintf(raw, sizeof(raw), "%zu", n);
	for (size_t i = 0; i < l && o + 2 < len; i++) {
		if (i && (l - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
	return buf;
}

static void end_json(struct rd_out *o, const char *pre, const struct rd_tomo_end *e)
{
	char k[32], g[24];

	(void)snprintf(g, sizeof(g), "0x%016" PRIx64, e->guid);
	(void)snprintf(k, sizeof(k), "%snode", pre);
	rd_out_str(o, RD_JSON, k, NULL, e->node);
	(void)snprintf(k, sizeof(k), "%sguid", pre);
	rd_out_str(o, RD_JSON, k, NULL, g);
	(void)snprintf(k, sizeof(k), "%sport", pre);
	rd_out_u64(o, RD_JSON, k, NULL, e->port);
}

/* The bad pairs a suspect explains, as JSON objects {src, dst[, dev, port, dst_dev, dst_port], result}. */
static void pairs_json(struct rd_out *o, const struct rd_tomo_result *r, const struct rd_tomo_suspect *s,
		       const struct rd_fleet_pair *pv)
{
	rd_out_list_begin(o, "pairs");
	for (size_t k = 0; k < s->bad; k++) {
		const struct rd_fleet_pair *p = &pv[r->obs_pair[s->obs[k]]];

		rd_out_section_begin(o, NULL, NULL);
		rd_out_str(o, RD_JSON, "src", NULL, p->src);
		rd_out_str(o, RD_JSON, "dst", NULL, p->dst);
		if (p->dev) {
			rd_out_str(o, RD_JSON, "dev", NULL, p->dev);
			rd_out_u64(o, RD_JSON, "port", NULL, p->port);
		}
		if (p->dst_dev) {
			rd_out_str(o, RD_JSON, "dst_dev", NULL, p->dst_dev);
			rd_out_u64(o, RD_JSON, "dst_port", NULL, p->dst_port);
		}
		rd_out_str(o, RD_JSON, "result", NULL, r->obs_failed[s->obs[k]] ? "fail" : "slow");
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
}

/* One suspect's evidence in words, under the table. */
static void evidence(struct rd_out *o, const struct rd_tomo_fabric *fab, const struct rd_tomo_result *r,
		     size_t i, const struct rd_fleet_pair *pv)
{
	const struct rd_tomo_suspect *s = &r->sus[i];
	struct rd_tomo_end a = { 0 }, b = { 0 };
	char link[600], n1[32], n2[32], n3[32], n4[32], ex[1200] = "", what[96];
	size_t nf = 0, at = 0;

	rd_tomo_link_text(fab, s->link, link, sizeof(link));
	for (size_t k = 0; k < s->bad; k++)
		nf += r->obs_failed[s->obs[k]];
	if (nf == s->bad)
		(void)snprintf(what, sizeof(what), "failed");
	else if (!nf)
		(void)snprintf(what, sizeof(what), "were slow");
	else
		(void)snprintf(what, sizeof(what), "failed or were slow (%zu failed, %zu slow)", nf, s->bad - nf);
	for (size_t k = 0; k < s->bad && k < EXAMPLES; k++) {
		const struct rd_fleet_pair *p = &pv[r->obs_pair[s->obs[k]]];
		char rails[300];

		rd_fleet_pair_rails(p, rails, sizeof(rails));
		at += (size_t)snprintf(ex + at, at < sizeof(ex) ? sizeof(ex) - at : 0, "%s%s -> %s%s",
				       k ? ", " : "", p->src, p->dst, rails);
		if (at >= sizeof(ex))
			break;
	}
	rd_out_line(o, "suspect %zu: %s: %s of %s pairs through it %s, %s of %s others", i + 1, link,
		    count(n1, sizeof(n1), s->bad), count(n2, sizeof(n2), s->through), what,
		    count(n3, sizeof(n3), s->bad_others), count(n4, sizeof(n4), s->others));
	rd_out_line(o, "  it explains %s of the %s bad pairs: %s%s", count(n1, sizeof(n1), s->bad),
		    count(n2, sizeof(n2), r->failed + r->slow), ex, s->bad > EXAMPLES ? ", ..." : "");
	for (size_t k = 0; k < s->nsame; k++) {
		rd_tomo_link_text(fab, s->same[k], link, sizeof(link));
		rd_out_line(o, "  the same pairs cross %s: the mesh cannot tell the two apart", link);
	}
	rd_tomo_link_ends(fab, s->link, &a, &b);
	if (b.ca)
		rd_out_line(o, "  a CA's own cable: %s itself (HCA, driver, host) would fail the same pairs",
			    b.node);
}

static void suspect_row(struct rd_out *o, const struct rd_tomo_fabric *fab, const struct rd_tomo_result *r,
			size_t i, const struct rd_fleet_pair *pv)
{
	const struct rd_tomo_suspect *s = &r->sus[i];
	struct rd_tomo_end a = { 0 }, b = { 0 };
	char link[600], t1[80], t2[80], t3[80], n1[32], n2[32];
	size_t nf = 0;

	rd_tomo_link_text(fab, s->link, link, sizeof(link));
	rd_tomo_link_ends(fab, s->link, &a, &b);
	for (size_t k = 0; k < s->bad; k++)
		nf += r->obs_failed[s->obs[k]];
	(void)snprintf(t1, sizeof(t1), "%s of %s", count(n1, sizeof(n1), s->bad), count(n2, sizeof(n2), s->through));
	(void)snprintf(t2, sizeof(t2), "%s of %s", count(n1, sizeof(n1), s->bad_others),
		       count(n2, sizeof(n2), s->others));
	(void)snprintf(t3, sizeof(t3), "%s of %s", count(n1, sizeof(n1), s->bad),
		       count(n2, sizeof(n2), r->failed + r->slow));
	rd_out_row_begin(o);
	rd_out_u64(o, RD_ANY, "rank", NULL, i + 1);
	rd_out_str(o, RD_ANY, "link", NULL, link);
	end_json(o, "", &a);
	rd_out_str(o, RD_JSON, "peer", NULL, b.node);
	{
		char g[24];

		(void)snprintf(g, sizeof(g), "0x%016" PRIx64, b.guid);
		rd_out_str(o, RD_JSON, "peer_guid", NULL, g);
	}
	rd_out_u64(o, RD_JSON, "peer_port", NULL, b.port);
	rd_out_str(o, RD_TEXT, "bad_through", NULL, t1);
	rd_out_str(o, RD_TEXT, "bad_elsewhere", NULL, t2);
	rd_out_str(o, RD_TEXT, "explains", NULL, t3);
	rd_out_u64(o, RD_JSON, "pairs_through", NULL, s->through);
	rd_out_u64(o, RD_JSON, "bad_through", NULL, s->bad);
	rd_out_u64(o, RD_JSON, "failed_through", NULL, nf);
	rd_out_u64(o, RD_JSON, "slow_through", NULL, s->bad - nf);
	rd_out_u64(o, RD_JSON, "pairs_elsewhere", NULL, s->others);
	rd_out_u64(o, RD_JSON, "bad_elsewhere", NULL, s->bad_others);
	rd_out_double(o, RD_JSON, "score", NULL, round(s->score * 10000) / 10000, NULL);
	rd_out_double(o, RD_JSON, "log10_p", NULL, round(s->log10_p * 100) / 100, NULL);
	if (rd_out_is_json(o)) {
		struct rd_strlist same = { 0 };

		for (size_t k = 0; k < s->nsame; k++) {
			rd_tomo_link_text(fab, s->same[k], link, sizeof(link));
			if (rd_strlist_add(&same, link))
				break;
		}
		rd_out_strlist(o, RD_JSON, "same_pairs_links", NULL, &same, ", ");
		rd_strlist_free(&same);
		pairs_json(o, r, s, pv);
	}
	rd_out_row_end(o);
}

int rd_fleet_print_suspects(struct rd_out *o, const char *path, const struct rd_tomo_fabric *fab,
			    const struct rd_tomo_result *r, const struct rd_fleet_pair *pv)
{
	size_t cas, sws, links, nbad = r->failed + r->slow;
	char n1[32], n2[32], n3[32];

	rd_tomo_fabric_size(fab, &cas, &sws, &links);
	rd_out_line(o, "%s", "");
	rd_out_section_begin(o, "tomography", NULL);
	rd_out_line(o, "links that explain the bad pairs (fabric %s: %s CAs, %zu switches, %s links):", path,
		    count(n1, sizeof(n1), cas), sws, count(n2, sizeof(n2), links));
	rd_out_str(o, RD_JSON, "fabric", NULL, path);
	rd_out_u64(o, RD_JSON, "cas", NULL, cas);
	rd_out_u64(o, RD_JSON, "switches", NULL, sws);
	rd_out_u64(o, RD_JSON, "links", NULL, links);
	rd_out_u64(o, RD_JSON, "pairs", NULL, r->pairs);
	rd_out_u64(o, RD_JSON, "pairs_routed", NULL, r->routed);
	rd_out_u64(o, RD_JSON, "pairs_unmapped", NULL, r->unmapped);
	rd_out_u64(o, RD_JSON, "pairs_unroutable", NULL, r->unroutable);
	rd_out_u64(o, RD_JSON, "pairs_failed", NULL, r->failed);
	rd_out_u64(o, RD_JSON, "pairs_slow", NULL, r->slow);
	rd_out_strlist(o, RD_JSON, "hosts_unmapped", NULL, &r->unmapped_hosts, " ");
	rd_out_line(o, "%s of %s mesh pairs placed on the fabric and routed both ways: %zu failed, %zu slow",
		    count(n1, sizeof(n1), r->routed), count(n2, sizeof(n2), r->pairs), r->failed, r->slow);
	if (r->unmapped) {
		char *hl = r->unmapped_hosts.n ? rd_hostlist_compress(&r->unmapped_hosts) : NULL;

		rd_out_line(o, "%s pair%s not placed on the fabric%s%s; the first: %s",
			    count(n1, sizeof(n1), r->unmapped), r->unmapped == 1 ? "" : "s",
			    hl ? ": hosts without a CA there: " : "", hl ? hl : "", r->unmapped_why);
		free(hl);
		if (r->unmapped_why)
			rd_out_str(o, RD_JSON, "unmapped_first", NULL, r->unmapped_why);
	}
	if (r->unroutable) {
		rd_out_line(o, "%s pair%s whose route breaks in the forwarding tables (%zu of them bad: "
			    "rdma-fabric --only route names the holes); the first: %s",
			    count(n1, sizeof(n1), r->unroutable), r->unroutable == 1 ? "" : "s",
			    r->unroutable_bad, r->unroutable_why);
		rd_out_str(o, RD_JSON, "unroutable_first", NULL, r->unroutable_why);
		rd_out_u64(o, RD_JSON, "pairs_unroutable_bad", NULL, r->unroutable_bad);
	}
	if (!nbad && r->unroutable_bad)
		rd_out_line(o, "no failed or slow pair on a whole route: the bad pairs are those whose route "
			    "breaks");
	else if (!nbad)
		rd_out_line(o, "no failed or slow pair to explain");
	else if (!r->nsus)
		rd_out_line(o, "no link explains the bad pairs: the %s failed or slow pairs are spread over the "
			    "fabric (no link has at least 2 of them, half of its pairs bad, and more than chance "
			    "gives)", count(n3, sizeof(n3), nbad));
	rd_out_bool(o, RD_JSON, "explained", NULL, r->nsus > 0);
	rd_out_table_begin(o, "suspects", rd_fleet_suspect_cols, RD_FLEET_SUSPECT_NCOLS, r->nsus > 0);
	for (size_t i = 0; i < r->nsus; i++)
		suspect_row(o, fab, r, i, pv);
	rd_out_table_end(o);
	for (size_t i = 0; i < r->nsus; i++)
		evidence(o, fab, r, i, pv);
	rd_out_section_end(o);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * rdma-fleet --svg past a few hundred hosts: the mesh as a matrix of host
 * groups (a leaf switch's hosts from --fabric, hosts whose names match a
 * pattern alike, or blocks of hosts in natural order), each cell every pair
 * from one group to another.  A cell with a failed pair is red whatever the
 * share (darker as it grows) and outlined, so one failure among thousands
 * of pairs stays a mark the eye finds; its tooltip names the first failed
 * pairs.  Groups that tested nothing of each other are left white: a sparse
 * plan shows what it scheduled, not a sea of "not reported".
 *
 * Classes as in fleetsvg.c, so a test reads the picture back: "g-bw0".."g-bw4",
 * "g-nobw", "g-warn", "g-fail1".."g-fail3", and each cell's counts in
 * data-pairs, data-failed.
 */
#define _GNU_SOURCE
#include "fleetmesh.h"

#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "output/output.h"

#define TIP_PAIRS 5		/* failed pairs a cell's tooltip names */

enum gcls { G_BW0, G_BW1, G_BW2, G_BW3, G_BW4, G_NOBW, G_WARN, G_FAIL1, G_FAIL2, G_FAIL3, G_COUNT };

static const struct {
	const char *name, *fill, *label;
} gclasses[G_COUNT] = {
	[G_BW0] = { "g-bw0", "#1a9850", "all pass, lowest bandwidth >= 90% of the median" },
	[G_BW1] = { "g-bw1", "#91cf60", "all pass, lowest 75-90% of the median" },
	[G_BW2] = { "g-bw2", "#d9ef8b", "all pass, lowest 50-75% of the median" },
	[G_BW3] = { "g-bw3", "#fee08b", "all pass, lowest 25-50% of the median" },
	[G_BW4] = { "g-bw4", "#fc8d59", "all pass, lowest below 25% of the median" },
	[G_NOBW] = { "g-nobw", "#74add1", "all pass, no bandwidth figure" },
	[G_WARN] = { "g-warn", "#984ea3", "all pass, one with a warning" },
	[G_FAIL1] = { "g-fail1", "#ef3b2c", "failed: under 10% of the pairs" },
	[G_FAIL2] = { "g-fail2", "#b2182b", "failed: 10-50% of the pairs" },
	[G_FAIL3] = { "g-fail3", "#67000d", "failed: half of the pairs or more" },
};

struct gcell {
	size_t pairs, failed, warned;
	double gbps;		/* the lowest of the passed pairs; < 0 none */
	size_t tip[TIP_PAIRS];	/* failed pairs, the first ones */
};

void rd_fleet_groups_free(struct rd_fleet_groups *g)
{
	for (size_t i = 0; g->names && i < g->n; i++)
		free(g->names[i]);
	free(g->names);
	free(g->of);
	free(g->size);
	memset(g, 0, sizeof(*g));
}

/* Group names from their members: each group's hosts as one host list. */
static int name_groups(const struct rd_fleet_matrix *m, struct rd_fleet_groups *g, char **labels)
{
	struct rd_strlist *members = calloc(g->n ? g->n : 1, sizeof(*members));
	int rc = members ? 0 : -ENOMEM;

	g->names = calloc(g->n ? g->n : 1, sizeof(*g->names));
	g->size = calloc(g->n ? g->n : 1, sizeof(*g->size));
	if (!g->names || !g->size)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < m->nh; i++) {
		g->size[g->of[i]]++;
		rc = rd_strlist_add(&members[g->of[i]], m->hosts[i]);
	}
	for (size_t k = 0; !rc && k < g->n; k++) {
		char *hl = rd_hostlist_compress(&members[k]);

		if (!hl || (labels && labels[k] ? asprintf(&g->names[k], "%s: %s", labels[k], hl)
						: asprintf(&g->names[k], "%s", hl)) < 0) {
			g->names[k] = NULL;
			rc = -ENOMEM;
		}
		free(hl);
	}
	for (size_t k = 0; members && k < g->n; k++)
		rd_strlist_free(&members[k]);
	free(members);
	return rc;
}

int rd_fleet_groups_blocks(const struct rd_fleet_matrix *m, size_t per, struct rd_fleet_groups *g)
{
	memset(g, 0, sizeof(*g));
	if (!per)
		per = 1;
	g->n = (m->nh + per - 1) / per;
	g->of = calloc(m->nh ? m->nh : 1, sizeof(*g->of));
	if (!g->of)
		return -ENOMEM;
	for (size_t i = 0; i < m->nh; i++)
		g->of[i] = i / per;	/* the hosts are in natural order */
	return name_groups(m, g, NULL);
}

/*
 * By a label per host (its leaf, a pattern's match): groups in the order of
 * their first host; hosts without a label (NULL) together last, as "other".
 */
int rd_fleet_groups_labels(const struct rd_fleet_matrix *m, char **label, struct rd_fleet_groups *g)
{
	struct rd_strmap at = { 0 };
	char **labels = calloc(m->nh + 1, sizeof(*labels));
	size_t other = SIZE_MAX;
	int rc = labels ? 0 : -ENOMEM;

	memset(g, 0, sizeof(*g));
	g->of = calloc(m->nh ? m->nh : 1, sizeof(*g->of));
	if (!g->of)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < m->nh; i++) {
		size_t k = g->n;

		if (!label[i]) {
			if (other == SIZE_MAX) {
				other = g->n++;
				labels[other] = "other";
			}
			g->of[i] = other;
			continue;
		}
		if (rd_strmap_sget_or_add(&at, label[i], &k) < 0) {
			rc = -ENOMEM;
			break;
		}
		if (k == g->n)
			labels[g->n++] = label[i];
		g->of[i] = k;
	}
	if (!rc)
		rc = name_groups(m, g, labels);
	rd_strmap_free(&at);
	free(labels);
	return rc;
}

int rd_fleet_groups_pattern(const struct rd_fleet_matrix *m, const char *pattern, struct rd_fleet_groups *g,
			    char *why, size_t why_len)
{
	regex_t re;
	char **label;
	int rc = 0, e;

	memset(g, 0, sizeof(*g));
	label = calloc(m->nh ? m->nh : 1, sizeof(*label));
	if (!label)
		return -ENOMEM;
	e = regcomp(&re, pattern, REG_EXTENDED);
	if (e) {
		(void)regerror(e, &re, why, why_len);
		free(label);
		return -EINVAL;
	}
	for (size_t i = 0; !rc && i < m->nh; i++) {
		regmatch_t mt[2];
		size_t s;

		if (regexec(&re, m->hosts[i], 2, mt, 0))
			continue;
		s = mt[1].rm_so >= 0 ? 1 : 0;	/* the first subexpression, else the whole match */
		RD_GCC_LEAK_FP_BEGIN	/* label[] is freed below, element by element */
		label[i] = strndup(m->hosts[i] + mt[s].rm_so, (size_t)(mt[s].rm_eo - mt[s].rm_so));
		if (!label[i])
			rc = -ENOMEM;
		RD_GCC_LEAK_FP_END
	}
	regfree(&re);
	if (!rc)
		rc = rd_fleet_groups_labels(m, label, g);
	for (size_t i = 0; i < m->nh; i++)
		free(label[i]);
	free(label);
	return rc;
}

static enum gcls gcell_class(const struct gcell *c, double mbw)
{
	double q;

	if (c->failed)
		return c->failed * 2 >= c->pairs ? G_FAIL3 : c->failed * 10 >= c->pairs ? G_FAIL2 : G_FAIL1;
	if (c->warned)
		return G_WARN;
	if (c->gbps < 0 || mbw <= 0)
		return G_NOBW;
	q = c->gbps / mbw;
	return q >= 0.9 ? G_BW0 : q >= 0.75 ? G_BW1 : q >= 0.5 ? G_BW2 : q >= 0.25 ? G_BW3 : G_BW4;
}


static void put_pair(FILE *fp, const struct rd_fleet_pair *p)
{
	char rails[300];

	rd_fleet_pair_rails(p, rails, sizeof(rails));
	rd_xml_text(fp, p->src, 0);
	fputs(" -> ", fp);
	rd_xml_text(fp, p->dst, 0);
	rd_xml_text(fp, rails, 0);
	if (!p->ok) {
		fputs(" (", fp);
		rd_xml_text(fp, p->stage, 0);
		fputs(")", fp);
	}
}

int rd_fleet_group_by_parse(const char *s, struct rd_fleet_group_by *g, char *why, size_t why_len)
{
	memset(g, 0, sizeof(*g));
	if (strcmp(s, "auto") == 0)
		g->kind = RD_GROUP_AUTO;
	else if (strcmp(s, "hosts") == 0)
		g->kind = RD_GROUP_HOSTS;
	else if (strcmp(s, "leaf") == 0)
		g->kind = RD_GROUP_LEAF;
	else if (strncmp(s, "re:", 3) == 0) {
		regex_t re;
		int e = regcomp(&re, s + 3, REG_EXTENDED);

		if (e) {
			char msg[128];

			(void)regerror(e, &re, msg, sizeof(msg));
			(void)snprintf(why, why_len, "'%.60s': %s", s + 3, msg);
			return -EINVAL;
		}
		regfree(&re);
		g->kind = RD_GROUP_PATTERN;
		g->pattern = s + 3;
	} else {
		uint64_t n;

		if (rd_parse_u64(s, &n) || n < 1 || n > 1000000) {
			(void)snprintf(why, why_len, "'%.60s' is not auto, hosts, leaf, a number of hosts a "
						     "block (1 to 1000000) or re:REGEX", s);
			return -EINVAL;
		}
		g->kind = RD_GROUP_BLOCK;
		g->per = (size_t)n;
	}
	return 0;
}

/* The marks' outlines over the group cells that hold their pairs. */
static int group_marks(FILE *fp, const struct rd_fleet_matrix *m, const struct rd_fleet_groups *g,
		       const struct rd_strmap *at, const struct rd_fleet_svg_mark *marks, size_t nmarks)
{
	size_t ng = g->n;
	bool *hit = calloc(ng ? ng * ng : 1, sizeof(*hit));

	if (!hit)
		return -ENOMEM;
	for (size_t k = 0; k < nmarks; k++) {
		memset(hit, 0, ng * ng * sizeof(*hit));
		fprintf(fp, "<g class=\"suspect\" data-suspect=\"%zu\" fill=\"none\" stroke=\"%s\" "
			    "stroke-width=\"0.2\"><title>", k + 1, rd_fleet_mark_stroke(k));
		rd_xml_text(fp, marks[k].label, 0);
		fputs("</title>\n", fp);
		for (size_t j = 0; j < marks[k].n; j++) {
			const struct rd_fleet_pair *p = &m->pv[marks[k].pairs[j]];
			size_t r, c, x;

			if (!rd_strmap_sget(at, p->src, &r) || !rd_strmap_sget(at, p->dst, &c))
				continue;
			x = g->of[r] * ng + g->of[c];
			if (hit[x])
				continue;
			hit[x] = true;
			fprintf(fp, "<rect x=\"%zu\" y=\"%zu\" width=\"1\" height=\"1\"/>\n", g->of[c], g->of[r]);
		}
		fputs("</g>\n", fp);
	}
	free(hit);
	return 0;
}

int rd_fleet_write_svg_groups(FILE *fp, const struct rd_fleet_matrix *m, const struct rd_fleet_groups *g,
			      const char *by, const struct rd_fleet_svg_mark *marks, size_t nmarks)
{
	size_t ng = g->n, w = 8, used = 0, counts[G_COUNT] = { 0 }, nfail = 0;
	struct rd_strmap at = { 0 };
	struct gcell *cells = calloc(ng ? ng * ng : 1, sizeof(*cells));
	double cell, font, left, top, size, width;

	if (!cells)
		return -ENOMEM;
	for (size_t i = 0; i < m->nh; i++) {
		size_t v = i;

		if (rd_strmap_sget_or_add(&at, m->hosts[i], &v) < 0) {
			free(cells);
			rd_strmap_free(&at);
			return -ENOMEM;
		}
	}
	for (size_t k = 0; k < ng * ng; k++)
		cells[k].gbps = -1;
	for (size_t i = 0; i < m->np; i++) {
		const struct rd_fleet_pair *p = &m->pv[i];
		size_t r, c;
		struct gcell *x;

		if (!rd_strmap_sget(&at, p->src, &r) || !rd_strmap_sget(&at, p->dst, &c))
			continue;
		x = &cells[g->of[r] * ng + g->of[c]];
		if (!p->ok && x->failed < TIP_PAIRS)
			x->tip[x->failed] = i;
		x->pairs++;
		x->failed += !p->ok;
		x->warned += p->ok && p->warning;
		if (p->ok && p->gbps > 0 && (x->gbps < 0 || p->gbps < x->gbps))
			x->gbps = p->gbps;
	}
	for (size_t k = 0; k < ng; k++) {
		size_t l = strlen(g->names[k]);

		w = l > w ? l : w;
	}
	if (w > 48)
		w = 48;		/* a longer label is cut (the tooltip has it whole) */
	/* cells of 16 px for a few groups, down to 8 px; never smaller */
	cell = ng <= 32 ? 16 : ng <= 64 ? 12 : 8;
	font = cell * 0.75 < 10 ? cell * 0.75 : 10;
	left = (double)w * font * 0.62 + 8;
	top = left;
	size = (double)ng * cell;
	width = left + size + 40 > 560 ? left + size + 40 : 560;	/* the legend's own width */
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		    "viewBox=\"0 0 %.0f %.0f\" data-hosts=\"%zu\" data-groups=\"%zu\" data-cell=\"%.0f\">\n",
		width, top + size + 60 + 22.0 * (double)(G_COUNT + nmarks), width,
		top + size + 60 + 22.0 * (double)(G_COUNT + nmarks), m->nh, ng, cell);
	fputs("<style>text{font-family:monospace}", fp);
	for (size_t k = 0; k < G_COUNT; k++)
		fprintf(fp, ".%s{fill:%s}", gclasses[k].name, gclasses[k].fill);
	fputs(".g-fail1,.g-fail2,.g-fail3{stroke:#000000;stroke-width:0.12}"
	      ".grid{fill:none;stroke:#bbbbbb;stroke-width:0.05}</style>\n", fp);
	fprintf(fp, "<title>rdma-fleet mesh: %zu pairs of %zu hosts in %zu groups (", m->np, m->nh, ng);
	rd_xml_text(fp, by, 0);
	fprintf(fp, "), %zu fail</title>\n", m->nfail);
	fprintf(fp, "<g id=\"rows\" font-size=\"%.1f\" text-anchor=\"end\">\n", font);
	for (size_t k = 0; k < ng; k++) {
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" data-hosts=\"%zu\"><title>", left - 4,
			top + ((double)k + 0.8) * cell, g->size[k]);
		rd_xml_text(fp, g->names[k], 0);
		fprintf(fp, " (%zu host%s)</title>", g->size[k], g->size[k] == 1 ? "" : "s");
		rd_xml_text(fp, g->names[k], w);
		fputs("</text>\n", fp);
	}
	fprintf(fp, "</g>\n<g id=\"columns\" font-size=\"%.1f\">\n", font);
	for (size_t k = 0; k < ng; k++) {
		fprintf(fp, "<text transform=\"translate(%.1f %.1f) rotate(-90)\">", left + ((double)k + 0.8) * cell,
			top - 4);
		rd_xml_text(fp, g->names[k], w);
		fputs("</text>\n", fp);
	}
	fputs("</g>\n", fp);
	fprintf(fp, "<g id=\"cells\" transform=\"translate(%.1f %.1f) scale(%.0f)\">\n", left, top, cell);
	for (size_t r = 0; r < ng; r++)
		for (size_t c = 0; c < ng; c++) {
			const struct gcell *x = &cells[r * ng + c];
			enum gcls k;

			if (!x->pairs)
				continue;
			k = gcell_class(x, m->mbw);
			counts[k]++;
			used++;
			nfail += x->failed;
			fprintf(fp, "<rect class=\"%s\" x=\"%zu\" y=\"%zu\" width=\"1\" height=\"1\" "
				    "data-pairs=\"%zu\" data-failed=\"%zu\"><title>", gclasses[k].name, c, r,
				x->pairs, x->failed);
			rd_xml_text(fp, g->names[r], 0);
			fputs(" -> ", fp);
			rd_xml_text(fp, g->names[c], 0);
			fprintf(fp, ": %zu pair%s, %zu failed", x->pairs, x->pairs == 1 ? "" : "s", x->failed);
			for (size_t t = 0; t < x->failed && t < TIP_PAIRS; t++) {
				fputs(t ? ", " : ": ", fp);
				put_pair(fp, &m->pv[x->tip[t]]);
			}
			if (x->failed > TIP_PAIRS)
				fprintf(fp, " and %zu more", x->failed - TIP_PAIRS);
			fputs("</title></rect>\n", fp);
		}
	fprintf(fp, "<rect class=\"grid\" x=\"0\" y=\"0\" width=\"%zu\" height=\"%zu\"/>\n</g>\n", ng, ng);
	if (nmarks) {
		fprintf(fp, "<g id=\"suspects\" transform=\"translate(%.1f %.1f) scale(%.0f)\">\n", left, top, cell);
		if (group_marks(fp, m, g, &at, marks, nmarks)) {
			rd_strmap_free(&at);
			free(cells);
			return -ENOMEM;
		}
		fputs("</g>\n", fp);
	}
	rd_strmap_free(&at);
	fprintf(fp, "<g id=\"legend\" font-size=\"12\" transform=\"translate(8 %.1f)\">\n", top + size + 24);
	fputs("<text x=\"0\" y=\"0\">row tested column, a cell a pair of groups (", fp);
	rd_xml_text(fp, by, 0);
	fprintf(fp, "); %zu of %zu cells tested, white: none</text>\n", used, ng * ng);
	fprintf(fp, "<text x=\"0\" y=\"18\">%zu pairs, %zu failed; median bandwidth %.3f Gb/s</text>\n", m->np,
		nfail, m->mbw);
	for (size_t k = 0; k < G_COUNT; k++)
		fprintf(fp, "<rect class=\"%s\" x=\"0\" y=\"%.0f\" width=\"14\" height=\"14\" stroke=\"#999999\" "
			    "stroke-width=\"0.5\"/><text x=\"20\" y=\"%.0f\" data-class=\"%s\" data-cells=\"%zu\">%s: "
			    "%zu</text>\n", gclasses[k].name, 30 + 22.0 * (double)k, 42 + 22.0 * (double)k,
			gclasses[k].name, counts[k], gclasses[k].label, counts[k]);
	for (size_t k = 0; k < nmarks; k++) {
		double y = 30 + 22.0 * (double)(G_COUNT + k);

		fprintf(fp, "<rect x=\"0\" y=\"%.0f\" width=\"14\" height=\"14\" fill=\"none\" stroke=\"%s\" "
			    "stroke-width=\"2\"/><text x=\"20\" y=\"%.0f\" data-suspect=\"%zu\">suspect %zu, outlined: ",
			y, rd_fleet_mark_stroke(k), y + 12, k + 1, k + 1);
		rd_xml_text(fp, marks[k].label, 0);
		fputs("</text>\n", fp);
	}
	fputs("</g>\n</svg>\n", fp);
	free(cells);
	return ferror(fp) ? -EIO : 0;
}

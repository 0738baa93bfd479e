// SPDX-License-Identifier: MIT
/*
 * rdma-fabric --svg: the plan (fabpic.c) drawn as SVG.  Classes, not inline
 * colours, so that a test reads the marks back: every fault is a
 * <g class="mark fail|warn"> with data-check, data-object (the result's
 * object, as -j prints it), data-num and data-x/data-y (its badge's centre),
 * a <title> with the detail and the fix, and a numbered badge.  The healthy
 * switch-to-switch links are one faint <path> a picture; the HCA links are
 * inside each leaf's box of HCAs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabpic.h"
#include "fabsvg.h"
#include "output/output.h"

#define FAIL_RGB "#d62728"
#define WARN_RGB "#f08c00"

static const char style[] =
	"<style>\n"
	"text{font-family:monospace;font-size:10px;fill:#222}\n"
	".bg{fill:#fff}.title{font-size:13px;font-weight:bold}.tier{fill:#6b7785}.small{font-size:9px}\n"
	".sw{fill:#e8eef4;stroke:#5b7083}.sw.fail{fill:#fde2e1;stroke:" FAIL_RGB ";stroke-width:2}"
	".sw.warn{fill:#fff1dc;stroke:" WARN_RGB ";stroke-width:2}\n"
	".hcas{fill:#f3f5f7;stroke:#8a9aaa}.hcas.fail{stroke:" FAIL_RGB "}.hcas.warn{stroke:" WARN_RGB "}\n"
	".links{fill:none;stroke:#4a6a8a}.bundle{stroke:#a7b4c2;stroke-width:3}\n"
	".stub{fill:none;stroke:#8797a8;stroke-width:1.5}.bus{fill:#b4c1ce;stroke:#8797a8}\n"
	".strip{stroke-width:1.5}.strip.fail{fill:#fde2e1;stroke:" FAIL_RGB "}"
	".strip.warn{fill:#fff1dc;stroke:" WARN_RGB "}.gone{stroke-dasharray:3 2}\n"
	".tie{stroke-width:1.5}.tie.fail{stroke:" FAIL_RGB "}.tie.warn{stroke:" WARN_RGB "}\n"
	".link{fill:none;stroke-width:3}.link.fail{stroke:" FAIL_RGB "}.link.warn{stroke:" WARN_RGB "}\n"
	".badge.fail{fill:" FAIL_RGB "}.badge.warn{fill:" WARN_RGB "}\n"
	".num{font-size:8px;font-weight:bold;fill:#fff;text-anchor:middle}.num3{font-size:6.5px}\n"
	".tfail{fill:" FAIL_RGB "}.twarn{fill:#a35600}.halo{paint-order:stroke;stroke:#fff;stroke-width:3px}\n"
	"</style>\n";

static const char *vclass(enum rd_fab_status s)
{
	return s == RD_FAB_FAIL ? "fail" : s == RD_FAB_WARN ? "warn" : "ok";
}

/* 12,345 */
static const char *num(unsigned long v, char *buf, size_t len)
{
	char raw[32];
	size_t n, o = 0;

	(void)snprintf(raw, sizeof(raw), "%lu", v);
	n = strlen(raw);
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
	return buf;
}

/* A box's centre x, its top and its bottom. */
static double cx(const struct rd_fabpic_box *b)
{
	return b->x + b->w / 2;
}

/* A line between two boxes: from the lower one's top up, or an arc over their row. */
static void link_d(FILE *fp, const struct rd_fabpic_box *a, const struct rd_fabpic_box *b)
{
	if (a->row == b->row) {
		double d = cx(b) > cx(a) ? cx(b) - cx(a) : cx(a) - cx(b);
		double apex = a->y - 20 - d * 0.05;

		if (apex < a->y - 48)
			apex = a->y - 48;
		fprintf(fp, "M%.1f %.1fQ%.1f %.1f %.1f %.1f", cx(a), a->y, (cx(a) + cx(b)) / 2, 2 * apex - a->y,
			cx(b), a->y);
	} else {
		const struct rd_fabpic_box *lo = a->row > b->row ? a : b, *hi = lo == a ? b : a;

		fprintf(fp, "M%.1f %.1fL%.1f %.1f", cx(lo), lo->y, cx(hi), hi->y + hi->h);
	}
}

static bool judged_link(const struct rd_fabpic *p, int a, int pa, int b, int pb)
{
	for (size_t i = 0; i < p->n_links; i++) {
		const struct rd_fabpic_link *l = &p->links[i];

		if ((l->a == a && l->pa == pa && l->b == b && l->pb == pb) ||
		    (l->a == b && l->pa == pb && l->b == a && l->pb == pa))
			return true;
	}
	return false;
}

/* Node i's port q as a healthy switch-to-switch link seen from its first end: its boxes. */
static bool healthy(const struct rd_fabpic *p, size_t i, int q, int *a, int *b)
{
	const struct rd_fab_port *pt = &p->fab->nodes[i].ports[q];

	*a = p->box_of[i];
	*b = pt->peer_node >= 0 ? p->box_of[pt->peer_node] : -1;
	if (*a < 0 || *b < 0 || (size_t)pt->peer_node < i || ((size_t)pt->peer_node == i && pt->peer_port <= q))
		return false;
	return !judged_link(p, *a, q, *b, pt->peer_port);
}

/*
 * Every healthy switch-to-switch link, once, in one faint path; past
 * RD_FABPIC_BUS links between two rows next to each other, those are one
 * bus between the rows instead, a stub from each switch that has one.
 */
static int faint_links(FILE *fp, const struct rd_fabpic *p)
{
	const struct rd_fab *fab = p->fab;
	unsigned int n = p->sw_links - p->sw_links_bad, *between = calloc(p->n_rows + 1, sizeof(unsigned int));
	unsigned char *stub = calloc(p->n_boxes + 1, 1);	/* 1: a stub down to a bus, 2: up to one */
	int a, b;

	if (!between || !stub) {
		free(between);
		free(stub);
		return -ENOMEM;
	}
	for (size_t i = 0; i < fab->n_nodes; i++)
		for (int q = 1; q <= fab->nodes[i].nports; q++) {
			int ra, rb;

			if (!healthy(p, i, q, &a, &b))
				continue;
			ra = p->boxes[a].row;
			rb = p->boxes[b].row;
			/* Rows next to each other: counted under the upper one. */
			if (ra == rb + 1)
				between[rb]++;
			else if (rb == ra + 1)
				between[ra]++;
		}
	fprintf(fp, "<path class=\"links\" stroke-opacity=\"%s\" d=\"", n <= 60 ? "0.6" : n <= 600 ? "0.3" : "0.14");
	for (size_t i = 0; i < fab->n_nodes; i++)
		for (int q = 1; q <= fab->nodes[i].nports; q++) {
			const struct rd_fabpic_box *x, *y;

			if (!healthy(p, i, q, &a, &b))
				continue;
			x = &p->boxes[a];
			y = &p->boxes[b];
			if (x->row < y->row) {
				const struct rd_fabpic_box *t = x;

				x = y;
				y = t;
			}
			if (x->row == y->row + 1 && between[y->row] > RD_FABPIC_BUS) {
				stub[x - p->boxes] |= 2;
				stub[y - p->boxes] |= 1;
				continue;
			}
			link_d(fp, x, y);
		}
	fputs("\"/>\n", fp);
	for (size_t r = 0; r + 1 < p->n_rows; r++) {
		double y = (p->rows[r].y + p->rows[r].h + p->rows[r + 1].y) / 2, x0 = 1e9, x1 = 0;
		char c[24];

		if (between[r] <= RD_FABPIC_BUS)
			continue;
		fputs("<path class=\"stub\" d=\"", fp);
		for (size_t k = 0; k < p->n_boxes; k++) {
			const struct rd_fabpic_box *bx = &p->boxes[k];

			if ((bx->row == (int)r && (stub[k] & 1)) || (bx->row == (int)r + 1 && (stub[k] & 2))) {
				fprintf(fp, "M%.1f %.1fV%.1f", cx(bx), bx->row == (int)r ? bx->y + bx->h : bx->y, y);
				x0 = cx(bx) < x0 ? cx(bx) : x0;
				x1 = cx(bx) > x1 ? cx(bx) : x1;
			}
		}
		fprintf(fp, "\"/>\n<g><title>%s healthy links between tier %d and tier %d, drawn as one bus</title>"
			    "<rect class=\"bus\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"6\" rx=\"3\"/></g>\n",
			num(between[r], c, sizeof(c)), p->rows[r + 1].tier, p->rows[r].tier, x0 - 3, y - 3, x1 - x0 + 6);
	}
	free(between);
	free(stub);
	return 0;
}

static void switches(FILE *fp, const struct rd_fabpic *p)
{
	for (size_t i = 0; i < p->n_boxes; i++) {
		const struct rd_fabpic_box *b = &p->boxes[i];
		const struct rd_fab_node *nd = &p->fab->nodes[b->node];
		int cabled = 0;

		for (int q = 1; q <= nd->nports; q++)
			cabled += nd->ports[q].peer_node >= 0;
		fputs("<g><title>", fp);
		rd_xml_text(fp, nd->name, 0);
		fprintf(fp, " (0x%016llx): tier %d, %d of %d ports cabled, LID %u</title>"
			    "<rect class=\"sw%s%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"3\"/>",
			(unsigned long long)nd->guid, p->tier[b->node], cabled, nd->nports, nd->lid,
			b->worst >= RD_FAB_WARN ? " " : "", b->worst >= RD_FAB_WARN ? vclass(b->worst) : "",
			b->x, b->y, b->w, b->h);
		if (b->rotated)
			fprintf(fp, "<text transform=\"translate(%.1f %.1f) rotate(-90)\">", cx(b) + 3.5, b->y + b->h - 5);
		else
			fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", cx(b), b->y + 14);
		rd_xml_text(fp, nd->name, b->rotated ? 14 : 0);
		fputs("</text></g>\n", fp);
	}
}

/* Each column's box of HCAs, its bundle up to the leaf, its title naming every HCA. */
static void hca_boxes(FILE *fp, const struct rd_fabpic *p)
{
	for (size_t c = 0; c < p->n_cols; c++) {
		const struct rd_fabpic_col *col = &p->cols[c];
		enum rd_fab_status worst = RD_FAB_PASS;
		double x = col->x + 2, w = col->w - 4, mid = col->x + col->w / 2;
		const char *leaf = col->box >= 0 ? p->fab->nodes[p->boxes[col->box].node].name : "no switch";
		char a[24], b[24];

		for (size_t s = 0; s < p->n_strips; s++)
			if (p->strips[s].col == c && p->strips[s].worst > worst)
				worst = p->strips[s].worst;
		if (col->box >= 0 && col->hcas)
			fprintf(fp, "<line class=\"bundle\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", mid,
				p->boxes[col->box].y + p->boxes[col->box].h, mid, p->hca_y);
		fputs("<g><title>", fp);
		rd_xml_text(fp, leaf, 0);
		fprintf(fp, ": %s HCA%s, %u with a fault", num(col->hcas + col->gone, a, sizeof(a)),
			col->hcas + col->gone == 1 ? "" : "s", col->bad);
		if (col->gone)
			fprintf(fp, " (%u gone since the baseline)", col->gone);
		for (int n = col->first_ca, k = 0; n >= 0; n = p->next_ca[n], k++) {
			fputs(k ? ", " : ": ", fp);
			rd_xml_text(fp, p->fab->nodes[n].name, 0);
		}
		fprintf(fp, "</title><rect class=\"hcas%s%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			    "rx=\"4\"/>", worst >= RD_FAB_WARN ? " " : "", worst >= RD_FAB_WARN ? vclass(worst) : "",
			x, p->hca_y, w, p->hca_h);
		num(col->hcas + col->gone, a, sizeof(a));
		num(col->bad, b, sizeof(b));
		if (w >= 100) {
			fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s HCAs</text>", mid,
				p->hca_y + 19, a);
			if (col->bad)
				fprintf(fp, "<text class=\"t%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s bad</text>",
					vclass(worst), mid, p->hca_y + 34, b);
		} else {
			fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-weight=\"bold\">%s</text>"
				    "<text class=\"small\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">HCAs</text>",
				mid, p->hca_y + 13, a, mid, p->hca_y + 25);
			if (col->bad)
				fprintf(fp, "<text class=\"small t%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
					    "%s bad</text>", vclass(worst), mid, p->hca_y + 38, b);
		}
		fputs("</g>\n", fp);
	}
}

/* The hosts drawn alone: a tie to their box, a strip, the label written downwards. */
static void strips(FILE *fp, const struct rd_fabpic *p)
{
	for (size_t i = 0; i < p->n_strips; i++) {
		const struct rd_fabpic_strip *s = &p->strips[i];
		const char *v = vclass(s->worst);
		double mx = s->x + 6.5;

		fprintf(fp, "<line class=\"tie %s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", v, mx,
			p->hca_y + p->hca_h, mx, s->y);
		fputs("<g><title>", fp);
		rd_xml_text(fp, s->label, 0);
		fprintf(fp, "</title><rect class=\"strip %s%s\" x=\"%.1f\" y=\"%.1f\" width=\"13\" height=\"%.1f\" "
			    "rx=\"2\"/><text class=\"small\" transform=\"translate(%.1f %.1f) rotate(90)\">", v,
			s->node < 0 ? " gone" : "", s->x, s->y, s->h, s->x + 3.5, s->y + 13.0 * s->nbadges + 4);
		rd_xml_text(fp, s->label, 64);
		fputs("</text></g>\n", fp);
	}
}

/* The switch-to-switch links a check judged: a line of their own, both ends named. */
static void judged_links(FILE *fp, const struct rd_fabpic *p)
{
	for (size_t i = 0; i < p->n_links; i++) {
		const struct rd_fabpic_link *l = &p->links[i];
		const struct rd_fabpic_box *a = &p->boxes[l->a], *b = &p->boxes[l->b];

		fprintf(fp, "<path class=\"link %s\" d=\"", vclass(l->worst));
		link_d(fp, a, b);
		fprintf(fp, "\"/>\n<text class=\"small halo\" x=\"%.1f\" y=\"%.1f\">", l->x + 13.0 * l->nbadges + 1,
			l->y + 3.5);
		rd_xml_text(fp, p->fab->nodes[a->node].name, 0);
		fprintf(fp, "[%d]-", l->pa);
		rd_xml_text(fp, p->fab->nodes[b->node].name, 0);
		fprintf(fp, "[%d]</text>\n", l->pb);
	}
}

/* A badge: its number on the verdict's colour. */
static void badge(FILE *fp, const struct rd_fabpic_fault *f)
{
	const char *v = vclass(f->r->status);

	fprintf(fp, "<rect class=\"badge %s\" x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" rx=\"2\"/>"
		    "<text class=\"num%s\" x=\"%.1f\" y=\"%.1f\">%u</text>", v, f->x - 5.5, f->y - 5.5,
		f->num >= 100 ? " num3" : "", f->x, f->y + 3, f->num);
}

/* "FAIL link.degraded OBJECT: DETAIL", cut to chars. */
static void fault_line(FILE *fp, const struct rd_fab_result *r, size_t chars)
{
	char line[700];

	rd_snprintf(line, sizeof(line), "%s %s %s: %s", rd_fab_status_name(r->status), r->check ? r->check->id : "?",
		    r->object, r->detail);
	rd_xml_text(fp, line, chars);
}

static void marks(FILE *fp, const struct rd_fabpic *p)
{
	size_t chars = (size_t)((p->width - 40) / 6.02);

	for (size_t i = 0; i < p->n_faults; i++) {
		const struct rd_fabpic_fault *f = &p->faults[i];

		if (f->at == RD_FABPIC_HIDDEN)
			continue;
		fprintf(fp, "<g class=\"mark %s\" data-num=\"%u\" data-check=\"%s\" data-object=\"",
			vclass(f->r->status), f->num, f->r->check ? f->r->check->id : "");
		rd_xml_text(fp, f->r->object, 0);
		fprintf(fp, "\" data-x=\"%.1f\" data-y=\"%.1f\"><title>", f->x, f->y);
		fault_line(fp, f->r, 0);
		if (f->r->fix[0]) {
			fputs(" \xe2\x80\x94 fix: ", fp);
			rd_xml_text(fp, f->r->fix, 0);
		}
		fputs("</title>", fp);
		badge(fp, f);
		if (f->at == RD_FABPIC_FABRIC) {
			fprintf(fp, "<text class=\"t%s\" x=\"%.1f\" y=\"%.1f\">", vclass(f->r->status), f->x + 10,
				f->y + 3.5);
			fault_line(fp, f->r, chars);
			fputs("</text>", fp);
		}
		fputs("</g>\n", fp);
	}
}

static void legend(FILE *fp, const struct rd_fabpic *p)
{
	double y = p->legend_y, x = 12;
	char a[24], b[24], c[24], d[24];
	unsigned int top_tier = 0;

	fprintf(fp, "<g id=\"legend\"><rect class=\"badge fail\" x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" "
		    "rx=\"2\"/><text x=\"%.1f\" y=\"%.1f\">FAIL: %u</text>", x, y - 9, x + 16, y, p->count[RD_FAB_FAIL]);
	fprintf(fp, "<rect class=\"badge warn\" x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" rx=\"2\"/>"
		    "<text x=\"%.1f\" y=\"%.1f\">WARN: %u   (a numbered badge a fault, where it is, and a line "
		    "below%s)</text>\n", x + 100, y - 9, x + 116, y, p->count[RD_FAB_WARN],
		p->hidden ? "; past the caps, in the list only" : "");
	y += 18;
	fprintf(fp, "<rect class=\"sw\" x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"11\" rx=\"2\"/><text x=\"%.1f\" "
		    "y=\"%.1f\">%s switch%s in tiers counted from the HCAs up:", x, y - 9, x + 32, y,
		num(p->switches, a, sizeof(a)), p->switches == 1 ? "" : "es");
	for (size_t r = 0; r < p->n_rows; r++) {
		fprintf(fp, "%s %s %s", r ? "," : "", num(p->rows[r].nboxes, a, sizeof(a)),
			p->rows[r].tier < 0 ? "that no HCA reaches" : "in tier");
		if (p->rows[r].tier > 0)
			fprintf(fp, " %d%s", p->rows[r].tier, p->rows[r].tier == 1 ? " (leaves)" : "");
		top_tier = p->rows[r].tier > (int)top_tier ? (unsigned int)p->rows[r].tier : top_tier;
	}
	fputs(top_tier ? "</text>\n" : " none</text>\n", fp);
	y += 18;
	fprintf(fp, "<rect class=\"hcas\" x=\"%.1f\" y=\"%.1f\" width=\"24\" height=\"11\" rx=\"2\"/><text x=\"%.1f\" "
		    "y=\"%.1f\">%s HCAs (%s links), one box a leaf; %s with a fault, each drawn alone under its box",
		x, y - 9, x + 32, y, num(p->hcas + p->gone_hcas, a, sizeof(a)), num(p->ca_links, c, sizeof(c)),
		num(p->bad_hcas, b, sizeof(b)));
	if (p->gone_hcas)
		fprintf(fp, " (%s gone since the baseline: dashed)", num(p->gone_hcas, c, sizeof(c)));
	fputs("</text>\n", fp);
	y += 18;
	fprintf(fp, "<line class=\"links\" stroke-opacity=\"0.5\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		    "<line class=\"link fail\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" "
		    "y=\"%.1f\">%s switch-to-switch links: %s judged (a line of its own), %s healthy (faint, or a bus "
		    "past %s between two tiers)</text>\n", x, y - 7, x + 10, y - 1, x + 14, y - 7, x + 24, y - 1, x + 32, y,
		num(p->sw_links, a, sizeof(a)), num(p->sw_links_bad, b, sizeof(b)),
		num(p->sw_links - p->sw_links_bad, c, sizeof(c)), num(RD_FABPIC_BUS, d, sizeof(d)));
	y += 18;
	fprintf(fp, "<text class=\"tier\" x=\"%.1f\" y=\"%.1f\">rdma-fabric --svg: hover over a badge, a box or a "
		    "strip for its detail</text></g>\n", x, y);
}

/* The faults as a list, each with its badge's number. */
static void list(FILE *fp, const struct rd_fabpic *p)
{
	size_t chars = (size_t)((p->width - 60) / 6.02);
	double y = p->list_y;

	fprintf(fp, "<g id=\"list\"><text class=\"title\" x=\"12\" y=\"%.1f\">%s</text>\n", y,
		p->n_faults ? "Faults" : "No check FAILed or WARNed");
	for (size_t i = 0; i < p->n_listed; i++) {
		const struct rd_fabpic_fault *f = &p->faults[i];
		struct rd_fabpic_fault at = *f;

		y += 16;
		at.x = 24;
		at.y = y - 4;
		fprintf(fp, "<g class=\"row %s\">", vclass(f->r->status));
		badge(fp, &at);
		fprintf(fp, "<text x=\"36\" y=\"%.1f\">", y);
		fault_line(fp, f->r, chars);
		fputs("</text></g>\n", fp);
	}
	if (p->n_faults > p->n_listed)
		fprintf(fp, "<text x=\"36\" y=\"%.1f\">and %zu more (rdma-fabric lists them all)</text>\n", y + 16,
			p->n_faults - p->n_listed);
	fputs("</g>\n", fp);
}

static void frame_text(FILE *fp, const struct rd_fabpic *p)
{
	enum rd_fab_status v = rd_fab_report_worst(p->rep);
	char a[24], b[24], c[24];

	fprintf(fp, "<text class=\"title\" x=\"12\" y=\"22\">rdma-fabric: %s HCAs", num(p->hcas, a, sizeof(a)));
	if (p->gone_hcas)
		fprintf(fp, " (and %s gone)", num(p->gone_hcas, a, sizeof(a)));
	fprintf(fp, ", %s switch%s in %zu tier%s, %s links: %s (%u fail, %u warn)</text>\n",
		num(p->switches, b, sizeof(b)), p->switches == 1 ? "" : "es", p->n_rows, p->n_rows == 1 ? "" : "s",
		num(p->ca_links + p->sw_links, c, sizeof(c)), rd_fab_status_name(v), p->count[RD_FAB_FAIL],
		p->count[RD_FAB_WARN]);
	for (size_t r = 0; r < p->n_rows; r++) {
		fprintf(fp, "<text class=\"tier\" x=\"8\" y=\"%.1f\">", p->rows[r].y + p->rows[r].h / 2 + 3);
		if (p->rows[r].tier < 0)
			fputs("no HCA</text>\n", fp);
		else
			fprintf(fp, "tier %d</text>\n", p->rows[r].tier);
	}
	fprintf(fp, "<text class=\"tier\" x=\"8\" y=\"%.1f\">HCAs</text>\n", p->hca_y + p->hca_h / 2 + 3);
}

int rd_fabsvg_write(FILE *fp, const struct rd_fab *fab, const struct rd_fab_report *rep)
{
	struct rd_fabpic p;
	int ret = rd_fabpic_plan(&p, fab, rep);
	size_t leaves = 0;

	if (ret) {
		rd_fabpic_free(&p);
		return ret;
	}
	for (size_t c = 0; c < p.n_cols; c++)
		leaves += p.cols[c].box >= 0;
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		    "data-hcas=\"%u\" data-switches=\"%u\" data-leaves=\"%zu\" data-faults=\"%zu\">\n",
		p.width, p.height, p.width, p.height, p.hcas, p.switches, leaves, p.n_faults);
	fputs(style, fp);
	fprintf(fp, "<title>rdma-fabric: %u HCAs, %u switches, %u fail, %u warn</title>\n", p.hcas, p.switches,
		p.count[RD_FAB_FAIL], p.count[RD_FAB_WARN]);
	fprintf(fp, "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\"/>\n", p.width, p.height);
	frame_text(fp, &p);
	ret = faint_links(fp, &p);
	hca_boxes(fp, &p);
	switches(fp, &p);
	strips(fp, &p);
	judged_links(fp, &p);
	marks(fp, &p);
	legend(fp, &p);
	list(fp, &p);
	fputs("</svg>\n", fp);
	rd_fabpic_free(&p);
	return ret ? ret : ferror(fp) ? -EIO : 0;
}

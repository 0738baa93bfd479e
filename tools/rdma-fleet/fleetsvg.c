// SPDX-License-Identifier: MIT
/*
 * rdma-fleet --svg: the mesh matrix as a picture.  Row: the host that tested,
 * column: the host it tested, as in the text matrix.  A passed cell is
 * coloured by its bandwidth against the mesh's median (its lowest rail pair
 * with rails), a failed cell is red with a title naming the stage and the
 * diagnosis, a pair nobody reported is grey.
 *
 * Built to stay small at 1,000 hosts (a million cells): the cells of one
 * colour are one <path>, a row's run of equal cells one "M x y h w v 1 h -w z"
 * piece of it; only failed cells are elements of their own (a <rect> with a
 * <title>, for the tooltip).  Every cell is 1 unit square in a scaled group,
 * so the picture zooms cleanly.  Classes, not inline colours: a test reads
 * back cells and colours by class ("bw0".."bw4", "nobw", "warn", "fail",
 * "none", "self") and the labels from the <text> elements.
 */
#define _GNU_SOURCE
#include "fleetmesh.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "output/output.h"

enum cls {
	C_NONE,		/* not reported */
	C_SELF,
	C_BW0,		/* >= 90% of the median bandwidth */
	C_BW1,		/* >= 75% */
	C_BW2,		/* >= 50% */
	C_BW3,		/* >= 25% */
	C_BW4,		/* below */
	C_NOBW,		/* passed, no bandwidth figure */
	C_WARN,		/* passed with a warning */
	C_FAIL,
	C_COUNT,
};

static const struct {
	const char *name, *fill, *label;
} classes[C_COUNT] = {
	[C_NONE] = { "none", "#e8e8e8", "no result (not scheduled, or not reported)" },
	[C_SELF] = { "self", "#ffffff", "itself" },
	[C_BW0] = { "bw0", "#1a9850", "pass, bandwidth >= 90% of the median" },
	[C_BW1] = { "bw1", "#91cf60", "pass, 75-90% of the median" },
	[C_BW2] = { "bw2", "#d9ef8b", "pass, 50-75% of the median" },
	[C_BW3] = { "bw3", "#fee08b", "pass, 25-50% of the median" },
	[C_BW4] = { "bw4", "#fc8d59", "pass, below 25% of the median" },
	[C_NOBW] = { "nobw", "#74add1", "pass, no bandwidth figure" },
	[C_WARN] = { "warn", "#984ea3", "pass with a warning" },
	[C_FAIL] = { "fail", "#d73027", "FAIL" },
};

static enum cls cell_class(const struct rd_fleet_matrix *m, const struct rd_fleet_cell *x)
{
	double q;

	switch (x->mark) {
	case 2:
		return C_WARN;
	case 3:
		return C_FAIL;
	default:
		break;
	}
	if (x->gbps < 0 || m->mbw <= 0)
		return C_NOBW;
	q = x->gbps / m->mbw;
	return q >= 0.9 ? C_BW0 : q >= 0.75 ? C_BW1 : q >= 0.5 ? C_BW2 : q >= 0.25 ? C_BW3 : C_BW4;
}

/* One run of a row, columns c .. e - 1, into the path of its class. */
static void run(FILE *fp, bool *open, enum cls k, size_t r, size_t c, size_t e, unsigned long *count)
{
	if (e <= c)
		return;
	if (!*open)
		fprintf(fp, "<path class=\"%s\" d=\"", classes[k].name);
	*open = true;
	fprintf(fp, "M%zu %zuh%zuv1h-%zuz", c, r, e - c, e - c);
	*count += e - c;
}

/* Outline colours of the marks, in turn. */
static const char *const mark_stroke[] = { "#000000", "#1f78b4", "#ff7f00", "#6a3d9a", "#b15928",
					    "#e7298a", "#33a02c", "#666666", "#a6cee3", "#fdbf6f" };

const char *rd_fleet_mark_stroke(size_t k)
{
	return mark_stroke[k % RD_ARRAY_SIZE(mark_stroke)];
}

/*
 * The marks' outlines: a group a mark, one unit rect a cell of its pairs
 * (a cell once), each with the mark's label as its title.
 */
static int write_marks(FILE *fp, const struct rd_fleet_matrix *m, const struct rd_fleet_svg_mark *marks,
		       size_t nmarks, unsigned long *cells)
{
	struct rd_strmap at = { 0 };
	int rc = 0;

	for (size_t i = 0; !rc && i < m->nh; i++) {
		size_t v = i;

		rc = rd_strmap_sget_or_add(&at, m->hosts[i], &v) < 0 ? -ENOMEM : 0;
	}
	for (size_t k = 0; !rc && k < nmarks; k++) {
		struct rd_strmap seen = { 0 };

		cells[k] = 0;
		fprintf(fp, "<g class=\"suspect\" data-suspect=\"%zu\" fill=\"none\" stroke=\"%s\" "
			    "stroke-width=\"0.18\"><title>", k + 1, rd_fleet_mark_stroke(k));
		rd_xml_text(fp, marks[k].label, 0);
		fputs("</title>\n", fp);
		for (size_t j = 0; j < marks[k].n; j++) {
			const struct rd_fleet_pair *p = &m->pv[marks[k].pairs[j]];
			char key[64];
			size_t r, c, one = 0;
			int got;

			if (!rd_strmap_sget(&at, p->src, &r) || !rd_strmap_sget(&at, p->dst, &c))
				continue;
			(void)snprintf(key, sizeof(key), "%zu %zu", r, c);
			got = rd_strmap_sget_or_add(&seen, key, &one);
			if (got < 0) {
				rc = -ENOMEM;
				break;
			}
			if (got)
				continue;	/* a cell already outlined: rails, or a pair again */
			fprintf(fp, "<rect x=\"%zu\" y=\"%zu\" width=\"1\" height=\"1\"/>\n", c, r);
			cells[k]++;
		}
		rd_strmap_free(&seen);
		fputs("</g>\n", fp);
	}
	rd_strmap_free(&at);
	return rc;
}

int rd_fleet_write_svg(FILE *fp, const struct rd_fleet_matrix *m, const struct rd_fleet_svg_mark *marks,
		       size_t nmarks)
{
	size_t nh = m->nh, w = 4;
	double cell, font, left, top, size, width;
	unsigned long counts[C_COUNT] = { 0 }, *mcells = calloc(nmarks ? nmarks : 1, sizeof(*mcells));

	if (!mcells)
		return -ENOMEM;

	for (size_t i = 0; i < nh; i++)
		w = strlen(m->hosts[i]) > w ? strlen(m->hosts[i]) : w;
	/* a cell of 14 px for a few hosts, down to 6 px at 1,000 and more */
	cell = nh <= 40 ? 14 : nh <= 200 ? 10 : nh <= 600 ? 8 : 6;
	font = cell * 0.8;
	left = (double)w * font * 0.62 + 8;
	top = left;
	size = (double)nh * cell;
	{
		/* as wide as the legend's longest line (12 px monospace: ~7.3 px a character) */
		size_t chars = 72;

		for (size_t k = 0; k < nmarks; k++)
			chars = strlen(marks[k].label) + 36 > chars ? strlen(marks[k].label) + 36 : chars;
		width = left + size + 360;
		if (width < left + 7.3 * (double)chars + 16)
			width = left + 7.3 * (double)chars + 16;
	}
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		    "viewBox=\"0 0 %.0f %.0f\" data-hosts=\"%zu\" data-cell=\"%.0f\">\n",
		width, top + size + 40 + 22.0 * (double)(C_COUNT + nmarks),
		width, top + size + 40 + 22.0 * (double)(C_COUNT + nmarks), nh, cell);
	fputs("<style>text{font-family:monospace}", fp);
	for (size_t k = 0; k < C_COUNT; k++)
		fprintf(fp, ".%s{fill:%s}", classes[k].name, classes[k].fill);
	fputs(".grid{fill:none;stroke:#bbbbbb;stroke-width:0.05}</style>\n", fp);
	fprintf(fp, "<title>rdma-fleet mesh: %zu pairs of %zu hosts, %zu fail</title>\n", m->np, nh,
		m->nfail);

	/* the labels: rows on the left, columns above, turned */
	fprintf(fp, "<g id=\"rows\" font-size=\"%.1f\" text-anchor=\"end\">\n", font);
	for (size_t i = 0; i < nh; i++) {
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">", left - 4, top + ((double)i + 0.8) * cell);
		rd_xml_text(fp, m->hosts[i], 0);
		fputs("</text>\n", fp);
	}
	fprintf(fp, "</g>\n<g id=\"columns\" font-size=\"%.1f\">\n", font);
	for (size_t j = 0; j < nh; j++) {
		fprintf(fp, "<text transform=\"translate(%.1f %.1f) rotate(-90)\">",
			left + ((double)j + 0.8) * cell, top - 4);
		rd_xml_text(fp, m->hosts[j], 0);
		fputs("</text>\n", fp);
	}
	fputs("</g>\n", fp);

	/* the cells: one path a class, runs of a row merged; cell (r, c) is the unit square at (c, r) */
	fprintf(fp, "<g id=\"cells\" transform=\"translate(%.1f %.1f) scale(%.0f)\">\n", left, top, cell);
	for (size_t k = 0; k < C_COUNT; k++) {
		bool open = false;

		if (k == C_FAIL)
			continue;
		for (size_t r = 0; r < nh; r++) {
			size_t first = m->row_start[r], last = m->row_start[r + 1];

			if (k == C_SELF) {
				run(fp, &open, k, r, r, r + 1, &counts[k]);
			} else if (k == C_NONE) {
				/* the gaps between the reported cells, around the diagonal */
				size_t c = 0;

				for (size_t x = first; x <= last; x++) {
					size_t e = x < last ? m->cells[x].col : nh;

					if (c <= r && r < e) {
						run(fp, &open, k, r, c, r, &counts[k]);
						c = r + 1;
					}
					run(fp, &open, k, r, c, e, &counts[k]);
					c = e + 1;
				}
			} else {
				/* reported cells of this class, next to each other */
				for (size_t x = first; x < last;) {
					size_t y = x + 1;

					if (cell_class(m, &m->cells[x]) != k) {
						x++;
						continue;
					}
					while (y < last && m->cells[y].col == m->cells[y - 1].col + 1 &&
					       cell_class(m, &m->cells[y]) == k)
						y++;
					run(fp, &open, k, r, m->cells[x].col, m->cells[y - 1].col + 1, &counts[k]);
					x = y;
				}
			}
		}
		if (open)
			fputs("\"/>\n", fp);
	}
	/* failed cells: each its own, with the first failure's words */
	for (size_t x = 0; x < m->ncells; x++) {
		const struct rd_fleet_cell *cl = &m->cells[x];
		const struct rd_fleet_pair *p = &m->pv[cl->pair];
		char rails[300];

		if (cl->mark != 3)
			continue;
		rd_fleet_pair_rails(p, rails, sizeof(rails));
		fprintf(fp, "<rect class=\"fail\" x=\"%zu\" y=\"%zu\" width=\"1\" height=\"1\"><title>",
			cl->col, cl->row);
		rd_xml_text(fp, p->src, 0);
		fputs(" -> ", fp);
		rd_xml_text(fp, p->dst, 0);
		rd_xml_text(fp, rails, 0);
		fputs(": FAIL at ", fp);
		rd_xml_text(fp, p->stage, 0);
		fputs(": ", fp);
		rd_xml_text(fp, p->diagnosis, 0);
		if (cl->npairs > 1)
			fprintf(fp, " (%u pairs in this cell)", cl->npairs);
		fputs("</title></rect>\n", fp);
		counts[C_FAIL]++;
	}
	fprintf(fp, "<rect class=\"grid\" x=\"0\" y=\"0\" width=\"%zu\" height=\"%zu\"/>\n</g>\n", nh, nh);
	/* the suspects' pairs, outlined over the cells */
	if (nmarks) {
		fprintf(fp, "<g id=\"suspects\" transform=\"translate(%.1f %.1f) scale(%.0f)\">\n", left, top, cell);
		if (write_marks(fp, m, marks, nmarks, mcells)) {
			free(mcells);
			return -ENOMEM;
		}
		fputs("</g>\n", fp);
	}

	/* the legend, with the number of cells of each class */
	fprintf(fp, "<g id=\"legend\" font-size=\"12\" transform=\"translate(%.1f %.1f)\">\n",
		left, top + size + 24);
	fprintf(fp, "<text x=\"0\" y=\"0\">row tested column; median bandwidth %.3f Gb/s, median "
		    "latency %.1f us</text>\n", m->mbw, m->mlat);
	for (size_t k = 0; k < C_COUNT; k++) {
		fprintf(fp, "<rect class=\"%s\" x=\"0\" y=\"%.0f\" width=\"14\" height=\"14\" "
			    "stroke=\"#999999\" stroke-width=\"0.5\"/>"
			    "<text x=\"20\" y=\"%.0f\" data-class=\"%s\" data-cells=\"%lu\">%s: %lu</text>\n",
			classes[k].name, 10 + 22.0 * (double)k, 22 + 22.0 * (double)k, classes[k].name,
			counts[k], classes[k].label, counts[k]);
	}
	for (size_t k = 0; k < nmarks; k++) {
		double y = 22.0 * (double)(C_COUNT + k);

		fprintf(fp, "<rect x=\"0\" y=\"%.0f\" width=\"14\" height=\"14\" fill=\"none\" stroke=\"%s\" "
			    "stroke-width=\"2\"/><text x=\"20\" y=\"%.0f\" data-suspect=\"%zu\" data-cells=\"%lu\">"
			    "suspect %zu, outlined: ", 10 + y, rd_fleet_mark_stroke(k), 22 + y,
			k + 1, mcells[k], k + 1);
		rd_xml_text(fp, marks[k].label, 0);
		fprintf(fp, " (%lu cell%s)</text>\n", mcells[k], mcells[k] == 1 ? "" : "s");
	}
	free(mcells);
	fputs("</g>\n</svg>\n", fp);
	return ferror(fp) ? -EIO : 0;
}

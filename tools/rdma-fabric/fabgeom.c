// SPDX-License-Identifier: MIT
/* rdma-fabric --svg: the picture's geometry, once everything has its place (fabpic.h). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "fabpic.h"

/* Monospace text: a character is 0.6 of the font size wide. */
#define CH10 6.02
#define CH9 5.42
#define STEP 13.0		/* a badge (11 px) and its gap */
#define STRIP_W 16.0		/* a strip and its gap */
#define STRIP_CHARS 64		/* a strip's label, at most */
#define NAME_CHARS 14		/* a switch's name written upwards, at most */
#define ROW_GAP 130.0		/* between two rows of switches: their links */
#define MIN_WIDTH 760.0

/* Boxes of a row by the mean x of the boxes below that they link to (kept in x meanwhile), then by name. */
static int by_place(const void *a, const void *b, void *arg)
{
	const struct rd_fabpic *p = arg;
	const struct rd_fabpic_box *x = &p->boxes[*(const int *)a], *y = &p->boxes[*(const int *)b];

	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	return rd_fabpic_by_name(a, b, arg);
}

/* Characters of UTF-8 text (its bytes but the continuation bytes), at most max (then one more: the ellipsis). */
static size_t chars(const char *s, size_t max)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n > max ? max + 1 : n;
}

/* Widths and x: the columns from the left, each row's boxes spread over the same width. */
static void across(struct rd_fabpic *p)
{
	double base = p->n_cols <= 12 ? 96 : p->n_cols <= 24 ? 64 : p->n_cols <= 48 ? 48 : p->n_cols <= 128 ? 32 : 24;
	double x;
	int *order = malloc((p->n_boxes ? p->n_boxes : 1) * sizeof(int));

	p->left = 12 + CH10 * 7;	/* "tier 12" */
	x = p->left;
	for (size_t c = 0; c < p->n_cols; c++) {
		struct rd_fabpic_col *col = &p->cols[c];
		double need = STRIP_W * (double)col->nstrips + 8;

		col->x = x;
		col->w = need > base ? need : base;
		x += col->w;
		if (col->box >= 0) {
			p->boxes[col->box].x = col->x + 2;
			p->boxes[col->box].w = col->w - 4;
		}
	}
	p->content_w = x - p->left;
	if (p->content_w < 240)
		p->content_w = 240;
	/* Higher rows, bottom up: each box under the mean x of the boxes below it that it links to. */
	for (size_t r = p->n_rows; order && r-- > 0;) {
		size_t k = 0;
		double spacing;

		if (p->rows[r].tier == 1)
			continue;
		for (size_t b = 0; b < p->n_boxes; b++) {
			const struct rd_fab_node *nd = &p->fab->nodes[p->boxes[b].node];
			double sum = 0;
			unsigned int cnt = 0;

			if (p->boxes[b].row != (int)r)
				continue;
			for (int q = 1; q <= nd->nports; q++) {
				int pn = nd->ports[q].peer_node, pb = pn >= 0 ? p->box_of[pn] : -1;

				if (pb >= 0 && p->boxes[pb].row > (int)r && p->boxes[pb].w > 0) {
					sum += p->boxes[pb].x + p->boxes[pb].w / 2;
					cnt++;
				}
			}
			p->boxes[b].x = cnt ? sum / cnt : 0;
			order[k++] = (int)b;
		}
		qsort_r(order, k, sizeof(int), by_place, p);
		spacing = p->content_w / (double)(k ? k : 1);
		for (size_t i = 0; i < k; i++) {
			struct rd_fabpic_box *b = &p->boxes[order[i]];

			b->w = spacing - 6 < 120 ? spacing - 6 : 120;
			b->x = p->left + ((double)i + 0.5) * spacing - b->w / 2;
		}
	}
	free(order);
	p->width = p->left + p->content_w + 16;
	if (p->width < MIN_WIDTH)
		p->width = MIN_WIDTH;
}

/* Heights and y, top down; then every badge's place. */
static void down(struct rd_fabpic *p)
{
	double y = 40, strip_h = 0;

	p->banner_y = y;
	p->n_banner = 0;
	for (size_t i = 0; i < p->n_faults; i++)
		p->n_banner += p->faults[i].at == RD_FABPIC_FABRIC;
	y += 16.0 * (double)p->n_banner + (p->n_banner ? 8 : 0);
	for (size_t r = 0; r < p->n_rows; r++) {
		double h = 20;

		for (size_t b = 0; b < p->n_boxes; b++) {
			struct rd_fabpic_box *bx = &p->boxes[b];
			size_t l = strlen(p->fab->nodes[bx->node].name);

			if (bx->row != (int)r)
				continue;
			bx->rotated = (double)l * CH10 + 6 > bx->w;
			if (bx->rotated) {
				double hh = (double)(l < NAME_CHARS ? l : NAME_CHARS + 1) * CH10 + 10;

				h = hh > h ? hh : h;
			}
		}
		/* Room above a row for its badges and its same-row arcs; between rows, their links. */
		y += r == 0 ? 56 : ROW_GAP;
		p->rows[r].y = y;
		p->rows[r].h = h;
		y += h;
	}
	for (size_t b = 0; b < p->n_boxes; b++) {
		p->boxes[b].y = p->rows[p->boxes[b].row].y;
		p->boxes[b].h = p->rows[p->boxes[b].row].h;
	}
	p->hca_y = y + (p->n_rows ? 28 : 0);
	p->hca_h = 46;
	p->strip_y = p->hca_y + p->hca_h + 18;
	for (size_t c = 0; c < p->n_cols; c++) {
		size_t j = 0;

		for (size_t s = 0; s < p->n_strips; s++) {
			struct rd_fabpic_strip *st = &p->strips[s];

			if (st->col != c)
				continue;
			st->x = p->cols[c].x + 4 + STRIP_W * (double)j++;
			st->y = p->strip_y;
			st->h = STEP * (double)st->nbadges + 4 + CH9 * (double)chars(st->label, STRIP_CHARS) + 6;
			strip_h = st->h > strip_h ? st->h : strip_h;
		}
	}
	p->legend_y = p->strip_y + strip_h + 28;
	p->list_y = p->legend_y + 5 * 18 + 18;
	p->n_listed = p->n_faults < RD_FABPIC_MAX_ROWS ? p->n_faults : RD_FABPIC_MAX_ROWS;
	p->height = p->list_y + 16.0 * (double)(p->n_listed + (p->n_faults > p->n_listed) + 1) + 12;
}

/* Each badge's centre: above a switch's box, down a strip, along a link, in the banner. */
static void badges(struct rd_fabpic *p)
{
	unsigned int *used_box = calloc(p->n_boxes ? p->n_boxes : 1, sizeof(unsigned int));
	unsigned int *used_strip = calloc(p->n_strips ? p->n_strips : 1, sizeof(unsigned int));
	unsigned int *used_link = calloc(p->n_links ? p->n_links : 1, sizeof(unsigned int));
	size_t banner = 0;

	for (size_t l = 0; l < p->n_links; l++) {
		struct rd_fabpic_link *lk = &p->links[l];
		const struct rd_fabpic_box *a = &p->boxes[lk->a], *b = &p->boxes[lk->b];
		double ax = a->x + a->w / 2, bx = b->x + b->w / 2;
		/* Along the line, staggered so that the labels of nearby links do not meet. */
		double t = 0.3 + 0.4 * ((double)l * 0.618 - (double)(long)((double)l * 0.618));

		if (a->row == b->row) {
			lk->x = (ax + bx) / 2;
			lk->y = a->y - 20 - (bx > ax ? bx - ax : ax - bx) * 0.05;
			if (lk->y < a->y - 48)
				lk->y = a->y - 48;
		} else {
			lk->x = ax + (bx - ax) * t;
			lk->y = a->y + ((b->y + b->h) - a->y) * t;
		}
	}
	for (size_t i = 0; i < p->n_faults; i++) {
		struct rd_fabpic_fault *f = &p->faults[i];

		switch (f->at) {
		case RD_FABPIC_SWITCH: {
			const struct rd_fabpic_box *b = &p->boxes[f->where];
			unsigned int per = b->w >= STEP ? (unsigned int)(b->w / STEP) : 1, k = used_box[f->where]++;
			unsigned int line = k / per;	/* badges wrap onto lines above the box */

			f->x = b->x + 6.5 + STEP * (double)(k % per);
			f->y = b->y - 8 - STEP * (double)line;
			break;
		}
		case RD_FABPIC_STRIP: {
			const struct rd_fabpic_strip *s = &p->strips[f->where];

			f->x = s->x + 6.5;
			f->y = s->y + 6.5 + STEP * (double)used_strip[f->where]++;
			break;
		}
		case RD_FABPIC_LINK: {
			const struct rd_fabpic_link *lk = &p->links[f->where];

			f->x = lk->x + STEP * (double)used_link[f->where]++;
			f->y = lk->y;
			break;
		}
		case RD_FABPIC_FABRIC:
			f->x = 18.5;
			f->y = p->banner_y + 16.0 * (double)banner++ - 4;
			break;
		default:
			break;
		}
	}
	free(used_box);
	free(used_strip);
	free(used_link);
}

void rd_fabpic_geometry(struct rd_fabpic *p)
{
	across(p);
	down(p);
	badges(p);
}

// SPDX-License-Identifier: MIT
/* rdma-fabric --svg: where everything goes (fabpic.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabpic.h"

int rd_fabpic_namecmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea, *eb;
			size_t la, lb;
			int c;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			c = strncmp(a, b, la);
			if (c)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

void rd_fabpic_words(const struct rd_fab_result *r, char *buf, size_t len, size_t max)
{
	static const char *const stops[] = { " where ", " (", ": ", "; ", ", " };
	size_t n = strlen(r->detail);

	for (size_t i = 0; i < RD_ARRAY_SIZE(stops); i++) {
		const char *s = strstr(r->detail, stops[i]);

		if (s && (size_t)(s - r->detail) < n && s > r->detail)
			n = (size_t)(s - r->detail);
	}
	if (n > max)
		n = max;
	if (n >= len)
		n = len - 1;
	/* Not inside a UTF-8 sequence. */
	while (n > 0 && ((unsigned char)r->detail[n] & 0xc0) == 0x80)
		n--;
	memcpy(buf, r->detail, n);
	buf[n] = '\0';
}

/* qsort_r of box indexes by their nodes' names. */
int rd_fabpic_by_name(const void *a, const void *b, void *arg)
{
	const struct rd_fabpic *p = arg;
	const struct rd_fabpic_box *x = &p->boxes[*(const int *)a], *y = &p->boxes[*(const int *)b];
	int c = rd_fabpic_namecmp(p->fab->nodes[x->node].name, p->fab->nodes[y->node].name);

	return c ? c : (x->node > y->node) - (x->node < y->node);
}

static int row_of_tier(const struct rd_fabpic *p, int tier)
{
	for (size_t r = 0; r < p->n_rows; r++)
		if (p->rows[r].tier == tier)
			return (int)r;
	return -1;
}

/*
 * The strip of a host under column col (node, or a gone host's GUID), made
 * on first use; past RD_FABPIC_MAX_STRIPS the column's last strip counts the
 * hosts that do not fit.
 */
static int strip_for(struct rd_fabpic *p, int *strip_of, size_t col, int node, uint64_t guid, const char *name)
{
	struct rd_fabpic_col *c = &p->cols[col];
	struct rd_fabpic_strip *s;

	if (node >= 0 && strip_of[node] >= 0)
		return strip_of[node];
	for (size_t i = 0; node < 0 && i < p->n_strips; i++)
		if (p->strips[i].node < 0 && p->strips[i].guid == guid)
			return (int)i;
	c->bad++;
	c->gone += node < 0;
	if (c->nstrips > RD_FABPIC_MAX_STRIPS) {
		for (size_t i = 0; i < p->n_strips; i++)
			if (p->strips[i].more && p->strips[i].col == col) {
				c->more++;
				if (node >= 0)
					strip_of[node] = (int)i;
				return (int)i;
			}
	}
	s = &p->strips[p->n_strips];
	memset(s, 0, sizeof(*s));
	s->col = col;
	s->node = node;
	s->guid = node < 0 ? guid : 0;
	s->name = name;
	s->port = s->sw_port = -1;
	s->more = c->nstrips == RD_FABPIC_MAX_STRIPS;
	c->more += s->more;
	c->nstrips++;
	if (node >= 0)
		strip_of[node] = (int)p->n_strips;
	return (int)p->n_strips++;
}

static int link_for(struct rd_fabpic *p, int a, int pa, int b, int pb)
{
	for (size_t i = 0; i < p->n_links; i++) {
		const struct rd_fabpic_link *l = &p->links[i];

		if ((l->a == a && l->pa == pa && l->b == b && l->pb == pb) ||
		    (l->a == b && l->pa == pb && l->b == a && l->pb == pa))
			return (int)i;
	}
	/* The end in the lower row first: the line is drawn from it up. */
	if (p->boxes[a].row < p->boxes[b].row)
		p->links[p->n_links] = (struct rd_fabpic_link){ b, pb, a, pa, RD_FAB_PASS, 0, 0, 0 };
	else
		p->links[p->n_links] = (struct rd_fabpic_link){ a, pa, b, pb, RD_FAB_PASS, 0, 0, 0 };
	return (int)p->n_links++;
}

/* The column a gone host hung from: the leaf of a result that names it as the far end. */
static int gone_col(const struct rd_fabpic *p, uint64_t guid)
{
	for (size_t i = 0; i < p->rep->n; i++) {
		const struct rd_fab_result *x = &p->rep->v[i];
		int n;

		if (x->peer_guid != guid || x->status < RD_FAB_WARN)
			continue;
		n = rd_fab_node_by_guid(p->fab, x->guid);
		if (n >= 0 && p->tier[n] == 1 && p->box_of[n] >= 0)
			return p->col_of[n];
	}
	return -1;
}

/* A badge more on a box, a link or a strip, or HIDDEN past the cap. */
static void badge_on(struct rd_fabpic_fault *f, enum rd_fabpic_at at, size_t where, unsigned int *nbadges,
		     enum rd_fab_status *worst)
{
	if (*nbadges >= RD_FABPIC_MAX_BADGES) {
		f->at = RD_FABPIC_HIDDEN;
		return;
	}
	f->at = at;
	f->where = where;
	(*nbadges)++;
	if (f->r->status > *worst)
		*worst = f->r->status;
}

/* Where one fault is drawn. */
static void place(struct rd_fabpic *p, struct rd_fabpic_fault *f, int *strip_of)
{
	const struct rd_fab *fab = p->fab;
	const struct rd_fab_result *x = f->r;
	int n = x->guid ? rd_fab_node_by_guid(fab, x->guid) : -1;
	int pn = x->peer_guid ? rd_fab_node_by_guid(fab, x->peer_guid) : -1;
	int s;

	f->at = RD_FABPIC_FABRIC;
	if (n < 0) {
		/* Gone since the baseline: a host under the leaf it hung from; else the banner. */
		int col = x->guid && x->host[0] ? gone_col(p, x->guid) : -1;

		if (col < 0)
			return;
		s = strip_for(p, strip_of, (size_t)col, -1, x->guid, x->object);
	} else if (fab->nodes[n].type != RD_FAB_SWITCH || (pn >= 0 && fab->nodes[pn].type != RD_FAB_SWITCH)) {
		/* A host, or a link with a host at one end: the host's strip. */
		int ca = fab->nodes[n].type != RD_FAB_SWITCH ? n : pn;
		int sw = ca == n ? pn : n;

		if (p->col_of[ca] < 0)
			return;
		s = strip_for(p, strip_of, (size_t)p->col_of[ca], ca, 0, fab->nodes[ca].name);
		if (p->strips[s].port < 0 && x->port > 0) {
			p->strips[s].port = ca == n ? x->port : x->peer_port;
			p->strips[s].sw_port = sw < 0 ? -1 : sw == n ? x->port : x->peer_port;
		}
	} else if (pn < 0 && x->peer_guid && x->host[0] && p->tier[n] == 1) {
		/* A leaf's port whose host is gone: that host's strip (named by the far end of the object). */
		const char *arrow = strstr(x->object, " <-> ");

		s = strip_for(p, strip_of, (size_t)p->col_of[n], -1, x->peer_guid, arrow ? arrow + 5 : x->object);
		if (p->strips[s].sw_port < 0) {
			p->strips[s].sw_port = x->port;
			p->strips[s].port = x->peer_port;
		}
	} else if (pn >= 0 && x->port > 0 && p->box_of[pn] >= 0) {
		size_t l = (size_t)link_for(p, p->box_of[n], x->port, p->box_of[pn], x->peer_port);

		badge_on(f, RD_FABPIC_LINK, l, &p->links[l].nbadges, &p->links[l].worst);
		return;
	} else {
		struct rd_fabpic_box *b = &p->boxes[p->box_of[n]];

		badge_on(f, RD_FABPIC_SWITCH, (size_t)p->box_of[n], &b->nbadges, &b->worst);
		return;
	}
	badge_on(f, RD_FABPIC_STRIP, (size_t)s, &p->strips[s].nbadges, &p->strips[s].worst);
}

/* A name as a label shows it: up to " (0x" or " port " (a gone host's object). */
static size_t name_len(const char *name)
{
	const char *a = strstr(name, " (0x"), *b = strstr(name, " port ");
	size_t n = strlen(name);

	if (a && (size_t)(a - name) < n)
		n = (size_t)(a - name);
	if (b && (size_t)(b - name) < n)
		n = (size_t)(b - name);
	return n;
}

/* Each strip's label: the host, its port and the switch's, each check once with its first words. */
static void strip_labels(struct rd_fabpic *p)
{
	for (size_t i = 0; i < p->n_strips; i++) {
		struct rd_fabpic_strip *s = &p->strips[i];
		size_t l;

		if (s->more) {
			rd_snprintf(s->label, sizeof(s->label), "+%u more hosts with faults",
				    p->cols[s->col].more);
			continue;
		}
		if (!s->name)
			s->name = "?";	/* every strip is made with one; said for the analyzers */
		l = name_len(s->name);
		rd_snprintf(s->label, sizeof(s->label), "%.*s", (int)(l < 100 ? l : 100), s->name);
		l = strlen(s->label);
		if (s->port > 0) {
			rd_snprintf(s->label + l, sizeof(s->label) - l, " [%d]", s->port);
			l = strlen(s->label);
		}
		if (s->sw_port > 0) {
			rd_snprintf(s->label + l, sizeof(s->label) - l, "%s-[%d]", s->port > 0 ? "" : " ", s->sw_port);
			l = strlen(s->label);
		}
		if (s->node < 0) {
			/* Gone: the checks' words would only say so again. */
			for (size_t k = 0; k < p->n_faults; k++)
				if (p->faults[k].at == RD_FABPIC_STRIP && p->faults[k].where == i) {
					rd_snprintf(s->label + l, sizeof(s->label) - l, ": %s, gone since the baseline",
						    p->faults[k].r->check ? p->faults[k].r->check->id : "?");
					break;
				}
			continue;
		}
		for (size_t k = 0, said = 0; k < p->n_faults; k++) {
			const struct rd_fabpic_fault *f = &p->faults[k];
			bool again = false;
			char words[32];

			if (f->at != RD_FABPIC_STRIP || f->where != i)
				continue;
			for (size_t j = 0; j < k && !again; j++)
				again = p->faults[j].at == RD_FABPIC_STRIP && p->faults[j].where == i &&
					p->faults[j].r->check == f->r->check;
			if (again)
				continue;
			rd_fabpic_words(f->r, words, sizeof(words), 24);
			rd_snprintf(s->label + l, sizeof(s->label) - l, "%s %s%s%s", said++ ? ";" : ":",
				    f->r->check ? f->r->check->id : "?", words[0] ? " " : "", words);
			l = strlen(s->label);
		}
	}
}

/* Rows, boxes, columns and the HCAs of each column. */
static int frame(struct rd_fabpic *p)
{
	const struct rd_fab *fab = p->fab;
	size_t n = fab->n_nodes ? fab->n_nodes : 1, nleaves = 0;
	bool unreached = false, homeless = false;
	int *last = NULL;

	p->tier = malloc(n * sizeof(int));
	p->box_of = malloc(n * sizeof(int));
	p->col_of = malloc(n * sizeof(int));
	p->next_ca = malloc(n * sizeof(int));
	p->boxes = calloc(n, sizeof(*p->boxes));
	if (!p->tier || !p->box_of || !p->col_of || !p->next_ca || !p->boxes)
		return -ENOMEM;
	p->top = rd_fab_tiers(fab, false, p->tier);
	if (p->top < 0)
		return p->top;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		p->box_of[i] = p->col_of[i] = p->next_ca[i] = -1;
		if (fab->nodes[i].type != RD_FAB_SWITCH)
			continue;
		unreached |= p->tier[i] < 0;
		nleaves += p->tier[i] == 1;
		p->switches++;
	}
	/* A row a tier, the highest first; the switches no HCA reaches above them all. */
	p->n_rows = (size_t)p->top + unreached;
	p->rows = calloc(p->n_rows ? p->n_rows : 1, sizeof(*p->rows));
	p->cols = calloc(nleaves + 1, sizeof(*p->cols));
	last = malloc((nleaves + 1) * sizeof(int));
	if (!p->rows || !p->cols || !last) {
		free(last);
		return -ENOMEM;
	}
	for (size_t r = 0; r < p->n_rows; r++)
		p->rows[r].tier = unreached && r == 0 ? -1 : p->top - (int)(r - unreached);
	for (size_t i = 0; i < fab->n_nodes; i++) {
		struct rd_fabpic_box *b = &p->boxes[p->n_boxes];

		if (fab->nodes[i].type != RD_FAB_SWITCH)
			continue;
		b->node = (int)i;
		b->row = row_of_tier(p, p->tier[i]);
		p->rows[b->row].nboxes++;
		if (p->tier[i] == 1)
			last[p->n_cols++] = (int)p->n_boxes;
		p->box_of[i] = (int)p->n_boxes++;
	}
	/* The columns: the leaves in the order of their names, then the HCAs on no switch. */
	qsort_r(last, p->n_cols, sizeof(int), rd_fabpic_by_name, p);
	for (size_t k = 0; k < p->n_cols; k++) {
		p->cols[k] = (struct rd_fabpic_col){ .box = last[k], .first_ca = -1 };
		p->col_of[p->boxes[last[k]].node] = (int)k;
		last[k] = -1;
	}
	last[p->n_cols] = -1;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *nd = &fab->nodes[i];
		int c = -1;

		if (nd->type == RD_FAB_SWITCH)
			continue;
		for (int q = 1; q <= nd->nports && c < 0; q++)
			if (nd->ports[q].peer_node >= 0)
				c = p->col_of[nd->ports[q].peer_node];
		if (c < 0) {
			if (!homeless)
				p->cols[p->n_cols++] = (struct rd_fabpic_col){ .box = -1, .first_ca = -1 };
			homeless = true;
			c = (int)p->n_cols - 1;
		}
		p->col_of[i] = c;
		if (last[c] < 0)
			p->cols[c].first_ca = (int)i;
		else
			p->next_ca[last[c]] = (int)i;
		last[c] = (int)i;
		p->cols[c].hcas++;
		p->hcas++;
	}
	free(last);
	return 0;
}

/* The links, each once: HCA links, switch-to-switch links. */
static void count_links(struct rd_fabpic *p)
{
	const struct rd_fab *fab = p->fab;

	for (size_t i = 0; i < fab->n_nodes; i++)
		for (int q = 1; q <= fab->nodes[i].nports; q++) {
			const struct rd_fab_port *pt = &fab->nodes[i].ports[q];

			if (pt->peer_node < 0 || (size_t)pt->peer_node < i ||
			    ((size_t)pt->peer_node == i && pt->peer_port <= q))
				continue;
			if (fab->nodes[i].type == RD_FAB_SWITCH && fab->nodes[pt->peer_node].type == RD_FAB_SWITCH)
				p->sw_links++;
			else
				p->ca_links++;
		}
}

int rd_fabpic_plan(struct rd_fabpic *p, const struct rd_fab *fab, const struct rd_fab_report *rep)
{
	int *strip_of = NULL;
	size_t nf = 0;
	int ret;

	memset(p, 0, sizeof(*p));
	p->fab = fab;
	p->rep = rep;
	ret = frame(p);
	if (ret)
		return ret;
	count_links(p);
	for (size_t i = 0; i < rep->n; i++)
		nf += rep->v[i].status == RD_FAB_WARN || rep->v[i].status == RD_FAB_FAIL;
	p->faults = calloc(nf ? nf : 1, sizeof(*p->faults));
	p->strips = calloc(nf ? nf : 1, sizeof(*p->strips));
	p->links = calloc(nf ? nf : 1, sizeof(*p->links));
	strip_of = malloc((fab->n_nodes ? fab->n_nodes : 1) * sizeof(int));
	if (!p->faults || !p->strips || !p->links || !strip_of) {
		free(strip_of);
		return -ENOMEM;
	}
	for (size_t i = 0; i < fab->n_nodes; i++)
		strip_of[i] = -1;
	for (size_t i = 0; i < rep->n; i++) {
		struct rd_fabpic_fault *f = &p->faults[p->n_faults];

		if (rep->v[i].status != RD_FAB_WARN && rep->v[i].status != RD_FAB_FAIL)
			continue;
		f->r = &rep->v[i];
		f->num = (unsigned int)++p->n_faults;
		p->count[f->r->status]++;
		place(p, f, strip_of);
		if (f->at == RD_FABPIC_FABRIC && p->n_banner++ >= RD_FABPIC_MAX_BANNER)
			f->at = RD_FABPIC_HIDDEN;
		p->hidden += f->at == RD_FABPIC_HIDDEN;
	}
	free(strip_of);
	for (size_t c = 0; c < p->n_cols; c++) {
		p->bad_hcas += p->cols[c].bad;
		p->gone_hcas += p->cols[c].gone;
	}
	p->sw_links_bad = (unsigned int)p->n_links;
	strip_labels(p);
	rd_fabpic_geometry(p);
	return 0;
}

void rd_fabpic_free(struct rd_fabpic *p)
{
	free(p->tier);
	free(p->box_of);
	free(p->col_of);
	free(p->next_ca);
	free(p->rows);
	free(p->boxes);
	free(p->cols);
	free(p->strips);
	free(p->links);
	free(p->faults);
	memset(p, 0, sizeof(*p));
}

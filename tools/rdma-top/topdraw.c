// SPDX-License-Identifier: MIT
/* rdma-top's screen: the port table, the detail pane, the help. */
#define _GNU_SOURCE
#include "topdraw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topfmt.h"

static const struct {
	const char *head, *abs_head;	/* rates / absolute values (key 'a') */
	int width;			/* 0: as wide as the widest value */
	bool right;
	int sum;			/* enum rd_sum, or -1 */
} cols[C_COUNT] = {
	[C_DEV] = { "DEV", "DEV", 0, false, -1 },
	[C_PORT] = { "PORT", "PORT", 4, true, -1 },
	[C_NETDEV] = { "NETDEV", "NETDEV", 0, false, -1 },
	[C_STATE] = { "STATE", "STATE", 0, false, -1 },
	[C_SPEED] = { "SPEED", "SPEED", 5, true, -1 },
	[C_TX] = { "TX Gb/s", "TX bytes", 8, true, RD_SUM_TX_BYTES },
	[C_RX] = { "RX Gb/s", "RX bytes", 8, true, RD_SUM_RX_BYTES },
	[C_TXP] = { "TX pkt/s", "TX pkts", 8, true, RD_SUM_TX_PKTS },
	[C_RXP] = { "RX pkt/s", "RX pkts", 8, true, RD_SUM_RX_PKTS },
	[C_UTIL] = { "UTIL%", "UTIL%", 5, true, -1 },
	[C_ERR] = { "ERR/s", "ERRORS", 6, true, RD_SUM_ERRORS },
	[C_CNP] = { "CNP/s", "CNP", 6, true, RD_SUM_CNP },
	[C_ECN] = { "ECN/s", "ECN", 6, true, RD_SUM_ECN },
};

const enum rd_topui_col rd_topui_sort_keys[RD_TOPUI_NSORT] = {
	C_DEV, C_TX, C_RX, C_TXP, C_RXP, C_UTIL, C_ERR, C_CNP, C_ECN,
};

/* ---- data ---- */

static double sort_value(const struct ui *u, const struct rd_watch_port *p, enum rd_topui_col c)
{
	const struct rd_sum_val *s;

	if (p->gone)
		return -2;
	if (c == C_UTIL)
		return p->util_known ? p->util_pct : -1;
	s = &p->sum[cols[c].sum];
	if (u->absolute)
		return s->total_known ? (double)s->total : -1;
	return s->rate_state == RD_RATE_OK || s->rate_state == RD_RATE_PARTIAL ? s->rate : -1;
}

static const struct ui *sort_ui;

static int cmp_rows(const void *a, const void *b)
{
	const struct rd_watch_port *x = *(const struct rd_watch_port *const *)a;
	const struct rd_watch_port *y = *(const struct rd_watch_port *const *)b;
	enum rd_topui_col c = rd_topui_sort_keys[sort_ui->sort];
	int r;

	if (c != C_DEV) {
		double vx = sort_value(sort_ui, x, c), vy = sort_value(sort_ui, y, c);

		if (vx != vy)
			return vx > vy ? -1 : 1;	/* biggest first, unknown last */
	}
	r = rd_natural_cmp(x->dev, y->dev);
	if (r)
		return r;
	return x->port < y->port ? -1 : x->port > y->port;
}

int rd_topui_build_view(struct ui *u)
{
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): v holds pointers; *v is one */
	struct rd_watch_port **v = realloc(u->view, (u->pw->n ? u->pw->n : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	u->view = v;
	u->nview = u->pw->n;
	memcpy(v, u->pw->v, u->nview * sizeof(*v));	/* NOLINT(bugprone-sizeof-expression) */
	sort_ui = u;
	if (u->nview > 1)
		qsort(v, u->nview, sizeof(*v), cmp_rows);	/* NOLINT(bugprone-sizeof-expression) */
	/* The selection follows its port through re-sorting. */
	for (size_t i = 0; i < u->nview; i++)
		if (v[i]->id == u->sel_id)
			u->sel = (int)i;
	if (u->sel >= (int)u->nview)
		u->sel = u->nview ? (int)u->nview - 1 : 0;
	if (u->nview)
		u->sel_id = v[u->sel]->id;
	return 0;
}

static struct rd_watch_port *find_row(const struct ui *u, unsigned long id)
{
	for (size_t i = 0; i < u->pw->n; i++)
		if (u->pw->v[i]->id == id)
			return u->pw->v[i];
	return NULL;
}

/* ---- drawing ---- */

static void put(int y, int x, attr_t a, int width, bool right, const char *s)
{
	int len = (int)strlen(s), avail = COLS - x;

	if (y >= LINES || avail <= 0)
		return;
	if (width > avail)
		width = avail;
	if (len > width)
		len = width;
	attron(a);
	mvaddnstr(y, right ? x + width - len : x, s, len);
	attroff(a);
}

static bool has_sum(const struct ui *u, enum rd_sum s)
{
	for (size_t i = 0; i < u->pw->n; i++)
		if (!u->pw->v[i]->gone && u->pw->v[i]->sum[s].present)
			return true;
	return false;
}

static void header(const struct ui *u)
{
	enum rd_topui_col sc = rd_topui_sort_keys[u->sort];
	char when[16], line[256];
	struct tm tm;

	localtime_r(&u->last, &tm);
	(void)strftime(when, sizeof(when), "%H:%M:%S", &tm);	/* fits: 8 chars */
	snprintf(line, sizeof(line), "rdma-top - %s - every %gs - %zu port%s - sort: %s%s%s", when,
		 u->interval, rd_portwatch_live(u->pw), rd_portwatch_live(u->pw) == 1 ? "" : "s",
		 u->absolute ? cols[sc].abs_head : cols[sc].head, u->absolute ? " - absolute" : "",
		 u->paused ? " - PAUSED" : "");
	put(0, 0, A_BOLD, COLS, false, line);
}

static void footer(const struct ui *u)
{
	const char *keys = u->detail ? "Esc back  j/k scroll  z hide zero  a abs  p pause  q quit  h help"
				     : "Enter detail  s sort  +/- interval  p pause  a abs  q quit  h help";

	put(LINES - 1, 0, A_DIM, COLS, false, keys);
}

/* Which columns fit, and their widths. */
static int layout(const struct ui *u, int w[C_COUNT])
{
	bool cnp = has_sum(u, RD_SUM_CNP), ecn = has_sum(u, RD_SUM_ECN);
	int x = 0, shown = 0;

	for (int c = 0; c < C_COUNT; c++) {
		w[c] = cols[c].width;
		if ((c == C_CNP && !cnp) || (c == C_ECN && !ecn)) {
			w[c] = 0;
			continue;
		}
		if (!w[c]) {
			w[c] = (int)strlen(cols[c].head);
			for (size_t i = 0; i < u->nview; i++) {
				const struct rd_watch_port *p = u->view[i];
				const char *s = c == C_DEV ? p->dev : c == C_NETDEV ? p->netdev : rd_fmt_state(p);
				int l = (int)strlen(s);

				if (l > w[c])
					w[c] = l;
			}
		}
		if (x + w[c] > COLS) {
			w[c] = 0;	/* does not fit: left out */
			continue;
		}
		x += w[c] + 2;
		shown++;
	}
	return shown;
}

static void cell_text(const struct ui *u, const struct rd_watch_port *p, int c, char *buf,
		      size_t len, attr_t *a)
{
	const struct rd_sum_val *s;

	*a = A_NORMAL;
	switch (c) {
	case C_DEV:
		snprintf(buf, len, "%s", p->dev);
		*a = u->a_name;
		return;
	case C_PORT:
		snprintf(buf, len, "%u", p->port);
		return;
	case C_NETDEV:
		snprintf(buf, len, "%s", p->netdev[0] ? p->netdev : "-");
		return;
	case C_STATE:
		snprintf(buf, len, "%s", rd_fmt_state(p));
		if (p->state_known)
			*a = p->state == 4 ? u->a_good : p->state == 1 ? u->a_bad : u->a_warn;
		return;
	case C_SPEED:
		rd_fmt_link(p, buf, len);
		return;
	case C_UTIL:
		rd_fmt_util(p, buf, len);
		return;
	default:
		break;
	}
	s = &p->sum[cols[c].sum];
	rd_fmt_sum(s, cols[c].sum, !u->absolute, true, buf, len);
	if (u->absolute)
		return;
	/* Errors (and congestion) that moved in this interval must jump out. */
	if ((c == C_ERR || c == C_CNP || c == C_ECN) && s->rate > 0 &&
	    (s->rate_state == RD_RATE_OK || s->rate_state == RD_RATE_PARTIAL))
		*a = c == C_ERR ? u->a_bad : u->a_warn;
	else if (s->saturated)
		*a = u->a_warn;
}

static void draw_table(struct ui *u)
{
	int w[C_COUNT], rows = LINES - 3, x, y;

	layout(u, w);
	x = 0;
	for (int c = 0; c < C_COUNT; c++) {
		if (!w[c])
			continue;
		attr_t a = u->a_head | (rd_topui_sort_keys[u->sort] == (enum rd_topui_col)c ? A_UNDERLINE : 0);

		put(1, x, a, w[c], cols[c].right, u->absolute ? cols[c].abs_head : cols[c].head);
		x += w[c] + 2;
	}
	if (!u->nview) {
		put(2, 0, A_NORMAL, COLS, false, "(no ports)");
		return;
	}
	if (rows < 1)
		return;
	if (u->sel < u->top)
		u->top = u->sel;
	if (u->sel >= u->top + rows)
		u->top = u->sel - rows + 1;
	if (u->top > (int)u->nview - rows)
		u->top = (int)u->nview - rows > 0 ? (int)u->nview - rows : 0;
	for (y = 0; y < rows && u->top + y < (int)u->nview; y++) {
		const struct rd_watch_port *p = u->view[u->top + y];
		bool sel = u->top + y == u->sel;
		attr_t rowa = p->gone ? u->a_dim : A_NORMAL;

		if (sel) {
			move(2 + y, 0);
			attron(A_REVERSE);
			hline(' ', COLS);
			attroff(A_REVERSE);
		}
		x = 0;
		for (int c = 0; c < C_COUNT; c++) {
			char buf[72];
			attr_t a;

			if (!w[c])
				continue;
			cell_text(u, p, c, buf, sizeof(buf), &a);
			if (p->gone)
				a = rowa;
			/* On the reversed row a reversed cell would vanish: underline it. */
			if (sel && (a & A_REVERSE))
				a = (a & ~A_REVERSE) | A_UNDERLINE;
			put(2 + y, x, a | (sel ? A_REVERSE : 0), w[c], cols[c].right, buf);
			x += w[c] + 2;
		}
	}
}

/*
 * Detail rows: error counters that moved in the last interval, the other
 * error counters, then the rest; each group by name.
 */
static size_t detail_rows(const struct ui *u, const struct rd_watch_port *p, size_t *idx)
{
	size_t n = 0;

	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < p->ctrs.n; i++) {
			const struct rd_counter *c = &p->ctrs.v[i];
			bool rated = c->kind == RD_DELTA_OK || c->kind == RD_DELTA_WRAP;
			bool zero = rated && c->rate == 0;
			int group = !c->info.error ? 2 : rated && c->rate > 0 ? 0 : 1;

			if (group != pass)
				continue;
			if (u->hide_zero && zero)
				continue;
			idx[n++] = i;
		}
	}
	return n;
}

static void draw_detail(struct ui *u, const struct rd_watch_port *p)
{
	char line[320], val[32], rate[48], link[16];
	int namew = 7, rows = LINES - 4;
	size_t *idx, n;

	rd_fmt_link(p, link, sizeof(link));
	snprintf(line, sizeof(line), "%s port %u  %s  %s  %s  link %s%s%s", p->dev, p->port,
		 p->netdev[0] ? p->netdev : "-", p->transport ? p->transport : "-", rd_fmt_state(p),
		 link, p->hw_source ? "  hw counters via " : "", p->hw_source ? p->hw_source : "");
	put(1, 0, u->a_name, COLS, false, line);
	if (p->gone || !p->ctrs.n) {
		put(3, 0, A_NORMAL, COLS, false, p->gone ? "(the port is gone)" : "(no counters)");
		return;
	}
	idx = calloc(p->ctrs.n, sizeof(*idx));
	if (!idx)
		return;
	n = detail_rows(u, p, idx);
	for (size_t i = 0; i < n; i++) {
		int l = (int)strlen(p->ctrs.v[idx[i]].name);

		if (l > namew)
			namew = l;
	}
	put(2, 0, u->a_head, namew, false, "COUNTER");
	put(2, namew + 2, u->a_head, 11, false, "DIR");
	put(2, namew + 15, u->a_head, 20, true, "VALUE");
	put(2, namew + 37, u->a_head, 14, true, "RATE");
	put(2, namew + 53, u->a_head, COLS, false, "NOTE");
	if (u->dtop > (int)n - rows)
		u->dtop = (int)n - rows > 0 ? (int)n - rows : 0;
	for (int y = 0; y < rows && u->dtop + y < (int)n; y++) {
		const struct rd_counter *c = &p->ctrs.v[idx[u->dtop + y]];
		bool moving = (c->kind == RD_DELTA_OK || c->kind == RD_DELTA_WRAP) && c->rate > 0;
		attr_t a = moving ? (c->info.error ? u->a_bad : A_NORMAL) : u->a_dim;
		const char *note = "";

		if (c->err)
			snprintf(val, sizeof(val), "?");
		else
			snprintf(val, sizeof(val), "%llu", (unsigned long long)c->value);
		rd_fmt_counter_rate(c, rate, sizeof(rate));
		if (c->err)
			note = rd_read_strerror(c->err);
		else if (c->kind == RD_DELTA_SATURATED)
			note = "saturated: rate unknown";
		else if (c->kind == RD_DELTA_WRAP)
			note = "wrapped (32-bit)";
		else if (c->kind == RD_DELTA_RESET)
			note = "went down: reset, rate unknown";
		else if (c->info.scale == 4)
			note = "4-octet words";
		if (c->kind == RD_DELTA_SATURATED)
			a = u->a_warn;
		put(3 + y, 0, a, namew, false, c->name);
		put(3 + y, namew + 2, a, 11, false, rd_ctr_src_dir(c->src));
		put(3 + y, namew + 15, a, 20, true, val);
		put(3 + y, namew + 37, a, 14, true, rate);
		put(3 + y, namew + 53, a, COLS, false, note);
	}
	free(idx);
}

static void draw_help(void)
{
	static const char *const text[] = {
		"rdma-top keys",
		"",
		"  q            quit",
		"  Up/Down j/k  select a port (PgUp/PgDn, Home/End)",
		"  Enter, d     detail: every counter of the port",
		"  Esc, Left    back from the detail",
		"  s / S        sort by the next / previous column",
		"  + / -        longer / shorter interval",
		"  p, space     pause / resume sampling",
		"  a            absolute totals / rates",
		"  z            detail: hide counters that did not move",
		"  h, ?         this help (any key closes it)",
		"",
		"Red: errors in the last interval; yellow: congestion,",
		"saturated counters. '-' no rate yet or no counter,",
		"'sat' saturated, 'N+' at least N (some saturated).",
	};
	int h = (int)RD_ARRAY_SIZE(text) + 2, w = 60;
	int y0 = (LINES - h) / 2, x0 = (COLS - w) / 2;

	if (y0 < 0)
		y0 = 0;
	if (x0 < 0)
		x0 = 0;
	for (int y = 0; y < h && y0 + y < LINES; y++) {
		move(y0 + y, x0);
		for (int x = 0; x < w && x0 + x < COLS; x++)
			addch(' ' | A_REVERSE);
		if (y > 0 && y <= (int)RD_ARRAY_SIZE(text))
			put(y0 + y, x0 + 2, A_REVERSE, w - 4, false, text[y - 1]);
	}
}

void rd_topui_draw(struct ui *u)
{
	erase();	/* not clear(): ncurses then sends only the cells that changed */
	if (LINES < 4 || COLS < 20) {
		put(0, 0, A_NORMAL, COLS, false, "terminal too small");
		refresh();
		return;
	}
	if (rd_topui_build_view(u))
		return;
	header(u);
	if (u->detail) {
		struct rd_watch_port *p = find_row(u, u->detail_id);

		if (p)
			draw_detail(u, p);
		else
			u->detail = false;
	}
	if (!u->detail)
		draw_table(u);
	footer(u);
	if (u->help)
		draw_help();
	refresh();
}


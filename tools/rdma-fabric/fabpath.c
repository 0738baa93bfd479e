// SPDX-License-Identifier: MIT
/*
 * rdma-fabric --path: each route as ibtracert prints it (the From and To
 * lines in its words, the hops as a table), each link judged on the way:
 * not Active is FAIL, slower than both ends enable or with error counters
 * is WARN; a route that breaks (no entry, a port not up, a loop) is FAIL
 * at the hop where it breaks.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "cli/cli.h"
#include "fabpath.h"
#include "model/model.h"

const struct rd_col rd_fabpath_cols[RD_FABPATH_NCOLS] = {
	{ "hop", "HOP", true, false },
	{ "out_port", "OUT", true, false },
	{ "type", "TO", false, false },
	{ "port_guid", "GUID", false, false },
	{ "in_port", "IN", true, false },
	{ "lid", "LID", true, false },
	{ "node", "NODE", false, false },
	{ "state", "STATE", false, false },
	{ "rate", "RATE", false, false },
	{ "errors", "ERRORS", true, false },
	{ "status", "STATUS", false, false },
	{ "detail", "DETAIL", false, true },
};

int rd_fabpath_add(struct rd_fabpath *ps, const char *src, const char *dst, const char *where)
{
	struct rd_fabpath_pair *p;

	if (ps->n >= RD_FABPATH_MAX)
		return -E2BIG;
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 8;

		p = realloc(ps->v, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		ps->v = p;
		ps->cap = cap;
	}
	p = &ps->v[ps->n];
	memset(p, 0, sizeof(*p));
	p->src = strdup(src);
	p->dst = strdup(dst);
	p->where = where;
	p->src_node = p->dst_node = -1;
	if (!p->src || !p->dst) {
		free(p->src);
		free(p->dst);
		return -ENOMEM;
	}
	ps->n++;
	return 0;
}

void rd_fabpath_free(struct rd_fabpath *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		free(ps->v[i].src);
		free(ps->v[i].dst);
	}
	for (size_t i = 0; i < ps->n_where; i++)
		free(ps->where[i]);
	free(ps->where);
	free(ps->v);
	memset(ps, 0, sizeof(*ps));
}

/* One field of a line: a word, or a "quoted name"; *s moves past it.  NULL at the end or on an error. */
static char *field(char **s, const char **err)
{
	char *p = *s, *start, *end;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return NULL;
	if (*p == '"') {
		start = ++p;
		end = strchr(p, '"');
		if (!end) {
			*err = "a name without its closing quote";
			return NULL;
		}
		*end = '\0';
		*s = end + 1;
		if (**s && **s != ' ' && **s != '\t') {
			*err = "text right after a closing quote";
			return NULL;
		}
		return start;
	}
	start = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (*p)
		*p++ = '\0';
	*s = p;
	return start;
}

int rd_fabpath_read(struct rd_fabpath *ps, const char *path, int timeout_ms, char *why, size_t why_len)
{
	struct rd_infile_limits lim = {
		.max_bytes = 64u << 20, .max_line = 4096, .max_lines = (size_t)RD_FABPATH_MAX * 2,
		.timeout_ms = timeout_ms,
	};
	struct rd_infile f;
	size_t before = ps->n;
	char *line;
	size_t len;
	int ret;

	ret = rd_infile_open(&f, path, &lim, why, why_len);
	if (ret)
		return ret;
	while ((ret = rd_infile_line(&f, &line, &len, why, why_len)) == 1) {
		const char *err = NULL;
		char *s = line, *a, *b, *w, **nw;

		a = field(&s, &err);
		b = a && !err ? field(&s, &err) : NULL;
		if (!a && !err)
			continue;	/* blank or comment */
		if (!err && (!b || field(&s, &err) || err))
			err = err ? err : !b ? "one name, not 'SRC DST'" : "more than two names (quote a "
			      "name with blanks: \"h005 mlx5_0\")";
		if (err || !*a || !*b) {
			snprintf(why, why_len, "line %zu: %s", f.lineno, err ? err : "an empty name");
			ret = -EINVAL;
			break;
		}
		if (asprintf(&w, "%s:%zu", path, f.lineno) < 0 ||
		    !(nw = realloc(ps->where, (ps->n_where + 1) * sizeof(*nw)))) {
			ret = -ENOMEM;
			snprintf(why, why_len, "%s", strerror(ENOMEM));
			break;
		}
		ps->where = nw;
		ps->where[ps->n_where++] = w;
		ret = rd_fabpath_add(ps, a, b, w);
		if (ret) {
			snprintf(why, why_len, "line %zu: %s", f.lineno, ret == -E2BIG ?
				 "more than 100000 pairs" : strerror(-ret));
			break;
		}
	}
	rd_infile_close(&f);
	if (ret >= 0 && ps->n == before) {
		snprintf(why, why_len, "no 'SRC DST' line in it");
		ret = -EINVAL;
	}
	return ret < 0 ? ret : 0;
}

int rd_fabpath_resolve(const struct rd_fab *fab, struct rd_fabpath *ps, char *why, size_t why_len)
{
	for (size_t i = 0; i < ps->n; i++) {
		struct rd_fabpath_pair *p = &ps->v[i];
		char w[256];
		int ret;

		ret = rd_fab_endpoint(fab, p->src, &p->src_node, &p->src_port, w, sizeof(w));
		if (!ret)
			ret = rd_fab_endpoint(fab, p->dst, &p->dst_node, &p->dst_port, w, sizeof(w));
		if (ret) {
			rd_snprintf(why, why_len, "%s: %s", p->where, w);
			return ret;
		}
	}
	return 0;
}

/* The destination LID: a switch's, or the CA port's base LID. */
static uint16_t dst_lid(const struct rd_fab *fab, const struct rd_fabpath_pair *p)
{
	const struct rd_fab_node *n = &fab->nodes[p->dst_node];

	return n->type == RD_FAB_SWITCH ? n->lid : n->ports[p->dst_port].lid;
}

void rd_fabpath_pick(struct rd_fab *fab, void *arg)
{
	struct rd_fabpath *ps = arg;
	char why[256];

	/* Names from a node name map come later: a pair not found now only goes without counters. */
	for (size_t i = 0; i < ps->n; i++) {
		struct rd_fabpath_pair *p = &ps->v[i];
		struct rd_fab_route r;

		if (rd_fab_endpoint(fab, p->src, &p->src_node, &p->src_port, why, sizeof(why)) ||
		    rd_fab_endpoint(fab, p->dst, &p->dst_node, &p->dst_port, why, sizeof(why)) ||
		    rd_fab_route(fab, p->src_node, p->src_port, dst_lid(fab, p), &r))
			continue;
		for (size_t k = 0; k < r.n; k++) {
			const struct rd_fab_hop *h = &r.hop[k];
			struct rd_fab_node *n = &fab->nodes[h->node];

			if (h->in_port > 0)
				n->ports[h->in_port].picked = true;
			if (h->out_port > 0 && h->out_port <= n->nports)
				n->ports[h->out_port].picked = true;
		}
	}
}

static uint64_t errors(const struct rd_fab_port *a, bool *read)
{
	uint64_t sum = 0;

	*read = a->ctr_read[0];
	if (!a->ctr_read[0])
		return 0;
	for (int c = 0; c < RD_FAB_NCTRS; c++)
		if (rd_fab_ctr_info((enum rd_fab_ctr)c)->error)
			sum += a->ctr[a->ctr_read[1] ? 1 : 0][c];
	return sum;
}

static const char *status_word(enum rd_fab_status s, bool json)
{
	static const char *const up[] = { "PASS", "SKIP", "WARN", "FAIL" };
	static const char *const low[] = { "pass", "skip", "warn", "fail" };

	return json ? low[s] : up[s];
}

static enum rd_color status_color(enum rd_fab_status s)
{
	return s == RD_FAB_FAIL ? RD_C_BAD : s == RD_FAB_WARN ? RD_C_WARN : RD_C_GOOD;
}

/*
 * The link from hop a's out port to hop b's in port, judged as the link and
 * port checks judged it (their results on either end); detail says why.
 */
static enum rd_fab_status judge_link(const struct rd_fab *fab, const struct rd_fab_report *rep,
				     const struct rd_fab_hop *a, const struct rd_fab_hop *b, char *detail,
				     size_t len, uint64_t *errs, bool *errs_read)
{
	const struct rd_fab_node *na = &fab->nodes[a->node], *nb = &fab->nodes[b->node];
	const struct rd_fab_port *x = &na->ports[a->out_port], *y = &nb->ports[b->in_port];
	enum rd_fab_status st = RD_FAB_PASS;
	bool ra, rb;

	*errs = errors(x, &ra) + errors(y, &rb);
	*errs_read = ra || rb;
	detail[0] = '\0';
	for (size_t i = 0; rep && i < rep->n; i++) {
		const struct rd_fab_result *r = &rep->v[i];
		bool here = (r->guid == na->guid && r->port == a->out_port) ||
			    (r->guid == nb->guid && r->port == b->in_port) ||
			    (r->peer_guid == na->guid && r->peer_port == a->out_port) ||
			    (r->peer_guid == nb->guid && r->peer_port == b->in_port);

		if (!here || (r->status != RD_FAB_WARN && r->status != RD_FAB_FAIL) || r->status <= st)
			continue;
		st = r->status;
		rd_snprintf(detail, len, "%s: %s", r->check->id, r->detail);
	}
	if (st == RD_FAB_PASS && (x->state != RD_FAB_ACTIVE || y->state != RD_FAB_ACTIVE)) {
		snprintf(detail, len, "the link is %s", rd_fab_state_name(x->state != RD_FAB_ACTIVE ? x->state :
									     y->state));
		st = RD_FAB_FAIL;
	}
	return st;
}

static void guid_hex(uint64_t g, char *buf)
{
	rd_format_guid_hex(g, buf);
}

/* A node as ibtracert names it: {GUID} and the LID range of the port. */
static void lid_range(const struct rd_fab_node *n, int p, char *buf, size_t len)
{
	const struct rd_fab_port *pt = &n->ports[n->type == RD_FAB_SWITCH ? 0 : p];
	unsigned int lid = n->type == RD_FAB_SWITCH ? n->lid : pt->lid;

	snprintf(buf, len, "%u-%u", lid, lid + (1u << (pt->lmc & 7)) - 1);
}

static const char *type_word(int type)
{
	return type == RD_FAB_SWITCH ? "switch" : type == RD_FAB_ROUTER ? "router" : "ca";
}

/* ibtracert's "From ca {GUID} portnum 1 lid 5-5 "h002 mlx5_0"" (and "To ..."). */
static void end_line(struct rd_out *o, const struct rd_fab *fab, const char *word, int node, int port)
{
	const struct rd_fab_node *n = &fab->nodes[node];
	char g[24], lr[32];

	guid_hex(n->guid, g);
	lid_range(n, port, lr, sizeof(lr));
	rd_out_line(o, "%s %s {%s} portnum %d lid %s \"%s\"", word, type_word(n->type), g,
		    n->type == RD_FAB_SWITCH ? 0 : port, lr, n->name);
}

static void end_json(struct rd_out *o, const struct rd_fab *fab, const char *key, const char *spec,
		     int node, int port)
{
	const struct rd_fab_node *n = &fab->nodes[node];
	char g[24];

	rd_out_section_begin(o, key, NULL);
	rd_out_str(o, RD_JSON, "name", NULL, spec);
	rd_out_str(o, RD_JSON, "node", NULL, n->name);
	rd_out_str(o, RD_JSON, "type", NULL, type_word(n->type));
	guid_hex(n->guid, g);
	rd_out_str(o, RD_JSON, "guid", NULL, g);
	rd_out_u64(o, RD_JSON, "port", NULL, (uint64_t)(n->type == RD_FAB_SWITCH ? 0 : port));
	rd_out_u64(o, RD_JSON, "lid", NULL, n->type == RD_FAB_SWITCH ? n->lid : n->ports[port].lid);
	rd_out_str(o, RD_JSON, "host", NULL, n->host[0] ? n->host : NULL);
	rd_out_section_end(o);
}

static void hop_row(struct rd_out *o, const struct rd_fab *fab, const struct rd_fab_report *rep,
		    const struct rd_fab_route *r, size_t k, enum rd_fab_status *worst, const char *why,
		    char *first, size_t first_len)
{
	const struct rd_fab_hop *h = &r->hop[k], *prev = &r->hop[k - 1];
	const struct rd_fab_node *n = &fab->nodes[h->node];
	const struct rd_fab_port *in = &n->ports[h->in_port];
	const struct rd_fab_port *pg = &n->ports[n->type == RD_FAB_SWITCH ? 0 : h->in_port];
	const struct rd_fab_port *x = &fab->nodes[prev->node].ports[prev->out_port];
	enum rd_fab_status st;
	char g[24], detail[400], rate[32];
	uint64_t errs;
	uint8_t state;
	bool errs_read;

	st = judge_link(fab, rep, prev, h, detail, sizeof(detail), &errs, &errs_read);
	rd_out_row_begin(o);
	rd_out_u64(o, RD_ANY, "hop", NULL, k);
	rd_out_u64(o, RD_ANY, "out_port", NULL, (uint64_t)prev->out_port);
	rd_out_str(o, RD_ANY, "type", NULL, type_word(n->type));
	guid_hex(pg->guid ? pg->guid : n->guid, g);
	rd_out_str(o, RD_ANY, "port_guid", NULL, g);
	guid_hex(n->guid, g);
	rd_out_str(o, RD_JSON, "guid", NULL, g);
	rd_out_u64(o, RD_ANY, "in_port", NULL, (uint64_t)h->in_port);
	rd_out_u64(o, RD_ANY, "lid", NULL, n->type == RD_FAB_SWITCH ? n->lid : in->lid);
	rd_out_u64(o, RD_JSON, "lmc", NULL, pg->lmc);
	rd_out_str(o, RD_ANY, "node", NULL, n->name);
	rd_out_str(o, RD_JSON, "host", NULL, n->host[0] ? n->host : NULL);
	state = x->state != RD_FAB_ACTIVE ? x->state : in->state;
	rd_out_str(o, RD_TEXT, "state", NULL, rd_fab_state_name(state));
	rd_out_str(o, RD_JSON, "state", NULL, rd_fab_state_key(state));
	snprintf(rate, sizeof(rate), "%s %s", rd_fab_width_name(x->w_act), rd_fab_speed_name(x));
	rd_out_str(o, RD_TEXT, "rate", NULL, x->state == RD_FAB_ACTIVE ? rate : NULL);
	rd_out_str(o, RD_JSON, "width", NULL, x->state == RD_FAB_ACTIVE ? rd_fab_width_name(x->w_act) : NULL);
	rd_out_str(o, RD_JSON, "speed", NULL, x->state == RD_FAB_ACTIVE ? rd_fab_speed_name(x) : NULL);
	if (errs_read)
		rd_out_u64(o, RD_ANY, "errors", NULL, errs);
	else
		rd_out_str(o, RD_TEXT, "errors", NULL, NULL);
	/* The route breaks at this node: its verdict is the route's. */
	if (k == r->n - 1 && r->end != RD_FAB_ROUTE_OK) {
		st = RD_FAB_FAIL;
		snprintf(detail, sizeof(detail), "%s", why);
	}
	rd_out_cstr(o, RD_TEXT, "status", NULL, status_color(st), status_word(st, false));
	rd_out_str(o, RD_JSON, "status", NULL, status_word(st, true));
	rd_out_str(o, RD_ANY, "detail", NULL, detail[0] ? detail : NULL);
	rd_out_row_end(o);
	if (st > *worst && st != RD_FAB_SKIP) {
		*worst = st;
		rd_snprintf(first, first_len, "hop %zu (%s): %s", k, n->name, detail);
	}
}

/* Why a route broke, at its last hop, in words. */
static void broke(const struct rd_fab *fab, const struct rd_fab_route *r, char *buf, size_t len)
{
	const struct rd_fab_hop *h = &r->hop[r->n - 1];
	const char *name = fab->nodes[h->node].name;

	switch (r->end) {
	case RD_FAB_ROUTE_OK:
		buf[0] = '\0';
		break;
	case RD_FAB_ROUTE_HOLE:
		snprintf(buf, len, "%s has no forwarding entry for LID %u: packets are dropped here", name,
			 r->dlid);
		break;
	case RD_FAB_ROUTE_DOWN:
		snprintf(buf, len, "%s forwards LID %u out of port %d, which is %s", name, r->dlid, h->out_port,
			 fab->nodes[h->node].ports[h->out_port].peer_node < 0 &&
			 fab->nodes[h->node].ports[h->out_port].state == RD_FAB_ACTIVE ? "not cabled" :
			 rd_fab_state_name(fab->nodes[h->node].ports[h->out_port].state));
		break;
	case RD_FAB_ROUTE_LOOP:
		snprintf(buf, len, "the route comes back to %s: a loop", name);
		break;
	case RD_FAB_ROUTE_UNKNOWN:
		snprintf(buf, len, "%s: its forwarding table was not read", name);
		break;
	case RD_FAB_ROUTE_DEAD_END:
		snprintf(buf, len, "delivered to %s, which does not have LID %u", name, r->dlid);
		break;
	case RD_FAB_ROUTE_NO_START:
		snprintf(buf, len, "%s port %d is %s", name, h->out_port,
			 rd_fab_state_name(fab->nodes[h->node].ports[h->out_port].state));
		break;
	case RD_FAB_ROUTE_TOO_LONG:
		snprintf(buf, len, "more than %d hops", RD_FAB_MAX_HOPS);
		break;
	}
}

static enum rd_fab_status one_path(struct rd_out *o, const struct rd_fab *fab, const struct rd_fab_report *rep,
				   const struct rd_fabpath_pair *p)
{
	struct rd_fab_route r;
	enum rd_fab_status worst = RD_FAB_PASS;
	bool json = rd_out_is_json(o);
	char why[256] = "", first[600] = "";
	size_t links;

	rd_fab_route(fab, p->src_node, p->src_port, dst_lid(fab, p), &r);
	broke(fab, &r, why, sizeof(why));
	rd_out_section_begin(o, NULL, NULL);
	end_json(o, fab, "from", p->src, p->src_node, p->src_port);
	end_json(o, fab, "to", p->dst, p->dst_node, p->dst_port);
	end_line(o, fab, "From", p->src_node, p->src_port);
	/* A route to itself has no hop: no table under the From line. */
	if (r.n > 1 || json) {
		rd_out_table_begin(o, "hops", rd_fabpath_cols, RD_FABPATH_NCOLS, true);
		for (size_t k = 1; k < r.n; k++)
			hop_row(o, fab, rep, &r, k, &worst, why, first, sizeof(first));
		rd_out_table_end(o);
	}
	if (r.end != RD_FAB_ROUTE_OK)
		worst = RD_FAB_FAIL;
	else
		end_line(o, fab, "To", p->dst_node, p->dst_port);
	links = r.n ? r.n - 1 : 0;
	rd_out_str(o, RD_JSON, "verdict", NULL, status_word(worst, true));
	rd_out_str(o, RD_JSON, "end", NULL, r.end == RD_FAB_ROUTE_OK ? "reached" :
		   rd_fab_route_end_name(r.end));
	rd_out_str(o, RD_JSON, "detail", NULL, why[0] ? why : NULL);
	rd_out_u64(o, RD_JSON, "links", NULL, links);
	if (!json) {
		char line[700];

		if (r.end != RD_FAB_ROUTE_OK)
			rd_snprintf(line, sizeof(line), "%s -> %s: broken after %zu link%s: %s", p->src, p->dst,
				    links, links == 1 ? "" : "s", why);
		else
			rd_snprintf(line, sizeof(line), "%s -> %s: %zu link%s%s%s", p->src, p->dst, links,
				    links == 1 ? "" : "s", first[0] ? "; " : "", first);
		rd_out_text(o, status_color(worst), "%s", status_word(worst, false));
		rd_out_text(o, RD_C_NONE, ": %s\n", line);
	}
	rd_out_section_end(o);
	return worst;
}

enum rd_fab_status rd_fabpath_print(struct rd_out *o, const struct rd_fab *fab, const struct rd_fabpath *ps,
				   const struct rd_fab_report *links)
{
	enum rd_fab_status worst = RD_FAB_PASS;

	rd_out_section_begin(o, NULL, NULL);
	rd_out_list_begin(o, "paths");
	for (size_t i = 0; i < ps->n; i++) {
		enum rd_fab_status s;

		if (i && !rd_out_is_json(o))
			rd_out_line(o, "%s", "");
		s = one_path(o, fab, links, &ps->v[i]);
		if (s > worst && s != RD_FAB_SKIP)
			worst = s;
	}
	rd_out_list_end(o);
	rd_out_str(o, RD_JSON, "verdict", NULL, status_word(worst, true));
	rd_out_section_end(o);
	return worst;
}

int rd_fabpath_run(struct rd_cli *cli, struct rd_out *o, const struct rd_fab *fab, struct rd_fabpath *paths,
		   const char *load)
{
	char why[512];

	if (!fab->have_routes) {
		rd_cli_error(cli, "--path: %s has no forwarding tables (ibnetdiscover --cache keeps none: "
			     "save the fabric with rdma-fabric --save)", load ? load : "the sweep");
		return RD_EXIT_FAIL;
	}
	if (rd_fabpath_resolve(fab, paths, why, sizeof(why))) {
		rd_cli_error(cli, "%s", why);
		return RD_EXIT_FAIL;
	}
	{
		/* Each hop judged as the link and port checks judge its link. */
		struct rd_strlist only = { 0 }, skip = { 0 };
		struct rd_fab_check_opts co = { .only = &only, .skip = &skip };
		struct rd_fab_report rep = { 0 };
		enum rd_fab_status worst;

		if (rd_strlist_add(&only, "link") || rd_strlist_add(&only, "port") ||
		    rd_strlist_add(&skip, "link.baseline")) {
			rd_strlist_free(&only);
			rd_strlist_free(&skip);
			rd_cli_error(cli, "out of memory");
			return RD_EXIT_FAIL;
		}
		rd_fab_run_checks(fab, &co, &rep);
		worst = rd_fabpath_print(o, fab, paths, &rep);
		rd_fab_report_free(&rep);
		rd_strlist_free(&only);
		rd_strlist_free(&skip);
		return worst == RD_FAB_FAIL ? RD_EXIT_FAIL : RD_EXIT_OK;
	}
}

// SPDX-License-Identifier: MIT
/*
 * rdma-fleet: what it prints.  The summary on stdout: the hosts, the facts
 * with their majority and outliers, the mesh and the suspects (fleetmesh.c,
 * fleetsuspect.c), the problems (in text, identical ones once with their
 * hosts as a host list) and the result; and the --svg picture to its file.
 */
#define _GNU_SOURCE
#include "fleetprint.h"
#include "fleetmesh.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/base.h"

/* A value in JSON with its own type; absent values are left out. */
static void out_value(struct rd_out *o, const char *key, const struct rd_fleet_value *v)
{
	json_object *j = v->val;

	if (!j || json_object_is_type(j, json_type_null))
		return;
	if (json_object_is_type(j, json_type_int) && json_object_get_int64(j) >= 0)
		rd_out_u64(o, RD_JSON, key, NULL, (uint64_t)json_object_get_int64(j));
	else if (json_object_is_type(j, json_type_double))
		rd_out_double(o, RD_JSON, key, NULL, json_object_get_double(j), "%g");
	else if (json_object_is_type(j, json_type_boolean))
		rd_out_bool(o, RD_JSON, key, NULL, json_object_get_boolean(j));
	else if (json_object_is_type(j, json_type_string))
		rd_out_str(o, RD_JSON, key, NULL, json_object_get_string(j));
	else
		rd_out_str(o, RD_JSON, key, NULL, rd_fleet_value_text(v));
}

static const struct rd_col fact_cols[] = {
	{ "fact", "FACT", false, false },
	{ "dev", "DEV", false, false },
	{ "port", "PORT", true, false },
	{ "majority", "MAJORITY", false, false },
	{ "agree", "AGREE", true, false },
	{ "outliers", "OUTLIERS", false, true },
};

static const struct rd_col problem_cols[] = {
	{ "host", "HOST", false, false },
	{ "source", "SOURCE", false, false },
	{ "line", "LINE", true, false },
	{ "problem", "PROBLEM", false, true },
};

/* Text: identical problems once, with their hosts as a host list. */
static const struct rd_col problem_group_cols[] = {
	{ "hosts", "HOSTS", false, false },
	{ "source", "SOURCE", false, false },
	{ "line", "LINE", true, false },
	{ "problem", "PROBLEM", false, true },
};
const struct rd_out_colset rd_fleet_tables[RD_FLEET_NTABLES] = {
	{ fact_cols, RD_ARRAY_SIZE(fact_cols) },
	{ problem_cols, RD_ARRAY_SIZE(problem_cols) },
	{ problem_group_cols, RD_ARRAY_SIZE(problem_group_cols) },
	{ rd_fleet_slow_cols, RD_FLEET_SLOW_NCOLS },
	{ rd_fleet_suspect_cols, RD_FLEET_SUSPECT_NCOLS },
};

/* The problems that read the same: one row of the text table. */
struct problem_group {
	const char *what;
	const char *source;	/* the one source of them all, NULL when several */
	size_t nsources;	/* distinct sources seen (counted when they change) */
	size_t line;		/* of the first */
	size_t n;		/* problems */
	size_t first;		/* index of the first host in the group's host slice */
	size_t nhosts;
};

static const char *source_text(const char *s)
{
	return s && strcmp(s, "-") == 0 ? "stdin" : s;
}

static bool same_source(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/*
 * Problems come sorted by host; a group keeps the first-seen order of its
 * text, and lists each host once (a host's repeats are next to each other).
 * The host names are borrowed from the problems, in one array sliced by
 * group, so a million "sent nothing" lines cost two arrays, not a million
 * strings.
 */
static int print_problem_groups(struct rd_out *o, const struct rd_fleet_problem *pv, size_t np)
{
	struct problem_group *g = NULL;
	size_t *of = NULL, ng = 0;
	const char **hosts = NULL;
	struct rd_strmap map = { 0 };
	int rc = -ENOMEM;

	of = malloc((np ? np : 1) * sizeof(*of));
	g = calloc(np ? np : 1, sizeof(*g));
	hosts = malloc((np ? np : 1) * sizeof(*hosts));
	if (!of || !g || !hosts)
		goto out;
	for (size_t i = 0; i < np; i++) {
		struct problem_group *k;
		size_t at = ng;
		int r = rd_strmap_sget_or_add(&map, pv[i].what, &at);

		if (r < 0)
			goto out;
		of[i] = at;
		k = &g[at];
		if (r == 0) {
			ng++;
			k->what = pv[i].what;
			k->source = pv[i].source;
			k->nsources = 1;
			k->line = pv[i].line;
		} else if (!same_source(k->source, pv[i].source)) {
			k->source = NULL;
			k->nsources++;
		}
		k->n++;
	}
	/* each group's slice of hosts, then the hosts in problem order */
	for (size_t i = 0, at = 0; i < ng; i++) {
		g[i].first = at;
		at += g[i].n;
	}
	for (size_t i = 0; i < np; i++) {
		struct problem_group *k = &g[of[i]];

		if (k->nhosts && strcmp(hosts[k->first + k->nhosts - 1], pv[i].host) == 0)
			continue;
		hosts[k->first + k->nhosts++] = pv[i].host;
	}
	rd_out_table_begin(o, "problems", problem_group_cols, RD_ARRAY_SIZE(problem_group_cols),
			   np > 0);
	for (size_t i = 0; i < ng; i++) {
		/* borrowed names: the list's strings are not its own */
		struct rd_strlist l = { .v = (char **)(hosts + g[i].first), .n = g[i].nhosts };
		char *hl = rd_hostlist_compress(&l), many[48];

		if (!hl)
			goto out;
		rd_out_row_begin(o);
		rd_out_cstr(o, RD_TEXT, "hosts", NULL, RD_C_BAD, hl);
		free(hl);
		if (g[i].source || g[i].nsources == 1) {
			rd_out_str(o, RD_TEXT, "source", NULL, source_text(g[i].source));
		} else {
			(void)snprintf(many, sizeof(many), "%zu sources", g[i].nsources);
			rd_out_str(o, RD_TEXT, "source", NULL, many);
		}
		if (g[i].n == 1 && g[i].line)
			rd_out_u64(o, RD_TEXT, "line", NULL, g[i].line);
		else
			rd_out_str(o, RD_TEXT, "line", NULL, NULL);
		rd_out_str(o, RD_TEXT, "problem", NULL, g[i].what);
		rd_out_row_end(o);
	}
	rd_out_table_end(o);
	rc = 0;
out:
	rd_strmap_free(&map);
	free(of);
	free(g);
	free(hosts);
	return rc;
}

/* "vm3: 512; vm[4-5]: absent" */
static char *outliers_text(const struct rd_fleet_fact *k)
{
	char *s = NULL, *n;

	for (size_t i = 1; i < k->nvals; i++) {
		char *hl = rd_hostlist_compress(&k->vals[i].hosts);

		if (!hl || asprintf(&n, "%s%s%s: %s", s ? s : "", s ? "; " : "", hl,
				    rd_fleet_value_text(&k->vals[i])) < 0) {
			free(hl);
			free(s);
			return NULL;
		}
		free(hl);
		free(s);
		s = n;
	}
	return s;
}

/*
 * The columns the text may use: the terminal's width, else $COLUMNS (as
 * util-linux tools take it), else 160 for a file or a pipe.
 */
static unsigned int text_width(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	uint64_t v;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	if (env && rd_parse_u64(env, &v) == 0 && v >= 20 && v <= 100000)
		return (unsigned int)v;
	return 160;
}

int rd_fleet_print_summary(struct rd_out *o, const struct rd_fleet *f, bool only_outliers,
			   const struct rd_strlist *broken, const struct rd_fleet_tomo *tomo,
			   size_t *nbad_facts, size_t *nproblems)
{
	const struct rd_strlist *hosts = rd_fleet_hosts(f);
	const struct rd_fleet_problem *pv;
	const struct rd_fleet_fact *kv;
	size_t nk, np, nshown, npairs, nwarn = 0;
	const struct rd_fleet_pair *pairs;
	char warned[48] = "";
	bool json = rd_out_is_json(o);
	char *hl;

	kv = rd_fleet_facts(f, &nk);
	pv = rd_fleet_problems(f, &np);
	*nbad_facts = 0;
	for (size_t i = 0; i < nk; i++)
		if (kv[i].nvals > 1)
			(*nbad_facts)++;
	*nproblems = np;

	hl = rd_hostlist_compress(hosts);
	if (!hl)
		return -ENOMEM;
	rd_out_section_begin(o, NULL, NULL);
	rd_out_line(o, "%zu host%s (%s), %zu document%s", hosts->n, hosts->n == 1 ? "" : "s", hl,
		    rd_fleet_documents(f), rd_fleet_documents(f) == 1 ? "" : "s");
	rd_out_strlist(o, RD_JSON, "hosts", NULL, hosts, " ");
	rd_out_u64(o, RD_JSON, "documents", NULL, rd_fleet_documents(f));
	free(hl);

	nshown = only_outliers ? *nbad_facts : nk;
	if (nshown)
		rd_out_line(o, "%s", "");
	rd_out_table_begin(o, "facts", fact_cols, RD_ARRAY_SIZE(fact_cols), nshown > 0);
	for (size_t i = 0; i < nk; i++) {
		const struct rd_fleet_fact *k = &kv[i];

		if (only_outliers && k->nvals < 2)
			continue;
		rd_out_row_begin(o);
		rd_out_str(o, RD_ANY, "fact", NULL, k->name);
		rd_out_str(o, RD_JSON, "source", NULL, k->kind);
		rd_out_str(o, RD_ANY, "dev", NULL, k->dev);
		if (k->port)
			rd_out_u64(o, RD_ANY, "port", NULL, k->port);
		else
			rd_out_str(o, RD_TEXT, "port", NULL, NULL);
		if (json) {
			out_value(o, "majority", &k->vals[0]);
			rd_out_bool(o, RD_JSON, "tie", NULL, k->tie);
			rd_out_u64(o, RD_JSON, "agree", NULL, k->vals[0].hosts.n);
			rd_out_u64(o, RD_JSON, "reporting", NULL, k->nhosts);
			rd_out_list_begin(o, "outliers");
			for (size_t j = 1; j < k->nvals; j++) {
				rd_out_section_begin(o, NULL, NULL);
				out_value(o, "value", &k->vals[j]);
				rd_out_bool(o, RD_JSON, "absent", NULL, k->vals[j].val == NULL);
				rd_out_strlist(o, RD_JSON, "hosts", NULL, &k->vals[j].hosts, " ");
				rd_out_section_end(o);
			}
			rd_out_list_end(o);
		} else {
			char agree[48], *ot;

			rd_out_cstr(o, RD_TEXT, "majority", NULL, k->tie ? RD_C_WARN : RD_C_NONE,
				    rd_fleet_value_text(&k->vals[0]));
			(void)snprintf(agree, sizeof(agree), "%zu/%zu%s", k->vals[0].hosts.n, k->nhosts,
				       k->tie ? " tie" : "");
			rd_out_cstr(o, RD_TEXT, "agree", NULL,
				    k->nvals > 1 ? RD_C_BAD : RD_C_GOOD, agree);
			ot = k->nvals > 1 ? outliers_text(k) : NULL;
			if (k->nvals > 1 && !ot)
				return -ENOMEM;
			rd_out_cstr(o, RD_TEXT, "outliers", NULL, RD_C_BAD, ot);
			free(ot);
		}
		rd_out_row_end(o);
	}
	rd_out_table_end(o);

	if (rd_fleet_print_mesh(o, f, text_width()))
		return -ENOMEM;
	if (tomo && tomo->fab &&
	    rd_fleet_print_suspects(o, tomo->path, tomo->fab, &tomo->res, rd_fleet_pairs(f, &npairs)))
		return -ENOMEM;
	if (np)
		rd_out_line(o, "%s", "");
	if (!json) {
		if (print_problem_groups(o, pv, np))
			return -ENOMEM;
	} else {
		/* JSON keeps every problem with its host */
		rd_out_table_begin(o, "problems", problem_cols, RD_ARRAY_SIZE(problem_cols), np > 0);
		for (size_t i = 0; i < np; i++) {
			rd_out_row_begin(o);
			rd_out_str(o, RD_JSON, "host", NULL, pv[i].host);
			rd_out_str(o, RD_JSON, "source", NULL, source_text(pv[i].source));
			if (pv[i].line)
				rd_out_u64(o, RD_JSON, "line", NULL, pv[i].line);
			rd_out_str(o, RD_JSON, "problem", NULL, pv[i].what);
			rd_out_row_end(o);
		}
		rd_out_table_end(o);
	}

	pairs = rd_fleet_pairs(f, &npairs);
	for (size_t i = 0; i < npairs; i++)
		nwarn += pairs[i].ok && pairs[i].warning;
	if (nwarn)
		snprintf(warned, sizeof(warned), " (%zu with a warning)", nwarn);
	/* an input that broke off: what arrived is above, but the run is not whole */
	for (size_t i = 0; i < broken->n; i++)
		rd_out_line(o, "%sinput %s", i ? "" : "\n", broken->v[i]);
	if (broken->n)
		rd_out_strlist(o, RD_JSON, "inputs_broken", NULL, broken, "; ");
	if (broken->n)
		rd_out_line(o, "\nresult: fail: %zu input%s broke off, %zu fact%s with outliers, %zu "
			    "problem%s", broken->n, broken->n == 1 ? "" : "s", *nbad_facts,
			    *nbad_facts == 1 ? "" : "s", np, np == 1 ? "" : "s");
	else if (!*nbad_facts && !np && !nk && npairs)
		rd_out_line(o, "\nresult: pass: %zu mesh pair%s of %zu host%s pass%s", npairs,
			    npairs == 1 ? "" : "s", hosts->n, hosts->n == 1 ? "" : "s", warned);
	else if (!*nbad_facts && !np)
		rd_out_line(o, "\nresult: pass: %zu %s on %zu fact%s%s%s", hosts->n,
			    hosts->n == 1 ? "host agrees" : "hosts agree", nk, nk == 1 ? "" : "s",
			    npairs ? ", every mesh pair passes" : "", warned);
	else
		rd_out_line(o, "\nresult: fail: %zu fact%s with outliers, %zu problem%s", *nbad_facts,
			    *nbad_facts == 1 ? "" : "s", np, np == 1 ? "" : "s");
	rd_out_str(o, RD_JSON, "result", NULL,
		   *nbad_facts || np || broken->n || !rd_fleet_documents(f) ? "fail" : "pass");
	rd_out_u64(o, RD_JSON, "facts_with_outliers", NULL, *nbad_facts);
	rd_out_section_end(o);
	return 0;
}

struct svg_args {
	const struct rd_fleet_matrix *m;
	const struct rd_fleet_groups *g;	/* NULL: a row and a column a host */
	const char *by;
	const struct rd_fleet_svg_mark *marks;
	size_t nmarks;
};

static int svg_write_fn(FILE *fp, void *arg)
{
	const struct svg_args *a = arg;

	if (a->g)
		return rd_fleet_write_svg_groups(fp, a->m, a->g, a->by, a->marks, a->nmarks);
	return rd_fleet_write_svg(fp, a->m, a->marks, a->nmarks);
}

/*
 * The groups --svg-groups asks for (auto: hosts up to RD_FLEET_SVG_MAX_HOSTS,
 * else the leaves with --fabric, else blocks), into *g and the words for the
 * picture into by; g->n == 0 for a row a host.  0, -ENOMEM, or -EINVAL with by
 * saying why.
 */
static int make_groups(const struct rd_fleet_matrix *m, const struct rd_fleet_tomo *tomo,
		       const struct rd_fleet_group_by *gb, struct rd_fleet_groups *g, char *by, size_t len)
{
	struct rd_fleet_group_by k = *gb;
	int rc = 0;

	memset(g, 0, sizeof(*g));
	if (k.kind == RD_GROUP_AUTO) {
		k.kind = m->nh <= RD_FLEET_SVG_MAX_HOSTS ? RD_GROUP_HOSTS : tomo->fab ? RD_GROUP_LEAF : RD_GROUP_BLOCK;
		k.per = (m->nh + RD_FLEET_SVG_BLOCKS - 1) / RD_FLEET_SVG_BLOCKS;
	}
	switch (k.kind) {
	case RD_GROUP_LEAF: {
		char **label = calloc(m->nh ? m->nh : 1, sizeof(*label));

		if (!label)
			return -ENOMEM;
		for (size_t i = 0; i < m->nh; i++)
			label[i] = (char *)rd_tomo_host_switch(tomo->fab, m->hosts[i]);
		rc = rd_fleet_groups_labels(m, label, g);
		free(label);
		(void)snprintf(by, len, "by the switch each host is cabled to, in %s", tomo->path);
		break;
	}
	case RD_GROUP_BLOCK:
		rc = rd_fleet_groups_blocks(m, k.per, g);
		(void)snprintf(by, len, "blocks of %zu hosts in name order", k.per);
		break;
	case RD_GROUP_PATTERN:
		rc = rd_fleet_groups_pattern(m, k.pattern, g, by, len);
		if (!rc)
			(void)snprintf(by, len, "by what re:%.100s matches in the host name", k.pattern);
		break;
	default:
		break;
	}
	return rc;
}

/* --svg FILE: the mesh matrix (the suspects' pairs outlined), written whole or not at all (outfile.h). */
int rd_fleet_save_svg(struct rd_cli *cli, const struct rd_fleet *f, const struct rd_fleet_tomo *tomo,
		      const struct rd_fleet_group_by *gb, const char *path)
{
	struct rd_fleet_matrix m;
	struct rd_fleet_svg_mark *marks = NULL;
	struct rd_fleet_groups g = { 0 };
	size_t nmarks = 0;
	struct svg_args a = { &m, NULL, NULL, NULL, 0 };
	struct rd_outfile of;
	char why[160], by[200];
	int rc;

	if (rd_fleet_matrix_build(f, &m)) {
		rd_cli_error(cli, "out of memory");
		return -1;
	}
	if (tomo->fab && rd_fleet_tomo_marks(tomo, &marks, &nmarks)) {
		rd_fleet_matrix_free(&m);
		rd_cli_error(cli, "out of memory");
		return -1;
	}
	a.marks = marks;
	a.nmarks = nmarks;
	if (!m.nh) {
		rd_cli_error(cli, "--svg %s: the input holds no mesh pairs to draw (rdma-selftest --mesh -j "
				  "output)", path);
		rd_fleet_svg_marks_free(marks, nmarks);
		return -1;
	}
	rc = make_groups(&m, tomo, gb, &g, by, sizeof(by));
	if (rc) {
		rd_cli_error(cli, "--svg-groups: %s", rc == -ENOMEM ? "out of memory" : by);
		rd_fleet_svg_marks_free(marks, nmarks);
		rd_fleet_matrix_free(&m);
		return -1;
	}
	if (g.n) {
		a.g = &g;
		a.by = by;
	}
	rc = rd_outfile_open(&of, path, why, sizeof(why));
	if (!rc)
		rc = rd_outfile_replace(&of, svg_write_fn, &a, why, sizeof(why));
	rd_outfile_close(&of);
	rd_fleet_groups_free(&g);
	rd_fleet_svg_marks_free(marks, nmarks);
	rd_fleet_matrix_free(&m);
	if (rc) {
		rd_cli_error(cli, "--svg %s: %s", path, why);
		return -1;
	}
	return 0;
}

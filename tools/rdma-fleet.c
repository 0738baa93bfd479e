// SPDX-License-Identifier: MIT
/*
 * rdma-fleet: one summary of the JSON that rdma-devinfo and rdma-gids --best
 * printed on many hosts (through pdsh, clush, srun or files): per fact the
 * majority value and the hosts that differ, and every host whose input could
 * not be used.  It launches nothing: the cluster's own engine runs the tools.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "rdma-fleet/fleet.h"
#include "rdma-fleet/fleetmesh.h"
#include "rdma-fleet/fleetsuspect.h"
#include "base/base.h"
#include "output/output.h"

enum {
	OPT_HOSTFILE = RD_OPT_TOOL_BASE,
	OPT_PREFIX,
	OPT_TIMEOUT,
	OPT_SVG,
	OPT_OUTLIERS,
	OPT_FABRIC,
};

static void usage(const char *prog)
{
	printf("Usage: %s [options] [FILE...]\n"
	       "       %s --prefix[=NAME]\n"
	       "Summarize RDMA facts from many hosts: the majority value of each and the\n"
	       "hosts that differ. Reads rdma-devinfo -j [-v], rdma-gids --best -j and\n"
	       "rdma-doctor -j output (each check's status is a fact; a FAIL is a problem)\n"
	       "and rdma-selftest --mesh -j lines (a pair matrix and the slowest pairs)\n"
	       "from the FILEs or stdin (\"-\"): plain or pretty JSON documents, JSON lines,\n"
	       "or \"host: \" prefixed lines from pdsh, clush -L or srun -l.\n"
	       "\n"
	       "Options:\n"
	       "  -w, --hosts LIST      hosts that must answer (Slurm syntax, e.g. node[01-16])\n"
	       "      --hostfile FILE   the same from a file: one host or list a line, # comments\n"
	       "      --prefix[=NAME]   filter mode, on each host: copy stdin to stdout with\n"
	       "                        \"NAME: \" before each line (default $SLURMD_NODENAME,\n"
	       "                        else the short host name), for srun and files\n"
	       "      --timeout SEC     give up on a pipe or FIFO silent for SEC seconds\n"
	       "                        (default 600, at most 86400)\n"
	       "      --outliers        list only the facts where some host differs\n"
	       "      --svg FILE        draw the mesh's pair matrix (rdma-selftest --mesh -j\n"
	       "                        input) as an SVG picture: bandwidth per pair, failures\n"
	       "                        in red, hosts labelled\n"
	       "      --fabric FILE     place the mesh's pairs on the fabric's routes\n"
	       "                        (rdma-fabric --routes -j output) and name the links\n"
	       "                        that explain the failed and slow pairs\n"
	       "  -j, --json            JSON output\n"
	       RD_TABLE_USAGE("fact,majority,outliers")
	       "      --color[=WHEN]    colour: auto (default), always, never\n"
	       "  -h, --help            this help\n"
	       "  -V, --version         version\n"
	       "\n"
	       "Exit status: 0 every host agrees, 1 an outlier, a host with unusable input\n"
	       "or a failed item, a listed host that sent nothing, or no input; 2 usage error.\n",
	       prog, prog);
}

/*
 * What one input may hold: 10,000 hosts of pretty JSON are ~35 MB, and one
 * compact line of a 32-NIC host ~200 KB.  The idle deadline applies to pipes
 * and FIFOs only (--timeout).
 */
static const struct rd_infile_limits fleet_limits = {
	.max_bytes = (size_t)1 << 30,
	.max_line = (size_t)16 << 20,
	.max_lines = 50000000,
	.timeout_ms = 600000,
};

/* A host name as a prefix: what --prefix=NAME and $SLURMD_NODENAME may hold. */
static bool prefix_name_ok(const char *name)
{
	if (!*name || strlen(name) > 255)
		return false;
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		if (*c <= ' ' || *c == ':' || *c == 0x7f)
			return false;
	return true;
}

/* --prefix: "NAME: line" for every line of stdin. */
static int prefix_mode(struct rd_cli *cli, const char *name, const struct rd_infile_limits *lim)
{
	char host[256], why[160], *line;
	struct rd_infile in;
	size_t len;
	int ret = RD_EXIT_OK, rc;

	if (!name || !*name) {
		name = getenv("SLURMD_NODENAME");
		if (name && *name && !prefix_name_ok(name))
			return rd_cli_usage_error(cli, "invalid host name in SLURMD_NODENAME (a space, "
						  "control character or ':'): give --prefix=NAME");
	}
	if (!name || !*name) {
		if (gethostname(host, sizeof(host)) != 0) {
			rd_cli_error(cli, "cannot get the host name: %s (give --prefix=NAME)",
				     strerror(errno));
			return RD_EXIT_FAIL;
		}
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		name = host;
	}
	rc = rd_infile_open(&in, "-", lim, why, sizeof(why));
	while (rc == 0 && (rc = rd_infile_line(&in, &line, &len, why, sizeof(why))) == 1) {
		if (printf("%s: %s\n", name, line) < 0)
			break;
		rc = 0;
	}
	rd_infile_close(&in);
	if (rc < 0) {
		rd_cli_error(cli, "stdin: %s", why);
		ret = RD_EXIT_FAIL;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		rd_cli_error(cli, "write error on stdout: %s", strerror(errno));
		ret = RD_EXIT_FAIL;
	}
	return ret;
}

/*
 * Read one input into the fleet.  RD_EXIT_OK; RD_EXIT_FAIL when it cannot be
 * opened or memory ran out (the run stops); and when it breaks off after
 * lines arrived (a pipe silent past --timeout, a limit, a read error) it
 * keeps what arrived, names the input and the line where it stopped in
 * *broken, and returns RD_EXIT_OK: the report of what arrived goes on, and
 * the hosts that never answered are named there.
 */
static int read_source(struct rd_cli *cli, struct rd_fleet *f, const char *path,
		       const struct rd_infile_limits *lim, struct rd_strlist *broken)
{
	const char *name = strcmp(path, "-") ? path : "stdin";
	struct rd_infile in;
	char why[160], *line;
	size_t len;
	int rc;

	rc = rd_infile_open(&in, path, lim, why, sizeof(why));
	if (rc) {
		rd_cli_error(cli, "%s: cannot read: %s", name, why);
		return RD_EXIT_FAIL;
	}
	while ((rc = rd_infile_line(&in, &line, &len, why, sizeof(why))) == 1) {
		while (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		rc = rd_fleet_feed(f, path, in.lineno, line);
		if (rc)
			break;
	}
	rd_infile_close(&in);
	if (rc == -ENOMEM) {
		rd_cli_error(cli, "out of memory");
		return RD_EXIT_FAIL;
	}
	if (rc < 0) {
		char msg[320];

		if (in.lineno == 0) {
			rd_cli_error(cli, "%s: cannot read: %s", name, why);
			return RD_EXIT_FAIL;
		}
		snprintf(msg, sizeof(msg), "%s: stopped after line %zu: %s; what arrived before it is "
			 "reported", name, in.lineno, why);
		rd_cli_error(cli, "%s", msg);
		if (rd_strlist_add(broken, msg))
			return RD_EXIT_FAIL;
	}
	rc = rd_fleet_source_end(f, path);
	if (rc == -ENOMEM)
		rd_cli_error(cli, "out of memory");
	return rc ? RD_EXIT_FAIL : RD_EXIT_OK;
}

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
static const struct rd_out_colset tables[] = {
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

static int print_summary(struct rd_out *o, const struct rd_fleet *f, bool only_outliers,
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
	const struct rd_fleet_svg_mark *marks;
	size_t nmarks;
};

static int svg_write_fn(FILE *fp, void *arg)
{
	const struct svg_args *a = arg;

	return rd_fleet_write_svg(fp, a->m, a->marks, a->nmarks);
}

/* --svg FILE: the mesh matrix (the suspects' pairs outlined), written whole or not at all (outfile.h). */
static int write_svg(struct rd_cli *cli, const struct rd_fleet *f, const struct rd_fleet_tomo *tomo,
		     const char *path)
{
	struct rd_fleet_matrix m;
	struct rd_fleet_svg_mark *marks = NULL;
	size_t nmarks = 0;
	struct svg_args a = { &m, NULL, 0 };
	struct rd_outfile of;
	char why[160];
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
	rc = rd_outfile_open(&of, path, why, sizeof(why));
	if (!rc)
		rc = rd_outfile_replace(&of, svg_write_fn, &a, why, sizeof(why));
	rd_outfile_close(&of);
	rd_fleet_svg_marks_free(marks, nmarks);
	rd_fleet_matrix_free(&m);
	if (rc) {
		rd_cli_error(cli, "--svg %s: %s", path, why);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "hosts", required_argument, NULL, 'w' },
		{ "hostfile", required_argument, NULL, OPT_HOSTFILE },
		{ "prefix", optional_argument, NULL, OPT_PREFIX },
		{ "outliers", no_argument, NULL, OPT_OUTLIERS },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "fabric", required_argument, NULL, OPT_FABRIC },
		{ "json", no_argument, NULL, 'j' },
		{ "color", optional_argument, NULL, RD_OPT_COLOR },
		{ "colour", optional_argument, NULL, RD_OPT_COLOR },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		RD_TABLE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct rd_strlist expect = { 0 }, hostfiles = { 0 }, broken = { 0 };
	struct rd_infile_limits lim = fleet_limits;
	struct rd_hostlist_error he = { 0 };
	struct rd_fleet *f = NULL;
	struct rd_out *o = NULL;
	bool prefix = false, have_expect = false, only_outliers = false;
	const char *prefix_name = NULL, *svg = NULL;
	struct rd_fleet_tomo tomo = { 0 };
	size_t nbad = 0, nprob = 0;
	struct rd_cli cli;
	int opt, ret = RD_EXIT_FAIL, rc;

	rd_cli_init(&cli, "rdma-fleet");
	cli.repeatable = (const int[]){ 'w', OPT_HOSTFILE, 0 };
	while ((opt = rd_cli_getopt(&cli, argc, argv, ":w:jhV" RD_TABLE_SHORTOPTS, longopts)) != -1) {
		if (opt == RD_CLI_OPT_USAGE) {
			ret = RD_EXIT_USAGE;
			goto out;
		}
		switch (opt) {
		case 'w':
			have_expect = true;
			rc = rd_hostlist_expand(optarg, &expect, &he);
			if (rc == -ENOMEM) {
				rd_cli_error(&cli, "out of memory");
				goto out;
			}
			if (rc) {
				ret = rd_cli_usage_error(&cli, "--hosts '%s': column %zu: %s", optarg,
							 he.column, he.msg);
				goto out;
			}
			break;
		case OPT_HOSTFILE:
			/* Read after the options: --timeout bounds the wait on a FIFO. */
			have_expect = true;
			if (rd_strlist_add(&hostfiles, optarg)) {
				rd_cli_error(&cli, "out of memory");
				goto out;
			}
			break;
		case OPT_OUTLIERS:
			only_outliers = true;
			break;
		case OPT_SVG:
			svg = optarg;
			break;
		case OPT_FABRIC:
			tomo.path = optarg;
			break;
		case OPT_TIMEOUT:
			ret = rd_cli_file_timeout(&cli, optarg, &lim.timeout_ms);
			if (ret)
				goto out;
			break;
		case OPT_PREFIX:
			prefix = true;
			prefix_name = optarg;
			break;
		default:
			ret = rd_cli_getopt_error(&cli, opt, argv);
			goto out;
		}
	}
	ret = rd_cli_operands(&cli, argc, argv, usage, -1, NULL);
	if (ret >= 0)
		goto out;
	ret = rd_cli_table_check(&cli, tables, RD_ARRAY_SIZE(tables));
	if (ret)
		goto out;
	if (prefix) {
		if (optind < argc || have_expect || cli.json || only_outliers || svg || tomo.path) {
			ret = rd_cli_usage_error(&cli, "--prefix copies stdin to stdout; no files, -w, -o, "
						 "-j, --svg or --fabric");
			goto out;
		}
		if (prefix_name && !prefix_name_ok(prefix_name)) {
			/* Not echoed: it may hold the very newline it is refused for. */
			ret = rd_cli_usage_error(&cli, "invalid --prefix name: no spaces, control "
						 "characters or ':', at most 255 bytes");
			goto out;
		}
		ret = prefix_mode(&cli, prefix_name, &lim);
		goto out;
	}
	/* Every file named before any is read: no output may replace an input. */
	for (size_t i = 0; i < hostfiles.n; i++) {
		ret = rd_cli_input_file(&cli, "--hostfile", hostfiles.v[i]);
		if (ret)
			goto out;
	}
	for (int i = optind; i < argc; i++) {
		ret = rd_cli_input_file(&cli, NULL, argv[i]);
		if (ret)
			goto out;
	}
	if (optind == argc && (ret = rd_cli_input_file(&cli, NULL, "-")))
		goto out;
	if (tomo.path && (ret = rd_cli_input_file(&cli, "--fabric", tomo.path)))
		goto out;
	if (svg && (ret = rd_cli_output_file(&cli, "--svg", svg)))
		goto out;
	for (size_t i = 0; i < hostfiles.n; i++) {
		rc = rd_hostfile_read(hostfiles.v[i], lim.timeout_ms, &expect, &he);
		if (rc == -ENOMEM) {
			rd_cli_error(&cli, "out of memory");
			ret = RD_EXIT_FAIL;
			goto out;
		}
		if (rc == -EINVAL && he.line) {
			ret = rd_cli_usage_error(&cli, "--hostfile %s: line %zu, column %zu: %s (one host "
						 "or host list a line)", hostfiles.v[i], he.line, he.column,
						 he.msg);
			goto out;
		}
		if (rc && he.line) {
			ret = rd_cli_usage_error(&cli, "--hostfile %s: line %zu, column %zu: %s",
						 hostfiles.v[i], he.line, he.column, he.msg);
			goto out;
		}
		if (rc) {
			ret = rd_cli_usage_error(&cli, "--hostfile %s: %s", hostfiles.v[i], he.msg);
			goto out;
		}
	}
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;
	ret = RD_EXIT_FAIL;
	if (tomo.path) {
		char why[300];

		rc = rd_fleet_fabric_load(tomo.path, &lim, &tomo.fab, why, sizeof(why));
		if (rc == -ENOMEM) {
			rd_cli_error(&cli, "out of memory");
			goto out;
		}
		if (rc) {
			ret = rd_cli_usage_error(&cli, "--fabric %s: %s", tomo.path, why);
			goto out;
		}
	}
	if (have_expect && expect.n == 0) {
		ret = rd_cli_usage_error(&cli, "the host list is empty");
		goto out;
	}
	f = rd_fleet_new();
	if (!f || rd_fleet_expect(f, &expect)) {
		rd_cli_error(&cli, "out of memory");
		goto out;
	}
	rd_strlist_free(&expect);	/* the fleet has its own copy */
	if (optind == argc) {
		if (isatty(STDIN_FILENO)) {
			ret = rd_cli_usage_error(&cli, "no input: name files, or pipe pdsh, clush or srun output in");
			goto out;
		}
		if (read_source(&cli, f, "-", &lim, &broken))
			goto out;
	}
	for (int i = optind; i < argc; i++)
		if (read_source(&cli, f, argv[i], &lim, &broken))
			goto out;
	if (rd_fleet_analyze(f)) {
		rd_cli_error(&cli, "out of memory");
		goto out;
	}
	if (rd_fleet_hosts(f)->n == 0) {
		rd_cli_error(&cli, "no input: the input held no JSON document (run rdma-devinfo -j or "
				   "rdma-gids --best -j on the hosts)");
		goto out;
	}
	if (tomo.fab) {
		rc = rd_fleet_tomo_run(f, &tomo);
		if (rc == -ENOENT) {
			rd_cli_error(&cli, "--fabric %s: the input holds no mesh pairs to place on it "
					   "(rdma-selftest --mesh -j output)", tomo.path);
			goto out;
		}
		if (rc) {
			rd_cli_error(&cli, "out of memory");
			goto out;
		}
	}
	if (svg && write_svg(&cli, f, &tomo, svg))
		goto out;
	o = rd_out_new(stdout, cli.json, cli.color);
	if (o)
		rd_out_set_table_opts(o, &cli.table);
	if (!o || print_summary(o, f, only_outliers, &broken, &tomo, &nbad, &nprob)) {
		rd_cli_error(&cli, "out of memory");
		goto out;
	}
	ret = nbad || nprob || broken.n || !rd_fleet_documents(f) ? RD_EXIT_FAIL : RD_EXIT_OK;
out:
	rd_fleet_tomo_free(&tomo);
	rd_strlist_free(&broken);
	rd_fleet_free(f);
	rd_strlist_free(&expect);
	rd_strlist_free(&hostfiles);
	return rd_cli_exit(&cli, o, ret);
}

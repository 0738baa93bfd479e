// SPDX-License-Identifier: MIT
/* Fleet summary: per-host reassembly of JSON streams, readers, majority and outliers. */
#define _GNU_SOURCE
#include "fleet.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"

/*
 * A fact as one host reported it: which fact (an index into the fleet's fact
 * keys) and its value (an index into the fleet's distinct value texts).  The
 * same values recur on thousands of hosts: each text is kept once.
 */
struct raw_fact {
	uint32_t fid;
	uint32_t vid;
};

/* What a fact is about: (kind, device, port, name). */
struct fact_key {
	const char *kind;	/* static: the reader's name */
	char *dev;		/* NULL for host-wide facts */
	unsigned int port;
	const char *name;	/* static */
	size_t out;		/* rd_fleet_analyze: its place in f->facts, or SIZE_MAX */
};

struct host {
	char *name;
	struct raw_fact *facts;
	size_t nfacts, cap;
	unsigned int kinds;	/* bit per reader that produced a document */
	bool problem;
};

/* One (source, prefix) stream being parsed. */
struct chan {
	char *src;
	char *prefix;	/* NULL: lines without a host prefix */
	json_tokener *tok;	/* while a document is open (chan_open) */
	bool open;	/* a document has started and not ended */
	size_t doc_line;	/* where it started */
	bool resync;	/* after malformed input: skipping to the next document */
	size_t bad_problem;	/* index of the problem being extended while resyncing */
	size_t skipped;
	/*
	 * Lines not yet given to the tokener, each ending in '\n', and where
	 * each starts (chan_flush).  The inner lines of a pretty-printed
	 * document wait here for its last line: one parse call a document, not
	 * one a line (json-c sets up a locale on every call).
	 */
	char *pend;
	size_t plen, pcap;
	struct pend_line {
		size_t off, lineno;
	} *pl;
	size_t npl, plcap;
};

struct rd_fleet {
	struct host *hosts;
	size_t nhosts, hcap;
	/* The hosts' names, in the pool: h->name, host_names and the results
	 * all point at the one copy. */
	struct rd_strlist host_names;
	/* Host names and problem texts (each text kept once, through text_map). */
	struct rd_strpool pool;
	struct rd_strmap text_map;
	const char **texts;
	size_t ntexts, tcap;
	struct chan *chans;
	size_t nchans, ccap;
	struct rd_fleet_problem *problems;
	size_t nproblems, pcap;
	struct rd_fleet_fact *facts;
	size_t nfacts;
	struct rd_fleet_pair *pairs;
	size_t npairs, pairs_cap;
	size_t docs;
	/* Lookups (strmap.h): host name, (source, prefix), fact key, value
	 * text, mesh pair -> index into hosts, chans, fkeys, vtexts, pairs. */
	struct rd_strmap host_map, chan_map, fkey_map, val_map, pair_map;
	struct rd_strmap_keybuf kb[2];	/* composite keys being looked up */
	/* A tokener is ~1.5 KiB: only streams inside a document hold one. */
	json_tokener *spare_tok;
	struct fact_key *fkeys;
	size_t nfkeys, fkcap;
	char **vtexts;
	size_t nvtexts, vtcap;
};

/* Grow *v (of *cap elements of size sz) to hold n + 1. */
static int grow(void *v, size_t *cap, size_t n, size_t sz)
{
	void **vp = v, *nv;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	nv = realloc(*vp, c * sz);
	if (!nv)
		return -ENOMEM;
	*vp = nv;
	*cap = c;
	return 0;
}

/* ------------------------------------------------------------ helpers */

/* Add a string the list does not own (the fleet's pool holds it). */
static int list_borrow(struct rd_strlist *l, const char *s)
{
	RD_GCC_LEAK_FP_BEGIN	/* l->v grows in place through grow()'s void ** */
	if (grow(&l->v, &l->cap, l->n, sizeof(*l->v)))
		return -ENOMEM;
	RD_GCC_LEAK_FP_END
	l->v[l->n++] = (char *)s;	/* NOLINT: rd_strlist's type; never freed through it */
	return 0;
}

static struct host *host_get(struct rd_fleet *f, const char *name)
{
	struct host *h;
	size_t at = f->nhosts;
	int rc;

	if (f->nhosts == f->hcap) {
		size_t cap = f->hcap ? f->hcap * 2 : 16;

		h = realloc(f->hosts, cap * sizeof(*h));
		if (!h)
			return NULL;
		f->hosts = h;
		f->hcap = cap;
	}
	rc = rd_strmap_sget_or_add(&f->host_map, name, &at);
	if (rc < 0)
		return NULL;
	if (rc == 1)
		return &f->hosts[at];
	h = &f->hosts[f->nhosts];
	memset(h, 0, sizeof(*h));
	h->name = rd_strpool_sdup(&f->pool, name);
	if (!h->name || list_borrow(&f->host_names, h->name))
		return NULL;
	f->nhosts++;
	return h;
}

/* One copy of a text for all its uses (problem texts and sources repeat). */
static const char *text_intern(struct rd_fleet *f, const char *s)
{
	size_t at;
	const char *d;

	if (rd_strmap_sget(&f->text_map, s, &at))
		return f->texts[at];
	if (grow(&f->texts, &f->tcap, f->ntexts, sizeof(*f->texts)))
		return NULL;
	d = rd_strpool_sdup(&f->pool, s);
	if (!d || rd_strmap_set(&f->text_map, s, strlen(s), f->ntexts))
		return NULL;
	f->texts[f->ntexts++] = d;
	return d;
}

static int problem_vadd(struct rd_fleet *f, struct host *h, const char *src, size_t line,
			const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* A problem of host h (a host of f->hosts). */
static int problem_vadd(struct rd_fleet *f, struct host *h, const char *src, size_t line,
			const char *fmt, va_list ap)
{
	struct rd_fleet_problem *p;
	char buf[512];
	const char *what = fmt;

	if (grow(&f->problems, &f->pcap, f->nproblems, sizeof(*f->problems)))
		return -ENOMEM;
	h->problem = true;
	/* A text with nothing to format (a million silent hosts) skips printf. */
	if (strchr(fmt, '%')) {
		(void)vsnprintf(buf, sizeof(buf), fmt, ap);
		what = buf;
	}
	p = &f->problems[f->nproblems];
	p->host = h->name;
	p->hostno = (size_t)(h - f->hosts);
	p->source = src ? text_intern(f, src) : NULL;
	p->line = line;
	p->what = text_intern(f, what);
	if (!p->what || (src && !p->source))
		return -ENOMEM;
	f->nproblems++;
	return 0;
}

static int problem_host_add(struct rd_fleet *f, struct host *h, const char *src, size_t line,
			    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int problem_host_add(struct rd_fleet *f, struct host *h, const char *src, size_t line,
			    const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = problem_vadd(f, h, src, line, fmt, ap);
	va_end(ap);
	return rc;
}

static int problem_add(struct rd_fleet *f, const char *host, const char *src, size_t line,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A problem of the host named host (added to the hosts when new). */
static int problem_add(struct rd_fleet *f, const char *host, const char *src, size_t line,
		       const char *fmt, ...)
{
	struct host *h = host_get(f, host);
	va_list ap;
	int rc;

	if (!h)
		return -ENOMEM;
	va_start(ap, fmt);
	rc = problem_vadd(f, h, src, line, fmt, ap);
	va_end(ap);
	return rc;
}

/* The index of a value's canonical text, adding it when new. */
static int value_id(struct rd_fleet *f, json_object *val, uint32_t *vid)
{
	size_t len, at = f->nvtexts;
	const char *text = json_object_to_json_string_length(val, JSON_C_TO_STRING_PLAIN, &len);
	int rc;

	if (!text)
		return -ENOMEM;
	if (f->nvtexts >= UINT32_MAX || grow(&f->vtexts, &f->vtcap, f->nvtexts, sizeof(char *)))
		return -ENOMEM;
	rc = rd_strmap_get_or_add(&f->val_map, text, len, &at);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		f->vtexts[at] = strdup(text);
		if (!f->vtexts[at])
			return -ENOMEM;
		f->nvtexts++;
	}
	*vid = (uint32_t)at;
	return 0;
}

/* The index of a fact key, adding it when new. */
static int fact_id(struct rd_fleet *f, const char *kind, const char *dev, unsigned int port,
		   const char *name, uint32_t *fid)
{
	char pbuf[16];
	const char *parts[] = { kind, dev, pbuf, name };
	size_t len, at = f->nfkeys;
	int rc;

	(void)snprintf(pbuf, sizeof(pbuf), "%u", port);
	len = rd_strmap_key(&f->kb[0], parts, RD_ARRAY_SIZE(parts));
	rc = !len || f->nfkeys >= UINT32_MAX ? -ENOMEM
					     : grow(&f->fkeys, &f->fkcap, f->nfkeys, sizeof(*f->fkeys));
	if (!rc)
		rc = rd_strmap_get_or_add(&f->fkey_map, f->kb[0].s, len, &at);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		struct fact_key *k = &f->fkeys[at];

		k->kind = kind;
		k->name = name;
		k->port = port;
		k->dev = dev ? strdup(dev) : NULL;
		if (dev && !k->dev)
			return -ENOMEM;
		f->nfkeys++;
	}
	*fid = (uint32_t)at;
	return 0;
}

/* A fact of host h; reported again (a second run), the latest counts (rd_fleet_analyze). */
static int fact_add(struct rd_fleet *f, struct host *h, const char *kind, const char *dev,
		    unsigned int port, const char *name, json_object *val)
{
	struct raw_fact r;
	int rc = fact_id(f, kind, dev, port, name, &r.fid);

	if (!rc)
		rc = value_id(f, val, &r.vid);
	if (!rc)
		rc = grow(&h->facts, &h->cap, h->nfacts, sizeof(r));
	if (rc)
		return rc;
	h->facts[h->nfacts++] = r;
	return 0;
}

static const char *obj_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool obj_has(json_object *o, const char *key, json_type type)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, type);
}

/* Every element of an array is an object that passes elem(). */
static bool array_of(json_object *doc, bool (*elem)(json_object *))
{
	size_t n;

	if (!json_object_is_type(doc, json_type_array))
		return false;
	n = json_object_array_length(doc);
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(doc, i);

		if (!json_object_is_type(e, json_type_object) || !elem(e))
			return false;
	}
	return true;
}

/* ------------------------------------------------------------ readers */

struct reader_ctx {
	struct rd_fleet *f;
	struct host *h;
	const char *src;
	size_t line;
	bool attributed;	/* h is the sender itself (a line prefix or a "host" field) */
};

/* Copy the listed members of o that are present as facts. */
static int facts_from(struct reader_ctx *c, const char *kind, const char *dev, unsigned int port,
		      json_object *o, const char *const *keys)
{
	json_object *v;
	int rc;

	for (size_t i = 0; keys[i]; i++) {
		if (!json_object_object_get_ex(o, keys[i], &v))
			continue;
		if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
			continue;
		RD_GCC_LEAK_FP_BEGIN	/* the grown array is h->facts, freed by rd_fleet_free */
		rc = fact_add(c->f, c->h, kind, dev, port, keys[i], v);
		RD_GCC_LEAK_FP_END
		if (rc)
			return rc;
	}
	return 0;
}

/* rdma-devinfo -j [-v]: [{dev, fw_ver, ..., ports: [{port, state, rate, active_mtu...}]}] */
static bool devinfo_elem(json_object *e)
{
	return obj_str(e, "dev") && obj_has(e, "ports", json_type_array);
}

static bool devinfo_match(json_object *doc)
{
	return array_of(doc, devinfo_elem);
}

static int devinfo_read(struct reader_ctx *c, json_object *doc)
{
	static const char *const dev_keys[] = { "fw_ver", "hca_type", "board_id", "transport",
						 "driver_version", "stack", "libibverbs_pkg", NULL };
	static const char *const port_keys[] = { "state", "phys_state", "link_layer", "rate",
						  "netdev_mtu", NULL };
	static const char *const verbs_keys[] = { "active_mtu", NULL };
	int rc = 0;

	for (size_t i = 0; !rc && i < json_object_array_length(doc); i++) {
		json_object *d = json_object_array_get_idx(doc, i), *ports;
		const char *dev = obj_str(d, "dev");

		rc = facts_from(c, "devinfo", dev, 0, d, dev_keys);
		(void)json_object_object_get_ex(d, "ports", &ports);
		for (size_t j = 0; !rc && j < json_object_array_length(ports); j++) {
			json_object *p = json_object_array_get_idx(ports, j), *num, *verbs;

			if (!json_object_object_get_ex(p, "port", &num) ||
			    !json_object_is_type(num, json_type_int) || json_object_get_int(num) <= 0) {
				RD_GCC_LEAK_FP_BEGIN	/* f->problems grows in place, freed by rd_fleet_free */
				rc = problem_add(c->f, c->h->name, c->src, c->line,
						 "%s: a port without a valid \"port\" number, skipped", dev);
				RD_GCC_LEAK_FP_END
				continue;
			}
			rc = facts_from(c, "devinfo", dev, (unsigned int)json_object_get_int(num), p,
					port_keys);
			/* -v: what the port's verbs attributes say (the MTU in use) */
			if (!rc && json_object_object_get_ex(p, "verbs", &verbs) &&
			    json_object_is_type(verbs, json_type_object))
				rc = facts_from(c, "devinfo", dev, (unsigned int)json_object_get_int(num),
						verbs, verbs_keys);
		}
	}
	return rc;
}

/* rdma-gids --best -j: [{dev, port, index, type, ..., reason}] or {dev, port, reason} */
static bool gids_elem(json_object *e)
{
	return obj_str(e, "dev") && obj_has(e, "port", json_type_int) && obj_str(e, "reason") &&
	       !obj_has(e, "ports", json_type_array);
}

static bool gids_match(json_object *doc)
{
	return array_of(doc, gids_elem);
}

static int gids_read(struct reader_ctx *c, json_object *doc)
{
	size_t found = 0, n = json_object_array_length(doc);
	const char *why = NULL;
	int rc = 0;

	for (size_t i = 0; !rc && i < json_object_array_length(doc); i++) {
		json_object *e = json_object_array_get_idx(doc, i), *idx, *port, *none;
		const char *dev = obj_str(e, "dev"), *type = obj_str(e, "type");
		unsigned int pn;

		(void)json_object_object_get_ex(e, "port", &port);
		pn = (unsigned int)json_object_get_int(port);
		if (json_object_object_get_ex(e, "index", &idx) && json_object_is_type(idx, json_type_int)) {
			found++;
			rc = fact_add(c->f, c->h, "gids", dev, pn, "gid_index", idx);
			if (!rc && type) {
				json_object *t;

				(void)json_object_object_get_ex(e, "type", &t);
				rc = fact_add(c->f, c->h, "gids", dev, pn, "roce_mode", t);
			}
			continue;
		}
		/* no usable index here: a value ("none") that may be an outlier */
		none = json_object_new_string("none");
		if (!none)
			return -ENOMEM;
		rc = fact_add(c->f, c->h, "gids", dev, pn, "gid_index", none);
		json_object_put(none);
		why = obj_str(e, "reason");
	}
	/* like rdma-gids --best's exit status: no port at all has an index */
	if (!rc && !found)
		rc = problem_add(c->f, c->h->name, c->src, c->line,
				 "no port has a usable GID index (%s%s)", why,
				 n > 1 ? ", and more" : "");
	return rc;
}

/*
 * rdma-fabric -j, run on one host: {verdict, summary{source, switches, cas,
 * links, ...}, results: [{check, object, host, status, detail, ...}]}.  The
 * fabric is not that host's own fact (one fabric, not a value per host), so
 * no facts; each FAIL is a problem of the host that swept it and names the
 * host behind the link (an HCA's description starts with it), so that a
 * fleet summary says which host sits behind a bad link.  The name is only
 * said, never turned into another host's problem: one host's document never
 * changes another host's result.
 */
static bool fabric_match(json_object *doc)
{
	json_object *sum;

	return json_object_is_type(doc, json_type_object) && obj_str(doc, "verdict") &&
	       obj_has(doc, "results", json_type_array) &&
	       json_object_object_get_ex(doc, "summary", &sum) && json_object_is_type(sum, json_type_object) &&
	       obj_has(sum, "switches", json_type_int) && obj_has(sum, "cas", json_type_int);
}

/* A host name as a fabric document may say it: a short word of name characters, else none. */
static const char *fabric_host(json_object *e)
{
	const char *h = obj_str(e, "host");
	size_t n = 0;

	if (!h)
		return NULL;
	for (; h[n]; n++)
		if (n >= 64 || !(isalnum((unsigned char)h[n]) || h[n] == '-' || h[n] == '.' || h[n] == '_'))
			return NULL;
	return n ? h : NULL;
}

static int fabric_read(struct reader_ctx *c, json_object *doc)
{
	json_object *res;
	int rc = 0;

	(void)json_object_object_get_ex(doc, "results", &res);
	for (size_t i = 0; !rc && i < json_object_array_length(res); i++) {
		json_object *e = json_object_array_get_idx(res, i);
		const char *id, *status, *obj, *detail, *behind;

		if (!json_object_is_type(e, json_type_object) || !(id = obj_str(e, "check")) ||
		    !(status = obj_str(e, "status"))) {
			rc = problem_add(c->f, c->h->name, c->src, c->line,
					 "rdma-fabric result %zu without \"check\" and \"status\", skipped", i + 1);
			continue;
		}
		if (strcmp(status, "fail") != 0)
			continue;
		obj = obj_str(e, "object");
		detail = obj_str(e, "detail");
		behind = fabric_host(e);
		rc = problem_add(c->f, c->h->name, c->src, c->line, "fabric %.64s%s%.64s%s %.200s: %.200s", id,
				 behind ? " (host " : "", behind ? behind : "", behind ? ")" : "",
				 obj ? obj : "?", detail ? detail : "(no detail)");
	}
	return rc;
}

/*
 * rdma-doctor -j: {verdict, summary, results: [{check, object, status, detail, fix, dev, port}]}.
 * Each result is a fact named by its check id (its status: pass, warn, fail,
 * skip), so a host whose check differs from the others is an outlier; a FAIL
 * is a problem of that host with the doctor's detail.
 */
static bool doctor_match(json_object *doc)
{
	return json_object_is_type(doc, json_type_object) && obj_str(doc, "verdict") &&
	       obj_has(doc, "summary", json_type_object) && obj_has(doc, "results", json_type_array);
}

/* The words rdma-doctor writes for its verdict and each status, in lower case. */
static bool doctor_word(const char *w)
{
	static const char *const words[] = { "pass", "warn", "fail", "skip" };

	for (size_t i = 0; i < RD_ARRAY_SIZE(words); i++)
		if (strcmp(w, words[i]) == 0)
			return true;
	return false;
}

static int doctor_read(struct reader_ctx *c, json_object *doc)
{
	const char *verdict = obj_str(doc, "verdict");
	json_object *res;
	size_t nfail = 0;
	int rc = 0;

	/* As mesh values are: a word the doctor never writes makes the document untrusted. */
	if (!doctor_word(verdict))
		return problem_add(c->f, c->h->name, c->src, c->line,
				   "rdma-doctor verdict '%.32s' is not pass, warn, fail or skip: the "
				   "document is not trusted, skipped", verdict);
	(void)json_object_object_get_ex(doc, "results", &res);
	for (size_t i = 0; !rc && i < json_object_array_length(res); i++) {
		json_object *e = json_object_array_get_idx(res, i), *st, *port;
		const struct rd_dr_check *chk;
		const char *id, *status, *dev;
		unsigned int pn = 0;

		if (!json_object_is_type(e, json_type_object) || !(id = obj_str(e, "check")) ||
		    !(status = obj_str(e, "status"))) {
			rc = problem_add(c->f, c->h->name, c->src, c->line,
					 "rdma-doctor result %zu without \"check\" and \"status\", skipped", i + 1);
			continue;
		}
		if (!doctor_word(status)) {
			rc = problem_add(c->f, c->h->name, c->src, c->line,
					 "rdma-doctor result %zu (%.64s): status '%.32s' is not pass, warn, "
					 "fail or skip, skipped", i + 1, id, status);
			continue;
		}
		/* the table's own string: facts compare names by pointer */
		chk = rd_dr_check_find(id);
		if (!chk) {
			rc = problem_add(c->f, c->h->name, c->src, c->line,
					 "rdma-doctor check '%.64s' is unknown here (a newer rdma-doctor?), skipped", id);
			continue;
		}
		dev = obj_str(e, "dev");
		if (json_object_object_get_ex(e, "port", &port) && json_object_is_type(port, json_type_int) &&
		    json_object_get_int(port) > 0)
			pn = (unsigned int)json_object_get_int(port);
		(void)json_object_object_get_ex(e, "status", &st);
		rc = fact_add(c->f, c->h, "doctor", dev, pn, chk->id, st);
		if (!rc && strcmp(status, "fail") == 0) {
			const char *obj = obj_str(e, "object"), *detail = obj_str(e, "detail");

			nfail++;
			rc = problem_add(c->f, c->h->name, c->src, c->line, "%s %s: %s", id,
					 obj ? obj : "?", detail ? detail : "(no detail)");
		}
	}
	/* The host's own verdict counts too, and must agree with its results. */
	if (!rc && strcmp(verdict, "fail") == 0 && !nfail)
		rc = problem_add(c->f, c->h->name, c->src, c->line,
				 "rdma-doctor's verdict is fail but it lists no failed check (a document "
				 "cut short or edited?)");
	else if (!rc && strcmp(verdict, "fail") != 0 && nfail)
		rc = problem_add(c->f, c->h->name, c->src, c->line,
				 "rdma-doctor's verdict %s contradicts its %zu failed check%s", verdict, nfail,
				 nfail == 1 ? "" : "s");
	else if (!rc && strcmp(verdict, "skip") == 0)
		rc = problem_add(c->f, c->h->name, c->src, c->line,
				 "rdma-doctor checked nothing on this host (verdict skip: every check skipped)");
	return rc;
}

/*
 * rdma-selftest --mesh -j: one JSON line per pair, {mode: "mesh", src, dst,
 * round, dev, port, dst_dev, dst_port (with --devices), result, failed_stage,
 * diagnosis, warning, latency_us, gbps}.
 * The pairs make the matrix; a FAIL is also a problem of the source host.
 */
static bool mesh_match(json_object *doc)
{
	const char *mode = obj_str(doc, "mode");

	return json_object_is_type(doc, json_type_object) && mode && strcmp(mode, "mesh") == 0 &&
	       obj_str(doc, "src") && obj_str(doc, "dst") && obj_str(doc, "result");
}

/* The fleet's one copy of s (NULL stays NULL); *oom set on failure. */
static const char *intern_or_null(struct rd_fleet *f, const char *s, bool *oom)
{
	const char *d = s ? text_intern(f, s) : NULL;

	if (s && !d)
		*oom = true;
	return d;
}

static unsigned int obj_port(json_object *doc, const char *key)
{
	json_object *v;

	if (json_object_object_get_ex(doc, key, &v) && json_object_is_type(v, json_type_int) &&
	    json_object_get_int(v) > 0 && json_object_get_int(v) <= 255)
		return (unsigned int)json_object_get_int(v);
	return 0;
}

/*
 * A figure of a pair: absent (-1, 0 returned), or a finite number in
 * [0, max] (1); anything else is -1, and the line is refused.
 */
static int pair_num(json_object *doc, const char *key, double max, double *out)
{
	json_object *v;
	double d;

	*out = -1;
	if (!json_object_object_get_ex(doc, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return -1;
	d = json_object_get_double(v);
	if (!isfinite(d) || d < 0 || d > max)
		return -1;
	*out = d;
	return 1;
}

/* Why a mesh line cannot be taken as it is, or NULL; what names the field. */
static const char *mesh_refusal(const struct reader_ctx *c, json_object *doc, const char *src,
				const char *dst, char *buf, size_t len)
{
	const char *res = obj_str(doc, "result");
	double x;

	if (!*src || !*dst)
		return "a pair without its src or dst host";
	if (strcmp(src, dst) == 0 && !obj_str(doc, "dst_dev"))
		return "a pair of a host with itself";
	if (strcmp(res, "pass") != 0 && strcmp(res, "fail") != 0) {
		snprintf(buf, len, "result '%.40s' is neither pass nor fail", res);
		return buf;
	}
	/* 10 Tb/s and 1000 s bound what a pair test can report. */
	if (pair_num(doc, "gbps", 10000, &x) < 0)
		return "gbps is not a number from 0 to 10000";
	if (pair_num(doc, "latency_us", 1e9, &x) < 0)
		return "latency_us is not a number from 0 to 1e9";
	/* Each host reports the pairs it ran as the client: no host speaks for another. */
	if (c->attributed && strcmp(src, c->h->name) != 0) {
		snprintf(buf, len, "%.48s reports the pair %.48s -> %.48s: only %.48s reports its own pairs",
			 c->h->name, src, dst, src);
		return buf;
	}
	return NULL;
}

static bool same_str(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

/* Both pairs have rails, and the same ones. */
static bool same_rails(const struct rd_fleet_pair *a, const struct rd_fleet_pair *b)
{
	return a->dst_dev && b->dst_dev && same_str(a->dev, b->dev) && a->port == b->port &&
	       strcmp(a->dst_dev, b->dst_dev) == 0 && a->dst_port == b->dst_port;
}

static int mesh_read(struct reader_ctx *c, json_object *doc)
{
	const char *src = obj_str(doc, "src"), *dst = obj_str(doc, "dst");
	struct rd_fleet *f = c->f;
	struct rd_fleet_pair n = { 0 };
	size_t slot = SIZE_MAX;	/* where it goes in f->pairs: the pair it repeats, or a new one */
	bool oom = false;
	char rails[300] = "", why[320];
	const char *refused = mesh_refusal(c, doc, src, dst, why, sizeof(why));

	if (refused)
		return problem_add(f, c->h->name, c->src, c->line, "mesh line skipped: %s", refused);
	n.ok = strcmp(obj_str(doc, "result"), "pass") == 0;
	n.src = intern_or_null(f, src, &oom);
	n.dst = intern_or_null(f, dst, &oom);
	n.dev = intern_or_null(f, obj_str(doc, "dev"), &oom);
	n.port = obj_port(doc, "port");
	n.dst_dev = intern_or_null(f, obj_str(doc, "dst_dev"), &oom);
	n.dst_port = obj_port(doc, "dst_port");
	if (!n.ok) {
		n.stage = intern_or_null(f, obj_str(doc, "failed_stage") ? obj_str(doc, "failed_stage") : "?", &oom);
		n.diagnosis = intern_or_null(f, obj_str(doc, "diagnosis") ? obj_str(doc, "diagnosis") : "", &oom);
	} else {
		n.warning = intern_or_null(f, obj_str(doc, "warning"), &oom);
	}
	(void)pair_num(doc, "latency_us", 1e9, &n.latency_us);	/* checked by mesh_refusal */
	(void)pair_num(doc, "gbps", 10000, &n.gbps);
	n.source = intern_or_null(f, c->src, &oom);
	n.line = c->line;
	if (oom)
		return -ENOMEM;
	/*
	 * The same pair again (a second run): the later one counts.  Without
	 * rails that is the first pair of the two hosts; with rails (dst_dev) the
	 * pair of the same two hosts and both ends' device and port.
	 */
	{
		char pbuf[16], dpbuf[16];
		const char *parts[] = { src, dst, n.dev, pbuf, n.dst_dev, dpbuf };
		const char *hkey, *rkey;
		size_t hlen, rlen = 1, at;
		int rc = 0;

		(void)snprintf(pbuf, sizeof(pbuf), "%u", n.port);
		(void)snprintf(dpbuf, sizeof(dpbuf), "%u", n.dst_port);
		/* the two hosts; the rail pair (six parts: never equal to two) */
		hlen = rd_strmap_key(&f->kb[0], parts, 2);
		if (n.dst_dev)
			rlen = rd_strmap_key(&f->kb[1], parts, RD_ARRAY_SIZE(parts));
		hkey = f->kb[0].s;
		rkey = f->kb[1].s;
		if (!hlen || !rlen)
			rc = -ENOMEM;
		else if (n.dst_dev ? rd_strmap_get(&f->pair_map, rkey, rlen, &at) &&
					 same_rails(&f->pairs[at], &n)	/* (not since taken by another) */
				   : rd_strmap_get(&f->pair_map, hkey, hlen, &at)) {
			slot = at;
		} else {
			at = f->npairs;
			rc = rd_strmap_get_or_add(&f->pair_map, hkey, hlen, &at);	/* keeps the first */
			if (rc >= 0 && n.dst_dev)
				rc = rd_strmap_set(&f->pair_map, rkey, rlen, f->npairs);
		}
		if (rc < 0)
			return -ENOMEM;
	}
	if (slot == SIZE_MAX) {
		if (grow(&f->pairs, &f->pairs_cap, f->npairs, sizeof(*f->pairs)))
			return -ENOMEM;
		slot = f->npairs++;
	}
	f->pairs[slot] = n;	/* its strings are the fleet's (text_intern) */
	if (n.ok)
		return 0;
	if (n.dst_dev)
		rd_fleet_pair_rails(&n, rails, sizeof(rails));
	return problem_add(f, c->h->name, c->src, c->line, "mesh %s -> %s%s: FAIL at %s: %s", src, dst,
			   rails, n.stage, n.diagnosis);
}

/*
 * rdma-gpumap -j: {gpus: [{gpu, bus, dev, port, path, gdr, ...}], summary: {gdr, gpus, backend,
 * nccl_version...}}.  Per GPU its NIC ("mlx5_3:1", "none"), path type and GDR, so that a host
 * whose GPU-to-NIC map differs from the others' (a card in the wrong slot, a port down) is an
 * outlier; per host "gdr" as k/G and the backend.
 */
static bool gpumap_match(json_object *doc)
{
	json_object *sum;

	return json_object_is_type(doc, json_type_object) && obj_has(doc, "gpus", json_type_array) &&
	       json_object_object_get_ex(doc, "summary", &sum) && obj_str(sum, "nccl_version");
}

static int gpumap_read(struct reader_ctx *c, json_object *doc)
{
	json_object *gpus, *sum, *v;
	int rc = 0;

	(void)json_object_object_get_ex(doc, "gpus", &gpus);
	(void)json_object_object_get_ex(doc, "summary", &sum);
	for (size_t i = 0; !rc && i < json_object_array_length(gpus); i++) {
		json_object *g = json_object_array_get_idx(gpus, i), *port, *val;
		const char *name = obj_str(g, "gpu"), *dev = obj_str(g, "dev");
		char nic[96];

		if (!name || strlen(name) > 32) {
			RD_GCC_LEAK_FP_BEGIN	/* f->problems grows in place, freed by rd_fleet_free */
			rc = problem_add(c->f, c->h->name, c->src, c->line,
					 "rdma-gpumap GPU %zu without a \"gpu\" name, skipped", i + 1);
			RD_GCC_LEAK_FP_END
			continue;
		}
		if (dev && json_object_object_get_ex(g, "port", &port) && json_object_is_type(port, json_type_int))
			snprintf(nic, sizeof(nic), "%.63s:%d", dev, json_object_get_int(port));
		else
			snprintf(nic, sizeof(nic), "none");
		val = json_object_new_string(nic);
		if (!val)
			return -ENOMEM;
		RD_GCC_LEAK_FP_BEGIN	/* the grown array is h->facts, freed by rd_fleet_free */
		rc = fact_add(c->f, c->h, "gpumap", name, 0, "nic", val);
		RD_GCC_LEAK_FP_END
		json_object_put(val);
		if (!rc) {
			static const char *const keys[] = { "path", "gdr", NULL };

			rc = facts_from(c, "gpumap", name, 0, g, keys);
		}
	}
	if (!rc && json_object_object_get_ex(sum, "gdr", &v) && json_object_is_type(v, json_type_int)) {
		json_object *n, *val;
		char kg[48];

		(void)json_object_object_get_ex(sum, "gpus", &n);
		snprintf(kg, sizeof(kg), "%d/%d", json_object_get_int(v), n ? json_object_get_int(n) : 0);
		val = json_object_new_string(kg);
		if (!val)
			return -ENOMEM;
		rc = fact_add(c->f, c->h, "gpumap", NULL, 0, "gdr", val);
		json_object_put(val);
	}
	if (!rc) {
		static const char *const keys[] = { "backend", "iommu", NULL };

		rc = facts_from(c, "gpumap", NULL, 0, sum, keys);
	}
	return rc;
}

/*
 * The readers, tried in order.  A new tool's output is one more entry: a
 * shape test and a function turning the document into facts (and problems).
 */
static const struct reader {
	const char *name;
	const char *what;	/* for messages */
	bool (*match)(json_object *doc);
	int (*read)(struct reader_ctx *c, json_object *doc);
} readers[] = {
	{ "devinfo", "rdma-devinfo -j", devinfo_match, devinfo_read },
	{ "gids", "rdma-gids --best -j", gids_match, gids_read },
	{ "fabric", "rdma-fabric -j", fabric_match, fabric_read },	/* before doctor: the same keys and more */
	{ "doctor", "rdma-doctor -j", doctor_match, doctor_read },
	{ "mesh", "rdma-selftest --mesh -j", mesh_match, mesh_read },
	{ "gpumap", "rdma-gpumap -j", gpumap_match, gpumap_read },
};

/* ------------------------------------------------------------ streams */

static struct chan *chan_get(struct rd_fleet *f, const char *src, const char *prefix)
{
	const char *parts[] = { src, prefix };
	size_t len = rd_strmap_key(&f->kb[0], parts, 2), at = f->nchans;
	struct chan *c;
	int rc;

	rc = len ? grow(&f->chans, &f->ccap, f->nchans, sizeof(*f->chans)) : -ENOMEM;
	if (!rc)
		rc = rd_strmap_get_or_add(&f->chan_map, f->kb[0].s, len, &at);
	if (rc < 0)
		return NULL;
	if (rc == 1)
		return &f->chans[at];
	if (f->nchans == f->ccap) {
		size_t cap = f->ccap ? f->ccap * 2 : 16;

		c = realloc(f->chans, cap * sizeof(*c));
		if (!c)
			return NULL;
		f->chans = c;
		f->ccap = cap;
	}
	c = &f->chans[f->nchans];
	memset(c, 0, sizeof(*c));
	RD_GCC_LEAK_FP_BEGIN	/* stored in f->chans, freed by rd_fleet_free */
	c->src = strdup(src);
	c->prefix = prefix ? strdup(prefix) : NULL;
	if (!c->src || (prefix && !c->prefix)) {
		free(c->src);
		free(c->prefix);
		return NULL;
	}
	RD_GCC_LEAK_FP_END
	f->nchans++;
	return c;
}

/* The host of a stream without a prefix: the file's base name, or "stdin". */
static void source_host(const char *src, char *buf, size_t len)
{
	const char *base = strrchr(src, '/');
	static const char *const exts[] = { ".json", ".jsonl", ".txt", ".out", NULL };
	size_t n;

	if (strcmp(src, "-") == 0) {
		rd_strlcpy(buf, "stdin", len);
		return;
	}
	base = base ? base + 1 : src;
	rd_strlcpy(buf, base, len);
	n = strlen(buf);
	for (size_t i = 0; exts[i]; i++) {
		size_t e = strlen(exts[i]);

		if (n > e && strcmp(buf + n - e, exts[i]) == 0) {
			buf[n - e] = '\0';
			break;
		}
	}
}

static const char *chan_host(const struct chan *c, char *buf, size_t len)
{
	if (c->prefix)
		return c->prefix;
	source_host(c->src, buf, len);
	return buf;
}

static int chan_end_resync(struct rd_fleet *f, struct chan *c)
{
	struct rd_fleet_problem *p;
	const char *t = NULL;
	char *w;

	if (!c->resync)
		return 0;
	c->resync = false;
	if (!c->skipped || c->bad_problem >= f->nproblems)
		return 0;
	p = &f->problems[c->bad_problem];
	if (asprintf(&w, "%s; %zu more line%s of it skipped", p->what, c->skipped,
		     c->skipped == 1 ? "" : "s") >= 0) {
		t = text_intern(f, w);
		free(w);
	}
	if (!t)
		return -ENOMEM;
	p->what = t;
	c->skipped = 0;
	return 0;
}

/* A complete document from stream c, which started at line `line`. */
/*
 * A second document of one kind from one host (two runs, two hosts sending
 * under one name): its facts replace the first's (the later counts), but a
 * fact whose value changed is a conflict the fleet cannot settle, so it is a
 * problem of that host, named by the first fact that differs.  Facts from
 * start on are the new document's.
 */
static int conflict_check(struct rd_fleet *f, struct reader_ctx *c, const struct reader *r,
			  size_t start)
{
	const struct host *h = c->h;
	size_t ndiff = 0, old = 0;
	const char *now = NULL;

	/* Each fact of this kind the earlier documents gave: changed, or gone. */
	for (size_t k = 0; k < start; k++) {
		const char *v = "absent";
		bool same = false;

		if (strcmp(f->fkeys[h->facts[k].fid].kind, r->name) != 0)
			continue;
		for (size_t j = start; j < h->nfacts && !same; j++) {
			if (h->facts[j].fid != h->facts[k].fid)
				continue;
			same = h->facts[j].vid == h->facts[k].vid;
			v = f->vtexts[h->facts[j].vid];
		}
		/* a fact given twice by the earlier documents: the last one counts */
		for (size_t l = k + 1; l < start && !same; l++)
			same = h->facts[l].fid == h->facts[k].fid;
		if (same)
			continue;
		if (!ndiff++)
			old = k, now = v;
	}
	if (!ndiff)
		return 0;
	{
		const struct fact_key *fk = &f->fkeys[h->facts[old].fid];
		char port[16] = "";

		if (fk->port)
			snprintf(port, sizeof(port), "/%u", fk->port);
		return problem_add(f, h->name, c->src, c->line,
				   "a second %s document disagrees with an earlier one on %zu fact%s "
				   "(%s%s%s%s: %.40s, then %.40s); where both give a fact, the later "
				   "counts", r->what, ndiff,
				   ndiff == 1 ? "" : "s", fk->name, fk->dev ? " of " : "", fk->dev ? fk->dev : "",
				   port, f->vtexts[h->facts[old].vid], now);
	}
}

/*
 * json-c reads NaN and Infinity (even in its strict mode); JSON has neither,
 * and no tool of the kit writes them: a document holding one is malformed.
 */
/* NOLINTNEXTLINE(misc-no-recursion): bounded by depth and json-c's own nesting limit */
static bool has_nonfinite(json_object *o, int depth)
{
	if (depth > 64)
		return false;	/* json-c's own nesting limit is lower */
	switch (json_object_get_type(o)) {
	case json_type_double:
		return !isfinite(json_object_get_double(o));
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			if (has_nonfinite(json_object_array_get_idx(o, i), depth + 1))
				return true;
		return false;
	case json_type_object: {
		json_object_object_foreach(o, key, val) {
			(void)key;
			if (has_nonfinite(val, depth + 1))
				return true;
		}
		return false;
	}
	default:
		return false;
	}
}

static int chan_document(struct rd_fleet *f, struct chan *c, json_object *doc, size_t line)
{
	char buf[256];
	const char *hostname = chan_host(c, buf, sizeof(buf));
	struct reader_ctx rc = { .f = f, .src = c->src, .line = line };
	const char *named;
	unsigned int again;
	size_t start;
	int ret;

	rc.attributed = c->prefix != NULL;
	if (has_nonfinite(doc, 0))
		return problem_add(f, hostname, c->src, line, "malformed JSON: NaN or Infinity is not a "
				   "JSON number, skipped");
	if (!c->prefix && json_object_is_type(doc, json_type_object) &&
	    (named = obj_str(doc, "host")) != NULL && *named) {
		hostname = named;
		rc.attributed = true;
	}
	for (size_t i = 0; i < RD_ARRAY_SIZE(readers); i++) {
		if (!readers[i].match(doc))
			continue;
		if (chan_end_resync(f, c))
			return -ENOMEM;
		rc.h = host_get(f, hostname);
		if (!rc.h)
			return -ENOMEM;
		again = rc.h->kinds & (1u << i);
		start = rc.h->nfacts;
		rc.h->kinds |= 1u << i;
		f->docs++;
		ret = readers[i].read(&rc, doc);
		if (!ret && again)
			ret = conflict_check(f, &rc, &readers[i], start);
		return ret;
	}
	if (c->resync) {
		/* a piece of the broken document (an inner object): part of the skip */
		return 0;
	}
	if (!host_get(f, hostname))
		return -ENOMEM;
	{
		char kinds[256] = "";
		size_t o = 0;

		for (size_t i = 0; i < RD_ARRAY_SIZE(readers) && o < sizeof(kinds); i++)
			o += (size_t)snprintf(kinds + o, sizeof(kinds) - o, "%s%s", i ? ", " : "",
					      readers[i].what);
		return problem_add(f, hostname, c->src, line,
				   "not a document rdma-fleet reads (%s), skipped", kinds);
	}
}

static bool all_space(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return *s == '\0';
}

/* A document starts on stream c: give it a tokener. */
static int chan_open(struct rd_fleet *f, struct chan *c, size_t lineno)
{
	if (!c->tok) {
		c->tok = f->spare_tok ? f->spare_tok : json_tokener_new();
		f->spare_tok = NULL;
		if (!c->tok)
			return -ENOMEM;
		/* no single quotes, comments or trailing commas: what JSON is */
		json_tokener_set_flags(c->tok, JSON_TOKENER_STRICT);
	}
	c->open = true;
	c->doc_line = lineno;
	return 0;
}

/* The document of stream c ended (parsed, malformed or cut short). */
static void chan_close(struct rd_fleet *f, struct chan *c)
{
	c->open = false;
	if (!c->tok)
		return;
	json_tokener_reset(c->tok);
	if (f->spare_tok)
		json_tokener_free(c->tok);
	else
		f->spare_tok = c->tok;
	c->tok = NULL;
}

/*
 * Give a stream's pending lines to its tokener.  The tokener sees the same
 * characters, in the same order, as it would line by line, so a document
 * ends, and malformed input is found, at the same line: an error is charged
 * to the line holding the character json-c stopped at, and the rest of that
 * line is lost with it.
 */
static int chan_flush(struct rd_fleet *f, struct chan *c)
{
	/* Nothing pending may mean no buffer yet: NULL + 0 is undefined. */
	const char *base = c->pend, *end = c->pend ? c->pend + c->plen : NULL, *s = base;
	size_t li = 0;	/* the pending line that holds s */
	int rc = 0;

	while (!rc && s < end) {
		enum json_tokener_error e;
		json_object *doc;
		size_t used;

		if (!c->open) {
			while (s < end && isspace((unsigned char)*s))
				s++;
			if (s == end)
				break;
			while (li + 1 < c->npl && c->pl[li + 1].off <= (size_t)(s - base))
				li++;
			rc = chan_open(f, c, c->pl[li].lineno);
			if (rc)
				break;
		}
		doc = json_tokener_parse_ex(c->tok, s, (int)(end - s));
		e = json_tokener_get_error(c->tok);
		if (e == json_tokener_continue)
			break;	/* the document goes on in lines still to come */
		used = json_tokener_get_parse_end(c->tok);
		if (e != json_tokener_success) {
			size_t at = (size_t)(s - base) + used, l0, l1;

			while (li + 1 < c->npl && c->pl[li + 1].off <= at)
				li++;
			l0 = c->pl[li].off;
			l1 = li + 1 < c->npl ? c->pl[li + 1].off - 1 : c->plen - 1;	/* its '\n' */
			chan_close(f, c);
			if (c->resync) {
				c->skipped++;
			} else {
				char host[256];

				c->resync = true;
				c->skipped = 0;
				c->bad_problem = f->nproblems;
				rc = problem_add(f, chan_host(c, host, sizeof(host)), c->src, c->pl[li].lineno,
						 "malformed JSON (%s): \"%.*s%s\"", json_tokener_error_desc(e),
						 (int)(l1 - l0 > 48 ? 48 : l1 - l0), base + l0,
						 l1 - l0 > 48 ? "..." : "");
			}
			s = base + l1 + 1;	/* the rest of this line is lost with it */
			continue;
		}
		chan_close(f, c);
		rc = chan_document(f, c, doc, c->doc_line);
		json_object_put(doc);
		s += used;
	}
	c->plen = c->npl = 0;
	if (!c->open || c->pcap > 16384) {	/* room is kept only inside a document */
		free(c->pend);
		free(c->pl);
		c->pend = NULL;
		c->pl = NULL;
		c->pcap = c->plcap = 0;
	}
	return rc;
}

/*
 * One line of a stream.  A line of a host's stream ("HOST: text") that starts
 * in column 0 (a document's first or last line when pretty-printed, every
 * JSON line) is parsed at once with those before it; an indented one waits
 * for such a line.  That host is known from its first line on, and its
 * problems come in the order of its lines, so the summary is the same as
 * line by line.  A stream without a prefix (its host may be named inside its
 * documents) is parsed line by line.  Blank lines are dropped, as they
 * always were.
 */
RD_GCC_LEAK_FP_BEGIN	/* the buffers grow in place in c, freed by rd_fleet_free */
static int chan_feed(struct rd_fleet *f, struct chan *c, size_t lineno, const char *text)
{
	size_t len = strlen(text);

	if (all_space(text))
		return 0;
	if (grow(&c->pl, &c->plcap, c->npl, sizeof(*c->pl)))
		return -ENOMEM;
	if (c->plen + len + 1 > c->pcap) {
		size_t cap = c->pcap ? c->pcap : 256;
		char *b;

		while (cap < c->plen + len + 1)
			cap *= 2;
		b = realloc(c->pend, cap);
		if (!b)
			return -ENOMEM;
		c->pend = b;
		c->pcap = cap;
	}
	c->pl[c->npl++] = (struct pend_line){ c->plen, lineno };
	memcpy(c->pend + c->plen, text, len);
	c->plen += len;
	c->pend[c->plen++] = '\n';	/* ends a number at the end of the line */
	if (!c->prefix || !isspace((unsigned char)text[0]) || c->plen >= 65536)
		return chan_flush(f, c);
	return 0;
}
RD_GCC_LEAK_FP_END

/* "HOST: text" (pdsh, clush -L, srun -l, rdma-fleet --prefix): the length of HOST, or 0. */
static size_t host_prefix(const char *line, size_t *text_at)
{
	size_t i = 0, start;

	while (line[i] == ' ')
		i++;	/* srun -l pads the rank */
	start = i;
	while (isalnum((unsigned char)line[i]) || line[i] == '.' || line[i] == '-' || line[i] == '_')
		i++;
	if (i == start || line[i] != ':' || (line[i + 1] != ' ' && line[i + 1] != '\0'))
		return 0;
	*text_at = line[i + 1] ? i + 2 : i + 1;
	return i - start;
}

int rd_fleet_feed(struct rd_fleet *f, const char *src, size_t lineno, const char *line)
{
	size_t at = 0, n = host_prefix(line, &at);
	struct chan *c;

	if (n > RD_HOSTNAME_MAX) {
		/* Cut, it could be another host's name: the line is the source's problem. */
		char host[256];

		source_host(src, host, sizeof(host));
		return problem_add(f, host, src, lineno, "a host name of %zu bytes before ': ' (at "
				   "most %d), line skipped", n, RD_HOSTNAME_MAX);
	}
	if (n) {
		size_t start = 0;
		char host[RD_HOSTNAME_MAX + 1];

		while (line[start] == ' ')
			start++;
		memcpy(host, line + start, n);
		host[n] = '\0';
		c = chan_get(f, src, host);
	} else {
		c = chan_get(f, src, NULL);
	}
	if (!c)
		return -ENOMEM;
	if (c->prefix && !host_get(f, c->prefix))
		return -ENOMEM;
	return chan_feed(f, c, lineno, line + at);
}

int rd_fleet_source_end(struct rd_fleet *f, const char *src)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < f->nchans; i++) {
		struct chan *c = &f->chans[i];

		if (strcmp(c->src, src) != 0)
			continue;
		rc = chan_flush(f, c);
		if (rc)
			break;
		if (c->open) {
			char host[256];

			rc = problem_add(f, chan_host(c, host, sizeof(host)), c->src, c->doc_line,
					 "document cut short at the end of the input, skipped");
			chan_close(f, c);
		}
		if (!rc)
			rc = chan_end_resync(f, c);
	}
	return rc;
}

int rd_fleet_expect(struct rd_fleet *f, const struct rd_strlist *hosts)
{
	/* room for them all at once: a million names need no doubling */
	if (rd_strmap_reserve(&f->host_map, hosts->n))
		return -ENOMEM;
	if (f->nhosts + hosts->n > f->hcap) {
		struct host *h = realloc(f->hosts, (f->nhosts + hosts->n) * sizeof(*h));

		if (!h)
			return -ENOMEM;
		f->hosts = h;
		f->hcap = f->nhosts + hosts->n;
	}
	if (f->host_names.n + hosts->n > f->host_names.cap) {
		char **v = realloc(f->host_names.v, (f->host_names.n + hosts->n) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->host_names.v = v;
		f->host_names.cap = f->host_names.n + hosts->n;
	}
	for (size_t i = 0; i < hosts->n; i++)
		if (!host_get(f, hosts->v[i]))
			return -ENOMEM;
	return 0;
}

/* ------------------------------------------------------------ analysis */

static unsigned int kind_bit(const char *kind)
{
	for (size_t i = 0; i < RD_ARRAY_SIZE(readers); i++)
		if (strcmp(readers[i].name, kind) == 0)
			return 1u << i;
	return 0;
}

/* Values by number of hosts, most first; equal counts keep their first-seen order. */
static int value_cmp(const void *pa, const void *pb)
{
	const struct rd_fleet_value *a = pa, *b = pb;

	if (a->hosts.n != b->hosts.n)
		return a->hosts.n > b->hosts.n ? -1 : 1;
	return a->seen < b->seen ? -1 : a->seen > b->seen;
}

/* Problems by their host's first appearance; stable within a host. */
struct problem_order {
	size_t host, at;
};

static int problem_cmp(const void *pa, const void *pb)
{
	const struct problem_order *a = pa, *b = pb;

	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static int sort_problems(struct rd_fleet *f)
{
	struct problem_order *ord;
	struct rd_fleet_problem *sorted;

	if (f->nproblems < 2)
		return 0;
	ord = calloc(f->nproblems, sizeof(*ord));
	sorted = calloc(f->nproblems, sizeof(*sorted));
	if (!ord || !sorted) {
		free(ord);
		free(sorted);
		return -ENOMEM;
	}
	for (size_t i = 0; i < f->nproblems; i++) {
		ord[i].at = i;
		ord[i].host = f->problems[i].hostno;
	}
	qsort(ord, f->nproblems, sizeof(*ord), problem_cmp);
	for (size_t i = 0; i < f->nproblems; i++)
		sorted[i] = f->problems[ord[i].at];
	memcpy(f->problems, sorted, f->nproblems * sizeof(*sorted));
	free(sorted);
	free(ord);
	return 0;
}

/*
 * Add host h's value of fact k (vid, or none: absent) to k's values.  vmap
 * maps (fact, value) to the value's place in k->vals.
 */
static int fact_host(struct rd_fleet *f, struct rd_strmap *vmap, size_t out, const struct host *h,
		     uint32_t vid, bool has)
{
	struct rd_fleet_fact *k = &f->facts[out];
	uint64_t key[2] = { out, has ? (uint64_t)vid + 1 : 0 };
	size_t at = k->nvals;
	struct rd_fleet_value *v;
	int rc;

	k->nhosts++;
	rc = rd_strmap_get_or_add(vmap, key, sizeof(key), &at);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		v = realloc(k->vals, (k->nvals + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		k->vals = v;
		v = &k->vals[k->nvals];
		memset(v, 0, sizeof(*v));
		v->seen = k->nvals;
		v->key = strdup(has ? f->vtexts[vid] : "");
		RD_GCC_LEAK_FP_BEGIN	/* in k->vals, freed by rd_fleet_free */
		if (!v->key)
			return -ENOMEM;
		RD_GCC_LEAK_FP_END
		if (has) {
			v->val = json_tokener_parse(f->vtexts[vid]);
			if (!v->val)
				return -ENOMEM;	/* our own canonical text parses */
		}
		k->nvals++;
	}
	return list_borrow(&k->vals[at].hosts, h->name);
}

RD_GCC_LEAK_FP_BEGIN	/* the facts and their values go into f->facts, freed by rd_fleet_free */
int rd_fleet_analyze(struct rd_fleet *f)
{
	struct rd_strmap vmap = { 0 };
	uint32_t *cur = NULL;	/* per fact key: the host's value + 1, 0 when absent */
	unsigned int *bits = NULL;
	int rc = 0;

	/* The facts in first-seen order over the hosts. */
	for (size_t i = 0; i < f->nfkeys; i++)
		f->fkeys[i].out = SIZE_MAX;
	f->facts = calloc(f->nfkeys ? f->nfkeys : 1, sizeof(*f->facts));
	cur = calloc(f->nfkeys ? f->nfkeys : 1, sizeof(*cur));
	bits = calloc(f->nfkeys ? f->nfkeys : 1, sizeof(*bits));
	if (!f->facts || !cur || !bits) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < f->nhosts; i++) {
		const struct host *h = &f->hosts[i];

		for (size_t j = 0; j < h->nfacts; j++) {
			struct fact_key *fk = &f->fkeys[h->facts[j].fid];
			struct rd_fleet_fact *k;

			if (fk->out != SIZE_MAX)
				continue;
			fk->out = f->nfacts;
			bits[f->nfacts] = kind_bit(fk->kind);
			k = &f->facts[f->nfacts++];
			k->kind = strdup(fk->kind);
			k->name = strdup(fk->name);
			k->dev = fk->dev ? strdup(fk->dev) : NULL;
			k->port = fk->port;
			if (!k->kind || !k->name || (fk->dev && !k->dev)) {
				rc = -ENOMEM;
				goto out;
			}
		}
	}
	/*
	 * Each host's value of every fact of the kinds of document it sent (a
	 * fact it lacks is "absent"); a fact reported twice: the latest.
	 */
	for (size_t i = 0; !rc && i < f->nhosts; i++) {
		const struct host *h = &f->hosts[i];

		if (!h->kinds)
			continue;
		for (size_t j = 0; j < h->nfacts; j++)
			cur[f->fkeys[h->facts[j].fid].out] = h->facts[j].vid + 1;
		for (size_t k = 0; !rc && k < f->nfacts; k++)
			if (h->kinds & bits[k])
				rc = fact_host(f, &vmap, k, h, cur[k] ? cur[k] - 1 : 0, cur[k] != 0);
		for (size_t j = 0; j < h->nfacts; j++)
			cur[f->fkeys[h->facts[j].fid].out] = 0;
	}
	for (size_t i = 0; !rc && i < f->nfacts; i++) {
		struct rd_fleet_fact *k = &f->facts[i];

		if (k->nvals > 1)
			qsort(k->vals, k->nvals, sizeof(*k->vals), value_cmp);
		k->tie = k->nvals > 1 && k->vals[0].hosts.n == k->vals[1].hosts.n;
	}
	/* problems grouped by host, in the hosts' order; stable within a host */
	if (!rc)
		rc = sort_problems(f);
	/* then the hosts that sent nothing usable and have no other problem */
	for (size_t i = 0; !rc && i < f->nhosts; i++) {
		struct host *h = &f->hosts[i];

		if (!h->kinds && !h->problem)
			rc = problem_host_add(f, h, NULL, 0, "expected, but sent nothing");
	}
out:
	rd_strmap_free(&vmap);
	free(cur);
	free(bits);
	return rc;
}
RD_GCC_LEAK_FP_END

/* ------------------------------------------------------------ access */

struct rd_fleet *rd_fleet_new(void)
{
	return calloc(1, sizeof(struct rd_fleet));
}

void rd_fleet_free(struct rd_fleet *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nhosts; i++)
		free(f->hosts[i].facts);
	for (size_t i = 0; i < f->nfkeys; i++)
		free(f->fkeys[i].dev);
	free(f->fkeys);
	for (size_t i = 0; i < f->nvtexts; i++)
		free(f->vtexts[i]);
	free(f->vtexts);
	rd_strmap_free(&f->host_map);
	rd_strmap_free(&f->chan_map);
	rd_strmap_free(&f->fkey_map);
	rd_strmap_free(&f->val_map);
	rd_strmap_free(&f->pair_map);
	free(f->kb[0].s);
	free(f->kb[1].s);
	free(f->hosts);
	free(f->host_names.v);	/* the names are in the pool */
	rd_strmap_free(&f->text_map);
	free(f->texts);
	rd_strpool_free(&f->pool);
	for (size_t i = 0; i < f->nchans; i++) {
		free(f->chans[i].src);
		free(f->chans[i].prefix);
		if (f->chans[i].tok)
			json_tokener_free(f->chans[i].tok);
		free(f->chans[i].pend);
		free(f->chans[i].pl);
	}
	free(f->chans);
	if (f->spare_tok)
		json_tokener_free(f->spare_tok);
	free(f->problems);
	free(f->pairs);
	for (size_t i = 0; i < f->nfacts; i++) {
		struct rd_fleet_fact *k = &f->facts[i];

		for (size_t j = 0; j < k->nvals; j++) {
			free(k->vals[j].key);
			json_object_put(k->vals[j].val);
			free(k->vals[j].hosts.v);	/* borrowed names */
		}
		free(k->vals);
		free(k->kind);
		free(k->dev);
		free(k->name);
	}
	free(f->facts);
	free(f);
}

const struct rd_strlist *rd_fleet_hosts(const struct rd_fleet *f)
{
	return &f->host_names;
}

const struct rd_fleet_fact *rd_fleet_facts(const struct rd_fleet *f, size_t *n)
{
	*n = f->nfacts;
	return f->facts;
}

const struct rd_fleet_problem *rd_fleet_problems(const struct rd_fleet *f, size_t *n)
{
	*n = f->nproblems;
	return f->problems;
}

void rd_fleet_pair_rails(const struct rd_fleet_pair *p, char *buf, size_t len)
{
	if (!p->dst_dev) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, len, " (%s/%u -> %s/%u)", p->dev ? p->dev : "?", p->port, p->dst_dev,
		 p->dst_port);
}

const struct rd_fleet_pair *rd_fleet_pairs(const struct rd_fleet *f, size_t *n)
{
	*n = f->npairs;
	return f->pairs;
}

size_t rd_fleet_documents(const struct rd_fleet *f)
{
	return f->docs;
}

const char *rd_fleet_value_text(const struct rd_fleet_value *v)
{
	if (!v->val)
		return "absent";
	if (json_object_is_type(v->val, json_type_string))
		return json_object_get_string(v->val)[0] ? json_object_get_string(v->val) : "\"\"";
	return json_object_to_json_string_ext(v->val, JSON_C_TO_STRING_PLAIN);
}

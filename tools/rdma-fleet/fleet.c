// SPDX-License-Identifier: MIT
/*
 * Fleet summary: the fleet itself.  Its hosts, its texts (each kept once),
 * the problems, each host's raw facts by key and value, and what the results
 * give back (fleet.h).  The streams (fleetstream.c), the readers (fleetread.c,
 * fleetpairs.c) and the analysis (fleetanalyze.c) build on it.
 */
#define _GNU_SOURCE
#include "fleet.h"
#include "fleetint.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Grow *v (of *cap elements of size sz) to hold n + 1. */
int rd_fleet_grow(void *v, size_t *cap, size_t n, size_t sz)
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
int rd_fleet_list_borrow(struct rd_strlist *l, const char *s)
{
	RD_GCC_LEAK_FP_BEGIN	/* l->v grows in place through rd_fleet_grow()'s void ** */
	if (rd_fleet_grow(&l->v, &l->cap, l->n, sizeof(*l->v)))
		return -ENOMEM;
	RD_GCC_LEAK_FP_END
	l->v[l->n++] = (char *)s;	/* NOLINT: rd_strlist's type; never freed through it */
	return 0;
}

struct host *rd_fleet_host_get(struct rd_fleet *f, const char *name)
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
	if (!h->name || rd_fleet_list_borrow(&f->host_names, h->name))
		return NULL;
	f->nhosts++;
	return h;
}

/* One copy of a text for all its uses (problem texts and sources repeat). */
const char *rd_fleet_text_intern(struct rd_fleet *f, const char *s)
{
	size_t at;
	const char *d;

	if (rd_strmap_sget(&f->text_map, s, &at))
		return f->texts[at];
	if (rd_fleet_grow(&f->texts, &f->tcap, f->ntexts, sizeof(*f->texts)))
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

	if (rd_fleet_grow(&f->problems, &f->pcap, f->nproblems, sizeof(*f->problems)))
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
	p->source = src ? rd_fleet_text_intern(f, src) : NULL;
	p->line = line;
	p->what = rd_fleet_text_intern(f, what);
	if (!p->what || (src && !p->source))
		return -ENOMEM;
	f->nproblems++;
	return 0;
}

int rd_fleet_problem_host_add(struct rd_fleet *f, struct host *h, const char *src, size_t line,
			      const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = problem_vadd(f, h, src, line, fmt, ap);
	va_end(ap);
	return rc;
}

/* A problem of the host named host (added to the hosts when new). */
int rd_fleet_problem_add(struct rd_fleet *f, const char *host, const char *src, size_t line,
			 const char *fmt, ...)
{
	struct host *h = rd_fleet_host_get(f, host);
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
	if (f->nvtexts >= UINT32_MAX || rd_fleet_grow(&f->vtexts, &f->vtcap, f->nvtexts, sizeof(char *)))
		return -ENOMEM;
	rc = rd_strmap_get_or_add(&f->val_map, text, len, &at);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		f->vtexts[at] = strdup(text);
		RD_GCC_LEAK_FP_BEGIN	/* in f->vtexts, freed by rd_fleet_free */
		if (!f->vtexts[at])
			return -ENOMEM;
		RD_GCC_LEAK_FP_END
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
	rc = !len || f->nfkeys >= UINT32_MAX
		? -ENOMEM : rd_fleet_grow(&f->fkeys, &f->fkcap, f->nfkeys, sizeof(*f->fkeys));
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
		RD_GCC_LEAK_FP_BEGIN	/* in f->fkeys, freed by rd_fleet_free */
		if (dev && !k->dev)
			return -ENOMEM;
		RD_GCC_LEAK_FP_END
		f->nfkeys++;
	}
	*fid = (uint32_t)at;
	return 0;
}

/* A fact of host h; reported again (a second run), the latest counts (rd_fleet_analyze). */
int rd_fleet_fact_add(struct rd_fleet *f, struct host *h, const char *kind, const char *dev,
		      unsigned int port, const char *name, json_object *val)
{
	struct raw_fact r;
	int rc = fact_id(f, kind, dev, port, name, &r.fid);

	if (!rc)
		rc = value_id(f, val, &r.vid);
	if (!rc)
		rc = rd_fleet_grow(&h->facts, &h->cap, h->nfacts, sizeof(r));
	if (rc)
		return rc;
	h->facts[h->nfacts++] = r;
	return 0;
}

const char *rd_fleet_obj_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
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
		if (!rd_fleet_host_get(f, hosts->v[i]))
			return -ENOMEM;
	return 0;
}

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

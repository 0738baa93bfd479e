// SPDX-License-Identifier: MIT
/*
 * Fleet summary: the input streams.  Lines are split by source and host
 * prefix, each (source, host) stream is put back together into JSON documents
 * (json-c's tokener: plain, pretty-printed and JSON lines), malformed input is
 * skipped to the next document, and each document goes to the reader that
 * knows its shape (fleetread.c).
 */
#define _GNU_SOURCE
#include "fleetint.h"
#include "fleet.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct chan *chan_get(struct rd_fleet *f, const char *src, const char *prefix)
{
	const char *parts[] = { src, prefix };
	size_t len = rd_strmap_key(&f->kb[0], parts, 2), at = f->nchans;
	struct chan *c;
	int rc;

	rc = len ? rd_fleet_grow(&f->chans, &f->ccap, f->nchans, sizeof(*f->chans)) : -ENOMEM;
	if (!rc)
		rc = rd_strmap_get_or_add(&f->chan_map, f->kb[0].s, len, &at);
	if (rc < 0)
		return NULL;
	if (rc == 1)
		return &f->chans[at];
	c = &f->chans[f->nchans];	/* room made by rd_fleet_grow above */
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
		t = rd_fleet_text_intern(f, w);
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
		return rd_fleet_problem_add(f, h->name, c->src, c->line,
					    "a second %s document disagrees with an earlier one on %zu "
					    "fact%s (%s%s%s%s: %.40s, then %.40s); where both give a fact, "
					    "the later counts", r->what, ndiff, ndiff == 1 ? "" : "s",
					    fk->name, fk->dev ? " of " : "", fk->dev ? fk->dev : "", port,
					    f->vtexts[h->facts[old].vid], now);
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
		return rd_fleet_problem_add(f, hostname, c->src, line, "malformed JSON: NaN or Infinity is "
					    "not a JSON number, skipped");
	if (!c->prefix && json_object_is_type(doc, json_type_object) &&
	    (named = rd_fleet_obj_str(doc, "host")) != NULL && *named) {
		hostname = named;
		rc.attributed = true;
	}
	for (size_t i = 0; i < rd_fleet_nreaders; i++) {
		if (!rd_fleet_readers[i].match(doc))
			continue;
		if (chan_end_resync(f, c))
			return -ENOMEM;
		rc.h = rd_fleet_host_get(f, hostname);
		if (!rc.h)
			return -ENOMEM;
		again = rc.h->kinds & (1u << i);
		start = rc.h->nfacts;
		rc.h->kinds |= 1u << i;
		f->docs++;
		ret = rd_fleet_readers[i].read(&rc, doc);
		if (!ret && again)
			ret = conflict_check(f, &rc, &rd_fleet_readers[i], start);
		return ret;
	}
	if (c->resync) {
		/* a piece of the broken document (an inner object): part of the skip */
		return 0;
	}
	if (!rd_fleet_host_get(f, hostname))
		return -ENOMEM;
	{
		char kinds[256] = "";
		size_t o = 0;

		for (size_t i = 0; i < rd_fleet_nreaders && o < sizeof(kinds); i++)
			o += (size_t)snprintf(kinds + o, sizeof(kinds) - o, "%s%s", i ? ", " : "",
					      rd_fleet_readers[i].what);
		return rd_fleet_problem_add(f, hostname, c->src, line,
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
				rc = rd_fleet_problem_add(f, chan_host(c, host, sizeof(host)), c->src,
							  c->pl[li].lineno, "malformed JSON (%s): \"%.*s%s\"",
							  json_tokener_error_desc(e),
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
RD_GCC_LEAK_FP_BEGIN	/* the buffers rd_fleet_grow in place in c, freed by rd_fleet_free */
static int chan_feed(struct rd_fleet *f, struct chan *c, size_t lineno, const char *text)
{
	size_t len = strlen(text);

	if (all_space(text))
		return 0;
	if (rd_fleet_grow(&c->pl, &c->plcap, c->npl, sizeof(*c->pl)))
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
		return rd_fleet_problem_add(f, host, src, lineno, "a host name of %zu bytes before ': ' (at "
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
	if (c->prefix && !rd_fleet_host_get(f, c->prefix))
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

			rc = rd_fleet_problem_add(f, chan_host(c, host, sizeof(host)), c->src, c->doc_line,
						  "document cut short at the end of the input, skipped");
			chan_close(f, c);
		}
		if (!rc)
			rc = chan_end_resync(f, c);
	}
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * Fleet summary, inside: what the fleet's own files share (fleet.c the fleet
 * itself, fleetstream.c the streams, fleetread.c and fleetpairs.c the readers,
 * fleetanalyze.c the fact table).  Not for the tool, which has fleet.h.
 *
 * It does not include fleet.h (fleet.c, one unit with fleet.h, includes this
 * one): a file includes both, and the fleet's result types are only pointed
 * at here.
 */
#ifndef RD_FLEETINT_H
#define RD_FLEETINT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

struct rd_fleet_problem;
struct rd_fleet_fact;
struct rd_fleet_pair;

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

/* What a reader is given besides the document. */
struct reader_ctx {
	struct rd_fleet *f;
	struct host *h;
	const char *src;
	size_t line;
	bool attributed;	/* h is the sender itself (a line prefix or a "host" field) */
};

/*
 * The readers, tried in order (fleetread.c).  A new tool's output is one more
 * entry: a shape test and a function turning the document into facts (and
 * problems).  A reader's index is its bit in struct host's kinds.
 */
struct reader {
	const char *name;
	const char *what;	/* for messages */
	bool (*match)(json_object *doc);
	int (*read)(struct reader_ctx *c, json_object *doc);
};

extern const struct reader rd_fleet_readers[];
extern const size_t rd_fleet_nreaders;

/* ---- fleet.c */

/* Grow *v (of *cap elements of size sz) to hold n + 1: 0 or -ENOMEM. */
int rd_fleet_grow(void *v, size_t *cap, size_t n, size_t sz);
/* Add a string the list does not own (the fleet's pool holds it): 0 or -ENOMEM. */
int rd_fleet_list_borrow(struct rd_strlist *l, const char *s);
/* The host named name, added (last) when new; NULL when out of memory. */
struct host *rd_fleet_host_get(struct rd_fleet *f, const char *name);
/* The fleet's one copy of a text for all its uses (problem texts and sources repeat); NULL: no memory. */
const char *rd_fleet_text_intern(struct rd_fleet *f, const char *s);
/* A problem of host h (a host of f->hosts): 0 or -ENOMEM. */
int rd_fleet_problem_host_add(struct rd_fleet *f, struct host *h, const char *src, size_t line,
			      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A problem of the host named host (added to the hosts when new): 0 or -ENOMEM. */
int rd_fleet_problem_add(struct rd_fleet *f, const char *host, const char *src, size_t line,
			 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* A fact of host h; reported again (a second run), the latest counts (rd_fleet_analyze).  0 or -ENOMEM. */
int rd_fleet_fact_add(struct rd_fleet *f, struct host *h, const char *kind, const char *dev,
		      unsigned int port, const char *name, json_object *val);
/* The string that o's member key holds, or NULL (absent, or not a string). */
const char *rd_fleet_obj_str(json_object *o, const char *key);

/* ---- fleetpairs.c: rdma-selftest --mesh -j, the readers' "mesh" entry */

/* A mesh line's shape: {mode: "mesh", src, dst, result, ...}. */
bool rd_fleet_mesh_match(json_object *doc);
/* Its pair into f->pairs (a FAIL, or a line refused, is also a problem of c's host).  0 or -ENOMEM. */
int rd_fleet_mesh_read(struct reader_ctx *c, json_object *doc);

#endif

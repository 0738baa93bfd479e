/* SPDX-License-Identifier: MIT */
/*
 * Fleet summary: JSON from many hosts in, majority values and outliers out.
 *
 * Input arrives as lines (rd_fleet_feed), from one or more sources (files or
 * stdin).  A line "HOST: text" (pdsh, clush -L, srun -l, or our own
 * `rdma-fleet --prefix`) belongs to HOST; other lines belong to the source
 * (its host is the file's base name without .json/.jsonl/.txt, or "stdin",
 * unless a document names its "host").  Each (source, host) stream is parsed
 * on its own, so multi-line documents that pdsh interleaves line by line are
 * put back together per host; a stream may hold plain documents, pretty
 * printed ones and JSON lines, one after the other.
 *
 * A document is recognised by its shape, through a table of readers (one
 * entry per tool output: rdma-devinfo -j, rdma-gids --best -j; more tools are
 * one entry each), which turn it into facts: (kind, device, port, name) ->
 * JSON value.  A fact whose value differs between hosts has outliers.
 *
 * What cannot be used is a problem, kept with its host, source and line:
 * malformed JSON (the stream skips ahead to the next document that parses),
 * a document cut short at the end, an unknown document, a failed item (a
 * port without a usable GID), a host listed as expected that sent nothing.
 * Problems of one host never cost another host its data.
 */
#ifndef RD_FLEET_H
#define RD_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "base/base.h"

struct json_object;

/* The strings of results are the fleet's own, shared, valid until rd_fleet_free. */
struct rd_fleet_problem {
	const char *host;
	const char *source;	/* file name, or "-" for stdin; NULL when not from input */
	size_t line;	/* 0 when not tied to a line */
	const char *what;
	size_t hostno;	/* the host's place in rd_fleet_hosts() */
};

/* One value of a fact, and the hosts that have it (absent: the fact is missing there). */
struct rd_fleet_value {
	char *key;			/* canonical JSON text, for comparison */
	struct json_object *val;	/* NULL when absent */
	struct rd_strlist hosts;	/* the names are the fleet's (do not free them) */
	size_t seen;			/* first-seen order among the fact's values */
};

struct rd_fleet_fact {
	char *kind;	/* reader that produced it: "devinfo", "gids" */
	char *dev;	/* NULL for host-wide facts */
	unsigned int port;	/* 0 for device-wide facts */
	char *name;	/* fw_ver, rate, active_mtu, gid_index, roce_mode... */
	/* After rd_fleet_analyze: values by number of hosts, most first (ties:
	 * first seen); vals[0] is the majority, the others are outliers. */
	struct rd_fleet_value *vals;
	size_t nvals;
	size_t nhosts;	/* hosts that reported this kind of document */
	bool tie;	/* vals[0] and vals[1] have as many hosts */
};

/* One pair of an rdma-selftest --mesh run, as its source host reported it. */
struct rd_fleet_pair {
	const char *src, *dst;
	const char *dev;	/* NULL when the run never got a device */
	unsigned int port;
	const char *dst_dev;	/* the peer's rail (--devices), else NULL */
	unsigned int dst_port;
	bool ok;
	const char *stage;	/* the failed stage, NULL on PASS */
	const char *diagnosis;	/* NULL on PASS */
	const char *warning;	/* a PASS with a warning (the counters stage's words), else NULL */
	double latency_us, gbps;	/* < 0: not measured */
	const char *source;
	size_t line;
};

struct rd_fleet;

struct rd_fleet *rd_fleet_new(void);
void rd_fleet_free(struct rd_fleet *f);

/* One input line (without its newline) from source src, line number lineno. */
int rd_fleet_feed(struct rd_fleet *f, const char *src, size_t lineno, const char *line);
/* The end of a source: documents still open there are problems. */
int rd_fleet_source_end(struct rd_fleet *f, const char *src);
/* Hosts that should have answered (--hosts, --hostfile). */
int rd_fleet_expect(struct rd_fleet *f, const struct rd_strlist *hosts);
/* Build the fact table (call once, after the input). */
int rd_fleet_analyze(struct rd_fleet *f);

/* Results, valid until rd_fleet_free. Hosts in first-seen order. */
const struct rd_strlist *rd_fleet_hosts(const struct rd_fleet *f);
const struct rd_fleet_fact *rd_fleet_facts(const struct rd_fleet *f, size_t *n);
const struct rd_fleet_problem *rd_fleet_problems(const struct rd_fleet *f, size_t *n);
/*
 * The mesh pairs, in input order (a pair reported twice: the later one; with
 * rails a pair is the two hosts and the two rails).
 */
/* " (mlx5_0/1 -> mlx5_1/1)" for a pair of rails, "" otherwise. */
void rd_fleet_pair_rails(const struct rd_fleet_pair *p, char *buf, size_t len);
const struct rd_fleet_pair *rd_fleet_pairs(const struct rd_fleet *f, size_t *n);
/* Documents read, in all. */
size_t rd_fleet_documents(const struct rd_fleet *f);

/* The text of a value for a text table ("absent" for a missing fact). */
const char *rd_fleet_value_text(const struct rd_fleet_value *v);

#endif

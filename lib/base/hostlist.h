/* SPDX-License-Identifier: MIT */
/*
 * Host lists in Slurm's syntax (what SLURM_JOB_NODELIST, pdsh -w and clush -w
 * take): comma-separated items, each a name with bracketed numeric ranges,
 *   node[01-03,7],login  ->  node01 node02 node03 node07 login
 *   r[1-2]n[1-2]         ->  r1n1 r1n2 r2n1 r2n2
 * Zero padding is kept (the width of a range's first number, as Slurm does),
 * several bracket groups in one item multiply out left to right, and the
 * order of the input is kept (duplicates too: callers that want a set dedupe).
 * Hostfiles: one host (or hostlist expression) per line, '#' comments.
 */
#ifndef RD_HOSTLIST_H
#define RD_HOSTLIST_H

#include <stddef.h>

#include "util.h"

/*
 * Upper bound on the names of a run's host lists together (-E2BIG beyond):
 * the names already in the list an expansion appends to count, so -w, a
 * hostfile and the environment gathered into one list share it.  The names
 * of an expression or a hostfile are counted before any is made, so a list
 * over the limit costs no more than reading it.
 */
#define RD_HOSTLIST_MAX 1000000

/* The longest host name: a longer one is refused, never cut (it could become another's). */
#define RD_HOSTNAME_MAX 255

struct rd_hostlist_error {
	size_t line;   /* hostfile line, 1-based; 0 for a plain expression */
	size_t column; /* 1-based byte column of the offending character */
	char msg[96];  /* what is wrong there, e.g. "range 5-3 goes backwards" */
};

/*
 * Append the names of expr to out.  Returns 0, or -EINVAL with err filled in
 * for malformed input (a name longer than RD_HOSTNAME_MAX too), -E2BIG when
 * out would hold more than RD_HOSTLIST_MAX names, -ENOMEM; out is then left
 * as it was.  err may be NULL.
 */
int rd_hostlist_expand(const char *expr, struct rd_strlist *out, struct rd_hostlist_error *err);

/* A hostfile's limits (rd_infile): 1,000,000 names fit with room for comments. */
#define RD_HOSTFILE_MAX_BYTES (64u << 20)
#define RD_HOSTFILE_MAX_LINE (1u << 20)
#define RD_HOSTFILE_MAX_LINES 2000000u

/*
 * Read a hostfile: blank lines and '#' comments (whole-line or trailing) are
 * skipped, each other line holds one hostlist expression.  "-" is stdin;
 * a pipe or FIFO silent for timeout_ms is an error.
 * Appends to out as rd_hostlist_expand does, under the same limit.
 * Returns 0, or -errno when the file cannot be read or breaks a limit
 * (err->msg says why, err->line is 0), or -EINVAL with err->line/column for
 * the first malformed line, -E2BIG with them for the line that passes
 * RD_HOSTLIST_MAX names; out is then left as it was.
 */
int rd_hostfile_read(const char *path, int timeout_ms, struct rd_strlist *out,
		     struct rd_hostlist_error *err);

/*
 * The inverse: a compact expression for names ("n01 n02 n03 x" ->
 * "n[01-03],x").  Names sharing a prefix and a numeric suffix of one width are
 * merged into ranges, in first-seen order of the prefixes.  Returns a new
 * string (caller frees) or NULL on allocation failure.
 */
char *rd_hostlist_compress(const struct rd_strlist *names);

#endif

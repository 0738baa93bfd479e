/* SPDX-License-Identifier: MIT */
/*
 * rdma-fabric --path SRC DST / --path-file FILE: the route between two ends
 * hop by hop, as ibtracert prints it (its From and To lines, a row per hop),
 * with each link's state, rate and error counters and a verdict per hop and
 * per route.
 */
#ifndef RD_FABPATH_H
#define RD_FABPATH_H

#include "fabric/fabric.h"
#include "output/output.h"

struct rd_fabpath_pair {
	char *src, *dst;
	const char *where;		/* "--path", or "FILE:LINE" */
	int src_node, src_port, dst_node, dst_port;
};

struct rd_fabpath {
	struct rd_fabpath_pair *v;
	size_t n, cap;
	char **where;			/* the "FILE:LINE" strings the pairs point into */
	size_t n_where;
};

/* Refuses more than this many pairs (each is printed whole). */
#define RD_FABPATH_MAX 100000

int rd_fabpath_add(struct rd_fabpath *ps, const char *src, const char *dst, const char *where);
/*
 * Pairs from a file: a line "SRC DST" (a name with blanks in double quotes:
 * "h005 mlx5_0" h007), '#' comments.  0, or -errno with why naming the line.
 */
int rd_fabpath_read(struct rd_fabpath *ps, const char *path, int timeout_ms, char *why, size_t why_len);
void rd_fabpath_free(struct rd_fabpath *ps);

/* Find both ends of every pair in the model; 0, or -ENOENT/-EINVAL with why. */
int rd_fabpath_resolve(const struct rd_fab *fab, struct rd_fabpath *ps, char *why, size_t why_len);
/* For rd_fab_sweep_opts.pick: the ports on the routes, whose counters are then read. */
void rd_fabpath_pick(struct rd_fab *fab, void *arg);

/*
 * Print every route (text: ibtracert's lines and a table; -j: "paths"), each
 * link judged by the results of the link and port checks in links (on
 * either end).  Returns the worst verdict.
 */
enum rd_fab_status rd_fabpath_print(struct rd_out *o, const struct rd_fab *fab, const struct rd_fabpath *ps,
				    const struct rd_fab_report *links);
/*
 * --path as the tool runs it: the tables must be there, every end found
 * (else a one-line error), then every route printed with each link judged by
 * the link and port checks.  Returns the exit status: 1 when a route is
 * broken or a link on it FAILs.
 */
struct rd_cli;
int rd_fabpath_run(struct rd_cli *cli, struct rd_out *o, const struct rd_fab *fab, struct rd_fabpath *paths,
		   const char *load);
/* The hop table's columns, for -o. */
#define RD_FABPATH_NCOLS 12
extern const struct rd_col rd_fabpath_cols[RD_FABPATH_NCOLS];

#endif

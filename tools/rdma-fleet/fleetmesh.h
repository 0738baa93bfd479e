/* SPDX-License-Identifier: MIT */
/* rdma-fleet: the mesh part of the summary (pair matrix, failed and slowest pairs). */
#ifndef RD_FLEETMESH_H
#define RD_FLEETMESH_H

#include "fleet.h"
#include "output/output.h"

#include <stdio.h>

/* One reported cell of the pair matrix: every pair (rail pair) of a tester and a tested host. */
struct rd_fleet_cell {
	size_t row, col;	/* the tester's and the tested host's place in hosts[] */
	unsigned char mark;	/* 1 all passed, 2 one warned, 3 one failed */
	unsigned int npairs;
	double gbps;		/* the lowest bandwidth of its passed pairs; < 0: none */
	double lat;		/* the highest latency; < 0: none */
	size_t pair;		/* a pair of it: its first failed one, else its first */
};

/*
 * The mesh pairs as a matrix of the hosts that took part, in natural order.
 * Only reported cells are kept (a schedule of 10,000 hosts reports a few
 * per row, not 10,000): by row, then column, with each row's first cell in
 * row_start[] and the same cells by column through by_col[] and col_start[].
 */
struct rd_fleet_matrix {
	char **hosts;		/* borrowed from the pairs */
	size_t nh;
	struct rd_fleet_cell *cells;
	size_t ncells;
	size_t *row_start, *col_start;	/* nh + 1 each */
	size_t *by_col;		/* cell indexes by column, then row */
	const struct rd_fleet_pair *pv;
	size_t np, nfail, nwarn;
	double mlat, mbw;	/* medians of the passed pairs' figures; 0 none */
};

/* 0, or -ENOMEM.  A fleet without mesh pairs gives nh == 0. */
int rd_fleet_matrix_build(const struct rd_fleet *f, struct rd_fleet_matrix *m);
void rd_fleet_matrix_free(struct rd_fleet_matrix *m);

/*
 * Nothing when the input had no mesh pairs.  The text matrix when it fits in
 * width columns; past that, each host's failed and slow pairs (hosts with the
 * same lines grouped).  0 or -ENOMEM.
 */
/* The columns of the slowest pairs' table (for checking -o). */
#define RD_FLEET_SLOW_NCOLS 5
extern const struct rd_col rd_fleet_slow_cols[RD_FLEET_SLOW_NCOLS];
int rd_fleet_print_mesh(struct rd_out *o, const struct rd_fleet *f, unsigned int width);

/* Pairs to outline in the picture (a suspect link's), under a label. */
struct rd_fleet_svg_mark {
	char *label;
	size_t *pairs;		/* indexes into the matrix's pv */
	size_t n;
};

/*
 * The whole matrix as an SVG picture (fleetsvg.c), with the cells of each
 * mark's pairs outlined in a colour of its own and listed in the legend.
 * 0 or -errno.
 */
int rd_fleet_write_svg(FILE *fp, const struct rd_fleet_matrix *m, const struct rd_fleet_svg_mark *marks,
		       size_t nmarks);

/* The outline colour of mark k. */
const char *rd_fleet_mark_stroke(size_t k);

/* Hosts in groups, for the picture past a few hundred hosts (fleetgroup.c). */
struct rd_fleet_groups {
	size_t n;
	size_t *of;		/* a host's place in the matrix -> its group */
	char **names;		/* "leaf03: node[0001-0018]", "node[0001-0016]" */
	size_t *size;		/* hosts in each group */
};

/* Blocks of per hosts in natural order.  0 or -ENOMEM. */
int rd_fleet_groups_blocks(const struct rd_fleet_matrix *m, size_t per, struct rd_fleet_groups *g);
/* By a label per host (NULL: the group "other", last).  0 or -ENOMEM. */
int rd_fleet_groups_labels(const struct rd_fleet_matrix *m, char **label, struct rd_fleet_groups *g);
/*
 * By an extended regular expression: a host's group is what its first
 * subexpression (else the whole pattern) matched; hosts it does not match
 * are "other".  0; -EINVAL with why for a bad pattern; -ENOMEM.
 */
int rd_fleet_groups_pattern(const struct rd_fleet_matrix *m, const char *pattern, struct rd_fleet_groups *g,
			    char *why, size_t why_len);
void rd_fleet_groups_free(struct rd_fleet_groups *g);
/*
 * The group x group picture; by says how the groups were made; the cells
 * holding each mark's pairs outlined as in rd_fleet_write_svg.  0 or -errno.
 */
int rd_fleet_write_svg_groups(FILE *fp, const struct rd_fleet_matrix *m, const struct rd_fleet_groups *g,
			      const char *by, const struct rd_fleet_svg_mark *marks, size_t nmarks);

/* How --svg-groups groups the hosts. */
struct rd_fleet_group_by {
	enum { RD_GROUP_AUTO, RD_GROUP_HOSTS, RD_GROUP_LEAF, RD_GROUP_BLOCK, RD_GROUP_PATTERN } kind;
	size_t per;		/* RD_GROUP_BLOCK */
	const char *pattern;	/* RD_GROUP_PATTERN: after "re:" */
};
/*
 * "auto", "hosts", "leaf", a number of hosts a block (1 to 1,000,000), or
 * "re:REGEX" (an extended regular expression, checked here).  0, or -EINVAL
 * with why.
 */
int rd_fleet_group_by_parse(const char *s, struct rd_fleet_group_by *g, char *why, size_t why_len);
/* Hosts past which auto draws groups. */
#define RD_FLEET_SVG_MAX_HOSTS 200
/* Groups auto makes at most of blocks. */
#define RD_FLEET_SVG_BLOCKS 64

#endif

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

#endif

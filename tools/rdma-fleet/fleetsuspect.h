/* SPDX-License-Identifier: MIT */
/* rdma-fleet --fabric: reading the fabric document, printing the suspects. */
#ifndef RD_FLEETSUSPECT_H
#define RD_FLEETSUSPECT_H

#include "fleettomo.h"
#include "fleetmesh.h"
#include "base/base.h"
#include "output/output.h"

/* Read and parse path (rdma-fabric --routes -j) under lim: 0, or -errno with why. */
int rd_fleet_fabric_load(const char *path, const struct rd_infile_limits *lim,
			 struct rd_tomo_fabric **fab, char *why, size_t why_len);

/* A run's tomography: the fabric and what its links explain. */
struct rd_fleet_tomo {
	const char *path;
	struct rd_tomo_fabric *fab;
	struct rd_tomo_result res;
};

/*
 * Place f's mesh pairs on t->fab and rank its links.  0; -ENOENT when the
 * input holds no mesh pairs; -ENOMEM.
 */
int rd_fleet_tomo_run(const struct rd_fleet *f, struct rd_fleet_tomo *t);
void rd_fleet_tomo_free(struct rd_fleet_tomo *t);

/* The suspects' bad pairs as marks of the SVG picture (labels "LINK: N bad pairs").  0 or -ENOMEM. */
int rd_fleet_tomo_marks(const struct rd_fleet_tomo *t, struct rd_fleet_svg_mark **marks, size_t *n);
void rd_fleet_svg_marks_free(struct rd_fleet_svg_mark *marks, size_t n);

#define RD_FLEET_SUSPECT_NCOLS 5
extern const struct rd_col rd_fleet_suspect_cols[RD_FLEET_SUSPECT_NCOLS];

/* The "tomography" section: what was placed, the suspects' table and evidence.  0 or -ENOMEM. */
int rd_fleet_print_suspects(struct rd_out *o, const char *path, const struct rd_tomo_fabric *fab,
			    const struct rd_tomo_result *r, const struct rd_fleet_pair *pv);

#endif

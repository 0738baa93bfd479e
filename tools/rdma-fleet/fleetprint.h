/* SPDX-License-Identifier: MIT */
/* rdma-fleet: what it prints (fleetprint.c): the summary on stdout and the --svg picture. */
#ifndef RD_FLEETPRINT_H
#define RD_FLEETPRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet.h"
#include "fleetsuspect.h"
#include "base/base.h"
#include "cli/cli.h"
#include "output/output.h"

/* The summary's tables (facts, problems in JSON and grouped in text, slowest pairs, suspects), for -o. */
#define RD_FLEET_NTABLES 5
extern const struct rd_out_colset rd_fleet_tables[RD_FLEET_NTABLES];

/*
 * The whole summary of f: the hosts, the facts (only those with outliers when
 * only_outliers), the mesh, tomo's suspects when it has a fabric, the
 * problems, the inputs that broke off and the result.  Counts the facts with
 * outliers and the problems into *nbad_facts and *nproblems.  0 or -ENOMEM.
 */
int rd_fleet_print_summary(struct rd_out *o, const struct rd_fleet *f, bool only_outliers,
			   const struct rd_strlist *broken, const struct rd_fleet_tomo *tomo,
			   size_t *nbad_facts, size_t *nproblems);

/*
 * --svg path: f's mesh matrix as a picture (a row a host, or a group as gb
 * says), tomo's suspects' pairs outlined,
 * written whole or not at all.  0, or -1 when it was not written (the reason
 * reported through cli: out of memory, no mesh pairs, the file).
 */
int rd_fleet_save_svg(struct rd_cli *cli, const struct rd_fleet *f, const struct rd_fleet_tomo *tomo,
		      const struct rd_fleet_group_by *gb, const char *path);

#endif

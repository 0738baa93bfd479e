/* SPDX-License-Identifier: MIT */
/*
 * What rdma-gids prints: the GID table (a row per entry), show_gids' layout
 * (--compat), --best's choice per port with NCCL's note, and the one warning
 * about VLAN ids a copied tree cannot tell.
 */
#ifndef RD_GIDPRINT_H
#define RD_GIDPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/base.h"
#include "model/model.h"
#include "output/output.h"

/* The GID table, for -o's check. */
#define RD_GIDS_NTABLES 1
extern const struct rd_out_colset rd_gids_tables[RD_GIDS_NTABLES];

/* The listing: the table's header, then a row per GID entry. */
void rd_gids_table_begin(struct rd_out *o);
void rd_gids_print_row(struct rd_out *o, const struct rd_device *d, const struct rd_port *p,
		       const struct rd_gid *g);

/* --compat: show_gids' header and rows, on fp. */
void rd_gids_compat_header(FILE *fp);
void rd_gids_print_compat_row(FILE *fp, const struct rd_device *d, const struct rd_port *p,
			      const struct rd_gid *g);

/*
 * --best: an entry per port into the list o has open, the list's end, and
 * (in text) the note when the best index differs between ports.
 */
void rd_gids_print_best(struct rd_out *o, const struct rd_gid_choice *res, size_t n, bool json);

/* The netdevs shown with VLAN "?": the first that is tagged, the first that may be. */
struct rd_gids_vlan_note {
	char names[2][64];
	bool seen;
};

void rd_gids_vlan_note_add(struct rd_gids_vlan_note *vn, const struct rd_gid *g);
/* One warning, when the copied tree could not tell VLAN ids and a "?" was shown. */
void rd_gids_vlan_note_warn(const struct rd_gids_vlan_note *vn, const struct rd_vlan_map *vlans,
			    struct rd_warnings *w);

#endif

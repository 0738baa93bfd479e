/* SPDX-License-Identifier: MIT */
/* rdma-gpumap: printing the map (rows, -v hops, -m matrix), its summary and --expect's verdicts. */
#ifndef RD_MAPPRINT_H
#define RD_MAPPRINT_H

#include <stdbool.h>

#include "base/base.h"
#include "gpu/gpu.h"
#include "output/output.h"

/* What the map shows: the GPUs and the NICs asked for (empty: all) and -v's hops. */
struct rd_gpumap_view {
	const struct rd_strlist *gpus, *nics;
	bool verbose;
};

/* The rows' table, for -o/--raw/--noheadings. */
#define RD_GPUMAP_NTABLES 1
extern const struct rd_out_colset rd_gpumap_tables[RD_GPUMAP_NTABLES];

/* GPU0, 0 or 0000:1b:00.0 in --gpu's list (all when it is empty). */
bool rd_gpumap_gpu_selected(const struct rd_gpumap_view *v, const struct rd_gpu *g);
/* One row per GPU: its NIC, path, GDR and why; the notes and, with -v, the hops under the table. */
void rd_gpumap_print_rows(struct rd_out *o, const struct rd_gpumap_view *v, const struct rd_gpu_topo *t);
/* -m: each GPU against every GPU and NIC port NCCL may use, in NCCL's path names. */
void rd_gpumap_print_matrix(struct rd_out *o, const struct rd_gpumap_view *v, const struct rd_gpu_topo *t);
/* The summary line: GPUs, NIC ports, GDR k/G and backend, IOMMU, ACS, NCCL's rules. */
void rd_gpumap_print_summary(struct rd_out *o, const struct rd_gpu_topo *t);
/* --expect's lines judged and printed; RD_EXIT_FAIL when one is missed. */
int rd_gpumap_print_expect(struct rd_out *o, const struct rd_gpu_topo *t, struct rd_gpu_expects *e);

#endif

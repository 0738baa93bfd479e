/* SPDX-License-Identifier: MIT */
/*
 * Writing a run: the stage line and the perftest-style tables of the text
 * report, and a run's stages and figures as JSON fields through the output
 * layer (the schema of man rdma-selftest, JSON OUTPUT).  The caller chooses
 * the stream; these only format.
 */
#ifndef RD_ST_REPORT_H
#define RD_ST_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "engine.h"
#include "output/output.h"

/* "  PASS  latency      103.84 ms  1000 x 64 B: ..." */
void rd_st_print_stage(FILE *f, const struct rd_st_stage *st, bool color);
/* The run's verdict: "PASS", "PASS, with a warning at counters", "FAIL at read". */
void rd_st_verdict(const struct rd_st_run *run, char *buf, size_t len);
/* The latency and bandwidth tables (nothing when there are no figures). */
void rd_st_print_figures(FILE *f, const struct rd_st_run *run);

/*
 * The settings a passed run used, for the tools users run next: perftest's
 * ib_*_bw (the operation's tool, -d -i -x -m --tclass -S -s) and NCCL's
 * environment (NCCL_IB_HCA, NCCL_IB_GID_INDEX, NCCL_IB_TC, NCCL_IB_SL,
 * NCCL_IB_TIMEOUT, NCCL_IB_RETRY_CNT).  peer NULL: loopback.
 */
struct rd_st_next {
	char tool[16];		/* "ib_write_bw" */
	char common[160];	/* options both sides give: --report_gbits -m ... */
	char local[256];	/* this side, complete: tool -d DEV -i N -x N common [PEER] */
	char nccl[256];		/* NCCL_IB_HCA=dev:port NCCL_IB_GID_INDEX=N ... */
};
void rd_st_next_cmds(const struct rd_st_config *cfg, const struct rd_st_run *run, const char *peer,
		     struct rd_st_next *n);
/* The text lines ("  next: ...") and the JSON object "next". */
void rd_st_print_next(FILE *f, const struct rd_st_next *n, const char *peer);
void rd_st_json_next(struct rd_out *o, const struct rd_st_next *n);

/* "send,write,read" for an ops mask (0: send). */
void rd_st_ops_str(unsigned int ops, char *buf, size_t len);
/* "stages" [, "counters"] [, "latency", "bandwidth", "failed_stage" once the measuring part was reached]. */
void rd_st_json_stages(struct rd_out *o, const struct rd_st_run *run);
/* "dev", "port", "gid_index", "gid_type", when known. */
void rd_st_json_where(struct rd_out *o, const struct rd_st_run *run);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Inside the engine: recording a run's stages (each reported through the
 * hooks as it ends), and the stage sequence every driver runs once its QP is
 * connected.
 */
#ifndef RD_ST_RUN_H
#define RD_ST_RUN_H

#include "engine.h"

/* Record a stage in run (the first failure names the run's failed stage) and report it. */
void rd_st_stage_add(struct rd_st_run *run, const struct rd_st_hooks *h, const char *name, bool ok,
		     double ms, const struct rd_st_error *err, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
/* The counters stage from run->ctr: PASS, or WARN naming what moved (nothing if none was read). */
void rd_st_counters_stage(const struct rd_st_hooks *h, struct rd_st_run *run);
/* Record a stage that passed with a warning (run->warned) and report it. */
void rd_st_stage_warn(struct rd_st_run *run, const struct rd_st_hooks *h, const char *name,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void rd_st_note(const struct rd_st_hooks *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rd_st_log(const struct rd_st_hooks *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * On a connected client QP, for each operation of cfg->ops: its verified
 * stage (send: ping-pong), then latency and bandwidth for each size; the
 * --expect-* checks and the goodbye.  t is the peer's target area (one-sided
 * operations).  Around them, unless cfg->no_counters, the counters of the
 * run's port (run->dev, run->port, read under sr): the counters stage.
 * True when every stage passed.
 */
bool rd_st_run_stages(const struct rd_st_config *cfg, const struct rd_sysroot *sr, struct rd_rc *rc,
		      const struct rd_st_target *t, const struct rd_st_hooks *h, struct rd_st_run *run);

/* The largest message of the run's sizes (at least 64 B; 64 KiB without sizes, UD 4 KiB). */
uint32_t rd_st_max_size(const struct rd_st_config *cfg);
/*
 * The config a run on a path of path_mtu uses: cfg itself, except that UD
 * with -a (cfg->all_sizes) keeps the sizes up to the path MTU.  NULL, or why
 * UD cannot carry a size asked for (a datagram is one packet).
 */
const char *rd_st_ud_sizes(const struct rd_st_config *cfg, enum ibv_mtu path_mtu,
			   struct rd_st_config *out, char *buf, size_t len);

#endif

// SPDX-License-Identifier: MIT
/*
 * rdma-doctor --selftest: the self-test engine's loopback (two RC QPs of one
 * port connected to each other, a verified ping-pong, goodbye), run quietly
 * with a short deadline; the doctor reports the verdict as one check line.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "doctor_int.h"
#include "selftest/selftest.h"

#define PINGS 200
#define PING_SIZE 4096

int rd_dr_loopback(const struct rd_sysroot *sr, const struct rd_device *dev,
		   const struct rd_dr_port *dp, unsigned int timeout_ms, char *detail,
		   size_t detail_len)
{
	static const volatile int never;
	struct rd_st_config cfg;
	struct rd_st_run *run;
	const struct rd_st_stage *st;
	int ret;

	rd_st_config_default(&cfg);
	cfg.quick = true;
	cfg.pings = PINGS;
	cfg.window = 16;
	cfg.sizes[0] = PING_SIZE;
	cfg.nsizes = 1;
	cfg.timeout_ms = (int)timeout_ms;
	cfg.gid_index = dp->roce && dp->best ? (int)dp->best->index : -1;
	cfg.stop = &never;
	rd_st_config_finish(&cfg);
	run = calloc(1, sizeof(*run));	/* the run record is large: not on the stack */
	if (!run) {
		snprintf(detail, detail_len, "out of memory");
		return -ENOMEM;
	}
	ret = rd_st_loopback(&cfg, sr, dev, dp->p, NULL, run);
	if (ret) {
		snprintf(detail, detail_len, "cannot run the loopback: %s", strerror(-ret));
		goto out;
	}
	/* The failed stage says why; on success the ping-pong says what was verified. */
	st = NULL;
	for (unsigned int i = 0; i < run->nstages; i++)
		if (run->failed ? !run->stages[i].ok : strcmp(run->stages[i].name, "pingpong") == 0) {
			st = &run->stages[i];
			break;
		}
	if (!run->ok) {
		ret = -EIO;
		snprintf(detail, detail_len, "loopback RC, stage %s: %s",
			 st ? st->name : "?", st ? st->detail : "no stage ran");
	} else {
		char gid[24] = "";

		if (run->gid_index >= 0)
			snprintf(gid, sizeof(gid), ", GID index %d", run->gid_index);
		snprintf(detail, detail_len, "loopback RC: %s in %.1f ms%s",
			 st ? st->detail : "ping-pong verified", st ? st->ms : 0.0, gid);
	}
out:
	free(run);
	return ret;
}

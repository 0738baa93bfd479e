/* SPDX-License-Identifier: MIT */
/*
 * Inside the engine: the port's counters around a run.  A snapshot before the
 * first transfer and one after the last; what moved that signals trouble
 * (retransmits, congestion, drops) is the report the run's counters stage
 * (run.c) and the server's log line are worded from.
 */
#ifndef RD_ST_CTRS_H
#define RD_ST_CTRS_H

#include "engine.h"

struct rd_st_ctrs {
	struct rd_port_ctrs pc;
	bool open;
	int lifespan_ms;	/* hw_counters are cached this long by the kernel */
};

/* Open the port's counters and take the first snapshot.  0, or -errno (no counters: -ENOENT). */
int rd_st_ctrs_start(struct rd_st_ctrs *c, const struct rd_sysroot *sr, const char *dev,
		     unsigned int port);
/* The second snapshot and what moved, into r (zeroed when c is not open); closes c. */
void rd_st_ctrs_end(struct rd_st_ctrs *c, struct rd_st_ctr_report *r);

/* Pure: the report from a port's last reading (after two of them).  Unit-tested. */
void rd_st_ctr_report_from(const struct rd_port_ctrs *pc, struct rd_st_ctr_report *r);
/* The counters stage's words for a report, into buf; true when it is a warning. */
bool rd_st_ctr_words(const struct rd_st_ctr_report *r, const char *dev, unsigned int port,
		     char *buf, size_t len);

#endif

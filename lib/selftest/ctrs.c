// SPDX-License-Identifier: MIT
/* The port's counters around a run (ctrs.h). */
#define _GNU_SOURCE
#include "ctrs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/base.h"

static void snapshot(struct rd_port_ctrs *pc)
{
	rd_port_ctrs_begin(pc, rd_monotonic());
	(void)rd_port_ctrs_read_files(pc, RD_SRC_PMA);	/* a failed file says so in its err */
	(void)rd_port_ctrs_read_files(pc, RD_SRC_HW);
	rd_port_ctrs_end(pc);
}

int rd_st_ctrs_start(struct rd_st_ctrs *c, const struct rd_sysroot *sr, const char *dev,
		     unsigned int port)
{
	uint64_t ls = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = rd_port_ctrs_open(sr, dev, port, false, &c->pc);
	if (ret)
		return ret;
	if (c->pc.n == 0) {
		rd_port_ctrs_close(&c->pc);
		return -ENOENT;
	}
	/* The kernel serves hw_counters from a cache refreshed at most every lifespan ms. */
	if (rd_sys_read_u64(sr, &ls, "/sys/class/infiniband/%s/ports/%u/hw_counters/lifespan", dev,
			    port) == 0 && ls <= 1000)
		c->lifespan_ms = (int)ls;
	c->open = true;
	snapshot(&c->pc);
	return 0;
}

static int cmp_move(const void *a, const void *b)
{
	const struct rd_st_ctrmove *x = a, *y = b;

	if (x->delta != y->delta)
		return x->delta > y->delta ? -1 : 1;
	return strcmp(x->name, y->name);
}

void rd_st_ctr_report_from(const struct rd_port_ctrs *pc, struct rd_st_ctr_report *r)
{
	struct rd_sum_val sum[RD_SUM_COUNT];

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < pc->n; i++) {
		const struct rd_counter *ct = &pc->v[i];
		enum rd_ctr_trouble t = ct->info.trouble;
		uint64_t d;

		if (ct->kind != RD_DELTA_OK && ct->kind != RD_DELTA_WRAP) {
			r->nunknown++;
			continue;
		}
		r->ncounters++;
		d = ct->delta * ct->info.scale;
		if (t == RD_TROUBLE_NONE || (unsigned int)t >= RD_TROUBLE_COUNT || d == 0)
			continue;
		r->sum[t] += d;
		if (r->nmoves < RD_ST_MAX_MOVES) {
			struct rd_st_ctrmove *m = &r->moves[r->nmoves];

			rd_strlcpy(m->name, ct->name, sizeof(m->name));
			m->src = (uint8_t)ct->src;
			m->trouble = (uint8_t)t;
			m->delta = d;
		}
		r->nmoves++;
	}
	qsort(r->moves, r->nmoves < RD_ST_MAX_MOVES ? r->nmoves : RD_ST_MAX_MOVES,
	      sizeof(r->moves[0]), cmp_move);
	rd_port_ctrs_summary(pc, sum);
	if (sum[RD_SUM_TX_PKTS].rate_state == RD_RATE_OK && sum[RD_SUM_RX_PKTS].rate_state == RD_RATE_OK) {
		r->have_pkts = true;
		r->tx_pkts = (uint64_t)(sum[RD_SUM_TX_PKTS].rate * pc->interval + 0.5);
		r->rx_pkts = (uint64_t)(sum[RD_SUM_RX_PKTS].rate * pc->interval + 0.5);
	}
}

bool rd_st_ctr_words(const struct rd_st_ctr_report *r, const char *dev, unsigned int port,
		     char *buf, size_t len)
{
	size_t n = 0;
	bool any = false;

#define PUT(...) \
	do { \
		if (n < len) \
			n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__); \
	} while (0)
	buf[0] = '\0';
	for (unsigned int t = RD_TROUBLE_RETRANS; t < RD_TROUBLE_COUNT; t++) {
		bool first = true;
		if (!r->sum[t])
			continue;
		PUT("%s%s:", any ? "; " : "", rd_ctr_trouble_name((enum rd_ctr_trouble)t));
		for (unsigned int i = 0; i < r->nmoves && i < RD_ST_MAX_MOVES; i++) {
			if (r->moves[i].trouble != t)
				continue;
			PUT("%s %s +%llu", first ? "" : ",", r->moves[i].name,
			    (unsigned long long)r->moves[i].delta);
			first = false;
		}
		any = true;
	}
	if (any) {
		if (r->nmoves > RD_ST_MAX_MOVES)
			PUT(" (and %u more)", r->nmoves - RD_ST_MAX_MOVES);
		PUT(" on %s port %u during the run (port-wide: other traffic on the port counts too)",
		    dev, port);
		return true;
	}
	PUT("no retransmit, congestion or drop counter of %s port %u moved (%u counters read",
	    dev, port, r->ncounters);
	if (r->have_pkts)
		PUT("; %llu packets out, %llu in", (unsigned long long)r->tx_pkts,
		    (unsigned long long)r->rx_pkts);
	if (r->nunknown)
		PUT("; %u without a delta: reset, saturated or unreadable", r->nunknown);
	PUT(")");
#undef PUT
	return false;
}

void rd_st_ctrs_end(struct rd_st_ctrs *c, struct rd_st_ctr_report *r)
{
	if (!c->open) {
		memset(r, 0, sizeof(*r));
		return;
	}
	if (c->lifespan_ms > 0) {
		/* Past the cache's lifespan, so the second reading is fresh. */
		struct timespec ts = { 0, (long)(c->lifespan_ms + 2) * 1000000L };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	snapshot(&c->pc);
	rd_st_ctr_report_from(&c->pc, r);
	rd_port_ctrs_close(&c->pc);
	c->open = false;
}

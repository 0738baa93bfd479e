/* SPDX-License-Identifier: MIT */
/*
 * Port counters: what each counter under ports/N/counters/ (the PMA set) and
 * ports/N/hw_counters/ means, and how to turn two readings into a delta and
 * a rate without ever producing a negative or absurd one:
 *
 *   - port_xmit_data / port_rcv_data count 4-octet words (scale 4);
 *   - PMA counters saturate at their width (4, 8, 16, 32 or 64 bits): at the
 *     maximum the rate is unknown;
 *   - hw_counters are 64-bit on most devices, 32-bit and wrapping on some;
 *   - a counter that goes down was reset: when in the interval is unknown,
 *     so is the rate of that interval (the next one is normal again).
 *
 * A port's counter set keeps one open fd per sysfs file and re-reads it with
 * pread(), so a refresh opens nothing.
 */
#ifndef RD_COUNTERS_H
#define RD_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysroot/sysroot.h"

/* Where a counter lives under ports/N/. */
enum rd_ctr_src {
	RD_SRC_PMA = 0,		/* counters/ (IB PMA PortCounters[Extended]) */
	RD_SRC_HW,		/* hw_counters/ (driver statistics) */
};
const char *rd_ctr_src_dir(enum rd_ctr_src src);	/* "counters", "hw_counters" */

/* What a counter contributes to a port's summary. */
enum rd_sum {
	RD_SUM_TX_BYTES = 0,
	RD_SUM_RX_BYTES,
	RD_SUM_TX_PKTS,
	RD_SUM_RX_PKTS,
	RD_SUM_ERRORS,		/* every error counter, summed */
	RD_SUM_CNP,		/* congestion notification packets handled (reaction point) */
	RD_SUM_ECN,		/* ECN-marked RoCE packets received (notification point) */
	RD_SUM_COUNT,
	RD_SUM_NONE = -1,
};

/*
 * What a counter that moved during a transfer says about the path
 * (rdma-selftest's counters stage): the named counters of mlx5, rxe, bnxt_re
 * and irdma, and the PMA error counters.  Counters of traffic say nothing.
 */
enum rd_ctr_trouble {
	RD_TROUBLE_NONE = 0,
	RD_TROUBLE_RETRANS,	/* retransmits, timeouts, RNR and sequence NAKs */
	RD_TROUBLE_CONGESTION,	/* CNPs sent or handled, ECN-marked packets */
	RD_TROUBLE_DROP,	/* packets dropped or received in error; other error counters */
	RD_TROUBLE_COUNT,
};
/* "retransmits", "congestion", "drops" ("" for none). */
const char *rd_ctr_trouble_name(enum rd_ctr_trouble t);

struct rd_ctr_info {
	/*
	 * PMA: bits after which the counter saturates (4..64).  The data and
	 * packet counters are 32 bits in PortCounters and 64 in
	 * PortCountersExtended, under the same name: 32 until a value above
	 * 2^32-1 proves the wide one.  0 for hw counters (they wrap).
	 */
	unsigned int width;
	unsigned int scale;	/* units per count: 4 for the 4-octet data words */
	bool error;		/* counts errors (part of RD_SUM_ERRORS) */
	int role;		/* enum rd_sum for the traffic/congestion roles, RD_SUM_NONE */
	int prio;		/* among candidates for one role, lower wins */
	enum rd_ctr_trouble trouble;	/* what its moving during a transfer signals */
};

/* Everything rdma-top knows about a counter name. */
void rd_ctr_classify(enum rd_ctr_src src, const char *name, struct rd_ctr_info *info);

enum rd_delta_kind {
	RD_DELTA_NONE = 0,	/* no previous reading: no rate yet */
	RD_DELTA_OK,
	RD_DELTA_WRAP,		/* a 32-bit hw counter wrapped; the delta is right */
	RD_DELTA_RESET,		/* went down: reset; the rate of this interval is unknown */
	RD_DELTA_SATURATED,	/* PMA counter at its maximum: the rate is unknown */
	RD_DELTA_ERROR,		/* this reading failed */
};
const char *rd_delta_kind_name(enum rd_delta_kind k);	/* "ok", "wrap", "reset"... */

/* The rolling state of one counter between readings. */
struct rd_ctr_state {
	bool have;		/* value holds the last good reading */
	bool wide;		/* seen above 2^32-1: a 64-bit counter */
	bool have_delta;
	uint64_t value;
	uint64_t last_delta;	/* last OK/WRAP delta: how fast it moves */
};

/*
 * Feed one reading (err: 0 or the -errno of the read).  Returns what the
 * step from the previous reading was, with *delta set for OK and WRAP (0
 * otherwise).  Pure: unit-tested on its own.
 */
enum rd_delta_kind rd_ctr_update(const struct rd_ctr_info *info, struct rd_ctr_state *st, int err,
				 uint64_t value, uint64_t *delta);

/* One counter of a port. */
struct rd_counter {
	char *name;
	struct rd_name key;		/* name, measured once for printing */
	enum rd_ctr_src src;
	struct rd_ctr_info info;
	int fd;				/* sysfs file kept open; -1 when fed by netlink */
	struct rd_ctr_state st;
	/* The last reading */
	int err;			/* 0 or -errno */
	uint64_t value;
	enum rd_delta_kind kind;
	uint64_t delta;			/* in the counter's own unit */
	double rate;			/* delta per second, for OK and WRAP */
	bool fed;			/* netlink: seen in this refresh */
	int warned;			/* the error last reported (0: none), so it is said once */
};

/* A summary quantity of a port (in bytes, packets or events). */
enum rd_rate_state {
	RD_RATE_NONE = 0,	/* no counter, or no previous reading yet */
	RD_RATE_OK,
	RD_RATE_PARTIAL,	/* errors: some counters are saturated; the rate is a lower bound */
	RD_RATE_UNKNOWN,	/* saturated or unreadable this time */
};

struct rd_sum_val {
	bool present;		/* the port has a counter for it */
	bool total_known;
	bool total_partial;	/* errors: some counters unreadable; total is a lower bound */
	uint64_t total;		/* scaled: bytes, packets, events */
	enum rd_rate_state rate_state;
	double rate;		/* per second */
	bool reset;		/* a counter behind it was reset in this interval (rate unknown) */
	bool wrapped;
	bool saturated;		/* a counter behind it is at its maximum */
};

struct rd_port_ctrs {
	struct rd_counter *v;
	size_t n;
	int role[RD_SUM_COUNT];		/* counter index feeding each role, -1 */
	bool have_prev;			/* a reading before the current one */
	double t_prev, t_cur;		/* CLOCK_MONOTONIC seconds */
	double interval;		/* t_cur - t_prev */
	unsigned long readings;
};

/*
 * List and open the counters of a port: counters/ and hw_counters/ (without
 * `lifespan`), sorted by name.  With hw_from_netlink, hw counters are not
 * opened (rd_port_ctrs_feed fills them).  0 even when the port has none.
 */
int rd_port_ctrs_open(const struct rd_sysroot *sr, const char *dev, unsigned int port,
		      bool hw_from_netlink, struct rd_port_ctrs *pc);
/* Add a counter by name (netlink source); returns its index or -errno. */
int rd_port_ctrs_add(struct rd_port_ctrs *pc, enum rd_ctr_src src, const char *name, int fd);
/* Re-sort by name and recompute the roles after adds. */
void rd_port_ctrs_index(struct rd_port_ctrs *pc);
void rd_port_ctrs_close(struct rd_port_ctrs *pc);

/*
 * One reading: begin (timestamp), pread the files (rd_port_ctrs_read_files)
 * and/or feed values by name, then end (deltas and rates).  A hw counter not
 * fed before end counts as a failed read (-ENODATA).
 */
void rd_port_ctrs_begin(struct rd_port_ctrs *pc, double now);
/* pread every file-backed counter of src; -ENODEV if the files are gone (device removed). */
int rd_port_ctrs_read_files(struct rd_port_ctrs *pc, enum rd_ctr_src src);
/* Set a counter's reading by name; -ENOENT if the port has no such counter. */
int rd_port_ctrs_feed(struct rd_port_ctrs *pc, enum rd_ctr_src src, const char *name,
		      uint64_t value);
void rd_port_ctrs_end(struct rd_port_ctrs *pc);

/* The port summary from the last reading. */
void rd_port_ctrs_summary(const struct rd_port_ctrs *pc, struct rd_sum_val out[RD_SUM_COUNT]);

/* Parse a sysfs counter value ("123\n"); -ENODATA empty, -EINVAL garbage ("N/A (no PMA)"). */
int rd_parse_counter(const char *buf, size_t len, uint64_t *v);

/* CLOCK_MONOTONIC in seconds. */
double rd_monotonic(void);

#endif

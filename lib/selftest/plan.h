/* SPDX-License-Identifier: MIT */
/*
 * Mesh schedules (--pairs): who tests whom in which round.
 *
 * Every host computes the same schedule from the same host list and the same
 * --pairs words, with nothing exchanged.  Each round is a partial permutation
 * of the hosts: a host is the client of at most one peer and the server of
 * at most one peer in a round, so a port carries one pair a direction at a
 * time.  A host i that the schedule leaves idle in round r has no peer then.
 *
 *   all          round r (1 .. N-1): host i tests host (i + r) mod N.  Every
 *                ordered pair once, N - 1 rounds.
 *   ring         round 1 only: i tests i + 1.  Each link of the list once.
 *   random:K[:SEED]
 *                K rounds (K < N): the hosts are shuffled with SEED (the
 *                same on every host; default 1) and round j uses the j-th of
 *                K distinct offsets drawn with the same seed; the host at
 *                place p of the shuffle tests the host at place p + offset.
 *                Each host tests K different peers and is tested K times.
 *                K >= N - 1 is the full mesh.
 *   leaves:S     the list in blocks of S hosts behind one leaf switch (the
 *                last block may be shorter), L = ceil(N / S) leaves: in round
 *                r (1 .. L-1) the k-th host of leaf l tests the k-th host of
 *                leaf (l + r) mod L (when that leaf has one), and a last
 *                round tests each host's next in its own leaf (ring in the
 *                leaf, when S > 1).  Every ordered pair of leaves is crossed
 *                by min(size, size) pairs, in L - 1 rounds plus one.
 *
 * The pure functions here are unit-tested for N = 2 .. 10,000 (each rule
 * above), apart from the run (mesh.c) that follows the schedule.
 */
#ifndef RD_ST_PLAN_H
#define RD_ST_PLAN_H

#include <stddef.h>
#include <stdint.h>

enum rd_st_plan_kind {
	RD_ST_PLAN_ALL,
	RD_ST_PLAN_RING,
	RD_ST_PLAN_RANDOM,
	RD_ST_PLAN_LEAVES,
};

struct rd_st_plan {
	enum rd_st_plan_kind kind;
	unsigned int k;		/* random: peers per host */
	uint64_t seed;		/* random */
	unsigned int leaf;	/* leaves: hosts per leaf switch */
};

#define RD_ST_PLAN_MAX_K 100000
#define RD_ST_PLAN_MAX_LEAF 100000

/*
 * "all", "ring", "random:K[:SEED]", "leaves:S" (words in any case): 0, or
 * -EINVAL with why[].
 */
int rd_st_plan_parse(const char *s, struct rd_st_plan *p, char *why, size_t why_len);
/* The words back ("random:4:1"), for messages and JSON. */
void rd_st_plan_name(const struct rd_st_plan *p, char *buf, size_t len);

/* A plan laid out for n hosts. */
struct rd_st_schedule {
	struct rd_st_plan plan;
	size_t n;
	unsigned int rounds;
	size_t *order;		/* random: the shuffle, place -> host */
	size_t *place;		/* random: host -> place */
	size_t *offset;		/* random: round j (1-based) -> offset [j - 1] */
	size_t leaves;		/* leaves: L */
};

#define RD_ST_NOBODY SIZE_MAX

/* 0, -EINVAL (fewer than two hosts), -ENOMEM. */
int rd_st_schedule_init(struct rd_st_schedule *s, const struct rd_st_plan *p, size_t n);
void rd_st_schedule_free(struct rd_st_schedule *s);
/* The host that host tests in round (1 .. rounds), or RD_ST_NOBODY. */
size_t rd_st_schedule_peer(const struct rd_st_schedule *s, size_t host, unsigned int round);
/* The host that tests host in round, or RD_ST_NOBODY (the inverse of _peer). */
size_t rd_st_schedule_client(const struct rd_st_schedule *s, size_t host, unsigned int round);
/* How many rounds host is tested in (its server's number of clients). */
unsigned int rd_st_schedule_incoming(const struct rd_st_schedule *s, size_t host);

#endif

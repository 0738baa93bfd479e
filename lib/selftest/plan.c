// SPDX-License-Identifier: MIT
/* Mesh schedules: who tests whom in which round (plan.h). */
#define _GNU_SOURCE
#include "plan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A whole decimal number from lo to hi, nothing after it. */
static bool parse_num(const char *s, size_t len, uint64_t lo, uint64_t hi, uint64_t *v)
{
	uint64_t x = 0;

	if (len == 0 || len > 20)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

int rd_st_plan_parse(const char *s, struct rd_st_plan *p, char *why, size_t why_len)
{
	const char *arg = strchr(s, ':');
	size_t wlen = arg ? (size_t)(arg - s) : strlen(s);
	uint64_t v;

	memset(p, 0, sizeof(*p));
	p->seed = 1;
	if (!arg && strcasecmp(s, "all") == 0)
		return 0;
	if (!arg && strcasecmp(s, "ring") == 0) {
		p->kind = RD_ST_PLAN_RING;
		return 0;
	}
	if (arg && wlen == 6 && strncasecmp(s, "random", 6) == 0) {
		const char *seed = strchr(arg + 1, ':');
		size_t klen = seed ? (size_t)(seed - arg - 1) : strlen(arg + 1);

		p->kind = RD_ST_PLAN_RANDOM;
		if (!parse_num(arg + 1, klen, 1, RD_ST_PLAN_MAX_K, &v)) {
			snprintf(why, why_len, "random:K: K is a number of peers from 1 to %d",
				 RD_ST_PLAN_MAX_K);
			return -EINVAL;
		}
		p->k = (unsigned int)v;
		if (seed && !parse_num(seed + 1, strlen(seed + 1), 0, UINT64_MAX, &p->seed)) {
			snprintf(why, why_len, "random:K:SEED: SEED is a whole number (the same on every host)");
			return -EINVAL;
		}
		return 0;
	}
	if (arg && wlen == 6 && strncasecmp(s, "leaves", 6) == 0) {
		p->kind = RD_ST_PLAN_LEAVES;
		if (!parse_num(arg + 1, strlen(arg + 1), 1, RD_ST_PLAN_MAX_LEAF, &v)) {
			snprintf(why, why_len, "leaves:S: S is the number of hosts a leaf switch has, "
				 "from 1 to %d", RD_ST_PLAN_MAX_LEAF);
			return -EINVAL;
		}
		p->leaf = (unsigned int)v;
		return 0;
	}
	snprintf(why, why_len, "'%.40s' is not one of all, ring, random:K[:SEED], leaves:S", s);
	return -EINVAL;
}

void rd_st_plan_name(const struct rd_st_plan *p, char *buf, size_t len)
{
	switch (p->kind) {
	case RD_ST_PLAN_RING:
		snprintf(buf, len, "ring");
		break;
	case RD_ST_PLAN_RANDOM:
		snprintf(buf, len, "random:%u:%" PRIu64, p->k, p->seed);
		break;
	case RD_ST_PLAN_LEAVES:
		snprintf(buf, len, "leaves:%u", p->leaf);
		break;
	default:
		snprintf(buf, len, "all");
		break;
	}
}

/* splitmix64: small, fast, and the same numbers on every host and libc. */
static uint64_t next_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, bound), without the bias of a plain modulo. */
static uint64_t rand_below(uint64_t *state, uint64_t bound)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % bound, x;

	do
		x = next_rand(state);
	while (x >= limit);
	return x % bound;
}

/* The first k of a shuffle of v[0 .. n) (Fisher-Yates, front to back). */
static void shuffle(size_t *v, size_t n, size_t k, uint64_t *state)
{
	for (size_t i = 0; i < k && i + 1 < n; i++) {
		size_t j = i + (size_t)rand_below(state, n - i), t = v[i];

		v[i] = v[j];
		v[j] = t;
	}
}

static size_t leaf_size(const struct rd_st_schedule *s, size_t l)
{
	size_t S = s->plan.leaf, first = l * S;

	return s->n - first < S ? s->n - first : S;
}

int rd_st_schedule_init(struct rd_st_schedule *s, const struct rd_st_plan *p, size_t n)
{
	uint64_t state;

	memset(s, 0, sizeof(*s));
	if (n < 2)
		return -EINVAL;
	s->plan = *p;
	s->n = n;
	switch (p->kind) {
	case RD_ST_PLAN_RING:
		s->rounds = 1;
		return 0;
	case RD_ST_PLAN_LEAVES:
		s->leaves = (n + p->leaf - 1) / p->leaf;
		s->rounds = (unsigned int)(s->leaves - 1 + (p->leaf > 1 ? 1 : 0));
		return 0;
	case RD_ST_PLAN_RANDOM:
		break;
	default:
		s->rounds = (unsigned int)(n - 1);
		return 0;
	}
	if (s->plan.k > n - 1)
		s->plan.k = (unsigned int)(n - 1);	/* every peer: the full mesh */
	s->rounds = s->plan.k;
	s->order = malloc(n * sizeof(*s->order));
	s->place = malloc(n * sizeof(*s->place));
	s->offset = malloc((n - 1) * sizeof(*s->offset));
	if (!s->order || !s->place || !s->offset) {
		rd_st_schedule_free(s);
		return -ENOMEM;
	}
	state = p->seed;
	for (size_t i = 0; i < n; i++)
		s->order[i] = i;
	shuffle(s->order, n, n, &state);
	for (size_t i = 0; i < n; i++)
		s->place[s->order[i]] = i;
	for (size_t i = 0; i < n - 1; i++)
		s->offset[i] = i + 1;
	shuffle(s->offset, n - 1, s->plan.k, &state);
	return 0;
}

void rd_st_schedule_free(struct rd_st_schedule *s)
{
	free(s->order);
	free(s->place);
	free(s->offset);
	s->order = s->place = s->offset = NULL;
}

/* host + d (0 <= d < n) around a list of n: no division on the way. */
static size_t wrap(size_t host, size_t d, size_t n)
{
	size_t q = host + d;

	return q >= n ? q - n : q;
}

/* dir +1: the peer host tests; -1: the client that tests host. */
static size_t step(const struct rd_st_schedule *s, size_t host, unsigned int round, int dir)
{
	size_t n = s->n;

	if (host >= n || round < 1 || round > s->rounds)
		return RD_ST_NOBODY;
	switch (s->plan.kind) {
	case RD_ST_PLAN_RANDOM: {
		size_t off = s->offset[round - 1], p = s->place[host];

		return s->order[wrap(p, dir > 0 ? off : n - off, n)];
	}
	case RD_ST_PLAN_LEAVES: {
		size_t S = s->plan.leaf, L = s->leaves, l = host / S, k = host % S, size;

		if (round <= L - 1) {
			size_t m = (dir > 0 ? l + round : l + L - round) % L;

			return k < leaf_size(s, m) ? m * S + k : RD_ST_NOBODY;
		}
		/* the last round: the next (or the previous) host of its own leaf */
		size = leaf_size(s, l);
		if (size < 2)
			return RD_ST_NOBODY;
		return l * S + (dir > 0 ? k + 1 : k + size - 1) % size;
	}
	default:
		/* all, ring: the host round places further on (back) in the list */
		return wrap(host, dir > 0 ? round : n - round, n);
	}
}

size_t rd_st_schedule_peer(const struct rd_st_schedule *s, size_t host, unsigned int round)
{
	return step(s, host, round, 1);
}

size_t rd_st_schedule_client(const struct rd_st_schedule *s, size_t host, unsigned int round)
{
	return step(s, host, round, -1);
}

unsigned int rd_st_schedule_incoming(const struct rd_st_schedule *s, size_t host)
{
	unsigned int in = 0;

	for (unsigned int r = 1; r <= s->rounds; r++)
		in += rd_st_schedule_client(s, host, r) != RD_ST_NOBODY;
	return in;
}

// SPDX-License-Identifier: MIT
/*
 * Mesh schedules (lib/selftest/plan.c) against their rules, for N from 2 to
 * 10,000: a round is a partial permutation (no host a client twice, no host
 * tested twice, nobody tests itself), client() is the inverse of peer(),
 * every ordered pair once in a full mesh, K different peers and K tests of
 * each host with random:K, every ordered leaf pair crossed with leaves:S,
 * and the rounds each plan documents.
 */
#include "unit.h"

#include <stdint.h>

#include "selftest/selftest.h"

static struct rd_st_plan plan(const char *words)
{
	struct rd_st_plan p;
	char why[128];

	assert_int_equal(rd_st_plan_parse(words, &p, why, sizeof(why)), 0);
	return p;
}

/*
 * The round rules, and the pairs in a bit matrix (NULL: not kept).  Counted,
 * then asserted once: a cmocka assertion a pair would take seconds at 10,000.
 */
static void check_rounds(const struct rd_st_schedule *s, uint8_t *pairs)
{
	size_t n = s->n, bad = 0;
	uint8_t *tested = malloc(n);

	assert_non_null(tested);
	for (unsigned int r = 1; r <= s->rounds; r++) {
		memset(tested, 0, n);
		for (size_t i = 0; i < n; i++) {
			size_t p = rd_st_schedule_peer(s, i, r);

			if (p == RD_ST_NOBODY)
				continue;
			/* a peer in the list, not itself, one client a host a round, the inverse */
			if (p >= n || p == i || tested[p] || rd_st_schedule_client(s, p, r) != i) {
				bad++;
				continue;
			}
			tested[p] = 1;
			if (pairs) {
				size_t bit = i * n + p;

				pairs[bit / 8] |= (uint8_t)(1u << (bit % 8));
			}
		}
		/* and the other way: a host with a client is some host's peer */
		for (size_t i = 0; i < n; i++)
			bad += (rd_st_schedule_client(s, i, r) != RD_ST_NOBODY) != tested[i];
	}
	assert_int_equal(bad, 0);
	assert_int_equal(rd_st_schedule_peer(s, 0, 0), RD_ST_NOBODY);
	assert_int_equal(rd_st_schedule_peer(s, 0, s->rounds + 1), RD_ST_NOBODY);
	free(tested);
}

static bool has_pair(const uint8_t *pairs, size_t n, size_t a, size_t b)
{
	size_t bit = a * n + b;

	return pairs[bit / 8] & (1u << (bit % 8));
}

static const size_t sizes[] = { 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 31, 64, 100, 101, 257,
				1000, 1024, 4999, 10000 };

static void test_all(void **state)
{
	struct rd_st_plan all = plan("all"), ring = plan("RING");

	(void)state;
	for (size_t si = 0; si < RD_ARRAY_SIZE(sizes); si++) {
		size_t n = sizes[si], bad = 0;
		uint8_t *seen = malloc(n);
		struct rd_st_schedule s;

		assert_non_null(seen);
		assert_int_equal(rd_st_schedule_init(&s, &all, n), 0);
		assert_int_equal(s.rounds, n - 1);
		check_rounds(&s, NULL);
		/* each ordered pair once: a host's n - 1 peers are every other host */
		for (size_t a = 0; a < n; a++) {
			memset(seen, 0, n);
			for (unsigned int r = 1; r <= s.rounds; r++) {
				size_t p = rd_st_schedule_peer(&s, a, r);

				if (p >= n || seen[p])
					bad++;
				else
					seen[p] = 1;
			}
			bad += seen[a];
			/* (implied past 1,024: n - 1 peers each, one client a host a round) */
			if (n <= 1024)
				bad += rd_st_schedule_incoming(&s, a) != n - 1;
		}
		assert_int_equal(bad, 0);
		rd_st_schedule_free(&s);
		free(seen);

		assert_int_equal(rd_st_schedule_init(&s, &ring, n), 0);
		assert_int_equal(s.rounds, 1);
		check_rounds(&s, NULL);
		for (size_t a = 0; a < n; a++)
			assert_int_equal(rd_st_schedule_peer(&s, a, 1), (a + 1) % n);
		rd_st_schedule_free(&s);
	}
}

static void test_random(void **state)
{
	static const unsigned int ks[] = { 1, 2, 3, 8, 50 };

	(void)state;
	for (size_t si = 0; si < RD_ARRAY_SIZE(sizes); si++) {
		size_t n = sizes[si];

		for (size_t ki = 0; ki < RD_ARRAY_SIZE(ks); ki++) {
			char words[32];
			struct rd_st_plan p;
			struct rd_st_schedule s, again, other;
			unsigned int k = ks[ki], want = k < n - 1 ? k : (unsigned int)(n - 1);
			uint8_t *pairs = n <= 1024 ? calloc(n * n / 8 + 1, 1) : NULL;
			bool differs = false;
			size_t bad = 0;

			snprintf(words, sizeof(words), "random:%u:%zu", k, n * 7 + k);
			p = plan(words);
			assert_int_equal(rd_st_schedule_init(&s, &p, n), 0);
			assert_int_equal(s.rounds, want);
			check_rounds(&s, pairs);
			for (size_t a = 0; a < n; a++) {
				/* tested K times, and K different peers */
				bad += rd_st_schedule_incoming(&s, a) != want;
				if (pairs) {
					size_t peers = 0;

					for (size_t b = 0; b < n; b++)
						peers += has_pair(pairs, n, a, b);
					bad += peers != want;
				}
			}
			/* the same words give the same schedule (every host computes it) */
			assert_int_equal(rd_st_schedule_init(&again, &p, n), 0);
			for (unsigned int r = 1; r <= s.rounds; r++)
				for (size_t a = 0; a < n; a++)
					bad += rd_st_schedule_peer(&s, a, r) != rd_st_schedule_peer(&again, a, r);
			assert_int_equal(bad, 0);
			/* another seed, another schedule (when there is room to differ) */
			p.seed++;
			assert_int_equal(rd_st_schedule_init(&other, &p, n), 0);
			for (size_t a = 0; a < n && !differs; a++)
				differs = rd_st_schedule_peer(&s, a, 1) != rd_st_schedule_peer(&other, a, 1);
			if (n >= 10)
				assert_true(differs);
			rd_st_schedule_free(&s);
			rd_st_schedule_free(&again);
			rd_st_schedule_free(&other);
			free(pairs);
		}
	}
}

static void test_leaves(void **state)
{
	static const unsigned int ss[] = { 1, 2, 3, 4, 7, 20, 36 };

	(void)state;
	for (size_t si = 0; si < RD_ARRAY_SIZE(sizes); si++) {
		size_t n = sizes[si];

		if (n > 1024)
			continue;	/* the pair matrix: n^2 bits */
		for (size_t li = 0; li < RD_ARRAY_SIZE(ss); li++) {
			unsigned int S = ss[li];
			size_t L = (n + S - 1) / S;
			char words[32];
			struct rd_st_plan p;
			struct rd_st_schedule s;
			uint8_t *pairs = calloc(n * n / 8 + 1, 1);

			assert_non_null(pairs);
			snprintf(words, sizeof(words), "leaves:%u", S);
			p = plan(words);
			assert_int_equal(rd_st_schedule_init(&s, &p, n), 0);
			assert_int_equal(s.rounds, L - 1 + (S > 1));
			check_rounds(&s, pairs);
			/* every ordered pair of leaves: crossed by min(size, size) pairs */
			for (size_t la = 0; la < L; la++)
				for (size_t lb = 0; lb < L; lb++) {
					size_t na = n - la * S < S ? n - la * S : S;
					size_t nb = n - lb * S < S ? n - lb * S : S, crossed = 0;

					if (la == lb)
						continue;
					for (size_t a = la * S; a < la * S + na; a++)
						for (size_t b = lb * S; b < lb * S + nb; b++)
							crossed += has_pair(pairs, n, a, b);
					assert_int_equal(crossed, na < nb ? na : nb);
				}
			/* inside a leaf of two or more: each host tests its next */
			for (size_t a = 0; a < n; a++) {
				size_t l = a / S, size = n - l * S < S ? n - l * S : S;

				if (size > 1)
					assert_true(has_pair(pairs, n, a, l * S + (a % S + 1) % size));
			}
			rd_st_schedule_free(&s);
			free(pairs);
		}
	}
}

static void test_parse(void **state)
{
	static const char *const bad[] = { "", "al", "ring:2", "random", "random:", "random:0",
					   "random:100001", "random:2:", "random:2:x", "random:-1",
					   "random:2:3:4", "leaves", "leaves:0", "leaves:1x",
					   "leaves:100001", "all:1", "random:99999999999999999999999" };
	struct rd_st_plan p;
	char why[128], name[64];
	struct rd_st_schedule s;

	(void)state;
	for (size_t i = 0; i < RD_ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		assert_int_equal(rd_st_plan_parse(bad[i], &p, why, sizeof(why)), -EINVAL);
		assert_true(why[0] != '\0');
	}
	p = plan("Random:4");
	assert_int_equal(p.kind, RD_ST_PLAN_RANDOM);
	assert_int_equal(p.k, 4);
	rd_st_plan_name(&p, name, sizeof(name));
	assert_string_equal(name, "random:4:1");
	p = plan("random:3:18446744073709551615");
	assert_true(p.seed == UINT64_MAX);
	p = plan("leaves:18");
	rd_st_plan_name(&p, name, sizeof(name));
	assert_string_equal(name, "leaves:18");
	p = plan("all");
	assert_int_equal(rd_st_schedule_init(&s, &p, 1), -EINVAL);
	assert_int_equal(rd_st_schedule_init(&s, &p, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_all),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_leaves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

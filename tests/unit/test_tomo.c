// SPDX-License-Identifier: MIT
/*
 * rdma-fleet --fabric's tomography (tools/rdma-fleet/fleettomo.c) on
 * hand-made meshes, and its fabric document (fleetfab.c): the links
 * rd_tomo_rank names, in which order and with which counts, against the rule
 * of fleettomo.h (greedy precision x recall with explaining away; a link named
 * with at least two bad pairs, at least half of its pairs bad and a binomial
 * tail below 0.01 over the links crossed; links of the same pairs named
 * together), then the parser's refusals and the route walk on a copy of
 * rdma-fabric --routes -j's output.
 */
#include "unit.h"

#include <math.h>

#include "rdma-fleet/fleettomo.h"

/* ---- the ranking ---- */

#define MAX_OBS 240

/*
 * A leaf-and-spine fabric: `leaves` leaves of `per` hosts and two spines.
 * Host h's cable is link h; leaf l's cable to spine p is link hosts + 2 l + p.
 * Every ordered pair of hosts (s, d) is an observation, in that order: it
 * crosses s's and d's cables and, between leaves, both leaves' cables to spine
 * d % 2 (the tables route by destination): 2 or 4 links.
 */
struct mesh {
	size_t hosts, nlinks, nobs;
	unsigned int src[MAX_OBS], dst[MAX_OBS];
	uint32_t links[MAX_OBS][4];
	struct rd_tomo_obs obs[MAX_OBS];
};

static struct mesh m;

static void mesh_build(unsigned int leaves, unsigned int per)
{
	memset(&m, 0, sizeof(m));
	m.hosts = leaves * per;
	m.nlinks = m.hosts + 2 * leaves;
	for (unsigned int s = 0; s < m.hosts; s++)
		for (unsigned int d = 0; d < m.hosts; d++) {
			unsigned int ls = s / per, ld = d / per, p = d % 2;
			uint32_t *v, n = 0;
			size_t i;

			if (s == d)
				continue;
			i = m.nobs++;
			assert_true(i < MAX_OBS);
			v = m.links[i];
			m.src[i] = s;
			m.dst[i] = d;
			v[n++] = s < d ? s : d;
			v[n++] = s < d ? d : s;
			if (ls != ld) {
				v[n++] = (uint32_t)(m.hosts + 2 * (ls < ld ? ls : ld) + p);
				v[n++] = (uint32_t)(m.hosts + 2 * (ls < ld ? ld : ls) + p);
			}
			m.obs[i] = (struct rd_tomo_obs){ .links = v, .nlinks = n, .bad = false };
		}
}

static bool crosses(const struct rd_tomo_obs *o, uint32_t l)
{
	for (uint32_t k = 0; k < o->nlinks; k++)
		if (o->links[k] == l)
			return true;
	return false;
}

/* Every pair through link l fails (a broken cable); their number. */
static size_t break_link(uint32_t l)
{
	size_t n = 0;

	for (size_t i = 0; i < m.nobs; i++)
		if (crosses(&m.obs[i], l)) {
			m.obs[i].bad = true;
			n++;
		}
	return n;
}

static size_t count_through(uint32_t l, bool bad_only)
{
	size_t n = 0;

	for (size_t i = 0; i < m.nobs; i++)
		n += crosses(&m.obs[i], l) && (!bad_only || m.obs[i].bad);
	return n;
}

static size_t count_bad(void)
{
	size_t n = 0;

	for (size_t i = 0; i < m.nobs; i++)
		n += m.obs[i].bad;
	return n;
}

static struct rd_tomo_suspect *rank(size_t nlinks, size_t max, size_t *n)
{
	struct rd_tomo_suspect *s = NULL;

	*n = 99;
	assert_int_equal(rd_tomo_rank(nlinks, m.obs, m.nobs, max, &s, n), 0);
	assert_non_null(s);
	return s;
}

/* A suspect's link and counts: what it explains, and the whole picture. */
static void check_suspect(const struct rd_tomo_suspect *s, uint32_t link, size_t bad, size_t through,
			  size_t bad_all, size_t through_all, size_t bad_others, size_t others)
{
	assert_int_equal(s->link, link);
	assert_int_equal(s->bad, bad);
	assert_int_equal(s->through, through);
	assert_int_equal(s->bad_all, bad_all);
	assert_int_equal(s->through_all, through_all);
	assert_int_equal(s->bad_others, bad_others);
	assert_int_equal(s->others, others);
}

/* Its explained observations: bad, through it, rising, none explained by an earlier suspect. */
static void check_explained(const struct rd_tomo_suspect *s, bool *seen)
{
	for (size_t k = 0; k < s->bad; k++) {
		size_t i = s->obs[k];

		assert_true(i < m.nobs);
		assert_true(m.obs[i].bad);
		assert_true(crosses(&m.obs[i], s->link));
		assert_false(seen[i]);
		assert_true(k == 0 || i > s->obs[k - 1]);
		seen[i] = true;
	}
}

static void assert_near(double got, double want)
{
	if (fabs(got - want) > 1e-9 * (1 + fabs(want)))
		fail_msg("got %.15g, want %.15g", got, want);
}

/* The observation of pair (s, d). */
static size_t pair(unsigned int s, unsigned int d)
{
	for (size_t i = 0; i < m.nobs; i++)
		if (m.src[i] == s && m.dst[i] == d)
			return i;
	fail_msg("no pair %u -> %u", s, d);
	return SIZE_MAX;
}

static bool explains(const struct rd_tomo_suspect *s, size_t i)
{
	for (size_t k = 0; k < s->bad; k++)
		if (s->obs[k] == i)
			return true;
	return false;
}

/*
 * Case 1, one broken cable: two leaves of four hosts (12 links, 56 pairs),
 * host 7's cable fails its 14 pairs.  Its spine cable (9, twin 11) carries 6
 * of them among 16 pairs, every other host's cable 2 of 14: below half.
 */
static void test_one_link(void **state)
{
	struct rd_tomo_suspect *s;
	bool seen[MAX_OBS] = { false };
	size_t n;

	(void)state;
	mesh_build(2, 4);
	assert_int_equal(m.nlinks, 12);
	assert_int_equal(m.nobs, 56);
	assert_int_equal(break_link(7), 14);
	assert_int_equal(count_through(9, true), 6);
	assert_int_equal(count_through(9, false), 16);
	assert_int_equal(count_through(3, true), 2);
	s = rank(m.nlinks, 8, &n);
	assert_int_equal(n, 1);
	check_suspect(&s[0], 7, 14, 14, 14, 14, 0, 42);
	assert_int_equal(s[0].nsame, 0);
	assert_near(s[0].score, 1.0);
	/* all 14 bad, against the rest's rate with one of each added: 1 / (42 + 2) */
	assert_near(s[0].log10_p, 14 * log10(1.0 / 44));
	check_explained(&s[0], seen);
	for (size_t i = 0; i < m.nobs; i++)
		assert_int_equal(seen[i], crosses(&m.obs[i], 7));
	rd_tomo_suspects_free(s, n);

	/* links no pair crosses neither count in the bound nor get named */
	s = rank(1000, 8, &n);
	assert_int_equal(n, 1);
	check_suspect(&s[0], 7, 14, 14, 14, 14, 0, 42);
	assert_near(s[0].log10_p, 14 * log10(1.0 / 44));
	rd_tomo_suspects_free(s, n);

	/* max 0: nobody */
	s = rank(m.nlinks, 0, &n);
	assert_int_equal(n, 0);
	rd_tomo_suspects_free(s, n);
}

/*
 * Case 2, two broken cables sharing pairs: three leaves of two hosts (12
 * links, 30 pairs).  Host 5's cable fails its 10 pairs, leaf 0's cable to
 * spine 1 (link 7) its 8; 3 pairs cross both (0->5, 1->5, 5->1): 15 bad.
 * Link 5 explains more (10/15 against 8/15) and is named first; link 7 then
 * explains the 5 left, on its 5 pairs not explained.
 */
static void test_two_links(void **state)
{
	struct rd_tomo_suspect *s;
	bool seen[MAX_OBS] = { false };
	size_t n;

	(void)state;
	mesh_build(3, 2);
	assert_int_equal(m.nlinks, 12);
	assert_int_equal(m.nobs, 30);
	assert_int_equal(break_link(5), 10);
	assert_int_equal(break_link(7), 8);
	assert_int_equal(count_bad(), 15);
	s = rank(m.nlinks, 8, &n);
	assert_int_equal(n, 2);
	check_suspect(&s[0], 5, 10, 10, 10, 10, 5, 20);
	assert_near(s[0].score, 10.0 / 15);
	assert_near(s[0].log10_p, 10 * log10(6.0 / 22));	/* (5 + 1) / (20 + 2) */
	check_suspect(&s[1], 7, 5, 5, 8, 8, 7, 22);
	assert_near(s[1].score, 1.0);
	assert_near(s[1].log10_p, 5 * log10(1.0 / 17));	/* (0 + 1) / (20 - 5 + 2) */
	assert_int_equal(s[0].nsame, 0);
	assert_int_equal(s[1].nsame, 0);
	check_explained(&s[0], seen);
	check_explained(&s[1], seen);
	for (size_t i = 0; i < m.nobs; i++)
		assert_int_equal(seen[i], m.obs[i].bad);
	/* the shared pairs went to the first */
	assert_true(explains(&s[0], pair(0, 5)) && explains(&s[0], pair(1, 5)) && explains(&s[0], pair(5, 1)));
	assert_true(explains(&s[1], pair(2, 1)) && explains(&s[1], pair(0, 3)));
	rd_tomo_suspects_free(s, n);

	/* max 1 stops after the first */
	s = rank(m.nlinks, 1, &n);
	assert_int_equal(n, 1);
	check_suspect(&s[0], 5, 10, 10, 10, 10, 5, 20);
	rd_tomo_suspects_free(s, n);
}

/*
 * Two host cables of 14 pairs each, 2 pairs shared (1->6, 6->1): equal
 * scores, the lower link first; the second explains its other 12.
 */
static void test_tie(void **state)
{
	struct rd_tomo_suspect *s;
	bool seen[MAX_OBS] = { false };
	size_t n;

	(void)state;
	mesh_build(2, 4);
	assert_int_equal(break_link(6), 14);
	assert_int_equal(break_link(1), 14);
	assert_int_equal(count_bad(), 26);
	s = rank(m.nlinks, 8, &n);
	assert_int_equal(n, 2);
	check_suspect(&s[0], 1, 14, 14, 14, 14, 12, 42);
	assert_near(s[0].score, 14.0 / 26);
	check_suspect(&s[1], 6, 12, 12, 14, 14, 12, 42);
	assert_near(s[1].score, 1.0);
	assert_near(s[1].log10_p, 12 * log10(1.0 / 32));	/* (0 + 1) / (42 - 12 + 2) */
	check_explained(&s[0], seen);
	check_explained(&s[1], seen);
	assert_true(explains(&s[0], pair(1, 6)) && explains(&s[0], pair(6, 1)));
	rd_tomo_suspects_free(s, n);
}

/* No link with at least half of its pairs bad. */
static void assert_under_half(void)
{
	for (uint32_t l = 0; l < m.nlinks; l++)
		if (2 * count_through(l, true) >= count_through(l, false))
			fail_msg("link %u: %zu of %zu pairs bad", l, count_through(l, true), count_through(l, false));
}

/*
 * Case 3, failures spread: every 7th pair of 30 fails (5), no link has half
 * of its pairs bad; then 103 of 240 pairs fail (43%), two host cables have
 * 15 of 30 bad, at the rate seen elsewhere: chance, nobody named.
 */
static void test_spread(void **state)
{
	struct rd_tomo_suspect *s;
	size_t n;

	(void)state;
	mesh_build(3, 2);
	for (size_t i = 0; i < m.nobs; i++)
		m.obs[i].bad = i % 7 == 0;
	assert_int_equal(count_bad(), 5);
	assert_under_half();
	s = rank(m.nlinks, 8, &n);
	assert_int_equal(n, 0);
	rd_tomo_suspects_free(s, n);

	mesh_build(4, 4);
	assert_int_equal(m.nlinks, 24);
	assert_int_equal(m.nobs, 240);
	for (size_t i = 0; i < m.nobs; i++)
		m.obs[i].bad = i * 131 % 7 < 3;
	assert_int_equal(count_bad(), 103);
	for (uint32_t l = 0; l < m.nlinks; l++) {
		size_t b = count_through(l, true), t = count_through(l, false);

		if (l == 6 || l == 13) {
			assert_int_equal(b, 15);
			assert_int_equal(t, 30);
		} else {
			assert_true(2 * b < t);
		}
	}
	s = rank(m.nlinks, 8, &n);
	assert_int_equal(n, 0);
	rd_tomo_suspects_free(s, n);
}

/*
 * Case 4, links that cannot be told apart: with two leaves, leaf 0's and
 * leaf 1's cables to spine 0 (links 8 and 10) carry the same 16 pairs.
 * Spine 0 failing names 8 with 10 beside it; both spines failing names
 * spine 0's pair, then spine 1's (9 with 11), the tie to the lower link.
 */
static void test_same(void **state)
{
	struct rd_tomo_suspect *s;
	size_t n;

	(void)state;
	mesh_build(2, 4);
	assert_int_equal(break_link(8), 16);
	assert_int_equal(count_through(10, true), 16);
	assert_int_equal(count_through(10, false), 16);
	s = rank(m.nlinks, 8, &n);
	assert_int_equal(n, 1);
	check_suspect(&s[0], 8, 16, 16, 16, 16, 0, 40);
	assert_int_equal(s[0].nsame, 1);
	assert_int_equal(s[0].same[0], 10);
	rd_tomo_suspects_free(s, n);

	assert_int_equal(break_link(9), 16);
	assert_int_equal(count_bad(), 32);
	s = rank(m.nlinks, 8, &n);
	assert_int_equal(n, 2);
	check_suspect(&s[0], 8, 16, 16, 16, 16, 16, 40);
	assert_near(s[0].score, 0.5);
	assert_int_equal(s[0].nsame, 1);
	assert_int_equal(s[0].same[0], 10);
	check_suspect(&s[1], 9, 16, 16, 16, 16, 16, 40);
	assert_int_equal(s[1].nsame, 1);
	assert_int_equal(s[1].same[0], 11);
	rd_tomo_suspects_free(s, n);
}

/* 12 pairs (5% of 240) away from link 13 fail too: pairs 1, 20, 39 ... (every 19th) that do not cross it. */
static size_t add_noise(void)
{
	size_t noise = 0;

	for (size_t i = 0; i < m.nobs && noise < 12; i++)
		if (i % 19 == 1 && !crosses(&m.obs[i], 13)) {
			assert_false(m.obs[i].bad);
			m.obs[i].bad = true;
			noise++;
		}
	return noise;
}

/*
 * Case 5, noise: four leaves of four hosts (24 links, 240 pairs), host 13's
 * cable fails its 30 pairs and 12 pairs elsewhere fail: 13 alone is named.
 * Then the cable is flaky (24 of its 30 pairs fail): still 13 alone.
 */
static void test_noise(void **state)
{
	struct rd_tomo_suspect *s;
	size_t n, k = 0;

	(void)state;
	mesh_build(4, 4);
	assert_int_equal(break_link(13), 30);
	assert_int_equal(add_noise(), 12);
	s = rank(m.nlinks, 8, &n);
	assert_int_equal(n, 1);
	check_suspect(&s[0], 13, 30, 30, 30, 30, 12, 210);
	assert_near(s[0].score, 30.0 / 42);
	assert_int_equal(s[0].nsame, 0);
	rd_tomo_suspects_free(s, n);

	mesh_build(4, 4);
	for (size_t i = 0; i < m.nobs; i++)
		if (crosses(&m.obs[i], 13))
			m.obs[i].bad = k++ % 5 != 4;
	assert_int_equal(count_bad(), 24);
	assert_int_equal(add_noise(), 12);
	s = rank(m.nlinks, 8, &n);
	assert_int_equal(n, 1);
	check_suspect(&s[0], 13, 24, 30, 24, 30, 12, 210);
	assert_near(s[0].score, 24.0 / 30 * 24 / 36);
	rd_tomo_suspects_free(s, n);
}

/* Case 6: no observation, no link, one bad pair, two bad pairs apart. */
static void test_edges(void **state)
{
	struct rd_tomo_suspect *s = NULL;
	static const uint32_t none[1] = { 0 };
	struct rd_tomo_obs bare[3] = { { none, 0, true }, { none, 0, true }, { none, 0, false } };
	size_t n = 99;

	(void)state;
	assert_int_equal(rd_tomo_rank(12, NULL, 0, 8, &s, &n), 0);
	assert_non_null(s);
	assert_int_equal(n, 0);
	rd_tomo_suspects_free(s, n);
	n = 99;
	assert_int_equal(rd_tomo_rank(0, bare, 3, 8, &s, &n), 0);
	assert_int_equal(n, 0);
	rd_tomo_suspects_free(s, n);
	rd_tomo_suspects_free(NULL, 0);

	/* one bad pair cannot single out one of its cables */
	mesh_build(2, 4);
	m.obs[pair(0, 7)].bad = true;
	s = rank(m.nlinks, 8, &n);
	assert_int_equal(n, 0);
	rd_tomo_suspects_free(s, n);
	/* two bad pairs with no cable in common: each cable has one */
	m.obs[pair(2, 3)].bad = true;
	s = rank(m.nlinks, 8, &n);
	assert_int_equal(n, 0);
	rd_tomo_suspects_free(s, n);
}

/*
 * The least evidence: link 0 carries two pairs, both bad; k good pairs
 * cross link 1; all cross link 2.  3 links crossed: the tail must be below
 * 0.01 / 3, and (1 / (k + 2))^2 is from k = 16 on, not at k = 15.
 */
static void test_min_bad(void **state)
{
	static const uint32_t bad_route[] = { 0, 2 }, good_route[] = { 1, 2 };
	struct rd_tomo_obs obs[18];
	struct rd_tomo_suspect *s;
	size_t n;

	(void)state;
	for (size_t i = 0; i < 18; i++)
		obs[i] = i < 2 ? (struct rd_tomo_obs){ bad_route, 2, true }
			       : (struct rd_tomo_obs){ good_route, 2, false };
	assert_int_equal(rd_tomo_rank(3, obs, 18, 8, &s, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].link, 0);
	assert_int_equal(s[0].bad, 2);
	assert_int_equal(s[0].through, 2);
	assert_int_equal(s[0].others, 16);
	assert_int_equal(s[0].bad_others, 0);
	assert_int_equal(s[0].nsame, 0);
	assert_near(s[0].log10_p, 2 * log10(1.0 / 18));
	assert_true(s[0].log10_p < log10(0.01 / 3));
	assert_int_equal(s[0].obs[0], 0);
	assert_int_equal(s[0].obs[1], 1);
	rd_tomo_suspects_free(s, n);

	assert_int_equal(rd_tomo_rank(3, obs, 17, 8, &s, &n), 0);
	assert_int_equal(n, 0);
	rd_tomo_suspects_free(s, n);
}

/* ---- the fabric document ---- */

/*
 * rdma-fabric --load tests/fixtures/fabric/small-routes.cache --routes -j,
 * one line an entry, a few down ports left out: sw1 (LID 2) has h1 (LID 1)
 * on port 1, h2 (LID 4) on 2 and sw2 on 3 and 5; sw2 (LID 3) has h3 (LID 5)
 * on 1, h4 (LID 6) on 2.  Its cables are links 0-5 in the order of the
 * entries: sw1-h1, sw1-h2, sw1:3-sw2:3, sw1:5-sw2:5, sw2-h3, sw2-h4.
 */
static const char doc[] =
	"{\"ports\":[\n"
	/*  0 */ "{\"node\":\"sw1\",\"guid\":\"0x0000000000200000\",\"type\":\"Switch\",\"port\":1,\"lid\":2,"
		 "\"state\":\"Active\",\"phys_state\":\"LinkUp\",\"width\":\"4X\",\"speed\":\"QDR\","
		 "\"peer\":\"h1 mlx5_0\",\"peer_guid\":\"0x0000000000100000\",\"peer_port\":1},\n"
	/*  1 */ "{\"node\":\"sw1\",\"guid\":\"0x0000000000200000\",\"type\":\"Switch\",\"port\":2,\"lid\":2,"
		 "\"state\":\"Active\",\"phys_state\":\"LinkUp\",\"width\":\"4X\",\"speed\":\"QDR\","
		 "\"peer\":\"h2 mlx5_0\",\"peer_guid\":\"0x0000000000100002\",\"peer_port\":1},\n"
	/*  2 */ "{\"node\":\"sw1\",\"guid\":\"0x0000000000200000\",\"type\":\"Switch\",\"port\":3,\"lid\":2,"
		 "\"state\":\"Active\",\"phys_state\":\"LinkUp\",\"width\":\"4X\",\"speed\":\"QDR\","
		 "\"peer\":\"sw2\",\"peer_guid\":\"0x0000000000200001\",\"peer_port\":3},\n"
	/*  3 */ "{\"node\":\"sw1\",\"guid\":\"0x0000000000200000\",\"type\":\"Switch\",\"port\":4,\"lid\":2,"
		 "\"state\":\"Down\",\"phys_state\":\"Polling\"},\n"
	/*  4 */ "{\"node\":\"sw1\",\"guid\":\"0x0000000000200000\",\"type\":\"Switch\",\"port\":5,\"lid\":2,"
		 "\"state\":\"Active\",\"phys_state\":\"LinkUp\",\"width\":\"4X\",\"speed\":\"QDR\","
		 "\"peer\":\"sw2\",\"peer_guid\":\"0x0000000000200001\",\"peer_port\":5},\n"
	/*  5 */ "{\"node\":\"sw1\",\"guid\":\"0x0000000000200000\",\"type\":\"Switch\",\"port\":8,\"lid\":2,"
		 "\"state\":\"Down\",\"phys_state\":\"Polling\"},\n"
	/*  6 */ "{\"node\":\"sw2\",\"guid\":\"0x0000000000200001\",\"type\":\"Switch\",\"port\":1,\"lid\":3,"
		 "\"state\":\"Active\",\"phys_state\":\"LinkUp\",\"width\":\"4X\",\"speed\":\"QDR\","
		 "\"peer\":\"h3 mlx5_0\",\"peer_guid\":\"0x0000000000100004\",\"peer_port\":1},\n"
	/*  7 */ "{\"node\":\"sw2\",\"guid\":\"0x0000000000200001\",\"type\":\"Switch\",\"port\":2,\"lid\":3,"
		 "\"state\":\"Active\",\"phys_state\":\"LinkUp\",\"width\":\"1X\",\"speed\":\"QDR\","
		 "\"peer\":\"h4 mlx5_0\",\"peer_guid\":\"0x0000000000100006\",\"peer_port\":1},\n"
	/*  8 */ "{\"node\":\"sw2\",\"guid\":\"0x0000000000200001\",\"type\":\"Switch\",\"port\":3,\"lid\":3,"
		 "\"state\":\"Active\",\"phys_state\":\"LinkUp\",\"width\":\"4X\",\"speed\":\"QDR\","
		 "\"peer\":\"sw1\",\"peer_guid\":\"0x0000000000200000\",\"peer_port\":3},\n"
	/*  9 */ "{\"node\":\"sw2\",\"guid\":\"0x0000000000200001\",\"type\":\"Switch\",\"port\":5,\"lid\":3,"
		 "\"state\":\"Active\",\"phys_state\":\"LinkUp\",\"width\":\"4X\",\"speed\":\"QDR\","
		 "\"peer\":\"sw1\",\"peer_guid\":\"0x0000000000200000\",\"peer_port\":5},\n"
	/* 10 */ "{\"node\":\"sw2\",\"guid\":\"0x0000000000200001\",\"type\":\"Switch\",\"port\":8,\"lid\":3,"
		 "\"state\":\"Down\",\"phys_state\":\"Polling\"},\n"
	/* 11 */ "{\"node\":\"h1 mlx5_0\",\"guid\":\"0x0000000000100000\",\"type\":\"CA\",\"host\":\"h1\",\"port\":1,\"lid\":1,"
		 "\"state\":\"Active\",\"phys_state\":\"LinkUp\",\"width\":\"4X\",\"speed\":\"QDR\","
		 "\"peer\":\"sw1\",\"peer_guid\":\"0x0000000000200000\",\"peer_port\":1},\n"
	/* 12 */ "{\"node\":\"h2 mlx5_0\",\"guid\":\"0x0000000000100002\",\"type\":\"CA\",\"host\":\"h2\",\"port\":1,\"lid\":4,"
		 "\"state\":\"Active\",\"phys_state\":\"LinkUp\",\"width\":\"4X\",\"speed\":\"QDR\","
		 "\"peer\":\"sw1\",\"peer_guid\":\"0x0000000000200000\",\"peer_port\":2},\n"
	/* 13 */ "{\"node\":\"h3 mlx5_0\",\"guid\":\"0x0000000000100004\",\"type\":\"CA\",\"host\":\"h3\",\"port\":1,\"lid\":5,"
		 "\"state\":\"Active\",\"phys_state\":\"LinkUp\",\"width\":\"4X\",\"speed\":\"QDR\","
		 "\"peer\":\"sw2\",\"peer_guid\":\"0x0000000000200001\",\"peer_port\":1},\n"
	/* 14 */ "{\"node\":\"h4 mlx5_0\",\"guid\":\"0x0000000000100006\",\"type\":\"CA\",\"host\":\"h4\",\"port\":1,\"lid\":6,"
		 "\"state\":\"Active\",\"phys_state\":\"LinkUp\",\"width\":\"1X\",\"speed\":\"QDR\","
		 "\"peer\":\"sw2\",\"peer_guid\":\"0x0000000000200001\",\"peer_port\":2}\n"
	"],\"lfts\":[\n"
	"{\"node\":\"sw1\",\"guid\":\"0x0000000000200000\",\"lid\":2,\"lft_top\":6,\"lost_blocks\":0,\"lft\":[255,1,0,3,2,3,5]},\n"
	"{\"node\":\"sw2\",\"guid\":\"0x0000000000200001\",\"lid\":3,\"lft_top\":6,\"lost_blocks\":0,\"lft\":[255,3,3,0,5,1,2]}\n"
	"]}\n";

/* doc with its one occurrence of old replaced by new (malloc'd). */
static char *edit(const char *old, const char *new)
{
	const char *at = strstr(doc, old);
	char *out;

	assert_non_null(at);
	assert_null(strstr(at + 1, old));
	assert_true(asprintf(&out, "%.*s%s%s", (int)(at - doc), doc, new, at + strlen(old)) > 0);
	return out;
}

static struct rd_tomo_fabric *parse(const char *text)
{
	struct rd_tomo_fabric *fab = NULL;
	char why[256] = "";

	if (rd_tomo_fabric_parse(text, strlen(text), &fab, why, sizeof(why)))
		fail_msg("refused: %s", why);
	assert_non_null(fab);
	return fab;
}

static void link_is(const struct rd_tomo_fabric *fab, uint32_t l, const char *text)
{
	char buf[128];

	rd_tomo_link_text(fab, l, buf, sizeof(buf));
	assert_string_equal(buf, text);
}

static void test_fabric_parse(void **state)
{
	struct rd_tomo_fabric *fab = parse(doc);
	struct rd_tomo_end a, b;
	size_t cas, sws, links;

	(void)state;
	rd_tomo_fabric_size(fab, &cas, &sws, &links);
	assert_int_equal(cas, 4);
	assert_int_equal(sws, 2);
	assert_int_equal(links, 6);
	link_is(fab, 0, "sw1 port 1 <-> h1 mlx5_0 port 1");
	link_is(fab, 1, "sw1 port 2 <-> h2 mlx5_0 port 1");
	link_is(fab, 2, "sw1 port 3 <-> sw2 port 3");
	link_is(fab, 3, "sw1 port 5 <-> sw2 port 5");
	link_is(fab, 4, "sw2 port 1 <-> h3 mlx5_0 port 1");
	link_is(fab, 5, "sw2 port 2 <-> h4 mlx5_0 port 1");
	rd_tomo_link_ends(fab, 5, &a, &b);
	assert_string_equal(a.node, "sw2");
	assert_int_equal(a.guid, 0x200001);
	assert_int_equal(a.port, 2);
	assert_false(a.ca);
	assert_string_equal(b.node, "h4 mlx5_0");
	assert_int_equal(b.guid, 0x100006);
	assert_int_equal(b.port, 1);
	assert_true(b.ca);
	rd_tomo_fabric_free(fab);
	rd_tomo_fabric_free(NULL);
}

/* text is refused with -EINVAL, nothing out, and why (or its start, when prefix). */
static void refused(const char *text, const char *why_want, bool prefix)
{
	struct rd_tomo_fabric *fab = (struct rd_tomo_fabric *)&fab;
	char why[256] = "";

	assert_int_equal(rd_tomo_fabric_parse(text, strlen(text), &fab, why, sizeof(why)), -EINVAL);
	assert_null(fab);
	if (prefix)
		assert_int_equal(strncmp(why, why_want, strlen(why_want)), 0);
	else
		assert_string_equal(why, why_want);
}

static void refused_edit(const char *old, const char *new, const char *why_want)
{
	char *text = edit(old, new);

	refused(text, why_want, false);
	free(text);
}

static void test_fabric_refused(void **state)
{
	char *text;

	(void)state;
	refused("", "not one JSON document", true);
	refused("rdma-fabric: no fabric", "not one JSON document", true);
	refused("{\"ports\":[", "not one JSON document", true);
	assert_true(asprintf(&text, "%s{}", doc) > 0);
	refused(text, "not one JSON document", true);
	free(text);
	refused("[]", "no \"ports\" array: not rdma-fabric --routes -j output", false);
	refused("{\"ports\":{}}", "no \"ports\" array: not rdma-fabric --routes -j output", false);
	refused_edit("],\"lfts\":[", "],\"tables\":[",
		     "no forwarding tables (\"lfts\"): make it with rdma-fabric --routes -j");
	refused("{\"ports\":[{\"node\":\"sw1\",\"guid\":\"0x1\",\"type\":\"Switch\",\"port\":1}],\"lfts\":[]}",
		"no CA in its ports", false);
	refused("{\"ports\":[7],\"lfts\":[]}", "ports[0]: not an object with node and type", false);

	/* each field's bounds */
	refused_edit("\"host\":\"h1\",\"port\":1,", "\"host\":\"h1\",\"port\":0,",
		     "ports[11]: port is not a number from 1 to 254");
	refused_edit("\"host\":\"h1\",\"port\":1,", "\"host\":\"h1\",\"port\":300,",
		     "ports[11]: port is not a number from 1 to 254");
	refused_edit("\"host\":\"h1\",\"port\":1,", "\"host\":\"h1\",\"port\":\"1\",",
		     "ports[11]: port is not a number from 1 to 254");
	refused_edit("\"guid\":\"0x0000000000100002\"", "\"guid\":\"0000000000100002\"",
		     "ports[12]: guid is not a 0x-prefixed 64-bit number");
	refused_edit("\"guid\":\"0x0000000000100002\"", "\"guid\":\"0x10000000000100002\"",
		     "ports[12]: guid is not a 0x-prefixed 64-bit number");
	refused_edit("\"guid\":\"0x0000000000100002\"", "\"guid\":\"0xh2\"",
		     "ports[12]: guid is not a 0x-prefixed 64-bit number");
	refused_edit("\"peer_guid\":\"0x0000000000100004\"", "\"peer_guid\":\"100004\"",
		     "ports[6]: peer_guid is not a 0x-prefixed 64-bit number");
	refused_edit("\"peer\":\"h4 mlx5_0\",\"peer_guid\":\"0x0000000000100006\",\"peer_port\":1",
		     "\"peer\":\"h4 mlx5_0\",\"peer_guid\":\"0x0000000000100006\",\"peer_port\":255",
		     "ports[7]: peer_port is not a number from 1 to 254");
	refused_edit("\"port\":1,\"lid\":1,", "\"port\":1,\"lid\":49152,",
		     "ports[11]: lid is not a unicast LID (0 to 0xbfff)");

	/* cables: h2 says it is on sw1's port 1, h1's */
	refused_edit("\"peer_guid\":\"0x0000000000200000\",\"peer_port\":2}",
		     "\"peer_guid\":\"0x0000000000200000\",\"peer_port\":1}",
		     "ports[12]: a port linked to two peers");
	refused_edit("\"port\":4,\"lid\":2,\"state\":\"Down\",\"phys_state\":\"Polling\"}",
		     "\"port\":4,\"lid\":2,\"peer\":\"sw1\",\"peer_guid\":\"0x200000\",\"peer_port\":4}",
		     "ports[3]: a port linked to itself");

	/* the tables */
	refused_edit("[255,3,3,0,5,1,2]", "[255,3,3,0,5,300,2]", "lfts[1]: an entry that is not a port (0-255)");
	refused_edit("[255,3,3,0,5,1,2]", "[255,3,3,0,5,-1,2]", "lfts[1]: an entry that is not a port (0-255)");
	refused_edit("[255,3,3,0,5,1,2]", "[255,3,3,0,5,\"1\",2]",
		     "lfts[1]: an entry that is not a port (0-255)");
	refused_edit("\"lft\":[255,3,3,0,5,1,2]", "\"lft\":{}", "lfts[1]: no lft array");
	refused_edit("{\"node\":\"sw2\",\"guid\":\"0x0000000000200001\",\"lid\":3",
		     "{\"node\":\"sw2\",\"guid\":\"0x0000000000100000\",\"lid\":3",
		     "lfts[1]: the table of a node that is not a switch of the ports");
	refused_edit("{\"node\":\"sw2\",\"guid\":\"0x0000000000200001\",\"lid\":3",
		     "{\"node\":\"sw2\",\"guid\":\"0x0000000000200000\",\"lid\":3",
		     "lfts[1]: a second table of the same switch");
}

/* A second CA on h1, "h1 mlx5_1" (LID 7), on sw1's port 4. */
static char *two_rails(void)
{
	char *a = edit("\"port\":4,\"lid\":2,\"state\":\"Down\",\"phys_state\":\"Polling\"}",
		       "\"port\":4,\"lid\":2,\"peer\":\"h1 mlx5_1\",\"peer_guid\":\"0x0000000000100001\","
		       "\"peer_port\":1}"), *b;
	const char *tail = "\"peer_port\":2}\n],";
	const char *at = strstr(a, tail);

	assert_non_null(at);
	assert_true(asprintf(&b, "%.*s\"peer_port\":2},\n{\"node\":\"h1 mlx5_1\",\"guid\":\"0x0000000000100001\","
			     "\"type\":\"CA\",\"host\":\"h1\",\"port\":1,\"lid\":7,\"peer\":\"sw1\","
			     "\"peer_guid\":\"0x0000000000200000\",\"peer_port\":4}\n],%s",
			     (int)(at - a), a, at + strlen(tail)) > 0);
	free(a);
	return b;
}

static void test_end_find(void **state)
{
	struct rd_tomo_fabric *fab = parse(doc);
	uint32_t node, h1;
	unsigned int port;
	uint16_t lid;
	bool known;
	char why[256], *text;

	(void)state;
	assert_int_equal(rd_tomo_end_find(fab, "h1", "mlx5_0", 0, NULL, &h1, &port, &lid, &known, why,
					  sizeof(why)), 0);
	assert_int_equal(port, 1);
	assert_int_equal(lid, 1);
	assert_true(known);
	/* no device: the host's only CA; a full name: its host part */
	assert_int_equal(rd_tomo_end_find(fab, "h1", NULL, 1, NULL, &node, &port, &lid, &known, why,
					  sizeof(why)), 0);
	assert_int_equal(node, h1);
	assert_int_equal(lid, 1);
	assert_int_equal(rd_tomo_end_find(fab, "h3.cluster.example", "mlx5_0", 0, NULL, &node, &port, &lid,
					  &known, why, sizeof(why)), 0);
	assert_int_equal(lid, 5);
	assert_true(known);

	assert_int_equal(rd_tomo_end_find(fab, "h9", "mlx5_0", 0, NULL, &node, &port, &lid, &known, why,
					  sizeof(why)), -ENOENT);
	assert_false(known);
	assert_string_equal(why, "no CA of host h9 on the fabric");
	assert_int_equal(rd_tomo_end_find(fab, "h", NULL, 0, NULL, &node, &port, &lid, &known, why,
					  sizeof(why)), -ENOENT);
	assert_false(known);
	assert_int_equal(rd_tomo_end_find(fab, "h1", "mlx5_1", 0, NULL, &node, &port, &lid, &known, why,
					  sizeof(why)), -ENOENT);
	assert_true(known);
	assert_string_equal(why, "no CA 'h1 mlx5_1' on the fabric");
	assert_int_equal(rd_tomo_end_find(fab, "h1", "mlx5_0", 2, NULL, &node, &port, &lid, &known, why,
					  sizeof(why)), -ENOENT);
	assert_true(known);
	assert_string_equal(why, "h1 mlx5_0 port 2 has no LID on the fabric");
	rd_tomo_fabric_free(fab);

	/* two rails on h1: the device, else the preferred one, else no guess */
	text = two_rails();
	fab = parse(text);
	free(text);
	assert_int_equal(rd_tomo_end_find(fab, "h1", "mlx5_1", 0, NULL, &node, &port, &lid, &known, why,
					  sizeof(why)), 0);
	assert_int_equal(lid, 7);
	assert_int_equal(rd_tomo_end_find(fab, "h1", NULL, 0, "mlx5_1", &node, &port, &lid, &known, why,
					  sizeof(why)), 0);
	assert_int_equal(lid, 7);
	assert_int_equal(rd_tomo_end_find(fab, "h1", NULL, 0, "mlx5_0", &node, &port, &lid, &known, why,
					  sizeof(why)), 0);
	assert_int_equal(lid, 1);
	assert_int_equal(rd_tomo_end_find(fab, "h1", NULL, 0, "mlx5_9", &node, &port, &lid, &known, why,
					  sizeof(why)), -ENOENT);
	assert_true(known);
	assert_string_equal(why, "host h1 has 2 CAs on the fabric and the mesh line names no rail");
	rd_tomo_fabric_free(fab);
}

/* The ends of h1, h3 and h4 on fab. */
static void ends(const struct rd_tomo_fabric *fab, uint32_t node[3], uint16_t lid[3])
{
	static const char *const host[3] = { "h1", "h3", "h4" };
	unsigned int port;
	bool known;
	char why[256];

	for (int k = 0; k < 3; k++) {
		assert_int_equal(rd_tomo_end_find(fab, host[k], "mlx5_0", 0, NULL, &node[k], &port, &lid[k],
						  &known, why, sizeof(why)), 0);
		assert_int_equal(port, 1);
	}
	assert_int_equal(lid[0], 1);
	assert_int_equal(lid[1], 5);
	assert_int_equal(lid[2], 6);
}

/* The route h1 -> h3 on doc edited from old to new: its return, links and why. */
static int route_edited(const char *old, const char *new, size_t *n, char *why, size_t len)
{
	char *text = edit(old, new);
	struct rd_tomo_fabric *fab = parse(text);
	uint32_t node[3], links[256];
	uint16_t lid[3];
	int rc;

	free(text);
	ends(fab, node, lid);
	*n = 0;
	rc = rd_tomo_route(fab, node[0], 1, lid[1], node[1], links, n, 256, why, len);
	rd_tomo_fabric_free(fab);
	return rc;
}

static void test_route(void **state)
{
	struct rd_tomo_fabric *fab = parse(doc);
	uint32_t node[3], links[8];
	uint16_t lid[3];
	size_t n = 0;
	char why[256] = "";

	(void)state;
	ends(fab, node, lid);
	/* h1 -> h3: h1-sw1, sw1-sw2 (port 3), sw2-h3 */
	assert_int_equal(rd_tomo_route(fab, node[0], 1, lid[1], node[1], links, &n, 8, why, sizeof(why)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(links[0], 0);
	assert_int_equal(links[1], 2);
	assert_int_equal(links[2], 4);
	/* appended: h3 -> h1 back the same way */
	assert_int_equal(rd_tomo_route(fab, node[1], 1, lid[0], node[0], links, &n, 8, why, sizeof(why)), 0);
	assert_int_equal(n, 6);
	assert_int_equal(links[3], 4);
	assert_int_equal(links[4], 2);
	assert_int_equal(links[5], 0);
	/* h1 -> h4 takes the other cable between the switches (sw1's table: LID 6 on port 5) */
	n = 0;
	assert_int_equal(rd_tomo_route(fab, node[0], 1, lid[2], node[2], links, &n, 8, why, sizeof(why)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(links[0], 0);
	assert_int_equal(links[1], 3);
	assert_int_equal(links[2], 5);
	/* no room */
	n = 0;
	assert_int_equal(rd_tomo_route(fab, node[0], 1, lid[1], node[1], links, &n, 2, why, sizeof(why)),
			 -ENOSPC);
	assert_int_equal(n, 2);
	/* h3's LID does not arrive at h4 */
	n = 0;
	assert_int_equal(rd_tomo_route(fab, node[0], 1, lid[1], node[2], links, &n, 8, why, sizeof(why)),
			 -EHOSTUNREACH);
	assert_string_equal(why, "LID 5 is delivered to h3 mlx5_0, not h4 mlx5_0");
	/* a port with no cable */
	n = 0;
	assert_int_equal(rd_tomo_route(fab, node[0], 2, lid[1], node[1], links, &n, 8, why, sizeof(why)),
			 -EHOSTUNREACH);
	assert_int_equal(n, 0);
	assert_string_equal(why, "h1 mlx5_0 port 2 is not linked");
	rd_tomo_fabric_free(fab);

	/* holes in sw2's table for LID 5, a loop, a down port, no table */
	assert_int_equal(route_edited("[255,3,3,0,5,1,2]", "[255,3,3,0,5,255,2]", &n, why, sizeof(why)),
			 -EHOSTUNREACH);
	assert_int_equal(n, 2);
	assert_string_equal(why, "sw2 has no entry for LID 5");
	assert_int_equal(route_edited("[255,3,3,0,5,1,2]", "[255,3,3,0,5,0,2]", &n, why, sizeof(why)),
			 -EHOSTUNREACH);
	assert_string_equal(why, "sw2 has no entry for LID 5");
	assert_int_equal(route_edited("[255,3,3,0,5,1,2]", "[255,3,3,0,5]", &n, why, sizeof(why)),
			 -EHOSTUNREACH);
	assert_string_equal(why, "sw2 has no entry for LID 5");
	assert_int_equal(route_edited("[255,3,3,0,5,1,2]", "[255,3,3,0,5,3,2]", &n, why, sizeof(why)),
			 -EHOSTUNREACH);
	assert_int_equal(n, 65);
	assert_string_equal(why, "the route to LID 5 loops (past 64 hops at sw1)");
	assert_int_equal(route_edited("[255,3,3,0,5,1,2]", "[255,3,3,0,5,8,2]", &n, why, sizeof(why)),
			 -EHOSTUNREACH);
	assert_int_equal(n, 2);
	assert_string_equal(why, "sw2 port 8 is not linked");
	assert_int_equal(route_edited(",\n{\"node\":\"sw2\",\"guid\":\"0x0000000000200001\",\"lid\":3,\"lft_top\":6,"
				      "\"lost_blocks\":0,\"lft\":[255,3,3,0,5,1,2]}", "", &n, why, sizeof(why)),
			 -EHOSTUNREACH);
	assert_int_equal(n, 2);
	assert_string_equal(why, "no forwarding table of sw2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_link),
		cmocka_unit_test(test_two_links),
		cmocka_unit_test(test_tie),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_min_bad),
		cmocka_unit_test(test_fabric_parse),
		cmocka_unit_test(test_fabric_refused),
		cmocka_unit_test(test_end_find),
		cmocka_unit_test(test_route),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/* rd_strmap: every key found again with its value, composite keys, growth, NUL bytes. */
#include "unit.h"

#include "base/base.h"

static void test_basic(void **state)
{
	struct rd_strmap m = { 0 };
	size_t v;

	(void)state;
	assert_false(rd_strmap_sget(&m, "a", &v));
	v = 7;
	assert_int_equal(rd_strmap_sget_or_add(&m, "a", &v), 0);
	v = 8;
	assert_int_equal(rd_strmap_sget_or_add(&m, "a", &v), 1);
	assert_int_equal(v, 7);	/* the value it was added with */
	assert_true(rd_strmap_sget(&m, "a", &v));
	assert_int_equal(v, 7);
	assert_int_equal(rd_strmap_set(&m, "a", 1, 42), 0);
	assert_true(rd_strmap_sget(&m, "a", &v));
	assert_int_equal(v, 42);
	assert_int_equal(rd_strmap_set(&m, "b", 1, 43), 0);
	assert_int_equal(m.n, 2);
	/* "" is a key like any other; a prefix is not the key */
	assert_false(rd_strmap_sget(&m, "", &v));
	v = 1;
	assert_int_equal(rd_strmap_sget_or_add(&m, "", &v), 0);
	assert_true(rd_strmap_sget(&m, "", &v));
	assert_false(rd_strmap_get(&m, "ab", 2, &v));
	rd_strmap_free(&m);
	assert_int_equal(m.n, 0);
	rd_strmap_free(&m);	/* twice is harmless */
}

/* 200,000 keys: each found with its own value, absent ones not found. */
static void test_many(void **state)
{
	struct rd_strmap m = { 0 };
	char k[32];
	size_t v;

	(void)state;
	for (size_t i = 0; i < 200000; i++) {
		snprintf(k, sizeof(k), "node%06zu", i);
		v = i;
		assert_int_equal(rd_strmap_sget_or_add(&m, k, &v), 0);
	}
	assert_int_equal(m.n, 200000);
	assert_true(m.cap >= 2 * m.n);
	for (size_t i = 0; i < 200000; i++) {
		snprintf(k, sizeof(k), "node%06zu", i);
		assert_true(rd_strmap_sget(&m, k, &v));
		assert_int_equal(v, i);
		snprintf(k, sizeof(k), "node%06zux", i);
		assert_false(rd_strmap_sget(&m, k, &v));
	}
	rd_strmap_free(&m);
}

/* Composite keys: parts are kept apart, a missing part differs from "". */
static void test_key(void **state)
{
	struct rd_strmap m = { 0 };
	const char *ab_c[] = { "ab", "c" }, *a_bc[] = { "a", "bc" }, *a_null[] = { "a", NULL },
		   *a_empty[] = { "a", "" };
	struct rd_strmap_keybuf b1 = { 0 }, b2 = { 0 };
	char longpart[300];
	const char *long_c[] = { longpart, "c" };
	size_t l1, l2, v = 1;

	(void)state;
	l1 = rd_strmap_key(&b1, ab_c, 2);
	l2 = rd_strmap_key(&b2, a_bc, 2);
	assert_int_equal(l1, 5);
	assert_int_equal(l2, 5);
	assert_int_equal(rd_strmap_get_or_add(&m, b1.s, l1, &v), 0);
	v = 2;
	assert_int_equal(rd_strmap_get_or_add(&m, b2.s, l2, &v), 0);
	l1 = rd_strmap_key(&b1, a_null, 2);
	l2 = rd_strmap_key(&b2, a_empty, 2);
	assert_true(l1 != l2 || memcmp(b1.s, b2.s, l1) != 0);
	v = 3;
	assert_int_equal(rd_strmap_get_or_add(&m, b1.s, l1, &v), 0);
	v = 4;
	assert_int_equal(rd_strmap_get_or_add(&m, b2.s, l2, &v), 0);
	assert_int_equal(m.n, 4);
	/* a key longer than the room so far: the room grows, the key is whole */
	memset(longpart, 'x', sizeof(longpart) - 1);
	longpart[sizeof(longpart) - 1] = '\0';
	l1 = rd_strmap_key(&b1, long_c, 2);
	assert_int_equal(l1, sizeof(longpart) + 2);
	assert_true(b1.cap >= l1);
	assert_memory_equal(b1.s, longpart, sizeof(longpart));
	assert_string_equal(b1.s + sizeof(longpart), "c");
	free(b1.s);
	free(b2.s);
	rd_strmap_free(&m);
}

/* The pool: each copy whole and NUL-terminated, long ones in blocks of their own. */
static void test_pool(void **state)
{
	struct rd_strpool p = { 0 };
	static char big[100000];
	char *small[3000], *long1 = NULL, *after;
	char k[32];

	(void)state;
	memset(big, 'y', sizeof(big) - 1);
	for (size_t i = 0; i < 3000; i++) {
		snprintf(k, sizeof(k), "host%04zu", i);
		small[i] = rd_strpool_sdup(&p, k);
		assert_non_null(small[i]);
		if (i == 1000) {
			long1 = rd_strpool_sdup(&p, big);
			assert_non_null(long1);
		}
	}
	after = rd_strpool_dup(&p, "abc", 2);	/* len bytes, then a NUL */
	assert_string_equal(after, "ab");
	for (size_t i = 0; i < 3000; i++) {
		snprintf(k, sizeof(k), "host%04zu", i);
		assert_string_equal(small[i], k);
	}
	assert_int_equal(strlen(long1), sizeof(big) - 1);
	assert_int_equal(rd_strpool_sdup(&p, "")[0], '\0');
	rd_strpool_free(&p);
	assert_null(p.blocks);
	rd_strpool_free(&p);	/* twice is harmless */
}

/* Reserved room: no growth while the keys go in, and the keys before stay. */
static void test_reserve(void **state)
{
	struct rd_strmap m = { 0 };
	size_t v = 5, cap;
	char k[32];

	(void)state;
	assert_int_equal(rd_strmap_sget_or_add(&m, "first", &v), 0);
	assert_int_equal(rd_strmap_reserve(&m, 10000), 0);
	cap = m.cap;
	assert_true(cap >= 2 * 10001);
	for (size_t i = 0; i < 10000; i++) {
		snprintf(k, sizeof(k), "n%zu", i);
		v = i;
		assert_int_equal(rd_strmap_sget_or_add(&m, k, &v), 0);
	}
	assert_int_equal(m.cap, cap);
	assert_true(rd_strmap_sget(&m, "first", &v));
	assert_int_equal(v, 5);
	assert_int_equal(rd_strmap_reserve(&m, 0), 0);
	assert_int_equal(m.cap, cap);
	assert_int_equal(rd_strmap_reserve(&m, SIZE_MAX / 2), -ENOMEM);
	rd_strmap_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_reserve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

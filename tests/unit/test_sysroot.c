// SPDX-License-Identifier: MIT
#include "unit.h"

#include "base/parse.h"
#include "sysroot/sysroot.h"
#include "base/util.h"

static void test_parse_u64(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(rd_parse_u64("42\n", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(rd_parse_u64("  18446744073709551615 ", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(rd_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(rd_parse_u64("", &v), -ENODATA);
	assert_int_equal(rd_parse_u64("   \n", &v), -ENODATA);
	assert_int_equal(rd_parse_u64("-1", &v), -EINVAL);
	assert_int_equal(rd_parse_u64("12abc", &v), -EINVAL);
	assert_int_equal(rd_parse_u64("0x10", &v), -EINVAL);
	assert_int_equal(rd_parse_u64("abc", &v), -EINVAL);
}

static void test_parse_hex(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(rd_parse_hex("0x1a", &v), 0);
	assert_int_equal(v, 0x1a);
	assert_int_equal(rd_parse_hex("2651e848\n", &v), 0);
	assert_int_equal(v, 0x2651e848);
	assert_int_equal(rd_parse_hex("0xZZ", &v), -EINVAL);
	assert_int_equal(rd_parse_hex("0x", &v), -EINVAL);
	assert_int_equal(rd_parse_hex("", &v), -ENODATA);
	assert_int_equal(rd_parse_hex("0x10000000000000000", &v), -ERANGE);
}

static void test_parse_gid(void **state)
{
	uint8_t g[16];
	static const uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 42, 8 };

	(void)state;
	assert_int_equal(rd_parse_gid("0000:0000:0000:0000:0000:ffff:c0a8:2a08\n", g), 0);
	assert_memory_equal(g, v4, 16);
	assert_int_equal(rd_parse_gid("fe80:0000:0000:0000:0e42:a1ff:fe65:8b1e", g), 0);
	assert_int_equal(g[0], 0xfe);
	assert_int_equal(g[15], 0x1e);
	assert_int_equal(rd_parse_gid("fe80:0000:0000", g), -EINVAL);
	assert_int_equal(rd_parse_gid("zzzz:0000:0000:0000:0000:ffff:c0a8:2a08", g), -EINVAL);
	assert_int_equal(rd_parse_gid("", g), -ENODATA);
}

static void test_parse_enum(void **state)
{
	uint64_t v;
	char name[32];

	(void)state;
	assert_int_equal(rd_parse_enum("4: ACTIVE\n", &v, name, sizeof(name)), 0);
	assert_int_equal(v, 4);
	assert_string_equal(name, "ACTIVE");
	assert_int_equal(rd_parse_enum("4", &v, name, sizeof(name)), 0);
	assert_string_equal(name, "");
	assert_int_equal(rd_parse_enum("7: Phy Test", &v, name, sizeof(name)), 0);
	assert_string_equal(name, "Phy Test");
	assert_int_equal(rd_parse_enum("ACTIVE", &v, name, sizeof(name)), -EINVAL);
	assert_int_equal(rd_parse_enum("4x: foo", &v, name, sizeof(name)), -EINVAL);
	assert_int_equal(rd_parse_enum("", &v, name, sizeof(name)), -ENODATA);
}

static void test_natural_order(void **state)
{
	struct rd_strlist l = { 0 };
	const char *in[] = { "100", "2", "10", "0", "1", "foo", "mlx5_10", "mlx5_2", "007" };
	const char *want[] = { "0", "1", "2", "007", "10", "100", "foo", "mlx5_2", "mlx5_10" };

	(void)state;
	for (size_t i = 0; i < RD_ARRAY_SIZE(in); i++)
		assert_int_equal(rd_strlist_add(&l, in[i]), 0);
	rd_strlist_sort_natural(&l);
	for (size_t i = 0; i < RD_ARRAY_SIZE(want); i++)
		assert_string_equal(l.v[i], want[i]);
	rd_strlist_free(&l);
	/* Equal in value, different names: still a total order (qsort is not stable). */
	assert_true(rd_natural_cmp("3", "03") != 0);
	assert_true(rd_natural_cmp("3", "03") == -rd_natural_cmp("03", "3"));
	assert_true(rd_natural_cmp("h3", "h03") != 0);
	assert_int_equal(rd_natural_cmp("mlx5_2", "mlx5_2"), 0);
}

static void test_rooted_reads(void **state)
{
	struct rd_sysroot sr;
	struct rd_strlist l = { 0 };
	char buf[16];
	uint64_t v;
	uint8_t gid[16];

	(void)state;
	scratch_make();
	put("sys/class/infiniband/x/ports/1/gids/0", "fe80:0000:0000:0000:0000:0000:0000:0001\n");
	put("sys/class/infiniband/x/ports/1/gids/10", "0000:0000:0000:0000:0000:0000:0000:0000\n");
	put("sys/class/infiniband/x/ports/1/gids/2", "0000:0000:0000:0000:0000:0000:0000:0000\n");
	put("sys/class/infiniband/x/ports/1/gids/100", "0000:0000:0000:0000:0000:0000:0000:0000\n");
	put("sys/class/infiniband/x/ports/1/lid", "0x1a\n");
	put("sys/class/infiniband/x/ports/1/sm_sl", "0\n");
	put("sys/class/infiniband/x/long", "0123456789abcdefXYZ\n");
	put("sys/class/infiniband/x/empty", "");
	mkdirs("sys/class/infiniband/x/adir");
	{
		char p[512];

		snprintf(p, sizeof(p), "%s/sys/class/infiniband/x/bin", scratch);
		FILE *f = fopen(p, "w");

		assert_non_null(f);
		fwrite("4\0ACTIVE", 1, 8, f);
		fclose(f);
	}

	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	assert_false(rd_sysroot_is_live(&sr));
	assert_int_equal(rd_sys_list(&sr, &l, "/sys/class/infiniband/%s/ports/1/gids", "x"), 0);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0], "0");
	assert_string_equal(l.v[1], "2");
	assert_string_equal(l.v[2], "10");
	assert_string_equal(l.v[3], "100");
	rd_strlist_free(&l);

	assert_int_equal(rd_sys_read_hex(&sr, &v, "/sys/class/infiniband/x/ports/1/lid"), 0);
	assert_int_equal(v, 0x1a);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/class/infiniband/x/ports/1/lid"), -EINVAL);
	assert_int_equal(rd_sys_read_gid(&sr, gid, "/sys/class/infiniband/x/ports/1/gids/0"), 0);
	assert_int_equal(gid[15], 1);
	assert_int_equal(rd_sys_read_str(&sr, buf, sizeof(buf), "/sys/class/infiniband/x/long"),
			 -EOVERFLOW);
	assert_int_equal(rd_sys_read_str(&sr, buf, sizeof(buf), "/sys/class/infiniband/x/empty"), 0);
	assert_string_equal(buf, "");
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/class/infiniband/x/empty"), -ENODATA);
	assert_int_equal(rd_sys_read_str(&sr, buf, sizeof(buf), "/sys/class/infiniband/x/missing"),
			 -ENOENT);
	assert_int_equal(rd_sys_read_str(&sr, buf, sizeof(buf), "/sys/class/infiniband/x/adir"),
			 -EISDIR);
	assert_int_equal(rd_sys_read_str(&sr, buf, sizeof(buf), "/sys/class/infiniband/x/bin"),
			 -EILSEQ);
	assert_true(rd_sys_exists(&sr, "/sys/class/infiniband/x/ports/1"));
	assert_false(rd_sys_exists(&sr, "/sys/class/infiniband/y"));
	scratch_remove();
}

static void test_sysroot_init(void **state)
{
	struct rd_sysroot sr;

	(void)state;
	assert_int_equal(rd_sysroot_init(&sr, NULL), 0);
	assert_true(rd_sysroot_is_live(&sr));
	assert_int_equal(rd_sysroot_init(&sr, "/"), 0);
	assert_true(rd_sysroot_is_live(&sr));
	assert_int_equal(rd_sysroot_init(&sr, "/nonexistent-rd-dir"), -ENOENT);
	assert_int_equal(rd_sysroot_init(&sr, "/etc/hostname"), -ENOTDIR);
	assert_int_equal(rd_sysroot_init(&sr, "/tmp///"), 0);
	assert_string_equal(sr.root, "/tmp");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_hex),
		cmocka_unit_test(test_parse_gid),
		cmocka_unit_test(test_parse_enum),
		cmocka_unit_test(test_natural_order),
		cmocka_unit_test(test_rooted_reads),
		cmocka_unit_test(test_sysroot_init),
	};

	return cmocka_run_group_tests_name("sysroot", tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
#include "unit.h"

#include <ctype.h>

#include <math.h>
#include <pthread.h>
#include <unistd.h>

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

/* What a user writes: decimal digits, nothing else; times with a unit. */
static void test_parse_user_numbers(void **state)
{
	static const char *const not_whole[] = { "0x2", "2.0", "1e3", "+2", " 2", "2 ", "nan", "-1", "2\n", "" };
	static const char *const not_time[] = { "1e3", "0x2", "nan", "inf", "-1", "+1", "1.5.2", "5sec",
						"2 s", " 2", ".", "ms", "1h", "" };
	static const struct {
		const char *s;
		double secs;
	} times[] = { { "2", 2 }, { "0.5", 0.5 }, { ".5", 0.5 }, { "5.", 5 }, { "500ms", 0.5 },
		      { "2s", 2 }, { "1.5m", 90 }, { "0", 0 }, { "0ms", 0 } };
	uint64_t v = 7;
	double d = 7;

	(void)state;
	assert_int_equal(rd_parse_uint("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rd_parse_uint("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(rd_parse_uint("18446744073709551616", &v), -ERANGE);
	for (size_t i = 0; i < sizeof(not_whole) / sizeof(not_whole[0]); i++)
		assert_int_not_equal(rd_parse_uint(not_whole[i], &v), 0);
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		assert_int_equal(rd_parse_duration(times[i].s, &d), 0);
		assert_true(fabs(d - times[i].secs) < 1e-9);
	}
	for (size_t i = 0; i < sizeof(not_time) / sizeof(not_time[0]); i++)
		assert_int_not_equal(rd_parse_duration(not_time[i], &d), 0);
	assert_int_equal(rd_parse_decimal("0.25", &d), 0);
	assert_true(fabs(d - 0.25) < 1e-12);
	assert_int_not_equal(rd_parse_decimal("1ms", &d), 0);
	assert_int_not_equal(rd_parse_decimal("1e2", &d), 0);
	assert_int_equal(rd_parse_decimal("1234567890123456789", &d), -ERANGE);
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

static int sign(int x)
{
	return (x > 0) - (x < 0);
}

/* The order by definition: strverscmp from the start of the run of digits the names first differ in. */
static int natural_ref(const char *a, const char *b)
{
	bool da = strspn(a, "0123456789") == strlen(a), db = strspn(b, "0123456789") == strlen(b);
	size_t i = 0;
	int r;

	if (da != db)
		return da ? -1 : 1;	/* plain numbers first */
	while (a[i] == b[i] && a[i])
		i++;
	if (!isdigit((unsigned char)a[i]) && !isdigit((unsigned char)b[i]))
		return (unsigned char)a[i] - (unsigned char)b[i];
	while (i > 0 && isdigit((unsigned char)a[i - 1]))
		i--;
	r = strverscmp(a + i, b + i);
	return r ? r : strcmp(a, b);
}

/*
 * Digit runs of one length are compared without strverscmp: the same order
 * for every pair of names of up to four characters of "019a." (names
 * that are all digits have their own rule), and PCI addresses, whose hex
 * buses put "1b" before "10".
 */
static void test_natural_runs(void **state)
{
	static const char alpha[] = "019a.";
	static char names[800][8];
	size_t n = 0;

	(void)state;
	for (size_t len = 1; len <= 4; len++) {
		size_t total = 1;

		for (size_t k = 0; k < len; k++)
			total *= 5;
		for (size_t x = 0; x < total; x++) {
			size_t y = x;

			for (size_t k = 0; k < len; k++, y /= 5)
				names[n][k] = alpha[y % 5];
			names[n][len] = '\0';
			n++;
		}
	}
	for (size_t i = 0; i < n; i++) {
		bool di = strspn(names[i], "0123456789") == strlen(names[i]);

		for (size_t j = 0; j < n; j++) {
			if (di && strspn(names[j], "0123456789") == strlen(names[j]))
				continue;
			if (sign(rd_natural_cmp(names[i], names[j])) != sign(natural_ref(names[i], names[j])))
				fail_msg("\"%s\" vs \"%s\"", names[i], names[j]);
		}
	}
	assert_true(rd_natural_cmp("0000:1b:00.0", "0000:10:00.0") < 0);
	assert_true(rd_natural_cmp("0000:3b:00.0", "0000:1b:00.0") > 0);
	assert_true(rd_natural_cmp("0000:1b:00.1", "0000:1b:00.0") > 0);
	assert_true(rd_natural_cmp("0000:09:00.0", "0000:10:00.0") < 0);
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

static int open_fds(void)
{
	struct rd_strlist l = { 0 };
	struct rd_sysroot live;
	int n;

	assert_int_equal(rd_sysroot_init(&live, NULL), 0);
	assert_int_equal(rd_sys_list(&live, &l, "/proc/self/fd"), 0);
	n = (int)l.n;
	rd_strlist_free(&l);
	return n;
}

static void *read_in_thread(void *arg)
{
	const struct rd_sysroot *sr = arg;
	char buf[32];

	for (int d = 0; d < 3; d++)
		if (rd_sys_read_str(sr, buf, sizeof(buf), "/sys/d%d/v", d) != 0)
			return (void *)1;
	return NULL;
}

/*
 * Files are opened through cached descriptors of their directories.  The
 * cache must never change what is read: a directory removed and made again,
 * more directories than the cache holds, paths with every conversion, a
 * thread's descriptors closed when it ends, and rd_sysroot_forget() for a
 * directory moved aside while its path got a new one.
 */
static void test_dircache(void **state)
{
	struct rd_sysroot sr;
	char p[1024], q[1024];
	uint64_t v;
	pthread_t th;
	void *res;
	int before;

	(void)state;
	scratch_make();
	for (int d = 0; d < 300; d++) {
		char rel[64], val[16];

		snprintf(rel, sizeof(rel), "sys/d%d/v", d);
		snprintf(val, sizeof(val), "%d\n", d);
		put(rel, val);
	}
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	rd_sysroot_forget();
	before = open_fds();
	/* Three hundred directories, twice round: more than the cache holds (128). */
	for (int round = 0; round < 2; round++) {
		for (int d = 0; d < 300; d++) {
			assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d%d/v", d), 0);
			assert_int_equal(v, (uint64_t)d);
		}
	}
	/* The formats: %s, %u, %d, %%, and one the fast path leaves to vsnprintf. */
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/%s/d%u/%s", "sys", 7u, "v"), 0);
	assert_int_equal(v, 7);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d%02d/v", 7), -ENOENT);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d%.1s/v", "19"), 0);
	assert_int_equal(v, 1);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d%d/v", -1), -ENOENT);
	put("sys/d-1/v", "41\n");
	put("sys/100%/v", "42\n");
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d%d/v", -1), 0);
	assert_int_equal(v, 41);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/100%%/v"), 0);
	assert_int_equal(v, 42);
	/* Removed and made again (a device unplugged and back): the new file. */
	for (int i = 0; i < 3; i++)	/* asked for again: now through a cached descriptor */
		assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d3/v"), 0);
	snprintf(p, sizeof(p), "%s/sys/d3/v", scratch);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/sys/d3", scratch);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d3/v"), -ENOENT);
	put("sys/d3/v", "33\n");
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d3/v"), 0);
	assert_int_equal(v, 33);
	/* Absent from a directory that is still there: -ENOENT, and the file once it is made. */
	for (int i = 0; i < 3; i++)
		assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d5/v"), 0);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d5/absent"), -ENOENT);
	put("sys/d5/absent", "55\n");
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d5/absent"), 0);
	assert_int_equal(v, 55);
	/* Moved aside and replaced (a device renamed): forget, then the new one. */
	for (int i = 0; i < 3; i++)
		assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d4/v"), 0);
	snprintf(p, sizeof(p), "%s/sys/d4", scratch);
	snprintf(q, sizeof(q), "%s/sys/d4.old", scratch);
	assert_int_equal(rename(p, q), 0);
	put("sys/d4/v", "44\n");
	rd_sysroot_forget();
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/d4/v"), 0);
	assert_int_equal(v, 44);
	/*
	 * Below a cached directory (a bridge's, for its function's): a file
	 * read the first time from the parent's descriptor, a child made
	 * again read anew, the parent made again too.
	 */
	put("sys/p/x", "1\n");
	put("sys/p/c/v", "2\n");
	for (int i = 0; i < 3; i++)
		assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/p/x"), 0);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/p/c/v"), 0);
	assert_int_equal(v, 2);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/p/c/absent"), -ENOENT);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/p/c/v"), 0);
	assert_int_equal(v, 2);
	snprintf(p, sizeof(p), "%s/sys/p/c/v", scratch);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/sys/p/c", scratch);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/p/c/v"), -ENOENT);
	put("sys/p/c/v", "3\n");
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/p/c/v"), 0);
	assert_int_equal(v, 3);
	snprintf(p, sizeof(p), "%s/sys/p", scratch);
	snprintf(q, sizeof(q), "%s/sys/p.old", scratch);
	assert_int_equal(rename(p, q), 0);
	put("sys/p/x", "4\n");
	put("sys/p/c/v", "5\n");
	snprintf(p, sizeof(p), "%s/sys/p.old/c/v", scratch);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/sys/p.old/c", scratch);
	assert_int_equal(rmdir(p), 0);
	snprintf(p, sizeof(p), "%s/sys/p.old/x", scratch);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/sys/p.old", scratch);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/p/c/v"), 0);
	assert_int_equal(v, 5);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/p/x"), 0);
	assert_int_equal(v, 4);
	/* A string longer than the path buffer is refused, not cut. */
	{
		static char longname[RD_PATH_MAX + 16];
		char buf[32];

		memset(longname, 'a', sizeof(longname) - 1);
		assert_int_equal(rd_sys_read_str(&sr, buf, sizeof(buf), "/sys/%s", longname),
				 -ENAMETOOLONG);
	}
	/* A thread's descriptors close with it; forget closes this thread's. */
	assert_int_equal(pthread_create(&th, NULL, read_in_thread, &sr), 0);
	assert_int_equal(pthread_join(th, &res), 0);
	assert_null(res);
	rd_sysroot_forget();
	assert_int_equal(open_fds(), before);
	scratch_remove();
}

/*
 * A directory held open for several files: the readers' results and errors
 * as by path, a directory that cannot be opened giving its error to every
 * read, and a descriptor taken back from the cache after its directory was
 * removed and made again reading the new files.
 */
static void test_dir_handle(void **state)
{
	struct rd_sysroot sr;
	struct rd_sys_dir d;
	char buf[32], p[1024];
	uint8_t bytes[16];
	size_t got;
	uint64_t v;
	int before;

	(void)state;
	scratch_make();
	put("sys/h/a", "7\n");
	put("sys/h/x", "0x1f\n");
	put("sys/h/s", "text \n");
	put("sys/h/empty", "");
	put("sys/h/cfg", "0123456789");
	put("sys/h/sub/v", "9\n");
	mkdirs("sys/h/adir");
	snprintf(p, sizeof(p), "%s/sys/h/dangle", scratch);
	assert_int_equal(symlink("nowhere", p), 0);
	put("sys/g/v", "1\n");
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	rd_sysroot_forget();
	before = open_fds();

	assert_int_equal(rd_sys_dir_open(&sr, &d, "/sys/%s/", "h"), 0);
	assert_int_equal(rd_sys_dir_read_u64(&d, "a", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(rd_sys_dir_read_hex(&d, "x", &v), 0);
	assert_int_equal(v, 0x1f);
	assert_int_equal(rd_sys_dir_read_u64(&d, "x", &v), -EINVAL);
	assert_int_equal(rd_sys_dir_read_str(&d, "s", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "text");
	assert_int_equal(rd_sys_dir_read_str(&d, "s", buf, 4), -EOVERFLOW);
	assert_int_equal(rd_sys_dir_read_u64(&d, "empty", &v), -ENODATA);
	assert_int_equal(rd_sys_dir_read_str(&d, "missing", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(rd_sys_dir_read_str(&d, "adir", buf, sizeof(buf)), -EISDIR);
	assert_int_equal(rd_sys_dir_read_str(&d, "dangle", buf, sizeof(buf)), -ENOLINK);
	assert_int_equal(rd_sys_dir_read_u64(&d, "sub/v", &v), 0);
	assert_int_equal(v, 9);
	assert_int_equal(rd_sys_dir_read_bytes(&d, "cfg", bytes, 4, &got), 0);
	assert_int_equal(got, 4);
	assert_memory_equal(bytes, "0123", 4);
	assert_int_equal(rd_sys_dir_read_bytes(&d, "cfg", bytes, sizeof(bytes), &got), 0);
	assert_int_equal(got, 10);
	assert_int_equal(rd_sys_dir_read_bytes(&d, "adir", bytes, sizeof(bytes), &got), -EISDIR);
	assert_int_equal(got, 0);
	rd_sys_dir_close(&d);
	assert_int_equal(d.fd, -1);
	/* The same answers from a read by path of the same files. */
	assert_int_equal(rd_sys_read_str(&sr, buf, sizeof(buf), "/sys/h/dangle"), -ENOLINK);
	assert_int_equal(rd_sys_read_str(&sr, buf, sizeof(buf), "/sys/h/adir"), -EISDIR);

	/* Not a directory, or not there: the open's error, and every read's. */
	assert_int_equal(rd_sys_dir_open(&sr, &d, "/sys/none"), -ENOENT);
	assert_int_equal(rd_sys_dir_read_u64(&d, "a", &v), -ENOENT);
	assert_int_equal(rd_sys_dir_read_bytes(&d, "cfg", bytes, sizeof(bytes), &got), -ENOENT);
	rd_sys_dir_close(&d);
	assert_int_equal(rd_sys_dir_open(&sr, &d, "/sys/h/a"), -ENOTDIR);
	assert_int_equal(rd_sys_dir_read_str(&d, "x", buf, sizeof(buf)), -ENOTDIR);
	rd_sys_dir_close(&d);

	/* Removed and made again while its descriptor waited in the cache: the new files. */
	assert_int_equal(rd_sys_dir_open(&sr, &d, "/sys/g"), 0);
	assert_int_equal(rd_sys_dir_read_u64(&d, "v", &v), 0);
	assert_int_equal(v, 1);
	rd_sys_dir_close(&d);
	snprintf(p, sizeof(p), "%s/sys/g/v", scratch);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/sys/g", scratch);
	assert_int_equal(rmdir(p), 0);
	put("sys/g/v", "2\n");
	assert_int_equal(rd_sys_dir_open(&sr, &d, "/sys/g"), 0);
	assert_int_equal(rd_sys_dir_read_u64(&d, "v", &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(rd_sys_dir_read_u64(&d, "absent", &v), -ENOENT);
	rd_sys_dir_close(&d);
	/* Gone for good while its descriptor waited in the cache: -ENOENT, as by path. */
	snprintf(p, sizeof(p), "%s/sys/g/v", scratch);
	assert_int_equal(unlink(p), 0);
	snprintf(p, sizeof(p), "%s/sys/g", scratch);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rd_sys_dir_open(&sr, &d, "/sys/g"), 0);
	assert_int_equal(rd_sys_dir_read_u64(&d, "v", &v), -ENOENT);
	assert_int_equal(rd_sys_read_u64(&sr, &v, "/sys/g/v"), -ENOENT);
	rd_sys_dir_close(&d);

	/* Closed handles gave their descriptors to the cache; forget closes them all. */
	rd_sysroot_forget();
	assert_int_equal(open_fds(), before);
	scratch_remove();
}

static void test_numbered_sort(void **state)
{
	struct rd_strlist l = { 0 };
	char name[24];

	(void)state;
	/* 0..299 added in a scrambled order come back in numeric order. */
	for (unsigned int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "%u", (i * 7919u) % 300u);
		assert_int_equal(rd_strlist_add(&l, name), 0);
	}
	rd_strlist_sort_natural(&l);
	for (unsigned int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "%u", i);
		assert_string_equal(l.v[i], name);
	}
	rd_strlist_free(&l);
	/* 19 and 20 digits: the big one is past the fast path and still sorts. */
	assert_int_equal(rd_strlist_add(&l, "99999999999999999999"), 0);
	assert_int_equal(rd_strlist_add(&l, "9999999999999999999"), 0);
	assert_int_equal(rd_strlist_add(&l, "5"), 0);
	rd_strlist_sort_natural(&l);
	assert_string_equal(l.v[0], "5");
	assert_string_equal(l.v[1], "9999999999999999999");
	assert_string_equal(l.v[2], "99999999999999999999");
	rd_strlist_free(&l);
}

/*
 * rd_sys_link_resolved_name: the name a link leads to, read from its text
 * when the text ends in a plain name that is not a link itself, resolved
 * otherwise ("..", a link to a link), the text's name when nothing resolves.
 */
static void test_link_resolved_name(void **state)
{
	struct rd_sysroot sr;
	char p[512], t[512], buf[32];

	(void)state;
	scratch_make();
	mkdirs("sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0/infiniband/mlx5_0");
	mkdirs("sys/class/infiniband");
#define LN(target, link)                                              \
	do {                                                          \
		snprintf(p, sizeof(p), "%s/%s", scratch, link);       \
		snprintf(t, sizeof(t), "%s", target);                 \
		assert_int_equal(symlink(t, p), 0);                   \
	} while (0)
	LN("../../devices/pci0000:00/0000:00:02.0/0000:03:00.0/infiniband/mlx5_0",
	   "sys/class/infiniband/mlx5_0");
	LN("../../../0000:03:00.0", "sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0/infiniband/mlx5_0/device");
	LN("../..", "sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0/infiniband/mlx5_0/up");
	LN("device", "sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0/infiniband/mlx5_0/alias");
	LN("../../../0000:09:00.0", "sys/devices/pci0000:00/0000:00:02.0/0000:03:00.0/infiniband/mlx5_0/lost");
#undef LN
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	assert_int_equal(rd_sys_link_resolved_name(&sr, buf, sizeof(buf), "/sys/class/infiniband/mlx5_0/device"), 0);
	assert_string_equal(buf, "0000:03:00.0");
	assert_int_equal(rd_sys_link_resolved_name(&sr, buf, sizeof(buf), "/sys/class/infiniband/mlx5_0/up"), 0);
	assert_string_equal(buf, "0000:03:00.0");
	assert_int_equal(rd_sys_link_resolved_name(&sr, buf, sizeof(buf), "/sys/class/infiniband/mlx5_0/alias"), 0);
	assert_string_equal(buf, "0000:03:00.0");
	assert_int_equal(rd_sys_link_resolved_name(&sr, buf, sizeof(buf), "/sys/class/infiniband/mlx5_0/lost"), 0);
	assert_string_equal(buf, "0000:09:00.0");
	assert_int_equal(rd_sys_link_resolved_name(&sr, buf, 4, "/sys/class/infiniband/mlx5_0/device"),
			 -ENAMETOOLONG);
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
		cmocka_unit_test(test_parse_user_numbers),
		cmocka_unit_test(test_parse_hex),
		cmocka_unit_test(test_parse_gid),
		cmocka_unit_test(test_parse_enum),
		cmocka_unit_test(test_natural_order),
		cmocka_unit_test(test_natural_runs),
		cmocka_unit_test(test_rooted_reads),
		cmocka_unit_test(test_dircache),
		cmocka_unit_test(test_dir_handle),
		cmocka_unit_test(test_numbered_sort),
		cmocka_unit_test(test_link_resolved_name),
		cmocka_unit_test(test_sysroot_init),
	};

	return cmocka_run_group_tests_name("sysroot", tests, NULL, NULL);
}

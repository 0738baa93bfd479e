// SPDX-License-Identifier: MIT
#include "unit.h"

#include "base/hostlist.h"

/* Expand expr and compare with the space-separated names in want. */
static void expands_to(const char *expr, const char *want)
{
	struct rd_strlist l = { 0 };
	struct rd_hostlist_error e;
	char *got;

	assert_int_equal(rd_hostlist_expand(expr, &l, &e), 0);
	got = rd_strlist_join(&l, " ");
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
	rd_strlist_free(&l);
}

/* Malformed: -EINVAL, the output untouched, the column and message as given. */
static void rejects(const char *expr, size_t column, const char *msg)
{
	struct rd_strlist l = { 0 };
	struct rd_hostlist_error e;

	assert_int_equal(rd_strlist_add(&l, "keep"), 0);
	assert_int_equal(rd_hostlist_expand(expr, &l, &e), -EINVAL);
	assert_int_equal(l.n, 1);
	assert_string_equal(e.msg, msg);
	assert_int_equal(e.column, column);
	assert_int_equal(e.line, 0);
	rd_strlist_free(&l);
}

static void test_expand(void **state)
{
	(void)state;
	/* each range keeps its own width, as Slurm does (scontrol show hostnames) */
	expands_to("h[01-03,7],x", "h01 h02 h03 h7 x");
	expands_to("h[01-03,07]", "h01 h02 h03 h07");
	/* empty items are skipped, as Slurm does */
	expands_to("a,,b,", "a b");
	expands_to(",a, b", "a b");
	expands_to("node1", "node1");
	expands_to("vm[1-3]", "vm1 vm2 vm3");
	expands_to("n[8-11]", "n8 n9 n10 n11");
	expands_to("n[08-11]", "n08 n09 n10 n11");
	expands_to("n[001-3]", "n001 n002 n003");
	expands_to("r[1-2]n[1-3]", "r1n1 r1n2 r1n3 r2n1 r2n2 r2n3");
	expands_to("r[1-2]-n[01-02].ib", "r1-n01.ib r1-n02.ib r2-n01.ib r2-n02.ib");
	expands_to("10.10.0.[1-3]", "10.10.0.1 10.10.0.2 10.10.0.3");
	expands_to("a[3,1,2]", "a3 a1 a2");
	expands_to("a[5-5]", "a5");
	expands_to("[1-2]x", "1x 2x");
	expands_to("a b\tc\n", "a b c");
	expands_to("a,b c,d", "a b c d");
	expands_to("x,x", "x x");
	expands_to("", "");
	expands_to("  ", "");
	expands_to("n[999999999999999998-999999999999999999]",
		   "n999999999999999998 n999999999999999999");
}

static void test_errors(void **state)
{
	(void)state;
	rejects("h[1-3", 2, "'[' is never closed");
	rejects("h[1-", 2, "'[' is never closed");
	rejects("h[", 2, "'[' is never closed");
	rejects("h[1-3]]", 7, "']' without '['");
	rejects("h1]", 3, "']' without '['");
	rejects("h[3-1]", 3, "range 3-1 goes backwards");
	rejects("h[1-3,9-07]", 7, "range 9-07 goes backwards");
	rejects("h[]", 3, "expected a number, found ']'");
	rejects("h[a]", 3, "expected a number, found 'a'");
	rejects("h[1,]", 5, "expected a number, found ']'");
	rejects("h[1[2]]", 4, "unexpected '[' in brackets (want digits, '-', ',' or ']')");
	rejects("h[1;2]", 4, "unexpected ';' in brackets (want digits, '-', ',' or ']')");
	/* a space in a range, said so; one at the end of an unclosed group is not that */
	rejects("h[1-3 4]", 6, "a space inside brackets (none in a range: n[1,3], not n[1, 3])");
	rejects("h[1, 3]", 5, "a space inside brackets (none in a range: n[1,3], not n[1, 3])");
	rejects("h[1 -3]", 4, "a space inside brackets (none in a range: n[1,3], not n[1, 3])");
	rejects("h[1-\t3]", 5, "a space inside brackets (none in a range: n[1,3], not n[1, 3])");
	rejects("h[1-3 ", 2, "'[' is never closed");
	rejects("h[1-3 x", 2, "'[' is never closed");
	rejects("host:1", 5, "':' is not allowed in a host name");
	rejects("@group", 1, "'@' is not allowed in a host name");
	rejects("h\001", 2, "byte 0x01 is not allowed in a host name");
	rejects("n[1234567890123456789]", 3, "number longer than 18 digits");
	rejects("n[0-1000000]", 3, "range 0-1000000 has more than 1000000 names");
}

static void test_too_big(void **state)
{
	struct rd_strlist l = { 0 };
	struct rd_hostlist_error e;

	(void)state;
	/* 1000 x 1001 names in one item: refused before anything is generated */
	assert_int_equal(rd_hostlist_expand("a[1-1000]b[0-1000]", &l, &e), -EINVAL);
	assert_string_equal(e.msg, "'a[1-1000]b[0-1000]' expands to more than 1000000 names");
	assert_int_equal(l.n, 0);
	/* many items adding up */
	assert_int_equal(rd_hostlist_expand("a[1-999999],b[1-2]", &l, &e), -E2BIG);
	assert_int_equal(e.column, 13);
	assert_string_equal(e.msg, "the list expands to more than 1000000 names");
	assert_int_equal(l.n, 0);
	/* exactly the limit is fine */
	assert_int_equal(rd_hostlist_expand("a[1-1000]b[1-1000]", &l, NULL), 0);
	assert_int_equal(l.n, RD_HOSTLIST_MAX);
	assert_string_equal(l.v[1000], "a2b1");
	rd_strlist_free(&l);
}

static void test_hostfile(void **state)
{
	struct rd_strlist l = { 0 };
	struct rd_hostlist_error e;
	char path[300], *got;

	(void)state;
	scratch_make();
	put("hosts", "# the rack\nnode01\n\n  node02   # spare\nnode[03-04],login\n\t\n#end");
	snprintf(path, sizeof(path), "%s/hosts", scratch);
	assert_int_equal(rd_hostfile_read(path, 1000, &l, &e), 0);
	got = rd_strlist_join(&l, " ");
	assert_string_equal(got, "node01 node02 node03 node04 login");
	free(got);

	put("bad", "a\nb\nc[1-\n");
	snprintf(path, sizeof(path), "%s/bad", scratch);
	assert_int_equal(rd_hostfile_read(path, 1000, &l, &e), -EINVAL);
	assert_int_equal(e.line, 3);
	assert_int_equal(e.column, 2);
	assert_string_equal(e.msg, "'[' is never closed");
	assert_int_equal(l.n, 5); /* nothing from the bad file */

	snprintf(path, sizeof(path), "%s/none", scratch);
	assert_int_equal(rd_hostfile_read(path, 1000, &l, &e), -ENOENT);
	assert_string_equal(e.msg, "No such file or directory");
	rd_strlist_free(&l);
	scratch_remove();
}

static void compresses_to(const char *names, const char *want)
{
	struct rd_strlist l = { 0 }, back = { 0 }, uniq = { 0 };
	char *got, *a, *b;

	assert_int_equal(rd_hostlist_expand(names, &l, NULL), 0);
	got = rd_hostlist_compress(&l);
	assert_non_null(got);
	assert_string_equal(got, want);
	/* and back: the same set of names */
	assert_int_equal(rd_hostlist_expand(got, &back, NULL), 0);
	for (size_t i = 0; i < l.n; i++)
		assert_int_equal(rd_strlist_add_unique(&uniq, l.v[i]), 0);
	rd_strlist_sort_natural(&uniq);
	rd_strlist_sort_natural(&back);
	a = rd_strlist_join(&uniq, " ");
	b = rd_strlist_join(&back, " ");
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(got);
	rd_strlist_free(&l);
	rd_strlist_free(&back);
	rd_strlist_free(&uniq);
}

static void test_compress(void **state)
{
	(void)state;
	compresses_to("vm1,vm2,vm3", "vm[1-3]");
	compresses_to("n01,n02,n03,n07,x", "n[01-03,07],x");
	compresses_to("n7,n3,n5,n4", "n[3-5,7]");
	compresses_to("a1,b1,a2", "a[1-2],b1");
	compresses_to("n9,n10,n11", "n[9-11]");
	compresses_to("login,login,n1", "login,n1");
	compresses_to("n1,n1,n2", "n[1-2]");
	compresses_to("r1n1,r1n2,r2n1", "r1n[1-2],r2n1");
	compresses_to("n009,n010,n9", "n[9,009-010]");
	compresses_to("node[01-16]", "node[01-16]");
	compresses_to("vm[1-10]", "vm[1-10]");
	compresses_to("n[098-101]", "n[098-101]");
	compresses_to("n[0998-1001]", "n[0998-1001]");
	compresses_to("n[008-010],n11", "n[008-010,11]");
	compresses_to("n[98-101]", "n[98-101]");
	compresses_to("single", "single");
	compresses_to("node,node5,node6,x7,node7", "node,node[5-7],x7");
	compresses_to("n[0-2]", "n[0-2]");
	compresses_to("n[000-002]", "n[000-002]");
	compresses_to("", "");
	/* the longest number a name may end in (18 digits); with 19 it is a plain name */
	compresses_to("n[999999999999999998-999999999999999999]",
		      "n[999999999999999998-999999999999999999]");
	compresses_to("n1234567890123456789,n1234567890123456788",
		      "n1234567890123456789,n1234567890123456788");
}

/* A host name is at most 255 bytes: a longer one is refused whole, never cut. */
static void test_name_length(void **state)
{
	char name[300], expr[1000];
	struct rd_strlist l = { 0 };
	struct rd_hostlist_error e;

	(void)state;
	memset(name, 'a', 255);
	name[255] = '\0';
	assert_int_equal(rd_hostlist_expand(name, &l, &e), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(strlen(l.v[0]), 255);
	rd_strlist_free(&l);
	/* 256 bytes, as written or as a range makes them (the widest number counts) */
	snprintf(expr, sizeof(expr), "ok,%sb", name);
	rejects(expr, 4, "a host name longer than 255 bytes");
	snprintf(expr, sizeof(expr), "%.250s[1-99999]", name);
	assert_int_equal(rd_hostlist_expand(expr, &l, &e), 0);
	assert_int_equal(strlen(l.v[l.n - 1]), 255);
	rd_strlist_free(&l);
	snprintf(expr, sizeof(expr), "%.250s[1-100000]", name);
	rejects(expr, 1, "a host name longer than 255 bytes");
	snprintf(expr, sizeof(expr), "%.250s[000001-2]", name);
	rejects(expr, 1, "a host name longer than 255 bytes");
	/* many groups: each a byte or more of the name, so at most 255 of them */
	expr[0] = '\0';
	for (int i = 0; i < 256; i++)
		strcat(expr, "[1]");
	rejects(expr, 1, "a host name longer than 255 bytes");
	expr[3 * 100] = '\0';
	assert_int_equal(rd_hostlist_expand(expr, &l, &e), 0);
	assert_int_equal(strlen(l.v[0]), 100);
	rd_strlist_free(&l);
}

/*
 * One limit for the run: the names already in the list count, whether they
 * came from -w, a hostfile or the environment, and the limit is found before
 * a name is made.
 */
static void test_run_limit(void **state)
{
	struct rd_strlist l = { 0 };
	struct rd_hostlist_error e;
	char path[300];
	FILE *f;

	(void)state;
	scratch_make();
	assert_int_equal(rd_hostlist_expand("n[1-600000]", &l, &e), 0);
	assert_int_equal(rd_hostlist_expand("m[1-400000]", &l, &e), 0);
	assert_int_equal(l.n, RD_HOSTLIST_MAX);
	assert_int_equal(rd_hostlist_expand("x", &l, &e), -E2BIG);
	assert_int_equal(e.column, 1);
	assert_string_equal(e.msg, "more than 1000000 names with the 1000000 listed before (one limit "
			    "for every host list)");
	assert_int_equal(l.n, RD_HOSTLIST_MAX);
	rd_strlist_free(&l);

	/* a hostfile after -w: its lines count on from -w's names */
	assert_int_equal(rd_hostlist_expand("n[1-600000]", &l, &e), 0);
	put("half", "# more\nm[1-300000]\nm[300001-600000]\n");
	snprintf(path, sizeof(path), "%s/half", scratch);
	assert_int_equal(rd_hostfile_read(path, 1000, &l, &e), -E2BIG);
	assert_int_equal(e.line, 3);
	assert_int_equal(e.column, 1);
	assert_string_equal(e.msg, "more than 1000000 names with the 600000 listed before (one limit "
			    "for every host list)");
	assert_int_equal(l.n, 600000);
	/* and an expression after a hostfile */
	rd_strlist_free(&l);
	put("some", "a[1-999999]\n");
	snprintf(path, sizeof(path), "%s/some", scratch);
	assert_int_equal(rd_hostfile_read(path, 1000, &l, &e), 0);
	assert_int_equal(rd_hostlist_expand("b,c", &l, &e), -E2BIG);
	assert_int_equal(e.column, 3);
	assert_int_equal(l.n, 999999);
	rd_strlist_free(&l);

	/*
	 * The bomb: a line at the limit, many times over.  Refused at line 2
	 * with nothing made (before, each line was made whole: minutes).
	 */
	snprintf(path, sizeof(path), "%s/bomb", scratch);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 100000; i++)
		fputs("n[1-1000000]\n", f);
	fclose(f);
	assert_int_equal(rd_hostfile_read(path, 1000, &l, &e), -E2BIG);
	assert_int_equal(e.line, 2);
	assert_string_equal(e.msg, "the list expands to more than 1000000 names");
	assert_int_equal(l.n, 0);
	assert_null(l.v);
	/* one expression of two items at the limit: refused before the first is made */
	assert_int_equal(rd_hostlist_expand("n[1-1000000] m[1-1000000]", &l, &e), -E2BIG);
	assert_int_equal(e.column, 14);
	assert_null(l.v);
	scratch_remove();
}

/* A hostfile's malformed line: the line and column, the space in a range named. */
static void test_hostfile_space(void **state)
{
	struct rd_strlist l = { 0 };
	struct rd_hostlist_error e;
	char path[300];

	(void)state;
	scratch_make();
	put("sp", "a\nnode[01-04, 07]  # rack 1\n");
	snprintf(path, sizeof(path), "%s/sp", scratch);
	assert_int_equal(rd_hostfile_read(path, 1000, &l, &e), -EINVAL);
	assert_int_equal(e.line, 2);
	assert_int_equal(e.column, 12);
	assert_string_equal(e.msg, "a space inside brackets (none in a range: n[1,3], not n[1, 3])");
	assert_int_equal(l.n, 0);
	/* blank, comment-only and separator-only lines make nothing */
	put("ok", "\n  \n,\n# x\nb[1-2] # y\r\nc\r\n");
	snprintf(path, sizeof(path), "%s/ok", scratch);
	assert_int_equal(rd_hostfile_read(path, 1000, &l, &e), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[2], "c");
	rd_strlist_free(&l);
	scratch_remove();
}

/* Expanding into a list that has names appends; a failure leaves it as it was. */
static void test_expand_appends(void **state)
{
	struct rd_strlist l = { 0 }, f = { 0 };
	char *got;

	(void)state;
	assert_int_equal(rd_strlist_add(&l, "keep"), 0);
	assert_int_equal(rd_hostlist_expand("a[1-3]", &l, NULL), 0);
	assert_int_equal(rd_hostlist_expand("", &l, NULL), 0);
	assert_int_equal(rd_hostlist_expand("b", &l, NULL), 0);
	got = rd_strlist_join(&l, " ");
	assert_string_equal(got, "keep a1 a2 a3 b");
	assert_null(l.v[l.n]);
	free(got);
	assert_int_equal(rd_hostlist_expand("c,d[", &l, NULL), -EINVAL);
	assert_int_equal(l.n, 5);
	/* rd_strlist_move: into an empty list, and from an empty one */
	assert_int_equal(rd_strlist_move(&f, &l), 0);
	assert_int_equal(f.n, 5);
	assert_int_equal(l.n, 0);
	assert_null(l.v);
	assert_int_equal(rd_strlist_move(&f, &l), 0);
	assert_int_equal(f.n, 5);
	assert_string_equal(f.v[4], "b");
	rd_strlist_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_hostfile),
		cmocka_unit_test(test_compress),
		cmocka_unit_test(test_expand_appends),
		cmocka_unit_test(test_name_length),
		cmocka_unit_test(test_run_limit),
		cmocka_unit_test(test_hostfile_space),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

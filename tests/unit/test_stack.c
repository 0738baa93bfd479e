// SPDX-License-Identifier: MIT
#include "unit.h"

#include "model/stack.h"

/* dpkg's status: libibverbs1's stanza found among others, wherever its Version line is. */
static void test_dpkg_version(void **state)
{
	char v[64];

	(void)state;
	assert_true(rd_stack_dpkg_version("Package: libc6\nVersion: 2.36-9\n\n"
					  "Package: libibverbs1\nStatus: install ok installed\n"
					  "Architecture: amd64\nVersion: 58mlnx43-1.58101\n"
					  "Description: x\n\nPackage: zlib1g\nVersion: 1\n",
					  v, sizeof(v)));
	assert_string_equal(v, "58mlnx43-1.58101");
	/* libibverbs-dev is not libibverbs1; the last stanza needs no blank line after it */
	assert_true(rd_stack_dpkg_version("Package: libibverbs-dev\nVersion: 9\n\n"
					  "Package: libibverbs1\nVersion: 44.0-2", v, sizeof(v)));
	assert_string_equal(v, "44.0-2");
	assert_false(rd_stack_dpkg_version("Package: libibverbs-dev\nVersion: 9\n", v, sizeof(v)));
	assert_false(rd_stack_dpkg_version("", v, sizeof(v)));
	/* a Version of another stanza is not taken */
	assert_false(rd_stack_dpkg_version("Package: libibverbs1\nStatus: deinstall\n\n"
					   "Package: x\nVersion: 3\n", v, sizeof(v)));
	/* too long for the buffer: not cut */
	assert_false(rd_stack_dpkg_version("Package: libibverbs1\nVersion: 0123456789\n", v, 8));
}

/* ofed_info's text: the first release name with a version, without trailing punctuation. */
static void test_ofed_release(void **state)
{
	char v[64];

	(void)state;
	assert_true(rd_stack_ofed_release("#!/bin/bash\necho MLNX_OFED_LINUX-5.8-2.0.3.0:\n", v,
					  sizeof(v)));
	assert_string_equal(v, "MLNX_OFED_LINUX-5.8-2.0.3.0");
	assert_true(rd_stack_ofed_release("usage: MLNX_OFED_LINUX-<ver>\n"
					  "MLNX_OFED_LINUX-4.5-1.0.1.0 (OFED-4.5-1.0.1):", v, sizeof(v)));
	assert_string_equal(v, "MLNX_OFED_LINUX-4.5-1.0.1.0");
	assert_true(rd_stack_ofed_release("OFED-internal-24.04-0.6.6:\n", v, sizeof(v)));
	assert_string_equal(v, "OFED-internal-24.04-0.6.6");
	assert_false(rd_stack_ofed_release("#!/bin/sh\nexit 0\n", v, sizeof(v)));
}

/* The stack's name from its halves. */
static void test_stack_name(void **state)
{
	struct rd_stack st = { 0 };
	char d[320];

	(void)state;
	assert_null(rd_stack_name(&st));
	st.kernel = RD_STACK_INBOX;
	assert_string_equal(rd_stack_name(&st), "inbox");
	st.user = RD_STACK_OFED;
	assert_string_equal(rd_stack_name(&st), "mixed");
	rd_stack_describe(&st, d, sizeof(d));
	assert_non_null(strstr(d, "mixed: inbox kernel modules, MLNX_OFED user space"));
	st.kernel = RD_STACK_OFED;
	assert_string_equal(rd_stack_name(&st), "MLNX_OFED");
	st.kernel = RD_STACK_UNKNOWN;
	assert_string_equal(rd_stack_name(&st), "MLNX_OFED");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dpkg_version),
		cmocka_unit_test(test_ofed_release),
		cmocka_unit_test(test_stack_name),
	};

	return cmocka_run_group_tests_name("stack", tests, NULL, NULL);
}

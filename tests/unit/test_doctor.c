// SPDX-License-Identifier: MIT
/* rdma-doctor's engine: the checks table and the --expect parser. */
#include "unit.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "doctor/doctor.h"
#include "doctor/drsys.h"

static int parse(const char *text, struct rd_dr_expect *e, char *why, size_t len)
{
	char path[] = "/tmp/rd-test-expect.XXXXXX";
	int fd = mkstemp(path), ret;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	why[0] = '\0';
	ret = rd_dr_expect_read(path, 10000, e, why, len);
	unlink(path);
	return ret;
}

static void rejects(const char *text, const char *msg)
{
	struct rd_dr_expect e;
	char why[256];

	assert_int_equal(parse(text, &e, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, msg);
}

static void test_table(void **state)
{
	size_t n;
	const struct rd_dr_check *t = rd_dr_checks(&n);

	(void)state;
	assert_true(n >= 20);
	for (size_t i = 0; i < n; i++) {
		const char *dot = strchr(t[i].id, '.');

		/* "group.name", both parts non-empty, one dot */
		assert_non_null(dot);
		assert_true(dot > t[i].id && dot[1] && !strchr(dot + 1, '.'));
		assert_non_null(t[i].verdict);
		assert_true(t[i].summary && *t[i].summary);
		assert_true(t[i].reads && *t[i].reads);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(t[i].id, t[j].id);
		assert_ptr_equal(rd_dr_check_find(t[i].id), &t[i]);
	}
}

static void test_ids(void **state)
{
	const struct rd_dr_check *mtu = rd_dr_check_find("roce.mtu");

	(void)state;
	assert_non_null(mtu);
	assert_true(rd_dr_id_matches("roce.mtu", mtu));
	assert_true(rd_dr_id_matches("roce", mtu));
	/* a prefix that is not the whole group, or another check, does not match */
	assert_false(rd_dr_id_matches("roc", mtu));
	assert_false(rd_dr_id_matches("roce.mt", mtu));
	assert_false(rd_dr_id_matches("roce.mtu.x", mtu));
	assert_false(rd_dr_id_matches("", mtu));
	assert_false(rd_dr_id_matches("port", mtu));
	assert_null(rd_dr_check_find("no.such"));
	assert_null(rd_dr_check_find("nosuch"));
}

static void test_expect_good(void **state)
{
	struct rd_dr_expect e;
	char why[256];

	(void)state;
	assert_int_equal(parse("# spec of rack 3\n\ndevices = 2\n  rate=100\n"
			       "mtu=9000\nactive_mtu=4096\nfw=22.36.1010\npcie_width=x16\n"
			       "pcie_speed=16.0\nroce_mode=V2\ngid_index=3\nlink_layer=ethernet\r\ngdr=8\n",
			       &e, why, sizeof(why)), 0);
	for (int k = 0; k < RD_EXP_NKEYS; k++)
		assert_true(e.has[k]);
	assert_true(e.num[RD_EXP_DEVICES] == 2);
	assert_true(e.num[RD_EXP_RATE] == 100);
	assert_true(e.num[RD_EXP_MTU] == 9000);
	assert_true(e.num[RD_EXP_ACTIVE_MTU] == 4096);
	assert_string_equal(e.val[RD_EXP_FW], "22.36.1010");
	assert_true(e.num[RD_EXP_PCIE_WIDTH] == 16);	/* "x16" */
	assert_true(fabs(e.num[RD_EXP_PCIE_SPEED] - 16.0) < 1e-9);
	assert_string_equal(e.val[RD_EXP_ROCE_MODE], "v2");
	assert_true(e.num[RD_EXP_GID_INDEX] == 3);
	assert_string_equal(e.val[RD_EXP_LINK_LAYER], "Ethernet");

	/* only what is given is set; an empty file sets nothing */
	assert_int_equal(parse("fw=1.2.3\n", &e, why, sizeof(why)), 0);
	assert_true(e.has[RD_EXP_FW]);
	assert_false(e.has[RD_EXP_MTU]);
	assert_int_equal(parse("", &e, why, sizeof(why)), 0);
	for (int k = 0; k < RD_EXP_NKEYS; k++)
		assert_false(e.has[k]);
	assert_string_equal(rd_dr_expect_key_name(RD_EXP_PCIE_WIDTH), "pcie_width");
	assert_null(rd_dr_expect_key_name(RD_EXP_NKEYS));
}

static void test_expect_bad(void **state)
{
	char longline[600];

	(void)state;
	rejects("devices=2\nfirmware 22\n", "line 2: not key=value");
	rejects("speed=100\n",
		"line 1: unknown key 'speed' (known: devices rate mtu active_mtu fw pcie_width "
		"pcie_speed roce_mode gid_index link_layer gdr)");
	rejects("mtu=\n", "line 1: mtu: empty value");
	rejects("mtu=9000\nmtu=1500\n", "line 2: mtu given twice");
	memset(longline, 'a', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	{
		struct rd_dr_expect e;
		char why[256];

		assert_int_equal(parse(longline, &e, why, sizeof(why)), -EFBIG);
		assert_string_equal(why, "line 1: longer than the limit of 511 bytes");
	}
	/* values of the wrong kind fail; the exact words are the CLI tier's */
	{
		static const char *const bad[] = {
			"mtu=nine", "mtu=9000.5", "devices=-1", "rate=fast", "active_mtu=4000",
			"roce_mode=v3", "link_layer=iwarp", "pcie_width=xx", "gid_index=1e999",
		};
		struct rd_dr_expect e;
		char why[256];

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			assert_int_equal(parse(bad[i], &e, why, sizeof(why)), -EINVAL);
			assert_true(strncmp(why, "line 1: ", 8) == 0);
		}
	}
}

/* /proc/net/route lines as a 6.1 kernel writes them (little-endian host). */
static void test_route_line(void **state)
{
	struct rd_route r;
	bool keep;

	(void)state;
	assert_int_equal(rd_parse_route_line("eth0\t0002A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n", &r, &keep), 0);
	assert_true(keep);
	assert_string_equal(r.ifname, "eth0");
	assert_int_equal(r.dst, 0x0002A8C0u);
	assert_int_equal(r.mask, 0x00FFFFFFu);
	/* A default route and a route through a gateway are not connected routes. */
	assert_int_equal(rd_parse_route_line("eth0\t00000000\t0102A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n", &r, &keep), 0);
	assert_false(keep);
	assert_int_equal(rd_parse_route_line("eth1\t0010A8C0\t0102A8C0\t0003\t0\t0\t100\t00FFFFFF\t0\t0\t0\n", &r, &keep), 0);
	assert_false(keep);
	/* A route that is not up. */
	assert_int_equal(rd_parse_route_line("eth1\t0010A8C0\t00000000\t0000\t0\t0\t0\t00FFFFFF\t0\t0\t0\n", &r, &keep), 0);
	assert_false(keep);
	/* A large decimal Use counter is no hex field: it is skipped, not refused. */
	assert_int_equal(rd_parse_route_line("eth0\t0002A8C0\t00000000\t0001\t0\t12345678901\t0\t00FFFFFF\t0\t0\t0\n", &r, &keep), 0);
	assert_true(keep);
	/* Malformed: too few fields, a 9-digit or non-hex field, an over-long name. */
	assert_int_equal(rd_parse_route_line("eth0\t0002A8C0\t00000000\n", &r, &keep), -EINVAL);
	assert_int_equal(rd_parse_route_line("eth0\t10002A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n", &r, &keep), -EINVAL);
	assert_int_equal(rd_parse_route_line("eth0\t0002A8CG\t00000000\t0001\t0\t0\t0\t00FFFFFF\n", &r, &keep), -EINVAL);
	assert_int_equal(rd_parse_route_line("an-interface-name-longer-than-31-bytes\t0002A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n", &r, &keep), -EINVAL);
	assert_int_equal(rd_parse_route_line("", &r, &keep), -EINVAL);
	assert_false(keep);
}

static void test_pci_bdf(void **state)
{
	(void)state;
	assert_true(rd_is_pci_bdf("0000:3b:00.0"));
	assert_true(rd_is_pci_bdf("10000:e1:00.7"));	/* behind an Intel VMD bridge */
	assert_false(rd_is_pci_bdf("000:3b:00.0"));
	assert_false(rd_is_pci_bdf("0000:3b:00.8"));
	assert_false(rd_is_pci_bdf("0000:3b:0.0"));
	assert_false(rd_is_pci_bdf("0000:3b:00.0x"));
	assert_false(rd_is_pci_bdf("0000:3b:00"));
	assert_false(rd_is_pci_bdf("pci0000:00"));
	assert_false(rd_is_pci_bdf(""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_expect_good),
		cmocka_unit_test(test_expect_bad),
		cmocka_unit_test(test_route_line),
		cmocka_unit_test(test_pci_bdf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

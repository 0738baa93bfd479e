// SPDX-License-Identifier: MIT
#include "unit.h"

#include "model/device.h"

static void test_rate(void **state)
{
	struct rd_rate r;

	(void)state;
	assert_int_equal(rd_parse_rate("100 Gb/sec (4X EDR)\n", &r), 0);
	assert_true(r.gbps == 100.0);
	assert_string_equal(r.width, "4X");
	assert_string_equal(r.speed, "EDR");
	assert_int_equal(rd_parse_rate("2.5 Gb/sec (1X SDR)", &r), 0);
	assert_true(r.gbps == 2.5);
	assert_string_equal(r.width, "1X");
	assert_int_equal(rd_parse_rate("10 Gb/sec (1X)", &r), 0);
	assert_string_equal(r.width, "1X");
	assert_string_equal(r.speed, "");
	assert_int_equal(rd_parse_rate("fast", &r), -EINVAL);
	assert_int_equal(rd_parse_rate("100 Gb/sec (4X EDR", &r), -EINVAL);
	assert_int_equal(rd_parse_rate("100 Mb/sec", &r), -EINVAL);
	assert_int_equal(rd_parse_rate("", &r), -ENODATA);
	/* strtod-based (lint: cert-err34-c): the unit may follow without a blank... */
	assert_int_equal(rd_parse_rate("25Gb/sec", &r), 0);
	assert_true(r.gbps == 25.0);
	/* ...but out-of-range and overflowing numbers are refused, not HUGE_VAL. */
	assert_int_equal(rd_parse_rate("1e999 Gb/sec", &r), -EINVAL);
	assert_int_equal(rd_parse_rate("2000000 Gb/sec", &r), -EINVAL);
	assert_int_equal(rd_parse_rate("100", &r), -EINVAL);
	assert_int_equal(rd_parse_rate("100 Gb/se", &r), -EINVAL);
}

static void test_guid(void **state)
{
	uint64_t g;
	char buf[20];

	(void)state;
	assert_int_equal(rd_parse_guid("0c42:a103:0065:8b1e\n", &g), 0);
	assert_true(g == 0x0c42a10300658b1eULL);
	rd_format_guid(g, buf);
	assert_string_equal(buf, "0c42:a103:0065:8b1e");
	assert_int_equal(rd_parse_guid("0c42:a103:0065", &g), -EINVAL);
	assert_int_equal(rd_parse_guid("0c42:a103:0065:8b1e:1", &g), -EINVAL);
	assert_int_equal(rd_parse_guid("xyz", &g), -EINVAL);
	assert_int_equal(rd_parse_guid("", &g), -ENODATA);
	/* One trailing blank after the fourth group is fine, anything else is not. */
	assert_int_equal(rd_parse_guid("0c42:a103:0065:8b1e \n", &g), 0);
	assert_true(g == 0x0c42a10300658b1eULL);
	assert_int_equal(rd_parse_guid("0c42:a103:0065:8b1eX", &g), -EINVAL);
	assert_int_equal(rd_parse_guid("0c42a:a103:0065:8b1e", &g), -EINVAL);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(rd_node_type_name(1), "CA");
	assert_string_equal(rd_node_type_name(4), "RNIC");
	assert_null(rd_node_type_name(99));
	assert_string_equal(rd_port_state_name(4), "ACTIVE");
	assert_string_equal(rd_port_state_name(1), "DOWN");
	assert_null(rd_port_state_name(6));
	assert_string_equal(rd_phys_state_name(5), "LinkUp");
	assert_string_equal(rd_phys_state_name(3), "Disabled");
}

static void make_port(const char *dev, int port, const char *state)
{
	char p[256];

#define PF(file, val)                                                             \
	do {                                                                      \
		snprintf(p, sizeof(p), "sys/class/infiniband/%s/ports/%d/" file, dev, port); \
		put(p, val);                                                      \
	} while (0)
	PF("state", state);
	PF("phys_state", "5: LinkUp\n");
	PF("rate", "100 Gb/sec (4X EDR)\n");
	PF("link_layer", "InfiniBand\n");
	PF("lid", "0x1a\n");
	PF("sm_lid", "0x1\n");
	PF("sm_sl", "0\n");
	PF("lid_mask_count", "0\n");
	PF("cap_mask", "0x2651e848\n");
#undef PF
}

static void test_device_read_and_damage(void **state)
{
	struct rd_warnings w = { 0 };
	struct rd_device_list list;
	struct rd_strlist filter = { 0 };
	struct rd_sysroot sr;
	const char *unknown;
	struct rd_device *d;

	(void)state;
	scratch_make();
	put("sys/class/infiniband/ib1/node_type", "1: CA\n");
	put("sys/class/infiniband/ib1/node_guid", "0c42:a103:0065:8b1e\n");
	put("sys/class/infiniband/ib1/sys_image_guid", "0c42:a103:0065:8b1e\n");
	put("sys/class/infiniband/ib1/fw_ver", "20.40.1000\n");
	put("sys/class/infiniband/ib1/node_desc", "host ib1\n");
	make_port("ib1", 1, "4: ACTIVE\n");
	make_port("ib1", 2, "4: ACTI\n");		/* truncated text */
	put("sys/class/infiniband/ib1/ports/2/sm_lid", "0xZZ\n");	/* garbage */
	put("sys/class/infiniband/ib1/ports/2/rate", "fast\n");
	mkdirs("sys/class/infiniband/ib1/ports/foo");
	/* ib0: healthy, sorts first */
	put("sys/class/infiniband/ib0/node_type", "4: RNIC\n");
	put("sys/class/infiniband/ib0/node_guid", "0000:0000:0000:0001\n");
	put("sys/class/infiniband/ib0/sys_image_guid", "0000:0000:0000:0001\n");
	put("sys/class/infiniband/ib0/fw_ver", "\n");
	put("sys/class/infiniband/ib0/node_desc", "x\n");
	make_port("ib0", 1, "1: DOWN\n");
	put("sys/class/infiniband/ib0/ports/1/link_layer", "Ethernet\n");
	put("sys/class/infiniband_verbs/uverbs3/ibdev", "ib0\n");

	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	assert_int_equal(rd_device_scan(&sr, NULL, &list, &unknown, &w), 0);
	assert_int_equal(list.n, 2);
	d = &list.v[0];
	assert_string_equal(d->name, "ib0");
	assert_string_equal(d->uverbs, "uverbs3");
	assert_true(d->known & RD_DEV_FW_VER);
	assert_string_equal(d->fw_ver, "");
	assert_string_equal(rd_port_transport(d, &d->ports[0]), "iWARP");

	d = &list.v[1];
	assert_string_equal(d->name, "ib1");
	assert_int_equal(d->nports, 2);		/* "foo" skipped */
	assert_true(d->known & RD_DEV_NODE_GUID);
	assert_false(d->known & RD_DEV_HCA_TYPE);	/* optional, absent: no warning */
	assert_int_equal(d->ports[1].state, 4);	/* the code wins over the text */
	assert_false(d->ports[1].known & RD_PORT_SM_LID);
	assert_false(d->ports[1].known & RD_PORT_RATE);
	assert_true(d->ports[1].known & RD_PORT_LID);
	assert_string_equal(rd_port_transport(d, &d->ports[0]), "InfiniBand");
	/* state text, sm_lid, rate, ports/foo */
	assert_int_equal(w.msgs.n, 4);
	assert_non_null(strstr(w.msgs.v[0], "ib1 port 2: state: text \"ACTI\""));
	rd_device_list_free(&list);

	rd_strlist_add(&filter, "ib7");
	assert_int_equal(rd_device_scan(&sr, &filter, &list, &unknown, &w), -ENODEV);
	assert_string_equal(unknown, "ib7");
	rd_strlist_free(&filter);
	rd_strlist_add(&filter, "ib1");
	assert_int_equal(rd_device_scan(&sr, &filter, &list, &unknown, &w), 0);
	assert_int_equal(list.n, 1);
	assert_string_equal(list.v[0].name, "ib1");
	rd_device_list_free(&list);
	rd_strlist_free(&filter);
	rd_warnings_free(&w);
	scratch_remove();
}

/*
 * The ports' netdev lists come from gid_attrs/ndevs (one file per slot) and
 * only when asked for: a tool that leaves RD_SCAN_NETDEVS out reads none.
 */
static void test_read_flags_netdevs(void **state)
{
	struct rd_sysroot sr;
	struct rd_device d;

	(void)state;
	scratch_make();
	put("sys/class/infiniband/rxe0/node_type", "1: CA\n");
	make_port("rxe0", 1, "4: ACTIVE\n");
	put("sys/class/infiniband/rxe0/ports/1/link_layer", "Ethernet\n");
	put("sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "eth0\n");
	put("sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/1", "eth0\n");
	put("sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/2", "eth0.7\n");
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);

	assert_int_equal(rd_device_read_flags(&sr, "rxe0", &d, NULL, RD_SCAN_ALL), 0);
	assert_int_equal(d.nports, 1);
	assert_int_equal(d.ports[0].netdevs.n, 2);
	assert_string_equal(d.ports[0].netdevs.v[0], "eth0");
	assert_string_equal(d.ports[0].netdevs.v[1], "eth0.7");
	assert_int_equal(d.netdevs.n, 2);
	rd_device_free(&d);

	assert_int_equal(rd_device_read_flags(&sr, "rxe0", &d, NULL, RD_SCAN_NO_NETDEVS), 0);
	assert_int_equal(d.nports, 1);
	assert_int_equal(d.ports[0].state, 4);
	assert_int_equal(d.ports[0].netdevs.n, 0);
	assert_int_equal(d.netdevs.n, 0);
	rd_device_free(&d);

	/* rd_device_read is every group, the lists included */
	assert_int_equal(rd_device_read(&sr, "rxe0", &d, NULL), 0);
	assert_int_equal(d.ports[0].netdevs.n, 2);
	rd_device_free(&d);
	assert_int_equal(rd_device_read_flags(&sr, "rxe9", &d, NULL, RD_SCAN_ALL), -ENODEV);
	scratch_remove();
}

/*
 * The finer groups: rdma-gpumap reads a port's state and rate and nothing
 * else of it (no phys_state, no LIDs), and none of the function around the
 * device (parent, driver, uverbs, SR-IOV) unless it asks.
 */
static void test_read_flags_groups(void **state)
{
	struct rd_sysroot sr;
	struct rd_device d;

	(void)state;
	scratch_make();
	put("sys/class/infiniband/rxe0/node_type", "1: CA\n");
	put("sys/class/infiniband/rxe0/parent", "eth0\n");
	make_port("rxe0", 1, "4: ACTIVE\n");
	put("sys/class/infiniband/rxe0/ports/1/phys_state", "5: LinkUp\n");
	put("sys/class/infiniband/rxe0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
	put("sys/class/infiniband/rxe0/ports/1/lid", "0x7\n");
	put("sys/class/infiniband/rxe0/ports/1/link_layer", "Ethernet\n");
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);

	assert_int_equal(rd_device_read_flags(&sr, "rxe0", &d, NULL,
					      RD_SCAN_PORT_STATE_LOGICAL | RD_SCAN_PORT_RATE), 0);
	assert_int_equal(d.nports, 1);
	assert_true(d.ports[0].known & RD_PORT_STATE);
	assert_true(d.ports[0].known & RD_PORT_RATE);
	assert_true(d.ports[0].known & RD_PORT_LINK_LAYER);
	assert_false(d.ports[0].known & (RD_PORT_PHYS_STATE | RD_PORT_LID));
	assert_true(d.ports[0].rate.gbps == 100);
	assert_string_equal(d.parent, "");
	rd_device_free(&d);

	assert_int_equal(rd_device_read_flags(&sr, "rxe0", &d, NULL, RD_SCAN_PORT_LINK | RD_SCAN_DEV_FN), 0);
	assert_false(d.ports[0].known & (RD_PORT_STATE | RD_PORT_PHYS_STATE));
	assert_true(d.ports[0].known & RD_PORT_LID);
	assert_int_equal(d.ports[0].lid, 7);
	assert_string_equal(d.parent, "eth0");
	rd_device_free(&d);
	scratch_remove();
}

static void test_no_class_dir(void **state)
{
	struct rd_device_list list;
	struct rd_sysroot sr;

	(void)state;
	scratch_make();
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	assert_int_equal(rd_device_scan(&sr, NULL, &list, NULL, NULL), 0);
	assert_int_equal(list.n, 0);
	rd_device_list_free(&list);
	scratch_remove();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_guid),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_device_read_and_damage),
		cmocka_unit_test(test_read_flags_netdevs),
		cmocka_unit_test(test_read_flags_groups),
		cmocka_unit_test(test_no_class_dir),
	};

	return cmocka_run_group_tests_name("device", tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
#include "unit.h"

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/object.h>
#include <netlink/route/link.h>
#include <netlink/route/link/vlan.h>

#include "model/netdev.h"
#include "model/nldev.h"

static void test_vlan_line(void **state)
{
	char name[64], lower[64];
	int vid;

	(void)state;
	assert_int_equal(rd_parse_vlan_config_line("ens1f0.100     | 100  | ens1f0\n", name, sizeof(name),
						   &vid, lower, sizeof(lower)), 0);
	assert_string_equal(name, "ens1f0.100");
	assert_int_equal(vid, 100);
	assert_string_equal(lower, "ens1f0");
	assert_int_equal(rd_parse_vlan_config_line("VLAN Dev name\t | VLAN ID\n", name, sizeof(name),
						   &vid, lower, sizeof(lower)), -EINVAL);
	assert_int_equal(rd_parse_vlan_config_line("Name-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD",
						   name, sizeof(name), &vid, lower, sizeof(lower)), -EINVAL);
	assert_int_equal(rd_parse_vlan_config_line("x | 5000 | y", name, sizeof(name), &vid, lower,
						   sizeof(lower)), -EINVAL);
	assert_int_equal(rd_parse_vlan_config_line("x | 5 | y | z", name, sizeof(name), &vid, lower,
						   sizeof(lower)), -EINVAL);
	assert_int_equal(rd_parse_vlan_config_line(" | 5 | y", name, sizeof(name), &vid, lower,
						   sizeof(lower)), -EINVAL);
}

/* The parsing halves of the netdev readers, on text as the files hold it. */
static void test_netdev_parsers(void **state)
{
	static const char cfg[] = "VLAN Dev name\t | VLAN ID\n"
				  "Name-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD\n"
				  "bond0.10       | 10  | bond0\n"
				  "ib0.x | 4096 | ib0\n"
				  "ens1f0.4095    | 4095  | ens1f0\n";
	struct rd_vlan_map map;
	struct rd_strlist l = { 0 };
	char slaves[] = "ens1f0  ens1f1";
	uint8_t hw[20];
	FILE *f;

	(void)state;
	f = fmemopen((void *)cfg, sizeof(cfg) - 1, "r");
	assert_non_null(f);
	assert_int_equal(rd_vlan_map_parse(f, &map), 0);
	fclose(f);
	assert_int_equal(map.names.n, 2);
	assert_int_equal(rd_vlan_map_lookup(&map, "ens1f0.4095"), 4095);
	assert_string_equal(rd_vlan_map_lower(&map, "bond0.10"), "bond0");
	assert_int_equal(rd_vlan_map_lookup(&map, "ib0.x"), -1);
	rd_vlan_map_free(&map);

	assert_int_equal(rd_parse_netdev_speed("25000"), 25000);
	assert_int_equal(rd_parse_netdev_speed("-1"), -1);
	assert_int_equal(rd_parse_netdev_speed("0"), -1);
	assert_int_equal(rd_parse_netdev_speed("fast"), -1);

	assert_int_equal(rd_parse_bond_slaves(slaves, &l), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[1], "ens1f1");
	rd_strlist_free(&l);

	assert_int_equal(rd_parse_hwaddr("00:00:10:49:fe:80:00:00:00:00:00:00:98:03:9b:03:00:9a:3b:2c",
					 hw, 20), 20);
	assert_int_equal(hw[19], 0x2c);
	assert_int_equal(rd_parse_hwaddr("98:03:9b:9a:3b:2c", hw, 20), 6);
	assert_int_equal(rd_parse_hwaddr("98:03:9b:9a:3b:2c", hw, 5), -1);
	assert_int_equal(rd_parse_hwaddr("98:3:9b", hw, 20), -1);
	assert_int_equal(rd_parse_hwaddr("98-03", hw, 20), -1);
	assert_int_equal(rd_parse_hwaddr("", hw, 20), 0);
}

/* rtnetlink: what libnl parsed, including a "vlan" link without IFLA_INFO_DATA (libnl crashed on it). */
static bool link_is_vlan;

static void on_link(struct nl_object *obj, void *arg)
{
	struct rd_netdev_info *nd = arg;

	link_is_vlan = rtnl_link_is_vlan((struct rtnl_link *)obj);
	rd_netdev_from_rtnl((struct rtnl_link *)obj, nd);
}

static void test_netdev_from_rtnl(void **state)
{
	/* RTM_NEWLINK, ifindex 7, "ens1f0.100", MTU 1500, operstate up, linkinfo {kind "vlan"}. */
	static const uint8_t m[] __attribute__((aligned(4))) = {
		0x50, 0, 0, 0, 0x10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,		/* nlmsghdr */
		0, 0, 1, 0, 7, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0,		/* ifinfomsg */
		0x0f, 0, 3, 0, 'e', 'n', 's', '1', 'f', '0', '.', '1', '0', '0', 0, 0,
		8, 0, 4, 0, 0xdc, 0x05, 0, 0,
		5, 0, 0x10, 0, 6, 0, 0, 0,
		0x10, 0, 0x12, 0, 9, 0, 1, 0, 'v', 'l', 'a', 'n', 0, 0, 0, 0,
	};
	struct rd_netdev_info nd;
	struct nl_msg *msg;

	(void)state;
	memset(&nd, 0, sizeof(nd));
	nd.vlan = -1;
	msg = nlmsg_convert((struct nlmsghdr *)(void *)m);
	assert_non_null(msg);
	nlmsg_set_proto(msg, NETLINK_ROUTE);
	assert_int_equal(nl_msg_parse(msg, on_link, &nd), 0);
	nlmsg_free(msg);
	assert_true(nd.present);
	assert_string_equal(nd.operstate, "up");
	assert_int_equal(nd.mtu, 1500);
	assert_int_equal(nd.ifindex, 7);
	assert_true(link_is_vlan);	/* libnl's vlan state, without its data */
	assert_int_equal(nd.vlan, -1);	/* from /proc/net/vlan/config, not from here */
}

/* Build one RDMA netlink message by hand: header + attributes. */
static size_t put_attr(uint8_t *buf, size_t off, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)(buf + off);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(buf + off + NLA_HDRLEN, data, len);
	return off + NLA_ALIGN(a->nla_len);
}

static size_t build_port_msg(uint8_t *buf, bool with_ndev)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	uint32_t idx = 3, port = 1, ndev_idx = 2;
	uint8_t st = 4, ps = 5;
	size_t off = NLMSG_HDRLEN;

	memset(buf, 0, 512);
	off = put_attr(buf, off, RDMA_NLDEV_ATTR_DEV_INDEX, &idx, 4);
	off = put_attr(buf, off, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0", 5);
	off = put_attr(buf, off, RDMA_NLDEV_ATTR_PORT_INDEX, &port, 4);
	off = put_attr(buf, off, RDMA_NLDEV_ATTR_PORT_STATE, &st, 1);
	off = put_attr(buf, off, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, &ps, 1);
	if (with_ndev) {
		off = put_attr(buf, off, RDMA_NLDEV_ATTR_NDEV_INDEX, &ndev_idx, 4);
		off = put_attr(buf, off, RDMA_NLDEV_ATTR_NDEV_NAME, "eth0", 5);
	}
	h->nlmsg_len = (uint32_t)off;
	h->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET);
	return off;
}

static void test_nldev_parse(void **state)
{
	uint8_t buf[512];
	struct rd_nl_port p;
	size_t len;

	(void)state;
	len = build_port_msg(buf, true);
	assert_int_equal(rd_nldev_parse_port(buf, len, &p), 0);
	assert_string_equal(p.dev, "rxe0");
	assert_int_equal(p.dev_index, 3);
	assert_int_equal(p.port, 1);
	assert_true(p.has_state);
	assert_int_equal(p.state, 4);
	assert_true(p.has_ndev);
	assert_string_equal(p.ndev, "eth0");

	/* netdev in another namespace: the kernel leaves the attributes out */
	len = build_port_msg(buf, false);
	assert_int_equal(rd_nldev_parse_port(buf, len, &p), 0);
	assert_false(p.has_ndev);

	/* truncated: header claims more than there is */
	assert_int_equal(rd_nldev_parse_port(buf, len - 4, &p), -EINVAL);
	assert_int_equal(rd_nldev_parse_port(buf, 8, &p), -EINVAL);

	/* an attribute whose length runs past the message */
	len = build_port_msg(buf, true);
	((struct nlattr *)(buf + NLMSG_HDRLEN))->nla_len = 400;
	assert_int_equal(rd_nldev_parse_port(buf, len, &p), -EINVAL);

	/* a string without its NUL */
	len = build_port_msg(buf, true);
	struct nlattr *name = (struct nlattr *)(buf + NLMSG_HDRLEN + NLA_ALIGN(NLA_HDRLEN + 4));

	((char *)name + NLA_HDRLEN)[4] = 'X';
	assert_int_equal(rd_nldev_parse_port(buf, len, &p), -EINVAL);

	/* no device name at all */
	struct nlmsghdr *h = (struct nlmsghdr *)buf;

	h->nlmsg_len = NLMSG_HDRLEN + NLA_ALIGN(NLA_HDRLEN + 4);
	assert_int_equal(rd_nldev_parse_port(buf, h->nlmsg_len, &p), -EINVAL);
}

static void test_netdev_facts(void **state)
{
	struct rd_sysroot sr;
	struct rd_netdev_info nd, ndc;
	struct rd_netdev_cache nc;
	struct rd_vlan_map vlans;
	static const char *const names[] = { "bond0", "eth9", "v", "gone", "../../etc", "long" };

	(void)state;
	scratch_make();
	put("sys/class/net/bond0/operstate", "up\n");
	put("sys/class/net/bond0/mtu", "9000\n");
	put("sys/class/net/bond0/speed", "200000\n");
	put("sys/class/net/bond0/bonding/slaves", "ens1f0 ens1f1\n");
	put("sys/class/net/eth9/operstate", "down\n");
	put("sys/class/net/eth9/speed", "-1\n");
	put("sys/class/net/v/operstate", "unknown\n");
	put("sys/class/net/v/carrier", "1\n");
	put("sys/class/net/long/operstate", "lowerlayerdown-x\n");	/* 16: more than nd has room for */
	put("sys/class/net/long/carrier", "1\n");
	put("proc/net/vlan/config", "VLAN Dev name | VLAN ID\nName-Type: X\nv | 7 | eth9\n");
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	assert_int_equal(rd_vlan_map_read(&sr, &vlans), 0);

	assert_int_equal(rd_netdev_read(&sr, "bond0", &vlans, &nd), 0);
	assert_true(nd.present);
	assert_string_equal(rd_netdev_updown(&nd), "Up");
	assert_int_equal(nd.mtu, 9000);
	assert_int_equal(nd.speed_mbps, 200000);
	assert_int_equal(nd.bond_slaves.n, 2);
	assert_string_equal(nd.bond_slaves.v[1], "ens1f1");
	assert_int_equal(nd.vlan, -1);
	rd_netdev_info_free(&nd);

	assert_int_equal(rd_netdev_read(&sr, "eth9", &vlans, &nd), 0);
	assert_string_equal(rd_netdev_updown(&nd), "Down");
	assert_false(nd.has_speed);
	rd_netdev_info_free(&nd);

	assert_int_equal(rd_netdev_read(&sr, "v", &vlans, &nd), 0);
	assert_string_equal(rd_netdev_updown(&nd), "Up");	/* unknown + carrier */
	assert_int_equal(nd.vlan, 7);
	assert_string_equal(nd.vlan_lower, "eth9");
	rd_netdev_info_free(&nd);

	assert_int_equal(rd_netdev_read(&sr, "gone", &vlans, &nd), 0);
	assert_false(nd.present);
	assert_string_equal(rd_netdev_updown(&nd), "NA");
	rd_netdev_info_free(&nd);
	assert_int_equal(rd_netdev_read(&sr, "../../etc", &vlans, &nd), 0);
	assert_false(nd.present);
	rd_netdev_info_free(&nd);

	rd_netdev_cache_init(&nc, &sr);
	assert_true(rd_netdev_is_up(&nc, "bond0"));
	assert_false(rd_netdev_is_up(&nc, "eth9"));
	assert_true(rd_netdev_is_up(&nc, "elsewhere"));	/* not visible: cannot tell */
	assert_false(rd_netdev_is_up(&nc, "a/b"));
	assert_false(rd_netdev_is_up(&nc, "long"));	/* up to 31 bytes read: not "up" */
	/* The cache gives rd_netdev_read's facts, whichever question read the files first. */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(rd_netdev_read(&sr, names[i], &vlans, &nd), 0);
		assert_int_equal(rd_netdev_read_cached(&nc, names[i], &vlans, &ndc), 0);
		assert_int_equal(nd.present, ndc.present);
		assert_string_equal(nd.operstate, ndc.operstate);
		assert_int_equal(nd.carrier, ndc.carrier);
		assert_int_equal(nd.mtu, ndc.mtu);
		assert_int_equal(nd.vlan, ndc.vlan);
		assert_string_equal(rd_netdev_updown(&nd), rd_netdev_updown(&ndc));
		rd_netdev_info_free(&nd);
		rd_netdev_info_free(&ndc);
	}
	/* Read once a run: a change is seen by the next run (a new cache), not this one. */
	put("sys/class/net/eth9/operstate", "up\n");
	put("sys/class/net/eth9/carrier", "1\n");
	assert_false(rd_netdev_is_up(&nc, "eth9"));
	assert_int_equal(rd_netdev_read_cached(&nc, "eth9", NULL, &ndc), 0);
	assert_string_equal(ndc.operstate, "down");
	rd_netdev_info_free(&ndc);
	rd_netdev_cache_free(&nc);
	assert_true(rd_netdev_is_up(&nc, "eth9"));
	/* Here or elsewhere: a name with no entry under /sys/class/net is another namespace's. */
	assert_true(rd_netdev_visible(&nc, "bond0"));
	assert_false(rd_netdev_elsewhere(&nc, "bond0"));
	assert_false(rd_netdev_visible(&nc, "elsewhere"));
	assert_true(rd_netdev_elsewhere(&nc, "elsewhere"));
	assert_false(rd_netdev_elsewhere(&nc, "a/b"));
	rd_netdev_cache_free(&nc);
	rd_vlan_map_free(&vlans);
	scratch_remove();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vlan_line),
		cmocka_unit_test(test_netdev_parsers),
		cmocka_unit_test(test_netdev_from_rtnl),
		cmocka_unit_test(test_nldev_parse),
		cmocka_unit_test(test_netdev_facts),
	};

	return cmocka_run_group_tests_name("netdev", tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
#include "unit.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "model/gid.h"
#include "model/gidlive.h"
#include "model/gidpolicy.h"
#include "base/parse.h"
#include "model/netdev.h"

static void gid_from(const char *s, uint8_t g[16])
{
	assert_int_equal(rd_parse_gid(s, g), 0);
}

static void test_classify(void **state)
{
	uint8_t g[16];
	char buf[48];
	int fam;

	(void)state;
	gid_from("0000:0000:0000:0000:0000:ffff:c0a8:2a08", g);
	assert_true(rd_gid_is_v4mapped(g));
	assert_false(rd_gid_is_link_local(g));
	rd_gid_address(g, buf, &fam);
	assert_string_equal(buf, "192.168.42.8");
	assert_int_equal(fam, AF_INET);

	/* show_gids calls this "IPv4" because the first group is 0000: it is not. */
	gid_from("0000:0000:0000:0000:0000:0000:c0a8:2a08", g);
	assert_false(rd_gid_is_v4mapped(g));
	rd_gid_address(g, buf, &fam);
	assert_int_equal(fam, AF_INET6);
	assert_string_equal(buf, "::192.168.42.8");

	gid_from("0000:0000:0000:0001:0000:ffff:c0a8:2a08", g);	/* byte 6/7 set */
	assert_false(rd_gid_is_v4mapped(g));

	gid_from("fe80:0000:0000:0000:0e42:a1ff:fe65:8b1e", g);
	assert_true(rd_gid_is_link_local(g));
	rd_gid_address(g, buf, &fam);
	assert_string_equal(buf, "fe80::e42:a1ff:fe65:8b1e");
	rd_gid_format(g, buf);
	assert_string_equal(buf, "fe80:0000:0000:0000:0e42:a1ff:fe65:8b1e");

	gid_from("febf:0000:0000:0000:0000:0000:0000:0001", g);	/* still fe80::/10 */
	assert_true(rd_gid_is_link_local(g));
	gid_from("fec0:0000:0000:0000:0000:0000:0000:0001", g);
	assert_false(rd_gid_is_link_local(g));

	gid_from("0000:0000:0000:0000:0000:0000:0000:0000", g);
	assert_true(rd_gid_is_zero(g));
}

static void test_version(void **state)
{
	(void)state;
	assert_int_equal(rd_gid_ver_from("RoCE v2", RD_LL_ETHERNET, true), RD_GID_VER_V2);
	assert_int_equal(rd_gid_ver_from("IB/RoCE v1", RD_LL_ETHERNET, true), RD_GID_VER_V1);
	/* The kernel says "IB/RoCE v1" on IB ports too: the link layer decides. */
	assert_int_equal(rd_gid_ver_from("IB/RoCE v1", RD_LL_INFINIBAND, true), RD_GID_VER_IB);
	assert_int_equal(rd_gid_ver_from("", RD_LL_INFINIBAND, true), RD_GID_VER_IB);
	assert_int_equal(rd_gid_ver_from("", RD_LL_ETHERNET, true), RD_GID_VER_UNKNOWN);
	assert_int_equal(rd_gid_ver_from("IB/RoCE v1", RD_LL_UNKNOWN, false), RD_GID_VER_UNKNOWN);
	assert_int_equal(rd_gid_ver_from("RoCE v3", RD_LL_ETHERNET, true), RD_GID_VER_UNKNOWN);
	assert_string_equal(rd_gid_ver_name(RD_GID_VER_V2), "v2");
	assert_string_equal(rd_gid_ver_name(RD_GID_VER_IB), "IB");
	assert_null(rd_gid_ver_name(RD_GID_VER_UNKNOWN));
}

static struct rd_gid mk(unsigned int idx, const char *gid, enum rd_gid_ver ver, const char *ndev,
			int vlan)
{
	struct rd_gid g = { .index = idx, .ver = ver, .vlan = vlan };

	gid_from(gid, g.raw);
	rd_strlcpy(g.ndev, ndev, sizeof(g.ndev));
	return g;
}

static bool down_is_eth1(void *ctx, const char *ifname)
{
	(void)ctx;
	return strcmp(ifname, "eth1") != 0;
}

#define LL "fe80:0000:0000:0000:0e42:a1ff:fe65:8b1e"
#define V4 "0000:0000:0000:0000:0000:ffff:c0a8:2a08"
#define V4B "0000:0000:0000:0000:0000:ffff:c0a8:6408"
#define G6 "2001:0db8:0042:0000:0000:0000:0000:0008"

#define ULA "fd12:3456:789a:0001:0000:0000:0000:0005"

/* Ranking of issue #16: v2 IPv4 > v2 global IPv6 (ULA too) > v2 link-local > v1; VLAN facts. */
static void test_best_rank_vlan(void **state)
{
	struct rd_port eth = { .num = 1, .known = RD_PORT_LINK_LAYER, .link_layer = RD_LL_ETHERNET };
	char reason[160], why[160];
	const struct rd_gid *b;

	(void)state;
	struct rd_gid v6only[] = {
		mk(0, LL, RD_GID_VER_V1, "ens2f0np0", -1),
		mk(1, LL, RD_GID_VER_V2, "ens2f0np0", -1),
		mk(2, ULA, RD_GID_VER_V1, "ens2f0np0", -1),
		mk(3, ULA, RD_GID_VER_V2, "ens2f0np0", -1),
		mk(4, G6, RD_GID_VER_V2, "ens2f0np0", -1),
	};
	struct rd_gid_table t = { .v = v6only, .n = RD_ARRAY_SIZE(v6only) };

	b = rd_gid_best(&t, &eth, -1, NULL, NULL, reason, sizeof(reason), why, sizeof(why));
	assert_non_null(b);
	assert_int_equal(b->index, 3);	/* ULA counts as global; tie with 4 to the lower */

	/* A VLAN netdev of unknown id is not untagged; one that cannot be told blocks a guess. */
	struct rd_gid vl[] = {
		mk(0, LL, RD_GID_VER_V2, "eth0", -1),
		mk(1, G6, RD_GID_VER_V2, "eth0", -1),
		mk(2, V4, RD_GID_VER_V2, "eth0.100", RD_VLAN_TAGGED),
		mk(3, V4B, RD_GID_VER_V2, "eth0.200", RD_VLAN_CANNOT_TELL),
	};
	struct rd_gid_table tv = { .v = vl, .n = 3 };

	b = rd_gid_best(&tv, &eth, -1, NULL, NULL, reason, sizeof(reason), why, sizeof(why));
	assert_non_null(b);
	assert_int_equal(b->index, 1);
	b = rd_gid_best(&tv, &eth, 100, NULL, NULL, reason, sizeof(reason), why, sizeof(why));
	assert_null(b);
	assert_non_null(strstr(why, "cannot tell whether eth0.100 is on that VLAN"));
	b = rd_gid_best(&tv, &eth, RD_GID_VLAN_ANY, NULL, NULL, reason, sizeof(reason), why,
			sizeof(why));
	assert_non_null(b);
	assert_int_equal(b->index, 2);
	tv.n = 4;
	b = rd_gid_best(&tv, &eth, -1, NULL, NULL, reason, sizeof(reason), why, sizeof(why));
	assert_null(b);
	assert_non_null(strstr(why, "cannot tell whether eth0.200 is a VLAN netdev"));
}

static void test_best(void **state)
{
	struct rd_port eth = { .num = 1, .known = RD_PORT_LINK_LAYER, .link_layer = RD_LL_ETHERNET };
	struct rd_port ib = { .num = 1, .known = RD_PORT_LINK_LAYER, .link_layer = RD_LL_INFINIBAND };
	char reason[160], why[160];
	const struct rd_gid *b;

	(void)state;
	struct rd_gid v[] = {
		mk(0, LL, RD_GID_VER_V1, "eth0", -1),
		mk(1, LL, RD_GID_VER_V2, "eth0", -1),
		mk(2, V4, RD_GID_VER_V1, "eth0", -1),
		mk(3, G6, RD_GID_VER_V2, "eth0", -1),
		mk(4, V4B, RD_GID_VER_V2, "eth0.100", 100),
		mk(5, V4, RD_GID_VER_V2, "eth0", -1),
		mk(6, V4, RD_GID_VER_V2, "eth0", -1),	/* tie with 5: lower wins */
	};
	struct rd_gid_table t = { .v = v, .n = RD_ARRAY_SIZE(v) };

	b = rd_gid_best(&t, &eth, -1, NULL, NULL, reason, sizeof(reason), why, sizeof(why));
	assert_non_null(b);
	assert_int_equal(b->index, 5);
	assert_string_equal(reason, "RoCE v2, 192.168.42.8 on eth0");

	b = rd_gid_best(&t, &eth, 100, NULL, NULL, reason, sizeof(reason), why, sizeof(why));
	assert_non_null(b);
	assert_int_equal(b->index, 4);

	b = rd_gid_best(&t, &eth, 200, NULL, NULL, reason, sizeof(reason), why, sizeof(why));
	assert_null(b);
	assert_string_equal(why, "no RoCE GID on VLAN 200");

	/* Without IPv4: global IPv6 v2 beats link-local v2 */
	t.n = 4;
	b = rd_gid_best(&t, &eth, -1, NULL, NULL, reason, sizeof(reason), why, sizeof(why));
	assert_int_equal(b->index, 3);
	/* Only link-local and a v1 IPv4: v2 wins over IPv4 v1 */
	t.n = 3;
	b = rd_gid_best(&t, &eth, -1, NULL, NULL, reason, sizeof(reason), why, sizeof(why));
	assert_int_equal(b->index, 1);
	assert_string_equal(reason, "RoCE v2, link-local fe80::e42:a1ff:fe65:8b1e on eth0; "
			    "link-local only: this L2 segment, no routing");

	/* A down netdev disqualifies */
	struct rd_gid d[] = { mk(0, LL, RD_GID_VER_V2, "eth1", -1), mk(1, V4, RD_GID_VER_V2, "eth1", -1),
			      mk(2, LL, RD_GID_VER_V1, "eth0", -1) };
	struct rd_gid_table td = { .v = d, .n = 3 };

	b = rd_gid_best(&td, &eth, -1, down_is_eth1, NULL, reason, sizeof(reason), why, sizeof(why));
	assert_int_equal(b->index, 2);
	td.n = 2;
	b = rd_gid_best(&td, &eth, -1, down_is_eth1, NULL, reason, sizeof(reason), why, sizeof(why));
	assert_null(b);
	assert_string_equal(why, "the netdevs of every candidate GID are down");

	/* Unknown types never qualify */
	struct rd_gid u[] = { mk(0, V4, RD_GID_VER_UNKNOWN, "eth0", -1) };
	struct rd_gid_table tu = { .v = u, .n = 1 };

	assert_null(rd_gid_best(&tu, &eth, -1, NULL, NULL, reason, sizeof(reason), why, sizeof(why)));
	assert_string_equal(why, "no GID has a readable RoCE type in gid_attrs/types");

	struct rd_gid_table empty = { 0 };

	assert_null(rd_gid_best(&empty, &eth, -1, NULL, NULL, reason, sizeof(reason), why, sizeof(why)));
	assert_non_null(strstr(why, "no GID configured"));

	/* IB: the port GID */
	struct rd_gid i[] = { mk(0, LL, RD_GID_VER_IB, "", -1) };
	struct rd_gid_table ti = { .v = i, .n = 1 };

	b = rd_gid_best(&ti, &ib, -1, NULL, NULL, reason, sizeof(reason), why, sizeof(why));
	assert_int_equal(b->index, 0);
	assert_string_equal(reason, "InfiniBand, port GID");
}

static void test_table_read(void **state)
{
	struct rd_device dev = { .name = "m0" };
	struct rd_port port = { .num = 1, .known = RD_PORT_LINK_LAYER, .link_layer = RD_LL_ETHERNET };
	struct rd_vlan_map vlans = { 0 };
	struct rd_warnings w = { 0 };
	struct rd_gid_table t;
	struct rd_sysroot sr;

	(void)state;
	scratch_make();
	put("sys/class/infiniband/m0/ports/1/gids/0", LL "\n");
	put("sys/class/infiniband/m0/ports/1/gids/1", "0000:0000:0000:0000:0000:0000:0000:0000\n");
	put("sys/class/infiniband/m0/ports/1/gids/2", "garbage\n");
	put("sys/class/infiniband/m0/ports/1/gids/10", V4B "\n");
	put("sys/class/infiniband/m0/ports/1/gids/9", V4 "\n");	/* attrs missing */
	put("sys/class/infiniband/m0/ports/1/gid_attrs/types/0", "IB/RoCE v1\n");
	put("sys/class/infiniband/m0/ports/1/gid_attrs/ndevs/0", "eth0\n");
	put("sys/class/infiniband/m0/ports/1/gid_attrs/types/10", "RoCE v2\n");
	put("sys/class/infiniband/m0/ports/1/gid_attrs/ndevs/10", "eth0.100\n");
	put("proc/net/vlan/config", "VLAN Dev name\t | VLAN ID\nName-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD\n"
				    "eth0.100       | 100  | eth0\n");
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	assert_int_equal(rd_port_gid_table(&sr, &dev, &port, false, &t, &w), 0);
	assert_int_equal(t.slots, 5);
	assert_int_equal(t.n, 3);	/* 0, 9, 10: zero hidden, garbage skipped */
	assert_int_equal(t.v[0].index, 0);
	assert_int_equal(t.v[0].ver, RD_GID_VER_V1);
	assert_int_equal(t.v[1].index, 9);
	assert_int_equal(t.v[1].ver, RD_GID_VER_UNKNOWN);
	assert_string_equal(t.v[1].ndev, "");
	assert_int_equal(t.v[2].index, 10);
	assert_int_equal(t.v[2].vlan, 100);
	assert_int_equal(w.msgs.n, 1);
	assert_non_null(strstr(w.msgs.v[0], "GID 2: malformed value"));
	rd_gid_table_free(&t);
	assert_int_equal(rd_port_gid_table(&sr, &dev, &port, true, &t, &w), 0);
	assert_int_equal(t.n, 4);	/* with the empty slot 1 */
	rd_gid_table_free(&t);
	/* A port without gids/: an error for that port only, with a warning. */
	port.num = 2;
	assert_int_equal(rd_port_gid_table(&sr, &dev, &port, false, &t, &w), -ENOENT);
	/* GID 2's warning again from the second read is said once (rd_warn dedups). */
	assert_int_equal(w.msgs.n, 2);

	/*
	 * The one "verbs, else sysfs" rule (rd_gid_port_table): under a tree
	 * there is no verbs handle (it would describe this host), and the
	 * table is the tree's, empty slots included when asked.
	 */
	assert_null(rd_gid_live_open(&sr));
	assert_int_equal(rd_vlan_map_read(&sr, &vlans), 0);
	port.num = 1;
	assert_int_equal(rd_gid_port_table(NULL, &sr, &dev, &port, false, &vlans, &t, &w), 0);
	assert_int_equal(t.n, 3);	/* 0, 9, 10 */
	assert_int_equal(t.v[2].index, 10);
	assert_string_equal(t.v[2].ndev, "eth0.100");
	assert_int_equal(t.v[2].vlan, 100);
	rd_gid_table_free(&t);
	assert_int_equal(rd_gid_port_table(NULL, &sr, &dev, &port, true, &vlans, &t, &w), 0);
	assert_int_equal(t.n, 4);
	rd_gid_table_free(&t);
	port.num = 2;
	assert_int_equal(rd_gid_port_table(NULL, &sr, &dev, &port, false, &vlans, &t, &w), -ENOENT);
	assert_int_equal(w.msgs.n, 2);
	rd_vlan_map_free(&vlans);
	rd_warnings_free(&w);
	scratch_remove();
}

/*
 * The GID formatters and parser skip printf, inet_ntop and inet_pton on the
 * common forms; they must give what those give.  Random addresses, with runs
 * of zero groups and the IPv4 forms over-represented, each formatted both
 * ways, and each sysfs text parsed back both ways.
 */
static void test_format_parse_vs_libc(void **state)
{
	uint64_t x = 0x2545f4914f6cdd1du;

	(void)state;
	for (int n = 0; n < 200000; n++) {
		uint8_t g[16], back[16], want[16];
		char mine[48], libc[48], text[40], sys[40];
		int fam;

		for (int i = 0; i < 8; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* A group is zero half of the time, 0xffff now and then. */
			uint16_t w = (x & 3) < 2 ? 0 : (x & 0xf) == 3 ? 0xffff : (uint16_t)(x >> 16);

			if ((x >> 40) % 5 == 0)
				w &= 0xf;	/* short groups: leading zeros dropped */
			g[2 * i] = (uint8_t)(w >> 8);
			g[2 * i + 1] = (uint8_t)w;
		}
		if (n % 7 == 0)	/* v4-mapped */
			memcpy(g, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);
		rd_gid_address(g, mine, &fam);
		if (rd_gid_is_v4mapped(g)) {
			assert_int_equal(fam, AF_INET);
			assert_non_null(inet_ntop(AF_INET, g + 12, libc, sizeof(libc)));
		} else {
			assert_int_equal(fam, AF_INET6);
			assert_non_null(inet_ntop(AF_INET6, g, libc, sizeof(libc)));
		}
		if (strcmp(mine, libc) != 0)
			fail_msg("address %d: ours \"%s\", inet_ntop \"%s\"", n, mine, libc);
		rd_gid_format(g, text);
		snprintf(sys, sizeof(sys),
			 "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
			 g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11],
			 g[12], g[13], g[14], g[15]);
		assert_string_equal(text, sys);
		assert_int_equal(rd_parse_gid(text, back), 0);
		assert_int_equal(inet_pton(AF_INET6, text, want), 1);
		assert_memory_equal(back, want, 16);
		assert_memory_equal(back, g, 16);
	}
	/* Upper case and the short forms still parse (inet_pton's way); garbage does not. */
	uint8_t g[16];

	assert_int_equal(rd_parse_gid("FE80:0000:0000:0000:0202:C9FF:FE00:0001\n", g), 0);
	assert_int_equal(g[0], 0xfe);
	assert_int_equal(g[15], 0x01);
	assert_int_equal(rd_parse_gid("fe80::1", g), 0);
	assert_int_equal(g[15], 1);
	assert_int_equal(rd_parse_gid("fe80:0000:0000:0000:0202:c9ff:fe00:000g", g), -EINVAL);
	assert_int_equal(rd_parse_gid("fe80:0000:0000:0000:0202:c9ff:fe00-0001", g), -EINVAL);
}

/* model/gidpolicy: NCCL's settings when the index differs; show_gids' text order. */
static void test_policy(void **state)
{
	struct rd_device d = { .name = "mlx5_0" };
	struct rd_port p = { .num = 1 };
	struct rd_gid_choice c[3] = { 0 };
	struct rd_gid_nccl adv;
	struct rd_gid_table t = { 0 };
	struct rd_gid v[3] = { { .index = 10 }, { .index = 2 }, { .index = 1 } };

	(void)state;
	for (int i = 0; i < 3; i++) {
		c[i].d = &d;
		c[i].p = &p;
		c[i].ok = true;
		c[i].g.ver = RD_GID_VER_V2;
	}
	gid_from("0000:0000:0000:0000:0000:ffff:0a00:0105", c[0].g.raw);
	c[0].g.index = 3;
	gid_from("0000:0000:0000:0000:0000:ffff:0a00:0207", c[1].g.raw);
	c[1].g.index = 3;
	gid_from("fe80:0000:0000:0000:0202:c9ff:fe00:0001", c[2].g.raw);
	c[2].g.index = 3;
	rd_gid_nccl_advice(c, 3, &adv);
	assert_false(adv.differs);	/* one index everywhere: NCCL_IB_GID_INDEX=3 fits */
	c[1].g.index = 5;
	c[2].g.ver = RD_GID_VER_V1;
	rd_gid_nccl_advice(c, 3, &adv);
	assert_true(adv.differs);
	assert_string_equal(adv.env[0], "NCCL_IB_ADDR_FAMILY=AF_INET NCCL_IB_ADDR_RANGE=10.0.0.0/22 "
					"NCCL_IB_ROCE_VERSION_NUM=2");
	assert_string_equal(adv.env[1], "NCCL_IB_ADDR_FAMILY=AF_INET6 NCCL_IB_ADDR_RANGE=fe80::/64 "
					"NCCL_IB_ROCE_VERSION_NUM=1");
	c[2].ok = false;	/* a port without a choice takes no part */
	rd_gid_nccl_advice(c, 3, &adv);
	assert_string_equal(adv.env[1], "");
	/* --compat: GID 10 before 2 before... as ls sorts names: 1, 10, 2 */
	t.v = v;
	t.n = 3;
	rd_gid_compat_sort_table(&t);
	assert_int_equal(v[0].index, 1);
	assert_int_equal(v[1].index, 10);
	assert_int_equal(v[2].index, 2);
	assert_true(rd_gid_compat_skipped(&v[0]));	/* the zero GID */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_best),
		cmocka_unit_test(test_best_rank_vlan),
		cmocka_unit_test(test_table_read),
		cmocka_unit_test(test_format_parse_vs_libc),
		cmocka_unit_test(test_policy),
	};

	return cmocka_run_group_tests_name("gid", tests, NULL, NULL);
}

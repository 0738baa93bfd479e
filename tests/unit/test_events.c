// SPDX-License-Identifier: MIT
#include "unit.h"

#include <infiniband/verbs.h>

#include "watch/events.h"
#include "output/output.h"
#include "base/parse.h"

/* Every value of enum ibv_event_type has a name, a meaning and a scope. */
static void test_async_names(void **state)
{
	(void)state;
	/* The table covers the installed header up to its last value. */
	assert_int_equal(rd_async_event_max(), IBV_EVENT_WQ_FATAL);
	for (int t = 0; t <= rd_async_event_max(); t++) {
		const char *name = rd_async_event_name(t), *meaning = rd_async_event_meaning(t);

		assert_non_null(name);
		assert_non_null(meaning);
		assert_true(strlen(meaning) > 5);
		assert_int_not_equal(rd_async_event_scope(t), RD_ASYNC_UNKNOWN);
		assert_null(strstr(name, "IBV_EVENT_"));
		for (const char *p = name; *p; p++)
			assert_true((*p >= 'A' && *p <= 'Z') || *p == '_');
		for (int u = 0; u < t; u++)
			assert_string_not_equal(name, rd_async_event_name(u));
	}
	assert_string_equal(rd_async_event_name(IBV_EVENT_PORT_ERR), "PORT_ERR");
	assert_string_equal(rd_async_event_meaning(IBV_EVENT_PORT_ERR), "port went down");
	assert_string_equal(rd_async_event_name(IBV_EVENT_PORT_ACTIVE), "PORT_ACTIVE");
	assert_string_equal(rd_async_event_name(IBV_EVENT_GID_CHANGE), "GID_CHANGE");
	assert_string_equal(rd_async_event_name(IBV_EVENT_CLIENT_REREGISTER), "CLIENT_REREGISTER");
	assert_string_equal(rd_async_event_name(IBV_EVENT_WQ_FATAL), "WQ_FATAL");
	assert_null(rd_async_event_name(-1));
	assert_null(rd_async_event_meaning(rd_async_event_max() + 1));
	assert_int_equal(rd_async_event_scope(1000), RD_ASYNC_UNKNOWN);
}

/* Port events carry their port; device and resource events do not. */
static void test_async_scope(void **state)
{
	static const int port_events[] = {
		IBV_EVENT_PORT_ACTIVE, IBV_EVENT_PORT_ERR, IBV_EVENT_LID_CHANGE, IBV_EVENT_PKEY_CHANGE,
		IBV_EVENT_SM_CHANGE, IBV_EVENT_CLIENT_REREGISTER, IBV_EVENT_GID_CHANGE,
	};
	int nport = 0;
	struct rd_event ev;

	(void)state;
	for (size_t i = 0; i < RD_ARRAY_SIZE(port_events); i++)
		assert_int_equal(rd_async_event_scope(port_events[i]), RD_ASYNC_PORT);
	for (int t = 0; t <= rd_async_event_max(); t++)
		nport += rd_async_event_scope(t) == RD_ASYNC_PORT;
	assert_int_equal(nport, RD_ARRAY_SIZE(port_events));
	assert_int_equal(rd_async_event_scope(IBV_EVENT_DEVICE_FATAL), RD_ASYNC_DEVICE);
	assert_int_equal(rd_async_event_scope(IBV_EVENT_CQ_ERR), RD_ASYNC_CQ);
	assert_int_equal(rd_async_event_scope(IBV_EVENT_QP_FATAL), RD_ASYNC_QP);
	assert_int_equal(rd_async_event_scope(IBV_EVENT_COMM_EST), RD_ASYNC_QP);
	assert_int_equal(rd_async_event_scope(IBV_EVENT_QP_LAST_WQE_REACHED), RD_ASYNC_QP);
	assert_int_equal(rd_async_event_scope(IBV_EVENT_SRQ_LIMIT_REACHED), RD_ASYNC_SRQ);
	assert_int_equal(rd_async_event_scope(IBV_EVENT_WQ_FATAL), RD_ASYNC_WQ);

	rd_event_async(&ev, "rxe0", IBV_EVENT_PORT_ERR, 1);
	assert_int_equal(ev.port, 1);
	assert_int_equal(ev.source, RD_EVSRC_ASYNC);
	assert_string_equal(ev.name, "PORT_ERR");
	assert_string_equal(ev.text, "port went down");
	assert_int_equal(ev.severity, RD_SEV_BAD);
	assert_true(ev.time.tv_sec > 0);
	/* ibv_asyncwatch prints a port for device events: the union holds garbage there. */
	rd_event_async(&ev, "mlx5_0", IBV_EVENT_DEVICE_FATAL, 77);
	assert_int_equal(ev.port, 0);
	rd_event_async(&ev, "mlx5_0", IBV_EVENT_QP_FATAL, 3);
	assert_int_equal(ev.port, 0);
	rd_event_async(&ev, "rxe0", IBV_EVENT_PORT_ACTIVE, 2);
	assert_int_equal(ev.severity, RD_SEV_GOOD);
	/* A value from a newer libibverbs still makes a line. */
	rd_event_async(&ev, "rxe0", 99, 1);
	assert_string_equal(ev.name, "EVENT_99");
	assert_int_equal(ev.port, 0);
}

static struct rd_gid mkgid(unsigned int index, const char *gid, const char *type, const char *ndev)
{
	struct rd_gid g = { .index = index, .ver = RD_GID_VER_V2, .vlan = -1 };

	assert_int_equal(rd_parse_gid(gid, g.raw), 0);
	strcpy(g.type, type);
	strcpy(g.ndev, ndev);
	return g;
}

#define LL "fe80:0000:0000:0000:5054:00ff:fe0a:0a01"
#define V4A "0000:0000:0000:0000:0000:ffff:0a0a:0001"
#define V4B "0000:0000:0000:0000:0000:ffff:0a0a:0009"
#define V6 "2001:0db8:0010:0000:0000:0000:0000:0001"

static void test_gid_diff(void **state)
{
	struct rd_gid old_v[] = {
		mkgid(0, LL, "RoCE v2", "eth0"),
		mkgid(1, V4A, "RoCE v2", "eth0"),
		mkgid(3, V6, "RoCE v2", "eth0"),
		mkgid(10, V6, "RoCE v2", "eth0.100"),
	};
	struct rd_gid new_v[] = {
		mkgid(0, LL, "RoCE v2", "eth0"),	/* same */
		mkgid(1, V4A, "RoCE v2", "eth1"),	/* netdev changed */
		mkgid(2, V4B, "RoCE v2", "eth0"),	/* added */
		mkgid(10, V4B, "RoCE v2", "eth0.100"),	/* GID changed */
		mkgid(11, V4B, "IB/RoCE v1", "eth0"),	/* added at the end */
	};
	struct rd_gid_table old = { .v = old_v, .n = RD_ARRAY_SIZE(old_v) };
	struct rd_gid_table cur = { .v = new_v, .n = RD_ARRAY_SIZE(new_v) };
	struct rd_gid_table empty = { 0 };
	struct rd_gid_diff d;

	(void)state;
	assert_int_equal(rd_gid_table_diff(&old, &cur, &d), 0);
	assert_int_equal(d.n, 5);
	/* In index order: 1 changed, 2 added, 3 removed, 10 changed, 11 added. */
	assert_int_equal(d.v[0].kind, RD_GID_CHANGED);
	assert_int_equal(d.v[0].cur.index, 1);
	assert_string_equal(d.v[0].old.ndev, "eth0");
	assert_string_equal(d.v[0].cur.ndev, "eth1");
	assert_int_equal(d.v[1].kind, RD_GID_ADDED);
	assert_int_equal(d.v[1].cur.index, 2);
	assert_int_equal(d.v[2].kind, RD_GID_REMOVED);
	assert_int_equal(d.v[2].old.index, 3);
	assert_int_equal(d.v[3].kind, RD_GID_CHANGED);
	assert_int_equal(d.v[3].cur.index, 10);
	assert_int_equal(memcmp(d.v[3].old.raw, old_v[3].raw, 16), 0);
	assert_int_equal(d.v[4].kind, RD_GID_ADDED);
	assert_int_equal(d.v[4].cur.index, 11);
	rd_gid_diff_free(&d);

	/* A type change alone is a change too. */
	/* cppcheck-suppress unreadVariable ; read through cur.v */
	new_v[0] = mkgid(0, LL, "IB/RoCE v1", "eth0");
	cur.n = 1;
	old.n = 1;
	assert_int_equal(rd_gid_table_diff(&old, &cur, &d), 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.v[0].kind, RD_GID_CHANGED);
	rd_gid_diff_free(&d);

	/* Nothing changed: nothing reported. */
	assert_int_equal(rd_gid_table_diff(&old, &old, &d), 0);
	assert_int_equal(d.n, 0);
	rd_gid_diff_free(&d);

	/* From and to an empty table. */
	old.n = RD_ARRAY_SIZE(old_v);
	assert_int_equal(rd_gid_table_diff(&empty, &old, &d), 0);
	assert_int_equal(d.n, 4);
	for (size_t i = 0; i < d.n; i++)
		assert_int_equal(d.v[i].kind, RD_GID_ADDED);
	rd_gid_diff_free(&d);
	assert_int_equal(rd_gid_table_diff(&old, &empty, &d), 0);
	assert_int_equal(d.n, 4);
	for (size_t i = 0; i < d.n; i++)
		assert_int_equal(d.v[i].kind, RD_GID_REMOVED);
	rd_gid_diff_free(&d);
	assert_int_equal(rd_gid_table_diff(&empty, &empty, &d), 0);
	assert_int_equal(d.n, 0);
	assert_null(d.v);
}

static void test_gid_event_text(void **state)
{
	struct rd_gid_change c = { .kind = RD_GID_ADDED };
	struct rd_event ev;

	(void)state;
	c.cur = mkgid(2, V4B, "RoCE v2", "eth0");
	rd_event_gid(&ev, "rxe0", 1, &c);
	assert_string_equal(ev.name, "GID_ADD");
	assert_int_equal(ev.source, RD_EVSRC_GID);
	assert_int_equal(ev.port, 1);
	assert_string_equal(ev.text, "index 2 ::ffff:10.10.0.9 v2 eth0");

	c.kind = RD_GID_REMOVED;
	c.old = mkgid(4, V6, "RoCE v2", "eth0.100");
	c.old.vlan = 100;
	rd_event_gid(&ev, "rxe0", 1, &c);
	assert_string_equal(ev.name, "GID_DEL");
	assert_string_equal(ev.text, "index 4 2001:db8:10::1 v2 eth0.100 vlan 100");
	assert_int_equal(ev.gid.index, 4);

	c.kind = RD_GID_CHANGED;
	c.old = mkgid(2, V4A, "RoCE v2", "eth0");
	rd_event_gid(&ev, "rxe0", 1, &c);
	assert_string_equal(ev.name, "GID_MOD");
	assert_string_equal(ev.text, "index 2 ::ffff:10.10.0.9 v2 eth0 (was ::ffff:10.10.0.1 v2 eth0)");
	assert_int_equal(ev.old_gid.index, 2);
}

static void test_uevent_parse(void **state)
{
	static const char add[] = "add@/devices/virtual/infiniband/rxe1/infiniband_verbs/uverbs1\0"
				  "ACTION=add\0DEVPATH=/devices/virtual/infiniband/rxe1/infiniband_verbs/uverbs1\0"
				  "SUBSYSTEM=infiniband_verbs\0MAJOR=231\0MINOR=193\0DEVNAME=infiniband/uverbs1\0"
				  "SEQNUM=2345";
	static const char move[] = "move@/devices/virtual/infiniband/rxe9\0ACTION=move\0"
				   "DEVPATH=/devices/virtual/infiniband/rxe9\0SUBSYSTEM=infiniband\0"
				   "DEVPATH_OLD=/devices/virtual/infiniband/rxe1\0NAME=rxe9\0SEQNUM=7\0";
	static const char udev[] = "libudev\0\xfe\xed\xca\xfe garbage";
	static const char nohdr[] = "ACTION=add\0DEVPATH=/x\0";
	struct rd_uevent u;
	char big[300];

	(void)state;
	/* Without the final NUL: the kernel ends every string with one, we do not rely on it. */
	assert_int_equal(rd_uevent_parse(add, sizeof(add) - 1, &u), 0);
	assert_string_equal(u.action, "add");
	assert_string_equal(u.subsystem, "infiniband_verbs");
	assert_string_equal(u.kname, "uverbs1");
	assert_string_equal(u.old_kname, "");
	assert_int_equal(rd_uevent_parse(move, sizeof(move), &u), 0);
	assert_string_equal(u.action, "move");
	assert_string_equal(u.subsystem, "infiniband");
	assert_string_equal(u.kname, "rxe9");
	assert_string_equal(u.old_kname, "rxe1");

	assert_int_equal(rd_uevent_parse(udev, sizeof(udev), &u), -EINVAL);
	assert_int_equal(rd_uevent_parse(nohdr, sizeof(nohdr), &u), -EINVAL);
	assert_int_equal(rd_uevent_parse("add@/x", 6, &u), -EINVAL);	/* header not terminated */
	assert_int_equal(rd_uevent_parse("", 0, &u), -EINVAL);
	assert_int_equal(rd_uevent_parse("add@/x\0SUBSYSTEM=net\0", 21, &u), -EINVAL);	/* no ACTION */
	/* Values longer than we keep are cut, not overflowed. */
	memset(big, 'a', sizeof(big));
	memcpy(big, "a@b\0ACTION=add\0DEVPATH=/", 24);
	assert_int_equal(rd_uevent_parse(big, sizeof(big), &u), 0);
	assert_true(strlen(u.kname) < sizeof(u.kname));
}

static void test_time_format(void **state)
{
	struct timespec ts = { .tv_sec = 1795342502, .tv_nsec = 123999999 };
	char buf[40];

	(void)state;
	rd_ev_format_time(&ts, true, buf);
	assert_string_equal(buf, "2026-11-22T10:15:02.123Z");
	setenv("TZ", "UTC", 1);
	tzset();
	rd_ev_format_time(&ts, false, buf);
	assert_string_equal(buf, "2026-11-22T10:15:02.123");
	setenv("TZ", "CET-1", 1);
	tzset();
	rd_ev_format_time(&ts, false, buf);
	assert_string_equal(buf, "2026-11-22T11:15:02.123");
	ts.tv_nsec = 5000000;
	rd_ev_format_time(&ts, true, buf);
	assert_string_equal(buf, "2026-11-22T10:15:02.005Z");
	unsetenv("TZ");
	tzset();
}

static void test_link_events(void **state)
{
	struct rd_ev_link l = { .netdev = "eth0", .ifindex = 2, .known = true, .operstate = "down",
				.carrier = 0, .admin_up = 0, .mtu = 1500 };
	char why[48];
	struct rd_event ev;

	(void)state;
	assert_false(rd_ev_link_up(&l));
	assert_string_equal(rd_ev_link_why_down(&l, why, sizeof(why)), "administratively down");
	rd_event_link(&ev, "rxe0", 1, "LINK_DOWN", &l);
	assert_string_equal(ev.text, "eth0 down (administratively down)");
	assert_int_equal(ev.source, RD_EVSRC_LINK);
	assert_int_equal(ev.severity, RD_SEV_BAD);
	l.admin_up = 1;
	assert_string_equal(rd_ev_link_why_down(&l, why, sizeof(why)), "no carrier");
	l.carrier = 1;
	strcpy(l.operstate, "dormant");
	assert_string_equal(rd_ev_link_why_down(&l, why, sizeof(why)), "operstate dormant");
	/* "unknown" with carrier counts as up (drivers that do not report operstate). */
	strcpy(l.operstate, "unknown");
	assert_true(rd_ev_link_up(&l));
	strcpy(l.operstate, "up");
	rd_event_link(&ev, "rxe0", 1, "LINK_UP", &l);
	assert_string_equal(ev.text, "eth0 up");
	assert_int_equal(ev.severity, RD_SEV_GOOD);
	l.old_mtu = 1500;
	l.mtu = 9000;
	rd_event_link(&ev, "rxe0", 1, "LINK_MTU", &l);
	assert_string_equal(ev.text, "eth0 mtu 1500 -> 9000");
	strcpy(l.old_netdev, "eth0");
	strcpy(l.netdev, "lan0");
	rd_event_link(&ev, "rxe0", 1, "LINK_RENAME", &l);
	assert_string_equal(ev.text, "eth0 renamed to lan0");
	rd_event_link(&ev, "rxe0", 1, "LINK_GONE", &l);
	assert_string_equal(ev.text, "lan0 removed");
	l.known = false;
	assert_false(rd_ev_link_up(&l));
}

static void test_state_event(void **state)
{
	struct rd_device dev = { .name = "rxe0" };
	struct rd_port port = { .num = 1, .known = RD_PORT_STATE | RD_PORT_PHYS_STATE | RD_PORT_LINK_LAYER,
				.state = 4, .phys_state = 5, .link_layer = RD_LL_ETHERNET };
	struct rd_ev_link l = { 0 };
	struct rd_sysroot sr;
	struct rd_event ev;

	(void)state;
	scratch_make();
	put("sys/class/net/eth0/operstate", "up\n");
	put("sys/class/net/eth0/carrier", "1\n");
	put("sys/class/net/eth0/flags", "0x1003\n");
	put("sys/class/net/eth0/mtu", "1500\n");
	put("sys/class/net/eth0/ifindex", "2\n");
	put("sys/class/net/eth1/operstate", "down\n");
	put("sys/class/net/eth1/flags", "0x1002\n");
	put("sys/class/net/eth1/mtu", "9000\n");
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);

	rd_ev_link_from_sysfs(&sr, "eth0", &l);
	assert_true(l.known);
	assert_int_equal(l.ifindex, 2);
	assert_int_equal(l.carrier, 1);
	assert_int_equal(l.admin_up, 1);
	rd_event_port_state(&ev, &dev, &port, &l);
	assert_string_equal(ev.name, "STATE");
	assert_int_equal(ev.source, RD_EVSRC_STATE);
	assert_string_equal(ev.text, "ACTIVE LinkUp Ethernet, eth0 up mtu 1500");
	assert_int_equal(ev.severity, RD_SEV_GOOD);

	/* Administratively down: carrier cannot be read (unknown), flags say why. */
	rd_ev_link_from_sysfs(&sr, "eth1", &l);
	assert_int_equal(l.carrier, -1);
	assert_int_equal(l.admin_up, 0);
	port.state = 1;
	port.phys_state = 3;
	rd_event_port_state(&ev, &dev, &port, &l);
	assert_string_equal(ev.text, "DOWN Disabled Ethernet, eth1 down (administratively down) mtu 9000");
	assert_int_equal(ev.severity, RD_SEV_BAD);

	rd_ev_link_from_sysfs(&sr, "nosuch0", &l);
	assert_false(l.known);
	rd_event_port_state(&ev, &dev, &port, &l);
	assert_string_equal(ev.text, "DOWN Disabled Ethernet, nosuch0 not visible here");
	rd_ev_link_from_sysfs(&sr, "", &l);
	port.known = 0;
	rd_event_port_state(&ev, &dev, &port, &l);
	assert_string_equal(ev.text, "- - -, no netdev");
	rd_ev_link_from_sysfs(&sr, "../etc", &l);
	assert_false(l.known);
	scratch_remove();
}

static void test_source_names(void **state)
{
	(void)state;
	assert_string_equal(rd_ev_source_name(RD_EVSRC_ASYNC), "async");
	assert_string_equal(rd_ev_source_name(RD_EVSRC_LINK), "link");
	assert_string_equal(rd_ev_source_name(RD_EVSRC_GID), "gid");
	assert_string_equal(rd_ev_source_name(RD_EVSRC_DEVICE), "device");
	assert_string_equal(rd_ev_source_name(RD_EVSRC_STATE), "state");
}

/* rd_out_text: the pieces of a streamed text line; nothing in JSON. */
static void test_out_text(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct rd_out *o;

	(void)state;
	f = open_memstream(&buf, &len);
	o = rd_out_new(f, false, true);
	rd_out_text(o, RD_C_NONE, "%s ", "T");
	rd_out_text(o, RD_C_NAME, "%s", "rxe0");
	rd_out_text(o, RD_C_BAD, " %s", "PORT_ERR");
	rd_out_text(o, RD_C_NONE, "  %d\n", 1);
	assert_int_equal(rd_out_finish(o), 0);
	fclose(f);
	assert_string_equal(buf, "T \033[1mrxe0\033[0m\033[31m PORT_ERR\033[0m  1\n");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	o = rd_out_new(f, true, false);
	rd_out_set_stream(o, true);
	rd_out_section_begin(o, NULL, NULL);
	rd_out_text(o, RD_C_NONE, "text only\n");
	rd_out_str(o, RD_JSON, "event", NULL, "PORT_ERR");
	rd_out_section_end(o);
	assert_int_equal(rd_out_finish(o), 0);
	fclose(f);
	assert_string_equal(buf, "{\"event\":\"PORT_ERR\"}\n");
	free(buf);
}

struct moves {
	unsigned int n, index[4], old[4];
};

static void note_move(void *ctx, const struct rd_gid *g, unsigned int old_index)
{
	struct moves *m = ctx;

	m->index[m->n] = g->index;
	m->old[m->n++] = old_index;
}

/* A GID that comes back at another index is a move; one that stays is not (nccl#2157). */
static void test_gid_memo(void **state)
{
	struct rd_gid a = { .index = 1, .raw = { [10] = 0xff, [11] = 0xff, 10, 10, 0, 9 },
			    .ver = RD_GID_VER_V2, .ndev = "eth0", .vlan = -1 };
	struct rd_gid b = a, b1, a2, vlan = a, v1 = a;
	struct rd_gid_memo memo = { 0 };
	struct moves m = { 0 };

	(void)state;
	b.raw[15] = 8;
	b.index = 2;
	b1 = b;
	b1.index = 1;
	a2 = a;
	a2.index = 2;
	vlan.index = 3;
	rd_strlcpy(vlan.ndev, "eth0.100", sizeof(vlan.ndev));
	v1.index = 4;
	v1.ver = RD_GID_VER_V1;
	{
		struct rd_gid first[2] = { a, b }, swapped[2] = { b1, a2 }, others[2] = { vlan, v1 };
		const struct rd_gid_table t_first = { .v = first, .n = 2 }, t_none = { 0 },
					  t_swapped = { .v = swapped, .n = 2 },
					  t_others = { .v = others, .n = 2 };

		assert_int_equal(rd_gid_memo_update(&memo, &t_first, note_move, &m), 0);
		assert_int_equal(m.n, 0);	/* the baseline */
		assert_int_equal(rd_gid_memo_update(&memo, &t_first, note_move, &m), 0);
		assert_int_equal(m.n, 0);	/* nothing moved */
		/* Both gone, then back in the other order: each at the other's index. */
		assert_int_equal(rd_gid_memo_update(&memo, &t_none, note_move, &m), 0);
		assert_int_equal(rd_gid_memo_update(&memo, &t_swapped, note_move, &m), 0);
		assert_int_equal(m.n, 2);
		assert_int_equal(m.index[0], 1);
		assert_int_equal(m.old[0], 2);
		assert_int_equal(m.index[1], 2);
		assert_int_equal(m.old[1], 1);
		/* The same address on a VLAN netdev, or as RoCE v1, is another GID. */
		m.n = 0;
		assert_int_equal(rd_gid_memo_update(&memo, &t_others, note_move, &m), 0);
		assert_int_equal(m.n, 0);
	}
	rd_gid_memo_free(&memo);
}

static void test_gid_moved_event(void **state)
{
	struct rd_gid g = { .index = 5, .raw = { [10] = 0xff, [11] = 0xff, 10, 10, 0, 9 },
			    .ver = RD_GID_VER_V2, .ndev = "eth0", .vlan = -1 };
	struct rd_event ev;

	(void)state;
	rd_event_gid_moved(&ev, "rxe0", 1, &g, 3);
	assert_string_equal(ev.name, "GID_MOVED");
	assert_int_equal(ev.severity, RD_SEV_WARN);
	assert_int_equal(ev.gid.index, 5);
	assert_non_null(strstr(ev.text, "index 5 ::ffff:10.10.0.9 v2 eth0, was index 3"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_async_names),
		cmocka_unit_test(test_async_scope),
		cmocka_unit_test(test_gid_diff),
		cmocka_unit_test(test_gid_event_text),
		cmocka_unit_test(test_uevent_parse),
		cmocka_unit_test(test_time_format),
		cmocka_unit_test(test_link_events),
		cmocka_unit_test(test_state_event),
		cmocka_unit_test(test_source_names),
		cmocka_unit_test(test_out_text),
		cmocka_unit_test(test_gid_memo),
		cmocka_unit_test(test_gid_moved_event),
	};

	return cmocka_run_group_tests_name("events", tests, NULL, NULL);
}

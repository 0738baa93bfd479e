// SPDX-License-Identifier: MIT
#include "unit.h"

#include <math.h>
#include <sys/socket.h>

#include "base/parse.h"
#include "rc/rc.h"
#include "selftest/engine.h"
#include "selftest/local.h"
#include "selftest/oob.h"
#include "selftest/report.h"
#include "selftest/run.h"
#include "selftest/stages.h"

static void hello(struct rd_oob_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->version = RD_OOB_VERSION;
	m->type = RD_OOB_HELLO;
	m->qpn = 0x11;
	m->psn = 0xabcdef;
	m->mtu = 3;
	m->gid_kind = RD_GK_ROCE_V2;
	m->gid[10] = m->gid[11] = 0xff;
	m->max_size = 65536;
	m->window = 64;
	m->iters = 1000;
}

static void test_oob_roundtrip(void **state)
{
	struct rd_oob_msg m, d;
	uint8_t buf[RD_OOB_LEN];
	char why[128];

	(void)state;
	hello(&m);
	rd_oob_encode(&m, buf);
	assert_memory_equal(buf, "RDST", 4);
	assert_int_equal(rd_oob_decode(buf, sizeof(buf), &d, why, sizeof(why)), 0);
	assert_int_equal(d.qpn, 0x11);
	assert_int_equal(d.psn, 0xabcdef);
	assert_int_equal(d.max_size, 65536);
	assert_memory_equal(d.gid, m.gid, 16);

	m.type = RD_OOB_REJECT;
	strcpy(m.reason, "GID type mismatch");
	rd_oob_encode(&m, buf);
	assert_int_equal(rd_oob_decode(buf, sizeof(buf), &d, why, sizeof(why)), 0);
	assert_string_equal(d.reason, "GID type mismatch");
}

static void test_oob_garbage(void **state)
{
	struct rd_oob_msg m, d;
	uint8_t buf[RD_OOB_LEN];
	char why[128];

	(void)state;
	memset(buf, 'G', sizeof(buf));
	assert_int_equal(rd_oob_decode(buf, sizeof(buf), &d, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "bad magic"));
	assert_int_equal(rd_oob_decode(buf, 50, &d, why, sizeof(why)), -EINVAL);	/* truncated */

	hello(&m);
	m.version = 9;
	rd_oob_encode(&m, buf);
	assert_int_equal(rd_oob_decode(buf, sizeof(buf), &d, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "version 9"));

	hello(&m);
	m.type = 77;
	rd_oob_encode(&m, buf);
	assert_int_equal(rd_oob_decode(buf, sizeof(buf), &d, why, sizeof(why)), -EINVAL);

	hello(&m);
	m.qpn = 0x1000000;	/* 25 bits */
	rd_oob_encode(&m, buf);
	assert_int_equal(rd_oob_decode(buf, sizeof(buf), &d, why, sizeof(why)), -EINVAL);

	hello(&m);
	m.mtu = 9;
	rd_oob_encode(&m, buf);
	assert_int_equal(rd_oob_decode(buf, sizeof(buf), &d, why, sizeof(why)), -EINVAL);

	hello(&m);
	m.gid_kind = 4;
	rd_oob_encode(&m, buf);
	assert_int_equal(rd_oob_decode(buf, sizeof(buf), &d, why, sizeof(why)), -EINVAL);

	/* reason without its NUL, and with control characters */
	hello(&m);
	m.type = RD_OOB_REJECT;
	rd_oob_encode(&m, buf);
	memset(buf + 48, 'x', 64);
	assert_int_equal(rd_oob_decode(buf, sizeof(buf), &d, why, sizeof(why)), -EINVAL);
	buf[48 + 63] = 0;
	buf[50] = '\033';
	assert_int_equal(rd_oob_decode(buf, sizeof(buf), &d, why, sizeof(why)), -EINVAL);
}

static void test_params(void **state)
{
	struct rd_st_params p = { .max_size = 65536, .window = 64, .iters = 1000 };
	char why[128];
	unsigned int nr, ns;
	size_t slot;

	(void)state;
	assert_int_equal(rd_st_params_check(&p, why, sizeof(why)), 0);
	rd_st_slots(&p, &nr, &ns, &slot);
	assert_int_equal(nr, 66);
	assert_int_equal(slot, 65536);
	p.max_size = 1u << 30;
	assert_int_equal(rd_st_params_check(&p, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "message size"));
	p.max_size = 8u << 20;
	p.window = 64;	/* 8 MiB x 132 slots > 64 MiB */
	assert_int_equal(rd_st_params_check(&p, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "MiB"));
	/* 1 MiB: 2 x (28 + 2) slots and the target area (two slots and the atomic words) fit 64 MiB; 29 does not */
	p.max_size = 1u << 20;
	p.window = 28;
	assert_int_equal(rd_st_params_check(&p, why, sizeof(why)), 0);
	p.window = 29;
	assert_int_equal(rd_st_params_check(&p, why, sizeof(why)), -EINVAL);
	p.max_size = 64;
	p.window = 0;
	assert_int_equal(rd_st_params_check(&p, why, sizeof(why)), -EINVAL);
	p.window = 100000;
	assert_int_equal(rd_st_params_check(&p, why, sizeof(why)), -EINVAL);
	p.window = 1;
	p.iters = 0xffffffffu;
	assert_int_equal(rd_st_params_check(&p, why, sizeof(why)), -EINVAL);
	p.max_size = 0;	/* zero-byte messages still get a 64-byte slot */
	p.iters = 1;
	rd_st_slots(&p, &nr, &ns, &slot);
	assert_int_equal(slot, 64);
}

static void test_pattern(void **state)
{
	uint8_t a[300], b[300];

	(void)state;
	rd_st_fill(a, sizeof(a), 7);
	assert_int_equal(rd_st_check(a, sizeof(a), 7), -1);
	assert_true(rd_st_check(a, sizeof(a), 8) >= 0);	/* another message */
	rd_st_fill(b, sizeof(b), 8);
	assert_memory_not_equal(a, b, sizeof(a));
	a[123] ^= 1;
	assert_int_equal(rd_st_check(a, sizeof(a), 7), 123);
	assert_int_equal(rd_st_check(a, 0, 7), -1);
	assert_int_equal(RD_ST_TYPE(RD_ST_IMM(RD_ST_BWEND, 0x12345678)), RD_ST_BWEND);
	assert_int_equal(RD_ST_SEQ(RD_ST_IMM(RD_ST_BWEND, 0x12345678)), 0x02345678);
}

static void test_lat_stats(void **state)
{
	uint64_t s[1000];
	struct rd_st_latency l = { .whole = false };

	(void)state;
	/* round trips 2..2000 us in a shuffled order: half is 1..1000 us */
	for (uint32_t i = 0; i < 1000; i++)
		s[(i * 7919) % 1000] = (uint64_t)(i + 1) * 2000;
	rd_st_lat_stats(s, 1000, &l);
	assert_true(l.min == 1.0);
	assert_true(l.max == 1000.0);
	assert_true(fabs(l.avg - 500.5) < 1e-9);
	assert_true(fabs(l.median - 500.5) < 1e-9);
	assert_true(l.p99 == 990.0);
	assert_true(l.p999 == 999.0);
	assert_true(fabs(l.stdev - 288.8194360957494) < 1e-6);	/* sample stdev, not integer */

	uint64_t one[1] = { 3001 };

	rd_st_lat_stats(one, 1, &l);
	assert_true(l.min == 1.5005 && l.median == 1.5005 && l.stdev == 0);

	/* READ and atomics: whole round trips, as ib_read_lat and ib_atomic_lat report */
	l.whole = true;
	rd_st_lat_stats(one, 1, &l);
	assert_true(l.min == 3.001 && l.median == 3.001 && l.max == 3.001);
}

/* The engine's config rules: what excludes what, and the sizes a run asks the server for. */
static void test_config(void **state)
{
	struct rd_st_config c;

	(void)state;
	rd_st_config_default(&c);
	assert_int_equal(c.service_port, RD_ST_SERVICE_PORT);
	assert_int_equal(c.gid_index, -1);
	assert_null(rd_st_config_conflict(&c, false));
	assert_null(rd_st_config_conflict(&c, true));
	c.peer = "10.0.0.1";
	assert_string_equal(rd_st_config_conflict(&c, true), "--server takes no PEER");
	c.quick = c.bw_only = true;
	assert_string_equal(rd_st_config_conflict(&c, false),
			    "choose one of --quick, --latency-only, --bandwidth-only");
	c.quick = false;
	c.expect_lat_us = 5;
	assert_non_null(strstr(rd_st_config_conflict(&c, false), "--expect-lat-us"));

	rd_st_config_default(&c);
	assert_int_equal(rd_st_max_size(&c), 65536);
	c.nsizes = 2;
	c.sizes[0] = 8;
	c.sizes[1] = 32;
	assert_int_equal(rd_st_max_size(&c), 64);	/* at least one ping-pong message */
	c.sizes[1] = 1u << 20;
	assert_int_equal(rd_st_max_size(&c), 1u << 20);
	/* 1 MiB messages: the window shrinks so both sides fit the server's memory limit. */
	c.window = 512;
	rd_st_config_finish(&c);
	assert_true(c.window < 512 && c.window > 1);
}

static void test_size_and_mtu(void **state)
{
	uint64_t v;
	enum ibv_mtu m;

	(void)state;
	assert_int_equal(rd_parse_size("64", 1u << 23, &v), 0);
	assert_int_equal(v, 64);
	assert_int_equal(rd_parse_size("64k", 1u << 23, &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(rd_parse_size("8M", 1u << 23, &v), 0);
	assert_int_equal(v, 8u << 20);
	assert_int_equal(rd_parse_size("9M", 1u << 23, &v), -ERANGE);
	assert_int_equal(rd_parse_size("-1", 1u << 23, &v), -EINVAL);
	assert_int_equal(rd_parse_size("64kb", 1u << 23, &v), -EINVAL);
	assert_int_equal(rd_parse_size("", 1u << 23, &v), -EINVAL);
	assert_int_equal(rd_parse_size("99999999999999999999", UINT64_MAX, &v), -ERANGE);
	assert_int_equal(rd_parse_size("18014398509481984M", UINT64_MAX, &v), -EINVAL);
	assert_int_equal(rd_mtu_from_bytes(4096, &m), 0);
	assert_int_equal(m, IBV_MTU_4096);
	assert_int_equal(rd_mtu_from_bytes(256, &m), 0);
	assert_int_equal(m, IBV_MTU_256);
	assert_int_equal(rd_mtu_from_bytes(1500, &m), -EINVAL);
	assert_int_equal(rd_mtu_from_bytes(8192, &m), -EINVAL);
}

/* Reading a message off a socket: another version stops at its header. */
static void test_oob_recv_versions(void **state)
{
	struct rd_oob_msg m;
	uint8_t buf[RD_OOB_LEN], in[RD_OOB_LEN];
	size_t len = 0, n;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	hello(&m);
	m.version = 1;
	n = rd_oob_encode(&m, buf);
	assert_int_equal(n, RD_OOB_LEN_V1);
	assert_int_equal(write(sv[0], buf, n), (ssize_t)n);
	assert_int_equal(rd_oob_recv(sv[1], in, &len, rd_now_ns() + 1000000000ull), 0);
	assert_int_equal(len, RD_OOB_LEN_V1);
	/* a version 5 message of some other length: the header is enough to say no */
	buf[5] = 5;
	assert_int_equal(write(sv[0], buf, 40), 40);
	assert_int_equal(rd_oob_recv(sv[1], in, &len, rd_now_ns() + 1000000000ull), -EPROTONOSUPPORT);
	assert_int_equal(len, RD_OOB_HDR_LEN);
	assert_int_equal(rd_oob_hdr_version(in), 5);
	close(sv[0]);
	close(sv[1]);
}

/* --sl and --mtu need --verbs against a peer; loopback and --verbs take them. */
static void test_path_conflicts(void **state)
{
	struct rd_st_config c;

	(void)state;
	rd_st_config_default(&c);
	assert_int_equal(c.rc.tclass, -1);
	assert_int_equal(c.rc.sl, -1);
	c.rc.sl = 3;
	c.rc.mtu = IBV_MTU_1024;
	c.rc.tclass = 96;
	assert_null(rd_st_config_conflict(&c, false));	/* loopback */
	c.peer = "10.0.0.1";
	assert_non_null(strstr(rd_st_config_conflict(&c, false), "--sl needs --verbs"));
	c.rc.sl = -1;
	assert_non_null(strstr(rd_st_config_conflict(&c, false), "--mtu needs --verbs"));
	c.verbs = true;
	c.rc.sl = 3;
	assert_null(rd_st_config_conflict(&c, false));
	c.verbs = false;
	c.rc.sl = -1;
	c.rc.mtu = 0;
	assert_null(rd_st_config_conflict(&c, false));	/* --tc goes with rdma_cm */
}

/*
 * UD and multicast: what they cannot carry is refused before any device is
 * opened; a UD run's sizes against the path MTU (-a trimmed to it, a size
 * asked for refused); UD's deeper receive queue and one-packet limit.
 */
static void test_ud_mcast_rules(void **state)
{
	struct rd_st_config c, out;
	struct rd_st_params p = { .max_size = 1024, .window = 8, .iters = 10, .ud = true };
	unsigned int nrecv, nsend;
	size_t slot;
	char why[200];

	(void)state;
	rd_st_config_default(&c);
	c.ud = true;
	assert_null(rd_st_config_conflict(&c, false));
	assert_non_null(strstr(rd_st_config_conflict(&c, true), "--qp goes without --server"));
	c.ops = 1u << RD_ST_OP_READ;
	assert_non_null(strstr(rd_st_config_conflict(&c, false), "carries sends only"));
	c.ops = 1u << RD_ST_OP_SEND;
	assert_null(rd_st_config_conflict(&c, false));
	c.nsizes = 2;
	c.sizes[0] = 64;
	c.sizes[1] = 8192;
	assert_non_null(strstr(rd_st_config_conflict(&c, false), "at most 4096 B"));
	c.sizes[1] = 2048;
	assert_null(rd_st_config_conflict(&c, false));
	/* a path of 1024: 2048 cannot go; asked for, it is an error naming both sizes */
	assert_non_null(rd_st_ud_sizes(&c, IBV_MTU_1024, &out, why, sizeof(why)));
	assert_non_null(strstr(why, "2048 B is above the path MTU 1024 (use -s 1024 or less"));
	assert_null(rd_st_ud_sizes(&c, IBV_MTU_2048, &out, why, sizeof(why)));
	assert_int_equal(out.nsizes, 2);
	/* -a: kept up to the path MTU */
	c.all_sizes = true;
	c.nsizes = 0;
	for (uint32_t s = 2; s <= 4096; s <<= 1)
		c.sizes[c.nsizes++] = s;
	assert_null(rd_st_ud_sizes(&c, IBV_MTU_1024, &out, why, sizeof(why)));
	assert_int_equal(out.nsizes, 10);
	assert_int_equal(out.sizes[9], 1024);
	/* RC: untouched */
	c.ud = false;
	c.all_sizes = false;
	c.nsizes = 1;
	c.sizes[0] = 65536;
	assert_null(rd_st_ud_sizes(&c, IBV_MTU_1024, &out, why, sizeof(why)));
	assert_int_equal(out.sizes[0], 65536);
	/* UD keeps 512 receives posted; RC window + 2 */
	rd_st_slots(&p, &nrecv, &nsend, &slot);
	assert_int_equal(nrecv, RD_ST_UD_RECV);
	assert_int_equal(nsend, 10);
	p.ud = false;
	rd_st_slots(&p, &nrecv, &nsend, &slot);
	assert_int_equal(nrecv, 10);
	/* a server refuses a UD datagram above one packet */
	p.ud = true;
	p.max_size = 8192;
	assert_int_equal(rd_st_params_check(&p, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "UD message size 8192 above one packet"));
	/* multicast */
	rd_st_config_default(&c);
	c.mcast = "239.1.1.1";
	assert_null(rd_st_config_conflict(&c, false));
	assert_null(rd_st_config_conflict(&c, true));
	c.peer = "10.0.0.1";
	assert_non_null(strstr(rd_st_config_conflict(&c, false), "--mcast takes no PEER"));
	c.peer = NULL;
	c.ud = true;
	assert_non_null(strstr(rd_st_config_conflict(&c, false), "no --verbs or --qp"));
	c.ud = false;
	c.quick = true;
	assert_non_null(strstr(rd_st_config_conflict(&c, false), "its own stages"));
	c.quick = false;
	c.nsizes = 2;
	assert_non_null(strstr(rd_st_config_conflict(&c, false), "one size"));
}

/* The commands a passed run prints for perftest and NCCL. */
static void test_next_cmds(void **state)
{
	struct rd_st_config c;
	struct rd_st_run run;
	struct rd_st_next n;

	(void)state;
	rd_st_config_default(&c);
	memset(&run, 0, sizeof(run));
	strcpy(run.dev, "mlx5_0");
	run.port = 1;
	run.gid_index = 3;
	run.path_mtu = IBV_MTU_4096;
	rd_st_next_cmds(&c, &run, "10.10.0.2", &n);
	assert_string_equal(n.tool, "ib_send_bw");
	assert_string_equal(n.local, "ib_send_bw -d mlx5_0 -i 1 -x 3 --report_gbits 10.10.0.2");
	assert_string_equal(n.common, "--report_gbits");
	assert_string_equal(n.nccl, "NCCL_IB_HCA=mlx5_0:1 NCCL_IB_GID_INDEX=3");

	/* RDMA WRITE with a size, a forced MTU, a traffic class, an SL, a QP timeout. */
	c.ops = 1u << RD_ST_OP_WRITE | 1u << RD_ST_OP_READ;
	c.nsizes = 1;
	c.sizes[0] = 4096;
	c.rc.mtu = IBV_MTU_1024;
	c.rc.timeout = 18;
	run.path_mtu = IBV_MTU_1024;
	run.tclass = 106;
	run.sl = 3;
	rd_st_next_cmds(&c, &run, NULL, &n);
	assert_string_equal(n.local, "ib_write_bw -d mlx5_0 -i 1 -x 3 --report_gbits -s 4096 -m 1024 "
				     "--tclass=106 -S 3");
	assert_string_equal(n.nccl, "NCCL_IB_HCA=mlx5_0:1 NCCL_IB_GID_INDEX=3 NCCL_IB_TC=106 "
				    "NCCL_IB_SL=3 NCCL_IB_TIMEOUT=18");

	/* InfiniBand without a GID; compare-and-swap has its own perftest flag, no size. */
	c.ops = 1u << RD_ST_OP_CSWAP;
	run.gid_index = -1;
	run.tclass = run.sl = 0;
	c.rc.mtu = 0;
	c.rc.timeout = 14;
	rd_st_next_cmds(&c, &run, "h2", &n);
	assert_string_equal(n.local, "ib_atomic_bw -d mlx5_0 -i 1 --report_gbits -A CMP_AND_SWAP h2");
	assert_string_equal(n.nccl, "NCCL_IB_HCA=mlx5_0:1");
}

/* What a verbs server refuses before any QP moves. */
static void test_gid_mismatch(void **state)
{
	struct rd_st_local lp = { .gid_index = 3, .ver = RD_GID_VER_V2 };
	uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, [12] = 10, [13] = 10, [15] = 2 };
	uint8_t ll[16] = { 0xfe, 0x80, [15] = 1 };
	char why[64];

	(void)state;
	memcpy(lp.raw, v4, 16);
	assert_string_equal(rd_st_gid_family(v4), "IPv4");
	assert_string_equal(rd_st_gid_family(ll), "IPv6");
	assert_null(rd_st_gid_mismatch(RD_GK_ROCE_V2, v4, &lp, why, sizeof(why)));
	assert_string_equal(rd_st_gid_mismatch(RD_GK_ROCE_V2, ll, &lp, why, sizeof(why)),
			    "GID family mismatch: client IPv6, server IPv4 (GID 3)");
	assert_string_equal(rd_st_gid_mismatch(RD_GK_ROCE_V1, v4, &lp, why, sizeof(why)),
			    "GID type mismatch: client RoCE v1, server RoCE v2 (GID 3)");
	/* RoCE v1 has no IP header: the family does not matter. */
	lp.ver = RD_GID_VER_V1;
	assert_null(rd_st_gid_mismatch(RD_GK_ROCE_V1, ll, &lp, why, sizeof(why)));
	/* The longest reason (GID tables hold at most 256 entries) fits the exchange's 64 bytes. */
	lp.ver = RD_GID_VER_V2;
	lp.gid_index = 255;
	assert_true(strlen(rd_st_gid_mismatch(RD_GK_ROCE_V1, v4, &lp, why, sizeof(why))) < 63);
}

static void test_retry_reason(void **state)
{
	static const int passing[] = { -ETIMEDOUT, -ENODATA };
	char why[200];

	(void)state;
	assert_true(rd_oob_retry_reason("server busy with another client" RD_OOB_RETRY));
	assert_true(rd_oob_retry_reason("; retry"));
	assert_false(rd_oob_retry_reason("rxe1 port 1 is DOWN here"));
	assert_false(rd_oob_retry_reason("retry"));
	assert_false(rd_oob_retry_reason("; retry now"));
	assert_false(rd_oob_retry_reason(""));
	/* A route or attribute error is final; an address still resolving is not. */
	assert_false(rd_rc_transient(-EHOSTUNREACH));
	assert_false(rd_rc_transient(-EINVAL));
	assert_false(rd_rc_transient(-EAGAIN));
	assert_false(rd_rc_transient(0));
	for (size_t i = 0; i < sizeof(passing) / sizeof(passing[0]); i++) {
		assert_true(rd_rc_transient(passing[i]));
		rd_st_bringup_reason(passing[i], why, sizeof(why));
		/* the exchange carries 63 characters: the ending must survive */
		assert_true(strlen(why) < 64);
		assert_true(rd_oob_retry_reason(why));
	}
	rd_st_bringup_reason(-ETIMEDOUT, why, sizeof(why));
	assert_string_equal(why, "server QP bring-up failed: Connection timed out; retry");
	rd_st_bringup_reason(-EINVAL, why, sizeof(why));
	assert_string_equal(why, "server QP bring-up failed: Invalid argument");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oob_roundtrip),
		cmocka_unit_test(test_oob_garbage),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_lat_stats),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_size_and_mtu),
		cmocka_unit_test(test_path_conflicts),
		cmocka_unit_test(test_ud_mcast_rules),
		cmocka_unit_test(test_oob_recv_versions),
		cmocka_unit_test(test_next_cmds),
		cmocka_unit_test(test_gid_mismatch),
		cmocka_unit_test(test_retry_reason),
	};

	return cmocka_run_group_tests_name("selftest", tests, NULL, NULL);
}

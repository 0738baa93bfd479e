// SPDX-License-Identifier: MIT
#include "unit.h"

#include <math.h>

#include "selftest/oob.h"
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
	struct rd_st_latency l;

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
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oob_roundtrip),
		cmocka_unit_test(test_oob_garbage),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_pattern),
		cmocka_unit_test(test_lat_stats),
	};

	return cmocka_run_group_tests_name("selftest", tests, NULL, NULL);
}

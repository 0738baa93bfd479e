// SPDX-License-Identifier: MIT
#include "unit.h"

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include "stats/counters.h"
#include "stats/nlstat.h"
#include "stats/portwatch.h"
#include "rdma-top/topfmt.h"

/* ---- what a counter is ---- */

static void test_classify(void **state)
{
	struct rd_ctr_info in;

	(void)state;
	rd_ctr_classify(RD_SRC_PMA, "port_xmit_data", &in);
	assert_int_equal(in.scale, 4);
	assert_int_equal(in.width, 32);
	assert_int_equal(in.role, RD_SUM_TX_BYTES);
	assert_false(in.error);
	rd_ctr_classify(RD_SRC_PMA, "port_rcv_data", &in);
	assert_int_equal(in.scale, 4);
	assert_int_equal(in.role, RD_SUM_RX_BYTES);
	rd_ctr_classify(RD_SRC_PMA, "port_xmit_packets", &in);
	assert_int_equal(in.scale, 1);
	assert_int_equal(in.role, RD_SUM_TX_PKTS);
	rd_ctr_classify(RD_SRC_PMA, "symbol_error", &in);
	assert_int_equal(in.width, 16);
	assert_true(in.error);
	rd_ctr_classify(RD_SRC_PMA, "local_link_integrity_errors", &in);
	assert_int_equal(in.width, 4);
	rd_ctr_classify(RD_SRC_PMA, "link_downed", &in);
	assert_int_equal(in.width, 8);
	assert_true(in.error);
	rd_ctr_classify(RD_SRC_PMA, "port_xmit_wait", &in);
	assert_false(in.error);
	rd_ctr_classify(RD_SRC_PMA, "unicast_xmit_packets", &in);
	assert_int_equal(in.width, 64);
	rd_ctr_classify(RD_SRC_PMA, "some_future_counter", &in);
	assert_int_equal(in.width, 64);

	/* hw counters: wrap (width 0), errors by name, roles per driver */
	rd_ctr_classify(RD_SRC_HW, "sent_pkts", &in);
	assert_int_equal(in.width, 0);
	assert_int_equal(in.role, RD_SUM_TX_PKTS);
	assert_false(in.error);
	rd_ctr_classify(RD_SRC_HW, "rcvd_pkts", &in);
	assert_int_equal(in.role, RD_SUM_RX_PKTS);
	rd_ctr_classify(RD_SRC_HW, "rp_cnp_handled", &in);
	assert_int_equal(in.role, RD_SUM_CNP);
	rd_ctr_classify(RD_SRC_HW, "np_ecn_marked_roce_packets", &in);
	assert_int_equal(in.role, RD_SUM_ECN);
	rd_ctr_classify(RD_SRC_HW, "np_cnp_sent", &in);
	assert_int_equal(in.role, RD_SUM_NONE);
	assert_false(in.error);
	rd_ctr_classify(RD_SRC_HW, "out_of_buffer", &in);
	assert_true(in.error);
	rd_ctr_classify(RD_SRC_HW, "req_cqe_error", &in);
	assert_true(in.error);
	rd_ctr_classify(RD_SRC_HW, "retry_exceeded_err", &in);
	assert_true(in.error);
	rd_ctr_classify(RD_SRC_HW, "ip4InDiscards", &in);
	assert_true(in.error);
	rd_ctr_classify(RD_SRC_HW, "tcpInProtoErrors", &in);
	assert_true(in.error);
	rd_ctr_classify(RD_SRC_HW, "duplicate_request", &in);
	assert_false(in.error);
	rd_ctr_classify(RD_SRC_HW, "ack_deferred", &in);	/* "err" inside a word */
	assert_false(in.error);
	rd_ctr_classify(RD_SRC_HW, "rxVlanErrors", &in);
	assert_true(in.error);
	rd_ctr_classify(RD_SRC_HW, "rcvd_seq_err", &in);
	assert_true(in.error);
	rd_ctr_classify(RD_SRC_HW, "tx_roce_discards", &in);
	assert_true(in.error);
	rd_ctr_classify(RD_SRC_HW, "rx_write_requests", &in);
	assert_false(in.error);
	rd_ctr_classify(RD_SRC_HW, "tx_bytes", &in);
	assert_int_equal(in.role, RD_SUM_TX_BYTES);
	assert_int_equal(in.scale, 1);
}

/* ---- deltas ---- */

static enum rd_delta_kind step(const struct rd_ctr_info *in, struct rd_ctr_state *st, uint64_t v,
			       uint64_t *d)
{
	return rd_ctr_update(in, st, 0, v, d);
}

static void test_delta_basic(void **state)
{
	struct rd_ctr_info in;
	struct rd_ctr_state st = { 0 };
	uint64_t d;

	(void)state;
	rd_ctr_classify(RD_SRC_HW, "rx_write_requests", &in);
	assert_int_equal(step(&in, &st, 100, &d), RD_DELTA_NONE);	/* first reading */
	assert_int_equal(d, 0);
	assert_int_equal(step(&in, &st, 150, &d), RD_DELTA_OK);
	assert_int_equal(d, 50);
	assert_int_equal(step(&in, &st, 150, &d), RD_DELTA_OK);
	assert_int_equal(d, 0);
	/* A failed read forgets the value: no delta across it. */
	assert_int_equal(rd_ctr_update(&in, &st, -EINVAL, 0, &d), RD_DELTA_ERROR);
	assert_int_equal(step(&in, &st, 10, &d), RD_DELTA_NONE);
	assert_int_equal(step(&in, &st, 12, &d), RD_DELTA_OK);
	assert_int_equal(d, 2);
}

static void test_delta_pma_saturation(void **state)
{
	struct rd_ctr_info in;
	struct rd_ctr_state st = { 0 };
	uint64_t d;

	(void)state;
	/* 16-bit symbol_error: at 65535 the rate is unknown, however long it stays. */
	rd_ctr_classify(RD_SRC_PMA, "symbol_error", &in);
	step(&in, &st, 65000, &d);
	assert_int_equal(step(&in, &st, 65535, &d), RD_DELTA_SATURATED);
	assert_int_equal(d, 0);
	assert_int_equal(step(&in, &st, 65535, &d), RD_DELTA_SATURATED);
	/* perfquery -R: back to 0 is a reset, not a 65535 drop; no rate for it. */
	assert_int_equal(step(&in, &st, 3, &d), RD_DELTA_RESET);
	assert_int_equal(d, 0);
	assert_int_equal(step(&in, &st, 4, &d), RD_DELTA_OK);
	assert_int_equal(d, 1);

	/* 32-bit PortXmitData saturates at 2^32-1 ... */
	memset(&st, 0, sizeof(st));
	rd_ctr_classify(RD_SRC_PMA, "port_xmit_data", &in);
	step(&in, &st, 4294960000ull, &d);
	assert_int_equal(step(&in, &st, 4294967295ull, &d), RD_DELTA_SATURATED);
	/* ... unless the value proves the 64-bit extended counter. */
	memset(&st, 0, sizeof(st));
	step(&in, &st, 5000000000ull, &d);
	assert_int_equal(step(&in, &st, 5000001000ull, &d), RD_DELTA_OK);
	assert_int_equal(d, 1000);
	/* 4-bit counters */
	memset(&st, 0, sizeof(st));
	rd_ctr_classify(RD_SRC_PMA, "excessive_buffer_overrun_errors", &in);
	step(&in, &st, 14, &d);
	assert_int_equal(step(&in, &st, 15, &d), RD_DELTA_SATURATED);
	/* A value above the spec's width: trust it, no saturation at the small max. */
	memset(&st, 0, sizeof(st));
	step(&in, &st, 100, &d);
	assert_int_equal(step(&in, &st, 120, &d), RD_DELTA_OK);
	assert_int_equal(d, 20);
	/* PMA counters never wrap: down is a reset. */
	memset(&st, 0, sizeof(st));
	rd_ctr_classify(RD_SRC_PMA, "port_rcv_packets", &in);
	step(&in, &st, 4294967000ull, &d);
	assert_int_equal(step(&in, &st, 100, &d), RD_DELTA_RESET);
	assert_int_equal(d, 0);
}

static void test_delta_hw_wrap_reset(void **state)
{
	struct rd_ctr_info in;
	struct rd_ctr_state st = { 0 };
	uint64_t d;

	(void)state;
	rd_ctr_classify(RD_SRC_HW, "rcvd_pkts", &in);
	/* 32-bit wrap: from near the top to a small value */
	step(&in, &st, 4294967000ull, &d);
	assert_int_equal(step(&in, &st, 1000, &d), RD_DELTA_WRAP);
	assert_int_equal(d, 1296);
	assert_int_equal(step(&in, &st, 2000, &d), RD_DELTA_OK);
	assert_int_equal(d, 1000);
	/* Down from the lower half: a reset (a wrap would mean > 2^31 events). */
	assert_int_equal(step(&in, &st, 10, &d), RD_DELTA_RESET);
	assert_int_equal(d, 0);
	/* From the upper half, but far faster than it moved: a reset. */
	memset(&st, 0, sizeof(st));
	step(&in, &st, 4000000000ull, &d);
	step(&in, &st, 4000000100ull, &d);
	assert_int_equal(step(&in, &st, 5, &d), RD_DELTA_RESET);
	/* Without history, the same drop is taken as a wrap (bounded by 2^31). */
	memset(&st, 0, sizeof(st));
	step(&in, &st, 4000000000ull, &d);
	assert_int_equal(step(&in, &st, 5, &d), RD_DELTA_WRAP);
	assert_true(d < (1ull << 31));
	/* A counter seen above 2^32 is 64-bit: down is always a reset. */
	memset(&st, 0, sizeof(st));
	step(&in, &st, 5000000000ull, &d);
	assert_int_equal(step(&in, &st, 7, &d), RD_DELTA_RESET);
	assert_int_equal(step(&in, &st, 9, &d), RD_DELTA_OK);
	assert_int_equal(d, 2);
	/* No result is ever huge: the largest delta a drop can give is < 2^31. */
	for (uint64_t prev = 0; prev < (1ull << 32); prev += 0x7ffffffull) {
		for (uint64_t cur = 0; cur < prev; cur += 0x3ffffffull) {
			memset(&st, 0, sizeof(st));
			step(&in, &st, prev, &d);
			step(&in, &st, cur, &d);
			assert_true(d < (1ull << 31));
		}
	}
}

static void test_parse_counter(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(rd_parse_counter("123\n", 4, &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(rd_parse_counter("18446744073709551615\n", 21, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(rd_parse_counter("18446744073709551616\n", 21, &v), -ERANGE);
	assert_int_equal(rd_parse_counter("\n", 1, &v), -ENODATA);
	assert_int_equal(rd_parse_counter("", 0, &v), -ENODATA);
	assert_int_equal(rd_parse_counter("N/A (no PMA)\n", 13, &v), -EINVAL);
	assert_int_equal(rd_parse_counter("-1\n", 3, &v), -EINVAL);
	assert_int_equal(rd_parse_counter("12x\n", 4, &v), -EINVAL);
}

/* ---- a port's counter set on a scratch sysroot ---- */

#define P "sys/class/infiniband/mlx5_0/ports/1/"

static void sample_at(struct rd_port_ctrs *pc, double t)
{
	rd_port_ctrs_begin(pc, t);
	rd_port_ctrs_read_files(pc, RD_SRC_PMA);
	rd_port_ctrs_read_files(pc, RD_SRC_HW);
	rd_port_ctrs_end(pc);
}

static const struct rd_counter *find(const struct rd_port_ctrs *pc, const char *name)
{
	for (size_t i = 0; i < pc->n; i++)
		if (strcmp(pc->v[i].name, name) == 0)
			return &pc->v[i];
	fail_msg("no counter %s", name);
	return NULL;
}

static void test_port_set(void **state)
{
	struct rd_sum_val sum[RD_SUM_COUNT];
	struct rd_port_ctrs pc;
	struct rd_sysroot sr;

	(void)state;
	scratch_make();
	put(P "counters/port_xmit_data", "1000\n");
	put(P "counters/port_rcv_data", "2000\n");
	put(P "counters/port_xmit_packets", "10\n");
	put(P "counters/symbol_error", "0\n");
	put(P "counters/port_rcv_errors", "0\n");
	put(P "hw_counters/lifespan", "10\n");
	put(P "hw_counters/out_of_buffer", "5\n");
	put(P "hw_counters/rp_cnp_handled", "0\n");
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	assert_int_equal(rd_port_ctrs_open(&sr, "mlx5_0", 1, false, &pc), 0);
	assert_int_equal(pc.n, 7);	/* lifespan is not a counter */
	assert_int_equal(pc.role[RD_SUM_TX_BYTES], (int)(find(&pc, "port_xmit_data") - pc.v));
	assert_int_equal(pc.role[RD_SUM_RX_PKTS], -1);

	sample_at(&pc, 100.0);
	rd_port_ctrs_summary(&pc, sum);
	assert_true(sum[RD_SUM_TX_BYTES].present);
	assert_int_equal(sum[RD_SUM_TX_BYTES].total, 4000);	/* x4 */
	assert_int_equal(sum[RD_SUM_TX_BYTES].rate_state, RD_RATE_NONE);	/* first sample */
	assert_false(sum[RD_SUM_RX_PKTS].present);
	assert_int_equal(sum[RD_SUM_ERRORS].total, 5);
	assert_int_equal(sum[RD_SUM_ERRORS].rate_state, RD_RATE_NONE);

	rewrite(P "counters/port_xmit_data", "3500\n");
	rewrite(P "counters/port_rcv_errors", "3\n");
	rewrite(P "hw_counters/out_of_buffer", "6\n");
	rewrite(P "hw_counters/rp_cnp_handled", "8\n");
	/* The rate comes from the elapsed time, not the nominal interval. */
	sample_at(&pc, 102.0);
	rd_port_ctrs_summary(&pc, sum);
	assert_true(pc.interval > 1.99 && pc.interval < 2.01);
	assert_int_equal(find(&pc, "port_xmit_data")->delta, 2500);
	assert_int_equal(sum[RD_SUM_TX_BYTES].rate_state, RD_RATE_OK);
	assert_true(sum[RD_SUM_TX_BYTES].rate > 4999.9 && sum[RD_SUM_TX_BYTES].rate < 5000.1);
	assert_int_equal(sum[RD_SUM_ERRORS].rate_state, RD_RATE_OK);
	assert_true(sum[RD_SUM_ERRORS].rate > 1.99 && sum[RD_SUM_ERRORS].rate < 2.01);
	assert_true(sum[RD_SUM_CNP].rate > 3.99 && sum[RD_SUM_CNP].rate < 4.01);

	/* An unreadable error counter: the sums become lower bounds. */
	rewrite(P "counters/symbol_error", "N/A (no PMA)\n");
	rewrite(P "counters/port_rcv_errors", "5\n");
	sample_at(&pc, 103.0);
	rd_port_ctrs_summary(&pc, sum);
	assert_int_equal(find(&pc, "symbol_error")->kind, RD_DELTA_ERROR);
	assert_int_equal(sum[RD_SUM_ERRORS].rate_state, RD_RATE_PARTIAL);
	assert_true(sum[RD_SUM_ERRORS].total_partial);
	assert_int_equal(sum[RD_SUM_ERRORS].total, 11);

	/* The files vanish (device gone in a fixture): the open fds still read; a
	 * fresh open would not.  Readings of the kept fds go on. */
	rd_port_ctrs_close(&pc);
	scratch_remove();
}

static void test_roles_sum_irdma(void **state)
{
	struct rd_sum_val sum[RD_SUM_COUNT];
	struct rd_port_ctrs pc = { 0 };

	(void)state;
	assert_true(rd_port_ctrs_add(&pc, RD_SRC_HW, "ip4OutOctets", -1) >= 0);
	assert_true(rd_port_ctrs_add(&pc, RD_SRC_HW, "ip6OutOctets", -1) >= 0);
	assert_true(rd_port_ctrs_add(&pc, RD_SRC_HW, "tcpOutSegs", -1) >= 0);
	rd_port_ctrs_index(&pc);
	rd_port_ctrs_begin(&pc, 1.0);
	assert_int_equal(rd_port_ctrs_feed(&pc, RD_SRC_HW, "ip4OutOctets", 100), 0);
	assert_int_equal(rd_port_ctrs_feed(&pc, RD_SRC_HW, "ip6OutOctets", 50), 0);
	assert_int_equal(rd_port_ctrs_feed(&pc, RD_SRC_HW, "nosuch", 50), -ENOENT);
	rd_port_ctrs_end(&pc);
	/* tcpOutSegs was not fed: unreadable this time */
	assert_int_equal(find(&pc, "tcpOutSegs")->err, -ENODATA);
	rd_port_ctrs_begin(&pc, 2.0);
	rd_port_ctrs_feed(&pc, RD_SRC_HW, "ip4OutOctets", 1100);
	rd_port_ctrs_feed(&pc, RD_SRC_HW, "ip6OutOctets", 550);
	rd_port_ctrs_end(&pc);
	rd_port_ctrs_summary(&pc, sum);
	/* IPv4 + IPv6 octets, both at the same priority, summed */
	assert_int_equal(sum[RD_SUM_TX_BYTES].total, 1650);
	assert_int_equal(sum[RD_SUM_TX_BYTES].rate_state, RD_RATE_OK);
	assert_true(sum[RD_SUM_TX_BYTES].rate > 1499.9 && sum[RD_SUM_TX_BYTES].rate < 1500.1);
	rd_port_ctrs_close(&pc);
}

/* ---- netlink STAT_GET replies ---- */

static size_t put_attr(uint8_t *buf, size_t off, uint16_t type, const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)(buf + off);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len)
		memcpy(buf + off + NLA_HDRLEN, data, len);
	return off + NLA_ALIGN(a->nla_len);
}

static size_t put_entry(uint8_t *buf, size_t off, const char *name, uint64_t v)
{
	struct nlattr *e = (struct nlattr *)(buf + off);
	size_t start = off;
	uint32_t pad = 0;

	off += NLA_HDRLEN;
	off = put_attr(buf, off, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name,
		       (uint16_t)(strlen(name) + 1));
	off = put_attr(buf, off, RDMA_NLDEV_ATTR_PAD, &pad, 0);
	off = put_attr(buf, off, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, &v, 8);
	e->nla_type = RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY | NLA_F_NESTED;
	e->nla_len = (uint16_t)(off - start);
	return off;
}

struct seen {
	char names[4][32];
	uint64_t values[4];
	int n;
};

static int seen_cb(void *ctx, const char *name, uint64_t value)
{
	struct seen *s = ctx;

	if (s->n < 4) {
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
		s->values[s->n] = value;
	}
	s->n++;
	return 0;
}

static void test_nlstat_parse(void **state)
{
	uint8_t buf[1024];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct nlattr *table;
	struct seen s = { 0 };
	uint32_t idx = 2, port = 1;
	size_t off = NLMSG_HDRLEN, tstart;

	(void)state;
	memset(buf, 0, sizeof(buf));
	off = put_attr(buf, off, RDMA_NLDEV_ATTR_DEV_INDEX, &idx, 4);
	off = put_attr(buf, off, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0", 5);
	off = put_attr(buf, off, RDMA_NLDEV_ATTR_PORT_INDEX, &port, 4);
	tstart = off;
	table = (struct nlattr *)(buf + off);
	off += NLA_HDRLEN;
	off = put_entry(buf, off, "sent_pkts", 1843201);
	off = put_entry(buf, off, "rcvd_pkts", 1ull << 40);
	table->nla_type = RDMA_NLDEV_ATTR_STAT_HWCOUNTERS | NLA_F_NESTED;
	table->nla_len = (uint16_t)(off - tstart);
	h->nlmsg_len = (uint32_t)off;
	h->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);

	assert_int_equal(rd_nlstat_parse(buf, off, seen_cb, &s), 2);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.names[0], "sent_pkts");
	assert_true(s.values[0] == 1843201);
	assert_string_equal(s.names[1], "rcvd_pkts");
	assert_true(s.values[1] == 1ull << 40);

	/* Truncated buffers, lying lengths: rejected, never read past the end. */
	for (size_t len = 0; len < off; len++) {
		s.n = 0;
		assert_true(rd_nlstat_parse(buf, len, seen_cb, &s) <= 0 || len >= off);
	}
	h->nlmsg_len = (uint32_t)off + 100;
	assert_int_equal(rd_nlstat_parse(buf, off, seen_cb, &s), -EINVAL);
	h->nlmsg_len = (uint32_t)off;
	/* A table longer than the message: libnl stops at it; no counter comes out. */
	table->nla_len = 0xfff0;
	s.n = 0;
	assert_true(rd_nlstat_parse(buf, off, seen_cb, &s) <= 0);
	assert_int_equal(s.n, 0);

	/* The kernel's error reply */
	memset(buf, 0, sizeof(buf));
	h->nlmsg_len = NLMSG_LENGTH(sizeof(struct nlmsgerr));
	h->nlmsg_type = NLMSG_ERROR;
	((struct nlmsgerr *)NLMSG_DATA(h))->error = -EINVAL;
	assert_int_equal(rd_nlstat_parse(buf, h->nlmsg_len, seen_cb, &s), -EINVAL);
}

/* ---- how numbers read ---- */

static void test_format(void **state)
{
	struct rd_sum_val s = { .present = true, .total_known = true, .total = 12345 };
	char buf[32];

	(void)state;
	rd_fmt_count(0, true, true, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	rd_fmt_count(0.5, true, true, buf, sizeof(buf));
	assert_string_equal(buf, "0.5");
	rd_fmt_count(3, true, false, buf, sizeof(buf));
	assert_string_equal(buf, "3");
	rd_fmt_count(980, true, true, buf, sizeof(buf));
	assert_string_equal(buf, "980");
	rd_fmt_count(1234, true, true, buf, sizeof(buf));
	assert_string_equal(buf, "1.23k");
	rd_fmt_count(12345678, true, true, buf, sizeof(buf));
	assert_string_equal(buf, "12.3M");
	rd_fmt_count(12345678, false, true, buf, sizeof(buf));
	assert_string_equal(buf, "12345678");
	rd_fmt_gbps_value(12.5e9 / 8, buf, sizeof(buf));
	assert_string_equal(buf, "12.50");
	rd_fmt_gbps_value(100, buf, sizeof(buf));
	assert_string_equal(buf, "<0.01");
	rd_fmt_gbps_value(0, buf, sizeof(buf));
	assert_string_equal(buf, "0.00");

	/* rates: none yet, saturated, lower bound, absent */
	rd_fmt_sum(&s, RD_SUM_TX_PKTS, true, true, buf, sizeof(buf));
	assert_string_equal(buf, "-");
	s.rate_state = RD_RATE_UNKNOWN;
	s.saturated = true;
	rd_fmt_sum(&s, RD_SUM_TX_BYTES, true, true, buf, sizeof(buf));
	assert_string_equal(buf, "sat");
	s.rate_state = RD_RATE_PARTIAL;
	s.rate = 3;
	rd_fmt_sum(&s, RD_SUM_ERRORS, true, true, buf, sizeof(buf));
	assert_string_equal(buf, "3.0+");
	rd_fmt_sum(&s, RD_SUM_ERRORS, false, false, buf, sizeof(buf));
	assert_string_equal(buf, "12345");
	s.present = false;
	rd_fmt_sum(&s, RD_SUM_TX_BYTES, true, true, buf, sizeof(buf));
	assert_string_equal(buf, "-");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_delta_basic),
		cmocka_unit_test(test_delta_pma_saturation),
		cmocka_unit_test(test_delta_hw_wrap_reset),
		cmocka_unit_test(test_parse_counter),
		cmocka_unit_test(test_port_set),
		cmocka_unit_test(test_roles_sum_irdma),
		cmocka_unit_test(test_nlstat_parse),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * rdma-selftest's counters stage: which counters signal trouble, and the
 * verdict from two snapshots of a port (a scratch tree of rxe and mlx5
 * counter files, rewritten between the snapshots as a run would move them).
 */
#include "unit.h"

#include "selftest/ctrs.h"
#include "selftest/report.h"
#include "selftest/run.h"
#include "stats/counters.h"

#define RXE "sys/class/infiniband/rxe0/ports/1/"
#define MLX "sys/class/infiniband/mlx5_0/ports/1/"

static enum rd_ctr_trouble trouble(enum rd_ctr_src src, const char *name)
{
	struct rd_ctr_info in;

	rd_ctr_classify(src, name, &in);
	return in.trouble;
}

static void test_classes(void **state)
{
	(void)state;
	/* mlx5 */
	assert_int_equal(trouble(RD_SRC_HW, "local_ack_timeout_err"), RD_TROUBLE_RETRANS);
	assert_int_equal(trouble(RD_SRC_HW, "packet_seq_err"), RD_TROUBLE_RETRANS);
	assert_int_equal(trouble(RD_SRC_HW, "out_of_sequence"), RD_TROUBLE_RETRANS);
	assert_int_equal(trouble(RD_SRC_HW, "roce_adp_retrans"), RD_TROUBLE_RETRANS);
	assert_int_equal(trouble(RD_SRC_HW, "np_cnp_sent"), RD_TROUBLE_CONGESTION);
	assert_int_equal(trouble(RD_SRC_HW, "rp_cnp_handled"), RD_TROUBLE_CONGESTION);
	assert_int_equal(trouble(RD_SRC_HW, "np_ecn_marked_roce_packets"), RD_TROUBLE_CONGESTION);
	assert_int_equal(trouble(RD_SRC_HW, "out_of_buffer"), RD_TROUBLE_DROP);
	assert_int_equal(trouble(RD_SRC_HW, "req_remote_access_errors"), RD_TROUBLE_DROP);
	assert_int_equal(trouble(RD_SRC_HW, "rx_write_requests"), RD_TROUBLE_NONE);
	/* rxe: its own names */
	assert_int_equal(trouble(RD_SRC_HW, "completer_retry_err"), RD_TROUBLE_RETRANS);
	assert_int_equal(trouble(RD_SRC_HW, "duplicate_request"), RD_TROUBLE_RETRANS);
	assert_int_equal(trouble(RD_SRC_HW, "out_of_seq_request"), RD_TROUBLE_RETRANS);
	assert_int_equal(trouble(RD_SRC_HW, "rcvd_rnr_err"), RD_TROUBLE_RETRANS);
	assert_int_equal(trouble(RD_SRC_HW, "send_rnr_err"), RD_TROUBLE_RETRANS);
	assert_int_equal(trouble(RD_SRC_HW, "rcvd_seq_err"), RD_TROUBLE_RETRANS);
	assert_int_equal(trouble(RD_SRC_HW, "send_err"), RD_TROUBLE_DROP);
	assert_int_equal(trouble(RD_SRC_HW, "sent_pkts"), RD_TROUBLE_NONE);
	assert_int_equal(trouble(RD_SRC_HW, "ack_deferred"), RD_TROUBLE_NONE);
	assert_int_equal(trouble(RD_SRC_HW, "rdma_sends"), RD_TROUBLE_NONE);
	/* PMA: errors are drops, traffic and subnet management are nothing */
	assert_int_equal(trouble(RD_SRC_PMA, "port_rcv_errors"), RD_TROUBLE_DROP);
	assert_int_equal(trouble(RD_SRC_PMA, "port_xmit_discards"), RD_TROUBLE_DROP);
	assert_int_equal(trouble(RD_SRC_PMA, "symbol_error"), RD_TROUBLE_DROP);
	assert_int_equal(trouble(RD_SRC_PMA, "VL15_dropped"), RD_TROUBLE_NONE);
	assert_int_equal(trouble(RD_SRC_PMA, "port_xmit_data"), RD_TROUBLE_NONE);
	assert_int_equal(trouble(RD_SRC_PMA, "port_xmit_wait"), RD_TROUBLE_NONE);
	assert_string_equal(rd_ctr_trouble_name(RD_TROUBLE_RETRANS), "retransmits");
	assert_string_equal(rd_ctr_trouble_name(RD_TROUBLE_DROP), "drops");
	assert_string_equal(rd_ctr_trouble_name(RD_TROUBLE_COUNT), "");
}

static void rxe_tree(void)
{
	put(RXE "hw_counters/lifespan", "1\n");
	put(RXE "hw_counters/sent_pkts", "100\n");
	put(RXE "hw_counters/rcvd_pkts", "90\n");
	put(RXE "hw_counters/rcvd_rnr_err", "0\n");
	put(RXE "hw_counters/completer_retry_err", "2\n");
	put(RXE "hw_counters/duplicate_request", "0\n");
	put(RXE "hw_counters/send_err", "0\n");
	put(RXE "hw_counters/ack_deferred", "7\n");
}

/* A scratch rxe0 port, its first snapshot taken for run. */
static void rxe_start(struct rd_st_ctrs *c, struct rd_sysroot *sr, struct rd_st_run *run)
{
	scratch_make();
	rxe_tree();
	strcpy(run->dev, "rxe0");
	run->port = 1;
	assert_int_equal(rd_sysroot_init(sr, scratch), 0);
	assert_int_equal(rd_st_ctrs_start(c, sr, "rxe0", 1), 0);
}

/* A run that moved only traffic counters: PASS, with the packets. */
static void test_quiet_run(void **state)
{
	struct rd_st_run run = { .port = 1 };
	struct rd_st_ctrs c;
	struct rd_sysroot sr;

	(void)state;
	rxe_start(&c, &sr, &run);
	assert_int_equal(c.lifespan_ms, 1);
	rewrite(RXE "hw_counters/sent_pkts", "1100\n");
	rewrite(RXE "hw_counters/rcvd_pkts", "1090\n");
	rewrite(RXE "hw_counters/ack_deferred", "70\n");
	rd_st_ctrs_end(&c, &run.ctr);
	rd_st_counters_stage(NULL, &run);
	assert_false(c.open);
	assert_int_equal(run.nstages, 1);
	assert_string_equal(run.stages[0].name, "counters");
	assert_true(run.stages[0].ok);
	assert_false(run.stages[0].warn);
	assert_false(run.warned);
	assert_int_equal(run.ctr.ncounters, 7);
	assert_int_equal(run.ctr.nmoves, 0);
	assert_true(run.ctr.have_pkts);
	assert_int_equal(run.ctr.tx_pkts, 1000);
	assert_int_equal(run.ctr.rx_pkts, 1000);
	assert_string_equal(run.stages[0].detail,
			    "no retransmit, congestion or drop counter of rxe0 port 1 moved "
			    "(7 counters read; 1000 packets out, 1000 in)");
	scratch_remove();
}

/* Retransmits and an error during a run that passed: WARN, largest first, per class. */
static void test_retransmits_warn(void **state)
{
	struct rd_st_run run = { .port = 1 };
	struct rd_st_ctrs c;
	struct rd_sysroot sr;

	(void)state;
	rxe_start(&c, &sr, &run);
	rewrite(RXE "hw_counters/rcvd_rnr_err", "12\n");
	rewrite(RXE "hw_counters/completer_retry_err", "5\n");
	rewrite(RXE "hw_counters/send_err", "1\n");
	rewrite(RXE "hw_counters/sent_pkts", "50\n");	/* went down: reset, no delta */
	rd_st_ctrs_end(&c, &run.ctr);
	rd_st_counters_stage(NULL, &run);
	assert_int_equal(run.nstages, 1);
	assert_true(run.stages[0].ok);
	assert_true(run.stages[0].warn);
	assert_true(run.warned);
	assert_false(run.failed);
	assert_int_equal(run.ctr.sum[RD_TROUBLE_RETRANS], 15);
	assert_int_equal(run.ctr.sum[RD_TROUBLE_DROP], 1);
	assert_int_equal(run.ctr.sum[RD_TROUBLE_CONGESTION], 0);
	assert_int_equal(run.ctr.nmoves, 3);
	assert_int_equal(run.ctr.nunknown, 1);
	assert_false(run.ctr.have_pkts);
	assert_string_equal(run.ctr.moves[0].name, "rcvd_rnr_err");
	assert_string_equal(run.stages[0].detail,
			    "retransmits: rcvd_rnr_err +12, completer_retry_err +3; drops: send_err +1"
			    " on rxe0 port 1 during the run (port-wide: other traffic on the port "
			    "counts too)");
	{
		char v[128];

		run.ok = true;
		rd_st_verdict(&run, v, sizeof(v));
		assert_string_equal(v, "PASS, with a warning at counters");
	}
	scratch_remove();
}

/* PMA data words count x4; congestion; more troubled counters than the report holds. */
static void test_many_moves(void **state)
{
	struct rd_st_run run = { .port = 1 };
	struct rd_st_ctrs c;
	struct rd_sysroot sr;
	char rel[128];

	(void)state;
	scratch_make();
	put(MLX "counters/port_xmit_data", "0\n");
	put(MLX "counters/port_rcv_errors", "0\n");
	put(MLX "hw_counters/np_cnp_sent", "0\n");
	for (int i = 0; i < 30; i++) {
		snprintf(rel, sizeof(rel), MLX "hw_counters/vendor_err_%02d", i);
		put(rel, "0\n");
	}
	strcpy(run.dev, "mlx5_0");
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	assert_int_equal(rd_st_ctrs_start(&c, &sr, "mlx5_0", 1), 0);
	assert_int_equal(c.lifespan_ms, 0);
	rewrite(MLX "counters/port_xmit_data", "1000\n");
	rewrite(MLX "counters/port_rcv_errors", "2\n");
	rewrite(MLX "hw_counters/np_cnp_sent", "40\n");
	for (int i = 0; i < 30; i++) {
		snprintf(rel, sizeof(rel), MLX "hw_counters/vendor_err_%02d", i);
		rewrite(rel, "1\n");
	}
	rd_st_ctrs_end(&c, &run.ctr);
	rd_st_counters_stage(NULL, &run);
	assert_true(run.stages[0].warn);
	assert_int_equal(run.ctr.nmoves, 32);
	assert_int_equal(run.ctr.sum[RD_TROUBLE_DROP], 32);
	assert_int_equal(run.ctr.sum[RD_TROUBLE_CONGESTION], 40);
	assert_string_equal(run.ctr.moves[0].name, "np_cnp_sent");
	assert_string_equal(run.ctr.moves[1].name, "port_rcv_errors");
	assert_non_null(strstr(run.stages[0].detail, "congestion: np_cnp_sent +40"));
	assert_non_null(strstr(run.stages[0].detail, " (and 8 more) on mlx5_0 port 1"));
	scratch_remove();
}

/* A port without counters: no stage; a run that failed keeps its failure. */
static void test_no_counters(void **state)
{
	struct rd_st_ctrs c;
	struct rd_sysroot sr;

	(void)state;
	scratch_make();
	put("sys/class/infiniband/siw0/ports/1/state", "4: ACTIVE\n");
	assert_int_equal(rd_sysroot_init(&sr, scratch), 0);
	assert_int_equal(rd_st_ctrs_start(&c, &sr, "siw0", 1), -ENOENT);
	assert_false(c.open);
	scratch_remove();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_quiet_run),
		cmocka_unit_test(test_retransmits_warn),
		cmocka_unit_test(test_many_moves),
		cmocka_unit_test(test_no_counters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: MIT
/*
 * rdma-selftest --op: the versioned exchange (the --verbs message and the
 * rdma_cm private data carrying the server's target memory), an old peer's
 * messages, the --op/--deny words and the per-operation diagnoses.
 */
#include "unit.h"

#include "selftest/cm.h"
#include "selftest/engine.h"
#include "selftest/local.h"
#include "selftest/oob.h"
#include "selftest/run.h"
#include "selftest/stages.h"

static void accept_msg(struct rd_oob_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->version = RD_OOB_VERSION_RC;
	m->type = RD_OOB_ACCEPT;
	m->qpn = 0x123;
	m->psn = 0x42;
	m->mtu = 3;
	m->gid_kind = RD_GK_ROCE_V2;
	m->max_size = 65536;
	m->window = 64;
	m->iters = 1000;
	m->rkey = 0xdeadbeef;
	m->area_len = 65536;
	m->addr = 0x7f1234560000ull;
}

static void test_oob_v2_target(void **state)
{
	struct rd_oob_msg m, d;
	uint8_t buf[RD_OOB_LEN];
	char why[200];

	(void)state;
	accept_msg(&m);
	assert_int_equal(rd_oob_encode(&m, buf), RD_OOB_LEN_V2);
	assert_int_equal(RD_OOB_LEN_V2, 128);
	assert_int_equal(rd_oob_msg_len(buf), RD_OOB_LEN_V2);
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN_V2, &d, why, sizeof(why)), 0);
	assert_int_equal(d.version, 2);
	assert_int_equal(d.qp_type, RD_OOB_QP_RC);	/* version 2 has no QP type: RC */
	assert_int_equal(d.rkey, 0xdeadbeef);
	assert_int_equal(d.area_len, 65536);
	assert_true(d.addr == 0x7f1234560000ull);
	/* big-endian on the wire, after the 112 bytes of version 1 */
	assert_int_equal(buf[112], 0xde);
	assert_int_equal(buf[127], 0x00);
	assert_int_equal(buf[122], 0x7f);
	assert_int_equal(buf[123], 0x12);

	/* a target area the server could never have */
	m.area_len = 1u << 30;
	rd_oob_encode(&m, buf);
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN_V2, &d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "target area"));
	accept_msg(&m);
	m.addr = UINT64_MAX - 100;
	rd_oob_encode(&m, buf);
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN_V2, &d, why, sizeof(why)), -EINVAL);
}

/* Version 3: the QP type and the UD Q_Key, 8 bytes after version 2's; checked. */
static void test_oob_v3_ud(void **state)
{
	struct rd_oob_msg m, d;
	uint8_t buf[RD_OOB_LEN];
	char why[200];

	(void)state;
	accept_msg(&m);
	m.version = 3;
	m.qp_type = RD_OOB_QP_UD;
	m.qkey = 0x12345611;
	assert_int_equal(rd_oob_encode(&m, buf), RD_OOB_LEN_V3);
	assert_int_equal(RD_OOB_LEN_V3, 136);
	assert_int_equal(rd_oob_msg_len(buf), RD_OOB_LEN_V3);
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN_V3, &d, why, sizeof(why)), 0);
	assert_int_equal(d.version, 3);
	assert_int_equal(d.qp_type, RD_OOB_QP_UD);
	assert_int_equal(d.qkey, 0x12345611);
	assert_int_equal(d.rkey, 0xdeadbeef);	/* version 2's fields stay where they were */
	assert_int_equal(buf[128], RD_OOB_QP_UD);
	assert_int_equal(buf[132], 0x12);
	assert_int_equal(buf[135], 0x11);
	/* a version 3 message cut to version 2's length */
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN_V2, &d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "version 3 has 136"));
	/* an unknown QP type, and reserved bytes that are not zero */
	buf[128] = 7;
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN_V3, &d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "QP type 7"));
	buf[128] = RD_OOB_QP_UD;
	buf[130] = 1;
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN_V3, &d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "reserved"));
	/* version 5 is another program's */
	buf[130] = 0;
	buf[5] = 5;
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN_V3, &d, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "version 5"));
}

/*
 * Version 4: the server's device and port (a mesh rail), 68 bytes after
 * version 3's; the name is checked like a device name.  The server's refusals
 * of a rail it cannot serve fit a REJECT's 64 bytes and name what it has.
 */
static void test_oob_v4_dev(void **state)
{
	struct rd_oob_msg m, d;
	uint8_t buf[RD_OOB_LEN];
	char why[200];
	struct rd_port ports[2] = { { .num = 1, .state = 4 }, { .num = 2, .state = 1 } };
	struct rd_device devs[2] = { { .name = "mlx5_0", .ports = ports, .nports = 2 },
				     { .name = "mlx5_1", .ports = ports + 1, .nports = 1 } };
	struct rd_device_list list = { .v = devs, .n = 2 };
	struct rd_st_local lp;

	(void)state;
	accept_msg(&m);
	m.version = RD_OOB_VERSION_DEV;
	m.type = RD_OOB_HELLO;
	strcpy(m.dev, "mlx5_1");
	m.port = 2;
	assert_int_equal(RD_OOB_VERSION, 4);
	assert_int_equal(rd_oob_encode(&m, buf), RD_OOB_LEN);
	assert_int_equal(RD_OOB_LEN, 204);
	assert_int_equal(rd_oob_msg_len(buf), RD_OOB_LEN);
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN, &d, why, sizeof(why)), 0);
	assert_string_equal(d.dev, "mlx5_1");
	assert_int_equal(d.port, 2);
	assert_int_equal(d.rkey, 0xdeadbeef);	/* the older fields stay where they were */
	assert_memory_equal(buf + 136, "mlx5_1", 7);
	assert_int_equal(buf[200], 2);
	/* cut to version 3's length; reserved bytes; a name that is not one */
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN_V3, &d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "version 4 has 204"));
	buf[202] = 1;
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN, &d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "reserved"));
	buf[202] = 0;
	buf[138] = '\n';
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN, &d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "device name has a character 0x0a"));
	buf[138] = '/';
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN, &d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "device name has a character 0x2f"));
	/* the rule both the decoder and --devices use: the kernel's names pass */
	for (const char *p = "mlx5_0 rxe-eth0.100 hfi1_0 siw_ens3 bnxt_re0"; *p; p++)
		assert_true(*p == ' ' || rd_is_devname_char(*p));
	for (const char *p = " /:;$`'\"\\\t"; *p; p++)
		assert_false(rd_is_devname_char(*p));
	assert_false(rd_is_devname_char('\0'));
	assert_false(rd_is_devname_char((char)0xc3));	/* no UTF-8 either */
	memset(buf + 136, 'a', 64);
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN, &d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not terminated"));
	/* the encoder terminates a name that fills the field */
	memset(m.dev, 'b', sizeof(m.dev));
	rd_oob_encode(&m, buf);
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN, &d, why, sizeof(why)), 0);
	assert_int_equal(strlen(d.dev), 63);

	/* the server's refusals, before any GID is read */
	assert_int_equal(rd_st_port_named(&list, NULL, "mlx5_3", 0, -1, &lp, why, 64), -ENODEV);
	assert_string_equal(why, "no device mlx5_3 here (it has mlx5_0, mlx5_1)");
	assert_int_equal(rd_st_port_named(&list, NULL, "mlx5_1", 0, -1, &lp, why, 64), -ENETDOWN);
	assert_string_equal(why, "mlx5_1 port 2 is DOWN here");
	assert_int_equal(rd_st_port_named(&list, NULL, "mlx5_0", 2, -1, &lp, why, 64), -ENETDOWN);
	assert_string_equal(why, "mlx5_0 port 2 is DOWN here");
	assert_int_equal(rd_st_port_named(&list, NULL, "mlx5_0", 3, -1, &lp, why, 64), -ENETDOWN);
	assert_string_equal(why, "mlx5_0 has no port 3 here");
	list.n = 0;
	assert_int_equal(rd_st_port_named(&list, NULL, "mlx5_0", 0, -1, &lp, why, 64), -ENODEV);
	assert_string_equal(why, "no device mlx5_0 here (it has no RDMA device)");
	/* a client's own rail: the words of its connect stage */
	assert_null(rd_st_port_unusable(&devs[0], 0, why, sizeof(why)));
	assert_null(rd_st_port_unusable(&devs[0], 1, why, sizeof(why)));
	assert_string_equal(rd_st_port_unusable(&devs[1], 0, why, sizeof(why)), "mlx5_1 port 2 is DOWN");
}

/*
 * A version 1 peer: 112 bytes, decoded (an old client is still served; an
 * old server's REJECT is shown) with its version; another version is refused.
 */
static void test_oob_old_peer(void **state)
{
	struct rd_oob_msg m, d;
	uint8_t buf[RD_OOB_LEN];
	char why[200];

	(void)state;
	memset(&m, 0, sizeof(m));
	m.version = 1;
	m.type = RD_OOB_REJECT;
	strcpy(m.reason, "protocol version mismatch");
	assert_int_equal(rd_oob_encode(&m, buf), RD_OOB_LEN_V1);
	assert_int_equal(rd_oob_msg_len(buf), RD_OOB_LEN_V1);
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN_V1, &d, why, sizeof(why)), 0);
	assert_int_equal(d.version, 1);
	assert_int_equal(d.type, RD_OOB_REJECT);
	assert_string_equal(d.reason, "protocol version mismatch");

	/* an old client's HELLO */
	accept_msg(&m);
	m.version = 1;
	m.type = RD_OOB_HELLO;
	m.rkey = 0x55;	/* not in version 1's layout */
	assert_int_equal(rd_oob_encode(&m, buf), RD_OOB_LEN_V1);
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN_V1, &d, why, sizeof(why)), 0);
	assert_int_equal(d.version, 1);
	assert_int_equal(d.type, RD_OOB_HELLO);
	assert_int_equal(d.qpn, 0x123);
	assert_int_equal(d.rkey, 0);
	/* a version 1 header with a version 2 length */
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN, &d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "version 1 has 112"));

	/* a future peer */
	accept_msg(&m);
	m.version = 4;
	rd_oob_encode(&m, buf);
	buf[5] = 5;
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN, &d, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_non_null(strstr(why, "peer speaks exchange version 5, this side speaks 4"));
}

static void test_oob_short(void **state)
{
	struct rd_oob_msg m, d;
	uint8_t buf[RD_OOB_LEN];
	char why[200];

	(void)state;
	accept_msg(&m);
	rd_oob_encode(&m, buf);
	/* version 2 in 112 bytes: cut short, not an old peer */
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN_V1, &d, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "112 bytes, version 2 has 128"));
	assert_int_equal(rd_oob_decode(buf, RD_OOB_HDR_LEN, &d, why, sizeof(why)), -EINVAL);
	assert_int_equal(rd_oob_decode(buf, RD_OOB_LEN - 1, &d, why, sizeof(why)), -EINVAL);
	assert_int_equal(rd_oob_decode(buf, 0, &d, why, sizeof(why)), -EINVAL);
	/* an unknown header reads as a whole current message (then fails on its magic) */
	memset(buf, 'G', sizeof(buf));
	assert_int_equal(rd_oob_msg_len(buf), RD_OOB_LEN);
}

static void test_cm_private_data(void **state)
{
	struct rd_st_params p = { .max_size = 4096, .window = 32, .iters = 77 }, q;
	struct rd_st_target t = { .addr = 0x1000, .rkey = 0x77, .len = 4096 }, u;
	uint8_t req[RD_CM_PRIV_LEN], rep[RD_CM_REP_LEN];
	uint32_t v1[5];

	(void)state;
	rd_cm_params_encode(&p, req);
	assert_int_equal(rd_cm_priv_version(req, sizeof(req)), RD_CM_VERSION);
	assert_int_equal(RD_CM_VERSION, 2);
	assert_int_equal(rd_cm_params_decode(req, sizeof(req), &q), 0);
	assert_int_equal(q.max_size, 4096);
	assert_int_equal(q.iters, 77);
	assert_int_equal(rd_cm_params_decode(req, sizeof(req) - 1, &q), -EPROTO);	/* short */
	assert_int_equal(rd_cm_params_decode(NULL, 0, &q), -EPROTO);

	/* an old client's REQ: same layout, version 1, still served */
	memcpy(v1, req, sizeof(v1));
	v1[1] = htobe32(1);
	assert_int_equal(rd_cm_params_decode(v1, sizeof(v1), &q), 0);
	assert_int_equal(rd_cm_priv_version(v1, sizeof(v1)), 1);
	/* a newer one is refused, and the server can say which version it speaks */
	v1[1] = htobe32(3);
	assert_int_equal(rd_cm_params_decode(v1, sizeof(v1), &q), -EPROTONOSUPPORT);
	assert_int_equal(rd_cm_priv_version(v1, sizeof(v1)), 3);
	assert_int_equal(rd_cm_priv_version("RDSX\0\0\0\2", 8), 0);	/* not ours */

	rd_cm_target_encode(&t, rep);
	assert_int_equal(rd_cm_target_decode(rep, sizeof(rep), &u), 0);
	assert_true(u.addr == 0x1000 && u.rkey == 0x77 && u.len == 4096);
	/* IB CM pads a REP's private data with zeros: longer is fine */
	uint8_t padded[196] = { 0 };

	memcpy(padded, rep, sizeof(rep));
	assert_int_equal(rd_cm_target_decode(padded, sizeof(padded), &u), 0);
	assert_int_equal(rd_cm_target_decode(rep, sizeof(rep) - 1, &u), -EPROTO);
	assert_int_equal(u.rkey, 0);
	/* an old server's REP has no private data of ours */
	memset(padded, 0, sizeof(padded));
	assert_int_equal(rd_cm_target_decode(padded, sizeof(padded), &u), -EPROTO);
	rep[7] = 9;
	assert_int_equal(rd_cm_target_decode(rep, sizeof(rep), &u), -EPROTONOSUPPORT);
}

static void test_ops_words(void **state)
{
	unsigned int m;
	char why[96];

	(void)state;
	assert_int_equal(rd_st_ops_parse("send", &m, why, sizeof(why)), 0);
	assert_int_equal(m, 1u << RD_ST_OP_SEND);
	assert_int_equal(rd_st_ops_parse("all", &m, why, sizeof(why)), 0);
	assert_int_equal(m, RD_ST_OPS_ALL);
	assert_int_equal(rd_st_ops_parse("write,ATOMIC", &m, why, sizeof(why)), 0);
	assert_int_equal(m, (1u << RD_ST_OP_WRITE) | (1u << RD_ST_OP_WRITE_IMM) | (1u << RD_ST_OP_FADD) |
				    (1u << RD_ST_OP_CSWAP));
	assert_int_equal(rd_st_ops_parse("read,bogus", &m, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "'bogus' is not one of send, write, read, atomic, all");
	assert_int_equal(rd_st_ops_parse("", &m, why, sizeof(why)), -EINVAL);
	assert_int_equal(rd_st_ops_parse("read,", &m, why, sizeof(why)), -EINVAL);
	assert_int_equal(rd_st_ops_parse("rea", &m, why, sizeof(why)), -EINVAL);
	assert_int_equal(rd_st_deny_parse("read", &m, why, sizeof(why)), 0);
	assert_int_equal(rd_st_target_access(m), IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	assert_int_equal(rd_st_deny_parse("write,atomic", &m, why, sizeof(why)), 0);
	assert_int_equal(rd_st_target_access(m), IBV_ACCESS_REMOTE_READ);
	assert_int_equal(rd_st_target_access(0), RD_RC_REMOTE_ACCESS);
	assert_int_equal(rd_st_deny_parse("send", &m, why, sizeof(why)), -EINVAL);
	assert_int_equal(rd_st_deny_parse("all", &m, why, sizeof(why)), -EINVAL);
	assert_string_equal(rd_st_op_name(RD_ST_OP_WRITE_IMM), "write-imm");
	assert_string_equal(rd_st_op_name(RD_ST_NOPS), "?");

	struct rd_st_config c;

	rd_st_config_default(&c);
	c.ops = 1u << RD_ST_OP_READ;
	assert_null(rd_st_config_conflict(&c, false));
	assert_non_null(strstr(rd_st_config_conflict(&c, true), "--op goes without --server"));
	c.ops = 0;
	c.deny = 1u << RD_ST_OP_READ;
	assert_null(rd_st_config_conflict(&c, true));
	assert_null(rd_st_config_conflict(&c, false));	/* loopback */
	c.peer = "10.0.0.1";
	assert_non_null(strstr(rd_st_config_conflict(&c, false), "--deny"));
	assert_true(rd_st_target_len(4096) >= 2 * 4096 + 16);
}

/* A completion error's words depend on the operation; a flush is never the cause. */
static void test_op_diagnosis(void **state)
{
	struct rd_rc rc;
	struct ibv_wc wc;
	struct rd_st_error err;

	(void)state;
	assert_non_null(strstr(rd_st_op_diagnosis(RD_ST_TAG(RD_ST_OP_READ), IBV_WC_REM_ACCESS_ERR),
			       "lacks remote read access"));
	assert_non_null(strstr(rd_st_op_diagnosis(RD_ST_TAG(RD_ST_OP_WRITE_IMM), IBV_WC_REM_ACCESS_ERR),
			       "lacks remote write access"));
	assert_non_null(strstr(rd_st_op_diagnosis(RD_ST_TAG(RD_ST_OP_CSWAP), IBV_WC_REM_ACCESS_ERR),
			       "remote atomic"));
	assert_non_null(strstr(rd_st_op_diagnosis(RD_ST_TAG(RD_ST_OP_FADD), IBV_WC_REM_INV_REQ_ERR),
			       "atomic_cap"));
	assert_null(rd_st_op_diagnosis(0, IBV_WC_REM_ACCESS_ERR));	/* a send: the general words */
	assert_null(rd_st_op_diagnosis(RD_ST_TAG(RD_ST_OP_READ), IBV_WC_RETRY_EXC_ERR));

	/* The READ failed first, then a flush: the READ is reported. */
	memset(&rc, 0, sizeof(rc));
	memset(&wc, 0, sizeof(wc));
	rc.has_error = true;
	rc.first_error.status = IBV_WC_REM_ACCESS_ERR;
	rc.first_error.wr_id = RD_WR_SEND | ((uint64_t)RD_ST_TAG(RD_ST_OP_READ) << 48);
	wc.status = IBV_WC_WR_FLUSH_ERR;
	wc.wr_id = RD_WR_RECV | 3;
	rd_st_wc_error(&rc, &wc, &err);
	assert_true(err.wc);
	assert_int_equal(err.status, IBV_WC_REM_ACCESS_ERR);
	assert_non_null(strstr(err.what, "RDMA READ failed (remote access error"));
	assert_non_null(strstr(err.what, "lacks remote read access"));

	/* Only a flush (the peer broke the connection): said so. */
	rc.first_error = wc;
	rd_st_wc_error(&rc, &wc, &err);
	assert_non_null(strstr(err.what, "receive failed (Work Request Flushed Error"));
	assert_non_null(strstr(err.what, "the peer's request put the queue pair in error"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oob_v2_target),
		cmocka_unit_test(test_oob_v3_ud),
		cmocka_unit_test(test_oob_v4_dev),
		cmocka_unit_test(test_oob_old_peer),
		cmocka_unit_test(test_oob_short),
		cmocka_unit_test(test_cm_private_data),
		cmocka_unit_test(test_ops_words),
		cmocka_unit_test(test_op_diagnosis),
	};

	return cmocka_run_group_tests_name("selftest-ops", tests, NULL, NULL);
}

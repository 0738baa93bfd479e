// SPDX-License-Identifier: MIT
/*
 * rdma-fabric's model and checks on fabrics built here, port by port, as a
 * sweep would fill them: rates and their names, and each check's verdict on
 * the fault it is for (and on nothing else).
 */
#include "unit.h"

#include "fabric/fabric.h"
#include "fabric/fabint.h"	/* rd_fab_judge_seen: the probes' verdict without MADs */

/* Two switches (8 ports) joined on port 8, two CAs on each: 4X QDR everywhere, one SM. */
#define NNODES 6
static struct rd_fab_node nodes[NNODES];
static struct rd_fab_port ports[NNODES][9];
static struct rd_fab_sm sm;
static struct rd_fab fab;
/* The switches' forwarding tables: LIDs 1-6 are sw1, sw2, h1..h4 (as OpenSM would set them). */
static uint8_t lft[2][7];

static void port_up(int n, int p, int peer, int peer_port)
{
	struct rd_fab_port *x = &ports[n][p];

	x->num = p;
	x->has_info = true;
	x->state = RD_FAB_ACTIVE;
	x->phys = RD_FAB_PHYS_LINKUP;
	x->w_act = 2;
	x->w_en = x->w_sup = 3;
	x->s_act = 4;
	x->s_en = x->s_sup = 7;
	x->sm_lid = 1;
	x->peer_node = peer;
	x->peer_port = peer_port;
}

static void build(void)
{
	static const char *const desc[NNODES] = { "sw1", "sw2", "h1 mlx5_0", "h2 mlx5_0",
						  "h3 mlx5_0", "h4 mlx5_0" };

	memset(nodes, 0, sizeof(nodes));
	memset(ports, 0, sizeof(ports));
	memset(&fab, 0, sizeof(fab));
	for (int n = 0; n < NNODES; n++) {
		nodes[n].guid = 0x100 + (uint64_t)n;
		nodes[n].type = n < 2 ? RD_FAB_SWITCH : RD_FAB_CA;
		nodes[n].nports = n < 2 ? 8 : 1;
		nodes[n].ports = ports[n];
		strcpy(nodes[n].desc, desc[n]);
		strcpy(nodes[n].name, desc[n]);
		if (n >= 2)
			strcpy(nodes[n].host, (char[]){ 'h', (char)('1' + n - 2), 0 });
		nodes[n].lid = (uint16_t)(n + 1);
		for (int p = 0; p <= nodes[n].nports; p++) {
			ports[n][p].num = p;
			ports[n][p].peer_node = ports[n][p].peer_port = -1;
			ports[n][p].lid = nodes[n].lid;
		}
	}
	/* Switch port 0: Active, the LID, the SM's LID. */
	for (int n = 0; n < 2; n++) {
		ports[n][0].has_info = true;
		ports[n][0].state = RD_FAB_ACTIVE;
		ports[n][0].sm_lid = 1;
	}
	port_up(0, 8, 1, 8);
	port_up(1, 8, 0, 8);
	port_up(0, 1, 2, 1);
	port_up(2, 1, 0, 1);
	port_up(0, 2, 3, 1);
	port_up(3, 1, 0, 2);
	port_up(1, 1, 4, 1);
	port_up(4, 1, 1, 1);
	port_up(1, 2, 5, 1);
	port_up(5, 1, 1, 2);
	ports[2][1].cap_mask = 1u << 1;	/* h1 runs the SM */
	{
		static const uint8_t t[2][7] = { { 0xff, 0, 8, 1, 2, 8, 8 }, { 0xff, 8, 0, 8, 8, 1, 2 } };

		memcpy(lft, t, sizeof(lft));
		for (int n = 0; n < 2; n++) {
			nodes[n].lft = lft[n];
			nodes[n].lft_top = 6;
		}
	}
	fab.have_routes = true;
	fab.nodes = nodes;
	fab.n_nodes = NNODES;
	fab.live = true;
	fab.have_sms = true;
	fab.have_ctrs = true;
	memset(&sm, 0, sizeof(sm));
	sm.lid = 3;		/* h1's LID */
	sm.node = 2;
	sm.port = 1;
	sm.answered = true;
	sm.state = 3;
	fab.sms = &sm;
	fab.n_sms = 1;
	for (int n = 0; n < NNODES; n++)
		for (int p = 1; p <= nodes[n].nports; p++) {
			ports[n][p].sm_lid = 3;
			ports[n][p].ctr_read[0] = ports[n][p].phys == RD_FAB_PHYS_LINKUP;
		}
	ports[0][0].sm_lid = ports[1][0].sm_lid = 3;
}

/* Run the checks; return the results of one check as "STATUS object|..." */
static const char *run(const char *id, struct rd_fab_report *r, const struct rd_fab_check_opts *o)
{
	static char out[4096];
	static const struct rd_fab_check_opts none = { 0 };
	size_t len = 0;

	rd_fab_report_free(r);
	assert_int_equal(rd_fab_run_checks(&fab, o ? o : &none, r), 0);
	out[0] = '\0';
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].check->id, id) == 0)
			len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s %s", len ? "|" : "",
						rd_fab_status_name(r->v[i].status), r->v[i].object);
	return out;
}

/* The first result of a check. */
static const struct rd_fab_result *first(const struct rd_fab_report *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].check->id, id) == 0)
			return &r->v[i];
	fail_msg("no result of %s", id);
	return NULL;
}

static void test_rates(void **state)
{
	unsigned int lanes, mbps;
	struct rd_fab_port a = { .w_en = 3, .w_sup = 3, .s_en = 7, .s_sup = 7 }, b = a;

	(void)state;
	assert_int_equal(rd_fab_parse_rate("4xHDR", &lanes, &mbps), 0);
	assert_int_equal(lanes, 4);
	assert_int_equal(mbps, 53125);
	assert_int_equal(rd_fab_parse_rate("edr", &lanes, &mbps), 0);
	assert_int_equal(lanes, 0);
	assert_string_equal(rd_fab_lane_name(mbps), "EDR");
	assert_int_equal(rd_fab_parse_rate("12X", &lanes, &mbps), 0);
	assert_int_equal(lanes, 12);
	assert_int_equal(mbps, 0);
	assert_int_equal(rd_fab_parse_rate("5xQDR", &lanes, &mbps), -EINVAL);
	assert_int_equal(rd_fab_parse_rate("4xXDR", &lanes, &mbps), -EINVAL);
	assert_int_equal(rd_fab_parse_rate("", &lanes, &mbps), -EINVAL);
	assert_int_equal(rd_fab_parse_rate("4x", &lanes, &mbps), 0);
	/* Both ends enable 1X|4X and SDR..QDR: 4X QDR. */
	assert_string_equal(rd_fab_width_name(rd_fab_best_width(&a, &b)), "4X");
	assert_string_equal(rd_fab_lane_name(rd_fab_best_lane_mbps(&a, &b)), "QDR");
	/* One end 1X only: the best is 1X. */
	b.w_en = 1;
	assert_string_equal(rd_fab_width_name(rd_fab_best_width(&a, &b)), "1X");
	/* Extended speeds count only with CapabilityMask bit 14. */
	a.e_en = a.e_sup = b.e_en = b.e_sup = 4;
	assert_string_equal(rd_fab_lane_name(rd_fab_best_lane_mbps(&a, &b)), "QDR");
	a.cap_mask = b.cap_mask = 1u << 14;
	assert_string_equal(rd_fab_lane_name(rd_fab_best_lane_mbps(&a, &b)), "HDR");
	a.s_act = 4;
	a.e_act = 4;
	assert_string_equal(rd_fab_speed_name(&a), "HDR");
	a.cap_mask = 0;
	assert_string_equal(rd_fab_speed_name(&a), "QDR");
}

static void test_healthy(void **state)
{
	struct rd_fab_report r = { 0 };

	(void)state;
	build();
	run("link.degraded", &r, NULL);
	assert_int_equal(r.count[RD_FAB_FAIL], 0);
	assert_int_equal(r.count[RD_FAB_WARN], 0);
	assert_int_equal(r.count[RD_FAB_SKIP], 1);	/* link.baseline: no --baseline */
	assert_int_equal(r.links, 5);
	assert_int_equal(r.nodes, 6);
	assert_int_equal(rd_fab_report_worst(&r), RD_FAB_PASS);
	rd_fab_report_free(&r);
}

static void test_degraded(void **state)
{
	struct rd_fab_report r = { 0 };
	struct rd_fab_check_opts o = { 0 };

	(void)state;
	build();
	/* h4's cable trained 1X on both ends although both enable 4X. */
	ports[1][2].w_act = ports[5][1].w_act = 1;
	assert_string_equal(run("link.degraded", &r, NULL), "FAIL sw2 port 2 <-> h4 mlx5_0 port 1");
	assert_string_equal(first(&r, "link.degraded")->host, "h4");
	assert_non_null(strstr(first(&r, "link.degraded")->detail, "trained at 1X where both ends enable 4X"));
	/* Both ends enable only 1X: not below what they enable, but below the fabric's usual 4X. */
	ports[1][2].w_en = ports[5][1].w_en = 1;
	assert_string_equal(run("link.degraded", &r, NULL), "FAIL sw2 port 2 <-> h4 mlx5_0 port 1");
	assert_non_null(strstr(first(&r, "link.degraded")->detail, "where 3 of this fabric's 4 HCA links run 4X QDR"));
	/* --expect-rate 4xEDR: every link is below it. */
	build();
	o.expect_lane_mbps = 25781;
	o.expect_rate = "EDR";
	run("link.degraded", &r, &o);
	assert_int_equal(r.count[RD_FAB_FAIL], 5);
	/* The two ends disagree on the speed. */
	build();
	ports[4][1].s_act = 2;
	assert_string_equal(run("link.mismatch", &r, NULL), "FAIL sw2 port 1 <-> h3 mlx5_0 port 1");
	rd_fab_report_free(&r);
}

static void test_stuck(void **state)
{
	struct rd_fab_report r = { 0 };

	(void)state;
	build();
	/* Both ends of one link in Init: one result for the link, not two. */
	ports[0][1].state = ports[2][1].state = RD_FAB_INIT;
	assert_string_equal(run("link.state", &r, NULL), "FAIL sw1 port 1 <-> h1 mlx5_0 port 1");
	/* An Active port whose peer never answered. */
	build();
	ports[1][2].peer_node = ports[1][2].peer_port = -1;
	ports[5][1].has_info = false;
	assert_string_equal(run("node.answer", &r, NULL),
			    "FAIL sw2 port 2|FAIL h4 mlx5_0");
	rd_fab_report_free(&r);
}

static void test_counters(void **state)
{
	struct rd_fab_report r = { 0 };

	(void)state;
	build();
	ports[0][1].ctr[0][RD_FAB_SYMBOL_ERR] = 250;
	assert_string_equal(run("port.errors", &r, NULL), "WARN sw1 port 1 <-> h1 mlx5_0 port 1");
	/* Rising between two readings: FAIL, with the rise. */
	fab.interval = 2;
	for (int n = 0; n < NNODES; n++)
		for (int p = 1; p <= nodes[n].nports; p++)
			ports[n][p].ctr_read[1] = ports[n][p].ctr_read[0];
	ports[0][1].ctr[1][RD_FAB_SYMBOL_ERR] = 260;
	assert_string_equal(run("port.errors", &r, NULL), "FAIL sw1 port 1 <-> h1 mlx5_0 port 1");
	assert_non_null(strstr(first(&r, "port.errors")->detail, "SymbolErrorCounter=260 (+10 in 2 s)"));
	/* A saturated 4-bit counter says so; XmitWait goes to its own check. */
	build();
	ports[2][1].ctr[0][RD_FAB_LOCAL_INTEGRITY] = 15;
	ports[3][1].ctr[0][RD_FAB_XMIT_WAIT] = 5000;
	assert_string_equal(run("port.errors", &r, NULL), "WARN h1 mlx5_0 port 1 <-> sw1 port 1");
	assert_non_null(strstr(first(&r, "port.errors")->detail, "(saturated)"));
	assert_string_equal(run("port.xmitwait", &r, NULL), "WARN h2 mlx5_0 port 1 <-> sw1 port 2");
	/* A saved fabric holds no counters: SKIP. */
	fab.have_ctrs = false;
	assert_string_equal(run("port.errors", &r, NULL), "SKIP fabric");
	rd_fab_report_free(&r);
}

static void test_sms(void **state)
{
	struct rd_fab_report r = { 0 };
	struct rd_fab_sm two[2];

	(void)state;
	build();
	/* Each result about one SM carries its port's GUID, port and host, as its text names it. */
	assert_string_equal(run("sm.master", &r, NULL), "PASS SM at LID 3 (h1 mlx5_0 port 1)");
	assert_true(first(&r, "sm.master")->guid == nodes[2].guid && first(&r, "sm.master")->port == 1);
	assert_string_equal(first(&r, "sm.master")->host, "h1");
	/* No SM answered. */
	sm.answered = false;
	snprintf(sm.why, sizeof(sm.why), "no answer to SMInfo at LID 3");
	assert_string_equal(run("sm.master", &r, NULL), "WARN SM at LID 3 (h1 mlx5_0 port 1)|FAIL fabric");
	assert_true(first(&r, "sm.master")->guid == nodes[2].guid && first(&r, "sm.master")->port == 1);
	/* Two masters. */
	build();
	two[0] = sm;
	two[1] = sm;
	two[1].lid = 4;
	two[1].node = 3;
	two[1].guid = 0x999;
	fab.sms = two;
	fab.n_sms = 2;
	assert_string_equal(run("sm.master", &r, NULL), "FAIL fabric");
	assert_non_null(strstr(first(&r, "sm.master")->detail, "2 masters (LID 3, LID 4)"));
	/* A standby with a higher priority than the master. */
	fab.sms[1].state = 2;
	fab.sms[1].priority = 10;
	assert_string_equal(run("sm.master", &r, NULL), "WARN SM at LID 3 (h1 mlx5_0 port 1)");
	assert_true(first(&r, "sm.master")->guid == nodes[2].guid && first(&r, "sm.master")->port == 1);
	/* A port whose SMLid names the standby. */
	ports[4][1].sm_lid = 4;
	assert_string_equal(run("sm.lid", &r, NULL), "FAIL h3 mlx5_0 port 1");
	rd_fab_report_free(&r);
}

static void test_identity(void **state)
{
	struct rd_fab_report r = { 0 };

	(void)state;
	build();
	ports[5][1].lid = 3;	/* h4 takes h1's LID */
	assert_string_equal(run("id.lid", &r, NULL), "FAIL h4 mlx5_0 port 1");
	assert_non_null(strstr(first(&r, "id.lid")->detail, "LID 3 is also h1 mlx5_0 port 1's"));
	build();
	ports[3][1].lid = 0;
	assert_string_equal(run("id.lid", &r, NULL), "FAIL h2 mlx5_0 port 1");
	build();
	nodes[5].guid = nodes[4].guid;
	assert_string_equal(run("id.guid", &r, NULL), "FAIL h4 mlx5_0");
	/* Asked directly, nothing answers: a dead node, with the route to probe. */
	build();
	ports[1][2].peer_node = ports[1][2].peer_port = -1;
	ports[1][2].probed = true;
	fab.n_nodes = NNODES - 1;
	nodes[1].dr_cnt = 1;
	nodes[1].dr[0] = 0;
	nodes[1].dr[1] = 8;
	assert_string_equal(run("node.answer", &r, NULL), "FAIL sw2 port 2");
	assert_non_null(strstr(first(&r, "node.answer")->detail, "directed route 0,8,2: no answer"));
	build();
	strcpy(nodes[5].desc, "h3 mlx5_0");
	assert_string_equal(run("id.desc", &r, NULL), "WARN h4 mlx5_0 (0x0000000000000105)");
	rd_fab_report_free(&r);
}

/* A copy of the fabric build() makes, as a --baseline. */
static struct rd_fab_node base_nodes[NNODES];
static struct rd_fab_port base_ports[NNODES][9];
static struct rd_fab base;

static void snapshot(void)
{
	memcpy(base_nodes, nodes, sizeof(nodes));
	memcpy(base_ports, ports, sizeof(ports));
	for (int n = 0; n < NNODES; n++)
		base_nodes[n].ports = base_ports[n];
	base = fab;
	base.nodes = base_nodes;
}

static void unplug(int n, int p)
{
	ports[n][p].peer_node = ports[n][p].peer_port = -1;
	ports[n][p].state = RD_FAB_DOWN;
	ports[n][p].phys = RD_FAB_PHYS_POLLING;
}

/* What the sweep's probes would have seen: one answer at node n's port p. */
static struct rd_fab_seen seen[16];

static void saw(int n, int p, int answer, int answer_port, const char *desc)
{
	struct rd_fab_seen *s = &seen[fab.n_seen++];

	memset(s, 0, sizeof(*s));
	s->node = n;
	s->port = p;
	s->answered = true;
	s->guid = nodes[answer].guid;
	s->type = nodes[answer].type;
	s->local_port = answer_port;
	snprintf(s->desc, sizeof(s->desc), "%s", desc);
}

/* build()'s fabric as the sweep reaches it from h1: sw1 by 0,1, sw2 by 0,1,8; every port asked. */
static void probed_from_h1(const char *desc_sw2_2, int answer_sw2_2)
{
	static const uint8_t r_sw1[] = { 0, 1 }, r_sw2[] = { 0, 1, 8 };

	memcpy(nodes[0].dr, r_sw1, sizeof(r_sw1));
	nodes[0].dr_cnt = 1;
	memcpy(nodes[1].dr, r_sw2, sizeof(r_sw2));
	nodes[1].dr_cnt = 2;
	nodes[2].dr_cnt = 0;
	fab.from_node = 2;
	fab.from_port = 1;
	fab.seen = seen;
	fab.n_seen = 0;
	saw(0, 1, 2, 1, "h1 mlx5_0");
	saw(0, 2, 3, 1, "h2 mlx5_0");
	saw(0, 8, 1, 8, "sw2");
	saw(1, 1, 4, 1, "h3 mlx5_0");
	saw(1, 2, answer_sw2_2, 1, desc_sw2_2);
	saw(1, 8, 0, 8, "sw1");
	saw(2, 1, 0, 1, "sw1");
	fab.n_nodes = NNODES - 1;	/* h4 is the copy: discovery took it for another node */
}

/*
 * A GUID two nodes share: every position where it answers FAILs id.guid,
 * each named by the description that answers there, and nothing else: the
 * links discovery lost or made wrong are mended from the probes' answers.
 */
static void test_shared_guid(void **state)
{
	struct rd_fab_report r = { 0 };

	(void)state;
	/* h4 answers with h3's GUID: neither position can be told the original. */
	build();
	unplug(1, 2);
	probed_from_h1("h4 mlx5_0", 4);
	rd_fab_judge_seen(&fab);
	assert_string_equal(run("id.guid", &r, NULL), "FAIL sw2 port 1|FAIL sw2 port 2");
	assert_string_equal(first(&r, "id.guid")->detail,
			    "GUID 0x0000000000000104 port 1 answers here as \"h3 mlx5_0\" (directed route "
			    "0,1,8,1); it also answers at sw2 port 2 (\"h4 mlx5_0\")");
	assert_string_equal((first(&r, "id.guid") + 1)->host, "h4");
	assert_true((first(&r, "id.guid") + 1)->peer_guid == nodes[4].guid);
	assert_int_equal(ports[1][1].peer_node, -1);
	assert_int_equal(ports[4][1].peer_node, -1);
	assert_string_equal(run("node.answer", &r, NULL), "PASS fabric");
	/*
	 * h4 answers with h1's GUID, h1 being the node the sweep runs from.
	 * libibnetdisc, meeting that GUID behind sw2, linked h1 to sw2 port 8
	 * and lost sw1-sw2 and h1-sw1: probed, sw2 answers over that cable as
	 * itself, and must not be named.
	 */
	build();
	unplug(1, 2);
	ports[0][8].peer_node = ports[0][8].peer_port = -1;
	ports[0][1].peer_node = ports[0][1].peer_port = -1;
	ports[2][1].peer_node = 1;
	ports[2][1].peer_port = 8;
	ports[1][8].peer_node = 2;
	ports[1][8].peer_port = 1;
	probed_from_h1("h4 mlx5_0", 2);
	rd_fab_judge_seen(&fab);
	assert_string_equal(run("id.guid", &r, NULL), "FAIL sw1 port 1|FAIL sw2 port 2");
	assert_non_null(strstr(first(&r, "id.guid")->detail, "(directed route 0,1,1: the port this sweep "
			       "runs from); it also answers at sw2 port 2 (\"h4 mlx5_0\")"));
	assert_true(ports[2][1].peer_node == 0 && ports[2][1].peer_port == 1);
	assert_true(ports[0][8].peer_node == 1 && ports[0][8].peer_port == 8);
	assert_true(ports[1][8].peer_node == 0 && ports[1][8].peer_port == 8);
	assert_string_equal(run("node.answer", &r, NULL), "PASS fabric");
	assert_string_equal(run("link.mismatch", &r, NULL), "PASS fabric");
	/* Nothing shared: the same answers on the healthy fabric name nobody. */
	build();
	probed_from_h1("h4 mlx5_0", 5);
	fab.n_nodes = NNODES;
	rd_fab_judge_seen(&fab);
	assert_string_equal(run("id.guid", &r, NULL), "PASS fabric");
	rd_fab_report_free(&r);
}

static void test_baseline(void **state)
{
	struct rd_fab_report r = { 0 };
	struct rd_fab_check_opts o = { 0 };

	(void)state;
	build();
	assert_string_equal(run("link.baseline", &r, NULL), "SKIP fabric");
	snapshot();
	o.baseline = &base;
	assert_string_equal(run("link.baseline", &r, &o), "PASS fabric");
	/* h4 unplugged: it is gone from discovery, its switch port Polling. */
	unplug(1, 2);
	fab.n_nodes = NNODES - 1;
	assert_string_equal(run("link.baseline", &r, &o),
			    "FAIL h4 mlx5_0 (0x0000000000000105)|FAIL sw2 port 2 <-> h4 mlx5_0 port 1");
	assert_non_null(strstr((first(&r, "link.baseline") + 1)->detail, "is down: Down, Polling"));
	/* h3's cable moved from sw2 port 1 to sw2 port 3: one result, the move. */
	build();
	snapshot();
	unplug(1, 1);
	port_up(1, 3, 4, 1);
	ports[4][1].peer_port = 3;
	assert_string_equal(run("link.baseline", &r, &o), "FAIL h3 mlx5_0 port 1 <-> sw2 port 3");
	assert_non_null(strstr(first(&r, "link.baseline")->detail,
			       "the cable moved: h3 mlx5_0 port 1 went to sw2 port 1, it goes to sw2 port 3 now"));
	/* A cable added between the switches: new, a WARN. */
	build();
	snapshot();
	port_up(0, 7, 1, 7);
	port_up(1, 7, 0, 7);
	assert_string_equal(run("link.baseline", &r, &o), "WARN sw1 port 7 <-> sw2 port 7");
	/* A baseline of another fabric (no GUID in common): one FAIL that says so. */
	build();
	snapshot();
	for (int n = 0; n < NNODES; n++)
		base_nodes[n].guid += 0x1000;
	assert_string_equal(run("link.baseline", &r, &o), "FAIL baseline");
	assert_non_null(strstr(first(&r, "link.baseline")->detail, "the baseline is of another fabric"));
	rd_fab_report_free(&r);
}

/* Routes over the two switches' tables: a walk, the loads, a hole, a loop. */
static void test_routes(void **state)
{
	struct rd_fab_report r = { 0 };
	struct rd_fab_route rt;
	int node, port;
	char why[200];

	(void)state;
	build();
	/* h1 (LID 3) to h4 (LID 6): sw1 port 8, sw2 port 2, h4. */
	assert_int_equal(rd_fab_route(&fab, 2, 1, 6, &rt), 0);
	assert_int_equal(rt.end, RD_FAB_ROUTE_OK);
	assert_int_equal(rt.n, 4);
	assert_int_equal(rt.hop[1].node, 0);
	assert_int_equal(rt.hop[1].in_port, 1);
	assert_int_equal(rt.hop[1].out_port, 8);
	assert_int_equal(rt.hop[2].node, 1);
	assert_int_equal(rt.hop[2].out_port, 2);
	assert_int_equal(rt.hop[3].node, 5);
	/* To a switch's own LID: it ends there. */
	assert_int_equal(rd_fab_route(&fab, 2, 1, 2, &rt), 0);
	assert_int_equal(rt.end, RD_FAB_ROUTE_OK);
	assert_int_equal(rt.n, 3);
	/* Names: a host, a description, a LID, a GUID; an unknown one says so. */
	assert_int_equal(rd_fab_endpoint(&fab, "h3", &node, &port, why, sizeof(why)), 0);
	assert_int_equal(node, 4);
	assert_int_equal(rd_fab_endpoint(&fab, "h2 mlx5_0", &node, &port, why, sizeof(why)), 0);
	assert_int_equal(node, 3);
	assert_int_equal(rd_fab_endpoint(&fab, "6", &node, &port, why, sizeof(why)), 0);
	assert_int_equal(node, 5);
	assert_int_equal(rd_fab_endpoint(&fab, "0x0000000000000101", &node, &port, why, sizeof(why)), 0);
	assert_int_equal(node, 1);
	assert_int_equal(port, 0);
	assert_int_equal(rd_fab_endpoint(&fab, "h9", &node, &port, why, sizeof(why)), -ENOENT);
	assert_int_equal(rd_fab_endpoint(&fab, "0x1x", &node, &port, why, sizeof(why)), -EINVAL);
	assert_int_equal(rd_fab_endpoint(&fab, "50000", &node, &port, why, sizeof(why)), -EINVAL);
	/* Every CA-to-CA route: 12, each HCA link crossed by 6 of them, the inter-switch link by 8. */
	assert_string_equal(run("route.degraded", &r, NULL), "PASS fabric");
	assert_string_equal(run("route.loops", &r, NULL), "PASS fabric");
	assert_string_equal(run("route.holes", &r, NULL), "PASS fabric");
	{
		struct rd_fab_rt t;

		assert_int_equal(rd_fab_rt_build(&fab, &t), 0);
		assert_int_equal(t.n_ep, 4);
		assert_int_equal(t.pairs, 12);
		assert_int_equal(t.broken[RD_FAB_ROUTE_OK], 12);
		assert_int_equal(rd_fab_rt_link_load(&fab, &t, 2, 1), 6);
		assert_int_equal(rd_fab_rt_link_load(&fab, &t, 0, 8), 8);
		assert_int_equal(t.n_cycles, 0);
		rd_fab_rt_free(&t);
	}
	/* A hole: sw1 forgets h3 (LID 5). */
	lft[0][5] = RD_FAB_NO_PORT;
	assert_int_equal(rd_fab_route(&fab, 2, 1, 5, &rt), 0);
	assert_int_equal(rt.end, RD_FAB_ROUTE_HOLE);
	assert_int_equal(rt.hop[rt.n - 1].node, 0);
	assert_string_equal(run("route.holes", &r, NULL), "FAIL sw1 port 0");
	/* A loop: sw2 sends h3's LID back to sw1, which sends it to sw2 again. */
	lft[0][5] = 8;
	lft[1][5] = 8;
	assert_int_equal(rd_fab_route(&fab, 2, 1, 5, &rt), 0);
	assert_int_equal(rt.end, RD_FAB_ROUTE_LOOP);
	assert_string_equal(run("route.loops", &r, NULL), "FAIL sw1 port 0");
	/* Into a port that is down: sw1's port 8 loses its link. */
	lft[1][5] = 1;
	ports[0][8].state = RD_FAB_DOWN;
	assert_int_equal(rd_fab_route(&fab, 2, 1, 5, &rt), 0);
	assert_int_equal(rt.end, RD_FAB_ROUTE_DOWN);
	/* A table not read: unknown, not a hole. */
	ports[0][8].state = RD_FAB_ACTIVE;
	nodes[0].lft = NULL;
	assert_int_equal(rd_fab_route(&fab, 2, 1, 5, &rt), 0);
	assert_int_equal(rt.end, RD_FAB_ROUTE_UNKNOWN);
	rd_fab_report_free(&r);
}

/* Tiers from the HCAs up: both switches carry HCAs (1); without its HCAs sw2 is a hop further (2). */
static void test_tiers(void **state)
{
	int t[NNODES];

	(void)state;
	build();
	assert_int_equal(rd_fab_tiers(&fab, true, t), 1);
	assert_int_equal(t[0], 1);
	assert_int_equal(t[1], 1);
	assert_int_equal(t[2], 0);
	assert_int_equal(t[5], 0);
	/* sw2's HCAs unplugged: it is reached through sw1 only. */
	ports[1][1].peer_node = ports[1][2].peer_node = -1;
	ports[4][1].peer_node = ports[5][1].peer_node = -1;
	assert_int_equal(rd_fab_tiers(&fab, true, t), 2);
	assert_int_equal(t[1], 2);
	assert_int_equal(t[4], 0);
	/* The switches' link cabled but stuck in Init: only Active links are hops when asked. */
	ports[0][8].state = ports[1][8].state = RD_FAB_INIT;
	assert_int_equal(rd_fab_tiers(&fab, true, t), 1);
	assert_int_equal(t[1], -1);
	assert_int_equal(rd_fab_tiers(&fab, false, t), 2);
	assert_int_equal(t[1], 2);
}

static void test_selection(void **state)
{
	struct rd_strlist only = { 0 }, skip = { 0 };
	struct rd_fab_check_opts o = { .only = &only, .skip = &skip };
	size_t n;

	(void)state;
	rd_fab_checks(&n);
	assert_int_equal(rd_fab_selected_count(&o), n);
	rd_strlist_add(&only, "sm");
	assert_int_equal(rd_fab_selected_count(&o), 2);
	assert_true(rd_fab_group_selected(&o, "sm"));
	assert_false(rd_fab_group_selected(&o, "port"));
	rd_strlist_add(&skip, "sm.lid");
	assert_int_equal(rd_fab_selected_count(&o), 1);
	rd_strlist_add(&skip, "sm.master");
	assert_int_equal(rd_fab_selected_count(&o), 0);
	assert_non_null(rd_fab_check_find("link"));
	assert_null(rd_fab_check_find("lin"));
	assert_null(rd_fab_check_find("link.nope"));
	rd_strlist_free(&only);
	rd_strlist_free(&skip);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rates),
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_stuck),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_sms),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_shared_guid),
		cmocka_unit_test(test_baseline),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_tiers),
		cmocka_unit_test(test_selection),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

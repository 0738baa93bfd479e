// SPDX-License-Identifier: MIT
/*
 * The fabric model: built from libibnetdisc's fabric (a sweep or a cache
 * file), the names of widths, speeds and states, and link rates.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

#include "fabapi.h"
#include "fabint.h"

static const struct rd_fab_ctr_info ctr_info[RD_FAB_NCTRS] = {
	[RD_FAB_SYMBOL_ERR] = { "SymbolErrorCounter", "symbol_error", 16, true },
	[RD_FAB_LINK_RECOVERY] = { "LinkErrorRecoveryCounter", "link_error_recovery", 8, true },
	[RD_FAB_LINK_DOWNED] = { "LinkDownedCounter", "link_downed", 8, true },
	[RD_FAB_RCV_ERR] = { "PortRcvErrors", "port_rcv_errors", 16, true },
	[RD_FAB_RCV_REMOTE_PHYS] = { "PortRcvRemotePhysicalErrors", "port_rcv_remote_physical_errors", 16, true },
	[RD_FAB_LOCAL_INTEGRITY] = { "LocalLinkIntegrityErrors", "local_link_integrity_errors", 4, true },
	[RD_FAB_EXCESS_OVERRUN] = { "ExcessiveBufferOverrunErrors", "excessive_buffer_overrun_errors", 4, true },
	[RD_FAB_XMIT_DISCARDS] = { "PortXmitDiscards", "port_xmit_discards", 16, true },
	[RD_FAB_VL15_DROPPED] = { "VL15Dropped", "vl15_dropped", 16, true },
	[RD_FAB_SWITCH_RELAY] = { "PortRcvSwitchRelayErrors", "port_rcv_switch_relay_errors", 16, true },
	[RD_FAB_XMIT_CONSTRAINT] = { "PortXmitConstraintErrors", "port_xmit_constraint_errors", 8, true },
	[RD_FAB_RCV_CONSTRAINT] = { "PortRcvConstraintErrors", "port_rcv_constraint_errors", 8, true },
	[RD_FAB_XMIT_WAIT] = { "PortXmitWait", "port_xmit_wait", 32, false },
	[RD_FAB_XMIT_DATA] = { "PortXmitData", "port_xmit_data", 32, false },
	[RD_FAB_RCV_DATA] = { "PortRcvData", "port_rcv_data", 32, false },
	[RD_FAB_XMIT_PKTS] = { "PortXmitPkts", "port_xmit_pkts", 32, false },
	[RD_FAB_RCV_PKTS] = { "PortRcvPkts", "port_rcv_pkts", 32, false },
};

const struct rd_fab_ctr_info *rd_fab_ctr_info(enum rd_fab_ctr c)
{
	return c < RD_FAB_NCTRS ? &ctr_info[c] : NULL;
}

const char *rd_fab_width_name(uint8_t w)
{
	switch (w) {
	case 1: return "1X";
	case 2: return "4X";
	case 4: return "8X";
	case 8: return "12X";
	case 16: return "2X";
	default: return "?";
	}
}

unsigned int rd_fab_width_lanes(uint8_t w)
{
	switch (w) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return 0;
	}
}

/* The lanes of the widest width in a mask. */
static unsigned int mask_best_lanes(uint8_t m)
{
	unsigned int best = 0;

	for (unsigned int b = 0; b < 5; b++)
		if (m & (1u << b) && rd_fab_width_lanes((uint8_t)(1u << b)) > best)
			best = rd_fab_width_lanes((uint8_t)(1u << b));
	return best;
}

static uint8_t lanes_width(unsigned int lanes)
{
	switch (lanes) {
	case 1: return 1;
	case 2: return 16;
	case 4: return 2;
	case 8: return 4;
	case 12: return 8;
	default: return 0;
	}
}

/* LinkSpeed (1 SDR, 2 DDR, 4 QDR) and LinkSpeedExt (1 FDR, 2 EDR, 4 HDR, 8 NDR) bits in Mb/s. */
static const struct {
	unsigned int mbps;
	const char *name;
} lane_speeds[] = {
	{ 2500, "SDR" }, { 5000, "DDR" }, { 10000, "QDR" },
	{ 14062, "FDR" }, { 25781, "EDR" }, { 53125, "HDR" }, { 106250, "NDR" },
};

static unsigned int speed_bit_mbps(uint8_t bit)
{
	return bit == 1 ? 2500 : bit == 2 ? 5000 : bit == 4 ? 10000 : 0;
}

static unsigned int ext_bit_mbps(uint8_t bit)
{
	return bit == 1 ? 14062 : bit == 2 ? 25781 : bit == 4 ? 53125 : bit == 8 ? 106250 : 0;
}

const char *rd_fab_lane_name(unsigned int mbps)
{
	for (size_t i = 0; i < RD_ARRAY_SIZE(lane_speeds); i++)
		if (lane_speeds[i].mbps == mbps)
			return lane_speeds[i].name;
	return "?";
}

/* Extended speeds count only when the port says it has them (CapabilityMask bit 14). */
static bool has_ext(const struct rd_fab_port *p)
{
	return p->cap_mask & RD_FAB_CAP_EXT_SPEEDS;
}

unsigned int rd_fab_lane_mbps(const struct rd_fab_port *p)
{
	if (has_ext(p) && p->e_act)
		return ext_bit_mbps(p->e_act);
	return speed_bit_mbps(p->s_act);
}

const char *rd_fab_speed_name(const struct rd_fab_port *p)
{
	return rd_fab_lane_name(rd_fab_lane_mbps(p));
}

/* The fastest lane speed a port enables and supports. */
static unsigned int port_best_mbps(const struct rd_fab_port *p, uint8_t *s_mask, uint8_t *e_mask)
{
	unsigned int best = 0;
	uint8_t s = p->s_en & (p->s_sup ? p->s_sup : 0xff);
	uint8_t e = has_ext(p) ? (uint8_t)(p->e_en & (p->e_sup ? p->e_sup : 0xff)) : 0;

	*s_mask = s;
	*e_mask = e;
	for (unsigned int b = 0; b < 4; b++) {
		if (s & (1u << b) && speed_bit_mbps((uint8_t)(1u << b)) > best)
			best = speed_bit_mbps((uint8_t)(1u << b));
		if (e & (1u << b) && ext_bit_mbps((uint8_t)(1u << b)) > best)
			best = ext_bit_mbps((uint8_t)(1u << b));
	}
	return best;
}

uint8_t rd_fab_best_width(const struct rd_fab_port *a, const struct rd_fab_port *b)
{
	uint8_t wa = a->w_en & (a->w_sup ? a->w_sup : 0xff);
	uint8_t wb = b->w_en & (b->w_sup ? b->w_sup : 0xff);

	return lanes_width(mask_best_lanes(wa & wb));
}

unsigned int rd_fab_best_lane_mbps(const struct rd_fab_port *a, const struct rd_fab_port *b)
{
	uint8_t sa, ea, sb, eb;
	unsigned int best = 0;

	port_best_mbps(a, &sa, &ea);
	port_best_mbps(b, &sb, &eb);
	for (unsigned int bit = 0; bit < 4; bit++) {
		uint8_t m = (uint8_t)(1u << bit);

		if (sa & sb & m && speed_bit_mbps(m) > best)
			best = speed_bit_mbps(m);
		if (ea & eb & m && ext_bit_mbps(m) > best)
			best = ext_bit_mbps(m);
	}
	return best;
}

int rd_fab_parse_rate(const char *s, unsigned int *lanes, unsigned int *lane_mbps)
{
	*lanes = 0;
	*lane_mbps = 0;
	if (!s || !*s)
		return -EINVAL;
	if (isdigit((unsigned char)*s)) {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(s, &end, 10);
		if (errno || (*end != 'x' && *end != 'X') || !lanes_width((unsigned int)n))
			return -EINVAL;
		*lanes = (unsigned int)n;
		s = end + 1;
		if (!*s)
			return 0;
	}
	for (size_t i = 0; i < RD_ARRAY_SIZE(lane_speeds); i++) {
		if (strcasecmp(s, lane_speeds[i].name) == 0) {
			*lane_mbps = lane_speeds[i].mbps;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rd_fab_state_name(uint8_t s)
{
	static const char *const n[] = { "NoChange", "Down", "Init", "Armed", "Active" };

	return s < RD_ARRAY_SIZE(n) ? n[s] : "?";
}

const char *rd_fab_state_key(uint8_t s)
{
	static const char *const n[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE" };

	return s < RD_ARRAY_SIZE(n) ? n[s] : "?";
}

const char *rd_fab_phys_name(uint8_t s)
{
	static const char *const n[] = { "NoChange", "Sleep", "Polling", "Disabled",
		"PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "PhyTest" };

	return s < RD_ARRAY_SIZE(n) ? n[s] : "?";
}

const char *rd_fab_type_name(int type)
{
	return type == RD_FAB_CA ? "CA" : type == RD_FAB_SWITCH ? "Switch" :
	       type == RD_FAB_ROUTER ? "Router" : "?";
}

const char *rd_fab_sm_state_name(unsigned int s)
{
	static const char *const n[] = { "not active", "discovering", "standby", "master" };

	return s < RD_ARRAY_SIZE(n) ? n[s] : "?";
}

void rd_fab_dr_str(const struct rd_fab_node *n, int port, char *buf, size_t len)
{
	size_t l = 0;

	buf[0] = '\0';
	if (n->dr_cnt < 0)
		return;
	for (int k = 0; k <= n->dr_cnt && l < len; k++)
		l += (size_t)snprintf(buf + l, len - l, "%s%u", k ? "," : "", n->dr[k]);
	if (port >= 0 && l < len)
		snprintf(buf + l, len - l, ",%d", port);
}

int rd_fab_node_by_guid(const struct rd_fab *fab, uint64_t guid)
{
	for (size_t i = 0; i < fab->n_nodes; i++)
		if (fab->nodes[i].guid == guid)
			return (int)i;
	return -1;
}

void rd_fab_port_label(const struct rd_fab *fab, int node, int port, char *buf, size_t len)
{
	const struct rd_fab_node *n;

	if (node < 0 || (size_t)node >= fab->n_nodes) {
		snprintf(buf, len, "?");
		return;
	}
	n = &fab->nodes[node];
	if (port >= 0)
		snprintf(buf, len, "%s port %d", n->name, port);
	else
		snprintf(buf, len, "%s", n->name);
}

/*
 * The host an HCA's description names: OpenSM and the kernel set it to
 * "<hostname> <device>" ("node017 mlx5_0", or "node017 HCA-1" on older
 * stacks).  Only a CA's, and only a word that can be a host name.
 */
void rd_fab_desc_host(int type, const char *desc, char *host, size_t len)
{
	size_t k = 0;

	host[0] = '\0';
	if (type != RD_FAB_CA)
		return;
	while (desc[k] && desc[k] != ' ' && k + 1 < len) {
		unsigned char c = (unsigned char)desc[k];

		if (!isalnum(c) && c != '-' && c != '.' && c != '_')
			return;
		k++;
	}
	if (desc[k] != ' ' || k == 0)
		return;
	memcpy(host, desc, k);
	host[k] = '\0';
}

/*
 * A description from the wire, as the node says it (up to its NUL, without
 * trailing blanks): "h005 \xc3\xa9t\xc3\xa9" is UTF-8 a site may use.  Bytes
 * are kept as they are; each writer escapes what its format cannot hold
 * (the output layer control characters and bytes that are not UTF-8, DOT and
 * the metrics the same), so nothing valid is lost on the way.
 */
void rd_fab_clean_desc(const char *in, char *out, size_t len)
{
	size_t k = 0;

	for (size_t i = 0; i < IB_SMP_DATA_SIZE && in[i] && k + 1 < len; i++)
		out[k++] = in[i];
	while (k > 0 && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
}

void rd_fab_fill_port(struct rd_fab_port *p, const uint8_t *info, uint64_t guid, uint16_t lid, uint8_t lmc)
{
	uint8_t *i = (uint8_t *)info;	/* mad_get_field takes a non-const buffer; it only reads */

	p->guid = guid;
	p->lid = lid;
	p->lmc = lmc;
	p->sm_lid = (uint16_t)mad_get_field(i, 0, IB_PORT_SMLID_F);
	p->cap_mask = mad_get_field(i, 0, IB_PORT_CAPMASK_F);
	p->state = (uint8_t)mad_get_field(i, 0, IB_PORT_STATE_F);
	p->phys = (uint8_t)mad_get_field(i, 0, IB_PORT_PHYS_STATE_F);
	p->w_act = (uint8_t)mad_get_field(i, 0, IB_PORT_LINK_WIDTH_ACTIVE_F);
	p->w_en = (uint8_t)mad_get_field(i, 0, IB_PORT_LINK_WIDTH_ENABLED_F);
	p->w_sup = (uint8_t)mad_get_field(i, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F);
	p->s_act = (uint8_t)mad_get_field(i, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
	p->s_en = (uint8_t)mad_get_field(i, 0, IB_PORT_LINK_SPEED_ENABLED_F);
	p->s_sup = (uint8_t)mad_get_field(i, 0, IB_PORT_LINK_SPEED_SUPPORTED_F);
	if (p->cap_mask & RD_FAB_CAP_EXT_SPEEDS) {
		p->e_act = (uint8_t)mad_get_field(i, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
		p->e_en = (uint8_t)mad_get_field(i, 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F);
		p->e_sup = (uint8_t)mad_get_field(i, 0, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F);
	}
	/* A port whose PortInfo never came back is all zeros: state 0 is no PortState. */
	p->has_info = p->state != 0;
}

struct node_ref {
	const ibnd_node_t *in;
	size_t idx;
};

static int ref_cmp(const void *a, const void *b)
{
	const ibnd_node_t *x = ((const struct node_ref *)a)->in, *y = ((const struct node_ref *)b)->in;

	return x < y ? -1 : x > y;
}

int rd_fab_node_order(int ta, const char *da, uint64_t ga, int tb, const char *db, uint64_t gb)
{
	int c;

	/* Switches first, then by description, then GUID: the output's order is stable. */
	if (ta != tb)
		return ta == RD_FAB_SWITCH ? -1 : tb == RD_FAB_SWITCH ? 1 : ta - tb;
	c = rd_natural_cmp(da, db);
	if (c)
		return c;
	return ga < gb ? -1 : ga > gb;
}

static int node_order(const void *a, const void *b)
{
	const struct node_ref *x = a, *y = b;

	return rd_fab_node_order(x->in->type, x->in->nodedesc, x->in->guid,
				 y->in->type, y->in->nodedesc, y->in->guid);
}

int rd_fab_node_setup(struct rd_fab_node *nd, uint64_t guid, int type, int nports, const char *desc,
		      const uint8_t *nodeinfo)
{
	nd->guid = guid;
	nd->type = type == RD_FAB_SWITCH || type == RD_FAB_ROUTER ? type : RD_FAB_CA;
	nd->nports = nports < 0 ? 0 : nports > 254 ? 254 : nports;
	rd_fab_clean_desc(desc, nd->desc, sizeof(nd->desc));
	rd_strlcpy(nd->name, nd->desc[0] ? nd->desc : "(no description)", sizeof(nd->name));
	rd_fab_desc_host(nd->type, nd->desc, nd->host, sizeof(nd->host));
	nd->vendor_id = mad_get_field((void *)nodeinfo, 0, IB_NODE_VENDORID_F);
	nd->device_id = mad_get_field((void *)nodeinfo, 0, IB_NODE_DEVID_F);
	nd->dr_cnt = -1;
	nd->ports = calloc((size_t)nd->nports + 1, sizeof(*nd->ports));
	if (!nd->ports)
		return -ENOMEM;
	for (int p = 0; p <= nd->nports; p++) {
		nd->ports[p].num = p;
		nd->ports[p].peer_node = nd->ports[p].peer_port = -1;
	}
	return 0;
}

void rd_fab_set_lft_top(struct rd_fab_node *nd, unsigned int top)
{
	nd->lft_top = (uint16_t)(top > RD_FAB_MAX_UCAST_LID ? RD_FAB_MAX_UCAST_LID : top);
}

void rd_fab_node_lids(struct rd_fab_node *nd)
{
	/* A switch's ports answer with their own PortInfo but share port 0's LID. */
	if (nd->type == RD_FAB_SWITCH) {
		nd->lid = nd->ports[0].lid;
		for (int p = 1; p <= nd->nports; p++)
			nd->ports[p].lid = nd->lid;
	} else {
		for (int p = 1; p <= nd->nports && !nd->lid; p++)
			nd->lid = nd->ports[p].lid;
	}
}

static long find_ref(const struct node_ref *by_ptr, size_t n, const ibnd_node_t *in)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (by_ptr[mid].in == in)
			return (long)by_ptr[mid].idx;
		if (by_ptr[mid].in < in)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int rd_fab_from_ibnd(struct rd_fab *fab, void *ibnd_fabric)
{
	ibnd_fabric_t *f = ibnd_fabric;
	struct node_ref *refs = NULL, *by_ptr = NULL;
	size_t n = 0, k = 0;
	int ret = 0;

	for (ibnd_node_t *in = f->nodes; in; in = in->next)
		n++;
	refs = calloc(n ? n : 1, sizeof(*refs));
	by_ptr = calloc(n ? n : 1, sizeof(*by_ptr));
	fab->nodes = calloc(n ? n : 1, sizeof(*fab->nodes));
	if (!refs || !by_ptr || !fab->nodes) {
		ret = -ENOMEM;
		goto out;
	}
	for (ibnd_node_t *in = f->nodes; in; in = in->next)
		refs[k++].in = in;
	qsort(refs, n, sizeof(*refs), node_order);
	for (size_t i = 0; i < n; i++) {
		refs[i].idx = i;
		by_ptr[i] = refs[i];
	}
	qsort(by_ptr, n, sizeof(*by_ptr), ref_cmp);
	fab->n_nodes = n;
	fab->from_node = fab->from_port = -1;
	for (size_t i = 0; i < n; i++) {
		const ibnd_node_t *in = refs[i].in;
		struct rd_fab_node *nd = &fab->nodes[i];

		ret = rd_fab_node_setup(nd, in->guid, in->type == IB_NODE_SWITCH ? RD_FAB_SWITCH :
					in->type == IB_NODE_ROUTER ? RD_FAB_ROUTER : RD_FAB_CA,
					in->numports, in->nodedesc, in->info);
		if (ret)
			goto out;
		if (nd->type == RD_FAB_SWITCH)
			rd_fab_set_lft_top(nd, mad_get_field((void *)in->switchinfo, 0, IB_SW_LINEAR_FDB_TOP_F));
		nd->dr_cnt = -1;
		if (in->path_portid.drpath.cnt >= 0 && in->path_portid.drpath.cnt < (int)sizeof(nd->dr)) {
			nd->dr_cnt = in->path_portid.drpath.cnt;
			memcpy(nd->dr, in->path_portid.drpath.p, (size_t)nd->dr_cnt + 1);
		}
		if (!in->ports)
			continue;
		for (int p = 0; p <= nd->nports; p++) {
			const ibnd_port_t *ip = in->ports[p];

			if (ip)
				rd_fab_fill_port(&nd->ports[p], ip->info, ip->guid, ip->base_lid, ip->lmc);
		}
		rd_fab_node_lids(nd);
		if (in == f->from_node) {
			fab->from_node = (int)i;
			fab->from_port = f->from_portnum;
		}
	}
	/* The links: each end names the other. */
	for (size_t i = 0; i < n; i++) {
		const ibnd_node_t *in = refs[i].in;

		if (!in->ports)
			continue;
		for (int p = 1; p <= fab->nodes[i].nports; p++) {
			const ibnd_port_t *ip = in->ports[p], *rp;
			long peer;

			if (!ip || !(rp = ip->remoteport) || !rp->node)
				continue;
			peer = find_ref(by_ptr, n, rp->node);
			if (peer < 0 || rp->portnum < 0 || rp->portnum > fab->nodes[peer].nports)
				continue;
			fab->nodes[i].ports[p].peer_node = (int)peer;
			fab->nodes[i].ports[p].peer_port = rp->portnum;
		}
	}
out:
	free(refs);
	free(by_ptr);
	return ret;
}

void rd_fab_free(struct rd_fab *fab)
{
	if (!fab)
		return;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		free(fab->nodes[i].ports);
		free(fab->nodes[i].lft);
	}
	free(fab->nodes);
	free(fab->sms);
	free(fab->seen);
	rd_strlist_free(&fab->msgs);
	rd_strlist_free(&fab->slow);
	if (fab->ibnd)
		ibnd_destroy_fabric(fab->ibnd);
	memset(fab, 0, sizeof(*fab));
}

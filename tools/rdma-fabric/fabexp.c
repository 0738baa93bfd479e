// SPDX-License-Identifier: MIT
/* rdma-fabric's metrics output (fabexp.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fabexp.h"
#include "output/output.h"

static const char *const ctr_help[RD_FAB_NCTRS] = {
	[RD_FAB_SYMBOL_ERR] = "Minor link errors detected on one or more physical lanes (PMA PortCounters).",
	[RD_FAB_LINK_RECOVERY] = "Times the link error recovery process completed successfully.",
	[RD_FAB_LINK_DOWNED] = "Times the link error recovery process failed and the link went down.",
	[RD_FAB_RCV_ERR] = "Packets received with an error.",
	[RD_FAB_RCV_REMOTE_PHYS] = "Packets received marked bad (EBP) by a port upstream.",
	[RD_FAB_LOCAL_INTEGRITY] = "Times local physical errors passed the LocalPhyErrors threshold.",
	[RD_FAB_EXCESS_OVERRUN] = "Times consecutive flow control update periods had a buffer overrun.",
	[RD_FAB_XMIT_DISCARDS] = "Outbound packets discarded (port down or congested).",
	[RD_FAB_VL15_DROPPED] = "Incoming VL15 (subnet management) packets dropped for lack of resources.",
	[RD_FAB_SWITCH_RELAY] = "Packets received that the switch could not forward (routing, DLID mapping).",
	[RD_FAB_XMIT_CONSTRAINT] = "Outbound packets discarded by partition or raw filtering.",
	[RD_FAB_RCV_CONSTRAINT] = "Inbound packets discarded by partition or raw filtering.",
	[RD_FAB_XMIT_WAIT] = "Ticks during which the port had data to send but sent none (congestion).",
	[RD_FAB_XMIT_DATA] = "Data octets transmitted, divided by 4.",
	[RD_FAB_RCV_DATA] = "Data octets received, divided by 4.",
	[RD_FAB_XMIT_PKTS] = "Packets transmitted.",
	[RD_FAB_RCV_PKTS] = "Packets received.",
};

static void put_labels(FILE *fp, const struct rd_fab *fab, size_t i, int p)
{
	const struct rd_fab_node *n = &fab->nodes[i];
	const struct rd_fab_port *pt = &n->ports[p];
	const struct rd_fab_node *pn = &fab->nodes[pt->peer_node];

	fprintf(fp, "{component=\"%s\",local_name=\"", n->type == RD_FAB_SWITCH ? "switch" : "ca");
	rd_metric_label_value(fp, n->name);
	fprintf(fp, "\",local_guid=\"0x%016llx\",local_port=\"%d\",remote_guid=\"0x%016llx\","
		"remote_port=\"%d\",remote_name=\"", (unsigned long long)n->guid, p,
		(unsigned long long)pn->guid, pt->peer_port);
	rd_metric_label_value(fp, pn->name);
	fputs("\"}", fp);
}

/* The ports that are metrics: Active, linked, counters read (as the exporter: cables). */
static bool exported(const struct rd_fab_port *pt)
{
	return pt->ctr_read[0] && pt->peer_node >= 0 && pt->state == RD_FAB_ACTIVE;
}

static void family(FILE *fp, const char *name, const char *type, const char *help, bool om)
{
	const char *sfx = !om && strcmp(type, "counter") == 0 ? "_total" : "";

	fprintf(fp, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, sfx, help, name, sfx, type);
}

/* The lane speed in Gb/s, as the IBA names it (FDR 14.0625, EDR 25.78125). */
static const char *lane_gbps(const struct rd_fab_port *pt)
{
	static const struct {
		const char *name, *gbps;
	} v[] = {
		{ "SDR", "2.5" }, { "DDR", "5" }, { "QDR", "10" }, { "FDR", "14.0625" },
		{ "EDR", "25.78125" }, { "HDR", "53.125" }, { "NDR", "106.25" },
	};
	const char *n = rd_fab_speed_name(pt);

	for (size_t k = 0; k < RD_ARRAY_SIZE(v); k++)
		if (strcmp(v[k].name, n) == 0)
			return v[k].gbps;
	return NULL;
}

/*
 * The subnet managers, so that an alert sees the master go (sm.master's
 * evidence): the number of masters, and one info sample per SM found.
 */
static void put_sms(FILE *fp, const struct rd_fab *fab, bool om)
{
	unsigned int masters = 0;

	for (size_t i = 0; i < fab->n_sms; i++)
		if (fab->sms[i].answered && fab->sms[i].state == 3)
			masters++;
	family(fp, "rdma_fabric_sm_masters", "gauge",
	       "Subnet managers that answered SMInfo as master (1 in a healthy subnet, 0: none runs it).", om);
	fprintf(fp, "rdma_fabric_sm_masters %u\n", masters);
	if (!fab->n_sms)
		return;
	family(fp, "rdma_fabric_sm_info", "gauge",
	       "One per subnet manager found: its LID, port GUID, priority and state "
	       "(no answer: SMInfo got none); always 1.", om);
	for (size_t i = 0; i < fab->n_sms; i++) {
		const struct rd_fab_sm *s = &fab->sms[i];

		if (s->answered)
			fprintf(fp, "rdma_fabric_sm_info{guid=\"0x%016llx\",lid=\"%u\",priority=\"%u\",state=\"%s\"} 1\n",
				(unsigned long long)s->guid, s->lid, s->priority, rd_fab_sm_state_name(s->state));
		else
			fprintf(fp, "rdma_fabric_sm_info{guid=\"\",lid=\"%u\",priority=\"\",state=\"no answer\"} 1\n",
				s->lid);
	}
}

int rd_fabexp_write(FILE *fp, const struct rd_fab *fab, bool openmetrics)
{
	bool om = openmetrics;
	char name[96];

	for (int k = 0; k < RD_FAB_NCTRS; k++) {
		const struct rd_fab_ctr_info *ci = rd_fab_ctr_info((enum rd_fab_ctr)k);
		size_t l = (size_t)snprintf(name, sizeof(name), "infiniband_");

		for (const char *c = ci->name; *c && l + 1 < sizeof(name); c++)
			name[l++] = (char)tolower((unsigned char)*c);
		name[l] = '\0';
		family(fp, name, "counter", ctr_help[k], om);
		for (size_t i = 0; i < fab->n_nodes; i++)
			for (int p = 1; p <= fab->nodes[i].nports; p++) {
				const struct rd_fab_port *pt = &fab->nodes[i].ports[p];

				if (!exported(pt))
					continue;
				fprintf(fp, "%s_total", name);
				put_labels(fp, fab, i, p);
				fprintf(fp, " %llu\n", (unsigned long long)pt->ctr[pt->ctr_read[1] ? 1 : 0][k]);
			}
	}
	family(fp, "infiniband_speed", "gauge", "Link speed per lane, in Gb/s.", om);
	for (size_t i = 0; i < fab->n_nodes; i++)
		for (int p = 1; p <= fab->nodes[i].nports; p++) {
			const struct rd_fab_port *pt = &fab->nodes[i].ports[p];
			const char *g = lane_gbps(pt);

			if (!exported(pt) || !g)
				continue;
			fputs("infiniband_speed", fp);
			put_labels(fp, fab, i, p);
			fprintf(fp, " %s\n", g);
		}
	family(fp, "infiniband_width", "gauge", "Lanes per link.", om);
	for (size_t i = 0; i < fab->n_nodes; i++)
		for (int p = 1; p <= fab->nodes[i].nports; p++) {
			const struct rd_fab_port *pt = &fab->nodes[i].ports[p];

			if (!exported(pt) || !rd_fab_width_lanes(pt->w_act))
				continue;
			fputs("infiniband_width", fp);
			put_labels(fp, fab, i, p);
			fprintf(fp, " %u\n", rd_fab_width_lanes(pt->w_act));
		}
	family(fp, "infiniband_scrape_ok", "gauge",
	       "1 when every node answered every query of the sweep, else 0.", om);
	fprintf(fp, "infiniband_scrape_ok %d\n", fab->mad_fail || fab->msgs.n ? 0 : 1);
	family(fp, "rdma_fabric_mads_unanswered", "gauge",
	       "Management datagrams of the sweep that got no answer.", om);
	fprintf(fp, "rdma_fabric_mads_unanswered %u\n", fab->mad_fail);
	if (fab->have_sms)
		put_sms(fp, fab, om);
	if (om)
		fputs("# EOF\n", fp);
	return ferror(fp) ? -EIO : 0;
}

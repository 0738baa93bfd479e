// SPDX-License-Identifier: MIT
/* rdma-fabric's views (fabview.h): the report, the checks, --links, --sm, --errors, --nhc. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabview.h"
#include "model/model.h"

const struct rd_col rd_fabview_list_cols[RD_FABVIEW_LIST_COLS] = {
	{ "id", "CHECK", false, false },
	{ "summary", "WHAT", false, true },
};
const struct rd_col rd_fabview_result_cols[RD_FABVIEW_RESULT_COLS] = {
	{ "check", "CHECK", false, false },
	{ "object", "OBJECT", false, false },
	{ "status", "STATUS", false, false },
	{ "detail", "DETAIL", false, true },
	{ "fix", "FIX", false, true },
};
const struct rd_col rd_fabview_port_cols[RD_FABVIEW_PORT_COLS] = {
	{ "node", "NODE", false, false },
	{ "port", "PORT", true, false },
	{ "lid", "LID", true, false },
	{ "state", "STATE", false, false },
	{ "phys_state", "PHYS", false, false },
	{ "width", "WIDTH", false, false },
	{ "speed", "SPEED", false, false },
	{ "peer", "PEER", false, false },
	{ "peer_port", "PEER PORT", true, false },
	{ "could_be", "COULD BE", false, false },
};
const struct rd_col rd_fabview_sm_cols[RD_FABVIEW_SM_COLS] = {
	{ "lid", "LID", true, false },
	{ "guid", "GUID", false, false },
	{ "node", "NODE", false, false },
	{ "priority", "PRIORITY", true, false },
	{ "state", "STATE", false, false },
	{ "act_count", "ACTIVITY", true, false },
};
const struct rd_col rd_fabview_error_cols[RD_FABVIEW_ERROR_COLS] = {
	{ "node", "NODE", false, false },
	{ "port", "PORT", true, false },
	{ "counter", "COUNTER", false, false },
	{ "value", "VALUE", true, false },
	{ "delta", "RISE", true, false },
};

static enum rd_color status_color(enum rd_fab_status s)
{
	return s == RD_FAB_PASS ? RD_C_GOOD : s == RD_FAB_WARN ? RD_C_WARN :
	       s == RD_FAB_FAIL ? RD_C_BAD : RD_C_DIM;
}

void rd_fabview_list(struct rd_out *o)
{
	size_t n;
	const struct rd_fab_check *t = rd_fab_checks(&n);

	rd_out_table_begin(o, NULL, rd_fabview_list_cols, RD_FABVIEW_LIST_COLS, true);
	for (size_t i = 0; i < n; i++) {
		rd_out_row_begin(o);
		rd_out_str(o, RD_ANY, "id", NULL, t[i].id);
		rd_out_str(o, RD_ANY, "summary", NULL, t[i].summary);
		rd_out_str(o, RD_JSON, "fix", NULL, t[i].fix);
		rd_out_row_end(o);
	}
	rd_out_table_end(o);
}

/* A GUID as every tool's JSON writes it (rdma-diag(7)): "0x" and 16 hex
 * digits, a zero GUID included (printf's "%#018llx" would write 18 zeros). */
static void guid_str(uint64_t g, char *buf, size_t len)
{
	char hex[19];

	rd_format_guid_hex(g, hex);
	rd_strlcpy(buf, hex, len);
}

void rd_fabview_report(struct rd_out *o, const struct rd_fab *fab, const struct rd_fab_report *r,
			 bool verbose)
{
	bool json = rd_out_is_json(o), any = false;
	enum rd_fab_status worst = rd_fab_report_worst(r);
	char st[8];

	rd_out_section_begin(o, NULL, NULL);
	rd_strlcpy(st, rd_fab_status_name(worst), sizeof(st));
	for (char *s = st; *s; s++)
		*s = (char)(*s - 'A' + 'a');
	rd_out_str(o, RD_JSON, "verdict", NULL, st);
	rd_out_section_begin(o, "summary", NULL);
	rd_out_str(o, RD_JSON, "source", NULL, fab->live ? "sweep" : "file");
	rd_out_u64(o, RD_JSON, "checks", NULL, r->n);
	rd_out_u64(o, RD_JSON, "pass", NULL, r->count[RD_FAB_PASS]);
	rd_out_u64(o, RD_JSON, "warn", NULL, r->count[RD_FAB_WARN]);
	rd_out_u64(o, RD_JSON, "fail", NULL, r->count[RD_FAB_FAIL]);
	rd_out_u64(o, RD_JSON, "skip", NULL, r->count[RD_FAB_SKIP]);
	rd_out_u64(o, RD_JSON, "nodes", NULL, r->nodes);
	rd_out_u64(o, RD_JSON, "switches", NULL, r->switches);
	rd_out_u64(o, RD_JSON, "cas", NULL, r->cas);
	rd_out_u64(o, RD_JSON, "links", NULL, r->links);
	if (fab->live) {
		rd_out_u64(o, RD_JSON, "mads", NULL, fab->mads);
		rd_out_u64(o, RD_JSON, "mads_unanswered", NULL, fab->mad_fail);
	}
	rd_out_double(o, RD_JSON, "interval", NULL, fab->interval, "%g");
	if (fab->n_reset)
		rd_out_u64(o, RD_JSON, "ports_reset", NULL, fab->n_reset);
	rd_out_section_end(o);
	for (size_t i = 0; i < r->n; i++)
		any = any || verbose || json || r->v[i].status != RD_FAB_PASS;
	if (any) {
		rd_out_table_begin(o, "results", rd_fabview_result_cols, RD_FABVIEW_RESULT_COLS, true);
		for (size_t i = 0; i < r->n; i++) {
			const struct rd_fab_result *x = &r->v[i];
			char g[24];

			if (!verbose && !json && x->status == RD_FAB_PASS)
				continue;
			rd_out_row_begin(o);
			rd_out_str(o, RD_ANY, "check", NULL, x->check->id);
			rd_out_str(o, RD_ANY, "object", NULL, x->object);
			rd_out_str(o, RD_JSON, "host", NULL, x->host[0] ? x->host : NULL);
			if (x->guid) {
				guid_str(x->guid, g, sizeof(g));
				rd_out_str(o, RD_JSON, "guid", NULL, g);
			}
			if (x->port >= 0)
				rd_out_u64(o, RD_JSON, "port", NULL, (uint64_t)x->port);
			if (x->peer_guid) {
				guid_str(x->peer_guid, g, sizeof(g));
				rd_out_str(o, RD_JSON, "peer_guid", NULL, g);
				rd_out_u64(o, RD_JSON, "peer_port", NULL, (uint64_t)x->peer_port);
			}
			rd_out_cstr(o, RD_TEXT, "status", NULL, status_color(x->status),
				    rd_fab_status_name(x->status));
			rd_strlcpy(st, rd_fab_status_name(x->status), sizeof(st));
			for (char *s = st; *s; s++)
				*s = (char)(*s - 'A' + 'a');
			rd_out_str(o, RD_JSON, "status", NULL, st);
			rd_out_str(o, RD_ANY, "detail", NULL, x->detail);
			rd_out_str(o, RD_ANY, "fix", NULL, x->fix[0] ? x->fix : x->status == RD_FAB_WARN ||
				   x->status == RD_FAB_FAIL ? x->check->fix : NULL);
			rd_out_row_end(o);
		}
		rd_out_table_end(o);
	}
	rd_out_line(o, "%s%s: %zu check%s on %u node%s (%u switch%s, %u CA%s), %u link%s: "
		    "%u pass, %u warn, %u fail, %u skip", any ? "\n" : "", rd_fab_status_name(worst),
		    r->n, r->n == 1 ? "" : "s", r->nodes, r->nodes == 1 ? "" : "s", r->switches,
		    r->switches == 1 ? "" : "es", r->cas, r->cas == 1 ? "" : "s", r->links,
		    r->links == 1 ? "" : "s", r->count[RD_FAB_PASS], r->count[RD_FAB_WARN],
		    r->count[RD_FAB_FAIL], r->count[RD_FAB_SKIP]);
	if (worst == RD_FAB_SKIP)
		rd_out_line(o, "nothing was checked: %s; this is not a healthy verdict",
			    r->n ? "every selected check was skipped (each one's reason is above)" :
				   "no selected check applies to this fabric");
	if (fab->n_reset)
		rd_out_line(o, "counters cleared on %u port%s after this reading (--reset)", fab->n_reset,
			    fab->n_reset == 1 ? "" : "s");
	rd_out_section_end(o);
}

void rd_fabview_links(struct rd_out *o, const struct rd_fab *fab)
{
	char g[24];

	rd_out_table_begin(o, "ports", rd_fabview_port_cols, RD_FABVIEW_PORT_COLS, true);
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];

		for (int p = 1; p <= n->nports; p++) {
			const struct rd_fab_port *pt = &n->ports[p];
			bool up = pt->state == RD_FAB_ACTIVE || pt->phys == RD_FAB_PHYS_LINKUP;
			char could[32] = "";

			if (!pt->has_info)
				continue;
			rd_out_row_begin(o);
			rd_out_str(o, RD_ANY, "node", NULL, n->name);
			guid_str(n->guid, g, sizeof(g));
			rd_out_str(o, RD_JSON, "guid", NULL, g);
			rd_out_str(o, RD_JSON, "type", NULL, rd_fab_type_name(n->type));
			rd_out_str(o, RD_JSON, "host", NULL, n->host[0] ? n->host : NULL);
			rd_out_u64(o, RD_ANY, "port", NULL, (uint64_t)p);
			rd_out_u64(o, RD_ANY, "lid", NULL, pt->lid);
			rd_out_str(o, RD_TEXT, "state", NULL, rd_fab_state_name(pt->state));
			rd_out_str(o, RD_JSON, "state", NULL, rd_fab_state_key(pt->state));
			rd_out_str(o, RD_ANY, "phys_state", NULL, rd_fab_phys_name(pt->phys));
			rd_out_str(o, RD_ANY, "width", NULL, up ? rd_fab_width_name(pt->w_act) : NULL);
			rd_out_str(o, RD_ANY, "speed", NULL, up ? rd_fab_speed_name(pt) : NULL);
			if (pt->peer_node >= 0) {
				const struct rd_fab_node *pn = &fab->nodes[pt->peer_node];
				const struct rd_fab_port *pp = &pn->ports[pt->peer_port];
				uint8_t bw = rd_fab_best_width(pt, pp);
				unsigned int bs = rd_fab_best_lane_mbps(pt, pp);

				rd_out_str(o, RD_ANY, "peer", NULL, pn->name);
				guid_str(pn->guid, g, sizeof(g));
				rd_out_str(o, RD_JSON, "peer_guid", NULL, g);
				rd_out_u64(o, RD_ANY, "peer_port", NULL, (uint64_t)pt->peer_port);
				if (bw && bs && (bw != pt->w_act || bs != rd_fab_lane_mbps(pt)))
					snprintf(could, sizeof(could), "%s %s", rd_fab_width_name(bw),
						 rd_fab_lane_name(bs));
			} else {
				rd_out_str(o, RD_TEXT, "peer", NULL, "-");
				rd_out_str(o, RD_TEXT, "peer_port", NULL, "-");
			}
			rd_out_str(o, RD_ANY, "could_be", NULL, could[0] ? could : NULL);
			rd_out_row_end(o);
		}
	}
	rd_out_table_end(o);
}

void rd_fabview_sms(struct rd_out *o, const struct rd_fab *fab)
{
	char g[24];

	rd_out_table_begin(o, "sms", rd_fabview_sm_cols, RD_FABVIEW_SM_COLS, true);
	for (size_t i = 0; i < fab->n_sms; i++) {
		const struct rd_fab_sm *s = &fab->sms[i];

		rd_out_row_begin(o);
		rd_out_u64(o, RD_ANY, "lid", NULL, s->lid);
		if (s->answered) {
			guid_str(s->guid, g, sizeof(g));
			rd_out_str(o, RD_ANY, "guid", NULL, g);
		} else {
			rd_out_str(o, RD_TEXT, "guid", NULL, "-");
		}
		rd_out_str(o, RD_ANY, "node", NULL, s->node >= 0 ? fab->nodes[s->node].name : "-");
		if (s->answered) {
			rd_out_u64(o, RD_ANY, "priority", NULL, s->priority);
			rd_out_str(o, RD_ANY, "state", NULL, rd_fab_sm_state_name(s->state));
			rd_out_u64(o, RD_ANY, "act_count", NULL, s->act_count);
		} else {
			rd_out_str(o, RD_TEXT, "priority", NULL, "-");
			rd_out_str(o, RD_ANY, "state", NULL, "no answer");
			rd_out_str(o, RD_TEXT, "act_count", NULL, "-");
		}
		rd_out_row_end(o);
	}
	rd_out_table_end(o);
}

void rd_fabview_errors(struct rd_out *o, const struct rd_fab *fab)
{
	char g[24];

	rd_out_table_begin(o, "errors", rd_fabview_error_cols, RD_FABVIEW_ERROR_COLS, true);
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];

		for (int p = 1; p <= n->nports; p++) {
			const struct rd_fab_port *pt = &n->ports[p];
			int last = pt->ctr_read[1] ? 1 : 0;

			if (!pt->ctr_read[0])
				continue;
			for (int k = 0; k <= RD_FAB_XMIT_WAIT; k++) {
				const struct rd_fab_ctr_info *ci = rd_fab_ctr_info((enum rd_fab_ctr)k);
				uint64_t v = pt->ctr[last][k];

				if (!v)
					continue;
				rd_out_row_begin(o);
				rd_out_str(o, RD_ANY, "node", NULL, n->name);
				guid_str(n->guid, g, sizeof(g));
				rd_out_str(o, RD_JSON, "guid", NULL, g);
				rd_out_str(o, RD_JSON, "host", NULL, n->host[0] ? n->host : NULL);
				rd_out_u64(o, RD_ANY, "port", NULL, (uint64_t)p);
				rd_out_str(o, RD_ANY, "counter", NULL, ci->name);
				rd_out_u64(o, RD_ANY, "value", NULL, v);
				if (last)
					rd_out_u64(o, RD_ANY, "delta", NULL, pt->ctr[1][k] >= pt->ctr[0][k] ?
						   pt->ctr[1][k] - pt->ctr[0][k] : 0);
				else
					rd_out_str(o, RD_TEXT, "delta", NULL, "-");
				rd_out_row_end(o);
			}
		}
	}
	rd_out_table_end(o);
}

void rd_fabview_nhc(const struct rd_fab_report *r)
{
	const struct rd_fab_result *x = rd_fab_report_first_fail(r);
	char *obj, *detail;

	if (!x && rd_fab_report_worst(r) == RD_FAB_SKIP) {
		/* Checked nothing: not healthy, and silence would say it is. */
		x = r->n ? &r->v[0] : NULL;
		obj = x ? rd_text_escape(x->object, false) : NULL;
		detail = x ? rd_text_escape(x->detail, false) : NULL;
		printf("ERROR: rdma-fabric: nothing checked: %s", x ? "every selected check was skipped" :
		       "no selected check applies to this fabric");
		if (x)
			printf(" (first: %s: %s: %s)", x->check->id, obj ? obj : "", detail ? detail : "");
		printf("\n");
		free(obj);
		free(detail);
		return;
	}
	if (!x)
		return;
	obj = rd_text_escape(x->object, false);
	detail = rd_text_escape(x->detail, false);
	printf("ERROR: rdma-fabric: %s: %s: %s", x->check->id, obj ? obj : "", detail ? detail : "");
	if (r->count[RD_FAB_FAIL] > 1)
		printf(" (and %u more failure%s)", r->count[RD_FAB_FAIL] - 1,
		       r->count[RD_FAB_FAIL] > 2 ? "s" : "");
	printf("\n");
	free(obj);
	free(detail);
}

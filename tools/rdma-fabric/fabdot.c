// SPDX-License-Identifier: MIT
/* rdma-fabric's Graphviz output (fabdot.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

#include "fabdot.h"
#include "output/output.h"

/* The worst result a check gave this port (or the link it ends), PASS if none. */
static enum rd_fab_status port_status(const struct rd_fab_report *r, uint64_t guid, int port)
{
	enum rd_fab_status worst = RD_FAB_PASS;

	for (size_t i = 0; r && i < r->n; i++) {
		const struct rd_fab_result *x = &r->v[i];
		bool here = (x->guid == guid && x->port == port) ||
			    (x->peer_guid == guid && x->peer_port == port);

		if (here && (x->status == RD_FAB_FAIL || x->status == RD_FAB_WARN) && x->status > worst)
			worst = x->status;
	}
	return worst;
}

static const char *status_attrs(enum rd_fab_status s)
{
	return s == RD_FAB_FAIL ? ", color=red, fontcolor=red, penwidth=3" :
	       s == RD_FAB_WARN ? ", color=orange, fontcolor=orange, penwidth=2" : "";
}

int rd_fabdot_write(FILE *fp, const struct rd_fab *fab, const struct rd_fab_report *r)
{
	unsigned int dark = 0;

	fputs("graph fabric {\n\tgraph [overlap=false, splines=true];\n"
	      "\tnode [fontsize=10];\n\tedge [fontsize=8];\n", fp);
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];

		fprintf(fp, "\tn%zu [label=", i);
		rd_dot_string(fp, n->name);
		fprintf(fp, ", shape=%s, tooltip=\"0x%016llx\"];\n", n->type == RD_FAB_SWITCH ? "box" : "ellipse",
			(unsigned long long)n->guid);
	}
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];

		for (int p = 1; p <= n->nports; p++) {
			const struct rd_fab_port *pt = &n->ports[p];
			enum rd_fab_status st;

			if (pt->peer_node < 0) {
				/* An Active port with no peer: something is there and does not answer. */
				if (pt->state != RD_FAB_ACTIVE)
					continue;
				fprintf(fp, "\tdark%u [label=\"?\", shape=circle, color=red];\n", dark);
				fprintf(fp, "\tn%zu -- dark%u [label=\"%d\", style=dashed, color=red];\n", i,
					dark, p);
				dark++;
				continue;
			}
			/* Each link once, from its first end. */
			if ((size_t)pt->peer_node < i || ((size_t)pt->peer_node == i && pt->peer_port < p))
				continue;
			st = port_status(r, n->guid, p);
			{
				enum rd_fab_status ps = port_status(r, fab->nodes[pt->peer_node].guid,
								    pt->peer_port);

				if (ps > st)
					st = ps;
			}
			fprintf(fp, "\tn%zu -- n%d [label=\"%d:%d %s %s\"%s];\n", i, pt->peer_node, p,
				pt->peer_port, rd_fab_width_name(pt->w_act), rd_fab_speed_name(pt),
				status_attrs(st));
		}
	}
	fputs("}\n", fp);
	return ferror(fp) ? -EIO : 0;
}

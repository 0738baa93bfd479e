// SPDX-License-Identifier: MIT
/*
 * What rdma-fabric's checks report with: a result with its object (a port,
 * both ends of a link), its fix, PASS and SKIP lines.  Below the check files
 * (fabck*.c) and the table that runs them (fabchecks.c), so that no check
 * calls back into the table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabapi.h"
#include "fabint.h"

struct rd_fab_result *rd_fck_add(struct ctx *c, enum rd_fab_status st, const char *fmt, ...)
{
	struct rd_fab_result *x = rd_fab_report_slot(c->r);
	va_list ap;

	if (!x)
		return NULL;
	x->check = c->check;
	x->status = st;
	va_start(ap, fmt);
	(void)vsnprintf(x->detail, sizeof(x->detail), fmt, ap);
	va_end(ap);
	c->r->count[st]++;
	return x;
}

void rd_fck_fix(struct rd_fab_result *x, const char *fmt, ...)
{
	va_list ap;

	if (!x)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(x->fix, sizeof(x->fix), fmt, ap);
	va_end(ap);
}

/* The object of a result: a node, a port, or a link (both ends). */
void rd_fck_port(const struct ctx *c, struct rd_fab_result *x, int node, int port)
{
	const struct rd_fab_node *n;

	if (!x || node < 0)
		return;
	n = &c->fab->nodes[node];
	rd_fab_port_label(c->fab, node, port, x->object, sizeof(x->object));
	x->guid = n->guid;
	x->port = port;
	rd_strlcpy(x->host, n->host, sizeof(x->host));
}

void rd_fck_link(const struct ctx *c, struct rd_fab_result *x, int node, int port)
{
	const struct rd_fab_port *p;
	char a[200], b[200];

	if (!x)
		return;
	rd_fck_port(c, x, node, port);
	p = &c->fab->nodes[node].ports[port];
	if (p->peer_node < 0)
		return;
	rd_fab_port_label(c->fab, node, port, a, sizeof(a));
	rd_fab_port_label(c->fab, p->peer_node, p->peer_port, b, sizeof(b));
	rd_snprintf(x->object, sizeof(x->object), "%s <-> %s", a, b);
	x->peer_guid = c->fab->nodes[p->peer_node].guid;
	x->peer_port = p->peer_port;
	if (!x->host[0])
		rd_strlcpy(x->host, c->fab->nodes[p->peer_node].host, sizeof(x->host));
}

void rd_fck_pass(struct ctx *c, const char *fmt, ...)
{
	struct rd_fab_result *x;
	char buf[320];
	va_list ap;

	if (c->r->n > c->first)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	x = rd_fck_add(c, RD_FAB_PASS, "%s", buf);
	if (x)
		rd_strlcpy(x->object, "fabric", sizeof(x->object));
}

void rd_fck_skip(struct ctx *c, const char *why)
{
	struct rd_fab_result *x = rd_fck_add(c, RD_FAB_SKIP, "%s", why);

	if (x)
		rd_strlcpy(x->object, "fabric", sizeof(x->object));
}

/* Each link once: from the end with the lower (node, port). */
bool rd_fck_first_end(const struct rd_fab *fab, size_t i, int p)
{
	const struct rd_fab_port *pt = &fab->nodes[i].ports[p];

	if (pt->peer_node < 0)
		return false;
	return (size_t)pt->peer_node > i || ((size_t)pt->peer_node == i && pt->peer_port > p);
}

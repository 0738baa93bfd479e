// SPDX-License-Identifier: MIT
/*
 * What a check reports with: its results (rd_dr_emit, the fix template
 * filled in) and the user's expectations for it (rd_dr_expected).  Below
 * both the checks (drchecks.c) and the engine that runs them (drengine.c),
 * so that the checks never call back into the engine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

const char *rd_dr_expected(const struct rd_dr_ctx *c, enum rd_dr_expect_key k, double *num)
{
	const struct rd_dr_expect *e = c->o->expect;
	const struct rd_dr_expect_scoped *best = NULL;

	if (!e)
		return NULL;
	if (c->consulted)
		c->consulted[k] = true;
	/* the check's own device and port: DEV/PORT.key, else DEV.key, else key */
	for (size_t i = 0; c->cur_dev && i < e->nscoped; i++) {
		const struct rd_dr_expect_scoped *x = &e->scoped[i];

		if (x->key != k || strcmp(x->dev, c->cur_dev->name) != 0)
			continue;
		if (x->port && (!c->cur_port || c->cur_port->p->num != x->port))
			continue;
		if (!best || x->port)
			best = x;
	}
	if (best) {
		if (num)
			*num = best->num;
		return best->val;
	}
	if (!e->has[k])
		return NULL;
	if (num)
		*num = e->num[k];
	return e->val[k];
}

/* ---- results ---- */

/* {dev} {port} {netdev} in a fix template. */
static void expand_fix(const struct rd_dr_ctx *c, const char *tpl, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	for (const char *s = tpl; *s && o + 1 < len; s++) {
		char num[16];
		const char *sub = NULL;
		size_t skip = 0;

		if (strncmp(s, "{dev}", 5) == 0) {
			sub = c->cur_dev ? c->cur_dev->name : "DEV";
			skip = 5;
		} else if (strncmp(s, "{port}", 6) == 0) {
			snprintf(num, sizeof(num), "%u", c->cur_port ? c->cur_port->p->num : 1);
			sub = num;
			skip = 6;
		} else if (strncmp(s, "{netdev}", 8) == 0) {
			sub = c->cur_port && c->cur_port->netdev[0] ? c->cur_port->netdev : "IF";
			skip = 8;
		}
		if (!sub) {
			out[o++] = *s;
			out[o] = '\0';
			continue;
		}
		rd_strlcpy(out + o, sub, len - o);
		o += strlen(out + o);
		s += skip - 1;
	}
}

void rd_dr_emit(struct rd_dr_ctx *c, enum rd_dr_status s, const char *fix, const char *fmt, ...)
{
	struct rd_dr_report *r = c->rep;
	struct rd_dr_result *res;
	va_list ap;

	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct rd_dr_result *v = realloc(r->v, cap * sizeof(*v));

		if (!v) {
			c->err = -ENOMEM;
			return;
		}
		r->v = v;
		r->cap = cap;
	}
	res = &r->v[r->n++];
	memset(res, 0, sizeof(*res));
	res->check = c->cur;
	res->status = s;
	r->count[s]++;
	if (c->cur_dev) {
		rd_strlcpy(res->dev, c->cur_dev->name, sizeof(res->dev));
		if (c->cur_port) {
			res->port = c->cur_port->p->num;
			snprintf(res->object, sizeof(res->object), "%s/%u", c->cur_dev->name, res->port);
		} else {
			rd_strlcpy(res->object, c->cur_dev->name, sizeof(res->object));
		}
	} else {
		rd_strlcpy(res->object, c->object[0] ? c->object : "node", sizeof(res->object));
	}
	va_start(ap, fmt);
	(void)vsnprintf(res->detail, sizeof(res->detail), fmt, ap);	/* truncation is fine */
	va_end(ap);
	/* PASS and SKIP carry the inspect command only when the check gave one. */
	if (fix)
		expand_fix(c, fix, res->fix, sizeof(res->fix));
	else if (s == RD_DR_WARN || s == RD_DR_FAIL)
		expand_fix(c, c->cur->fix ? c->cur->fix : "", res->fix, sizeof(res->fix));
}

// SPDX-License-Identifier: MIT
/*
 * Fleet summary: the mesh reader.  rdma-selftest --mesh -j lines become the
 * fleet's pairs, each checked field by field and attributed to the host that
 * ran it; a pair reported again replaces the earlier one.
 */
#define _GNU_SOURCE
#include "fleetint.h"
#include "fleet.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * rdma-selftest --mesh -j: one JSON line per pair, {mode: "mesh", src, dst,
 * round, dev, port, dst_dev, dst_port (with --devices), result, failed_stage,
 * diagnosis, warning, latency_us, gbps}.
 * The pairs make the matrix; a FAIL is also a problem of the source host.
 */
bool rd_fleet_mesh_match(json_object *doc)
{
	const char *mode = rd_fleet_obj_str(doc, "mode");

	return json_object_is_type(doc, json_type_object) && mode && strcmp(mode, "mesh") == 0 &&
	       rd_fleet_obj_str(doc, "src") && rd_fleet_obj_str(doc, "dst") &&
	       rd_fleet_obj_str(doc, "result");
}

/* The fleet's one copy of s (NULL stays NULL); *oom set on failure. */
static const char *intern_or_null(struct rd_fleet *f, const char *s, bool *oom)
{
	const char *d = s ? rd_fleet_text_intern(f, s) : NULL;

	if (s && !d)
		*oom = true;
	return d;
}

static unsigned int obj_port(json_object *doc, const char *key)
{
	json_object *v;

	if (json_object_object_get_ex(doc, key, &v) && json_object_is_type(v, json_type_int) &&
	    json_object_get_int(v) > 0 && json_object_get_int(v) <= 255)
		return (unsigned int)json_object_get_int(v);
	return 0;
}

/*
 * A figure of a pair: absent (-1, 0 returned), or a finite number in
 * [0, max] (1); anything else is -1, and the line is refused.
 */
static int pair_num(json_object *doc, const char *key, double max, double *out)
{
	json_object *v;
	double d;

	*out = -1;
	if (!json_object_object_get_ex(doc, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return -1;
	d = json_object_get_double(v);
	if (!isfinite(d) || d < 0 || d > max)
		return -1;
	*out = d;
	return 1;
}

/* Why a mesh line cannot be taken as it is, or NULL; what names the field. */
static const char *mesh_refusal(const struct reader_ctx *c, json_object *doc, const char *src,
				const char *dst, char *buf, size_t len)
{
	const char *res = rd_fleet_obj_str(doc, "result");
	double x;

	if (!*src || !*dst)
		return "a pair without its src or dst host";
	if (strcmp(src, dst) == 0 && !rd_fleet_obj_str(doc, "dst_dev"))
		return "a pair of a host with itself";
	if (strcmp(res, "pass") != 0 && strcmp(res, "fail") != 0) {
		snprintf(buf, len, "result '%.40s' is neither pass nor fail", res);
		return buf;
	}
	/* 10 Tb/s and 1000 s bound what a pair test can report. */
	if (pair_num(doc, "gbps", 10000, &x) < 0)
		return "gbps is not a number from 0 to 10000";
	if (pair_num(doc, "latency_us", 1e9, &x) < 0)
		return "latency_us is not a number from 0 to 1e9";
	/* Each host reports the pairs it ran as the client: no host speaks for another. */
	if (c->attributed && strcmp(src, c->h->name) != 0) {
		snprintf(buf, len, "%.48s reports the pair %.48s -> %.48s: only %.48s reports its own pairs",
			 c->h->name, src, dst, src);
		return buf;
	}
	return NULL;
}

static bool same_str(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

/* Both pairs have rails, and the same ones. */
static bool same_rails(const struct rd_fleet_pair *a, const struct rd_fleet_pair *b)
{
	return a->dst_dev && b->dst_dev && same_str(a->dev, b->dev) && a->port == b->port &&
	       strcmp(a->dst_dev, b->dst_dev) == 0 && a->dst_port == b->dst_port;
}

int rd_fleet_mesh_read(struct reader_ctx *c, json_object *doc)
{
	const char *src = rd_fleet_obj_str(doc, "src"), *dst = rd_fleet_obj_str(doc, "dst");
	struct rd_fleet *f = c->f;
	struct rd_fleet_pair n = { 0 };
	size_t slot = SIZE_MAX;	/* where it goes in f->pairs: the pair it repeats, or a new one */
	bool oom = false;
	char rails[300] = "", why[320];
	const char *refused = mesh_refusal(c, doc, src, dst, why, sizeof(why));

	if (refused)
		return rd_fleet_problem_add(f, c->h->name, c->src, c->line, "mesh line skipped: %s", refused);
	n.ok = strcmp(rd_fleet_obj_str(doc, "result"), "pass") == 0;
	n.src = intern_or_null(f, src, &oom);
	n.dst = intern_or_null(f, dst, &oom);
	n.dev = intern_or_null(f, rd_fleet_obj_str(doc, "dev"), &oom);
	n.port = obj_port(doc, "port");
	n.dst_dev = intern_or_null(f, rd_fleet_obj_str(doc, "dst_dev"), &oom);
	n.dst_port = obj_port(doc, "dst_port");
	if (!n.ok) {
		n.stage = intern_or_null(f, rd_fleet_obj_str(doc, "failed_stage") ?
					 rd_fleet_obj_str(doc, "failed_stage") : "?", &oom);
		n.diagnosis = intern_or_null(f, rd_fleet_obj_str(doc, "diagnosis") ?
					     rd_fleet_obj_str(doc, "diagnosis") : "", &oom);
	} else {
		n.warning = intern_or_null(f, rd_fleet_obj_str(doc, "warning"), &oom);
	}
	(void)pair_num(doc, "latency_us", 1e9, &n.latency_us);	/* checked by mesh_refusal */
	(void)pair_num(doc, "gbps", 10000, &n.gbps);
	n.source = intern_or_null(f, c->src, &oom);
	n.line = c->line;
	if (oom)
		return -ENOMEM;
	/*
	 * The same pair again (a second run): the later one counts.  Without
	 * rails that is the first pair of the two hosts; with rails (dst_dev) the
	 * pair of the same two hosts and both ends' device and port.
	 */
	{
		char pbuf[16], dpbuf[16];
		const char *parts[] = { src, dst, n.dev, pbuf, n.dst_dev, dpbuf };
		const char *hkey, *rkey;
		size_t hlen, rlen = 1, at;
		int rc = 0;

		(void)snprintf(pbuf, sizeof(pbuf), "%u", n.port);
		(void)snprintf(dpbuf, sizeof(dpbuf), "%u", n.dst_port);
		/* the two hosts; the rail pair (six parts: never equal to two) */
		hlen = rd_strmap_key(&f->kb[0], parts, 2);
		if (n.dst_dev)
			rlen = rd_strmap_key(&f->kb[1], parts, RD_ARRAY_SIZE(parts));
		hkey = f->kb[0].s;
		rkey = f->kb[1].s;
		if (!hlen || !rlen)
			rc = -ENOMEM;
		else if (n.dst_dev ? rd_strmap_get(&f->pair_map, rkey, rlen, &at) &&
					 same_rails(&f->pairs[at], &n)	/* (not since taken by another) */
				   : rd_strmap_get(&f->pair_map, hkey, hlen, &at)) {
			slot = at;
		} else {
			at = f->npairs;
			rc = rd_strmap_get_or_add(&f->pair_map, hkey, hlen, &at);	/* keeps the first */
			if (rc >= 0 && n.dst_dev)
				rc = rd_strmap_set(&f->pair_map, rkey, rlen, f->npairs);
		}
		if (rc < 0)
			return -ENOMEM;
	}
	if (slot == SIZE_MAX) {
		if (rd_fleet_grow(&f->pairs, &f->pairs_cap, f->npairs, sizeof(*f->pairs)))
			return -ENOMEM;
		slot = f->npairs++;
	}
	f->pairs[slot] = n;	/* its strings are the fleet's (rd_fleet_text_intern) */
	if (n.ok)
		return 0;
	if (n.dst_dev)
		rd_fleet_pair_rails(&n, rails, sizeof(rails));
	return rd_fleet_problem_add(f, c->h->name, c->src, c->line, "mesh %s -> %s%s: FAIL at %s: %s", src,
				    dst, rails, n.stage, n.diagnosis);
}

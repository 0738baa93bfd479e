// SPDX-License-Identifier: MIT
/*
 * Fleet summary: the readers.  Each tool's JSON document is recognised by its
 * shape and turned into facts (and problems) of the host that sent it:
 * rdma-devinfo, rdma-gids --best, rdma-fabric, rdma-doctor, rdma-gpumap; the
 * mesh lines of rdma-selftest are fleetpairs.c's.
 */
#define _GNU_SOURCE
#include "fleetint.h"
#include "fleet.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor/doctor.h"

static bool obj_has(json_object *o, const char *key, json_type type)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, type);
}

/* Every element of an array is an object that passes elem(). */
static bool array_of(json_object *doc, bool (*elem)(json_object *))
{
	size_t n;

	if (!json_object_is_type(doc, json_type_array))
		return false;
	n = json_object_array_length(doc);
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(doc, i);

		if (!json_object_is_type(e, json_type_object) || !elem(e))
			return false;
	}
	return true;
}

/* Copy the listed members of o that are present as facts. */
static int facts_from(struct reader_ctx *c, const char *kind, const char *dev, unsigned int port,
		      json_object *o, const char *const *keys)
{
	json_object *v;
	int rc;

	for (size_t i = 0; keys[i]; i++) {
		if (!json_object_object_get_ex(o, keys[i], &v))
			continue;
		if (json_object_is_type(v, json_type_object) || json_object_is_type(v, json_type_array))
			continue;
		RD_GCC_LEAK_FP_BEGIN	/* the grown array is h->facts, freed by rd_fleet_free */
		rc = rd_fleet_fact_add(c->f, c->h, kind, dev, port, keys[i], v);
		RD_GCC_LEAK_FP_END
		if (rc)
			return rc;
	}
	return 0;
}

/* rdma-devinfo -j [-v]: [{dev, fw_ver, ..., ports: [{port, state, rate, active_mtu...}]}] */
static bool devinfo_elem(json_object *e)
{
	return rd_fleet_obj_str(e, "dev") && obj_has(e, "ports", json_type_array);
}

static bool devinfo_match(json_object *doc)
{
	return array_of(doc, devinfo_elem);
}

static int devinfo_read(struct reader_ctx *c, json_object *doc)
{
	static const char *const dev_keys[] = { "fw_ver", "hca_type", "board_id", "transport",
						 "driver_version", "stack", "libibverbs_pkg", NULL };
	static const char *const port_keys[] = { "state", "phys_state", "link_layer", "rate",
						  "netdev_mtu", NULL };
	static const char *const verbs_keys[] = { "active_mtu", NULL };
	int rc = 0;

	for (size_t i = 0; !rc && i < json_object_array_length(doc); i++) {
		json_object *d = json_object_array_get_idx(doc, i), *ports;
		const char *dev = rd_fleet_obj_str(d, "dev");

		rc = facts_from(c, "devinfo", dev, 0, d, dev_keys);
		(void)json_object_object_get_ex(d, "ports", &ports);
		for (size_t j = 0; !rc && j < json_object_array_length(ports); j++) {
			json_object *p = json_object_array_get_idx(ports, j), *num, *verbs;

			if (!json_object_object_get_ex(p, "port", &num) ||
			    !json_object_is_type(num, json_type_int) || json_object_get_int(num) <= 0) {
				RD_GCC_LEAK_FP_BEGIN	/* f->problems grows in place, freed by rd_fleet_free */
				rc = rd_fleet_problem_add(c->f, c->h->name, c->src, c->line,
							  "%s: a port without a valid \"port\" number, "
							  "skipped", dev);
				RD_GCC_LEAK_FP_END
				continue;
			}
			rc = facts_from(c, "devinfo", dev, (unsigned int)json_object_get_int(num), p,
					port_keys);
			/* -v: what the port's verbs attributes say (the MTU in use) */
			if (!rc && json_object_object_get_ex(p, "verbs", &verbs) &&
			    json_object_is_type(verbs, json_type_object))
				rc = facts_from(c, "devinfo", dev, (unsigned int)json_object_get_int(num),
						verbs, verbs_keys);
		}
	}
	return rc;
}

/* rdma-gids --best -j: [{dev, port, index, type, ..., reason}] or {dev, port, reason} */
static bool gids_elem(json_object *e)
{
	return rd_fleet_obj_str(e, "dev") && obj_has(e, "port", json_type_int) &&
	       rd_fleet_obj_str(e, "reason") && !obj_has(e, "ports", json_type_array);
}

static bool gids_match(json_object *doc)
{
	return array_of(doc, gids_elem);
}

static int gids_read(struct reader_ctx *c, json_object *doc)
{
	size_t found = 0, n = json_object_array_length(doc);
	const char *why = NULL;
	int rc = 0;

	for (size_t i = 0; !rc && i < json_object_array_length(doc); i++) {
		json_object *e = json_object_array_get_idx(doc, i), *idx, *port, *none;
		const char *dev = rd_fleet_obj_str(e, "dev"), *type = rd_fleet_obj_str(e, "type");
		unsigned int pn;

		(void)json_object_object_get_ex(e, "port", &port);
		pn = (unsigned int)json_object_get_int(port);
		if (json_object_object_get_ex(e, "index", &idx) && json_object_is_type(idx, json_type_int)) {
			found++;
			rc = rd_fleet_fact_add(c->f, c->h, "gids", dev, pn, "gid_index", idx);
			if (!rc && type) {
				json_object *t;

				(void)json_object_object_get_ex(e, "type", &t);
				rc = rd_fleet_fact_add(c->f, c->h, "gids", dev, pn, "roce_mode", t);
			}
			continue;
		}
		/* no usable index here: a value ("none") that may be an outlier */
		none = json_object_new_string("none");
		if (!none)
			return -ENOMEM;
		rc = rd_fleet_fact_add(c->f, c->h, "gids", dev, pn, "gid_index", none);
		json_object_put(none);
		why = rd_fleet_obj_str(e, "reason");
	}
	/* like rdma-gids --best's exit status: no port at all has an index */
	if (!rc && !found)
		rc = rd_fleet_problem_add(c->f, c->h->name, c->src, c->line,
					  "no port has a usable GID index (%s%s)", why,
					  n > 1 ? ", and more" : "");
	return rc;
}

/*
 * rdma-fabric -j, run on one host: {verdict, summary{source, switches, cas,
 * links, ...}, results: [{check, object, host, status, detail, ...}]}.  The
 * fabric is not that host's own fact (one fabric, not a value per host), so
 * no facts; each FAIL is a problem of the host that swept it and names the
 * host behind the link (an HCA's description starts with it), so that a
 * fleet summary says which host sits behind a bad link.  The name is only
 * said, never turned into another host's problem: one host's document never
 * changes another host's result.
 */
static bool fabric_match(json_object *doc)
{
	json_object *sum;

	return json_object_is_type(doc, json_type_object) && rd_fleet_obj_str(doc, "verdict") &&
	       obj_has(doc, "results", json_type_array) &&
	       json_object_object_get_ex(doc, "summary", &sum) && json_object_is_type(sum, json_type_object) &&
	       obj_has(sum, "switches", json_type_int) && obj_has(sum, "cas", json_type_int);
}

/* A host name as a fabric document may say it: a short word of name characters, else none. */
static const char *fabric_host(json_object *e)
{
	const char *h = rd_fleet_obj_str(e, "host");
	size_t n = 0;

	if (!h)
		return NULL;
	for (; h[n]; n++)
		if (n >= 64 || !(isalnum((unsigned char)h[n]) || h[n] == '-' || h[n] == '.' || h[n] == '_'))
			return NULL;
	return n ? h : NULL;
}

static int fabric_read(struct reader_ctx *c, json_object *doc)
{
	json_object *res;
	int rc = 0;

	(void)json_object_object_get_ex(doc, "results", &res);
	for (size_t i = 0; !rc && i < json_object_array_length(res); i++) {
		json_object *e = json_object_array_get_idx(res, i);
		const char *id, *status, *obj, *detail, *behind;

		if (!json_object_is_type(e, json_type_object) || !(id = rd_fleet_obj_str(e, "check")) ||
		    !(status = rd_fleet_obj_str(e, "status"))) {
			rc = rd_fleet_problem_add(c->f, c->h->name, c->src, c->line,
						  "rdma-fabric result %zu without \"check\" and \"status\", "
						  "skipped", i + 1);
			continue;
		}
		if (strcmp(status, "fail") != 0)
			continue;
		obj = rd_fleet_obj_str(e, "object");
		detail = rd_fleet_obj_str(e, "detail");
		behind = fabric_host(e);
		rc = rd_fleet_problem_add(c->f, c->h->name, c->src, c->line,
					  "fabric %.64s%s%.64s%s %.200s: %.200s", id,
					  behind ? " (host " : "", behind ? behind : "", behind ? ")" : "",
					  obj ? obj : "?", detail ? detail : "(no detail)");
	}
	return rc;
}

/*
 * rdma-doctor -j: {verdict, summary, results: [{check, object, status, detail, fix, dev, port}]}.
 * Each result is a fact named by its check id (its status: pass, warn, fail,
 * skip), so a host whose check differs from the others is an outlier; a FAIL
 * is a problem of that host with the doctor's detail.
 */
static bool doctor_match(json_object *doc)
{
	return json_object_is_type(doc, json_type_object) && rd_fleet_obj_str(doc, "verdict") &&
	       obj_has(doc, "summary", json_type_object) && obj_has(doc, "results", json_type_array);
}

/* The words rdma-doctor writes for its verdict and each status, in lower case. */
static bool doctor_word(const char *w)
{
	static const char *const words[] = { "pass", "warn", "fail", "skip" };

	for (size_t i = 0; i < RD_ARRAY_SIZE(words); i++)
		if (strcmp(w, words[i]) == 0)
			return true;
	return false;
}

static int doctor_read(struct reader_ctx *c, json_object *doc)
{
	const char *verdict = rd_fleet_obj_str(doc, "verdict");
	json_object *res;
	size_t nfail = 0;
	int rc = 0;

	/* As mesh values are: a word the doctor never writes makes the document untrusted. */
	if (!doctor_word(verdict))
		return rd_fleet_problem_add(c->f, c->h->name, c->src, c->line,
					    "rdma-doctor verdict '%.32s' is not pass, warn, fail or skip: "
					    "the document is not trusted, skipped", verdict);
	(void)json_object_object_get_ex(doc, "results", &res);
	for (size_t i = 0; !rc && i < json_object_array_length(res); i++) {
		json_object *e = json_object_array_get_idx(res, i), *st, *port;
		const struct rd_dr_check *chk;
		const char *id, *status, *dev;
		unsigned int pn = 0;

		if (!json_object_is_type(e, json_type_object) || !(id = rd_fleet_obj_str(e, "check")) ||
		    !(status = rd_fleet_obj_str(e, "status"))) {
			rc = rd_fleet_problem_add(c->f, c->h->name, c->src, c->line,
						  "rdma-doctor result %zu without \"check\" and \"status\", "
						  "skipped", i + 1);
			continue;
		}
		if (!doctor_word(status)) {
			rc = rd_fleet_problem_add(c->f, c->h->name, c->src, c->line,
						  "rdma-doctor result %zu (%.64s): status '%.32s' is not "
						  "pass, warn, fail or skip, skipped", i + 1, id, status);
			continue;
		}
		/* the table's own string: facts compare names by pointer */
		chk = rd_dr_check_find(id);
		if (!chk) {
			rc = rd_fleet_problem_add(c->f, c->h->name, c->src, c->line,
						  "rdma-doctor check '%.64s' is unknown here (a newer "
						  "rdma-doctor?), skipped", id);
			continue;
		}
		dev = rd_fleet_obj_str(e, "dev");
		if (json_object_object_get_ex(e, "port", &port) && json_object_is_type(port, json_type_int) &&
		    json_object_get_int(port) > 0)
			pn = (unsigned int)json_object_get_int(port);
		(void)json_object_object_get_ex(e, "status", &st);
		rc = rd_fleet_fact_add(c->f, c->h, "doctor", dev, pn, chk->id, st);
		if (!rc && strcmp(status, "fail") == 0) {
			const char *obj = rd_fleet_obj_str(e, "object");
			const char *detail = rd_fleet_obj_str(e, "detail");

			nfail++;
			rc = rd_fleet_problem_add(c->f, c->h->name, c->src, c->line, "%s %s: %s", id,
						  obj ? obj : "?", detail ? detail : "(no detail)");
		}
	}
	/* The host's own verdict counts too, and must agree with its results. */
	if (!rc && strcmp(verdict, "fail") == 0 && !nfail)
		rc = rd_fleet_problem_add(c->f, c->h->name, c->src, c->line,
					  "rdma-doctor's verdict is fail but it lists no failed check (a "
					  "document cut short or edited?)");
	else if (!rc && strcmp(verdict, "fail") != 0 && nfail)
		rc = rd_fleet_problem_add(c->f, c->h->name, c->src, c->line,
					  "rdma-doctor's verdict %s contradicts its %zu failed check%s",
					  verdict, nfail, nfail == 1 ? "" : "s");
	else if (!rc && strcmp(verdict, "skip") == 0)
		rc = rd_fleet_problem_add(c->f, c->h->name, c->src, c->line,
					  "rdma-doctor checked nothing on this host (verdict skip: every "
					  "check skipped)");
	return rc;
}

/*
 * rdma-gpumap -j: {gpus: [{gpu, bus, dev, port, path, gdr, ...}], summary: {gdr, gpus, backend,
 * nccl_version...}}.  Per GPU its NIC ("mlx5_3:1", "none"), path type, GDR and BAR1, so that a host
 * whose GPU-to-NIC map differs from the others' (a card in the wrong slot, a port down) is an
 * outlier; per host "gdr" as k/G and the backend.
 */
static bool gpumap_match(json_object *doc)
{
	json_object *sum;

	return json_object_is_type(doc, json_type_object) && obj_has(doc, "gpus", json_type_array) &&
	       json_object_object_get_ex(doc, "summary", &sum) && rd_fleet_obj_str(sum, "nccl_version");
}

static int gpumap_read(struct reader_ctx *c, json_object *doc)
{
	json_object *gpus, *sum, *v;
	int rc = 0;

	(void)json_object_object_get_ex(doc, "gpus", &gpus);
	(void)json_object_object_get_ex(doc, "summary", &sum);
	for (size_t i = 0; !rc && i < json_object_array_length(gpus); i++) {
		json_object *g = json_object_array_get_idx(gpus, i), *port, *val;
		const char *name = rd_fleet_obj_str(g, "gpu"), *dev = rd_fleet_obj_str(g, "dev");
		char nic[96];

		if (!name || strlen(name) > 32) {
			RD_GCC_LEAK_FP_BEGIN	/* f->problems grows in place, freed by rd_fleet_free */
			rc = rd_fleet_problem_add(c->f, c->h->name, c->src, c->line,
						  "rdma-gpumap GPU %zu without a \"gpu\" name, skipped",
						  i + 1);
			RD_GCC_LEAK_FP_END
			continue;
		}
		if (dev && json_object_object_get_ex(g, "port", &port) && json_object_is_type(port, json_type_int))
			snprintf(nic, sizeof(nic), "%.63s:%d", dev, json_object_get_int(port));
		else
			snprintf(nic, sizeof(nic), "none");
		val = json_object_new_string(nic);
		if (!val)
			return -ENOMEM;
		RD_GCC_LEAK_FP_BEGIN	/* the grown array is h->facts, freed by rd_fleet_free */
		rc = rd_fleet_fact_add(c->f, c->h, "gpumap", name, 0, "nic", val);
		RD_GCC_LEAK_FP_END
		json_object_put(val);
		if (!rc) {
			static const char *const keys[] = { "path", "gdr", "bar1_mib", NULL };

			rc = facts_from(c, "gpumap", name, 0, g, keys);
		}
	}
	if (!rc && json_object_object_get_ex(sum, "gdr", &v) && json_object_is_type(v, json_type_int)) {
		json_object *n, *val;
		char kg[48];

		(void)json_object_object_get_ex(sum, "gpus", &n);
		snprintf(kg, sizeof(kg), "%d/%d", json_object_get_int(v), n ? json_object_get_int(n) : 0);
		val = json_object_new_string(kg);
		if (!val)
			return -ENOMEM;
		rc = rd_fleet_fact_add(c->f, c->h, "gpumap", NULL, 0, "gdr", val);
		json_object_put(val);
	}
	if (!rc) {
		static const char *const keys[] = { "backend", "iommu", NULL };

		rc = facts_from(c, "gpumap", NULL, 0, sum, keys);
	}
	return rc;
}

/*
 * The readers, tried in order.  A new tool's output is one more entry: a
 * shape test and a function turning the document into facts (and problems).
 */
const struct reader rd_fleet_readers[] = {
	{ "devinfo", "rdma-devinfo -j", devinfo_match, devinfo_read },
	{ "gids", "rdma-gids --best -j", gids_match, gids_read },
	{ "fabric", "rdma-fabric -j", fabric_match, fabric_read },	/* before doctor: the same keys and more */
	{ "doctor", "rdma-doctor -j", doctor_match, doctor_read },
	{ "mesh", "rdma-selftest --mesh -j", rd_fleet_mesh_match, rd_fleet_mesh_read },
	{ "gpumap", "rdma-gpumap -j", gpumap_match, gpumap_read },
};

const size_t rd_fleet_nreaders = RD_ARRAY_SIZE(rd_fleet_readers);

// SPDX-License-Identifier: MIT
/*
 * rdma-fleet --fabric: the fabric document (rdma-fabric --routes -j) as a
 * graph of nodes, ports and cables with every switch's forwarding table,
 * where the ends of mesh pairs are found by host name and their routes are
 * walked as the switches forward them.
 *
 * The document is checked as any input: every number within its field's
 * bounds (ports 1-254, unicast LIDs 1-0xBFFF, table entries 0-255), a port
 * linked twice or to two peers refused, nothing taken on trust.
 */
#define _GNU_SOURCE
#include "fleettomo.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define MAX_PORT 254
#define MAX_UCAST_LID 0xBFFF
#define NO_LINK UINT32_MAX
#define NO_PORT 255
#define MAX_HOPS 64

struct tnode {
	const char *name;	/* the pool's */
	uint64_t guid;
	bool sw, typed;		/* typed: its own port entry said what it is */
	unsigned int nports;	/* the highest port seen */
	uint32_t *link;		/* [nports + 1]: the cable at each port, or NO_LINK */
	uint16_t *lid;		/* [nports + 1]: a CA port's LID; a switch's at [0] */
	uint8_t *lft;		/* a switch's table: LID -> port, NO_PORT for none */
	size_t lft_len;
	uint32_t next_ca;	/* the next CA of the same host, or NO_LINK */
	const char *dev;	/* the name's part after the host ("mlx5_0"), "" for none */
};

struct tlink {
	uint32_t node[2];
	uint8_t port[2];
};

struct rd_tomo_fabric {
	struct tnode *nodes;
	size_t nnodes;
	struct tlink *links;
	size_t nlinks;
	struct rd_strmap by_guid;	/* "%016" PRIx64 -> node */
	struct rd_strmap by_name;	/* a CA's name -> node (the first of that name) */
	struct rd_strmap by_host;	/* a CA name's first word -> its first CA */
	struct rd_strpool pool;
	size_t ncas, nswitches;
};

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : NULL;
}

/* An integer field in [lo, hi]: 1 and *out; 0 absent (or null); -1 out of bounds or not a number. */
static int jint(json_object *o, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return -1;
	*out = json_object_get_int64(v);
	return *out >= lo && *out <= hi ? 1 : -1;
}

static int parse_guid(const char *s, uint64_t *g)
{
	size_t n;

	if (!s || strncmp(s, "0x", 2) != 0)
		return -1;
	n = strspn(s + 2, "0123456789abcdefABCDEF");
	if (!n || n > 16 || s[2 + n])
		return -1;	/* hex digits only: strtoull would take a sign, blanks, a second 0x */
	*g = strtoull(s + 2, NULL, 16);
	return 0;
}

/* The node of guid, added (named name) when new: its index, or -ENOMEM. */
static int64_t node_get(struct rd_tomo_fabric *fab, uint64_t guid, const char *name, size_t *cap)
{
	char key[24];
	size_t at = fab->nnodes;
	int rc;

	(void)snprintf(key, sizeof(key), "%016" PRIx64, guid);
	rc = rd_strmap_sget_or_add(&fab->by_guid, key, &at);
	if (rc < 0)
		return -ENOMEM;
	if (rc == 0) {
		struct tnode *n;

		if (fab->nnodes == *cap) {
			size_t nc = *cap ? 2 * *cap : 256;
			struct tnode *v = realloc(fab->nodes, nc * sizeof(*v));

			if (!v)
				return -ENOMEM;
			fab->nodes = v;
			*cap = nc;
		}
		n = &fab->nodes[fab->nnodes++];
		memset(n, 0, sizeof(*n));
		n->guid = guid;
		n->next_ca = NO_LINK;
		n->name = rd_strpool_sdup(&fab->pool, name ? name : "");
		if (!n->name)
			return -ENOMEM;
	}
	return (int64_t)at;
}

static int fail(char *why, size_t len, const char *fmt, size_t i, const char *what)
{
	(void)snprintf(why, len, fmt, i, what);
	return -EINVAL;
}

/*
 * First pass over the ports: every node (and every peer) with its highest
 * port, its type and name from its own entries.
 */
static int pass_nodes(struct rd_tomo_fabric *fab, json_object *ports, char *why, size_t len)
{
	size_t cap = 0, n = json_object_array_length(ports);

	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(ports, i);
		const char *type = jstr(p, "type"), *name = jstr(p, "node"), *peer = jstr(p, "peer");
		uint64_t g, pg;
		int64_t port, pport, id, pid;

		if (!json_object_is_type(p, json_type_object) || !name || !type)
			return fail(why, len, "ports[%zu]: %s", i, "not an object with node and type");
		if (parse_guid(jstr(p, "guid"), &g))
			return fail(why, len, "ports[%zu]: %s", i, "guid is not a 0x-prefixed 64-bit number");
		if (jint(p, "port", 1, MAX_PORT, &port) != 1)
			return fail(why, len, "ports[%zu]: %s", i, "port is not a number from 1 to 254");
		id = node_get(fab, g, name, &cap);
		if (id < 0)
			return (int)id;
		fab->nodes[id].typed = true;
		fab->nodes[id].sw = strcmp(type, "Switch") == 0;
		if ((unsigned int)port > fab->nodes[id].nports)
			fab->nodes[id].nports = (unsigned int)port;
		if (!jstr(p, "peer_guid"))
			continue;
		if (parse_guid(jstr(p, "peer_guid"), &pg))
			return fail(why, len, "ports[%zu]: %s", i, "peer_guid is not a 0x-prefixed 64-bit number");
		if (jint(p, "peer_port", 1, MAX_PORT, &pport) != 1)
			return fail(why, len, "ports[%zu]: %s", i, "peer_port is not a number from 1 to 254");
		pid = node_get(fab, pg, peer, &cap);
		if (pid < 0)
			return (int)pid;
		if ((unsigned int)pport > fab->nodes[pid].nports)
			fab->nodes[pid].nports = (unsigned int)pport;
	}
	for (size_t i = 0; i < fab->nnodes; i++) {
		struct tnode *t = &fab->nodes[i];

		t->link = malloc((t->nports + 1) * sizeof(*t->link));
		t->lid = calloc(t->nports + 1, sizeof(*t->lid));
		if (!t->link || !t->lid)
			return -ENOMEM;
		for (unsigned int k = 0; k <= t->nports; k++)
			t->link[k] = NO_LINK;
	}
	return 0;
}

/* Second pass: LIDs and cables. */
static int pass_links(struct rd_tomo_fabric *fab, json_object *ports, char *why, size_t len)
{
	size_t cap = 0, n = json_object_array_length(ports);

	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(ports, i);
		uint64_t g = 0, pg = 0;
		int64_t port = 1, pport = 1, lid, id, pid;
		struct tnode *a, *b;
		uint32_t l;

		(void)parse_guid(jstr(p, "guid"), &g);	/* checked by pass_nodes */
		(void)jint(p, "port", 1, MAX_PORT, &port);
		id = node_get(fab, g, NULL, &cap);
		a = &fab->nodes[id];
		switch (jint(p, "lid", 0, MAX_UCAST_LID, &lid)) {
		case -1:
			return fail(why, len, "ports[%zu]: %s", i, "lid is not a unicast LID (0 to 0xbfff)");
		case 1:
			a->lid[a->sw ? 0 : port] = (uint16_t)lid;
			break;
		default:
			break;
		}
		if (!jstr(p, "peer_guid"))
			continue;
		(void)parse_guid(jstr(p, "peer_guid"), &pg);
		(void)jint(p, "peer_port", 1, MAX_PORT, &pport);
		pid = node_get(fab, pg, NULL, &cap);
		b = &fab->nodes[pid];
		if (id == pid && port == pport)
			return fail(why, len, "ports[%zu]: %s", i, "a port linked to itself");
		if (a->link[port] != NO_LINK || b->link[pport] != NO_LINK) {
			const struct tlink *x = &fab->links[a->link[port] != NO_LINK ? a->link[port]
										 : b->link[pport]];
			bool same = (x->node[0] == id && x->port[0] == port && x->node[1] == pid &&
				     x->port[1] == pport) ||
				    (x->node[1] == id && x->port[1] == port && x->node[0] == pid &&
				     x->port[0] == pport);

			if (same)
				continue;	/* the other end's entry of a cable seen */
			return fail(why, len, "ports[%zu]: %s", i, "a port linked to two peers");
		}
		if (fab->nlinks % 1024 == 0) {
			struct tlink *v = realloc(fab->links, (fab->nlinks + 1024) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			fab->links = v;
		}
		l = (uint32_t)fab->nlinks++;
		fab->links[l] = (struct tlink){ { (uint32_t)id, (uint32_t)pid },
						{ (uint8_t)port, (uint8_t)pport } };
		a->link[port] = l;
		b->link[pport] = l;
	}
	return 0;
}

static int pass_lfts(struct rd_tomo_fabric *fab, json_object *lfts, char *why, size_t len)
{
	for (size_t i = 0; i < json_object_array_length(lfts); i++) {
		json_object *t = json_object_array_get_idx(lfts, i), *arr;
		struct tnode *s;
		size_t key, n;
		uint64_t g;
		char k[24];

		if (!json_object_is_type(t, json_type_object) || parse_guid(jstr(t, "guid"), &g))
			return fail(why, len, "lfts[%zu]: %s", i, "no guid");
		if (!json_object_object_get_ex(t, "lft", &arr) || !json_object_is_type(arr, json_type_array))
			return fail(why, len, "lfts[%zu]: %s", i, "no lft array");
		(void)snprintf(k, sizeof(k), "%016" PRIx64, g);
		if (!rd_strmap_sget(&fab->by_guid, k, &key) || !fab->nodes[key].sw)
			return fail(why, len, "lfts[%zu]: %s", i, "the table of a node that is not a switch of the ports");
		s = &fab->nodes[key];
		n = json_object_array_length(arr);
		if (n > MAX_UCAST_LID + 1)
			return fail(why, len, "lfts[%zu]: %s", i, "more entries than unicast LIDs");
		if (s->lft)
			return fail(why, len, "lfts[%zu]: %s", i, "a second table of the same switch");
		s->lft = malloc(n ? n : 1);
		if (!s->lft)
			return -ENOMEM;
		s->lft_len = n;
		for (size_t j = 0; j < n; j++) {
			json_object *e = json_object_array_get_idx(arr, j);
			int64_t v;

			if (!json_object_is_type(e, json_type_int) || (v = json_object_get_int64(e)) < 0 || v > 255)
				return fail(why, len, "lfts[%zu]: %s", i, "an entry that is not a port (0-255)");
			s->lft[j] = (uint8_t)v;
		}
	}
	return 0;
}

/* The CAs by name and by host (the name's first word). */
static int index_cas(struct rd_tomo_fabric *fab)
{
	for (size_t i = 0; i < fab->nnodes; i++) {
		struct tnode *t = &fab->nodes[i];
		const char *sp;
		size_t at = i, hl;
		int rc;

		if (t->sw) {
			fab->nswitches++;
			continue;
		}
		fab->ncas++;
		rc = rd_strmap_sget_or_add(&fab->by_name, t->name, &at);
		if (rc < 0)
			return -ENOMEM;
		sp = strchr(t->name, ' ');
		hl = sp ? (size_t)(sp - t->name) : strlen(t->name);
		t->dev = sp ? sp + 1 : "";
		at = i;
		rc = rd_strmap_get_or_add(&fab->by_host, t->name, hl, &at);
		if (rc < 0)
			return -ENOMEM;
		if (rc == 1) {
			/* after the host's last CA, in node order */
			size_t k = at;

			while (fab->nodes[k].next_ca != NO_LINK)
				k = fab->nodes[k].next_ca;
			fab->nodes[k].next_ca = (uint32_t)i;
		}
	}
	return 0;
}

int rd_tomo_fabric_parse(const char *data, size_t len, struct rd_tomo_fabric **out, char *why,
			 size_t why_len)
{
	struct rd_tomo_fabric *fab = calloc(1, sizeof(*fab));
	json_tokener *tok = json_tokener_new();
	json_object *doc = NULL, *ports, *lfts;
	int rc = -ENOMEM;

	*out = NULL;
	if (!fab || !tok)
		goto out;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	doc = json_tokener_parse_ex(tok, data, (int)(len > INT32_MAX ? INT32_MAX : len));
	if (!doc || len > INT32_MAX || tok->char_offset < (int)len) {
		/* only white space may follow the document */
		size_t at = doc ? (size_t)tok->char_offset : len;

		while (doc && at < len && strchr(" \t\r\n", data[at]))
			at++;
		if (!doc || at < len) {
			(void)snprintf(why, why_len, "not one JSON document (at byte %zu: %s)",
				       doc ? at : (size_t)tok->char_offset,
				       doc ? "more after the document"
					   : json_tokener_get_error(tok) == json_tokener_continue
						     ? "it ends early"
						     : json_tokener_error_desc(json_tokener_get_error(tok)));
			rc = -EINVAL;
			goto out;
		}
	}
	rc = -EINVAL;
	if (!json_object_object_get_ex(doc, "ports", &ports) || !json_object_is_type(ports, json_type_array)) {
		(void)snprintf(why, why_len, "no \"ports\" array: not rdma-fabric --routes -j output");
		goto out;
	}
	if (!json_object_object_get_ex(doc, "lfts", &lfts) || !json_object_is_type(lfts, json_type_array)) {
		(void)snprintf(why, why_len, "no forwarding tables (\"lfts\"): make it with rdma-fabric "
					     "--routes -j");
		goto out;
	}
	rc = pass_nodes(fab, ports, why, why_len);
	if (!rc)
		rc = pass_links(fab, ports, why, why_len);
	if (!rc)
		rc = pass_lfts(fab, lfts, why, why_len);
	if (!rc)
		rc = index_cas(fab);
	if (!rc && !fab->ncas) {
		(void)snprintf(why, why_len, "no CA in its ports");
		rc = -EINVAL;
	}
out:
	json_object_put(doc);
	if (tok)
		json_tokener_free(tok);
	if (rc)
		rd_tomo_fabric_free(fab);
	else
		*out = fab;
	return rc;
}

void rd_tomo_fabric_free(struct rd_tomo_fabric *fab)
{
	if (!fab)
		return;
	for (size_t i = 0; i < fab->nnodes; i++) {
		free(fab->nodes[i].link);
		free(fab->nodes[i].lid);
		free(fab->nodes[i].lft);
	}
	free(fab->nodes);
	free(fab->links);
	rd_strmap_free(&fab->by_guid);
	rd_strmap_free(&fab->by_name);
	rd_strmap_free(&fab->by_host);
	rd_strpool_free(&fab->pool);
	free(fab);
}

void rd_tomo_fabric_size(const struct rd_tomo_fabric *fab, size_t *cas, size_t *switches, size_t *links)
{
	*cas = fab->ncas;
	*switches = fab->nswitches;
	*links = fab->nlinks;
}

/* Which end of a link is named first: a switch before a CA, then the lower name, GUID, port. */
static int first_end(const struct rd_tomo_fabric *fab, const struct tlink *l)
{
	const struct tnode *a = &fab->nodes[l->node[0]], *b = &fab->nodes[l->node[1]];
	int c;

	if (a->sw != b->sw)
		return a->sw ? 0 : 1;
	c = strcmp(a->name, b->name);
	if (c)
		return c < 0 ? 0 : 1;
	if (a->guid != b->guid)
		return a->guid < b->guid ? 0 : 1;
	return l->port[0] <= l->port[1] ? 0 : 1;
}

void rd_tomo_link_ends(const struct rd_tomo_fabric *fab, uint32_t link, struct rd_tomo_end *a,
		       struct rd_tomo_end *b)
{
	const struct tlink *l = &fab->links[link];
	int first = first_end(fab, l);
	struct rd_tomo_end *e[2] = { a, b };

	for (int k = 0; k < 2; k++) {
		const struct tnode *t = &fab->nodes[l->node[(first + k) % 2]];

		e[k]->node = t->name;
		e[k]->guid = t->guid;
		e[k]->port = l->port[(first + k) % 2];
		e[k]->ca = !t->sw;
	}
}

void rd_tomo_link_text(const struct rd_tomo_fabric *fab, uint32_t link, char *buf, size_t len)
{
	struct rd_tomo_end a = { 0 }, b = { 0 };

	rd_tomo_link_ends(fab, link, &a, &b);
	(void)snprintf(buf, len, "%s port %u <-> %s port %u", a.node, a.port, b.node, b.port);
}

/* The host's CAs: the first one's index through by_host, with a bare host tried after an FQDN. */
static bool host_first(const struct rd_tomo_fabric *fab, const char *host, size_t *at)
{
	const char *dot = strchr(host, '.');

	return rd_strmap_get(&fab->by_host, host, strlen(host), at) ||
	       (dot && dot > host && rd_strmap_get(&fab->by_host, host, (size_t)(dot - host), at));
}

static bool ca_named(const struct rd_tomo_fabric *fab, const char *host, const char *dev, size_t *at)
{
	size_t k;

	if (!host_first(fab, host, &k))
		return false;
	for (; k != NO_LINK; k = fab->nodes[k].next_ca)
		if (strcmp(fab->nodes[k].dev, dev) == 0) {
			*at = k;
			return true;
		}
	return false;
}

int rd_tomo_end_find(const struct rd_tomo_fabric *fab, const char *host, const char *dev,
		     unsigned int port, const char *prefer_dev, uint32_t *node, unsigned int *oport,
		     uint16_t *lid, bool *host_known, char *why, size_t why_len)
{
	size_t first, at = SIZE_MAX, count = 0;

	*host_known = host_first(fab, host, &first);
	if (!*host_known) {
		(void)snprintf(why, why_len, "no CA of host %s on the fabric", host);
		return -ENOENT;
	}
	for (size_t k = first; k != NO_LINK; k = fab->nodes[k].next_ca)
		count++;
	if (dev) {
		if (!ca_named(fab, host, dev, &at) && count == 1 && !*fab->nodes[first].dev)
			at = first;	/* a node-name-map name: the host alone */
		if (at == SIZE_MAX) {
			(void)snprintf(why, why_len, "no CA '%s %s' on the fabric", host, dev);
			return -ENOENT;
		}
	} else if (!(prefer_dev && ca_named(fab, host, prefer_dev, &at))) {
		if (count != 1) {
			(void)snprintf(why, why_len, "host %s has %zu CAs on the fabric and the mesh line "
						     "names no rail", host, count);
			return -ENOENT;
		}
		at = first;
	}
	if (!port)
		port = 1;
	if (port > fab->nodes[at].nports || !fab->nodes[at].lid[port]) {
		(void)snprintf(why, why_len, "%s port %u has no LID on the fabric", fab->nodes[at].name, port);
		return -ENOENT;
	}
	*node = (uint32_t)at;
	*oport = port;
	*lid = fab->nodes[at].lid[port];
	return 0;
}

const char *rd_tomo_host_switch(const struct rd_tomo_fabric *fab, const char *host)
{
	size_t k;

	if (!host_first(fab, host, &k))
		return NULL;
	for (; k != NO_LINK; k = fab->nodes[k].next_ca) {
		const struct tnode *t = &fab->nodes[k];

		if (t->nports >= 1 && t->link[1] != NO_LINK) {
			const struct tlink *l = &fab->links[t->link[1]];
			const struct tnode *peer = &fab->nodes[l->node[l->node[0] == k && l->port[0] == 1 ? 1 : 0]];

			if (peer->sw)
				return peer->name;
		}
	}
	return NULL;
}

int rd_tomo_route(const struct rd_tomo_fabric *fab, uint32_t node, unsigned int port, uint16_t dlid,
		  uint32_t dnode, uint32_t *links, size_t *n, size_t cap, char *why, size_t why_len)
{
	const struct tnode *t = &fab->nodes[node];
	uint32_t l = port <= t->nports ? t->link[port] : NO_LINK;

	for (int hop = 0;; hop++) {
		const struct tlink *x;
		unsigned int out;
		int side;

		if (l == NO_LINK) {
			(void)snprintf(why, why_len, "%s port %u is not linked", t->name, port);
			return -EHOSTUNREACH;
		}
		if (*n == cap)
			return -ENOSPC;
		links[(*n)++] = l;
		x = &fab->links[l];
		side = x->node[0] == (uint32_t)(t - fab->nodes) && x->port[0] == port ? 1 : 0;
		t = &fab->nodes[x->node[side]];
		if (!t->sw) {
			if (x->node[side] == dnode)
				return 0;
			(void)snprintf(why, why_len, "LID %u is delivered to %s, not %s", dlid, t->name,
				       fab->nodes[dnode].name);
			return -EHOSTUNREACH;
		}
		if (hop == MAX_HOPS) {
			(void)snprintf(why, why_len, "the route to LID %u loops (past %d hops at %s)", dlid,
				       MAX_HOPS, t->name);
			return -EHOSTUNREACH;
		}
		if (!t->lft) {
			(void)snprintf(why, why_len, "no forwarding table of %s", t->name);
			return -EHOSTUNREACH;
		}
		out = dlid < t->lft_len ? t->lft[dlid] : NO_PORT;
		if (out == 0 || out > t->nports) {
			(void)snprintf(why, why_len, "%s has no entry for LID %u", t->name, dlid);
			return -EHOSTUNREACH;
		}
		port = out;
		l = t->link[out];
	}
}

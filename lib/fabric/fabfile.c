// SPDX-License-Identifier: MIT
/*
 * A fabric in a file: libibnetdisc's cache format (`ibnetdiscover --cache`,
 * `iblinkinfo --load-cache`), read by our own checked reader and saved by
 * libibnetdisc; and infiniband-diags' node name map.  Every file goes
 * through rd_infile / rd_outfile, so a FIFO, a device or a huge file cannot
 * hang or grow the tool, and --save never writes through a link or over a
 * device node.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

#include "fabapi.h"
#include "fabint.h"

/* A cache of 2,048 nodes is about 2 MB: 64 MiB leaves room for the largest fabrics. */
#define CACHE_MAX_BYTES (64u << 20)

/*
 * The cache format (libibnetdisc's ibnetdisc_cache.c, version 1, host byte
 * order): a 28-byte header (magic, version, node count, port count, the
 * from-node GUID, max hops); node records of 207 bytes plus 9 per port key
 * they list (port GUID, port number); port records of 95 bytes (GUID, number,
 * ..., the node's GUID at 77, a remote flag at 85, the remote GUID and number).
 */
#define CACHE_MAGIC 0x8fe7832bu
#define CACHE_HDR 28
#define NODE_FIXED 207
#define NODE_KEY 9
#define PORT_REC 95

struct key {
	uint64_t guid;
	uint8_t num;
	int node, port;		/* where the port record went in the model */
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (int)x->num - (int)y->num;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t get16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A node record: where it starts, and what orders the model's nodes. */
struct nrec {
	const unsigned char *r;
	uint64_t guid;
	int type;
	char desc[65];
	size_t idx;
};

static int nrec_order(const void *a, const void *b)
{
	const struct nrec *x = a, *y = b;

	return rd_fab_node_order(x->type, x->desc, x->guid, y->type, y->desc, y->guid);
}

static int nrec_guid(const void *a, const void *b)
{
	const struct nrec *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/*
 * The cache read by our own reader, not by ibnd_load_fabric(): libibnetdisc
 * trusts its input, and fuzz_fabfile made it loop allocating (a changed
 * count or LMC), write past its arrays and free ports still linked.  A file
 * a customer sends must not do that.  Here every count is bounded by the
 * bytes that hold it, the records fill the file exactly, node GUIDs and port
 * keys are unique, and every reference (a port's node and remote port) names
 * a record that is there; then the model is built from the records.
 */
static int cache_parse(struct rd_fab *fab, const unsigned char *d, size_t len, char *why, size_t why_len)
{
	uint32_t nn, np;
	size_t off = CACHE_HDR, poff, tail = 0;
	struct nrec *nodes = NULL;
	struct key *ports = NULL;
	int ret = -EINVAL;

	if (len < CACHE_HDR || get32(d) != CACHE_MAGIC) {
		snprintf(why, why_len, "not a fabric cache (no libibnetdisc cache header: write one with "
			 "rdma-fabric --save or ibnetdiscover --cache)");
		return -EINVAL;
	}
	if (get32(d + 4) != 1) {
		snprintf(why, why_len, "a fabric cache of version %u (this tool reads version 1)",
			 get32(d + 4));
		return -EINVAL;
	}
	nn = get32(d + 8);
	np = get32(d + 12);
	/* Counts bounded by the bytes that would hold them, before anything is allocated. */
	if (nn == 0 || (uint64_t)nn * NODE_FIXED + (uint64_t)np * PORT_REC > len - CACHE_HDR) {
		snprintf(why, why_len, "a damaged fabric cache: %u nodes and %u ports do not fit in "
			 "%zu bytes", nn, np, len);
		return -EINVAL;
	}
	nodes = calloc(nn, sizeof(*nodes));
	ports = calloc(np ? np : 1, sizeof(*ports));
	if (!nodes || !ports) {
		ret = -ENOMEM;
		snprintf(why, why_len, "%s", strerror(ENOMEM));
		goto out;
	}
	for (uint32_t i = 0; i < nn; i++) {
		const unsigned char *r = d + off;
		unsigned int k;

		if (len - off < NODE_FIXED)
			goto short_file;
		k = r[206];
		if (len - off - NODE_FIXED < (size_t)k * NODE_KEY)
			goto short_file;
		nodes[i].r = r;
		nodes[i].guid = get64(r + 68);
		nodes[i].type = r[76];
		memcpy(nodes[i].desc, r + 142, 64);
		if (nodes[i].type < RD_FAB_CA || nodes[i].type > RD_FAB_ROUTER) {
			snprintf(why, why_len, "a damaged fabric cache: node 0x%016llx of type %d",
				 (unsigned long long)nodes[i].guid, nodes[i].type);
			goto out;
		}
		off += NODE_FIXED + (size_t)k * NODE_KEY;
	}
	poff = off;
	/* After the port records, only rdma-fabric's forwarding tables may follow. */
	if (len - off > (size_t)np * PORT_REC &&
	    rd_fab_lft_present(d + off + (size_t)np * PORT_REC, len - off - (size_t)np * PORT_REC))
		tail = off + (size_t)np * PORT_REC;
	if (len - off != (size_t)np * PORT_REC && !tail) {
		snprintf(why, why_len, "a damaged fabric cache: %zu bytes after the nodes, not the "
			 "%u port records it announces", len - off, np);
		goto out;
	}
	/* Nodes: unique GUIDs, then the model in its order. */
	qsort(nodes, nn, sizeof(*nodes), nrec_guid);
	for (uint32_t i = 1; i < nn; i++)
		if (nodes[i].guid == nodes[i - 1].guid) {
			snprintf(why, why_len, "a damaged fabric cache: node GUID 0x%016llx twice",
				 (unsigned long long)nodes[i].guid);
			goto out;
		}
	qsort(nodes, nn, sizeof(*nodes), nrec_order);
	fab->nodes = calloc(nn, sizeof(*fab->nodes));
	if (!fab->nodes) {
		ret = -ENOMEM;
		snprintf(why, why_len, "%s", strerror(ENOMEM));
		goto out;
	}
	fab->n_nodes = nn;
	for (uint32_t i = 0; i < nn; i++) {
		const unsigned char *r = nodes[i].r;

		nodes[i].idx = i;
		ret = rd_fab_node_setup(&fab->nodes[i], nodes[i].guid, nodes[i].type, r[77],
					(const char *)r + 142, r + 78);
		if (ret) {
			snprintf(why, why_len, "%s", strerror(-ret));
			goto out;
		}
		/* SwitchInfo (64 bytes at 4): its LinearFDBTop. */
		if (fab->nodes[i].type == RD_FAB_SWITCH)
			rd_fab_set_lft_top(&fab->nodes[i], mad_get_field((void *)(r + 4), 0,
									 IB_SW_LINEAR_FDB_TOP_F));
	}
	qsort(nodes, nn, sizeof(*nodes), nrec_guid);
	/* Ports: each into its node, at its number. */
	for (uint32_t i = 0; i < np; i++) {
		const unsigned char *r = d + poff + (size_t)i * PORT_REC;
		struct nrec want = { .guid = get64(r + 77) };
		const struct nrec *node = bsearch(&want, nodes, nn, sizeof(*nodes), nrec_guid);
		struct rd_fab_node *nd;

		if (!node) {
			snprintf(why, why_len, "a damaged fabric cache: a port names node 0x%016llx, "
				 "which has no record", (unsigned long long)want.guid);
			ret = -EINVAL;
			goto out;
		}
		nd = &fab->nodes[node->idx];
		if (r[8] > nd->nports) {
			snprintf(why, why_len, "a damaged fabric cache: port %u of node 0x%016llx, which "
				 "has %d ports", r[8], (unsigned long long)want.guid, nd->nports);
			ret = -EINVAL;
			goto out;
		}
		if (r[12] > 7) {
			snprintf(why, why_len, "a damaged fabric cache: port %u of node 0x%016llx has LMC %u "
				 "(at most 7)", r[8], (unsigned long long)want.guid, r[12]);
			ret = -EINVAL;
			goto out;
		}
		ports[i] = (struct key){ get64(r), r[8], (int)node->idx, r[8] };
		rd_fab_fill_port(&nd->ports[r[8]], r + 13, get64(r), get16(r + 10), r[12]);
	}
	qsort(ports, np, sizeof(*ports), key_cmp);
	for (uint32_t i = 1; i < np; i++)
		if (!key_cmp(&ports[i], &ports[i - 1])) {
			snprintf(why, why_len, "a damaged fabric cache: port 0x%016llx/%u twice",
				 (unsigned long long)ports[i].guid, ports[i].num);
			ret = -EINVAL;
			goto out;
		}
	/* Links: the remote port must have a record; each end names the other. */
	for (uint32_t i = 0; i < np; i++) {
		const unsigned char *r = d + poff + (size_t)i * PORT_REC;
		struct key self = { get64(r), r[8], 0, 0 }, rk = { get64(r + 86), r[94], 0, 0 };
		const struct key *me, *peer;

		if (!r[85])
			continue;
		me = bsearch(&self, ports, np, sizeof(*ports), key_cmp);
		peer = bsearch(&rk, ports, np, sizeof(*ports), key_cmp);
		if (!me || !peer) {
			snprintf(why, why_len, "a damaged fabric cache: a link to port 0x%016llx/%u, "
				 "which has no record", (unsigned long long)rk.guid, rk.num);
			ret = -EINVAL;
			goto out;
		}
		fab->nodes[me->node].ports[me->port].peer_node = peer->node;
		fab->nodes[me->node].ports[me->port].peer_port = peer->port;
	}
	for (uint32_t i = 0; i < nn; i++)
		rd_fab_node_lids(&fab->nodes[i]);
	{
		struct nrec want = { .guid = get64(d + 16) };
		const struct nrec *from = bsearch(&want, nodes, nn, sizeof(*nodes), nrec_guid);

		fab->from_node = from ? (int)from->idx : -1;
	}
	ret = tail ? rd_fab_lft_parse(fab, d + tail, len - tail, why, why_len) : 0;
	goto out;
short_file:
	snprintf(why, why_len, "a damaged fabric cache: it ends inside node records");
out:
	free(nodes);
	free(ports);
	return ret;
}

int rd_fab_load(struct rd_fab *fab, const char *path, int timeout_ms, char *why, size_t why_len)
{
	struct rd_infile_limits lim = {
		.max_bytes = CACHE_MAX_BYTES, .max_line = CACHE_MAX_BYTES,
		.max_lines = CACHE_MAX_BYTES, .timeout_ms = timeout_ms, .binary = true,
	};
	struct rd_infile f;
	const char *data;
	size_t len;
	int ret;

	memset(fab, 0, sizeof(*fab));
	fab->from_node = fab->from_port = -1;
	ret = rd_infile_open(&f, path, &lim, why, why_len);
	if (ret)
		return ret;
	ret = rd_infile_all(&f, &data, &len, why, why_len);
	if (ret)
		goto out;
	if (len == 0) {
		snprintf(why, why_len, "empty (not an ibnetdiscover --cache file)");
		ret = -EINVAL;
		goto out;
	}
	ret = cache_parse(fab, (const unsigned char *)data, len, why, why_len);
	if (ret)
		rd_fab_free(fab);
out:
	rd_infile_close(&f);
	return ret;
}

struct copy_arg {
	int fd;
	const struct rd_fab *fab;
};

static int copy_out(FILE *fp, void *arg)
{
	struct copy_arg *a = arg;
	char buf[65536];
	ssize_t n;

	while ((n = read(a->fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, fp) != (size_t)n)
			return -EIO;
	if (n < 0)
		return -errno;
	/* The forwarding tables after libibnetdisc's records (fablft.c). */
	return a->fab->have_routes ? rd_fab_lft_write(a->fab, fp) : 0;
}

int rd_fab_save(const struct rd_fab *fab, const char *path, char *why, size_t why_len)
{
	char dir[] = "/tmp/rdma-fabric.XXXXXX", file[64];
	struct rd_outfile of;
	struct copy_arg a = { -1, fab };
	int ret;

	if (!fab->ibnd) {
		snprintf(why, why_len, "no swept fabric to save");
		return -EINVAL;
	}
	ret = rd_outfile_open(&of, path, why, why_len);
	if (ret)
		return ret;
	/* libibnetdisc writes to a path of its own: a private directory, then our copy. */
	if (!mkdtemp(dir)) {
		ret = -errno;
		snprintf(why, why_len, "cannot make a temporary directory: %s", strerror(-ret));
		goto out;
	}
	snprintf(file, sizeof(file), "%s/cache", dir);
	if (ibnd_cache_fabric(fab->ibnd, file, IBND_CACHE_FABRIC_FLAG_DEFAULT) != 0) {
		snprintf(why, why_len, "libibnetdisc could not write the cache");
		ret = -EIO;
		goto rm;
	}
	a.fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (a.fd < 0) {
		ret = -errno;
		snprintf(why, why_len, "%s", strerror(-ret));
		goto rm;
	}
	ret = rd_outfile_replace(&of, copy_out, &a, why, why_len);
	close(a.fd);
rm:
	unlink(file);
	rmdir(dir);
out:
	rd_outfile_close(&of);
	return ret;
}

/* Malformed lines of a node name map named one by one; past this many, counted. */
#define NAME_MAP_WARN_LINES 10

/*
 * One line of a node name map: "0x0002c903000e0b72 "leaf01"" or a bare name,
 * '#' comments.  Returns 1 with *guid and *name (pointing into line, ended
 * there), 0 for a blank or comment line, -1 with *what for a line that is
 * not one.
 */
static int name_map_line(char *line, unsigned long long *guid, char **name, const char **what)
{
	char *s = line, *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '#')
		return 0;
	errno = 0;
	*guid = strtoull(s, &end, 0);
	if (errno || end == s || !isspace((unsigned char)*end)) {
		*what = "not 'GUID name'";
		return -1;
	}
	s = end;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '"') {
		*name = ++s;
		end = strchr(s, '"');
		if (!end) {
			*what = "a name without its closing quote";
			return -1;
		}
	} else {
		*name = s;
		for (end = s; *end && *end != '\r' && *end != '#'; end++)
			;
		while (end > *name && isspace((unsigned char)end[-1]))
			end--;
	}
	*end = '\0';
	if (!**name) {
		*what = "an empty name";
		return -1;
	}
	return 1;
}

/*
 * infiniband-diags' node name map.  A line that does not parse is skipped
 * with a warning naming the file and the line, as ibnetdiscover warns and
 * goes on: one typo in a map that every run reads must not stop every
 * health check.  A file in which no line parses is not a map at all: that
 * is an error (a map that silently names nothing would mislead).
 */
int rd_fab_name_map(struct rd_fab *fab, const char *path, int timeout_ms, struct rd_warnings *w,
		    char *why, size_t why_len)
{
	struct rd_infile_limits lim = {
		.max_bytes = 16u << 20, .max_line = 1024, .max_lines = 200000, .timeout_ms = timeout_ms,
	};
	struct rd_warnings skipped = { { 0 } };	/* said only if the file is a map at all */
	struct rd_infile f;
	size_t good = 0, bad = 0, first_bad = 0;
	const char *first_what = "";
	char *line;
	size_t len;
	int ret;

	ret = rd_infile_open(&f, path, &lim, why, why_len);
	if (ret)
		return ret;
	while ((ret = rd_infile_line(&f, &line, &len, why, why_len)) == 1) {
		unsigned long long guid = 0;
		const char *what = "";
		char *name = NULL;
		int r = name_map_line(line, &guid, &name, &what);

		if (r < 0) {
			if (!bad++) {
				first_bad = f.lineno;
				first_what = what;
			}
			if (bad <= NAME_MAP_WARN_LINES)
				rd_warn(&skipped, "node name map %s: line %zu: %s: skipped", path, f.lineno,
					what);
			continue;
		}
		if (r == 0)
			continue;
		good++;
		for (size_t i = 0; i < fab->n_nodes; i++)
			if (fab->nodes[i].guid == guid)
				rd_strlcpy(fab->nodes[i].name, name, sizeof(fab->nodes[i].name));
	}
	rd_infile_close(&f);
	if (ret >= 0 && bad && !good) {
		snprintf(why, why_len, "not a node name map: no line is 'GUID name' (line %zu: %s)",
			 first_bad, first_what);
		ret = -EINVAL;
	}
	if (ret >= 0) {
		for (size_t i = 0; i < skipped.msgs.n; i++)
			rd_warn(w, "%s", skipped.msgs.v[i]);
		if (bad > NAME_MAP_WARN_LINES)
			rd_warn(w, "node name map %s: %zu more malformed lines skipped", path,
				bad - NAME_MAP_WARN_LINES);
	}
	rd_warnings_free(&skipped);
	return ret < 0 ? ret : 0;
}

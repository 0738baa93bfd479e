// SPDX-License-Identifier: MIT
/*
 * The switches' unicast linear forwarding tables: read in a sweep (SMP
 * LinearForwardingTable, 64 LIDs a block, blocks up to SwitchInfo's
 * LinearFDBTop, many in flight), and kept in a saved fabric after
 * libibnetdisc's cache, where its own readers (iblinkinfo --load-cache)
 * stop: a section of our own, "RDLFTv1\n", the number of tables, then per
 * switch its node GUID, LinearFDBTop, the blocks lost when it was read and
 * one port byte per LID 0..top (host byte order, as the cache).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabapi.h"
#include "fabint.h"

#define LFT_BLOCK 64

static const char lft_magic[8] = { 'R', 'D', 'L', 'F', 'T', 'v', '1', '\n' };

static void lft_got(struct rd_fab *fab, const struct rd_fab_mad_req *r, const uint8_t *data, void *arg)
{
	struct rd_fab_node *n = &fab->nodes[r->node];
	size_t first = (size_t)r->mod * LFT_BLOCK, k;

	(void)arg;
	for (k = 0; k < LFT_BLOCK && first + k <= n->lft_top; k++)
		n->lft[first + k] = data[k];
}

static void lft_lost(struct rd_fab *fab, const struct rd_fab_mad_req *r, bool timed_out, void *arg)
{
	(void)timed_out, (void)arg;
	fab->nodes[r->node].lft_lost++;
}

/* A switch worth asking: one with a LID to ask at and a table the SM set up. */
static bool has_table(const struct rd_fab_node *n)
{
	return n->type == RD_FAB_SWITCH && n->lid && n->lft_top && n->ports[0].has_info;
}

RD_GCC_LEAK_FP_BEGIN	/* each table is kept in its node, freed by rd_fab_free */
void rd_fab_read_lfts(struct rd_fab *fab, struct ibmad_port *mp, unsigned int timeout, unsigned int retries)
{
	struct rd_fab_mad_kind k = { IB_SMI_CLASS, IB_ATTR_LINEARFORWTBL, "LinearForwardingTable",
				     lft_got, lft_lost, NULL };
	struct rd_fab_mad_req *v;
	size_t n = 0;

	for (size_t i = 0; i < fab->n_nodes; i++) {
		struct rd_fab_node *nd = &fab->nodes[i];

		if (!has_table(nd))
			continue;
		nd->lft = malloc((size_t)nd->lft_top + 1);
		if (!nd->lft) {
			nd->lft_lost = (unsigned int)nd->lft_top / LFT_BLOCK + 1;
			continue;
		}
		memset(nd->lft, RD_FAB_NO_PORT, (size_t)nd->lft_top + 1);
		n += (size_t)nd->lft_top / LFT_BLOCK + 1;
	}
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v) {
		fab->mad_fail += (unsigned int)n;
		for (size_t i = 0; i < fab->n_nodes; i++)
			if (fab->nodes[i].lft)
				fab->nodes[i].lft_lost = (unsigned int)fab->nodes[i].lft_top / LFT_BLOCK + 1;
		return;
	}
	n = 0;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *nd = &fab->nodes[i];

		if (!nd->lft)
			continue;
		for (unsigned int b = 0; b <= (unsigned int)nd->lft_top / LFT_BLOCK; b++)
			v[n++] = (struct rd_fab_mad_req){ (int)i, 0, b, 0, 0 };
	}
	rd_fab_mad_window(fab, mp, &k, v, n, timeout, retries);
	free(v);
}

RD_GCC_LEAK_FP_END

int rd_fab_lft_write(const struct rd_fab *fab, FILE *fp)
{
	uint32_t count = 0;

	for (size_t i = 0; i < fab->n_nodes; i++)
		count += fab->nodes[i].lft != NULL;
	if (fwrite(lft_magic, sizeof(lft_magic), 1, fp) != 1 || fwrite(&count, sizeof(count), 1, fp) != 1)
		return -EIO;
	for (size_t i = 0; i < fab->n_nodes; i++) {
		const struct rd_fab_node *n = &fab->nodes[i];
		uint16_t top = n->lft_top, lost = (uint16_t)(n->lft_lost > 0xffff ? 0xffff : n->lft_lost);

		if (!n->lft)
			continue;
		if (fwrite(&n->guid, sizeof(n->guid), 1, fp) != 1 || fwrite(&top, sizeof(top), 1, fp) != 1 ||
		    fwrite(&lost, sizeof(lost), 1, fp) != 1 ||
		    fwrite(n->lft, (size_t)top + 1, 1, fp) != 1)
			return -EIO;
	}
	return 0;
}

bool rd_fab_lft_present(const unsigned char *d, size_t len)
{
	return len >= sizeof(lft_magic) && memcmp(d, lft_magic, sizeof(lft_magic)) == 0;
}

int rd_fab_lft_parse(struct rd_fab *fab, const unsigned char *d, size_t len, char *why, size_t why_len)
{
	size_t off = sizeof(lft_magic) + 4;
	uint32_t count;

	if (!rd_fab_lft_present(d, len) || len < off) {
		snprintf(why, why_len, "a damaged fabric cache: %zu bytes after the port records that "
			 "are not a forwarding-table section", len);
		return -EINVAL;
	}
	memcpy(&count, d + sizeof(lft_magic), sizeof(count));
	for (uint32_t i = 0; i < count; i++) {
		uint64_t guid;
		uint16_t top, lost;
		int node;
		struct rd_fab_node *n;

		if (len - off < 12) {
			snprintf(why, why_len, "a damaged fabric cache: its forwarding tables end early "
				 "(%u of %u)", i, count);
			return -EINVAL;
		}
		memcpy(&guid, d + off, 8);
		memcpy(&top, d + off + 8, 2);
		memcpy(&lost, d + off + 10, 2);
		off += 12;
		node = rd_fab_node_by_guid(fab, guid);
		if (node < 0 || fab->nodes[node].type != RD_FAB_SWITCH || top > RD_FAB_MAX_UCAST_LID ||
		    fab->nodes[node].lft) {
			snprintf(why, why_len, "a damaged fabric cache: a forwarding table for 0x%016llx, "
				 "%s", (unsigned long long)guid, node < 0 ? "which is not in it" :
				 fab->nodes[node].type != RD_FAB_SWITCH ? "which is not a switch" :
				 fab->nodes[node].lft ? "twice" : "with a LinearFDBTop past the unicast LIDs");
			return -EINVAL;
		}
		if (len - off < (size_t)top + 1) {
			snprintf(why, why_len, "a damaged fabric cache: the forwarding table of 0x%016llx "
				 "ends early", (unsigned long long)guid);
			return -EINVAL;
		}
		n = &fab->nodes[node];
		n->lft = malloc((size_t)top + 1);
		if (!n->lft) {
			snprintf(why, why_len, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		memcpy(n->lft, d + off, (size_t)top + 1);
		n->lft_top = top;
		n->lft_lost = lost;
		off += (size_t)top + 1;
	}
	if (off != len) {
		snprintf(why, why_len, "a damaged fabric cache: %zu bytes after its forwarding tables",
			 len - off);
		return -EINVAL;
	}
	fab->have_routes = true;
	return 0;
}

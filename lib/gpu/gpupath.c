// SPDX-License-Identifier: MIT
/*
 * NCCL's paths on the graph: a breadth-first search from each GPU, CPU, NIC
 * and NET node typing every path as NCCL does (PCI to PCI is PXB, into or
 * out of a CPU PHB, CPU to CPU SYS, one GPU between two over NVLink NVB;
 * the worst hop wins, then the widest, then the shortest); nvidia-smi's
 * names for them and the PCI functions along one.  The decisions on them
 * are gpudecide.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputopo.h"

#define LOC_BW 5000.0

static int base_index(const struct rd_gpu_topo *t, int node)
{
	for (size_t b = 0; b < t->nbases; b++)
		if (t->bases[b] == node)
			return (int)b;
	return -1;
}

const struct rd_tpath *rd_gpu_path(const struct rd_gpu_topo *t, int a, int b)
{
	int bi = a >= 0 ? base_index(t, b) : -1;

	return bi < 0 ? NULL : &t->paths[(size_t)a * t->nbases + (size_t)bi];
}

static int max_i(int a, int b)
{
	return a > b ? a : b;
}

/*
 * mark[n] == *stamp: n is in next already (one stamp a level, never
 * reused: no clearing between levels or bases).
 */
static void bfs(struct rd_gpu_topo *t, size_t bi, int *cur, int *next, unsigned int *mark,
		unsigned int *stamp)
{
	int base = t->bases[bi];
	size_t ncur = 1;
	struct rd_tpath *bp = &t->paths[(size_t)base * t->nbases + bi];

	*bp = (struct rd_tpath){ .type = RD_PATH_LOC, .bw = LOC_BW, .next = -1, .hops = 0 };
	cur[0] = base;
	while (ncur) {
		size_t nnext = 0;

		++*stamp;

		for (size_t k = 0; k < ncur; k++) {
			const struct rd_tnode *node = &t->nodes[cur[k]];
			const struct rd_tpath *path = &t->paths[(size_t)cur[k] * t->nbases + bi];

			for (size_t l = 0; l < node->nlinks; l++) {
				const struct rd_tlink *link = &node->links[l];
				const struct rd_tnode *rem = &t->nodes[link->rem];
				struct rd_tpath *rp = &t->paths[(size_t)link->rem * t->nbases + bi];
				double bw = path->bw < link->bw ? path->bw : link->bw;
				int type = link->type == RD_PATH_NET ? RD_PATH_LOC : link->type;

				/* A GPU is a hop only between two GPUs over NVLink, once (NVB). */
				if (node->type == RD_TN_GPU && cur[k] != base &&
				    (link->type != RD_PATH_NVL || rem->type != RD_TN_GPU || path->hops > 1))
					continue;
				if (node->type == RD_TN_PCI && rem->type == RD_TN_PCI)
					type = RD_PATH_PXB;
				if (link->type == RD_PATH_PIX &&
				    (node->type == RD_TN_CPU || rem->type == RD_TN_CPU))
					type = RD_PATH_PHB;
				if (node->type == RD_TN_GPU && cur[k] != base && path->type == RD_PATH_NVL &&
				    type == RD_PATH_NVL)
					type = RD_PATH_NVB;
				type = max_i(path->type, type);
				if (type < rp->type || (type == rp->type && rp->bw < bw) ||
				    (type == rp->type && rp->bw == bw && rp->hops > path->hops + 1)) {
					rp->type = type;
					rp->bw = bw;
					rp->next = cur[k];
					rp->hops = path->hops + 1;
					if (mark[link->rem] != *stamp) {
						mark[link->rem] = *stamp;
						next[nnext++] = link->rem;
					}
				}
			}
		}
		memcpy(cur, next, nnext * sizeof(*cur));
		ncur = nnext;
	}
}

int rd_gpu_paths(struct rd_gpu_topo *t)
{
	int *cur, *next;
	unsigned int *mark, stamp = 0;

	t->nbases = 0;
	t->bases = calloc(t->nnodes ? t->nnodes : 1, sizeof(*t->bases));
	if (!t->bases)
		return -ENOMEM;
	for (size_t i = 0; i < t->nnodes; i++) {
		enum rd_tn_type ty = t->nodes[i].type;

		if (ty == RD_TN_GPU || ty == RD_TN_CPU || ty == RD_TN_NIC || ty == RD_TN_NET)
			t->bases[t->nbases++] = (int)i;
	}
	t->paths = calloc(t->nnodes * t->nbases + 1, sizeof(*t->paths));
	cur = calloc(t->nnodes + 1, sizeof(*cur));
	next = calloc(t->nnodes + 1, sizeof(*next));
	mark = calloc(t->nnodes + 1, sizeof(*mark));
	if (!t->paths || !cur || !next || !mark) {
		free(cur);
		free(next);
		free(mark);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nnodes * t->nbases; i++)
		t->paths[i] = (struct rd_tpath){ .type = RD_PATH_DIS, .bw = 0, .next = -1 };
	for (size_t b = 0; b < t->nbases; b++)
		bfs(t, b, cur, next, mark, &stamp);
	free(cur);
	free(next);
	free(mark);
	return 0;
}

const char *rd_gpu_smi_name(const struct rd_gpu_topo *t, int gpu_node, int other_node, int path)
{
	int a = t->nodes[gpu_node].pci, b = t->nodes[other_node].pci;

	if (gpu_node == other_node)
		return "X";
	if (t->from_xml) {
		/* nvidia-smi never reads NCCL_TOPO_FILE: it names the PCI tree this node shows. */
		const struct rd_pci_fn *fa, *fb;
		int meet, chain[64];

		if (a < 0 || b < 0)
			return "-";
		fa = &t->pci.v[a];
		fb = &t->pci.v[b];
		if (strcmp(fa->host_bridge, fb->host_bridge) != 0)
			return fa->numa >= 0 && fb->numa >= 0 && fa->numa != fb->numa ? "SYS" : "NODE";
		meet = rd_pci_common(&t->pci, a, b);
		if (meet < 0)
			return "PHB";
		return rd_gpu_pci_chain(t, a, b, chain, RD_ARRAY_SIZE(chain)) <= 3 ? "PIX" : "PXB";
	}
	if (path == RD_PATH_PHB || path == RD_PATH_P2C) {
		/* nvidia-smi: PHB within one host bridge, NODE between host bridges of a NUMA node. */
		if (a >= 0 && b >= 0 && strcmp(t->pci.v[a].host_bridge, t->pci.v[b].host_bridge) == 0)
			return "PHB";
		return "NODE";
	}
	if ((path == RD_PATH_PIX || path == RD_PATH_PXB) && a >= 0 && b >= 0) {
		/* nvidia-smi counts the bridges NCCL flattens: one switch is three (down, up, down). */
		int chain[64];

		return rd_gpu_pci_chain(t, a, b, chain, RD_ARRAY_SIZE(chain)) <= 3 ? "PIX" : "PXB";
	}
	return rd_path_name(path);
}

size_t rd_gpu_pci_chain(const struct rd_gpu_topo *t, int a, int b, int *out, size_t max)
{
	int meet = rd_pci_common(&t->pci, a, b);
	int down[64];
	size_t n = 0, nd = 0;

	if (a < 0 || b < 0)
		return 0;
	for (int p = t->pci.v[a].parent; p >= 0 && p != meet && n < max; p = t->pci.v[p].parent)
		out[n++] = p;
	if (meet >= 0 && n < max)
		out[n++] = meet;
	for (int p = t->pci.v[b].parent; p >= 0 && p != meet && nd < RD_ARRAY_SIZE(down); p = t->pci.v[p].parent)
		down[nd++] = p;
	while (nd && n < max)
		out[n++] = down[--nd];
	return n;
}

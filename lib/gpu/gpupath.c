// SPDX-License-Identifier: MIT
/*
 * NCCL's paths and decisions on the graph: a breadth-first search from each
 * GPU, CPU, NIC and NET node typing every path as NCCL does (PCI to PCI is
 * PXB, into or out of a CPU PHB, CPU to CPU SYS; the worst hop wins, then
 * the widest, then the shortest), the C2C rule (P2C), GDR per GPU/NIC pair
 * with its level, rerouting through the CPU where GDR is off, and the NIC
 * each GPU gets.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
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

static void bfs(struct rd_gpu_topo *t, size_t bi, int *cur, int *next)
{
	int base = t->bases[bi];
	size_t ncur = 1;
	struct rd_tpath *bp = &t->paths[(size_t)base * t->nbases + bi];

	*bp = (struct rd_tpath){ .type = RD_PATH_LOC, .bw = LOC_BW, .next = -1, .hops = 0 };
	cur[0] = base;
	while (ncur) {
		size_t nnext = 0;

		for (size_t k = 0; k < ncur; k++) {
			const struct rd_tnode *node = &t->nodes[cur[k]];
			const struct rd_tpath *path = &t->paths[(size_t)cur[k] * t->nbases + bi];

			for (size_t l = 0; l < node->nlinks; l++) {
				const struct rd_tlink *link = &node->links[l];
				const struct rd_tnode *rem = &t->nodes[link->rem];
				struct rd_tpath *rp = &t->paths[(size_t)link->rem * t->nbases + bi];
				double bw = path->bw < link->bw ? path->bw : link->bw;
				int type = link->type == RD_PATH_NET ? RD_PATH_LOC : link->type;

				/* A GPU is an end, never a hop (NCCL routes GPU to GPU over NVLink only). */
				if (node->type == RD_TN_GPU && cur[k] != base)
					continue;
				if (node->type == RD_TN_PCI && rem->type == RD_TN_PCI)
					type = RD_PATH_PXB;
				if (link->type == RD_PATH_PIX &&
				    (node->type == RD_TN_CPU || rem->type == RD_TN_CPU))
					type = RD_PATH_PHB;
				type = max_i(path->type, type);
				if (type < rp->type || (type == rp->type && rp->bw < bw) ||
				    (type == rp->type && rp->bw == bw && rp->hops > path->hops + 1)) {
					size_t i;

					rp->type = type;
					rp->bw = bw;
					rp->next = cur[k];
					rp->hops = path->hops + 1;
					for (i = 0; i < nnext; i++)
						if (next[i] == link->rem)
							break;
					if (i == nnext)
						next[nnext++] = link->rem;
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
	if (!t->paths || !cur || !next) {
		free(cur);
		free(next);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nnodes * t->nbases; i++)
		t->paths[i] = (struct rd_tpath){ .type = RD_PATH_DIS, .bw = 0, .next = -1 };
	for (size_t b = 0; b < t->nbases; b++)
		bfs(t, b, cur, next);
	free(cur);
	free(next);
	return 0;
}

/* NCCL's mergePathType: a C2C hop and a PHB hop make P2C. */
static int merge_type(int a, int b)
{
	int mx = max_i(a, b), mn = a < b ? a : b;

	return mx == RD_PATH_PHB && mn == RD_PATH_C2C ? RD_PATH_P2C : mx;
}

struct pair {
	int type, topo;
	double bw;
	bool gdr;
	int distance;
};

static const struct rd_tpath *gp(const struct rd_gpu_topo *t, int a, int b)
{
	static const struct rd_tpath none = { .type = RD_PATH_DIS, .next = -1 };
	const struct rd_tpath *p = rd_gpu_path(t, a, b);

	return p ? p : &none;
}

/* ncclTopoGetLocal: the nets with the best bandwidth, then the best type. */
static size_t local_nets(const struct rd_gpu_topo *t, const struct pair *row, int *out)
{
	double maxbw = 0;
	int mintype = RD_PATH_DIS;
	size_t n = 0;

	for (size_t i = 0; i < t->nnets; i++) {
		if (t->nets[i].node < 0)
			continue;
		if (row[i].bw > maxbw || (row[i].bw == maxbw && row[i].type < mintype)) {
			maxbw = row[i].bw;
			mintype = row[i].type;
			n = 0;
		}
		if (row[i].bw == maxbw && row[i].type == mintype && row[i].type < RD_PATH_DIS)
			out[n++] = (int)i;
	}
	return n;
}

static int mirror_bits(int val, int pow2)
{
	int m = 0;

	for (int b = 1, mb = pow2 >> 1; b < pow2; b <<= 1, mb >>= 1)
		if (val & b)
			m |= mb;
	return m;
}

static void gdr_check(const struct rd_gpu_topo *t, const struct rd_gpu *g, const struct rd_gpu_net *n,
		      struct pair *p)
{
	const struct rd_tpath *gc = g->cpu >= 0 ? gp(t, g->node, g->cpu) : NULL;

	p->gdr = false;
	p->distance = p->type;
	/* ncclTopoCheckGdr: the NIC and the GPU must both support it (gdr="0" in a file says not). */
	if (strcmp(t->backend, "none") == 0 || g->gdr_unsupported || n->gdr_unsupported)
		return;
	/* 2.26: a C2C GPU's CPU-attached NIC counts as C2C when NCCL_NET_GDR_C2C=1. */
	if (t->conf.version == 226 && rd_nccl_gdr_c2c(&t->conf) && p->type == RD_PATH_PHB && gc &&
	    gc->type == RD_PATH_C2C)
		p->distance = RD_PATH_C2C;
	p->gdr = p->distance <= rd_nccl_gdr_level(&t->conf);
}

static void add_note(struct rd_gpu *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct rd_gpu *g, const char *fmt, ...)
{
	char buf[240];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(buf, sizeof(buf), fmt, ap);	/* truncation is fine */
	va_end(ap);
	(void)rd_strlist_add_unique(&g->notes, buf);
}

static void link_note(struct rd_gpu_topo *t, struct rd_gpu *g, int f, const char *what)
{
	const struct rd_pci_fn *fn = &t->pci.v[f];
	double cap_gts;
	unsigned int cap_width;

	if (rd_pci_link_degraded(&t->pci, (size_t)f, NULL, &cap_gts, &cap_width))
		add_note(g, "%s %s link runs x%u %s, capable of x%u %g GT/s (both ends)", what, fn->bdf,
			 fn->cur_width, fn->cur_speed, cap_width, cap_gts);
}

static void iommu_note(struct rd_gpu_topo *t, struct rd_gpu *g, int f, const char *what)
{
	const struct rd_pci_fn *fn = &t->pci.v[f];

	if (fn->iommu_type[0] && strcmp(fn->iommu_type, "identity") != 0 &&
	    strcmp(fn->iommu_type, "blocked") != 0)
		add_note(g, "IOMMU translates the %s's DMA (group %d, %s): peer traffic pays for "
			 "translation; boot with iommu=pt", what, fn->iommu_group, fn->iommu_type);
}

/* What slows GDR on the chosen path that NCCL's rules do not weigh. */
static void judge_chain(struct rd_gpu_topo *t, struct rd_gpu *g, struct rd_warnings *w)
{
	const struct rd_gpu_net *n = &t->nets[g->net];
	int nicf = t->nodes[n->nic_node].pci;
	int chain[64];
	size_t len;

	if (g->pci < 0 || nicf < 0)
		return;
	link_note(t, g, g->pci, "GPU");
	link_note(t, g, nicf, "NIC");
	iommu_note(t, g, g->pci, "GPU");
	iommu_note(t, g, nicf, "NIC");
	len = rd_gpu_pci_chain(t, g->pci, nicf, chain, RD_ARRAY_SIZE(chain));
	for (size_t i = 0; i < len; i++) {
		const struct rd_pci_fn *fn = &t->pci.v[chain[i]];

		rd_pci_facts(&t->pci, (size_t)chain[i], w);
		if (fn->acs == RD_ACS_PRESENT && (fn->acs_ctrl & (RD_ACS_RR | RD_ACS_CR)) &&
		    g->path_topo <= RD_PATH_PXB) {
			char bits[40];

			add_note(g, "ACS on %s redirects peer-to-peer (%s): GDR traffic goes up to the root "
				 "complex; clear RR/CR on the switch ports (setpci) or disable ACS in the BIOS",
				 fn->bdf, rd_acs_bits(fn->acs_ctrl & (RD_ACS_RR | RD_ACS_CR), bits));
		}
		link_note(t, g, chain[i], "bridge");
	}
}

/* A nearer NIC that NCCL cannot use: a port down, or excluded by NCCL_IB_HCA. */
static void nearer_unused(struct rd_gpu_topo *t, struct rd_gpu *g)
{
	int best = g->net >= 0 ? g->path_topo : RD_PATH_DIS;

	for (size_t i = 0; i < t->nnets; i++) {
		const struct rd_gpu_net *n = &t->nets[i];
		const struct rd_tpath *p;

		if (n->node >= 0 || n->nic_node < 0)
			continue;
		p = gp(t, g->node, n->nic_node);
		if (p->type >= best)
			continue;
		if (!n->admitted)
			add_note(g, "%s port %u (%s) is nearer but NCCL_IB_HCA excludes it", n->dev, n->port,
				 rd_path_name(p->type));
		else
			add_note(g, "%s port %u (%s) is nearer but not usable: %s, link layer %s", n->dev,
				 n->port, rd_path_name(p->type), n->state, n->link_layer);
	}
}

static void explain(struct rd_gpu_topo *t, struct rd_gpu *g, const struct pair *p)
{
	int level = rd_nccl_gdr_level(&t->conf);
	const char *lsrc = t->conf.src_gdr_level ? "NCCL_NET_GDR_LEVEL" : "NCCL's default level";

	if (g->net < 0 || !p) {
		snprintf(g->why, sizeof(g->why), "%s", t->nnets ?
			 "no active RDMA port NCCL may use: NCCL falls back to sockets" :
			 "no RDMA device: NCCL falls back to sockets");
		return;
	}
	if (strcmp(t->backend, "none") == 0) {
		snprintf(g->why, sizeof(g->why), "%s", t->backend_why);
		return;
	}
	if (g->gdr_unsupported || t->nets[g->net].gdr_unsupported) {
		snprintf(g->why, sizeof(g->why), "the topology file says the %s does not support GDR "
			 "(gdr=\"0\"): data is staged in host memory", g->gdr_unsupported ? "GPU" : "NIC");
		return;
	}
	if (!p->gdr) {
		snprintf(g->why, sizeof(g->why), "%s > %s (%s): data is staged in host memory",
			 rd_path_name(p->distance), rd_path_name(level), lsrc);
		return;
	}
	snprintf(g->why, sizeof(g->why), "%s <= %s (%s), %s%s", rd_path_name(p->distance),
		 rd_path_name(level), lsrc, t->backend,
		 g->gdr_pci_mode ? "; C2C GPU reaches this NIC over PCIe (PCI mode)" : "");
}

/* Every GPU and NIC straight on a host bridge, without NUMA: a hypervisor's flat tree. */
static bool flat_tree(const struct rd_gpu_topo *t)
{
	if (t->from_xml || !t->ngpus)
		return false;
	for (size_t g = 0; g < t->ngpus; g++)
		if (t->gpus[g].pci < 0 || t->pci.v[t->gpus[g].pci].parent >= 0 || t->gpus[g].numa >= 0)
			return false;
	return true;
}

void rd_gpu_decide(struct rd_gpu_topo *t, struct rd_warnings *w)
{
	size_t ng = t->ngpus, nn = t->nnets;
	struct pair *pairs = calloc(ng * (nn ? nn : 1) + 1, sizeof(*pairs));
	int *loc = calloc(nn + ng + 1, sizeof(*loc));

	if (!pairs || !loc) {
		free(pairs);
		free(loc);
		return;
	}
	/* The paths as built, then the C2C rule on each GPU's best nets (NCCL >= 2.27). */
	for (size_t g = 0; g < ng; g++) {
		struct rd_gpu *gpu = &t->gpus[g];
		struct pair *row = &pairs[g * nn];
		size_t nloc;

		for (size_t i = 0; i < nn; i++) {
			const struct rd_tpath *p = t->nets[i].node >= 0 ? gp(t, gpu->node, t->nets[i].node) : NULL;

			row[i].type = row[i].topo = p ? p->type : RD_PATH_DIS;
			row[i].bw = p ? p->bw : 0;
		}
		if (t->conf.version < 227 || gpu->cpu < 0)
			continue;
		nloc = local_nets(t, row, loc);
		for (size_t k = 0; k < nloc; k++) {
			int i = loc[k];

			if (merge_type(gp(t, gpu->node, gpu->cpu)->type,
				       gp(t, t->nets[i].node, gpu->cpu)->type) == RD_PATH_P2C && row[i].type > RD_PATH_P2C)
				row[i].type = row[i].topo = RD_PATH_P2C;
		}
	}
	/* GDR per pair; where it is off and the path avoids the CPU, NCCL routes it through the CPU. */
	for (size_t g = 0; g < ng; g++) {
		struct rd_gpu *gpu = &t->gpus[g];

		for (size_t i = 0; i < nn; i++) {
			struct pair *p = &pairs[g * nn + i];

			if (t->nets[i].node < 0)
				continue;
			gdr_check(t, gpu, &t->nets[i], p);
			if (p->type < RD_PATH_PHB && !p->gdr && gpu->cpu >= 0) {
				const struct rd_tpath *a = gp(t, gpu->node, gpu->cpu);
				const struct rd_tpath *b = gp(t, t->nets[i].node, gpu->cpu);

				p->type = merge_type(a->type, b->type);
				p->bw = a->bw < b->bw ? a->bw : b->bw;
			}
		}
	}
	/* The NIC: the best nets, shared among the GPUs that are best to the first of them. */
	for (size_t g = 0; g < ng; g++) {
		struct rd_gpu *gpu = &t->gpus[g];
		size_t nloc = local_nets(t, &pairs[g * nn], loc), ngl = 0;
		int pick;

		if (!nloc) {
			gpu->path = gpu->path_topo = RD_PATH_DIS;
			explain(t, gpu, NULL);
			nearer_unused(t, gpu);
			continue;
		}
		/* The GPUs whose best path goes to that first net. */
		{
			double maxbw = 0;
			int mintype = RD_PATH_DIS;

			for (size_t h = 0; h < ng; h++) {
				const struct pair *q = &pairs[h * nn + (size_t)loc[0]];

				if (q->bw > maxbw || (q->bw == maxbw && q->type < mintype)) {
					maxbw = q->bw;
					mintype = q->type;
					ngl = 0;
				}
				if (q->bw == maxbw && q->type == mintype)
					ngl++;
			}
		}
		pick = (int)(gpu->index % (ngl ? ngl : 1));
		if ((nloc & (nloc - 1)) == 0)
			pick = mirror_bits(pick, (int)nloc);
		gpu->net = loc[(size_t)pick % nloc];
		{
			const struct pair *p = &pairs[g * nn + (size_t)gpu->net];

			gpu->path_topo = p->topo;
			gpu->path = p->type;
			gpu->bw = p->bw;
			gpu->gdr = p->gdr;
			gpu->gdr_pci_mode = p->gdr && gpu->c2c && p->distance != RD_PATH_P2C;
			explain(t, gpu, p);
		}
		judge_chain(t, gpu, w);
		nearer_unused(t, gpu);
	}
	if (flat_tree(t))
		for (size_t g = 0; g < ng; g++)
			add_note(&t->gpus[g], "the PCI tree is flat (a virtual machine): NCCL sees every NIC "
				 "through the host bridge; give it the provider's topology file "
				 "(NCCL_TOPO_FILE, --topo-xml)");
	free(pairs);
	free(loc);
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

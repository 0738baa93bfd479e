// SPDX-License-Identifier: MIT
/*
 * NCCL's decisions on the paths: the C2C rule (P2C), PXN through an
 * NVLink peer, GDR per GPU/NIC pair with its level, rerouting through the
 * CPU where GDR is off, the NIC each GPU gets, and the notes on what slows
 * GDR that NCCL does not weigh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputopo.h"

static int max_i(int a, int b)
{
	return a > b ? a : b;
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
	int via;			/* PXN: the peer GPU's index, else -1 */
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
		      struct pair *p, int via_type)
{
	const struct rd_tpath *gc = g->cpu >= 0 ? gp(t, g->node, g->cpu) : NULL;

	p->gdr = false;
	/* PXN: GDR is decided at the peer, on its own path to the NIC. */
	p->distance = p->via >= 0 ? via_type : p->type;
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

	rd_pci_iommu(&t->pci, (size_t)f);
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
		if (fn->acs == RD_CAP_PRESENT && (fn->acs_ctrl & (RD_ACS_RR | RD_ACS_CR)) &&
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
	snprintf(g->why, sizeof(g->why), "%s%s%s%s <= %s (%s), %s%s", p->via >= 0 ? "over NVLink to " : "",
		 p->via >= 0 ? t->gpus[p->via].name : "", p->via >= 0 ? " (PXN), its path " : "",
		 rd_path_name(p->distance), rd_path_name(level), lsrc, t->backend,
		 g->gdr_pci_mode ? "; C2C GPU reaches this NIC over PCIe (PCI mode)" : "");
}

/* Every GPU and NIC straight on a host bridge, without NUMA: a hypervisor's flat tree. */
enum rd_gpu_vm_view rd_gpu_vm_view(const struct rd_gpu_topo *t)
{
	bool flat = true, hidden = true;

	if (t->from_xml || !t->ngpus)
		return RD_VM_SHOWN;
	for (size_t g = 0; g < t->ngpus; g++) {
		const struct rd_gpu *gpu = &t->gpus[g];

		if (gpu->pci < 0 || t->pci.v[gpu->pci].parent >= 0 || gpu->numa >= 0)
			flat = false;
		if (gpu->net >= 0 && gpu->path_topo <= RD_PATH_PXB)
			hidden = false;
	}
	if (flat)
		return RD_VM_FLAT;
	return t->host.hypervisor && hidden ? RD_VM_HIDDEN : RD_VM_SHOWN;
}

/* The paths as built, then the C2C rule on each GPU's best nets (NCCL >= 2.27). */
static void init_pairs(struct rd_gpu_topo *t, struct pair *pairs, int *loc)
{
	size_t nn = t->nnets;

	for (size_t g = 0; g < t->ngpus; g++) {
		struct rd_gpu *gpu = &t->gpus[g];
		struct pair *row = &pairs[g * nn];
		size_t nloc;

		for (size_t i = 0; i < nn; i++) {
			const struct rd_tpath *p = t->nets[i].node >= 0 ? gp(t, gpu->node, t->nets[i].node) : NULL;

			row[i].type = row[i].topo = p ? p->type : RD_PATH_DIS;
			row[i].bw = p ? p->bw : 0;
			row[i].via = -1;
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
}

/* ncclTopoGetLocalNet for channel 0: the best nets, shared among the GPUs best to the first. */
static int pick_net(const struct rd_gpu_topo *t, const struct pair *pairs, size_t g, int *loc)
{
	size_t nn = t->nnets, nloc = local_nets(t, &pairs[g * nn], loc), ngl = 0;
	double maxbw = 0;
	int mintype = RD_PATH_DIS, pick;

	if (!nloc)
		return -1;
	for (size_t h = 0; h < t->ngpus; h++) {
		const struct pair *q = &pairs[h * nn + (size_t)loc[0]];

		if (q->bw > maxbw || (q->bw == maxbw && q->type < mintype)) {
			maxbw = q->bw;
			mintype = q->type;
			ngl = 0;
		}
		if (q->bw == maxbw && q->type == mintype)
			ngl++;
	}
	pick = (int)(t->gpus[g].index % (ngl ? ngl : 1));
	if ((nloc & (nloc - 1)) == 0)
		pick = mirror_bits(pick, (int)nloc);
	return loc[(size_t)pick % nloc];
}

/*
 * ncclTopoGetLocalGpu: of the GPUs nearest net i, the first that would pick
 * it (on channel 0; else the first that has it among its nearest); -1 none.
 */
static int local_gpu(const struct rd_gpu_topo *t, const struct pair *pairs, size_t i, int *loc)
{
	size_t nn = t->nnets;
	double maxbw = 0;
	int mintype = RD_PATH_DIS, spare = -1;

	for (size_t h = 0; h < t->ngpus; h++) {
		const struct pair *q = &pairs[h * nn + i];

		if (q->bw > maxbw || (q->bw == maxbw && q->type < mintype)) {
			maxbw = q->bw;
			mintype = q->type;
		}
	}
	for (size_t h = 0; h < t->ngpus && mintype < RD_PATH_DIS; h++) {
		const struct pair *q = &pairs[h * nn + i];
		size_t nloc;

		if (q->bw != maxbw || q->type != mintype)
			continue;
		if (pick_net(t, pairs, h, loc) == (int)i)
			return (int)h;
		nloc = local_nets(t, &pairs[h * nn], loc);
		for (size_t k = 0; k < nloc && spare < 0; k++)
			if (loc[k] == (int)i)
				spare = (int)h;
	}
	return spare;
}

/* PXN: the GPU's traffic to net i through peer, over NVLink, when NCCL's rule says so. */
static void try_pxn(struct rd_gpu_topo *t, struct pair *pairs, size_t g, int peer, size_t i)
{
	size_t nn = t->nnets;
	struct pair *p = &pairs[g * nn + i], q = pairs[(size_t)peer * nn + i];
	const struct rd_tpath *link = gp(t, t->gpus[peer].node, t->gpus[g].node);
	const struct rd_tpath *to_peer = gp(t, t->gpus[g].node, t->gpus[peer].node);
	struct rd_pxn_case c;

	gdr_check(t, &t->gpus[peer], &t->nets[i], &q, q.via >= 0 ? pairs[(size_t)q.via * nn + i].type : 0);
	c = (struct rd_pxn_case){ .gpu_type = p->type, .gpu_bw = p->bw, .peer_type = q.type,
				  .peer_bw = q.bw, .peer_gdr = q.gdr, .peer_link = link->type };
	if (!rd_nccl_pxn_through(&t->conf, &c))
		return;
	p->type = p->topo = RD_PATH_PXN;
	p->bw = to_peer->bw < q.bw ? to_peer->bw : q.bw;
	p->via = peer;
}

/* Per net, as NCCL: PXN for each GPU, then GDR; where GDR is off and the path avoids the CPU, through it. */
static void route_nets(struct rd_gpu_topo *t, struct pair *pairs, int *loc)
{
	size_t nn = t->nnets;

	for (size_t i = 0; i < nn; i++) {
		if (t->nets[i].node < 0)
			continue;
		for (size_t g = 0; g < t->ngpus; g++) {
			struct rd_gpu *gpu = &t->gpus[g];
			struct pair *p = &pairs[g * nn + i];
			int peer = rd_nccl_pxn(&t->conf) ? local_gpu(t, pairs, i, loc) : -1;

			if (peer >= 0 && (size_t)peer != g)
				try_pxn(t, pairs, g, peer, i);
			gdr_check(t, gpu, &t->nets[i], p, p->via >= 0 ? pairs[(size_t)p->via * nn + i].type : 0);
			if (p->type < RD_PATH_PHB && !p->gdr && gpu->cpu >= 0) {
				const struct rd_tpath *a = gp(t, gpu->node, gpu->cpu);
				const struct rd_tpath *b = gp(t, t->nets[i].node, gpu->cpu);

				p->type = merge_type(a->type, b->type);
				p->bw = a->bw < b->bw ? a->bw : b->bw;
				p->via = -1;
			}
		}
	}
}

static void settle(struct rd_gpu_topo *t, struct rd_gpu *gpu, const struct pair *p, struct rd_warnings *w)
{
	gpu->path_topo = p->topo;
	gpu->path = p->type;
	gpu->bw = p->bw;
	gpu->gdr = p->gdr;
	gpu->gdr_pci_mode = p->gdr && gpu->c2c && p->distance != RD_PATH_P2C;
	gpu->pxn_via = p->via;
	explain(t, gpu, p);
	/* A PXN path's PCI part is the peer's: its notes are on the peer's row. */
	if (p->via < 0)
		judge_chain(t, gpu, w);
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
	init_pairs(t, pairs, loc);
	route_nets(t, pairs, loc);
	/* The NIC: the best nets, shared among the GPUs that are best to the first of them. */
	for (size_t g = 0; g < ng; g++) {
		struct rd_gpu *gpu = &t->gpus[g];

		gpu->net = pick_net(t, pairs, g, loc);
		if (gpu->net < 0) {
			gpu->path = gpu->path_topo = RD_PATH_DIS;
			explain(t, gpu, NULL);
		} else {
			settle(t, gpu, &pairs[g * nn + (size_t)gpu->net], w);
		}
		nearer_unused(t, gpu);
	}
	{
		enum rd_gpu_vm_view view = rd_gpu_vm_view(t);
		const char *vm_note = view == RD_VM_FLAT ?
			"the PCI tree is flat (a virtual machine): NCCL sees every NIC through the host bridge; "
			"give it the provider's topology file (NCCL_TOPO_FILE, --topo-xml)" :
			"a virtual machine whose PCI tree shows no switch between a GPU and a NIC: NCCL sees "
			"every NIC through a host bridge; give it the provider's topology file "
			"(NCCL_TOPO_FILE, --topo-xml)";

		for (size_t g = 0; view != RD_VM_SHOWN && g < ng; g++)
			add_note(&t->gpus[g], "%s", vm_note);
	}
	free(pairs);
	free(loc);
}

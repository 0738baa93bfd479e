// SPDX-License-Identifier: MIT
/*
 * NCCL's topology graph from sysfs: GPUs and NIC functions hung on their
 * PCI switches (a switch is the node of its upstream port, found by going
 * up two levels from a function, as NCCL does) and on CPU nodes per NUMA
 * node where the path reaches a host bridge; NET nodes per active port.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputopo.h"

#define LOC_BW 5000.0

static int find_node(const struct rd_gpu_topo *t, enum rd_tn_type type, const char *id)
{
	for (size_t i = 0; i < t->nnodes; i++)
		if (t->nodes[i].type == type && strcmp(t->nodes[i].id, id) == 0)
			return (int)i;
	return -1;
}

static int cpu_node(struct rd_gpu_topo *t, int numa)
{
	char id[24];
	int n;

	snprintf(id, sizeof(id), "numa%d", numa);
	n = find_node(t, RD_TN_CPU, id);
	if (n < 0) {
		n = rd_gpu_node_add(t, RD_TN_CPU, id, -1);
		if (n >= 0)
			t->nodes[n].numa = numa;
	}
	return n;
}

/* NCCL's per-lane figure for a link speed string, in 100 Mb/s (Gen3 when unknown). */
static double lane_speed(const char *s)
{
	double gts = rd_pci_speed_gts(s);

	return gts >= 64 ? 480 : gts >= 32 ? 240 : gts >= 16 ? 120 : gts >= 8 ? 60 :
	       gts >= 5 ? 30 : gts >= 2.5 ? 15 : 60;
}

/*
 * The link from function f up to what is above it, as NCCL reckons it: the
 * lesser of the function's and its port's maximum speed and width (a width
 * it cannot read counts as x16).
 */
static double up_bw(struct rd_gpu_topo *t, int f, struct rd_warnings *w)
{
	struct rd_pci_fn *fn = &t->pci.v[f], *port = NULL;
	double dev_gts, port_gts = 1e9;
	const char *speed;
	unsigned int width;

	rd_pci_facts(&t->pci, (size_t)f, w);
	dev_gts = fn->max_speed[0] && rd_pci_speed_gts(fn->max_speed) ? rd_pci_speed_gts(fn->max_speed) : 1e9;
	width = fn->link_known ? fn->max_width : 0;
	if (fn->parent >= 0) {
		port = &t->pci.v[fn->parent];
		rd_pci_facts(&t->pci, (size_t)fn->parent, w);
		if (port->max_speed[0] && rd_pci_speed_gts(port->max_speed))
			port_gts = rd_pci_speed_gts(port->max_speed);
	}
	/* "../max_link_width" above a root-complex function is the host bridge's: none, 0. */
	if (!port || !port->link_known)
		width = 0;
	else if (port->max_width < width)
		width = port->max_width;
	speed = port && port_gts < dev_gts ? port->max_speed : fn->max_speed;
	if (width == 0)
		width = 16;
	return width * lane_speed(speed) / 80.0;
}

/* The CPU node a function's chain ends at: NUMA node of the last function before the host bridge. */
static int cpu_of(struct rd_gpu_topo *t, int f, struct rd_warnings *w)
{
	for (int p = f, hops = 0; p >= 0 && hops < 64; hops++) {
		int par = t->pci.v[p].parent;

		if (par < 0 || t->pci.v[par].parent < 0) {
			rd_pci_facts(&t->pci, (size_t)p, w);
			return cpu_node(t, t->pci.v[p].numa);
		}
		p = t->pci.v[par].parent;
	}
	return -1;
}

/* The graph node above function f: a switch's upstream port two levels up, else its CPU. */
static int attach(struct rd_gpu_topo *t, int f, int self, int *cpu, struct rd_warnings *w)
{
	int first = -1;

	*cpu = cpu_of(t, f, w);
	/* Up the tree: hang each node on the one above, creating switches, until one exists. */
	for (unsigned int hops = 0; hops < 64; hops++) {
		const struct rd_pci_fn *fn = &t->pci.v[f];
		int up = fn->parent >= 0 ? t->pci.v[fn->parent].parent : -1;
		double bw = up_bw(t, f, w);
		bool made = false;
		int parent, ret;

		if (up < 0) {
			parent = cpu_node(t, t->pci.v[f].numa);
		} else {
			parent = find_node(t, RD_TN_PCI, t->pci.v[up].bdf);
			if (parent < 0) {
				const struct rd_pci_fn *u = &t->pci.v[up];

				parent = rd_gpu_node_add(t, RD_TN_PCI, u->bdf, up);
				if (parent >= 0) {
					rd_pci_facts(&t->pci, (size_t)up, w);
					t->nodes[parent].pci_dev = (uint64_t)u->vendor << 48 |
								   (uint64_t)u->device << 32 |
								   (uint64_t)u->sub_vendor << 16 | u->sub_device;
					made = true;
				}
			}
		}
		if (parent < 0)
			return parent;
		if (first < 0)
			first = parent;
		ret = rd_gpu_connect(t, self, parent, RD_PATH_PIX, bw);
		if (ret)
			return ret;
		if (!made)
			return first;
		f = up;
		self = parent;
	}
	return -ELOOP;
}

/* Broadcom PEX switches in base mode show two levels; NCCL flattens them (getBcmGen). */
static int bcm_gen(uint64_t id, int level)
{
	if ((id & 0xfffffffffffff000ull) == 0x1000c0101000a000ull)
		return 4;
	if ((id & 0xfffffffffffff000ull) == (0x1000c03010000000ull | (uint64_t)level * 0x1000))
		return 5;
	return 0;
}

static void flatten_bcm(struct rd_gpu_topo *t)
{
	for (size_t s = 0; s < t->nnodes; s++) {
		struct rd_tnode *sw = &t->nodes[s];
		int gen = sw->type == RD_TN_PCI ? bcm_gen(sw->pci_dev, 0) : 0;
		int *subs;
		size_t nsubs = 0;

		if (!gen)
			continue;
		/* The direct sub-switches first, then their children moved up: one level, as NCCL. */
		subs = calloc(sw->nlinks + 1, sizeof(*subs));
		if (!subs)
			return;
		for (size_t l = 0; l < sw->nlinks; l++) {
			const struct rd_tnode *sn = &t->nodes[sw->links[l].rem];

			if (sn->type == RD_TN_PCI && bcm_gen(sn->pci_dev, 1) == gen)
				subs[nsubs++] = sw->links[l].rem;
		}
		for (size_t l = 0; l < t->nodes[s].nlinks;) {
			bool is_sub = false;

			for (size_t k = 0; k < nsubs; k++)
				is_sub |= t->nodes[s].links[l].rem == subs[k];
			if (!is_sub) {
				l++;
				continue;
			}
			memmove(&t->nodes[s].links[l], &t->nodes[s].links[l + 1],
				(t->nodes[s].nlinks - l - 1) * sizeof(struct rd_tlink));
			t->nodes[s].nlinks--;
		}
		for (size_t k = 0; k < nsubs; k++) {
			struct rd_tnode *sn = &t->nodes[subs[k]];

			/* Hang what hung on the sub-switch on the switch itself. */
			for (size_t j = 0; j < sn->nlinks; j++) {
				int rem = sn->links[j].rem;

				if (rem == (int)s)
					continue;
				if (rd_gpu_link_one(&t->nodes[s], rem, sn->links[j].type, sn->links[j].bw)) {
					free(subs);
					return;
				}
				for (size_t r = 0; r < t->nodes[rem].nlinks; r++)
					if (t->nodes[rem].links[r].rem == subs[k])
						t->nodes[rem].links[r].rem = (int)s;
			}
			free(sn->links);
			sn->links = NULL;
			sn->nlinks = 0;
			sn->id[0] = '\0';	/* gone: no links, no name */
		}
		free(subs);
		t->nodes[s].pci_dev |= 0xffff;	/* never merged twice */
		if (nsubs)
			s = (size_t)-1;	/* start again, as NCCL does after each flattening */
	}
}

/* NCCL's bandwidth between two CPU sockets, by architecture and model (GB/s). */
static double inter_cpu_bw(const struct rd_gdr_host *h)
{
	if (strcmp(h->arch, "ppc64") == 0)
		return 32.0;
	if (strcmp(h->arch, "aarch64") == 0)
		return 6.0;
	if (strcmp(h->cpu_vendor, "GenuineIntel") == 0) {
		unsigned int m = h->cpu_model;

		if (h->cpu_family != 6)
			return 6.0;
		return m >= 0xcf ? 40.0 : m >= 0x8f ? 22.0 : m >= 0x55 ? 10.0 : 6.0;
	}
	if (strcmp(h->cpu_vendor, "AuthenticAMD") == 0)
		return 16.0;
	if (strcmp(h->cpu_vendor, "CentaurHauls") == 0 || strcmp(h->cpu_vendor, "  Shanghai  ") == 0)
		return 6.0;
	return LOC_BW;
}

static bool is_gpu(const struct rd_pci_fn *f, bool *amd)
{
	unsigned int cls = f->klass >> 8;

	*amd = false;
	if (!f->ids_known)
		return false;
	if (f->vendor == 0x10de)
		return cls == 0x0300 || cls == 0x0302;
	if (f->vendor == 0x1002 && (cls == 0x0380 || cls == 0x1200)) {
		*amd = true;
		return true;
	}
	return false;
}

/* Grace Hopper superchips: their GPU reaches the CPU over NVLink-C2C (device ids of GH200). */
static bool c2c_device(uint16_t device)
{
	return device == 0x2342 || device == 0x2348;
}

/* "0000:03:00.1" -> "0000:03:00.0"; with VFs merged also the device number: "0000:03:01.2" -> "0000:03:00.0". */
static void nic_key(const char *bdf, bool merge_vfs, char out[16])
{
	size_t n;

	rd_strlcpy(out, bdf, 16);
	n = strlen(out);
	if (n == 12) {
		out[n - 1] = '0';
		if (merge_vfs)
			out[n - 3] = out[n - 4] = '0';
	}
}

static int add_gpus(struct rd_gpu_topo *t)
{
	for (size_t i = 0; i < t->pci.n; i++) {
		bool amd;

		if (!is_gpu(&t->pci.v[i], &amd))
			continue;
		struct rd_gpu *v = realloc(t->gpus, (t->ngpus + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->gpus = v;
		struct rd_gpu *g = &t->gpus[t->ngpus];

		memset(g, 0, sizeof(*g));
		rd_strlcpy(g->bdf, t->pci.v[i].bdf, sizeof(g->bdf));
		g->pci = (int)i;
		g->vendor = t->pci.v[i].vendor;
		g->device = t->pci.v[i].device;
		g->amd = amd;
		g->index = (unsigned int)t->ngpus;
		g->net = -1;
		g->cpu = -1;
		g->pxn_via = -1;
		g->cc = -1;
		g->c2c = !amd && c2c_device(g->device);
		g->c2c_assumed = g->c2c;
		snprintf(g->name, sizeof(g->name), "GPU%u", g->index);
		t->ngpus++;
	}
	return 0;
}

static int add_nets(struct rd_gpu_topo *t, const struct rd_device_list *devs)
{
	for (unsigned int d = 0; d < devs->n; d++) {
		const struct rd_device *dev = &devs->v[d];

		for (unsigned int p = 0; p < dev->nports; p++) {
			const struct rd_port *port = &dev->ports[p];
			struct rd_gpu_net *v = realloc(t->nets, (t->nnets + 1) * sizeof(*v));
			struct rd_gpu_net *n;

			if (!v)
				return -ENOMEM;
			t->nets = v;
			n = &t->nets[t->nnets++];
			memset(n, 0, sizeof(*n));
			rd_strlcpy(n->dev, dev->name, sizeof(n->dev));
			n->port = port->num;
			n->node = n->nic_node = -1;
			n->pci = dev->pci[0] ? rd_pci_find(&t->pci, dev->pci) : -1;
			rd_strlcpy(n->bdf, dev->pci, sizeof(n->bdf));
			if (dev->pci[0])
				nic_key(dev->pci, rd_nccl_merge_vfs(&t->conf), n->nic_bdf);
			rd_strlcpy(n->state, (port->known & RD_PORT_STATE) ?
				   rd_port_state_name(port->state) : "unknown", sizeof(n->state));
			rd_strlcpy(n->link_layer, (port->known & RD_PORT_LINK_LAYER) ?
				   rd_link_layer_name(port->link_layer) : "unknown", sizeof(n->link_layer));
			n->gbps = port->rate.gbps;
			n->active = (port->known & RD_PORT_STATE) && port->state == 4 &&
				    (port->known & RD_PORT_LINK_LAYER) &&
				    (port->link_layer == RD_LL_INFINIBAND || port->link_layer == RD_LL_ETHERNET);
			n->admitted = !t->conf.ib_hca_set || rd_nccl_hca_match(t->conf.ib_hca, dev->name, port->num);
		}
	}
	return 0;
}

/* A NIC function node (shared by its ports and, merged, its functions and VFs). */
static int nic_node(struct rd_gpu_topo *t, struct rd_gpu_net *n, struct rd_warnings *w)
{
	int f, node, cpu = -1, ret;

	if (!n->nic_bdf[0])
		return -1;
	node = find_node(t, RD_TN_NIC, n->nic_bdf);
	if (node >= 0)
		return node;
	f = rd_pci_find(&t->pci, n->nic_bdf);
	if (f < 0)
		f = n->pci;
	if (f < 0)
		return -1;
	node = rd_gpu_node_add(t, RD_TN_NIC, n->nic_bdf, f);
	if (node < 0)
		return node;
	ret = attach(t, f, node, &cpu, w);
	return ret < 0 ? ret : node;
}

static int build_sysfs(struct rd_gpu_topo *t, struct rd_warnings *w)
{
	unsigned int netidx = 0;
	int ret;

	for (size_t i = 0; i < t->pci.n; i++)
		if (t->pci.v[i].ids_known && t->pci.v[i].vendor == 0x10de &&
		    (t->pci.v[i].klass >> 8) == 0x0680)
			t->nvswitches++;
	for (size_t g = 0; g < t->ngpus; g++) {
		struct rd_gpu *gpu = &t->gpus[g];
		int cpu = -1;

		gpu->node = rd_gpu_node_add(t, RD_TN_GPU, gpu->bdf, gpu->pci);
		if (gpu->node < 0)
			return gpu->node;
		t->nodes[gpu->node].item = (int)g;
		ret = attach(t, gpu->pci, gpu->node, &cpu, w);
		if (ret < 0)
			return ret;
		gpu->cpu = cpu;
		gpu->numa = t->pci.v[gpu->pci].numa;
	}
	for (size_t i = 0; i < t->nnets; i++) {
		struct rd_gpu_net *n = &t->nets[i];

		n->nic_node = nic_node(t, n, w);
		if (n->nic_node < -1)
			return n->nic_node;
		if (!n->active || !n->admitted || n->nic_node < 0)
			continue;
		char id[24];

		snprintf(id, sizeof(id), "net%u", netidx);
		n->node = rd_gpu_node_add(t, RD_TN_NET, id, -1);
		if (n->node < 0)
			return n->node;
		n->index = netidx++;
		t->nodes[n->node].item = (int)i;
		/* NCCL takes 10 Gb/s for a port that reports no rate. */
		ret = rd_gpu_connect(t, n->nic_node, n->node, RD_PATH_NET,
				     n->gbps > 0 ? n->gbps / 8.0 : 1.25);
		if (ret)
			return ret;
	}
	return 0;
}

static int connect_cpus(struct rd_gpu_topo *t)
{
	double bw = inter_cpu_bw(&t->host);

	for (size_t a = 0; a < t->nnodes; a++)
		for (size_t b = a + 1; b < t->nnodes; b++)
			if (t->nodes[a].type == RD_TN_CPU && t->nodes[b].type == RD_TN_CPU) {
				int ret = rd_gpu_connect(t, (int)a, (int)b, RD_PATH_SYS, bw);

				if (ret)
					return ret;
			}
	/* A C2C GPU has a second link, straight to its CPU. */
	for (size_t g = 0; g < t->ngpus; g++) {
		struct rd_gpu *gpu = &t->gpus[g];

		if (gpu->c2c && gpu->cpu >= 0) {
			int ret = rd_gpu_connect(t, gpu->node, gpu->cpu, RD_PATH_C2C, 450.0);

			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * NVIDIA's BAR1 is the window peers (the NIC under GDR) reach GPU memory
 * through.  A Grace-class C2C GPU has none: its memory is coherent over
 * NVLink-C2C, and nvidia-smi reports BAR1 "N/A".  An AMD GPU's VRAM aperture
 * is BAR0, which this does not judge.  A resource file that is missing says
 * nothing; one that cannot be parsed is a warning.
 */
static void read_bar1(struct rd_gpu_topo *t, struct rd_gpu *g, struct rd_warnings *w)
{
	int ret;

	g->bar1 = 0;
	g->bar1_err = 0;
	if (g->amd || g->c2c || g->pci < 0)
		return;
	ret = rd_pci_bar_size(&t->pci, (size_t)g->pci, 1, &g->bar1);
	if (ret == -EINVAL || ret == -ENODATA)
		rd_warn(w, "%s: %s, BAR1 size unknown", g->bdf,
			ret == -EINVAL ? "malformed resource file" : "resource file lists BAR1 as unused");
	if (ret) {
		g->bar1 = 0;
		g->bar1_err = ret;
	}
}

static void summarize_node(struct rd_gpu_topo *t, struct rd_warnings *w)
{
	unsigned int ident = 0, trans = 0, none = 0;

	for (size_t g = 0; g < t->ngpus; g++) {
		const struct rd_pci_fn *f;

		if (t->gpus[g].pci < 0)
			continue;
		rd_pci_facts(&t->pci, (size_t)t->gpus[g].pci, w);
		rd_pci_iommu(&t->pci, (size_t)t->gpus[g].pci);
		f = &t->pci.v[t->gpus[g].pci];
		read_bar1(t, &t->gpus[g], w);
		if (!f->iommu_type[0])
			none++;
		else if (strcmp(f->iommu_type, "identity") == 0)
			ident++;
		else
			trans++;
	}
	/* One kind for every GPU, or "mixed". */
	if (!t->ngpus)
		rd_strlcpy(t->iommu, "unknown", sizeof(t->iommu));
	else if (trans == t->ngpus)
		rd_strlcpy(t->iommu, "translated", sizeof(t->iommu));
	else if (ident == t->ngpus)
		rd_strlcpy(t->iommu, "passthrough", sizeof(t->iommu));
	else if (none == t->ngpus)
		rd_strlcpy(t->iommu, "off", sizeof(t->iommu));
	else
		rd_strlcpy(t->iommu, "mixed", sizeof(t->iommu));
	for (size_t i = 0; i < t->pci.n; i++) {
		const struct rd_pci_fn *f = &t->pci.v[i];

		if (!f->facts_read || (f->klass >> 8) != 0x0604)
			continue;
		if (f->acs == RD_CAP_UNREAD)
			t->acs_unreadable = true;
		else
			t->acs_readable = true;
	}
}

static void choose_backend(struct rd_gpu_topo *t)
{
	const struct rd_gdr_host *h = &t->host;
	bool amd = t->ngpus && t->gpus[0].amd;
	char why[160];
	bool peer = amd ? h->amd_peer :
		    h->nv_mem || h->nv_mem_nc || (t->conf.version >= 223 && h->peermem_module);

	if (peer) {
		rd_strlcpy(t->backend, "peermem", sizeof(t->backend));
		return;
	}
	if (rd_nccl_dmabuf(&t->conf) && !rd_gdr_dmabuf_blocker(h, amd, why, sizeof(why))) {
		rd_strlcpy(t->backend, "dma-buf", sizeof(t->backend));
		return;
	}
	rd_strlcpy(t->backend, "none", sizeof(t->backend));
	if (amd)
		snprintf(t->backend_why, sizeof(t->backend_why),
			 "no GDR backend: ROCm peer memory is not registered (memory_peers/amdkfd) and dma-buf %s%s",
			 rd_nccl_dmabuf(&t->conf) ? "cannot work: " : "is disabled",
			 rd_nccl_dmabuf(&t->conf) ? rd_gdr_dmabuf_blocker(h, amd, why, sizeof(why)) : "");
	else
		snprintf(t->backend_why, sizeof(t->backend_why),
			 "no GDR backend: %s, and dma-buf %s%s",
			 h->peermem_loaded && t->conf.version < 223 ?
			 "nvidia_peermem is loaded but not registered in memory_peers (NCCL < 2.23 looks only there)" :
			 "nvidia_peermem is not loaded",
			 rd_nccl_dmabuf(&t->conf) ? "cannot work: " : "is disabled (NCCL_DMABUF_ENABLE=0 or NCCL < 2.13)",
			 rd_nccl_dmabuf(&t->conf) ? rd_gdr_dmabuf_blocker(h, amd, why, sizeof(why)) : "");
}

int rd_gpu_topo_build(const struct rd_sysroot *sr, const struct rd_device_list *devs,
		      const struct rd_nccl_conf *conf, const char *xml, struct rd_gpu_topo *t,
		      struct rd_warnings *w, char *msg, size_t msglen)
{
	return rd_gpu_topo_build_nvml(sr, devs, conf, xml, NULL, t, w, msg, msglen);
}

int rd_gpu_topo_build_nvml(const struct rd_sysroot *sr, const struct rd_device_list *devs,
			   const struct rd_nccl_conf *conf, const char *xml, const struct rd_nvml *nvml,
			   struct rd_gpu_topo *t, struct rd_warnings *w, char *msg, size_t msglen)
{
	int ret;

	memset(t, 0, sizeof(*t));
	t->conf = *conf;
	msg[0] = '\0';
	rd_gdr_host_read(sr, &t->host);
	ret = rd_pci_tree_read(sr, &t->pci, w);
	if (ret && !xml)
		return ret;
	ret = add_nets(t, devs);
	if (ret)
		return ret;
	if (xml) {
		t->from_xml = true;
		ret = rd_gpu_xml_load(t, xml, w, msg, msglen);
	} else {
		ret = add_gpus(t);
		if (!ret)
			ret = build_sysfs(t, w);
	}
	if (!ret)
		ret = rd_gpu_nvml_apply(t, nvml);
	/* Either graph: NCCL flattens Broadcom switches in ncclTopoGetSystemFromXml, which both take. */
	if (!ret) {
		flatten_bcm(t);
		ret = connect_cpus(t);
	}
	if (ret)
		return ret;
	summarize_node(t, w);
	choose_backend(t);
	ret = rd_gpu_paths(t);
	if (ret)
		return ret;
	rd_gpu_decide(t, w);
	return 0;
}

void rd_gpu_topo_free(struct rd_gpu_topo *t)
{
	for (size_t i = 0; i < t->nnodes; i++)
		free(t->nodes[i].links);
	for (size_t g = 0; g < t->ngpus; g++) {
		rd_strlist_free(&t->gpus[g].notes);
		free(t->gpus[g].nvl);
	}
	free(t->nodes);
	free(t->gpus);
	free(t->nets);
	free(t->bases);
	free(t->paths);
	rd_pci_tree_free(&t->pci);
	memset(t, 0, sizeof(*t));
}

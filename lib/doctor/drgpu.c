// SPDX-License-Identifier: MIT
/*
 * rdma-doctor's GPU checks: is GPUDirect RDMA ready, by NCCL's rules (lib/gpu,
 * the model rdma-gpumap prints).  Each check is SKIP on a node without a GPU.
 * The topology is built once, at the first GPU check, with NCCL's settings
 * from the environment; results name the GPU ("GPU3") as their object.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"
#include "drgpu.h"

static struct rd_gpu_topo *topo(struct rd_dr_ctx *c)
{
	struct rd_nccl_conf conf;
	char msg[200];
	int ret;

	if (c->gpu_built)
		return c->gpu;
	c->gpu_built = true;
	c->gpu = calloc(1, sizeof(*c->gpu));
	if (!c->gpu)
		return NULL;
	rd_nccl_conf_init(&conf);
	if (rd_nccl_conf_env(&conf, msg, sizeof(msg)))
		rd_warn(c->w, "GPU checks: %s; NCCL's default used", msg);
	ret = rd_gpu_topo_build(c->sr, c->list, &conf, conf.topo_file[0] ? conf.topo_file : NULL,
				c->gpu, c->w, msg, sizeof(msg));
	if (ret) {
		if (ret != -ENOENT)
			rd_warn(c->w, "GPU checks: %s", msg[0] ? msg : strerror(-ret));
		rd_gpu_topo_free(c->gpu);
		free(c->gpu);
		c->gpu = NULL;
	}
	return c->gpu;
}

void rd_dr_gpu_free(struct rd_dr_ctx *c)
{
	if (c->gpu) {
		rd_gpu_topo_free(c->gpu);
		free(c->gpu);
	}
	c->gpu = NULL;
	c->gpu_built = false;
}

/* The topology if the node has a GPU; else one SKIP and NULL. */
static struct rd_gpu_topo *need_gpus(struct rd_dr_ctx *c)
{
	struct rd_gpu_topo *t = topo(c);

	if (!t || !t->ngpus) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, RD_DR_NO_GPU);
		return NULL;
	}
	return t;
}

static void as_gpu(struct rd_dr_ctx *c, const struct rd_gpu *g)
{
	snprintf(c->object, sizeof(c->object), "%s (%s)", g->name, g->bdf);
}

void rd_dr_ck_gdr_backend(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_gpu_topo *t = need_gpus(c);
	const struct rd_gdr_host *h;

	(void)d;
	(void)dp;
	if (!t)
		return;
	h = &t->host;
	if (strcmp(t->backend, "peermem") == 0)
		rd_dr_emit(c, RD_DR_PASS, NULL, "peer memory: %s", t->gpus[0].amd ? "amdkfd registered" :
			   h->nv_mem || h->nv_mem_nc ? "nv_mem registered" : "nvidia_peermem loaded");
	else if (strcmp(t->backend, "dma-buf") == 0)
		rd_dr_emit(c, RD_DR_PASS, NULL, "dma-buf: kernel %u.%u, %s%s%s", h->kmajor, h->kminor,
			   t->gpus[0].amd ? "amdgpu" : "NVIDIA open kernel modules",
			   h->rdma_core >= 0 ? ", rdma-core " : "",
			   h->rdma_core >= 0 ? (h->rdma_core >= 34 ? ">= 34" : "< 34") : "");
	else
		rd_dr_emit(c, RD_DR_FAIL, NULL, "%s", t->backend_why);
}

#define PEERMEM_FIX                                                                              \
	"modprobe -r nvidia_peermem; reinstall it after the RDMA stack (MLNX_OFED first, then the NVIDIA " \
	"driver or its DKMS rebuild); modprobe nvidia_peermem; dmesg | grep -i peer"

void rd_dr_ck_gdr_peermem(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_gpu_topo *t = need_gpus(c);
	const struct rd_gdr_host *h;

	(void)d;
	(void)dp;
	if (!t)
		return;
	h = &t->host;
	if (t->gpus[0].amd) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "AMD GPUs: ROCm peer memory (gdr.backend)");
	} else if (!h->peermem_loaded) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "nvidia_peermem is not loaded (%s)",
			   strcmp(t->backend, "none") ? "dma-buf is the backend" : "see gdr.backend");
	} else if (h->nv_mem || h->nv_mem_nc) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "nvidia_peermem loaded and registered (memory_peers/%s)",
			   h->nv_mem ? "nv_mem" : "nv_mem_nc");
	} else {
		/*
		 * Loaded but not registered: the module did not find the RDMA
		 * stack's peer-memory API (built before MLNX_OFED, or against the
		 * inbox ib_core).  NCCL >= 2.23 takes the module's version file
		 * as enough and turns GDR on; older NCCL turns it off.
		 */
		rd_dr_emit(c, RD_DR_WARN, PEERMEM_FIX, "nvidia_peermem is loaded but not registered in "
			   "/sys/kernel/mm/memory_peers%s",
			   h->peermem_module ? " (NCCL >= 2.23 uses GDR on the module alone; older NCCL does not)" :
			   ", and shows no version: it did not load whole");
	}
}

void rd_dr_ck_gdr_path(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_gpu_topo *t;
	double want = 0;
	const char *exp = rd_dr_expected(c, RD_EXP_GDR, &want);
	unsigned int have = 0;
	/* With gdr=N expected, a GPU without GDR is a FAIL, not a WARN. */
	enum rd_dr_status miss = exp ? RD_DR_FAIL : RD_DR_WARN;

	(void)d;
	(void)dp;
	t = topo(c);
	if (exp && want > 0 && (!t || !t->ngpus)) {
		rd_dr_emit(c, RD_DR_FAIL, "rdma-gpumap; lspci | grep -i nvidia", "no GPU on this node, "
			   "expected gdr=%s", exp);
		return;
	}
	t = need_gpus(c);
	if (!t)
		return;
	for (size_t i = 0; i < t->ngpus; i++)
		have += t->gpus[i].gdr;
	if (exp && have != (unsigned int)want) {
		c->object[0] = '\0';
		rd_dr_emit(c, have < want ? RD_DR_FAIL : RD_DR_WARN, "rdma-gpumap -v",
			   "%u of %zu GPUs have GDR, expected gdr=%s", have, t->ngpus, exp);
	}
	for (size_t i = 0; i < t->ngpus; i++) {
		const struct rd_gpu *g = &t->gpus[i];
		const struct rd_gpu_net *n = g->net >= 0 ? &t->nets[g->net] : NULL;

		as_gpu(c, g);
		if (!n)
			rd_dr_emit(c, miss, NULL, "%s", g->why);
		else if (g->gdr)
			rd_dr_emit(c, RD_DR_PASS, NULL, "%s port %u, %s, GDR: %s", n->dev, n->port,
				   rd_path_name(g->path_topo), g->why);
		else if (strcmp(t->backend, "none") == 0)
			rd_dr_emit(c, RD_DR_SKIP, NULL, "%s port %u, %s; no GDR backend (gdr.backend)", n->dev,
				   n->port, rd_path_name(g->path_topo));
		else
			rd_dr_emit(c, miss,
				   "seat the GPU and its NIC under one PCIe switch; or measure with "
				   "NCCL_NET_GDR_LEVEL=PHB; rdma-gpumap -v",
				   "%s port %u, %s: no GDR (%s)", n->dev, n->port, rd_path_name(g->path_topo), g->why);
	}
	c->object[0] = '\0';
}

void rd_dr_ck_gdr_nic_port(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_gpu_topo *t = need_gpus(c);

	(void)d;
	(void)dp;
	if (!t)
		return;
	for (size_t i = 0; i < t->ngpus; i++) {
		const struct rd_gpu *g = &t->gpus[i];
		const char *bad = NULL;

		for (size_t k = 0; k < g->notes.n && !bad; k++)
			if (strstr(g->notes.v[k], " is nearer but "))
				bad = g->notes.v[k];
		as_gpu(c, g);
		if (bad)
			rd_dr_emit(c, RD_DR_FAIL,
				   "bring the port up (ibstat; cable, switch port, SM) or admit it in NCCL_IB_HCA",
				   "%s; it uses %s (%s)", bad, g->net >= 0 ? t->nets[g->net].dev : "no NIC",
				   g->net >= 0 ? rd_path_name(g->path_topo) : "sockets");
		else
			rd_dr_emit(c, RD_DR_PASS, NULL, "its nearest NIC port is usable%s%s",
				   g->net >= 0 ? ": " : "", g->net >= 0 ? t->nets[g->net].dev : "");
	}
	c->object[0] = '\0';
}

void rd_dr_ck_gdr_balance(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_gpu_topo *t = need_gpus(c);
	unsigned int *load, used = 0, idle = 0, most = 0, nets = 0;
	int worst = -1;

	(void)d;
	(void)dp;
	if (!t)
		return;
	load = calloc(t->nnets + 1, sizeof(*load));
	if (!load)
		return;
	for (size_t i = 0; i < t->ngpus; i++)
		if (t->gpus[i].net >= 0)
			load[t->gpus[i].net]++;
	for (size_t n = 0; n < t->nnets; n++) {
		const struct rd_gpu_net *nn = &t->nets[n];
		const struct rd_tpath *p = NULL;
		bool near = false;

		if (nn->node < 0)
			continue;
		/* Only NICs near some GPU count (a storage NIC on a root port serves no GPU by design). */
		for (size_t i = 0; i < t->ngpus && !near; i++) {
			p = rd_gpu_path(t, t->gpus[i].node, nn->node);
			near = p && p->type <= RD_PATH_PXB;
		}
		if (!near)
			continue;
		nets++;
		if (load[n])
			used++;
		else
			idle++;
	}
	for (size_t n = 0; n < t->nnets; n++)
		if (load[n] > most) {
			most = load[n];
			worst = (int)n;
		}
	if (!nets)
		rd_dr_emit(c, RD_DR_SKIP, NULL, "no NIC port near a GPU (PIX or PXB)");
	else if (idle && most > (t->ngpus + nets - 1) / nets)
		rd_dr_emit(c, RD_DR_WARN, "rdma-gpumap -m; check the ports and cabling of the idle NICs",
			   "%u NIC port(s) near a GPU serve none, while %s serves %u of %zu GPUs", idle,
			   t->nets[worst].dev, most, t->ngpus);
	else
		rd_dr_emit(c, RD_DR_PASS, NULL, "%zu GPUs over %u NIC port(s), at most %u per port", t->ngpus,
			   used, most);
	free(load);
}

/*
 * In a virtual machine the bridges between a GPU and its NIC are the host's,
 * and their ACS is expected there: it isolates the functions passed through.
 * What decides whether the NIC's peer writes reach the GPU without a trip
 * through the host's root complex is ATS on the NIC (translated requests that
 * the host's ACS may let pass), so that is judged instead.
 */
static void vm_acs(struct rd_dr_ctx *c, struct rd_gpu_topo *t, const struct rd_gpu *g)
{
	const struct rd_gpu_net *n = &t->nets[g->net];
	struct rd_pci_fn *f;
	char fix[240];

	rd_pci_facts(&t->pci, (size_t)n->pci, c->w);
	f = &t->pci.v[n->pci];
	if (f->ats == RD_CAP_UNREAD) {
		rd_dr_emit(c, RD_DR_WARN, "run rdma-doctor as root (the config space is root's to read)",
			   "a VM: ACS is the host's; %s's ATS is not readable: not root", n->dev);
	} else if (f->ats == RD_CAP_ABSENT) {
		snprintf(fix, sizeof(fix), "on the host: mlxconfig -d <%s's PF> set ATS_ENABLED=true and "
			 "reboot; ACS on the host's bridges set to let translated requests pass", n->dev);
		rd_dr_emit(c, RD_DR_WARN, fix, "a VM: ACS is the host's; %s (%s) offers no ATS: its writes "
			   "to GPU memory are translated and turned at the host's root complex", n->dev, f->bdf);
	} else if (!(f->ats_ctrl & 0x8000)) {
		rd_dr_emit(c, RD_DR_WARN, "ATS is switched on by the IOMMU driver that owns the function: "
			   "check on the host (lspci -vvv: ATSCtl Enable+)",
			   "a VM: ACS is the host's; %s (%s) has ATS but it is not enabled", n->dev, f->bdf);
	} else {
		rd_dr_emit(c, RD_DR_PASS, NULL, "a VM: ACS is the host's; %s (%s) has ATS enabled", n->dev,
			   f->bdf);
	}
}

void rd_dr_ck_pci_acs(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_gpu_topo *t = need_gpus(c);

	(void)d;
	(void)dp;
	if (!t)
		return;
	for (size_t i = 0; i < t->ngpus; i++) {
		const struct rd_gpu *g = &t->gpus[i];
		int chain[64], nicf;
		size_t len, bridges = 0;
		bool unread = false, bad = false;

		as_gpu(c, g);
		if (g->net < 0 || g->pci < 0 || (nicf = t->nodes[t->nets[g->net].nic_node].pci) < 0) {
			rd_dr_emit(c, RD_DR_SKIP, NULL, "no NIC path to judge");
			continue;
		}
		if (t->host.hypervisor) {
			vm_acs(c, t, g);
			continue;
		}
		if (g->path_topo > RD_PATH_PXB) {
			/* Through a host bridge the traffic crosses the root complex anyway. */
			rd_dr_emit(c, RD_DR_SKIP, NULL, "the path to %s is %s: it crosses the root complex anyway",
				   t->nets[g->net].dev, rd_path_name(g->path_topo));
			continue;
		}
		len = rd_gpu_pci_chain(t, g->pci, nicf, chain, RD_ARRAY_SIZE(chain));
		for (size_t k = 0; k < len; k++) {
			const struct rd_pci_fn *f = &t->pci.v[chain[k]];
			char bits[40], fix[200];

			rd_pci_facts(&t->pci, (size_t)chain[k], c->w);
			bridges++;
			if (f->acs == RD_CAP_UNREAD) {
				unread = true;
				continue;
			}
			if (f->acs != RD_CAP_PRESENT || !(f->acs_ctrl & (RD_ACS_RR | RD_ACS_CR | RD_ACS_EC)))
				continue;
			bad = true;
			snprintf(fix, sizeof(fix), "setpci -s %s ECAP_ACS+0x6.w=0000 (until reboot); for good: "
				 "disable ACS or PCIe ACS override in the BIOS", f->bdf);
			rd_dr_emit(c, RD_DR_FAIL, fix, "ACS on %s (%s) sends GPU-NIC peer traffic up to the root "
				   "complex", f->bdf,
				   rd_acs_bits(f->acs_ctrl & (RD_ACS_RR | RD_ACS_CR | RD_ACS_EC), bits));
		}
		if (bad)
			continue;
		if (!bridges)
			rd_dr_emit(c, RD_DR_SKIP, NULL, "no bridge between the GPU and %s", t->nets[g->net].dev);
		else if (unread)
			rd_dr_emit(c, RD_DR_WARN, "run rdma-doctor as root (the config space is root's to read)",
				   "ACS of the bridges to %s not readable: not root", t->nets[g->net].dev);
		else
			rd_dr_emit(c, RD_DR_PASS, NULL, "no ACS redirection on the %zu bridge(s) to %s", bridges,
				   t->nets[g->net].dev);
	}
	c->object[0] = '\0';
}

void rd_dr_ck_iommu_mode(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_gpu_topo *t = need_gpus(c);

	(void)d;
	(void)dp;
	if (!t)
		return;
	if (strcmp(t->iommu, "translated") == 0 || strcmp(t->iommu, "mixed") == 0)
		rd_dr_emit(c, RD_DR_WARN, "boot with iommu=pt (intel_iommu=on iommu=pt, or amd_iommu=on iommu=pt)",
			   "the IOMMU translates GPU DMA (%s): GDR traffic pays for address translation", t->iommu);
	else
		rd_dr_emit(c, RD_DR_PASS, NULL, "IOMMU %s for the GPUs", t->iommu);
}

void rd_dr_ck_gpu_bar1(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_gpu_topo *t = need_gpus(c);

	(void)d;
	(void)dp;
	if (!t)
		return;
	for (size_t i = 0; i < t->ngpus; i++) {
		const struct rd_gpu *g = &t->gpus[i];
		uint64_t bar1 = g->bar1;

		as_gpu(c, g);
		if (g->amd) {
			rd_dr_emit(c, RD_DR_SKIP, NULL, "an AMD GPU: its VRAM aperture is BAR0, not judged here");
			continue;
		}
		if (g->c2c) {
			rd_dr_emit(c, RD_DR_SKIP, NULL, "a C2C GPU: its memory is coherent over NVLink-C2C, "
				   "with no BAR1 window (nvidia-smi says N/A)");
			continue;
		}
		if (!bar1) {
			rd_dr_emit(c, RD_DR_SKIP, NULL, "BAR1 size unknown (%s)",
				   g->bar1_err == -EINVAL ? "malformed resource file" :
				   g->bar1_err == -ENODATA ? "the resource file lists BAR1 as unused" :
				   g->bar1_err == -ENOENT ? "no resource file" : "resource file unreadable");
			continue;
		}
		if (bar1 < (1ull << 30))
			rd_dr_emit(c, RD_DR_WARN, "enable Above 4G decoding and Resizable BAR in the BIOS",
				   "BAR1 is %llu MiB: GPU memory registered for GDR is limited by it",
				   (unsigned long long)(bar1 >> 20));
		else
			rd_dr_emit(c, RD_DR_PASS, NULL, "BAR1 %llu MiB", (unsigned long long)(bar1 >> 20));
	}
	c->object[0] = '\0';
}

void rd_dr_ck_gpu_link(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_gpu_topo *t = need_gpus(c);

	(void)d;
	(void)dp;
	if (!t)
		return;
	for (size_t i = 0; i < t->ngpus; i++) {
		const struct rd_gpu *g = &t->gpus[i];
		bool slow = false;

		as_gpu(c, g);
		for (int f = g->pci; f >= 0; f = t->pci.v[f].parent) {
			const struct rd_pci_fn *fn = &t->pci.v[f];
			double cap_gts;
			unsigned int cap_width;

			if (rd_pci_link_degraded(&t->pci, (size_t)f, c->w, &cap_gts, &cap_width)) {
				slow = true;
				rd_dr_emit(c, RD_DR_WARN, "reseat the GPU; check the riser and the BIOS slot settings",
					   "%s link runs x%u %s, capable of x%u %g GT/s (both ends)", fn->bdf,
					   fn->cur_width, fn->cur_speed, cap_width, cap_gts);
			}
		}
		if (!slow)
			rd_dr_emit(c, RD_DR_PASS, NULL, "every link up to the root port at its maximum");
	}
	c->object[0] = '\0';
}

#define TOPO_FILE_FIX "export NCCL_TOPO_FILE=the provider's topology XML (rdma-gpumap --topo-xml)"

void rd_dr_ck_topo_virtual(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_gpu_topo *t = need_gpus(c);
	enum rd_gpu_vm_view view;

	(void)d;
	(void)dp;
	if (!t)
		return;
	view = rd_gpu_vm_view(t);
	if (t->from_xml)
		rd_dr_emit(c, RD_DR_PASS, NULL, "NCCL_TOPO_FILE gives NCCL the topology (%s)", t->conf.topo_file);
	else if (view == RD_VM_FLAT)
		rd_dr_emit(c, RD_DR_WARN, TOPO_FILE_FIX,
			   "the PCI tree is flat (a virtual machine) and NCCL_TOPO_FILE is not set: NCCL sees every "
			   "NIC through the host bridge, and no GDR");
	else if (view == RD_VM_HIDDEN)
		rd_dr_emit(c, RD_DR_WARN, TOPO_FILE_FIX,
			   "a virtual machine (cpuinfo: hypervisor) whose PCI tree shows no switch between a GPU "
			   "and a NIC, and NCCL_TOPO_FILE is not set: NCCL sees every NIC through a host bridge, "
			   "and no GDR");
	else
		rd_dr_emit(c, RD_DR_PASS, NULL, "the PCI tree shows switches or NUMA nodes: NCCL reads it as it is");
}

// SPDX-License-Identifier: MIT
/* rdma-gpumap's output: one print call per field feeds the text table and JSON. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "mapprint.h"

bool rd_gpumap_gpu_selected(const struct rd_gpumap_view *v, const struct rd_gpu *g)
{
	if (!v->gpus->n)
		return true;
	for (size_t i = 0; i < v->gpus->n; i++) {
		const char *s = v->gpus->v[i];

		if (strcmp(s, g->name) == 0 || strcmp(s, g->bdf) == 0 ||
		    (strncmp(g->name, "GPU", 3) == 0 && strcmp(s, g->name + 3) == 0))
			return true;
	}
	return false;
}

static bool row_selected(const struct rd_gpumap_view *v, const struct rd_gpu_topo *t, const struct rd_gpu *g)
{
	if (!rd_gpumap_gpu_selected(v, g))
		return false;
	if (!v->nics->n)
		return true;
	return g->net >= 0 && rd_strlist_has(v->nics, t->nets[g->net].dev);
}

static const struct rd_col cols[] = {
	{ "gpu", "GPU", false, false },	{ "bus", "BUS", false, false },	{ "numa", "NUMA", true, false },
	{ "dev", "NIC", false, false },	{ "port", "PORT", true, false },	{ "state", "STATE", false, false },
	{ "path", "PATH", false, false },	{ "path_smi", "SMI", false, false },	{ "bw_gbytes", "BW", true, false },
	{ "gdr", "GDR", false, false },	{ "why", "WHY", false, true },
};
const struct rd_out_colset rd_gpumap_tables[RD_GPUMAP_NTABLES] = {
	{ cols, RD_ARRAY_SIZE(cols) },
};

/* -v, NVLinks: "NVLink: 18 links to nvswitch (370.8 GB/s)"; JSON always. */
static void print_nvlinks(struct rd_out *o, const struct rd_gpu *g)
{
	if (!g->nnvl)
		return;
	rd_out_text(o, RD_C_NONE, "  NVLink:");
	rd_out_list_begin(o, "nvlinks");
	for (size_t i = 0; i < g->nnvl; i++) {
		const struct rd_gpu_nvl *l = &g->nvl[i];

		rd_out_section_begin(o, NULL, NULL);
		rd_out_text(o, RD_C_NONE, "%s %u link%s to %s (%.1f GB/s)", i ? "," : "", l->links,
			    l->links == 1 ? "" : "s", l->to, l->bw);
		rd_out_str(o, RD_JSON, "to", NULL, l->to);
		rd_out_str(o, RD_JSON, "remote", NULL, rd_nvl_remote_name(l->remote));
		rd_out_u64(o, RD_JSON, "links", NULL, l->links);
		rd_out_double(o, RD_JSON, "bw_gbytes", NULL, l->bw, "%.1f");
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
	rd_out_text(o, RD_C_NONE, "\n");
}

static void print_chain(struct rd_out *o, const struct rd_gpu_topo *t, const struct rd_gpu *g)
{
	const struct rd_gpu_net *n = &t->nets[g->net];
	/* PXN: the PCI part of the path is the peer's. */
	const struct rd_gpu *from = g->pxn_via >= 0 ? &t->gpus[g->pxn_via] : g;
	int nicf = t->nodes[n->nic_node].pci, chain[64], all[66];
	size_t len = rd_gpu_pci_chain(t, from->pci, nicf, chain, RD_ARRAY_SIZE(chain)), na = 0;

	if (from->pci < 0 || nicf < 0)
		return;
	if (g->pxn_via >= 0)
		rd_out_text(o, RD_C_NONE, "  PXN: over NVLink to %s, then its PCIe path:\n", from->name);
	all[na++] = from->pci;
	for (size_t i = 0; i < len; i++)
		all[na++] = chain[i];
	all[na++] = nicf;
	rd_out_list_begin(o, "hops");
	for (size_t i = 0; i < na; i++) {
		const struct rd_pci_fn *f = &t->pci.v[all[i]];
		char bits[40], link[96] = "-";

		if (f->link_known)
			snprintf(link, sizeof(link), "x%u %s / x%u %s", f->cur_width, f->cur_speed,
				 f->max_width, f->max_speed);
		rd_out_section_begin(o, NULL, NULL);
		rd_out_text(o, RD_C_NONE, "    %-13s %04x:%04x %-36s ACS %s\n", f->bdf, f->vendor, f->device,
			    link, f->acs == RD_CAP_PRESENT ? rd_acs_bits(f->acs_ctrl, bits) :
			    f->acs == RD_CAP_ABSENT ? "none" : "unread");
		rd_out_str(o, RD_JSON, "pci", NULL, f->bdf);
		if (f->link_known) {
			rd_out_u64(o, RD_JSON, "width", NULL, f->cur_width);
			rd_out_u64(o, RD_JSON, "max_width", NULL, f->max_width);
			rd_out_double(o, RD_JSON, "speed_gts", NULL, f->cur_gts, "%g");
			rd_out_double(o, RD_JSON, "max_speed_gts", NULL, f->max_gts, "%g");
		}
		if (f->acs == RD_CAP_PRESENT)
			rd_out_str(o, RD_JSON, "acs", NULL, rd_acs_bits(f->acs_ctrl, bits));
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
}

void rd_gpumap_print_rows(struct rd_out *o, const struct rd_gpumap_view *v, const struct rd_gpu_topo *t)
{
	rd_out_table_begin(o, "gpus", cols, RD_ARRAY_SIZE(cols), true);
	for (size_t i = 0; i < t->ngpus; i++) {
		const struct rd_gpu *g = &t->gpus[i];
		const struct rd_gpu_net *n = g->net >= 0 ? &t->nets[g->net] : NULL;
		char dev[8];

		if (!row_selected(v, t, g))
			continue;
		rd_out_row_begin(o);
		rd_out_cstr(o, RD_ANY, "gpu", NULL, RD_C_NAME, g->name);
		rd_out_str(o, RD_ANY, "bus", NULL, g->bdf);
		if (g->numa >= 0)
			rd_out_u64(o, RD_ANY, "numa", NULL, (uint64_t)g->numa);
		rd_out_str(o, RD_JSON, "vendor", NULL, g->amd ? "amd" : "nvidia");
		snprintf(dev, sizeof(dev), "0x%04x", g->device);
		rd_out_str(o, RD_JSON, "device", NULL, dev);
		if (g->c2c)
			rd_out_str(o, RD_JSON, "c2c", NULL, g->c2c_assumed ? "assumed" : "nvml");
		if (g->bar1)
			rd_out_u64(o, RD_JSON, "bar1_mib", NULL, g->bar1 >> 20);
		if (n) {
			rd_out_cstr(o, RD_ANY, "dev", NULL, RD_C_NAME, n->dev);
			rd_out_u64(o, RD_ANY, "port", NULL, n->port);
			rd_out_str(o, RD_ANY, "state", NULL, n->state);
			rd_out_str(o, RD_ANY, "path", NULL, rd_path_name(g->path_topo));
			/* nvidia-smi names the GPU's own PCI path, also where NCCL goes through a peer. */
			const struct rd_tpath *own = rd_gpu_path(t, g->node, n->nic_node);
			const char *smi = rd_gpu_smi_name(t, g->node, n->nic_node,
							  g->pxn_via >= 0 && own ? own->type : g->path_topo);

			/* "-": a topology file's function this node's PCI tree does not show. */
			rd_out_str(o, RD_ANY, "path_smi", NULL, strcmp(smi, "-") ? smi : NULL);
			rd_out_double(o, RD_ANY, "bw_gbytes", NULL, g->bw, "%.1f");
			if (g->path != g->path_topo)
				rd_out_str(o, RD_JSON, "path_used", NULL, rd_path_name(g->path));
			if (g->pxn_via >= 0)
				rd_out_str(o, RD_JSON, "pxn_via", NULL, t->gpus[g->pxn_via].name);
		}
		rd_out_cstr(o, RD_TEXT, "gdr", NULL, g->gdr ? RD_C_GOOD : RD_C_BAD, g->gdr ? "yes" : "no");
		rd_out_bool(o, RD_JSON, "gdr", NULL, g->gdr);
		if (g->gdr)
			rd_out_str(o, RD_JSON, "gdr_mode", NULL, g->gdr_pci_mode ? "pci" : "default");
		rd_out_str(o, RD_ANY, "why", NULL, g->why);
		if (rd_out_is_json(o)) {
			rd_out_list_begin(o, "notes");
			for (size_t k = 0; k < g->notes.n; k++)
				rd_out_str(o, RD_JSON, NULL, NULL, g->notes.v[k]);
			rd_out_list_end(o);
			print_nvlinks(o, g);
			if (v->verbose && n)
				print_chain(o, t, g);
		}
		rd_out_row_end(o);
	}
	rd_out_table_end(o);
	if (rd_out_is_json(o))
		return;
	for (size_t i = 0; i < t->ngpus; i++) {
		const struct rd_gpu *g = &t->gpus[i];

		if (!row_selected(v, t, g) || (!g->notes.n && !(v->verbose && (g->net >= 0 || g->nnvl))))
			continue;
		rd_out_text(o, RD_C_NAME, "%s", g->name);
		rd_out_text(o, RD_C_NONE, " (%s)\n", g->bdf);
		for (size_t k = 0; k < g->notes.n; k++)
			rd_out_text(o, RD_C_WARN, "  note: %s\n", g->notes.v[k]);
		if (v->verbose)
			print_nvlinks(o, g);
		if (v->verbose && g->net >= 0)
			print_chain(o, t, g);
	}
}

/* The matrix: each GPU against every GPU and NIC port NCCL may use, in NCCL's path names. */
void rd_gpumap_print_matrix(struct rd_out *o, const struct rd_gpumap_view *v, const struct rd_gpu_topo *t)
{
	bool json = rd_out_is_json(o);

	if (!json) {
		rd_out_text(o, RD_C_NONE, "%-6s", "");
		for (size_t h = 0; h < t->ngpus; h++)
			rd_out_text(o, RD_C_NONE, " %-5s", t->gpus[h].name);
		for (size_t i = 0; i < t->nnets; i++)
			if (t->nets[i].nic_node >= 0)
				rd_out_text(o, RD_C_NONE, " NIC%-2zu", i);
		rd_out_text(o, RD_C_NONE, " %-5s\n", "NUMA");
	}
	rd_out_list_begin(o, "matrix");
	for (size_t g = 0; g < t->ngpus; g++) {
		const struct rd_gpu *gpu = &t->gpus[g];

		if (!rd_gpumap_gpu_selected(v, gpu))
			continue;
		rd_out_section_begin(o, NULL, NULL);
		rd_out_text(o, RD_C_NAME, "%-6s", gpu->name);
		rd_out_str(o, RD_JSON, "gpu", NULL, gpu->name);
		rd_out_list_begin(o, "paths");
		for (size_t h = 0; h < t->ngpus; h++) {
			const struct rd_tpath *p = rd_gpu_path(t, gpu->node, t->gpus[h].node);
			const char *nm = h == g ? "X" : p ? rd_path_name(p->type) : "-";

			rd_out_text(o, RD_C_NONE, " %-5s", nm);
			rd_out_section_begin(o, NULL, NULL);
			rd_out_str(o, RD_JSON, "to", NULL, t->gpus[h].name);
			rd_out_str(o, RD_JSON, "path", NULL, nm);
			rd_out_section_end(o);
		}
		for (size_t i = 0; i < t->nnets; i++) {
			const struct rd_gpu_net *n = &t->nets[i];
			const struct rd_tpath *p;

			if (n->nic_node < 0)
				continue;
			p = rd_gpu_path(t, gpu->node, n->nic_node);
			rd_out_text(o, RD_C_NONE, " %-5s", p ? rd_path_name(p->type) : "-");
			rd_out_section_begin(o, NULL, NULL);
			rd_out_str(o, RD_JSON, "dev", NULL, n->dev);
			rd_out_u64(o, RD_JSON, "port", NULL, n->port);
			rd_out_str(o, RD_JSON, "path", NULL, p ? rd_path_name(p->type) : "DIS");
			rd_out_section_end(o);
		}
		rd_out_list_end(o);
		if (gpu->numa >= 0) {
			rd_out_text(o, RD_C_NONE, " %d\n", gpu->numa);
			rd_out_u64(o, RD_JSON, "numa", NULL, (uint64_t)gpu->numa);
		} else {
			rd_out_text(o, RD_C_NONE, " -\n");
		}
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
	if (json)
		return;
	rd_out_text(o, RD_C_NONE, "\nNIC legend:\n");
	for (size_t i = 0; i < t->nnets; i++)
		if (t->nets[i].nic_node >= 0)
			rd_out_text(o, RD_C_NONE, "  NIC%zu: %s port %u (%s)\n", i, t->nets[i].dev,
				    t->nets[i].port, t->nets[i].state);
	rd_out_text(o, RD_C_NONE, "\nPIX one PCIe switch; PXB several; PHB through a host bridge (nvidia-smi "
		    "says NODE across host bridges of one NUMA node); SYS across NUMA nodes; P2C a C2C\n"
		    "GPU's CPU-attached NIC.\n");
	if (strcmp(t->nvlink_src, "nvml") == 0)
		rd_out_text(o, RD_C_NONE, "NVL NVLink (also through NVSwitches); NVB NVLink through one other GPU; "
			    "PXN a peer GPU's NIC over NVLink.\n");
}

void rd_gpumap_print_summary(struct rd_out *o, const struct rd_gpu_topo *t)
{
	unsigned int ngdr = 0, nics = 0, active = 0;
	char ver[16];

	for (size_t i = 0; i < t->ngpus; i++)
		ngdr += t->gpus[i].gdr;
	for (size_t i = 0; i < t->nnets; i++) {
		nics++;
		active += t->nets[i].active;
	}
	snprintf(ver, sizeof(ver), "%u.%u", t->conf.version / 100, t->conf.version % 100);
	rd_out_section_begin(o, "summary", NULL);
	rd_out_text(o, RD_C_NONE, "\n%zu GPU%s, %u NIC port%s (%u active), %u NVSwitch%s; GDR %u/%zu via %s; "
		    "IOMMU %s; ACS %s; NCCL %s rules%s\n",
		    t->ngpus, t->ngpus == 1 ? "" : "s", nics, nics == 1 ? "" : "s", active, t->nvswitches,
		    t->nvswitches == 1 ? "" : "es", ngdr, t->ngpus, t->backend, t->iommu,
		    t->acs_readable && !t->acs_unreadable ? "read" : t->acs_readable ? "partly read" :
		    t->acs_unreadable ? "not readable (run as root)" : "none on the paths",
		    ver, t->from_xml ? " on the topology XML" : "");
	/* Where NVLink and C2C facts came from, when there is something to say. */
	if (strcmp(t->nvlink_src, "none") != 0 || strcmp(t->c2c_src, "none") != 0 || t->nvml_note[0])
		rd_out_text(o, RD_C_NONE, "NVLink %s, C2C %s%s%s\n", t->nvlink_src, t->c2c_src,
			    t->nvml_note[0] ? "; NVML: " : "", t->nvml_note);
	rd_out_u64(o, RD_JSON, "gpus", NULL, t->ngpus);
	rd_out_u64(o, RD_JSON, "nic_ports", NULL, nics);
	rd_out_u64(o, RD_JSON, "nic_ports_active", NULL, active);
	rd_out_u64(o, RD_JSON, "nvswitches", NULL, t->nvswitches);
	rd_out_u64(o, RD_JSON, "gdr", NULL, ngdr);
	rd_out_str(o, RD_JSON, "backend", NULL, t->backend);
	rd_out_str(o, RD_JSON, "iommu", NULL, t->iommu);
	rd_out_bool(o, RD_JSON, "acs_readable", NULL, t->acs_readable && !t->acs_unreadable);
	rd_out_str(o, RD_JSON, "nccl_version", NULL, ver);
	rd_out_str(o, RD_JSON, "gdr_level", NULL, rd_path_name(rd_nccl_gdr_level(&t->conf)));
	rd_out_bool(o, RD_JSON, "gdr_c2c", NULL, rd_nccl_gdr_c2c(&t->conf));
	rd_out_bool(o, RD_JSON, "dmabuf", NULL, rd_nccl_dmabuf(&t->conf));
	if (t->conf.ib_hca_set)
		rd_out_str(o, RD_JSON, "ib_hca", NULL, t->conf.ib_hca);
	rd_out_str(o, RD_JSON, "model", NULL, t->from_xml ? "xml" : "sysfs");
	rd_out_str(o, RD_JSON, "nvlink", NULL, t->nvlink_src);
	rd_out_str(o, RD_JSON, "c2c", NULL, t->c2c_src);
	rd_out_bool(o, RD_JSON, "pxn", NULL, rd_nccl_pxn(&t->conf));
	if (t->nvml_note[0])
		rd_out_str(o, RD_JSON, "nvml_note", NULL, t->nvml_note);
	rd_out_section_end(o);
}

int rd_gpumap_print_expect(struct rd_out *o, const struct rd_gpu_topo *t, struct rd_gpu_expects *e)
{
	size_t missed = rd_gpu_expect_check(t, e);

	rd_out_list_begin(o, "expect");
	for (size_t i = 0; i < e->n; i++) {
		const struct rd_gpu_expect *x = &e->v[i];

		rd_out_section_begin(o, NULL, NULL);
		if (!x->met)
			rd_out_text(o, RD_C_BAD, "FAIL");
		rd_out_text(o, RD_C_NONE, "%s", x->met ? "" : " ");
		if (!x->met)
			rd_out_text(o, RD_C_NONE, "expect line %u: %s\n", x->line, x->detail);
		rd_out_u64(o, RD_JSON, "line", NULL, x->line);
		rd_out_str(o, RD_JSON, "gpu", NULL, x->gpu);
		rd_out_str(o, RD_JSON, "status", NULL, x->met ? "pass" : "fail");
		rd_out_str(o, RD_JSON, "detail", NULL, x->detail);
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
	rd_out_text(o, missed ? RD_C_BAD : RD_C_GOOD, "expectations: %zu met, %zu missed\n",
		    e->n - missed, missed);
	return missed ? RD_EXIT_FAIL : RD_EXIT_OK;
}

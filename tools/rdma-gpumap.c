// SPDX-License-Identifier: MIT
/* rdma-gpumap: which NIC each GPU uses and whether GPUDirect RDMA will, by NCCL's rules. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "gpu/gpu.h"
#include "model/model.h"
#include "output/output.h"

enum {
	OPT_GPU = RD_OPT_TOOL_BASE,
	OPT_NIC,
	OPT_GDR_LEVEL,
	OPT_IB_HCA,
	OPT_GDR_C2C,
	OPT_DMABUF,
	OPT_TOPO_XML,
	OPT_NO_ENV,
	OPT_NCCL_VERSION,
	OPT_EXPECT,
	OPT_TIMEOUT,
};

static void usage(const char *prog)
{
	printf("Usage: %s [options]\n"
	       "Which RDMA NIC each GPU uses and whether GPUDirect RDMA (GDR) will be used, by\n"
	       "NCCL's own rules, from sysfs (no GPU driver, CUDA or NVML needed).\n"
	       "\n"
	       "Options:\n"
	       "  -m, --matrix          GPUs against GPUs and NICs, as nvidia-smi topo -m (NCCL's names)\n"
	       "  -v, --verbose         each GPU's PCI hops to its NIC: speed, width, ACS bits\n"
	       "      --gpu LIST        only these GPUs (GPU0,1 or PCI addresses; repeatable)\n"
	       "  -d, --device NAME     only rows whose NIC is this RDMA device (repeatable)\n"
	       "      --nic NAME        the same as -d\n"
	       "      --nccl-version X.Y  the NCCL release whose rules apply (default 2.30)\n"
	       "      --gdr-level PATH  NCCL_NET_GDR_LEVEL (PIX PXB P2C PHB SYS)\n"
	       "      --ib-hca SPEC     NCCL_IB_HCA (mlx5_0:1,mlx5_1, ^mlx5_4, =mlx5_0)\n"
	       "      --gdr-c2c 0|1     NCCL_NET_GDR_C2C\n"
	       "      --dmabuf 0|1      NCCL_DMABUF_ENABLE\n"
	       "      --topo-xml FILE   an NCCL topology XML as the model (NCCL_TOPO_FILE)\n"
	       "      --no-env          ignore NCCL_* variables in the environment\n"
	       "      --expect FILE     lines \"GPU0 mlx5_0 PIX gdr\"; a miss is a failure\n"
	       "      --timeout SEC     give up on an --expect or --topo-xml pipe silent for SEC\n"
	       "  -j, --json            JSON output\n"
	       RD_TABLE_USAGE("gpu,nic,path")
	       "      --sysroot DIR     read DIR/sys and DIR/proc instead of the live system\n"
	       "      --color[=WHEN]    colour: auto (default), always, never\n"
	       "  -h, --help            this help\n"
	       "  -V, --version         version\n"
	       "\n"
	       "Exit status: 0 ok, 1 failure (no GPU, an expectation missed), 2 usage error.\n",
	       prog);
}

struct opts {
	struct rd_strlist gpus, nics;
	bool matrix, verbose, no_env;
	const char *expect_file, *xml;
	int timeout_ms;
};

static bool gpu_selected(const struct opts *op, const struct rd_gpu *g)
{
	if (!op->gpus.n)
		return true;
	for (size_t i = 0; i < op->gpus.n; i++) {
		const char *s = op->gpus.v[i];

		if (strcmp(s, g->name) == 0 || strcmp(s, g->bdf) == 0 ||
		    (strncmp(g->name, "GPU", 3) == 0 && strcmp(s, g->name + 3) == 0))
			return true;
	}
	return false;
}

static bool row_selected(const struct opts *op, const struct rd_gpu_topo *t, const struct rd_gpu *g)
{
	if (!gpu_selected(op, g))
		return false;
	if (!op->nics.n)
		return true;
	return g->net >= 0 && rd_strlist_has(&op->nics, t->nets[g->net].dev);
}

static const struct rd_col cols[] = {
	{ "gpu", "GPU", false, false },	{ "bus", "BUS", false, false },	{ "numa", "NUMA", true, false },
	{ "dev", "NIC", false, false },	{ "port", "PORT", true, false },	{ "state", "STATE", false, false },
	{ "path", "PATH", false, false },	{ "path_smi", "SMI", false, false },	{ "bw_gbytes", "BW", true, false },
	{ "gdr", "GDR", false, false },	{ "why", "WHY", false, true },
};
static const struct rd_out_colset tables[] = {
	{ cols, RD_ARRAY_SIZE(cols) },
};

static void print_chain(struct rd_out *o, const struct rd_gpu_topo *t, const struct rd_gpu *g)
{
	const struct rd_gpu_net *n = &t->nets[g->net];
	int nicf = t->nodes[n->nic_node].pci, chain[64], all[66];
	size_t len = rd_gpu_pci_chain(t, g->pci, nicf, chain, RD_ARRAY_SIZE(chain)), na = 0;

	if (g->pci < 0 || nicf < 0)
		return;
	all[na++] = g->pci;
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
			    link, f->acs == RD_ACS_PRESENT ? rd_acs_bits(f->acs_ctrl, bits) :
			    f->acs == RD_ACS_ABSENT ? "none" : "unread");
		rd_out_str(o, RD_JSON, "pci", NULL, f->bdf);
		if (f->link_known) {
			rd_out_u64(o, RD_JSON, "width", NULL, f->cur_width);
			rd_out_u64(o, RD_JSON, "max_width", NULL, f->max_width);
			rd_out_double(o, RD_JSON, "speed_gts", NULL, f->cur_gts, "%g");
			rd_out_double(o, RD_JSON, "max_speed_gts", NULL, f->max_gts, "%g");
		}
		if (f->acs == RD_ACS_PRESENT)
			rd_out_str(o, RD_JSON, "acs", NULL, rd_acs_bits(f->acs_ctrl, bits));
		rd_out_section_end(o);
	}
	rd_out_list_end(o);
}

static void print_rows(struct rd_out *o, const struct opts *op, const struct rd_gpu_topo *t)
{
	rd_out_table_begin(o, "gpus", cols, RD_ARRAY_SIZE(cols), true);
	for (size_t i = 0; i < t->ngpus; i++) {
		const struct rd_gpu *g = &t->gpus[i];
		const struct rd_gpu_net *n = g->net >= 0 ? &t->nets[g->net] : NULL;
		char dev[8];

		if (!row_selected(op, t, g))
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
		if (n) {
			rd_out_cstr(o, RD_ANY, "dev", NULL, RD_C_NAME, n->dev);
			rd_out_u64(o, RD_ANY, "port", NULL, n->port);
			rd_out_str(o, RD_ANY, "state", NULL, n->state);
			rd_out_str(o, RD_ANY, "path", NULL, rd_path_name(g->path_topo));
			const char *smi = rd_gpu_smi_name(t, g->node, n->nic_node, g->path_topo);

			/* "-": a topology file's function this node's PCI tree does not show. */
			rd_out_str(o, RD_ANY, "path_smi", NULL, strcmp(smi, "-") ? smi : NULL);
			rd_out_double(o, RD_ANY, "bw_gbytes", NULL, g->bw, "%.1f");
			if (g->path != g->path_topo)
				rd_out_str(o, RD_JSON, "path_used", NULL, rd_path_name(g->path));
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
			if (op->verbose && n)
				print_chain(o, t, g);
		}
		rd_out_row_end(o);
	}
	rd_out_table_end(o);
	if (rd_out_is_json(o))
		return;
	for (size_t i = 0; i < t->ngpus; i++) {
		const struct rd_gpu *g = &t->gpus[i];

		if (!row_selected(op, t, g) || (!g->notes.n && !(op->verbose && g->net >= 0)))
			continue;
		rd_out_text(o, RD_C_NAME, "%s", g->name);
		rd_out_text(o, RD_C_NONE, " (%s)\n", g->bdf);
		for (size_t k = 0; k < g->notes.n; k++)
			rd_out_text(o, RD_C_WARN, "  note: %s\n", g->notes.v[k]);
		if (op->verbose && g->net >= 0)
			print_chain(o, t, g);
	}
}

/* The matrix: each GPU against every GPU and NIC port NCCL may use, in NCCL's path names. */
static void print_matrix(struct rd_out *o, const struct opts *op, const struct rd_gpu_topo *t)
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

		if (!gpu_selected(op, gpu))
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
}

static void print_summary(struct rd_out *o, const struct rd_gpu_topo *t)
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
	rd_out_section_end(o);
}

static int print_expect(struct rd_out *o, const struct rd_gpu_topo *t, struct rd_gpu_expects *e)
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

static bool short_id(const char *id)
{
	return strlen(id) < 64;
}

/* A --gpu or --nic that names nothing here: say what is known. */
static int check_selection(struct rd_cli *cli, const struct opts *op, const struct rd_gpu_topo *t)
{
	for (size_t i = 0; i < op->gpus.n; i++) {
		struct rd_strlist known = { 0 };
		bool hit = false;
		char *k;

		for (size_t g = 0; g < t->ngpus; g++) {
			const char *s = op->gpus.v[i];

			hit |= strcmp(s, t->gpus[g].name) == 0 || strcmp(s, t->gpus[g].bdf) == 0 ||
			       strcmp(s, t->gpus[g].name + 3) == 0;
			(void)rd_strlist_add(&known, t->gpus[g].name);
		}
		k = rd_strlist_join(&known, " ");
		rd_strlist_free(&known);
		if (!hit) {
			rd_cli_error(cli, "%s: no such GPU (known: %s)", op->gpus.v[i], k ? k : "");
			free(k);
			return RD_EXIT_FAIL;
		}
		free(k);
	}
	for (size_t i = 0; i < op->nics.n; i++) {
		struct rd_strlist known = { 0 };
		bool hit = false;
		char *k;

		for (size_t n = 0; n < t->nnets; n++) {
			hit |= strcmp(op->nics.v[i], t->nets[n].dev) == 0;
			(void)rd_strlist_add_unique(&known, t->nets[n].dev);
		}
		k = rd_strlist_join(&known, " ");
		rd_strlist_free(&known);
		if (!hit) {
			rd_cli_error(cli, "%s: no such device (known: %s)", op->nics.v[i], k && *k ? k : "none");
			free(k);
			return RD_EXIT_FAIL;
		}
		free(k);
	}
	return RD_EXIT_OK;
}

static int conf_opt(struct rd_cli *cli, struct rd_nccl_conf *c, const char *var, const char *val)
{
	char msg[200];

	if (rd_nccl_conf_set(c, var, val, "option", msg, sizeof(msg)))
		return rd_cli_usage_error(cli, "%s", msg);
	return 0;
}

static int parse_opts(struct rd_cli *cli, int argc, char **argv, struct opts *op, struct rd_nccl_conf *c)
{
	static const struct option longopts[] = {
		{ "matrix", no_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "gpu", required_argument, NULL, OPT_GPU },
		{ "nic", required_argument, NULL, OPT_NIC },
		{ "gdr-level", required_argument, NULL, OPT_GDR_LEVEL },
		{ "ib-hca", required_argument, NULL, OPT_IB_HCA },
		{ "gdr-c2c", required_argument, NULL, OPT_GDR_C2C },
		{ "dmabuf", required_argument, NULL, OPT_DMABUF },
		{ "topo-xml", required_argument, NULL, OPT_TOPO_XML },
		{ "no-env", no_argument, NULL, OPT_NO_ENV },
		{ "nccl-version", required_argument, NULL, OPT_NCCL_VERSION },
		{ "expect", required_argument, NULL, OPT_EXPECT },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		RD_COMMON_LONGOPTS,
		RD_TABLE_LONGOPTS,
		{ 0 },
	};
	static const int repeatable[] = { OPT_GPU, OPT_NIC, 0 };
	int opt;

	cli->repeatable = repeatable;
	while ((opt = rd_cli_getopt(cli, argc, argv, ":mv" RD_COMMON_SHORTOPTS RD_TABLE_SHORTOPTS, longopts)) != -1) {
		int ret = 0;

		switch (opt) {
		case RD_CLI_OPT_USAGE:
			return RD_EXIT_USAGE;
		case 'm':
			op->matrix = true;
			break;
		case 'v':
			op->verbose = true;
			break;
		case OPT_GPU:
		case OPT_NIC:
			ret = rd_cli_check_ids(cli, opt == OPT_GPU ? &op->gpus : &op->nics, optarg,
					       opt == OPT_GPU ? "--gpu" : "--nic", short_id);
			break;
		case OPT_GDR_LEVEL:
			ret = conf_opt(cli, c, "NCCL_NET_GDR_LEVEL", optarg);
			break;
		case OPT_IB_HCA:
			ret = conf_opt(cli, c, "NCCL_IB_HCA", optarg);
			break;
		case OPT_GDR_C2C:
			ret = conf_opt(cli, c, "NCCL_NET_GDR_C2C", optarg);
			break;
		case OPT_DMABUF:
			ret = conf_opt(cli, c, "NCCL_DMABUF_ENABLE", optarg);
			break;
		case OPT_TOPO_XML:
			ret = conf_opt(cli, c, "NCCL_TOPO_FILE", optarg);
			break;
		case OPT_NO_ENV:
			op->no_env = true;
			break;
		case OPT_NCCL_VERSION: {
			int e = rd_nccl_version_parse(optarg, &c->version);

			if (e)
				ret = rd_cli_usage_error(cli, "--nccl-version: \"%s\" is %s", optarg,
							 e == -ERANGE ? "outside the releases known (2.12 to 2.30)" :
							 "not a release (2.27)");
			break;
		}
		case OPT_EXPECT:
			op->expect_file = optarg;
			break;
		case OPT_TIMEOUT:
			ret = rd_cli_file_timeout(cli, optarg, &op->timeout_ms);
			break;
		default:
			return rd_cli_getopt_error(cli, opt, argv);
		}
		if (ret)
			return ret;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct opts op = { .timeout_ms = 10000 };
	struct rd_device_list list = { 0 };
	struct rd_gpu_expects expect = { 0 };
	struct rd_nccl_conf conf;
	struct rd_gpu_topo topo = { 0 };
	struct rd_out *o = NULL;
	struct rd_cli cli;
	char msg[200], why[200];
	int ret;

	rd_cli_init(&cli, "rdma-gpumap");
	rd_nccl_conf_init(&conf);
	ret = parse_opts(&cli, argc, argv, &op, &conf);
	if (ret >= 0)
		goto out;
	ret = rd_cli_operands(&cli, argc, argv, usage, 0, NULL);
	if (ret >= 0)
		goto out;
	ret = op.matrix ? rd_cli_table_none(&cli, "-m") : rd_cli_table_check(&cli, tables, RD_ARRAY_SIZE(tables));
	if (ret)
		goto out;
	for (size_t i = 0; i < cli.devices.n; i++)
		(void)rd_strlist_add_unique(&op.nics, cli.devices.v[i]);
	if (!op.no_env && rd_nccl_conf_env(&conf, msg, sizeof(msg))) {
		ret = rd_cli_usage_error(&cli, "%s (or --no-env)", msg);
		goto out;
	}
	op.xml = conf.topo_file[0] ? conf.topo_file : NULL;
	if (op.xml && (ret = rd_cli_input_file(&cli, conf.src_topo_file && strcmp(conf.src_topo_file, "option") == 0 ?
					       "--topo-xml" : "NCCL_TOPO_FILE", op.xml)) != 0)
		goto out;
	if (op.expect_file) {
		ret = rd_cli_input_file(&cli, "--expect", op.expect_file);
		if (ret)
			goto out;
		if (rd_gpu_expect_read(op.expect_file, op.timeout_ms, &expect, why, sizeof(why))) {
			ret = rd_cli_usage_error(&cli, "--expect %s: %s", op.expect_file, why);
			goto out;
		}
	}
	ret = rd_cli_setup(&cli);
	if (ret >= 0)
		goto out;
	/* Every device: a NIC filter selects rows, never what NCCL may choose from. */
	rd_strlist_free(&cli.devices);
	/* What a NIC port gives the model: its PCI function, state, link layer and rate. */
	cli.scan_flags = RD_SCAN_PORT_STATE_LOGICAL | RD_SCAN_PORT_RATE;
	if (rd_device_scan_flags(&cli.sr, NULL, &list, NULL, &cli.warnings, cli.scan_flags) < 0)
		list.n = 0;
	ret = rd_gpu_topo_build(&cli.sr, &list, &conf, op.xml, &topo, &cli.warnings, msg, sizeof(msg));
	rd_cli_flush_warnings(&cli);
	if (ret == -ENOENT) {
		rd_cli_error(&cli, "no PCI devices: %s/sys/bus/pci/devices is missing", cli.sr.root);
		ret = RD_EXIT_FAIL;
		goto out;
	}
	if (ret == -EBADF && op.xml) {
		ret = rd_cli_usage_error(&cli, "%s %s: %s", conf.src_topo_file &&
					 strcmp(conf.src_topo_file, "option") == 0 ? "--topo-xml" : "NCCL_TOPO_FILE",
					 op.xml, msg);
		goto out;
	}
	if (ret) {
		rd_cli_error(&cli, "%s: %s", op.xml ? op.xml : "topology",
			     msg[0] ? msg : strerror(-ret));
		ret = RD_EXIT_FAIL;
		goto out;
	}
	if (!topo.ngpus) {
		rd_cli_error(&cli, "no GPU found (no NVIDIA 3D/VGA or AMD Instinct function under %s/sys/bus/pci)",
			     cli.sr.root);
		ret = RD_EXIT_FAIL;
		goto out;
	}
	ret = check_selection(&cli, &op, &topo);
	if (ret)
		goto out;
	o = rd_out_new(stdout, cli.json, cli.color);
	if (!o) {
		rd_cli_error(&cli, "out of memory");
		ret = RD_EXIT_FAIL;
		goto out;
	}
	rd_out_set_table_opts(o, &cli.table);
	rd_out_section_begin(o, NULL, NULL);
	if (op.matrix)
		print_matrix(o, &op, &topo);
	else
		print_rows(o, &op, &topo);
	print_summary(o, &topo);
	ret = expect.n ? print_expect(o, &topo, &expect) : RD_EXIT_OK;
	rd_out_section_end(o);
out:
	rd_gpu_expects_free(&expect);
	rd_gpu_topo_free(&topo);
	rd_device_list_free(&list);
	rd_strlist_free(&op.gpus);
	rd_strlist_free(&op.nics);
	return rd_cli_exit(&cli, o, ret);
}

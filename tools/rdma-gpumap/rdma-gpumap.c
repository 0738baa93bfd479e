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
#include "mapprint.h"

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
	OPT_NVML,
	OPT_PXN_DISABLE,
	OPT_PXN_C2C,
};

static void usage(const char *prog)
{
	printf("Usage: %s [options]\n"
	       "Which RDMA NIC each GPU uses and whether GPUDirect RDMA (GDR) will be used, by\n"
	       "NCCL's own rules, from sysfs (no GPU driver or CUDA needed); NVLink, C2C and\n"
	       "PXN from NVML when libnvidia-ml.so.1 loads.\n"
	       "\n"
	       "Options:\n"
	       "  -m, --matrix          GPUs against GPUs and NICs, as nvidia-smi topo -m\n"
	       "                        (in NCCL's names)\n"
	       "  -v, --verbose         each GPU's PCI hops to its NIC: speed, width, ACS bits\n"
	       "      --gpu LIST        only these GPUs (GPU0,1 or PCI addresses; repeatable)\n"
	       "  -d, --device NAME     only rows whose NIC is this RDMA device (repeatable)\n"
	       "      --nic NAME        the same as -d\n"
	       "      --nccl-version X.Y  the NCCL release whose rules apply (default 2.30)\n"
	       "      --gdr-level PATH  NCCL_NET_GDR_LEVEL (PIX PXB P2C PHB SYS)\n"
	       "      --ib-hca SPEC     NCCL_IB_HCA (mlx5_0:1,mlx5_1, ^mlx5_4, =mlx5_0)\n"
	       "      --gdr-c2c 0|1     NCCL_NET_GDR_C2C\n"
	       "      --dmabuf 0|1      NCCL_DMABUF_ENABLE\n"
	       "      --pxn-disable 0|1  NCCL_PXN_DISABLE\n"
	       "      --pxn-c2c 0|1     NCCL_PXN_C2C\n"
	       "      --topo-xml FILE   an NCCL topology XML as the model (NCCL_TOPO_FILE)\n"
	       "      --nvml WHEN       NVLink/C2C from NVML: auto (live only), always, never\n"
	       "      --no-env          ignore NCCL_* variables in the environment\n"
	       "      --expect FILE     lines \"GPU0 mlx5_0 PIX gdr\"; a miss is a failure\n"
	       "      --timeout SEC     give up on an --expect or --topo-xml pipe silent for SEC\n"
	       "  -j, --json            JSON output\n"
	       RD_TABLE_USAGE("gpu,nic,path")
	       "      --sysroot DIR     read DIR/sys and DIR/proc instead of the live system\n"
	       RD_COMMON_USAGE_END
	       "\n"
	       "Exit status: 0 ok, 1 failure (no GPU, an expectation missed), 2 usage error.\n",
	       prog);
}

struct opts {
	struct rd_strlist gpus, nics;
	bool matrix, verbose, no_env;
	const char *expect_file, *xml;
	int timeout_ms;
	enum rd_nvml_use nvml;
};

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
		{ "nvml", required_argument, NULL, OPT_NVML },
		{ "pxn-disable", required_argument, NULL, OPT_PXN_DISABLE },
		{ "pxn-c2c", required_argument, NULL, OPT_PXN_C2C },
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
		case OPT_PXN_DISABLE:
			ret = conf_opt(cli, c, "NCCL_PXN_DISABLE", optarg);
			break;
		case OPT_PXN_C2C:
			ret = conf_opt(cli, c, "NCCL_PXN_C2C", optarg);
			break;
		case OPT_NVML:
			if (rd_nvml_use_parse(optarg, &op->nvml))
				ret = rd_cli_usage_error(cli, "--nvml: \"%s\" is not auto, always or never", optarg);
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

/*
 * NVML when asked: auto on the live system only (a copied tree is not this
 * machine), always even with --sysroot or --topo-xml.  A library that will
 * not load is silent under auto and an error under always; one that loads
 * and fails is a note in the summary.  -1 to go on, else the exit status.
 */
static int load_nvml(struct rd_cli *cli, const struct opts *op, struct rd_nvml *nvml)
{
	int ret;

	if (op->nvml == RD_NVML_NEVER || (op->nvml == RD_NVML_AUTO && (cli->sysroot_dir || op->xml)))
		return -1;
	ret = rd_nvml_read(nvml);
	if (ret == -ENOENT && op->nvml == RD_NVML_ALWAYS) {
		rd_cli_error(cli, "--nvml always: %s (is the NVIDIA driver installed? or --nvml auto)", nvml->note);
		return RD_EXIT_FAIL;
	}
	if (ret == -ENOENT)
		nvml->note[0] = '\0';
	return -1;
}

int main(int argc, char **argv)
{
	struct opts op = { .timeout_ms = 10000 };
	struct rd_device_list list = { 0 };
	struct rd_gpu_expects expect = { 0 };
	struct rd_nccl_conf conf;
	struct rd_gpu_topo topo = { 0 };
	struct rd_nvml nvml = { 0 };
	struct rd_gpumap_view view;
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
	ret = op.matrix ? rd_cli_table_none(&cli, "-m") : rd_cli_table_check(&cli, rd_gpumap_tables, RD_GPUMAP_NTABLES);
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
	ret = load_nvml(&cli, &op, &nvml);
	if (ret >= 0)
		goto out;
	ret = rd_gpu_topo_build_nvml(&cli.sr, &list, &conf, op.xml, nvml.loaded || nvml.note[0] ? &nvml : NULL,
				     &topo, &cli.warnings, msg, sizeof(msg));
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
	o = rd_cli_out(&cli);
	if (!o) {
		ret = RD_EXIT_FAIL;
		goto out;
	}
	view = (struct rd_gpumap_view){ .gpus = &op.gpus, .nics = &op.nics, .verbose = op.verbose };
	rd_out_section_begin(o, NULL, NULL);
	if (op.matrix)
		rd_gpumap_print_matrix(o, &view, &topo);
	else
		rd_gpumap_print_rows(o, &view, &topo);
	rd_gpumap_print_summary(o, &topo);
	ret = expect.n ? rd_gpumap_print_expect(o, &topo, &expect) : RD_EXIT_OK;
	rd_out_section_end(o);
out:
	rd_gpu_expects_free(&expect);
	rd_gpu_topo_free(&topo);
	rd_nvml_free(&nvml);
	rd_device_list_free(&list);
	rd_strlist_free(&op.gpus);
	rd_strlist_free(&op.nics);
	return rd_cli_exit(&cli, o, ret);
}

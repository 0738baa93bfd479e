// SPDX-License-Identifier: MIT
/*
 * rdma-gpumap --topo-xml / NCCL_TOPO_FILE: the bytes as an NCCL topology XML
 * (a memfd), read by rd_gpu_topo_build() over a sysroot with no PCI tree and
 * no RDMA device (only nvidia_peermem, so that GDR is decided): the reader
 * under its limits, the graph it makes, NCCL's paths on it and the NIC and
 * GDR decision per GPU.  Invariants: every link and path points inside the
 * graph, every path type is one of NCCL's, each GPU's NIC is a net of the
 * topology or none, and its path is as far as its topological path or
 * farther only when GDR is off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/gpu.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64];

static void remove_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_gpuxml: could not remove %s\n", root);
}

/* The empty node: only /sys/module/nvidia_peermem/version. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[160];
	FILE *f;

	(void)argc;
	(void)argv;
	strcpy(root, "/tmp/fuzz-gpuxml-XXXXXX");
	if (!mkdtemp(root))
		abort();
	atexit(remove_root);
	snprintf(path, sizeof(path), "%s/sys", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/module", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/module/nvidia_peermem", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/module/nvidia_peermem/version", root);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs("1.0\n", f);
	fclose(f);
	return 0;
}

static void check(const struct rd_gpu_topo *t)
{
	for (size_t i = 0; i < t->nnodes; i++)
		for (size_t l = 0; l < t->nodes[i].nlinks; l++)
			if (t->nodes[i].links[l].rem < 0 || (size_t)t->nodes[i].links[l].rem >= t->nnodes)
				__builtin_trap();
	for (size_t i = 0; i < t->nnodes * t->nbases; i++)
		if (t->paths[i].type < RD_PATH_LOC || t->paths[i].type > RD_PATH_DIS ||
		    t->paths[i].next < -1 || t->paths[i].next >= (int)t->nnodes)
			__builtin_trap();
	for (size_t i = 0; i < t->nnets; i++)
		if (t->nets[i].node >= (int)t->nnodes || t->nets[i].nic_node >= (int)t->nnodes)
			__builtin_trap();
	for (size_t g = 0; g < t->ngpus; g++) {
		const struct rd_gpu *gpu = &t->gpus[g];

		if (gpu->node < 0 || (size_t)gpu->node >= t->nnodes || t->nodes[gpu->node].type != RD_TN_GPU ||
		    !memchr(gpu->why, '\0', sizeof(gpu->why)))
			__builtin_trap();
		if (gpu->net < 0)
			continue;
		if ((size_t)gpu->net >= t->nnets || t->nets[gpu->net].node < 0)
			__builtin_trap();
		if (gpu->path < gpu->path_topo && gpu->path != RD_PATH_P2C)
			__builtin_trap();
		if (gpu->path != gpu->path_topo && gpu->gdr)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_device_list devs = { 0 };
	struct rd_sysroot sr;
	struct rd_nccl_conf conf;
	struct rd_gpu_topo t;
	struct rd_warnings w = { 0 };
	char path[64], msg[256];
	int fd, ret;

	if (rd_sysroot_init(&sr, root))
		abort();
	fd = memfd_create("fuzz-gpuxml", 0);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rd_nccl_conf_init(&conf);
	ret = rd_gpu_topo_build(&sr, &devs, &conf, path, &t, &w, msg, sizeof(msg));
	if (ret == 0)
		check(&t);
	else if (ret != -EINVAL && ret != -ENOMEM)
		__builtin_trap();	/* the file opened: it is a topology or it is malformed */
	else if (ret == -EINVAL && !msg[0])
		__builtin_trap();	/* a malformed file always says why */
	rd_gpu_topo_free(&t);
	rd_warnings_free(&w);
	close(fd);
	return 0;
}

// SPDX-License-Identifier: MIT
/* What the node offers GPUDirect RDMA: peer-memory modules, driver, kernel, libibverbs, CPU. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputopo.h"

/* /proc/cpuinfo: the first processor's vendor, family and model (arch from its keys). */
static void read_cpu(const struct rd_sysroot *sr, struct rd_gdr_host *h)
{
	char path[RD_PATH_MAX], line[4096];	/* a flags line runs to ~1,500 bytes */
	FILE *f;

	if (rd_sys_resolve(sr, path, sizeof(path), "/proc/cpuinfo"))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	for (int n = 0; n < 4096 && fgets(line, sizeof(line), f); n++) {
		char *colon = strchr(line, ':'), *val;
		size_t klen;

		if (!colon)
			continue;
		val = colon + 1 + strspn(colon + 1, " \t");
		val[strcspn(val, "\n")] = '\0';
		klen = (size_t)(colon - line);
		while (klen && (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
			klen--;
		line[klen] = '\0';
		if (strcmp(line, "vendor_id") == 0 && !h->cpu_vendor[0]) {
			rd_strlcpy(h->cpu_vendor, val, sizeof(h->cpu_vendor));
			rd_strlcpy(h->arch, "x86_64", sizeof(h->arch));
		} else if (strcmp(line, "cpu family") == 0 && !h->cpu_family) {
			h->cpu_family = (unsigned int)strtoul(val, NULL, 10);
		} else if (strcmp(line, "model") == 0 && !h->cpu_model) {
			h->cpu_model = (unsigned int)strtoul(val, NULL, 10);
		} else if (strcmp(line, "flags") == 0 && !h->flags_seen) {
			/* x86: the kernel sets "hypervisor" when CPUID says it runs under one. */
			h->flags_seen = true;
			for (char *save = NULL, *tok = strtok_r(val, " \t", &save); tok;
			     tok = strtok_r(NULL, " \t", &save))
				if (strcmp(tok, "hypervisor") == 0)
					h->hypervisor = true;
		} else if (strcmp(line, "CPU implementer") == 0 && !h->arch[0]) {
			rd_strlcpy(h->arch, "aarch64", sizeof(h->arch));
		} else if (strcmp(line, "cpu") == 0 && strncmp(val, "POWER", 5) == 0 && !h->arch[0]) {
			rd_strlcpy(h->arch, "ppc64", sizeof(h->arch));
		}
		/*
		 * x86: the first processor's block told everything kept (each fact
		 * is its first line, and the arch is set): the other processors'
		 * blocks, ~2 KB each, are not read.
		 */
		if (h->cpu_vendor[0] && h->cpu_family && h->cpu_model && h->flags_seen)
			break;
	}
	(void)fclose(f);	/* read only */
}

/*
 * libibverbs' file name carries the rdma-core release that built it
 * (libibverbs.so.1.14.44.0 is rdma-core 44): the newest one on disk.
 */
static int read_rdma_core(const struct rd_sysroot *sr)
{
	static const char *const dirs[] = {
		"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
		"/usr/lib/powerpc64le-linux-gnu", "/usr/lib64", "/usr/lib", "/lib64",
	};
	int best = -1;

	for (size_t i = 0; i < RD_ARRAY_SIZE(dirs); i++) {
		struct rd_strlist names = { 0 };

		if (rd_sys_list(sr, &names, "%s", dirs[i]))
			continue;
		for (size_t k = 0; k < names.n; k++) {
			const char *p = names.v[k];
			unsigned long rel;
			char *e;

			/* "libibverbs.so.1.ABI.RELEASE.0" */
			if (strncmp(p, "libibverbs.so.1.", 16) != 0)
				continue;
			(void)strtoul(p + 16, &e, 10);
			if (e == p + 16 || *e != '.')
				continue;
			p = e + 1;
			rel = strtoul(p, &e, 10);
			if (e == p || *e != '.' || rel >= 1000)
				continue;
			if ((int)rel > best)
				best = (int)rel;
		}
		rd_strlist_free(&names);
	}
	return best;
}

void rd_gdr_host_read(const struct rd_sysroot *sr, struct rd_gdr_host *h)
{
	char buf[256];

	memset(h, 0, sizeof(*h));
	h->nvidia_open = -1;
	h->peermem_loaded = rd_sys_check_dir(sr, "/sys/module/nvidia_peermem") == 0;
	h->peermem_module = rd_sys_exists(sr, "/sys/module/nvidia_peermem/version");
	h->nv_mem = rd_sys_exists(sr, "/sys/kernel/mm/memory_peers/nv_mem/version");
	h->nv_mem_nc = rd_sys_exists(sr, "/sys/kernel/mm/memory_peers/nv_mem_nc/version");
	h->amd_peer = rd_sys_exists(sr, "/sys/kernel/mm/memory_peers/amdkfd/version");
	h->nvidia_loaded = rd_sys_check_dir(sr, "/sys/module/nvidia") == 0;
	h->amdgpu_loaded = rd_sys_check_dir(sr, "/sys/module/amdgpu") == 0;
	if (rd_sys_read_str(sr, h->nvidia_version, sizeof(h->nvidia_version), "/sys/module/nvidia/version"))
		h->nvidia_version[0] = '\0';
	/* "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.90.07 ..." */
	if (rd_sys_read_str(sr, buf, sizeof(buf), "/proc/driver/nvidia/version") == 0)
		h->nvidia_open = strstr(buf, "Open Kernel Module") ? 1 : strstr(buf, "NVRM") ? 0 : -1;
	if (rd_sys_read_str(sr, h->osrelease, sizeof(h->osrelease), "/proc/sys/kernel/osrelease") == 0) {
		char *e, *e2 = NULL;
		unsigned long ma = strtoul(h->osrelease, &e, 10), mi = 0;

		if (e != h->osrelease && *e == '.')
			mi = strtoul(e + 1, &e2, 10);
		if (e == h->osrelease || *e != '.' || e2 == e + 1 || ma > 99 || mi > 999)
			ma = mi = 0;
		h->kmajor = (unsigned int)ma;
		h->kminor = (unsigned int)mi;
	} else {
		h->osrelease[0] = '\0';
	}
	h->rdma_core = read_rdma_core(sr);
	read_cpu(sr, h);
}

const char *rd_gdr_dmabuf_blocker(const struct rd_gdr_host *h, bool amd, char *buf, size_t len)
{
	if (!h->kmajor)
		snprintf(buf, len, "the kernel release is unknown");
	else if (h->kmajor < 5 || (h->kmajor == 5 && h->kminor < 12))
		snprintf(buf, len, "kernel %u.%u < 5.12", h->kmajor, h->kminor);
	else if (!amd && !h->nvidia_loaded)
		snprintf(buf, len, "the nvidia module is not loaded");
	else if (!amd && h->nvidia_open == 0)
		snprintf(buf, len, "the NVIDIA driver is the proprietary kernel module (dma-buf needs the open one)");
	else if (!amd && h->nvidia_open < 0)
		snprintf(buf, len, "whether the NVIDIA kernel module is the open one is unknown "
			 "(no /proc/driver/nvidia/version)");
	else if (amd && !h->amdgpu_loaded)
		snprintf(buf, len, "the amdgpu module is not loaded");
	else if (h->rdma_core >= 0 && h->rdma_core < 34)
		snprintf(buf, len, "rdma-core %d < 34 (no ibv_reg_dmabuf_mr)", h->rdma_core);
	else
		return NULL;
	return buf;
}

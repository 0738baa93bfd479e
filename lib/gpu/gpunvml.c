// SPDX-License-Identifier: MIT
/*
 * NVML through dlopen: libnvidia-ml.so.1 is loaded when it exists, the few
 * functions used are looked up one by one (a driver too old for one of them
 * loses that fact only), everything is read at once and the library is shut
 * down and closed before returning.  The types below are NVML's public ABI
 * (nvml.h), declared here so that the kit needs no NVIDIA header.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/base.h"
#include "gpunvml.h"

/* nvml.h: nvmlReturn_t, nvmlDevice_t, nvmlPciInfo_t (the _v3 / _v2 layout). */
typedef int nvml_ret;
typedef struct nvml_dev_st *nvml_dev;
struct nvml_pci {
	char bus_id_legacy[16];		/* "0000:1B:00.0" */
	/* domain, bus, device, pci_device_id, pci_subsystem_id: the strings say it all */
	unsigned int ids[5];		/* cppcheck-suppress unusedStructMember ; NVML's layout */
	char bus_id[32];		/* "00000000:1B:00.0" */
};
struct nvml_c2c_mode {
	unsigned int enabled;		/* nvmlC2cModeInfo_v1_t: isC2cEnabled */
};
#define NVML_OK 0
#define NVML_FEATURE_ENABLED 1
/* nvmlIntNvLinkDeviceType_t */
#define NVML_NVLINK_GPU 0x00
#define NVML_NVLINK_IBMNPU 0x01
#define NVML_NVLINK_SWITCH 0x02

struct nvml_api {
	void *lib;
	nvml_ret (*init)(void);
	nvml_ret (*shutdown)(void);
	const char *(*error_string)(nvml_ret);
	nvml_ret (*count)(unsigned int *);
	nvml_ret (*by_index)(unsigned int, nvml_dev *);
	nvml_ret (*pci_info)(nvml_dev, struct nvml_pci *);
	nvml_ret (*cc)(nvml_dev, int *, int *);
	nvml_ret (*link_state)(nvml_dev, unsigned int, int *);
	nvml_ret (*link_pci)(nvml_dev, unsigned int, struct nvml_pci *);
	nvml_ret (*link_type)(nvml_dev, unsigned int, int *);
	nvml_ret (*c2c_mode)(nvml_dev, struct nvml_c2c_mode *);
};

int rd_nvml_use_parse(const char *s, enum rd_nvml_use *use)
{
	static const char *const words[] = { "auto", "always", "never" };

	for (size_t i = 0; i < RD_ARRAY_SIZE(words); i++)
		if (strcmp(s, words[i]) == 0) {
			*use = (enum rd_nvml_use)i;
			return 0;
		}
	return -EINVAL;
}

const char *rd_nvl_remote_name(enum rd_nvl_remote r)
{
	static const char *const names[] = { "gpu", "nvswitch", "cpu", "unknown" };

	return (size_t)r < RD_ARRAY_SIZE(names) ? names[r] : "unknown";
}

static void note(struct rd_nvml *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct rd_nvml *n, const char *fmt, ...)
{
	va_list ap;

	/* One line: the first thing missing is the one said. */
	if (n->note[0])
		return;
	va_start(ap, fmt);
	(void)vsnprintf(n->note, sizeof(n->note), fmt, ap);	/* truncation is fine */
	va_end(ap);
}

static const char *err_name(const struct nvml_api *a, nvml_ret r, char *buf, size_t len)
{
	const char *s = a->error_string ? a->error_string(r) : NULL;

	snprintf(buf, len, "%s (error %d)", s && *s ? s : "failed", r);
	return buf;
}

/* A symbol as a function pointer: POSIX says a dlsym result converts. */
#define LOOKUP(api, field, name) (*(void **)&(api)->field = dlsym((api)->lib, name))

static int lookup(struct nvml_api *a, struct rd_nvml *n)
{
	static const char *const need[] = {
		"nvmlInit_v2", "nvmlShutdown", "nvmlDeviceGetCount_v2",
		"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetPciInfo_v3",
	};
	void *got[RD_ARRAY_SIZE(need)];

	LOOKUP(a, error_string, "nvmlErrorString");
	LOOKUP(a, cc, "nvmlDeviceGetCudaComputeCapability");
	LOOKUP(a, link_state, "nvmlDeviceGetNvLinkState");
	LOOKUP(a, link_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
	LOOKUP(a, link_type, "nvmlDeviceGetNvLinkRemoteDeviceType");
	LOOKUP(a, c2c_mode, "nvmlDeviceGetC2cModeInfoV");
	LOOKUP(a, init, need[0]);
	LOOKUP(a, shutdown, need[1]);
	LOOKUP(a, count, need[2]);
	LOOKUP(a, by_index, need[3]);
	LOOKUP(a, pci_info, need[4]);
	got[0] = *(void **)&a->init;
	got[1] = *(void **)&a->shutdown;
	got[2] = *(void **)&a->count;
	got[3] = *(void **)&a->by_index;
	got[4] = *(void **)&a->pci_info;
	for (size_t i = 0; i < RD_ARRAY_SIZE(need); i++)
		if (!got[i]) {
			note(n, "the library has no %s: NVLink and C2C not read", need[i]);
			return -EIO;
		}
	if (!a->link_state || !a->link_pci)
		note(n, "the library has no %s: NVLink not read", a->link_state ? "nvmlDeviceGetNvLinkRemotePciInfo_v2" :
		     "nvmlDeviceGetNvLinkState");
	else if (!a->c2c_mode)
		note(n, "the library has no nvmlDeviceGetC2cModeInfoV: C2C assumed from device ids");
	n->nvlink = a->link_state && a->link_pci;
	n->c2c = a->c2c_mode;
	return 0;
}

/* "00000000:1B:00.0" (NVML; the legacy field when that is empty) -> "0000:1b:00.0"; "" if neither is one. */
static void sysfs_bdf(struct nvml_pci *pci, char out[16])
{
	unsigned int dom, bus, dev, fn;
	const char *nv;
	char tail;

	pci->bus_id[sizeof(pci->bus_id) - 1] = '\0';
	pci->bus_id_legacy[sizeof(pci->bus_id_legacy) - 1] = '\0';
	nv = pci->bus_id[0] ? pci->bus_id : pci->bus_id_legacy;
	out[0] = '\0';
	/* NOLINTNEXTLINE(cert-err34-c): each field's range is checked on the next line */
	if (sscanf(nv, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4 ||
	    dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return;
	snprintf(out, 16, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
}

static enum rd_nvl_remote remote_type(const struct nvml_api *a, nvml_dev d, unsigned int l)
{
	int t;

	if (!a->link_type || a->link_type(d, l, &t) != NVML_OK)
		return RD_NVL_UNKNOWN;
	return t == NVML_NVLINK_GPU ? RD_NVL_GPU : t == NVML_NVLINK_SWITCH ? RD_NVL_SWITCH :
	       t == NVML_NVLINK_IBMNPU ? RD_NVL_CPU : RD_NVL_UNKNOWN;
}

static int read_links(const struct nvml_api *a, nvml_dev d, struct rd_nvml_gpu *g)
{
	/* NCCL's link count per architecture; 18 when the compute capability is unknown. */
	unsigned int max = g->cc < 0 ? 18 : g->cc < 60 ? 0 : g->cc < 70 ? 4 : g->cc < 80 ? 6 :
			   g->cc < 90 ? 12 : 18;
	struct rd_nvml_link *links = calloc(max + 1, sizeof(*links));

	if (!links)
		return -ENOMEM;
	/* GCC 12's analyzer: a heap pointer stored into an element at a variable index (util.h). */
	RD_GCC_LEAK_FP_BEGIN
	g->links = links;
	RD_GCC_LEAK_FP_END
	for (unsigned int l = 0; l < max; l++) {
		struct nvml_pci pci;
		struct rd_nvml_link *k = &g->links[g->nlinks];
		int active = 0;

		if (a->link_state(d, l, &active) != NVML_OK || active != NVML_FEATURE_ENABLED)
			continue;
		memset(&pci, 0, sizeof(pci));
		if (a->link_pci(d, l, &pci) != NVML_OK)
			continue;
		k->link = l;
		sysfs_bdf(&pci, k->bdf);
		k->remote = remote_type(a, d, l);
		g->nlinks++;
	}
	return 0;
}

static int read_gpu(const struct nvml_api *a, unsigned int i, struct rd_nvml *n)
{
	struct rd_nvml_gpu *g = &n->gpus[n->ngpus];
	struct nvml_pci pci;
	nvml_dev d;
	int major, minor;

	memset(&pci, 0, sizeof(pci));
	if (a->by_index(i, &d) != NVML_OK || a->pci_info(d, &pci) != NVML_OK) {
		note(n, "GPU %u could not be read: left out", i);
		return 0;
	}
	memset(g, 0, sizeof(*g));
	sysfs_bdf(&pci, g->bdf);
	if (!g->bdf[0]) {
		note(n, "GPU %u has no PCI address: left out", i);
		return 0;
	}
	g->cc = a->cc && a->cc(d, &major, &minor) == NVML_OK && major >= 0 && minor >= 0 && major < 100 &&
		minor < 10 ? major * 10 + minor : -1;
	g->c2c = -1;
	if (a->c2c_mode) {
		struct nvml_c2c_mode m = { 0 };
		nvml_ret r = a->c2c_mode(d, &m);

		/* Not supported: a GPU without C2C. */
		g->c2c = r == NVML_OK ? m.enabled != 0 : r == 3 ? 0 : -1;
		if (g->c2c < 0) {
			char buf[96];

			note(n, "nvmlDeviceGetC2cModeInfoV on %s: %s", g->bdf, err_name(a, r, buf, sizeof(buf)));
		}
	}
	n->ngpus++;
	return n->nvlink ? read_links(a, d, g) : 0;
}

static int read_all(const struct nvml_api *a, struct rd_nvml *n)
{
	unsigned int count = 0;
	nvml_ret r = a->count(&count);
	int ret = 0;

	if (r != NVML_OK) {
		char buf[96];

		note(n, "nvmlDeviceGetCount_v2: %s", err_name(a, r, buf, sizeof(buf)));
		return -EIO;
	}
	/* NVML's own limit is far below this; a wild count is not trusted with memory. */
	if (count > 1024)
		count = 1024;
	n->gpus = calloc(count + 1, sizeof(*n->gpus));
	if (!n->gpus)
		return -ENOMEM;
	for (unsigned int i = 0; i < count && !ret; i++)
		ret = read_gpu(a, i, n);
	return ret;
}

int rd_nvml_read(struct rd_nvml *n)
{
	struct nvml_api a;
	char buf[96];
	nvml_ret r;
	int ret;

	memset(n, 0, sizeof(*n));
	memset(&a, 0, sizeof(a));
	a.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!a.lib) {
		const char *e = dlerror();

		note(n, "%s", e ? e : "libnvidia-ml.so.1: cannot be loaded");
		return -ENOENT;
	}
	ret = lookup(&a, n);
	if (ret)
		goto out;
	r = a.init();
	if (r != NVML_OK) {
		note(n, "nvmlInit_v2: %s", err_name(&a, r, buf, sizeof(buf)));
		ret = -EIO;
		goto out;
	}
	n->loaded = true;
	ret = read_all(&a, n);
	(void)a.shutdown();
	if (ret) {
		rd_nvml_free(n);
		n->loaded = false;
	}
out:
	if (ret)
		n->nvlink = n->c2c = false;
	dlclose(a.lib);
	return ret;
}

void rd_nvml_free(struct rd_nvml *n)
{
	for (size_t i = 0; i < n->ngpus; i++)
		free(n->gpus[i].links);
	free(n->gpus);
	n->gpus = NULL;
	n->ngpus = 0;
}

const struct rd_nvml_gpu *rd_nvml_gpu(const struct rd_nvml *n, const char *bdf)
{
	for (size_t i = 0; n && i < n->ngpus; i++)
		if (strcasecmp(n->gpus[i].bdf, bdf) == 0)
			return &n->gpus[i];
	return NULL;
}

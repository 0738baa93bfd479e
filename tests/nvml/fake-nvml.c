// SPDX-License-Identifier: MIT
/*
 * A test double of NVML (libnvidia-ml.so.1) for rdma-gpumap's CLI cases:
 * only the functions the kit looks up, answering from a plain text file
 * named by FAKE_NVML_CONFIG (tests/nvml/README.md has the format).  Built
 * twice by the Makefile: BUILD/nvml/ has every function, BUILD/nvml/old/
 * (-DFAKE_NVML_OLD) lacks nvmlDeviceGetNvLinkRemoteDeviceType and
 * nvmlDeviceGetC2cModeInfoV, as a driver from before they existed.
 *
 * No heap: the GPUs live in a static table filled at nvmlInit_v2, so the
 * library is clean under valgrind whatever the caller does.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GPUS 64
#define MAX_LINKS 18

typedef int nvmlReturn_t;
typedef struct fake_gpu *nvmlDevice_t;

/* nvml.h's nvmlPciInfo_t (the _v3 layout) and nvmlC2cModeInfo_v1_t. */
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
typedef struct {
	unsigned int isC2cEnabled;
} nvmlC2cModeInfo_v1_t;

enum { OK = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3, NOT_FOUND = 6 };

struct fake_link {
	int active;
	int type;			/* nvmlIntNvLinkDeviceType_t: 0 GPU, 1 IBM NPU (CPU), 2 switch, 0xff unknown */
	unsigned int dom, bus, dev, fn;
	int has_pci;
};

struct fake_gpu {
	unsigned int dom, bus, dev, fn;
	int cc_major, cc_minor;
	int c2c;			/* 1 on, 0 off, -1 not supported */
	struct fake_link links[MAX_LINKS];
};

static struct fake_gpu gpus[MAX_GPUS];
static unsigned int ngpus;
static int initialised;

static int parse_bdf(const char *s, unsigned int *dom, unsigned int *bus, unsigned int *dev, unsigned int *fn)
{
	return sscanf(s, "%x:%x:%x.%x", dom, bus, dev, fn) == 4 ? 0 : -1;
}

static struct fake_gpu *find_gpu(const char *bdf)
{
	unsigned int d, b, v, f;

	if (parse_bdf(bdf, &d, &b, &v, &f))
		return NULL;
	for (unsigned int i = 0; i < ngpus; i++)
		if (gpus[i].dom == d && gpus[i].bus == b && gpus[i].dev == v && gpus[i].fn == f)
			return &gpus[i];
	return NULL;
}

static int link_type(const char *s)
{
	return strcmp(s, "gpu") == 0 ? 0 : strcmp(s, "cpu") == 0 ? 1 : strcmp(s, "switch") == 0 ? 2 : 0xff;
}

/* "gpu BDF [cc MAJOR.MINOR] [c2c on|off|unsupported]" */
static void parse_gpu(char *rest)
{
	struct fake_gpu *g;
	char *tok, *save = NULL;

	if (ngpus == MAX_GPUS)
		return;
	g = &gpus[ngpus];
	memset(g, 0, sizeof(*g));
	g->cc_major = 9;
	g->c2c = -1;
	tok = strtok_r(rest, " \t", &save);
	if (!tok || parse_bdf(tok, &g->dom, &g->bus, &g->dev, &g->fn))
		return;
	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *val = strtok_r(NULL, " \t", &save);

		if (!val)
			break;
		if (strcmp(tok, "cc") == 0)
			(void)sscanf(val, "%d.%d", &g->cc_major, &g->cc_minor);
		else if (strcmp(tok, "c2c") == 0)
			g->c2c = strcmp(val, "on") == 0 ? 1 : strcmp(val, "off") == 0 ? 0 : -1;
	}
	ngpus++;
}

/* "nvlink BDF FIRST[-LAST] gpu|switch|cpu|unknown REMOTE-BDF|-" */
static void parse_nvlink(char *rest)
{
	char bdf[32], range[16], type[16], remote[32];
	unsigned int first, last;
	struct fake_gpu *g;

	if (sscanf(rest, "%31s %15s %15s %31s", bdf, range, type, remote) != 4)
		return;
	g = find_gpu(bdf);
	if (!g)
		return;
	if (sscanf(range, "%u-%u", &first, &last) != 2) {
		if (sscanf(range, "%u", &first) != 1)
			return;
		last = first;
	}
	for (unsigned int l = first; l <= last && l < MAX_LINKS; l++) {
		struct fake_link *k = &g->links[l];

		k->active = 1;
		k->type = link_type(type);
		k->has_pci = strcmp(remote, "-") != 0 && parse_bdf(remote, &k->dom, &k->bus, &k->dev, &k->fn) == 0;
	}
}

static nvmlReturn_t load(void)
{
	const char *path = getenv("FAKE_NVML_CONFIG");
	nvmlReturn_t ret = OK;
	char line[256];
	FILE *f;

	ngpus = 0;
	if (!path)
		return OK;
	f = fopen(path, "r");
	if (!f)
		return 999;	/* NVML_ERROR_UNKNOWN */
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#');

		if (hash)
			*hash = '\0';
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "init ", 5) == 0)
			ret = atoi(line + 5);
		else if (strncmp(line, "gpu ", 4) == 0)
			parse_gpu(line + 4);
		else if (strncmp(line, "nvlink ", 7) == 0)
			parse_nvlink(line + 7);
	}
	fclose(f);
	return ret;
}

nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlInit_v2(void)
{
	nvmlReturn_t ret = load();

	initialised = ret == OK;
	return ret;
}

nvmlReturn_t nvmlShutdown(void);
nvmlReturn_t nvmlShutdown(void)
{
	initialised = 0;
	ngpus = 0;
	return OK;
}

const char *nvmlErrorString(nvmlReturn_t r);
const char *nvmlErrorString(nvmlReturn_t r)
{
	switch (r) {
	case OK: return "Success";
	case UNINITIALIZED: return "Uninitialized";
	case INVALID_ARGUMENT: return "Invalid Argument";
	case NOT_SUPPORTED: return "Not Supported";
	case NOT_FOUND: return "Not Found";
	case 9: return "Driver Not Loaded";
	case 18: return "RM has detected an NVML/RM version mismatch.";
	default: return "Unknown Error";
	}
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	if (!initialised)
		return UNINITIALIZED;
	*count = ngpus;
	return OK;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *dev);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *dev)
{
	if (!initialised)
		return UNINITIALIZED;
	if (i >= ngpus)
		return INVALID_ARGUMENT;
	*dev = &gpus[i];
	return OK;
}

/* NVML writes an eight-digit domain in upper case: "00000000:1B:00.0". */
static void fill_pci(nvmlPciInfo_t *p, unsigned int dom, unsigned int bus, unsigned int dev, unsigned int fn)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->busIdLegacy, sizeof(p->busIdLegacy), "%04X:%02X:%02X.%X", dom & 0xffff, bus & 0xff,
		 dev & 0x1f, fn & 7);
	snprintf(p->busId, sizeof(p->busId), "%08X:%02X:%02X.%X", dom, bus & 0xff, dev & 0x1f, fn & 7);
	p->domain = dom;
	p->bus = bus;
	p->device = dev;
	p->pciDeviceId = 0x233010de;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *pci)
{
	if (!initialised)
		return UNINITIALIZED;
	fill_pci(pci, d->dom, d->bus, d->dev, d->fn);
	return OK;
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *major, int *minor);
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *major, int *minor)
{
	*major = d->cc_major;
	*minor = d->cc_minor;
	return OK;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int l, int *active);
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int l, int *active)
{
	if (l >= MAX_LINKS)
		return INVALID_ARGUMENT;
	*active = d->links[l].active;
	return OK;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int l, nvmlPciInfo_t *pci);
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int l, nvmlPciInfo_t *pci)
{
	const struct fake_link *k;

	if (l >= MAX_LINKS)
		return INVALID_ARGUMENT;
	k = &d->links[l];
	if (!k->active)
		return NOT_SUPPORTED;
	if (k->has_pci)
		fill_pci(pci, k->dom, k->bus, k->dev, k->fn);
	else
		memset(pci, 0, sizeof(*pci));
	return OK;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned int l, int *type);
nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned int l, int *type)
{
	if (l >= MAX_LINKS || !d->links[l].active)
		return INVALID_ARGUMENT;
	*type = d->links[l].type;
	return OK;
}

nvmlReturn_t nvmlDeviceGetC2cModeInfoV(nvmlDevice_t d, nvmlC2cModeInfo_v1_t *info);
nvmlReturn_t nvmlDeviceGetC2cModeInfoV(nvmlDevice_t d, nvmlC2cModeInfo_v1_t *info)
{
	if (d->c2c < 0)
		return NOT_SUPPORTED;
	info->isC2cEnabled = (unsigned int)d->c2c;
	return OK;
}
#endif

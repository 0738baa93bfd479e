/* SPDX-License-Identifier: MIT */
/*
 * NVLink and C2C facts from NVML, read through libnvidia-ml.so.1 loaded at
 * run time (dlopen): no build or link dependency, no NVIDIA header.  Every
 * GPU NVML lists with its active NVLinks (the remote end: a GPU, an
 * NVSwitch or a CPU) and its C2C mode.  A missing library is -ENOENT; an
 * NVML that fails or lacks a function still returns what it gave, with a
 * one-line note saying what is missing.
 */
#ifndef RD_GPUNVML_H
#define RD_GPUNVML_H

#include <stdbool.h>
#include <stddef.h>

/* When NVML is asked: --nvml auto|always|never. */
enum rd_nvml_use { RD_NVML_AUTO, RD_NVML_ALWAYS, RD_NVML_NEVER };
/* "auto" -> RD_NVML_AUTO; -EINVAL for other words. */
int rd_nvml_use_parse(const char *s, enum rd_nvml_use *use);

/* What is at the far end of an NVLink (NVML's device types). */
enum rd_nvl_remote { RD_NVL_GPU, RD_NVL_SWITCH, RD_NVL_CPU, RD_NVL_UNKNOWN };
const char *rd_nvl_remote_name(enum rd_nvl_remote r);

struct rd_nvml_link {
	unsigned int link;		/* NVML's link number */
	enum rd_nvl_remote remote;
	char bdf[16];			/* remote end's PCI address ("" when NVML gave none) */
};

struct rd_nvml_gpu {
	char bdf[16];			/* sysfs form: 0000:1b:00.0 */
	int cc;				/* compute capability, major*10 + minor; -1 unknown */
	int c2c;			/* C2C mode: 1 on, 0 off, -1 unknown */
	struct rd_nvml_link *links;	/* active NVLinks */
	size_t nlinks;
};

struct rd_nvml {
	bool loaded;			/* the library was found and initialised */
	bool nvlink;			/* NVLink was read (the functions exist) */
	bool c2c;			/* C2C mode was read (nvmlDeviceGetC2cModeInfoV exists) */
	struct rd_nvml_gpu *gpus;
	size_t ngpus;
	char note[200];			/* what NVML did not give, "" when it gave everything */
};

/*
 * Load NVML and read every GPU.  -ENOENT when the library cannot be loaded
 * (note says why); -EIO when it loads but nvmlInit fails or lacks the
 * functions that list GPUs (note says which); 0 otherwise (note may still
 * name a function that was missing).
 */
int rd_nvml_read(struct rd_nvml *n);
void rd_nvml_free(struct rd_nvml *n);
/* The GPU of that PCI address, or NULL. */
const struct rd_nvml_gpu *rd_nvml_gpu(const struct rd_nvml *n, const char *bdf);

#endif

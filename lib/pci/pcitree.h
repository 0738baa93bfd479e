/* SPDX-License-Identifier: MIT */
/*
 * The PCI tree as sysfs shows it: every function under /sys/bus/pci/devices,
 * where it sits (its chain of bridges up to a host bridge, read from the
 * function's real path under /sys/devices), and, read only when asked, what
 * a topology needs of it: NUMA node, link speed and width (current and
 * maximum), its ACS control bits (from the config space, whole only to root)
 * and the IOMMU domain type of its group.
 */
#ifndef RD_PCITREE_H
#define RD_PCITREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "sysroot/sysroot.h"

/* The ACS control register's bits (PCIe base spec, ACS extended capability). */
enum {
	RD_ACS_SV = 1 << 0,	/* source validation */
	RD_ACS_TB = 1 << 1,	/* translation blocking */
	RD_ACS_RR = 1 << 2,	/* P2P request redirect */
	RD_ACS_CR = 1 << 3,	/* P2P completion redirect */
	RD_ACS_UF = 1 << 4,	/* upstream forwarding */
	RD_ACS_EC = 1 << 5,	/* P2P egress control */
	RD_ACS_DT = 1 << 6,	/* direct translated P2P */
};

/* An extended capability (ACS, ATS) of a function, from its config space. */
enum rd_cap_state {
	RD_CAP_UNREAD = 0,	/* the config space was not readable whole (not root) */
	RD_CAP_ABSENT,		/* read: the function does not have the capability */
	RD_CAP_PRESENT,		/* read: its registers are in the fields that follow */
};

struct rd_pci_fn {
	char bdf[16];			/* "0000:03:00.0" */
	char *path;			/* "/sys/devices/pci0000:00/0000:00:01.0/0000:03:00.0" */
	char host_bridge[24];		/* "pci0000:00" */
	int parent;			/* index of the bridge above it; -1 under the host bridge */
	unsigned int depth;		/* bridges above it */
	bool listed;			/* in /sys/bus/pci/devices (else only seen in a path) */
	uint16_t vendor, device;
	uint32_t klass;			/* 0x030200 */
	bool ids_known;
	/* rd_pci_facts() fills the rest once. */
	bool facts_read;
	uint16_t sub_vendor, sub_device;
	int numa;			/* -1: none or unknown */
	bool link_known;
	double cur_gts, max_gts;	/* per lane, 0 when the kernel says "Unknown" */
	unsigned int cur_width, max_width;
	char cur_speed[24], max_speed[24];	/* as the kernel wrote them */
	enum rd_cap_state acs;
	uint16_t acs_cap, acs_ctrl;
	enum rd_cap_state ats;		/* Address Translation Services */
	uint16_t ats_ctrl;		/* bit 15: enabled */
	size_t config_len;		/* bytes of config space readable */
	/* rd_pci_iommu() fills these once. */
	bool iommu_read;
	char iommu_type[16];		/* "identity", "DMA-FQ"...; "" without a group */
	int iommu_group;		/* -1 without */
};

struct rd_pci_tree {
	const struct rd_sysroot *sr;
	struct rd_pci_fn *v;
	size_t n, cap;
};

/*
 * Every function with its place and identity (vendor, device, class); a
 * function whose link or files are broken is kept with a warning.
 * -ENOENT when there is no /sys/bus/pci at all.
 */
int rd_pci_tree_read(const struct rd_sysroot *sr, struct rd_pci_tree *t, struct rd_warnings *w);
void rd_pci_tree_free(struct rd_pci_tree *t);
/* Index of a function by "DDDD:BB:DD.F", -1 if none. */
int rd_pci_find(const struct rd_pci_tree *t, const char *bdf);
/* Read the facts of function i once (no-op the second time); not its IOMMU group. */
void rd_pci_facts(struct rd_pci_tree *t, size_t i, struct rd_warnings *w);
/*
 * Read function i's IOMMU group and its type once.  Apart from the other
 * facts: only GPUs and NICs are judged by them, and a tree has many more
 * bridges, each a link to read and a group's file.
 */
void rd_pci_iommu(struct rd_pci_tree *t, size_t i);
/* The function behind a sysfs device path ("/sys/devices/.../0000:03:00.0[/...]"): -1 if none. */
int rd_pci_find_path(const struct rd_pci_tree *t, const char *path);
/*
 * Whether function i's link runs below what both its ends can do (the lesser of its own
 * and its port's maximum speed and width, as NCCL reckons a link): true with the link's
 * capability in *cap_gts / *cap_width.  Reads both ends' facts.
 */
bool rd_pci_link_degraded(struct rd_pci_tree *t, size_t i, struct rd_warnings *w, double *cap_gts,
			  unsigned int *cap_width);
/*
 * Size of BAR n (0-5) from the function's resource file: 0, or -errno: -ENOENT no
 * file, -ENODATA the BAR is unused (all zero), -EINVAL a line that is not the
 * kernel's "start end flags" or a file with fewer lines.
 */
int rd_pci_bar_size(const struct rd_pci_tree *t, size_t i, unsigned int n, uint64_t *size);
/* Nearest common bridge of a and b; -1 if they meet only at a host bridge or above. */
int rd_pci_common(const struct rd_pci_tree *t, int a, int b);
/* "RR CR" for the ACS bits in v (buf of 40 bytes); "-" for none. */
const char *rd_acs_bits(uint16_t v, char buf[40]);
/* Per-lane speed of a kernel link speed string ("16.0 GT/s PCIe", "8 GT/s"): GT/s, 0 if unknown. */
double rd_pci_speed_gts(const char *s);

#endif

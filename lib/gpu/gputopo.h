/* SPDX-License-Identifier: MIT */
/*
 * GPUs and the RDMA NICs they reach, judged by NCCL's own rules: the
 * topology NCCL builds (PCI switches keyed by their upstream port, host
 * bridges as CPU nodes per NUMA node, NIC functions merged, one network
 * device per active port), the path types and bandwidths it computes, the
 * NIC it picks for each GPU and whether it will use GPUDirect RDMA (GDR)
 * there, for a chosen NCCL release and its settings.  From sysfs (or an
 * NCCL topology XML); no GPU driver, CUDA or NVML needed.
 */
#ifndef RD_GPUTOPO_H
#define RD_GPUTOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "sysroot/sysroot.h"
#include "model/model.h"
#include "pci/pci.h"
#include "gpunvml.h"

/* NCCL's path types, in NCCL's order (a larger number is a farther path). */
enum rd_path {
	RD_PATH_LOC = 0,
	RD_PATH_NVL,
	RD_PATH_NVB,
	RD_PATH_C2C,
	RD_PATH_PIX,
	RD_PATH_PXB,
	RD_PATH_P2C,
	RD_PATH_PXN,
	RD_PATH_PHB,
	RD_PATH_SYS,
	RD_PATH_NET,
	RD_PATH_DIS,
};
const char *rd_path_name(int path);
/* A path type by NCCL's name ("PXB") or legacy number ("2"): 0, or -EINVAL. */
int rd_path_parse(const char *s, int *path);

/* The newest NCCL release whose rules this knows (major*100 + minor). */
#define RD_NCCL_NEWEST 230
#define RD_NCCL_OLDEST 212

/* NCCL's settings that change the answer; -1 (or empty) means NCCL's default. */
struct rd_nccl_conf {
	unsigned int version;		/* 230 = 2.30 */
	int gdr_level;			/* NCCL_NET_GDR_LEVEL as a path type */
	int gdr_c2c;			/* NCCL_NET_GDR_C2C */
	int dmabuf;			/* NCCL_DMABUF_ENABLE */
	int merge_vfs;			/* NCCL_IB_MERGE_VFS */
	char ib_hca[512];		/* NCCL_IB_HCA, "" = every device */
	bool ib_hca_set;
	char topo_file[RD_PATH_MAX];	/* NCCL_TOPO_FILE */
	int pxn_disable;		/* NCCL_PXN_DISABLE */
	int pxn_c2c;			/* NCCL_PXN_C2C */
	/* Where each came from, for the report: "environment", "option" or NULL. */
	const char *src_gdr_level, *src_gdr_c2c, *src_dmabuf, *src_merge_vfs, *src_ib_hca,
		*src_topo_file, *src_pxn_disable, *src_pxn_c2c;
};
void rd_nccl_conf_init(struct rd_nccl_conf *c);
/* "2.27" -> 227; -EINVAL for other forms, -ERANGE outside what is known. */
int rd_nccl_version_parse(const char *s, unsigned int *v);
/*
 * Take NCCL's variables from the environment for what no option set;
 * a malformed value is an error naming the variable (msg, 160 bytes).
 */
int rd_nccl_conf_env(struct rd_nccl_conf *c, char *msg, size_t msglen);
/* Set one setting from an option's value; -EINVAL with msg when malformed. */
int rd_nccl_conf_set(struct rd_nccl_conf *c, const char *name, const char *val, const char *src,
		     char *msg, size_t msglen);
/* The effective value of a setting (its default for the version when unset). */
int rd_nccl_gdr_level(const struct rd_nccl_conf *c);
bool rd_nccl_gdr_c2c(const struct rd_nccl_conf *c);
bool rd_nccl_dmabuf(const struct rd_nccl_conf *c);
bool rd_nccl_merge_vfs(const struct rd_nccl_conf *c);
bool rd_nccl_pxn(const struct rd_nccl_conf *c);
/* The worst path a peer GPU may have to a NIC for PXN through it: PXB, or P2C with NCCL_PXN_C2C. */
int rd_nccl_pxn_level(const struct rd_nccl_conf *c);

/* One GPU, one NIC and the NIC's nearest GPU (the peer), as NCCL's PXN rule weighs them. */
struct rd_pxn_case {
	int gpu_type;			/* the GPU's own path to the NIC */
	double gpu_bw;
	int peer_type;			/* the peer's path to the NIC */
	double peer_bw;
	bool peer_gdr;			/* the peer has GDR to the NIC */
	int peer_link;			/* the path between the GPU and the peer */
};
/* Whether NCCL routes the GPU's traffic to that NIC through the peer (PXN). */
bool rd_nccl_pxn_through(const struct rd_nccl_conf *c, const struct rd_pxn_case *p);
/* Whether NCCL_IB_HCA admits device dev, port port (NCCL's prefix, '=' exact and '^' forms). */
bool rd_nccl_hca_match(const char *spec, const char *dev, unsigned int port);

/* What the node offers GDR, from files (kernel, driver, modules, libraries). */
struct rd_gdr_host {
	bool peermem_module;		/* /sys/module/nvidia_peermem/version */
	bool peermem_loaded;		/* /sys/module/nvidia_peermem */
	bool nv_mem, nv_mem_nc;		/* /sys/kernel/mm/memory_peers/nv_mem[_nc]/version */
	bool amd_peer;			/* /sys/kernel/mm/memory_peers/amdkfd/version */
	bool nvidia_loaded;		/* /sys/module/nvidia */
	char nvidia_version[32];
	int nvidia_open;		/* 1 open kernel modules, 0 proprietary, -1 unknown */
	bool amdgpu_loaded;
	char osrelease[64];
	unsigned int kmajor, kminor;	/* 0.0 if unknown */
	int rdma_core;			/* rdma-core release of libibverbs on disk; -1 unknown */
	char arch[16];			/* "x86_64", "aarch64", "ppc64", "" */
	char cpu_vendor[16];		/* "GenuineIntel", "AuthenticAMD" */
	unsigned int cpu_family, cpu_model;
	bool flags_seen;
	bool hypervisor;		/* a virtual machine: /proc/cpuinfo's "hypervisor" flag (x86) */
};
void rd_gdr_host_read(const struct rd_sysroot *sr, struct rd_gdr_host *h);

/*
 * What the PCI tree shows NCCL of a virtual machine, once the GPUs are decided:
 * FLAT, every GPU straight on a host bridge with no NUMA node; HIDDEN, a VM
 * (cpuinfo's hypervisor flag) with no GPU under one switch with its NIC; both
 * want the provider's NCCL_TOPO_FILE.  SHOWN otherwise, and with a topology file.
 */
enum rd_gpu_vm_view { RD_VM_SHOWN, RD_VM_FLAT, RD_VM_HIDDEN };
struct rd_gpu_topo;
enum rd_gpu_vm_view rd_gpu_vm_view(const struct rd_gpu_topo *t);
/* Why dma-buf would not work for GPU vendor (NULL when it would): "kernel 5.4 < 5.12". */
const char *rd_gdr_dmabuf_blocker(const struct rd_gdr_host *h, bool amd, char *buf, size_t len);

/* A node of NCCL's topology graph. */
enum rd_tn_type { RD_TN_GPU, RD_TN_PCI, RD_TN_NVS, RD_TN_CPU, RD_TN_NIC, RD_TN_NET };

struct rd_tlink {
	int type;			/* link type, numbered as path types (PCI = PIX, SYS, NET...) */
	double bw;			/* GB/s */
	int rem;			/* node index */
};

struct rd_tnode {
	enum rd_tn_type type;
	char id[24];			/* bus id of the function (switch: its upstream port); CPU: "numa0" */
	int pci;			/* index in the PCI tree, -1 when none (a CPU, a NET) */
	uint64_t pci_dev;		/* vendor:device:subvendor:subdevice, for switches */
	int numa;			/* CPU: its NUMA node */
	int item;			/* GPU: gpu index; NET: net index; else -1 */
	struct rd_tlink *links;
	size_t nlinks;
};

struct rd_tpath {
	int type;
	double bw;
	int next;			/* next node towards the base, -1 at the base or unreachable */
	unsigned int hops;
};

/* A GPU's NVLinks to one remote end (NVSwitches count as one, as NCCL merges them). */
struct rd_gpu_nvl {
	enum rd_nvl_remote remote;
	char to[24];			/* "GPU1", "nvswitch", "cpu" or a PCI address NVML named */
	unsigned int links;
	double bw;			/* GB/s, NCCL's per-link figure times links */
};

struct rd_gpu {
	char bdf[16];
	int pci;			/* index in the PCI tree (-1 from XML without sysfs) */
	int node;			/* graph node */
	int cpu;			/* graph node of its local CPU, -1 unknown */
	uint16_t vendor, device;
	bool amd;
	bool c2c;			/* reaches its CPU over C2C */
	bool c2c_assumed;		/* inferred from the device id, not from NVML */
	int cc;				/* compute capability from NVML (90 = 9.0), -1 unknown */
	struct rd_gpu_nvl *nvl;		/* NVLinks from NVML, by remote end */
	size_t nnvl;
	int numa;
	uint64_t bar1;			/* NVIDIA's BAR1 (the GDR window) in bytes, 0 unknown or none */
	int bar1_err;			/* why bar1 is 0: -ENOENT no resource file, -EINVAL malformed,
					   -ENODATA BAR1 unused; 0 when known or not applicable */
	unsigned int index;		/* NVML order: by PCI bus id */
	char name[24];			/* "GPU0" */
	/* The result for this GPU. */
	int net;			/* net index NCCL picks, -1 when none */
	int path_topo;			/* path type as the hardware is (before GDR rerouting) */
	int path;			/* path type NCCL uses */
	double bw;
	bool gdr;
	bool gdr_pci_mode;		/* C2C GPU reaching its NIC over PCI */
	int pxn_via;			/* PXN: the gpu index whose NIC path is used, else -1 */
	bool gdr_unsupported;		/* a topology file's <gpu gdr="0"> */
	char why[200];
	struct rd_strlist notes;	/* what NCCL does not weigh but slows GDR */
};

struct rd_gpu_net {
	char dev[64];
	unsigned int port;
	int node;			/* graph NET node */
	int nic_node;			/* graph NIC node */
	int pci;			/* the device's own function, -1 if not on PCI */
	char bdf[16];			/* the device's own function, "" if not on PCI */
	char nic_bdf[16];		/* the merged function NCCL keys the NIC by */
	char state[24];
	char link_layer[16];
	double gbps;
	bool active;
	bool admitted;			/* NCCL_IB_HCA lets it in */
	bool gdr_unsupported;		/* a topology file's <net gdr="0"> */
	unsigned int index;		/* NCCL's net device number (active, admitted ports) */
};

struct rd_gpu_topo {
	struct rd_pci_tree pci;
	struct rd_tnode *nodes;
	size_t nnodes, capnodes;
	struct rd_gpu *gpus;
	size_t ngpus;
	struct rd_gpu_net *nets;	/* every port of every RDMA device, active or not */
	size_t nnets;
	unsigned int nvswitches;
	int *bases;			/* graph nodes paths were computed to */
	size_t nbases;
	struct rd_tpath *paths;		/* [node * nbases + base] */
	bool acs_readable;		/* at least one bridge's ACS could be read */
	bool acs_unreadable;		/* some bridge's config was too short to read it */
	char iommu[24];			/* "off", "passthrough", "translated", "mixed" */
	bool from_xml;
	struct rd_gdr_host host;
	struct rd_nccl_conf conf;
	char backend[24];		/* "peermem", "dma-buf", "none" */
	char backend_why[200];		/* when none: what is missing */
	/* Where NVLink and C2C facts came from: "nvml", "assumed" (device ids) or "none". */
	const char *nvlink_src, *c2c_src;
	char nvml_note[200];		/* NVML asked but not all given: why */
};

/*
 * Read the node (sysfs, or conf->topo_file / xml when set) and decide every
 * GPU's NIC and GDR.  devs: the RDMA devices with their ports.  -ENOENT when
 * there is no PCI tree; a malformed XML is -EINVAL with msg, one that cannot
 * be opened -EBADF.
 */
int rd_gpu_topo_build(const struct rd_sysroot *sr, const struct rd_device_list *devs,
		      const struct rd_nccl_conf *conf, const char *xml, struct rd_gpu_topo *t,
		      struct rd_warnings *w, char *msg, size_t msglen);
/* The same with NVML's facts (NULL: none): NVLink links, C2C mode, and so PXN. */
int rd_gpu_topo_build_nvml(const struct rd_sysroot *sr, const struct rd_device_list *devs,
			   const struct rd_nccl_conf *conf, const char *xml, const struct rd_nvml *nvml,
			   struct rd_gpu_topo *t, struct rd_warnings *w, char *msg, size_t msglen);
void rd_gpu_topo_free(struct rd_gpu_topo *t);
/* Path from node a to base node b (NULL if b is not a base). */
const struct rd_tpath *rd_gpu_path(const struct rd_gpu_topo *t, int a, int b);
/* nvidia-smi topo -m's name for a GPU-to-node path ("NODE" where NCCL says PHB across host bridges). */
const char *rd_gpu_smi_name(const struct rd_gpu_topo *t, int gpu_node, int other_node, int path);
/*
 * The PCI functions between two graph nodes' functions, in order (the
 * bridges up from a to where they meet, and down to b): indexes into
 * t->pci, at most max; the count.  The meeting point is not a function
 * when they meet at a host bridge or across CPUs.
 */
size_t rd_gpu_pci_chain(const struct rd_gpu_topo *t, int pci_a, int pci_b, int *out, size_t max);

/* Internal, shared by the files of this layer. */
int rd_gpu_node_add(struct rd_gpu_topo *t, enum rd_tn_type type, const char *id, int pci);
int rd_gpu_connect(struct rd_gpu_topo *t, int a, int b, int type, double bw);
/* One direction only (flattening re-hangs links one way at a time). */
int rd_gpu_link_one(struct rd_tnode *n, int rem, int type, double bw);
int rd_gpu_xml_load(struct rd_gpu_topo *t, const char *path, struct rd_warnings *w, char *msg,
		    size_t msglen);
int rd_gpu_paths(struct rd_gpu_topo *t);
/* NVML's NVLinks and C2C modes onto the graph's GPUs (before the CPUs are joined). */
int rd_gpu_nvml_apply(struct rd_gpu_topo *t, const struct rd_nvml *nvml);
void rd_gpu_decide(struct rd_gpu_topo *t, struct rd_warnings *w);

/* --expect: one line per GPU, "GPU0 mlx5_0[:1] [PATH] [gdr|nogdr]" ("-" for no NIC). */
struct rd_gpu_expect {
	unsigned int line;
	char gpu[24];			/* "GPU0" or a bus id */
	char dev[64];			/* "" = any, "-" = none */
	unsigned int port;		/* 0 = any */
	int path;			/* -1 = any */
	int gdr;			/* -1 = any */
	/* The check's outcome. */
	bool met;
	char detail[200];
};
struct rd_gpu_expects {
	struct rd_gpu_expect *v;
	size_t n;
};
/* Read FILE under limits; -EINVAL with why ("line 3: ...") when malformed. */
int rd_gpu_expect_read(const char *path, int timeout_ms, struct rd_gpu_expects *e, char *why,
		       size_t whylen);
/* Judge every expectation against t; the number missed. */
size_t rd_gpu_expect_check(const struct rd_gpu_topo *t, struct rd_gpu_expects *e);
void rd_gpu_expects_free(struct rd_gpu_expects *e);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Node facts rdma-doctor needs beyond the device model, read through the
 * sysroot layer so that --sysroot replays them: locked-memory limit, kernel
 * modules, PCIe link of a device and its upstream bridges, rdma_cm configfs
 * defaults, ECN switches, IPv4/IPv6 sysctls, connected routes.
 * Readers return 0 or -errno and never print.
 */
#ifndef RD_DRSYS_H
#define RD_DRSYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysroot/sysroot.h"
#include "base/base.h"

/*
 * The node's files a run has read, each read once: a PCIe bridge above
 * several functions, configfs, the 'all' sysctls and a netdev's own (a bond
 * under two ports) are asked for by every device or port that depends on
 * them.  The readers below take it; the doctor keeps one for its run.  A
 * value is kept with room for 63 bytes; one that does not fit the caller's
 * buffer is -EOVERFLOW, as the file's read would be.
 */
struct rd_dr_file;
struct rd_dr_files {
	const struct rd_sysroot *sr;
	struct rd_strmap index;		/* path -> position in v */
	struct rd_dr_file *v;
	size_t n, cap;
	int configfs;			/* rdma_cm's configfs: 0, -ENOPKG, -ENOTCONN; 1 not asked */
};
void rd_dr_files_init(struct rd_dr_files *f, const struct rd_sysroot *sr);
void rd_dr_files_free(struct rd_dr_files *f);

/* "Max locked memory" soft limit from /proc/self/limits; *unlimited when so. */
int rd_memlock_limit(const struct rd_sysroot *sr, uint64_t *bytes, bool *unlimited);
/* Its parsing half: one line of /proc/self/limits; -EINVAL for other lines. */
int rd_parse_memlock_line(const char *line, uint64_t *bytes, bool *unlimited);

/* Is a kernel module present (/sys/module/NAME, loaded or built in with parameters)? */
bool rd_module_present(const struct rd_sysroot *sr, const char *name);

/* The PCIe link of one PCI function. */
struct rd_pci_link {
	char bdf[16];
	bool known;		/* all four files read */
	double cur_gts, max_gts;	/* "16.0 GT/s PCIe" -> 16.0 */
	unsigned int cur_width, max_width;
};

/*
 * The device's PCI function and its upstream bridges, the function first,
 * at most max.  *n = 0 for a device not on PCI (rxe, siw).
 */
int rd_pci_chain(struct rd_dr_files *f, const char *ibdev, struct rd_pci_link *v, size_t max,
		 size_t *n);

/*
 * rdma_cm's per-port defaults from configfs (/sys/kernel/config/rdma_cm).
 * -ENOTCONN: configfs is not mounted; -ENOPKG: mounted but rdma_cm has no
 * directory there (module not loaded); -ENOENT: the device has no
 * directory (nobody overrode the defaults: the kernel's apply).
 */
struct rd_cm_defaults {
	char roce_mode[32];	/* "RoCE v2", "IB/RoCE v1" */
	bool has_tos;
	uint64_t tos;
};
int rd_cm_defaults_read(struct rd_dr_files *f, const char *ibdev, unsigned int port,
			struct rd_cm_defaults *out);

/*
 * ECN switches of a netdev (mlx5: /sys/class/net/IF/ecn/roce_np|roce_rp/enable/0..7):
 * bit N set when priority N is enabled.  -ENOENT when the driver has none.
 */
int rd_ecn_read(struct rd_dr_files *f, const char *ifname, const char *point, unsigned int *mask);

/* /proc/sys/net/... value of a netdev, 'all' or 'default' (conf/NAME/key). */
int rd_sysctl_conf(struct rd_dr_files *f, const char *family, const char *ifname, const char *key,
		   uint64_t *v);

/* A connected (gateway-less) IPv4 route from /proc/net/route. */
struct rd_route {
	char ifname[32];
	uint32_t dst, mask;	/* network byte order as the file has it */
};
struct rd_routes {
	struct rd_route *v;
	size_t n;
};
/* -ENOENT when the file is absent. */
int rd_routes_read(const struct rd_sysroot *sr, struct rd_routes *out);
/* One data line of /proc/net/route; 0 and *keep for a connected route. */
int rd_parse_route_line(const char *line, struct rd_route *r, bool *keep);
void rd_routes_free(struct rd_routes *r);

#endif

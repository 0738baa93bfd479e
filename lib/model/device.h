/* SPDX-License-Identifier: MIT */
/*
 * The device/port model built from /sys/class/infiniband.  Every field has a
 * "known" bit: a missing or malformed file leaves it unknown (with a warning)
 * and the scan goes on.
 */
#ifndef RD_DEVICE_H
#define RD_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "sysroot/sysroot.h"
#include "base/base.h"

struct rd_verbs_device;
struct rd_verbs_port;

enum rd_link_layer {
	RD_LL_UNKNOWN = 0,
	RD_LL_INFINIBAND,
	RD_LL_ETHERNET,
};

/* Bits of rd_port.known */
enum {
	RD_PORT_STATE = 1u << 0,
	RD_PORT_PHYS_STATE = 1u << 1,
	RD_PORT_RATE = 1u << 2,
	RD_PORT_LINK_LAYER = 1u << 3,
	RD_PORT_LID = 1u << 4,
	RD_PORT_SM_LID = 1u << 5,
	RD_PORT_SM_SL = 1u << 6,
	RD_PORT_LMC = 1u << 7,
	RD_PORT_CAP_MASK = 1u << 8,
};

struct rd_rate {
	double gbps;		/* 100 for "100 Gb/sec (4X EDR)" */
	char width[8];		/* "4X" (may be empty) */
	char speed[16];		/* "EDR" (may be empty) */
};

struct rd_port {
	unsigned int num;
	unsigned int known;
	uint64_t state;		/* 4 = ACTIVE */
	uint64_t phys_state;	/* 5 = LinkUp */
	char rate_str[64];	/* as the kernel wrote it */
	struct rd_rate rate;
	enum rd_link_layer link_layer;
	uint64_t lid, sm_lid, sm_sl, lid_mask_count, cap_mask;
	struct rd_strlist netdevs;	/* best effort from sysfs */
	struct rd_verbs_port *verbs;	/* NULL unless queried */
};

/* Bits of rd_device.known */
enum {
	RD_DEV_NODE_TYPE = 1u << 0,
	RD_DEV_NODE_GUID = 1u << 1,
	RD_DEV_SYS_IMAGE_GUID = 1u << 2,
	RD_DEV_FW_VER = 1u << 3,
	RD_DEV_HCA_TYPE = 1u << 4,
	RD_DEV_BOARD_ID = 1u << 5,
	RD_DEV_NODE_DESC = 1u << 6,
};

struct rd_device {
	char name[64];
	unsigned int known;
	uint64_t node_type;		/* 1 = CA, 4 = RNIC */
	uint64_t node_guid;		/* host order */
	uint64_t sys_image_guid;
	char fw_ver[64];		/* empty on soft devices */
	char hca_type[64];
	char board_id[64];
	char node_desc[128];
	char uverbs[32];		/* "uverbs0", "" if none */
	char parent[64];		/* rxe/siw: the netdev they sit on */
	char pci[32];			/* "0000:03:00.0" if on PCI */
	char driver[64];		/* kernel driver of the parent device */
	char pf_pci[32];		/* SR-IOV VF: PCI address of its PF */
	int num_vfs;			/* SR-IOV PF: sriov_numvfs; -1 if not a PF */
	struct rd_port *ports;
	unsigned int nports;
	struct rd_strlist netdevs;	/* union of the ports' netdevs */
	struct rd_verbs_device *verbs;	/* NULL unless queried */
	char verbs_error[160];		/* why verbs facts are missing, if they are */
};

struct rd_device_list {
	struct rd_device *v;
	unsigned int n;
	/*
	 * What the scan found in /sys/class/infiniband, filtered by name or
	 * not: every name, and those it could not read (warned about and left
	 * out), so that a question about the node's devices (rdma-doctor's
	 * dev.present) does not list and read them again.  class_ret: 0, or
	 * -ENOENT when there is no class directory.
	 */
	bool scanned;
	int class_ret;
	struct rd_strlist names, unreadable;
};

/* Names under /sys/class/infiniband, natural order.  -ENOENT if the class is absent. */
int rd_device_names(const struct rd_sysroot *sr, struct rd_strlist *names);

/* Read one device and its ports.  -ENODEV if it does not exist. */
int rd_device_read(const struct rd_sysroot *sr, const char *name, struct rd_device *dev,
		   struct rd_warnings *w);
/* The same, reading only the groups of flags (RD_SCAN_*, below). */
int rd_device_read_flags(const struct rd_sysroot *sr, const char *name, struct rd_device *dev,
			 struct rd_warnings *w, unsigned int flags);
void rd_device_free(struct rd_device *dev);

/*
 * Scan devices: all (filter NULL/empty) or the named ones, in the order of the
 * system.  -ENODEV with *unknown set to the first name that does not exist.
 * rd_device_scan fills everything; rd_device_scan_flags can leave out what a
 * tool does not show (RD_SCAN_NETDEVS: the ports' netdev lists, which read
 * every gid_attrs/ndevs file).
 */
enum {
	RD_SCAN_NETDEVS = 1u << 0,
	/*
	 * Groups of attributes read (and warned about) only when a tool shows
	 * them: a tool warns only about what its output depends on.  Node
	 * type, link layer and the port list are always read.
	 */
	RD_SCAN_PORT_STATE_LOGICAL = 1u << 1,	/* state */
	RD_SCAN_PORT_STATE_PHYS = 1u << 5,	/* phys_state */
	RD_SCAN_PORT_STATE = RD_SCAN_PORT_STATE_LOGICAL | RD_SCAN_PORT_STATE_PHYS,
	RD_SCAN_PORT_RATE = 1u << 2,	/* rate */
	RD_SCAN_PORT_LIDS = 1u << 6,	/* lid, sm_lid, sm_sl, lid_mask_count, cap_mask */
	RD_SCAN_PORT_LINK = RD_SCAN_PORT_RATE | RD_SCAN_PORT_LIDS,
	RD_SCAN_DEV_IDS = 1u << 3,	/* node_guid, sys_image_guid, hca_type, board_id, node_desc */
	RD_SCAN_DEV_FW = 1u << 4,	/* fw_ver */
	/*
	 * The function around the device: its driver, uverbs node, SR-IOV
	 * links (physfn, sriov_numvfs) and a soft device's parent netdev.  The
	 * PCI address (the device link) is always read.
	 */
	RD_SCAN_DEV_FN = 1u << 7,
	RD_SCAN_ALL = RD_SCAN_NETDEVS | RD_SCAN_PORT_STATE | RD_SCAN_PORT_LINK | RD_SCAN_DEV_IDS |
		      RD_SCAN_DEV_FW | RD_SCAN_DEV_FN,
	/*
	 * All but the ports' netdev lists: for every tool but rdma-devinfo,
	 * which alone shows them (one gid_attrs/ndevs file per GID slot, 1 024
	 * a port on soft-RoCE).
	 */
	RD_SCAN_NO_NETDEVS = RD_SCAN_ALL & ~RD_SCAN_NETDEVS,
};
int rd_device_scan(const struct rd_sysroot *sr, const struct rd_strlist *filter,
		   struct rd_device_list *list, const char **unknown, struct rd_warnings *w);
int rd_device_scan_flags(const struct rd_sysroot *sr, const struct rd_strlist *filter,
			 struct rd_device_list *list, const char **unknown, struct rd_warnings *w,
			 unsigned int flags);
void rd_device_list_free(struct rd_device_list *list);

struct rd_port *rd_device_port(struct rd_device *dev, unsigned int num);

/* Names for the kernel's numeric codes; NULL when the code is unknown. */
/*
 * Netdevs of one port as sysfs tells them: every netdev the port's GID table
 * refers to, in index order (what RoCE really uses: bond0 on a LAG, VLANs),
 * then the parent of a soft device, then the PCI function's netdevs for that
 * port (dev_port; IPoIB on IB ports).  -ENOMEM only.
 */
int rd_port_netdevs_sysfs(const struct rd_sysroot *sr, const struct rd_device *dev,
			  const struct rd_port *port, struct rd_strlist *out);
/* A switchdev representor ("pf0vf3", "p0") is not the port's own netdev. */
bool rd_netdev_is_representor(const struct rd_sysroot *sr, const char *ibdev, const char *ifname);

const char *rd_node_type_name(uint64_t node_type);	/* "CA", "RNIC" */
const char *rd_port_state_name(uint64_t state);		/* "ACTIVE" */
const char *rd_phys_state_name(uint64_t phys_state);	/* "LinkUp" */
const char *rd_link_layer_name(enum rd_link_layer ll);	/* "InfiniBand" */
/* What a user calls the transport: "InfiniBand", "RoCE", "iWARP", "USNIC"... */
const char *rd_port_transport(const struct rd_device *dev, const struct rd_port *port);

/* "100 Gb/sec (4X EDR)" -> 100, "4X", "EDR" */
int rd_parse_rate(const char *s, struct rd_rate *rate);
/* "0c42:a103:0065:8b1e" <-> 0x0c42a10300658b1e */
int rd_parse_guid(const char *s, uint64_t *guid);
void rd_format_guid(uint64_t guid, char buf[20]);
/*
 * A GUID in the kit's JSON and metrics: "0x" and 16 lower-case hex digits, as
 * ibstat, ibnetdiscover, OpenSM and node name maps write it, so that a host's
 * GUIDs join with the fabric's (the colon form above is sysfs's and
 * ibv_devinfo's, kept for text).
 */
void rd_format_guid_hex(uint64_t guid, char buf[19]);

#endif

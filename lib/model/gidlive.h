/* SPDX-License-Identifier: MIT */
/*
 * GID tables through libibverbs: ibv_query_gid_table() returns every valid
 * entry of a device (GID, type, netdev ifindex) in one call (rdma-core >= 31,
 * a kernel with the uverbs ioctl interface).  Faster than one file per
 * attribute, and it works where gid_attrs/types reads EINVAL (containers,
 * nccl#1538).  rdma-gids falls back to sysfs wherever it fails.
 */
#ifndef RD_GIDLIVE_H
#define RD_GIDLIVE_H

#include <stddef.h>

#include "device.h"
#include "gid.h"
#include "netdev.h"

struct rd_gid_live;

/* Once per run; NULL when libibverbs lists no device (the caller uses sysfs). */
struct rd_gid_live *rd_gid_live_open(void);
void rd_gid_live_close(struct rd_gid_live *l);

/*
 * One port's table, as rd_port_gid_table_vlans() gives it from sysfs (used
 * entries in index order, type string as the kernel writes it, netdev name,
 * VLAN from vlans), from the device's one ibv_query_gid_table() call (made
 * on the first port asked, kept for the others).  A netdev ifindex that has
 * no name here (another network namespace) is named from gid_attrs/ndevs.
 * -errno when the verbs path cannot answer for this device: the caller reads
 * sysfs instead.
 */
int rd_gid_live_port(struct rd_gid_live *l, const struct rd_sysroot *sr,
		     const struct rd_device *dev, const struct rd_port *port,
		     const struct rd_vlan_map *vlans, struct rd_gid_table *t);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * GID tables through libibverbs: ibv_query_gid_table() returns every valid
 * entry of a device (GID, type, netdev ifindex) in one call (rdma-core >= 31,
 * a kernel with the uverbs ioctl interface).  Faster than one file per
 * attribute, and it works where gid_attrs/types reads EINVAL (containers,
 * nccl#1538).  Wherever it cannot answer, rd_gid_port_table() reads sysfs.
 */
#ifndef RD_GIDLIVE_H
#define RD_GIDLIVE_H

#include <stddef.h>

#include "device.h"
#include "gid.h"
#include "netdev.h"

struct rd_gid_live;

/*
 * Once per run; NULL under a --sysroot tree (verbs would describe this host,
 * not the tree) and when libibverbs lists no device: sysfs then.
 */
struct rd_gid_live *rd_gid_live_open(const struct rd_sysroot *sr);
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

/*
 * One port's table from the best source there is: the verbs call when l is
 * not NULL and answers for the device, else sysfs (rd_port_gid_table_vlans(),
 * its warnings into w, which may be NULL).  include_empty (slots without a
 * GID) always reads sysfs: the verbs call returns used entries only.
 */
int rd_gid_port_table(struct rd_gid_live *l, const struct rd_sysroot *sr,
		      const struct rd_device *dev, const struct rd_port *port, bool include_empty,
		      const struct rd_vlan_map *vlans, struct rd_gid_table *t,
		      struct rd_warnings *w);

#endif

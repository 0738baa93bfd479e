/* SPDX-License-Identifier: MIT */
/*
 * ib port <-> netdev.  For now the sysfs side: the rxe/siw parent, the PCI
 * function's net/ directory, and the netdevs the GID table names.
 */
#ifndef RD_NETDEV_H
#define RD_NETDEV_H

#include "device.h"
#include "sysroot.h"
#include "util.h"

/*
 * Netdevs of one port as sysfs tells them: every netdev the port's GID table
 * refers to, in index order (what RoCE really uses: bond0 on a LAG, VLANs),
 * then the parent of a soft device, then the PCI function's netdevs for that
 * port (dev_port; IPoIB on IB ports).  -ENOMEM only.
 */
int rd_port_netdevs_sysfs(const struct rd_sysroot *sr, const struct rd_device *dev,
			  const struct rd_port *port, struct rd_strlist *out);

#endif

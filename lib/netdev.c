// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "netdev.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A switchdev representor ("pf0vf3", "p0") is not the port's own netdev. */
static bool is_representor(const struct rd_sysroot *sr, const char *ibdev, const char *ifname)
{
	char name[64];

	if (rd_sys_read_str(sr, name, sizeof(name),
			    "/sys/class/infiniband/%s/device/net/%s/phys_port_name", ibdev, ifname))
		return false;
	return strstr(name, "vf") || strstr(name, "sf");
}

int rd_port_netdevs_sysfs(const struct rd_sysroot *sr, const struct rd_device *dev,
			  const struct rd_port *port, struct rd_strlist *out)
{
	struct rd_strlist l = { 0 };
	char name[64];
	int ret = 0;

	/* Unused slots and IB ports fail with EINVAL: that is expected, not a warning. */
	if (rd_sys_list(sr, &l, "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs", dev->name,
			port->num) == 0) {
		for (size_t i = 0; i < l.n; i++) {
			if (rd_sys_read_str(sr, name, sizeof(name),
					    "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%s",
					    dev->name, port->num, l.v[i]) || !name[0])
				continue;
			ret = rd_strlist_add_unique(out, name);
			if (ret)
				goto out;
		}
	}
	rd_strlist_free(&l);

	if (dev->parent[0]) {
		ret = rd_strlist_add_unique(out, dev->parent);
		if (ret)
			return ret;
	}

	if (rd_sys_list(sr, &l, "/sys/class/infiniband/%s/device/net", dev->name) == 0) {
		for (size_t i = 0; i < l.n; i++) {
			uint64_t dev_port = 0;

			/* dev_port counts from 0; absent means the function's only port. */
			if (rd_sys_read_u64(sr, &dev_port, "/sys/class/infiniband/%s/device/net/%s/dev_port",
					    dev->name, l.v[i]) < 0)
				dev_port = 0;
			if (dev_port + 1 != port->num || is_representor(sr, dev->name, l.v[i]))
				continue;
			ret = rd_strlist_add_unique(out, l.v[i]);
			if (ret)
				goto out;
		}
	}
	rd_strlist_free(&l);

out:
	rd_strlist_free(&l);
	return ret;
}

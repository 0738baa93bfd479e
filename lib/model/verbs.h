/* SPDX-License-Identifier: MIT */
/* libibverbs: device facts now; PD/CQ/MR and RC QP bring-up join here later. */
#ifndef RD_VERBS_H
#define RD_VERBS_H

#include <infiniband/verbs.h>

#include "device.h"

struct rd_verbs_device {
	struct ibv_device_attr attr;
};

struct rd_verbs_port {
	struct ibv_port_attr attr;
};

/*
 * Open each device of the list with libibverbs and attach ibv_query_device /
 * ibv_query_port results.  A device that cannot be opened keeps its sysfs
 * facts and gets dev->verbs_error saying why (no provider, permission...).
 * Returns 0, or -errno when libibverbs itself is unusable (verbs_error is
 * then set on every device).
 */
int rd_verbs_query(struct rd_device_list *list);

const char *rd_mtu_str(enum ibv_mtu mtu);		/* "4096" */
const char *rd_atomic_cap_str(enum ibv_atomic_cap c);	/* "none", "hca", "global" */
const char *rd_width_str(uint8_t width);		/* "4X" */
const char *rd_speed_str(uint8_t speed);		/* "EDR" */
double rd_speed_gbps(uint8_t speed);			/* per lane, 25.78125 for EDR */
int rd_width_lanes(uint8_t width);			/* 4 for 4X */

#endif

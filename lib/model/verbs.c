// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "verbs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *rd_mtu_str(enum ibv_mtu mtu)
{
	switch (mtu) {
	case IBV_MTU_256:
		return "256";
	case IBV_MTU_512:
		return "512";
	case IBV_MTU_1024:
		return "1024";
	case IBV_MTU_2048:
		return "2048";
	case IBV_MTU_4096:
		return "4096";
	default:
		return NULL;
	}
}

const char *rd_atomic_cap_str(enum ibv_atomic_cap c)
{
	switch (c) {
	case IBV_ATOMIC_NONE:
		return "none";
	case IBV_ATOMIC_HCA:
		return "hca";
	case IBV_ATOMIC_GLOB:
		return "global";
	default:
		return NULL;
	}
}

const char *rd_width_str(uint8_t width)
{
	switch (width) {
	case 1:
		return "1X";
	case 2:
		return "4X";
	case 4:
		return "8X";
	case 8:
		return "12X";
	case 16:
		return "2X";
	default:
		return NULL;
	}
}

int rd_width_lanes(uint8_t width)
{
	switch (width) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

const char *rd_speed_str(uint8_t speed)
{
	switch (speed) {
	case 1:
		return "SDR";
	case 2:
		return "DDR";
	case 4:
		return "QDR";
	case 8:
		return "FDR10";
	case 16:
		return "FDR";
	case 32:
		return "EDR";
	case 64:
		return "HDR";
	case 128:
		return "NDR";
	default:
		return NULL;
	}
}

double rd_speed_gbps(uint8_t speed)
{
	switch (speed) {
	case 1:
		return 2.5;
	case 2:
		return 5.0;
	case 4:
		return 10.0;
	case 8:
		return 10.3125;
	case 16:
		return 14.0625;
	case 32:
		return 25.78125;
	case 64:
		return 53.125;
	case 128:
		return 106.25;
	default:
		return 0;
	}
}

static void query_one(struct ibv_device *ibdev, struct rd_device *dev)
{
	struct ibv_context *ctx;
	struct rd_verbs_device *vd;

	errno = 0;
	ctx = ibv_open_device(ibdev);
	if (!ctx) {
		int err = errno ? errno : EIO;

		/*
		 * libibverbs falls back to other ways of opening the char device
		 * and the last one's errno wins (often ENOENT): ask the node.
		 */
		if (dev->uverbs[0]) {
			char path[64];

			snprintf(path, sizeof(path), "/dev/infiniband/%s", dev->uverbs);
			if (access(path, R_OK | W_OK) < 0)
				err = errno;
		}
		snprintf(dev->verbs_error, sizeof(dev->verbs_error), "cannot open %s: %s%s",
			 dev->uverbs[0] ? dev->uverbs : "its uverbs device", strerror(err),
			 err == EACCES ? " (no access to /dev/infiniband; run as root or fix its mode)" :
			 err == ENOENT ? " (no device node; are udev rules from rdma-core installed?)" : "");
		return;
	}
	vd = calloc(1, sizeof(*vd));
	if (!vd) {
		snprintf(dev->verbs_error, sizeof(dev->verbs_error), "out of memory");
		goto out;
	}
	int ret = ibv_query_device(ctx, &vd->attr);

	if (ret) {
		snprintf(dev->verbs_error, sizeof(dev->verbs_error), "ibv_query_device: %s",
			 strerror(ret));
		free(vd);
		goto out;
	}
	dev->verbs = vd;
	for (unsigned int i = 0; i < dev->nports; i++) {
		struct rd_port *p = &dev->ports[i];
		RD_GCC_LEAK_FP_BEGIN	/* the last one went to the previous p->verbs */
		struct rd_verbs_port *vp = calloc(1, sizeof(*vp));
		RD_GCC_LEAK_FP_END

		if (!vp)
			break;
		if (ibv_query_port(ctx, (uint8_t)p->num, &vp->attr)) {
			free(vp);
			continue;
		}
		p->verbs = vp;
	}
out:
	ibv_close_device(ctx);
}

int rd_verbs_query(struct rd_device_list *list)
{
	struct ibv_device **ibdevs;
	int n = 0;

	errno = 0;
	ibdevs = ibv_get_device_list(&n);
	if (!ibdevs) {
		int err = errno ? errno : EIO;

		for (unsigned int i = 0; i < list->n; i++)
			snprintf(list->v[i].verbs_error, sizeof(list->v[i].verbs_error),
				 "libibverbs cannot list devices: %s", strerror(err));
		return -err;
	}
	for (unsigned int i = 0; i < list->n; i++) {
		struct rd_device *dev = &list->v[i];
		struct ibv_device *match = NULL;

		for (int j = 0; j < n; j++)
			if (strcmp(ibv_get_device_name(ibdevs[j]), dev->name) == 0)
				match = ibdevs[j];
		if (!match) {
			snprintf(dev->verbs_error, sizeof(dev->verbs_error),
				 "no userspace verbs provider for it (is ibverbs-providers installed?)");
			continue;
		}
		query_one(match, dev);
	}
	ibv_free_device_list(ibdevs);
	return 0;
}

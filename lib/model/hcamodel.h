/* SPDX-License-Identifier: MIT */
/*
 * What an HCA model can do, by PCI ID: its name and the fastest InfiniBand
 * lane speed it trains at.  A port's rate is judged against this best, not
 * against a sibling port that happens to be up (rdma-doctor's port.rate).
 * Ethernet-only parts and SKU-dependent Ethernet speeds are not listed: for
 * RoCE the netdev's own speed is the reference.
 */
#ifndef RD_HCAMODEL_H
#define RD_HCAMODEL_H

#include <stdint.h>

#include "sysroot/sysroot.h"

struct rd_hca_model {
	uint16_t vendor, device;
	const char *name;	/* "ConnectX-6" */
	const char *ib_speed;	/* fastest IB lane speed: "EDR", "HDR"... (NULL: Ethernet only) */
};

/* The model of PCI vendor:device, NULL if unknown. */
const struct rd_hca_model *rd_hca_model_find(uint16_t vendor, uint16_t device);
/* The model of RDMA device name, from its PCI function's vendor and device files. */
const struct rd_hca_model *rd_hca_model_of(const struct rd_sysroot *sr, const char *name);

/*
 * The rank of an IB lane speed name (sysfs rate's "(4X HDR)" part): SDR 1,
 * DDR 2, QDR 3, FDR10 4, FDR 5, EDR 6, HDR 7, NDR 8, XDR 9; 0 if unknown.
 */
int rd_ib_speed_rank(const char *speed);

#endif

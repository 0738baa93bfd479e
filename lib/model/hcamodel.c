// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "hcamodel.h"

#include <stddef.h>
#include <string.h>

#include "base/base.h"

/*
 * NVIDIA (Mellanox) HCAs with InfiniBand ports, from the PCI IDs the mlx4 and
 * mlx5 drivers bind (drivers/net/ethernet/mellanox/mlx5/core/main.c) and the
 * products' data sheets.  VFs follow their PF and are not listed.
 */
static const struct rd_hca_model models[] = {
	{ 0x15b3, 0x1003, "ConnectX-3", "FDR" },
	{ 0x15b3, 0x1007, "ConnectX-3 Pro", "FDR" },
	{ 0x15b3, 0x1011, "Connect-IB", "FDR" },
	{ 0x15b3, 0x1013, "ConnectX-4", "EDR" },
	{ 0x15b3, 0x1015, "ConnectX-4 Lx", NULL },
	{ 0x15b3, 0x1017, "ConnectX-5", "EDR" },
	{ 0x15b3, 0x1019, "ConnectX-5 Ex", "EDR" },
	{ 0x15b3, 0x101b, "ConnectX-6", "HDR" },
	{ 0x15b3, 0x101d, "ConnectX-6 Dx", NULL },
	{ 0x15b3, 0x101f, "ConnectX-6 Lx", NULL },
	{ 0x15b3, 0x1021, "ConnectX-7", "NDR" },
	{ 0x15b3, 0x1023, "ConnectX-8", "XDR" },
	{ 0x15b3, 0xa2d2, "BlueField", "EDR" },
	{ 0x15b3, 0xa2d6, "BlueField-2", "HDR" },
	{ 0x15b3, 0xa2dc, "BlueField-3", "NDR" },
};

const struct rd_hca_model *rd_hca_model_find(uint16_t vendor, uint16_t device)
{
	for (size_t i = 0; i < RD_ARRAY_SIZE(models); i++)
		if (models[i].vendor == vendor && models[i].device == device)
			return &models[i];
	return NULL;
}

const struct rd_hca_model *rd_hca_model_of(const struct rd_sysroot *sr, const char *name)
{
	uint64_t vendor, device;

	if (rd_sys_read_hex(sr, &vendor, "/sys/class/infiniband/%s/device/vendor", name) ||
	    rd_sys_read_hex(sr, &device, "/sys/class/infiniband/%s/device/device", name) ||
	    vendor > 0xffff || device > 0xffff)
		return NULL;
	return rd_hca_model_find((uint16_t)vendor, (uint16_t)device);
}

int rd_ib_speed_rank(const char *speed)
{
	static const char *const ranks[] = { "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR",
					     "NDR", "XDR" };

	for (size_t i = 0; speed && i < RD_ARRAY_SIZE(ranks); i++)
		if (strcmp(speed, ranks[i]) == 0)
			return (int)i + 1;
	return 0;
}

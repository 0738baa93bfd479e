/* SPDX-License-Identifier: MIT */
/*
 * Netlink facts for rdma-doctor: the RDMA subsystem's network-namespace mode
 * (RDMA_NLDEV_CMD_SYS_GET) and a netdev's IEEE 802.1Qaz PFC and trust
 * settings (rtnetlink RTM_GETDCB / DCB_CMD_IEEE_GET: what `dcb pfc show` and
 * `dcb apptrust show` read).  Live only; every receive has a deadline.
 */
#ifndef RD_DRNL_H
#define RD_DRNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* *exclusive: RDMA devices belong to one network namespace.  -EOPNOTSUPP on old kernels. */
int rd_nl_netns_mode(bool *exclusive, int timeout_ms);
/* The parsing half: one SYS_GET reply (tests, fuzzing). */
int rd_nl_parse_netns_mode(const void *buf, size_t len, bool *exclusive);

struct rd_dcb {
	bool has_pfc;
	uint8_t pfc_cap;	/* traffic classes that can be lossless */
	uint8_t pfc_en;		/* bit N: PFC on priority N */
	bool has_trust;
	uint8_t trust[8];	/* selectors in trust order: 5 DSCP, 255 PCP... */
	unsigned int ntrust;
};

/*
 * IEEE DCB settings of ifname.  -EOPNOTSUPP: the driver has no DCB support
 * (no dcbnl_ops: virtio, rxe's parent...); -ENODEV: no such netdev here.
 */
int rd_dcb_ieee_get(const char *ifname, struct rd_dcb *out, int timeout_ms);
/* The parsing half: one RTM_GETDCB reply; -errno of an NLMSG_ERROR reply. */
int rd_dcb_parse(const void *buf, size_t len, struct rd_dcb *out);
/* "dscp", "pcp", "ethertype"...; NULL when unknown. */
const char *rd_dcb_selector_name(uint8_t sel);

#endif

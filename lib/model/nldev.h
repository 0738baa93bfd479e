/* SPDX-License-Identifier: MIT */
/*
 * The kernel's RDMA netlink interface (NETLINK_RDMA, RDMA_NL_NLDEV), through
 * libnl-3: devices and ports with their netdev (kernel 4.17+).  Live only.
 */
#ifndef RD_NLDEV_H
#define RD_NLDEV_H

#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rd_nl_port {
	char dev[64];
	uint32_t dev_index;
	uint32_t port;
	bool has_state;
	uint8_t state, phys_state;
	/* The kernel reports the netdev only when it is in our network namespace. */
	bool has_ndev;
	uint32_t ndev_index;
	char ndev[64];
};

struct rd_nl_ports {
	struct rd_nl_port *v;
	size_t n;
};

/*
 * Dump every port of every device.  Each receive waits at most timeout_ms.
 * -EPROTONOSUPPORT when the kernel has no RDMA netlink, -ETIMEDOUT, -errno.
 */
int rd_nldev_ports(struct rd_nl_ports *out, int timeout_ms);
void rd_nl_ports_free(struct rd_nl_ports *p);

/*
 * Parse one RDMA_NLDEV_CMD_GET or _PORT_GET reply (exposed for tests and
 * fuzzing: it must survive any bytes).  len is the buffer length; the message
 * header's own length is checked against it.  -EINVAL on malformed input.
 */
int rd_nldev_parse_port(const void *buf, size_t len, struct rd_nl_port *p);

/*
 * Hand one netlink message from outside (a socket, a fuzzer) to fn: checked
 * for a sane length, copied to an aligned, writable buffer (libnl's parsers
 * want one), nlmsg_len checked against it.  fn's result, or -EINVAL/-ENOMEM.
 */
struct nlmsghdr;
int rd_nl_parse_copy(const void *buf, size_t len, int (*fn)(struct nlmsghdr *nlh, void *arg),
		     void *arg);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * hw counters of a port through the kernel's RDMA netlink
 * (RDMA_NLDEV_CMD_STAT_GET without a counter id: the port's default counter,
 * what `rdma statistic show link` prints).  One socket, kept open; one
 * request and one reply per port.  Live only.
 */
#ifndef RD_NLSTAT_H
#define RD_NLSTAT_H

#include <stddef.h>
#include <stdint.h>

struct rd_nlstat;

/* Each receive waits at most timeout_ms.  -EPROTONOSUPPORT without RDMA netlink. */
int rd_nlstat_open(struct rd_nlstat **out, int timeout_ms);
void rd_nlstat_close(struct rd_nlstat *ns);

/* Called per counter of a reply; a non-zero return stops the walk and is returned. */
typedef int (*rd_nlstat_cb)(void *ctx, const char *name, uint64_t value);

/*
 * The hw counters of one port.  -EINVAL from the kernel when the device or
 * port does not exist (any more) or has no hw counters; -ETIMEDOUT.
 */
int rd_nlstat_port(struct rd_nlstat *ns, uint32_t dev_index, uint32_t port, rd_nlstat_cb cb,
		   void *ctx);

/*
 * Parse one RDMA_NLDEV_CMD_STAT_GET reply (or NLMSG_ERROR) of len bytes;
 * exposed for tests and fuzzing: it must survive any bytes.  Returns the
 * number of counters, the kernel's -errno, or -EINVAL on malformed input.
 */
int rd_nlstat_parse(const void *buf, size_t len, rd_nlstat_cb cb, void *ctx);

#endif

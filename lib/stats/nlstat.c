// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "nlstat.h"

#include <errno.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <poll.h>
#include <rdma/rdma_netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "model/model.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

struct rd_nlstat {
	int fd;
	uint32_t seq;
	int timeout_ms;
	uint8_t *buf;
	size_t cap;
};

int rd_nlstat_open(struct rd_nlstat **out, int timeout_ms)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct rd_nlstat *ns;
	int ret;

	*out = NULL;
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	ns->timeout_ms = timeout_ms;
	ns->seq = (uint32_t)time(NULL);
	ns->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (ns->fd < 0) {
		ret = errno == EPROTONOSUPPORT || errno == EAFNOSUPPORT ? -EPROTONOSUPPORT : -errno;
		free(ns);
		return ret;
	}
	if (bind(ns->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		close(ns->fd);
		free(ns);
		return ret;
	}
	*out = ns;
	return 0;
}

void rd_nlstat_close(struct rd_nlstat *ns)
{
	if (!ns)
		return;
	close(ns->fd);
	free(ns->buf);
	free(ns);
}

static struct nla_policy msg_policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS] = { .type = NLA_NESTED },
};

/* libnl checks NUL termination for NLA_STRING. */
static struct nla_policy entry_policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] = { .type = NLA_STRING },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] = { .type = NLA_U64 },
};

/* One message whose header length has been checked against the buffer. */
static int parse_msg(struct nlmsghdr *nlh, rd_nlstat_cb cb, void *ctx)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	struct nlattr *entry;
	int rem, n = 0;

	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = NLMSG_DATA(nlh);

		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
			return -EINVAL;
		return e->error < 0 ? e->error : 0;
	}
	if (nlh->nlmsg_type != RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET))
		return -EINVAL;
	if (nlmsg_parse(nlh, 0, tb, RDMA_NLDEV_ATTR_MAX - 1, msg_policy) < 0)
		return -EINVAL;
	if (!tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS])
		return 0;
	nla_for_each_nested(entry, tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS], rem) {
		struct nlattr *e[RDMA_NLDEV_ATTR_MAX] = { 0 };
		int ret;

		if (nla_type(entry) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY)
			continue;
		if (nla_parse_nested(e, RDMA_NLDEV_ATTR_MAX - 1, entry, entry_policy) < 0)
			return -EINVAL;
		if (!e[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] ||
		    !e[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE])
			continue;
		ret = cb(ctx, nla_get_string(e[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME]),
			 nla_get_u64(e[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE]));
		if (ret)
			return ret;
		n++;
	}
	return n;
}

struct parse_msg_arg {
	rd_nlstat_cb cb;
	void *ctx;
};

static int parse_msg_cb(struct nlmsghdr *nlh, void *arg)
{
	const struct parse_msg_arg *a = arg;

	return parse_msg(nlh, a->cb, a->ctx);
}

int rd_nlstat_parse(const void *buf, size_t len, rd_nlstat_cb cb, void *ctx)
{
	struct parse_msg_arg a = { .cb = cb, .ctx = ctx };

	return rd_nl_parse_copy(buf, len, parse_msg_cb, &a);
}

static int send_request(struct rd_nlstat *ns, uint32_t dev_index, uint32_t port)
{
	struct {
		struct nlmsghdr h;
		struct nlattr a1;
		uint32_t dev;
		struct nlattr a2;
		uint32_t port;
	} req;
	ssize_t n;

	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET);
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.h.nlmsg_seq = ++ns->seq;
	req.a1.nla_len = NLA_HDRLEN + sizeof(uint32_t);
	req.a1.nla_type = RDMA_NLDEV_ATTR_DEV_INDEX;
	req.dev = dev_index;
	req.a2.nla_len = NLA_HDRLEN + sizeof(uint32_t);
	req.a2.nla_type = RDMA_NLDEV_ATTR_PORT_INDEX;
	req.port = port;
	do
		n = send(ns->fd, &req, sizeof(req), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(req) ? 0 : -EIO;
}

/* Receive one datagram into ns->buf; its length or -errno. */
static ssize_t recv_datagram(struct rd_nlstat *ns, int timeout_ms)
{
	struct pollfd p = { .fd = ns->fd, .events = POLLIN };
	ssize_t n;
	int r;

	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	n = recv(ns->fd, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	if ((size_t)n > ns->cap) {
		size_t cap = (size_t)n < 16384 ? 16384 : (size_t)n;
		uint8_t *b = realloc(ns->buf, cap);

		if (!b)
			return -ENOMEM;
		ns->buf = b;
		ns->cap = cap;
	}
	return recv(ns->fd, ns->buf, ns->cap, MSG_DONTWAIT);
}

int rd_nlstat_port(struct rd_nlstat *ns, uint32_t dev_index, uint32_t port, rd_nlstat_cb cb,
		   void *ctx)
{
	double deadline = rd_monotonic() + ns->timeout_ms / 1000.0;
	int ret = send_request(ns, dev_index, port);

	if (ret)
		return ret;
	for (;;) {
		int left = (int)((deadline - rd_monotonic()) * 1000);
		ssize_t n = recv_datagram(ns, left > 0 ? left : 0);
		size_t len, off = 0;

		if (n < 0)
			return (int)n;
		len = (size_t)n;
		while (len - off >= sizeof(struct nlmsghdr)) {
			struct nlmsghdr *h = (struct nlmsghdr *)(ns->buf + off);

			if (h->nlmsg_len < sizeof(*h) || h->nlmsg_len > len - off)
				break;
			off += NLMSG_ALIGN(h->nlmsg_len);
			if (off > len)
				off = len;
			/* A late reply to an earlier request that timed out: skip it. */
			if (h->nlmsg_seq != ns->seq)
				continue;
			ret = parse_msg(h, cb, ctx);
			return ret < 0 ? ret : 0;
		}
	}
}

// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "nldev.h"

#include <errno.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <rdma/rdma_netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "base/base.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

/* libnl checks NUL termination for NLA_STRING (not for NLA_NUL_STRING). */
static struct nla_policy nldev_policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DEV_NAME] = { .type = NLA_STRING },
	[RDMA_NLDEV_ATTR_PORT_INDEX] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_PORT_STATE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_PORT_PHYS_STATE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_NDEV_INDEX] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_NDEV_NAME] = { .type = NLA_STRING },
};

static int parse_attrs(struct nlmsghdr *nlh, struct rd_nl_port *p)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };

	memset(p, 0, sizeof(*p));
	if (nlmsg_parse(nlh, 0, tb, RDMA_NLDEV_ATTR_MAX - 1, nldev_policy) < 0)
		return -EINVAL;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return -EINVAL;
	p->dev_index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	rd_strlcpy(p->dev, nla_get_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]), sizeof(p->dev));
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		p->port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (tb[RDMA_NLDEV_ATTR_PORT_STATE] && tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]) {
		p->has_state = true;
		p->state = nla_get_u8(tb[RDMA_NLDEV_ATTR_PORT_STATE]);
		p->phys_state = nla_get_u8(tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]);
	}
	if (tb[RDMA_NLDEV_ATTR_NDEV_INDEX] && tb[RDMA_NLDEV_ATTR_NDEV_NAME]) {
		p->has_ndev = true;
		p->ndev_index = nla_get_u32(tb[RDMA_NLDEV_ATTR_NDEV_INDEX]);
		rd_strlcpy(p->ndev, nla_get_string(tb[RDMA_NLDEV_ATTR_NDEV_NAME]), sizeof(p->ndev));
	}
	return 0;
}

int rd_nl_parse_copy(const void *buf, size_t len, int (*fn)(struct nlmsghdr *nlh, void *arg),
		     void *arg)
{
	struct nlmsghdr *nlh;
	void *copy;
	int ret;

	if (len < sizeof(struct nlmsghdr) || len > 1 << 20)
		return -EINVAL;
	copy = calloc(1, NLMSG_ALIGN(len));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	nlh = copy;
	if (nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len)
		ret = -EINVAL;
	else
		ret = fn(nlh, arg);
	free(copy);
	return ret;
}

static int parse_port_cb(struct nlmsghdr *nlh, void *arg)
{
	return parse_attrs(nlh, arg);
}

int rd_nldev_parse_port(const void *buf, size_t len, struct rd_nl_port *p)
{
	return rd_nl_parse_copy(buf, len, parse_port_cb, p);
}

struct dump_ctx {
	struct rd_nl_ports *out;
	int err;
};

static int add_port(struct rd_nl_ports *out, const struct rd_nl_port *p)
{
	struct rd_nl_port *v = realloc(out->v, (out->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	out->v = v;
	out->v[out->n++] = *p;
	return 0;
}

static int on_msg(struct nl_msg *msg, void *arg)
{
	struct dump_ctx *ctx = arg;
	struct rd_nl_port p;

	if (parse_attrs(nlmsg_hdr(msg), &p) == 0) {
		RD_GCC_LEAK_FP_BEGIN	/* the grown array is ctx->out->v */
		int ret = add_port(ctx->out, &p);
		RD_GCC_LEAK_FP_END

		if (ret)
			ctx->err = ret;
	}
	return NL_OK;
}

static int libnl_errno(int nlerr)
{
	switch (-nlerr) {
	case NLE_AGAIN:
		return -ETIMEDOUT;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_PROTO_MISMATCH:
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_OBJ_NOTFOUND:
	case NLE_NODEV:
		return -ENODEV;
	default:
		return -EIO;
	}
}

/* Send one dump request (optionally for one device) and collect the replies. */
static int dump(struct nl_sock *sk, int cmd, const uint32_t *dev_index, struct rd_nl_ports *out)
{
	struct dump_ctx ctx = { .out = out };
	struct nl_msg *msg;
	int ret;

	msg = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), NLM_F_REQUEST | NLM_F_DUMP);
	if (!msg)
		return -ENOMEM;
	if (dev_index && nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, *dev_index) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	ret = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		return libnl_errno(ret);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_msg, &ctx);
	ret = nl_recvmsgs_default(sk);
	if (ret < 0)
		return libnl_errno(ret);
	return ctx.err;
}

int rd_nldev_ports(struct rd_nl_ports *out, int timeout_ms)
{
	struct rd_nl_ports devs = { 0 };
	struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = (suseconds_t)(timeout_ms % 1000) * 1000 };
	struct nl_sock *sk;
	int ret;

	out->v = NULL;
	out->n = 0;
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	ret = nl_connect(sk, NETLINK_RDMA);
	if (ret < 0) {
		ret = -EPROTONOSUPPORT;
		goto out;
	}
	/* Every wait has a deadline: a kernel that never answers must not hang us. */
	if (setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		ret = -errno;
		goto out;
	}
	ret = dump(sk, RDMA_NLDEV_CMD_GET, NULL, &devs);
	if (ret)
		goto out;
	/* The kernel's port dump wants a device index. */
	for (size_t i = 0; i < devs.n; i++) {
		ret = dump(sk, RDMA_NLDEV_CMD_PORT_GET, &devs.v[i].dev_index, out);
		if (ret == -ENODEV)
			continue;	/* removed between the two dumps */
		if (ret)
			goto out;
	}
	ret = 0;
out:
	rd_nl_ports_free(&devs);
	if (ret)
		rd_nl_ports_free(out);
	nl_socket_free(sk);
	return ret;
}

void rd_nl_ports_free(struct rd_nl_ports *p)
{
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

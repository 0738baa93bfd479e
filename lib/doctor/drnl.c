// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "drnl.h"

#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/base.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif
/* Newer than some uapi headers (Linux 6.3: dcb apptrust). */
#define RD_DCB_ATTR_APP_TRUST_TABLE 11
#define RD_DCB_APP_SEL_PCP 255

/* One attribute walk over [p, p + len): calls fn for every well-formed attribute. */
static int attr_walk(const uint8_t *p, size_t len,
		     int (*fn)(uint16_t type, const uint8_t *data, size_t dlen, void *arg), void *arg)
{
	while (len >= NLA_HDRLEN) {
		struct nlattr a;
		int ret;

		memcpy(&a, p, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > len)
			return -EINVAL;
		ret = fn(a.nla_type & NLA_TYPE_MASK, p + NLA_HDRLEN, a.nla_len - NLA_HDRLEN, arg);
		if (ret)
			return ret;
		size_t step = NLA_ALIGN(a.nla_len);

		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return 0;
}

/* The message's payload after its family header; -errno for an NLMSG_ERROR. */
static int msg_payload(const void *buf, size_t len, size_t famlen, const uint8_t **pl,
		       size_t *pllen)
{
	struct nlmsghdr h;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, buf, sizeof(h));
	if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len)
		return -EINVAL;
	if (h.nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr e;

		if (h.nlmsg_len < NLMSG_LENGTH(sizeof(e)))
			return -EINVAL;
		memcpy(&e, (const uint8_t *)buf + NLMSG_HDRLEN, sizeof(e));
		return e.error < 0 ? e.error : -EINVAL;
	}
	if (h.nlmsg_len < NLMSG_LENGTH(famlen))
		return -EINVAL;
	*pl = (const uint8_t *)buf + NLMSG_LENGTH(famlen);
	*pllen = h.nlmsg_len - NLMSG_LENGTH(famlen);
	/* Attributes start at the aligned end of the family header. */
	size_t pad = NLMSG_ALIGN(famlen) - famlen;

	if (*pllen < pad)
		return -EINVAL;
	*pl += pad;
	*pllen -= pad;
	return 0;
}

struct netns_arg {
	bool found, exclusive;
};

static int netns_attr(uint16_t type, const uint8_t *data, size_t dlen, void *arg)
{
	struct netns_arg *a = arg;

	if (type == RDMA_NLDEV_SYS_ATTR_NETNS_MODE && dlen >= 1) {
		a->found = true;
		/* 1: shared (every namespace sees every device); 0: exclusive. */
		a->exclusive = data[0] == 0;
	}
	return 0;
}

int rd_nl_parse_netns_mode(const void *buf, size_t len, bool *exclusive)
{
	struct netns_arg a = { 0 };
	const uint8_t *pl;
	size_t pllen;
	int ret = msg_payload(buf, len, 0, &pl, &pllen);

	if (ret)
		return ret;
	ret = attr_walk(pl, pllen, netns_attr, &a);
	if (ret)
		return ret;
	if (!a.found)
		return -EOPNOTSUPP;
	*exclusive = a.exclusive;
	return 0;
}

/* Send a request and receive the one reply into buf; -errno. */
static int transact(int proto, const void *req, size_t reqlen, uint8_t *buf, size_t buflen,
		    int timeout_ms, ssize_t *got)
{
	struct timeval tv = { .tv_sec = timeout_ms / 1000,
			      .tv_usec = (suseconds_t)(timeout_ms % 1000) * 1000 };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd, ret = 0;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return errno == EPROTONOSUPPORT ? -EOPNOTSUPP : -errno;
	/* Every wait has a deadline. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    sendto(fd, req, reqlen, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		goto out;
	}
	*got = recv(fd, buf, buflen, 0);
	if (*got < 0)
		ret = errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
out:
	close(fd);
	return ret;
}

int rd_nl_netns_mode(bool *exclusive, int timeout_ms)
{
	struct nlmsghdr req = {
		.nlmsg_len = NLMSG_LENGTH(0),
		.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET),
		.nlmsg_flags = NLM_F_REQUEST,
		.nlmsg_seq = 1,
	};
	uint8_t buf[4096];
	ssize_t got = 0;
	int ret = transact(NETLINK_RDMA, &req, sizeof(req), buf, sizeof(buf), timeout_ms, &got);

	if (ret)
		return ret;
	return rd_nl_parse_netns_mode(buf, (size_t)got, exclusive);
}

const char *rd_dcb_selector_name(uint8_t sel)
{
	switch (sel) {
	case IEEE_8021QAZ_APP_SEL_ETHERTYPE:
		return "ethertype";
	case IEEE_8021QAZ_APP_SEL_STREAM:
		return "stream-port";
	case IEEE_8021QAZ_APP_SEL_DGRAM:
		return "dgram-port";
	case IEEE_8021QAZ_APP_SEL_ANY:
		return "port";
	case IEEE_8021QAZ_APP_SEL_DSCP:
		return "dscp";
	case RD_DCB_APP_SEL_PCP:
		return "pcp";
	default:
		return NULL;
	}
}

static int trust_attr(uint16_t type, const uint8_t *data, size_t dlen, void *arg)
{
	struct rd_dcb *d = arg;

	(void)type;	/* DCB_ATTR_IEEE_APP or DCB_ATTR_DCB_APP, by selector */
	if (dlen >= 1 && d->ntrust < RD_ARRAY_SIZE(d->trust))
		d->trust[d->ntrust++] = data[0];
	return 0;
}

static int ieee_attr(uint16_t type, const uint8_t *data, size_t dlen, void *arg)
{
	struct rd_dcb *d = arg;

	if (type == DCB_ATTR_IEEE_PFC && dlen >= 2) {
		/* struct ieee_pfc starts with pfc_cap, pfc_en */
		d->has_pfc = true;
		d->pfc_cap = data[0];
		d->pfc_en = data[1];
	} else if (type == RD_DCB_ATTR_APP_TRUST_TABLE) {
		d->has_trust = true;
		return attr_walk(data, dlen, trust_attr, d);
	}
	return 0;
}

static int top_attr(uint16_t type, const uint8_t *data, size_t dlen, void *arg)
{
	if (type == DCB_ATTR_IEEE)
		return attr_walk(data, dlen, ieee_attr, arg);
	return 0;
}

int rd_dcb_parse(const void *buf, size_t len, struct rd_dcb *out)
{
	const uint8_t *pl;
	size_t pllen;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = msg_payload(buf, len, sizeof(struct dcbmsg), &pl, &pllen);
	if (ret)
		return ret;
	return attr_walk(pl, pllen, top_attr, out);
}

int rd_dcb_ieee_get(const char *ifname, struct rd_dcb *out, int timeout_ms)
{
	struct {
		struct nlmsghdr h;
		struct dcbmsg d;
		struct nlattr a;
		char name[16];
	} req;
	uint8_t buf[8192];
	size_t nlen = strlen(ifname) + 1;
	ssize_t got = 0;
	int ret;

	if (nlen > 16)
		return -ENAMETOOLONG;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = RTM_GETDCB;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.h.nlmsg_seq = 1;
	req.d.dcb_family = AF_UNSPEC;
	req.d.cmd = DCB_CMD_IEEE_GET;
	req.a.nla_type = DCB_ATTR_IFNAME;
	req.a.nla_len = (uint16_t)(NLA_HDRLEN + nlen);
	memcpy(req.name, ifname, nlen);
	req.h.nlmsg_len = (uint32_t)(NLMSG_LENGTH(sizeof(struct dcbmsg)) + NLA_ALIGN(req.a.nla_len));
	ret = transact(NETLINK_ROUTE, &req, req.h.nlmsg_len, buf, sizeof(buf), timeout_ms, &got);
	if (ret)
		return ret;
	return rd_dcb_parse(buf, (size_t)got, out);
}

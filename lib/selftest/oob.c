// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "oob.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rc/rc.h"
#include "base/base.h"

/* Layout: magic 0, version 4, type 6, qpn 8, psn 12, lid 16, mtu 18, gid_kind 19,
 * gid 20, max_size 36, window 40, iters 44, reason 48..112; version 2: rkey 112,
 * area_len 116, addr 120..128; version 3: qp_type 128, 3 bytes zero, qkey 132..136. */

static void put16(uint8_t *p, uint16_t v) { v = htobe16(v); memcpy(p, &v, 2); }
static void put32(uint8_t *p, uint32_t v) { v = htobe32(v); memcpy(p, &v, 4); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return be16toh(v); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return be32toh(v); }
static void put64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return be64toh(v); }

unsigned int rd_oob_hdr_version(const uint8_t *hdr)
{
	return get16(hdr + 4);
}

static size_t version_len(unsigned int v)
{
	return v == 1 ? RD_OOB_LEN_V1 : v == 2 ? RD_OOB_LEN_V2 : v == 3 ? RD_OOB_LEN_V3 : RD_OOB_LEN;
}

size_t rd_oob_msg_len(const uint8_t *hdr)
{
	return get32(hdr) == RD_OOB_MAGIC ? version_len(get16(hdr + 4)) : RD_OOB_LEN;
}

bool rd_oob_retry_reason(const char *reason)
{
	size_t n = strlen(reason), k = strlen(RD_OOB_RETRY);

	return n >= k && strcmp(reason + n - k, RD_OOB_RETRY) == 0;
}

size_t rd_oob_encode(const struct rd_oob_msg *m, uint8_t buf[RD_OOB_LEN])
{
	memset(buf, 0, RD_OOB_LEN);
	put32(buf, RD_OOB_MAGIC);
	put16(buf + 4, m->version);
	put16(buf + 6, m->type);
	put32(buf + 8, m->qpn);
	put32(buf + 12, m->psn);
	put16(buf + 16, m->lid);
	buf[18] = m->mtu;
	buf[19] = m->gid_kind;
	memcpy(buf + 20, m->gid, 16);
	put32(buf + 36, m->max_size);
	put32(buf + 40, m->window);
	put32(buf + 44, m->iters);
	memcpy(buf + 48, m->reason, sizeof(m->reason));
	buf[48 + sizeof(m->reason) - 1] = '\0';
	if (m->version == 1)
		return RD_OOB_LEN_V1;
	put32(buf + 112, m->rkey);
	put32(buf + 116, m->area_len);
	put64(buf + 120, m->addr);
	if (m->version == 2)
		return RD_OOB_LEN_V2;
	buf[128] = m->qp_type;
	put32(buf + 132, m->qkey);
	if (m->version == 3)
		return RD_OOB_LEN_V3;
	memcpy(buf + 136, m->dev, sizeof(m->dev));
	buf[136 + sizeof(m->dev) - 1] = '\0';
	buf[200] = m->port;
	return RD_OOB_LEN;
}

int rd_oob_decode(const uint8_t *buf, size_t len, struct rd_oob_msg *m, char *why, size_t why_len)
{
	memset(m, 0, sizeof(*m));
	why[0] = '\0';
	if (len != RD_OOB_LEN && len != RD_OOB_LEN_V3 && len != RD_OOB_LEN_V2 && len != RD_OOB_LEN_V1) {
		snprintf(why, why_len, "message of %zu bytes, expected %d", len, RD_OOB_LEN);
		return -EINVAL;
	}
	if (get32(buf) != RD_OOB_MAGIC) {
		snprintf(why, why_len, "not an rdma-selftest message (bad magic 0x%08x)", get32(buf));
		return -EPROTO;
	}
	m->version = get16(buf + 4);
	if (m->version < 1 || m->version > RD_OOB_VERSION) {
		snprintf(why, why_len, "peer speaks exchange version %u, this side speaks %u (run the "
			 "same rdma-selftest version on both sides)", (unsigned int)m->version,
			 (unsigned int)RD_OOB_VERSION);
		return -EPROTONOSUPPORT;
	}
	if (len != version_len(m->version)) {
		snprintf(why, why_len, "message of %zu bytes, version %u has %zu", len,
			 (unsigned int)m->version, version_len(m->version));
		return -EINVAL;
	}
	m->type = get16(buf + 6);
	m->qpn = get32(buf + 8);
	m->psn = get32(buf + 12);
	m->lid = get16(buf + 16);
	m->mtu = buf[18];
	m->gid_kind = buf[19];
	memcpy(m->gid, buf + 20, 16);
	m->max_size = get32(buf + 36);
	m->window = get32(buf + 40);
	m->iters = get32(buf + 44);
	memcpy(m->reason, buf + 48, sizeof(m->reason));
	if (m->version >= 2) {
		m->rkey = get32(buf + 112);
		m->area_len = get32(buf + 116);
		m->addr = get64(buf + 120);
	}
	if (m->version >= 3) {
		m->qp_type = buf[128];
		m->qkey = get32(buf + 132);
		if (buf[129] || buf[130] || buf[131]) {
			snprintf(why, why_len, "reserved bytes not zero");
			return -EINVAL;
		}
		if (m->qp_type > RD_OOB_QP_UD) {
			snprintf(why, why_len, "QP type %u unknown", m->qp_type);
			return -EINVAL;
		}
	}
	if (m->version >= 4) {
		memcpy(m->dev, buf + 136, sizeof(m->dev));
		m->port = buf[200];
		if (buf[201] || buf[202] || buf[203]) {
			snprintf(why, why_len, "reserved bytes not zero");
			return -EINVAL;
		}
		if (m->dev[sizeof(m->dev) - 1] != '\0') {
			snprintf(why, why_len, "device name not terminated");
			return -EINVAL;
		}
		for (const char *p = m->dev; *p; p++)
			if (!rd_is_devname_char(*p)) {
				snprintf(why, why_len, "device name has a character 0x%02x",
					 (unsigned char)*p);
				return -EINVAL;
			}
	}
	if (m->type < RD_OOB_HELLO || m->type > RD_OOB_REJECT) {
		snprintf(why, why_len, "unknown message type %u", m->type);
		return -EINVAL;
	}
	if (m->reason[sizeof(m->reason) - 1] != '\0') {
		snprintf(why, why_len, "reason text not terminated");
		return -EINVAL;
	}
	for (const char *p = m->reason; *p; p++) {
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e) {
			snprintf(why, why_len, "reason text not printable");
			return -EINVAL;
		}
	}
	if (m->type == RD_OOB_REJECT)
		return 0;
	if (m->qpn > 0xffffff || m->qpn < 2 || m->psn > 0xffffff) {
		snprintf(why, why_len, "QPN 0x%x or PSN 0x%x out of range", m->qpn, m->psn);
		return -EINVAL;
	}
	if (m->mtu < 1 || m->mtu > 5) {
		snprintf(why, why_len, "MTU code %u out of range", m->mtu);
		return -EINVAL;
	}
	if (m->gid_kind > RD_GK_ROCE_V2) {
		snprintf(why, why_len, "GID kind %u unknown", m->gid_kind);
		return -EINVAL;
	}
	if (m->type == RD_OOB_ACCEPT && m->area_len && (m->area_len > RD_OOB_MAX_AREA ||
							  m->addr > UINT64_MAX - 2ull * m->area_len - 64)) {
		snprintf(why, why_len, "target area of %u bytes at 0x%llx out of range", m->area_len,
			 (unsigned long long)m->addr);
		return -EINVAL;
	}
	return 0;
}

int rd_oob_recv(int fd, uint8_t buf[RD_OOB_LEN], size_t *len, uint64_t deadline)
{
	int ret = rd_tcp_recv_all(fd, buf, RD_OOB_HDR_LEN, deadline);
	unsigned int v;

	if (ret)
		return ret;
	*len = RD_OOB_HDR_LEN;
	v = get16(buf + 4);
	/* Another version's message may have another length: stop at its header. */
	if (get32(buf) == RD_OOB_MAGIC && (v < 1 || v > RD_OOB_VERSION))
		return -EPROTONOSUPPORT;
	*len = rd_oob_msg_len(buf);
	return rd_tcp_recv_all(fd, buf + RD_OOB_HDR_LEN, *len - RD_OOB_HDR_LEN, deadline);
}

static int wait_fd(int fd, short events, uint64_t deadline)
{
	for (;;) {
		uint64_t now = rd_now_ns();
		struct pollfd p = { .fd = fd, .events = events };
		int ms, n;

		if (now >= deadline)
			return -ETIMEDOUT;
		ms = (int)((deadline - now + 999999) / 1000000);
		n = poll(&p, 1, ms > 1000 ? 1000 : ms);
		if (n < 0) {
			if (errno == EINTR)
				return -EINTR;
			return -errno;
		}
		if (n > 0)
			return 0;
	}
}

int rd_tcp_connect(const char *host, uint16_t port, uint64_t deadline, char *err, size_t err_len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	char ps[8];
	int fd = -1, ret;

	snprintf(ps, sizeof(ps), "%u", port);
	ret = getaddrinfo(host, ps, &hints, &res);
	if (ret) {
		snprintf(err, err_len, "cannot resolve %s: %s", host, gai_strerror(ret));
		return -EHOSTUNREACH;
	}
	ret = -ECONNREFUSED;
	for (ai = res; ai; ai = ai->ai_next) {
		int one = 1, soerr = 0;
		socklen_t sl = sizeof(soerr);

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			ret = -errno;
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
			ret = -errno;
			close(fd);
			fd = -1;
			continue;
		}
		ret = wait_fd(fd, POLLOUT, deadline);
		if (ret == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr)
			ret = -soerr;
		if (ret == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, err_len, "cannot connect to %s port %u: %s", host, port, strerror(-ret));
		return ret;
	}
	return fd;
}

int rd_tcp_listen(const char *bind_addr, uint16_t port, char *err, size_t err_len)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr *sa = (struct sockaddr *)&a6;
	socklen_t sl = sizeof(a6);
	int fd, one = 1, zero = 0;

	if (bind_addr && *bind_addr) {
		if (inet_pton(AF_INET, bind_addr, &a4.sin_addr) == 1) {
			sa = (struct sockaddr *)&a4;
			sl = sizeof(a4);
		} else if (inet_pton(AF_INET6, bind_addr, &a6.sin6_addr) != 1) {
			snprintf(err, err_len, "--bind %s: not an IP address", bind_addr);
			return -EINVAL;
		}
	}
	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, err_len, "socket: %s", strerror(errno));
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa->sa_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(fd, sa, sl) < 0 || listen(fd, 16) < 0) {
		int e = errno;

		snprintf(err, err_len, "cannot listen on TCP port %u: %s", port, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

int rd_tcp_accept(int lfd, uint64_t deadline, char *peer, size_t peer_len)
{
	struct sockaddr_storage ss = { 0 };	/* AF_UNSPEC unless accept4 fills it */
	socklen_t sl = sizeof(ss);
	int ret, fd, one = 1;

	ret = wait_fd(lfd, POLLIN, deadline);
	if (ret == -ETIMEDOUT)
		return -EAGAIN;
	if (ret)
		return ret;
	fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return errno == EAGAIN ? -EAGAIN : -errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (peer && peer_len) {
		char host[INET6_ADDRSTRLEN] = "?";

		if (ss.ss_family == AF_INET)
			inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
		else if (ss.ss_family == AF_INET6) {
			const struct in6_addr *a = &((struct sockaddr_in6 *)&ss)->sin6_addr;

			/* An IPv4 client on the dual-stack socket: say 10.0.0.1, not ::ffff:10.0.0.1. */
			if (IN6_IS_ADDR_V4MAPPED(a))
				inet_ntop(AF_INET, &a->s6_addr[12], host, sizeof(host));
			else
				inet_ntop(AF_INET6, a, host, sizeof(host));
		}
		rd_strlcpy(peer, host, peer_len);
	}
	return fd;
}

int rd_tcp_send_all(int fd, const void *buf, size_t len, uint64_t deadline)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				int ret = wait_fd(fd, POLLOUT, deadline);

				if (ret && ret != -EINTR)
					return ret;
				continue;
			}
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int rd_tcp_recv_all(int fd, void *buf, size_t len, uint64_t deadline)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, 0);

		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR) {
				int ret = wait_fd(fd, POLLIN, deadline);

				if (ret && ret != -EINTR)
					return ret;
				continue;
			}
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

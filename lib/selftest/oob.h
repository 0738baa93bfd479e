/* SPDX-License-Identifier: MIT */
/*
 * rdma-selftest's out-of-band exchange for --verbs mode: one fixed-size,
 * versioned, validated message each way over TCP, and TCP helpers where
 * every wait has a deadline.
 */
#ifndef RD_OOB_H
#define RD_OOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RD_OOB_MAGIC 0x52445354u	/* "RDST" */
#define RD_OOB_VERSION 1
#define RD_OOB_LEN 112

enum rd_oob_type {
	RD_OOB_HELLO = 1,	/* client -> server: my endpoint and the test */
	RD_OOB_ACCEPT = 2,	/* server -> client: my endpoint */
	RD_OOB_REJECT = 3,	/* server -> client: why not */
};

enum rd_gid_kind {
	RD_GK_NONE = 0,		/* IB without GRH */
	RD_GK_IB = 1,
	RD_GK_ROCE_V1 = 2,
	RD_GK_ROCE_V2 = 3,
};

struct rd_oob_msg {
	uint16_t version;
	uint16_t type;
	uint32_t qpn;		/* 24 bits */
	uint32_t psn;		/* 24 bits */
	uint16_t lid;
	uint8_t mtu;		/* enum ibv_mtu, 1..5 */
	uint8_t gid_kind;	/* enum rd_gid_kind */
	uint8_t gid[16];
	uint32_t max_size;	/* largest message of the test */
	uint32_t window;	/* outstanding sends in the bandwidth stage */
	uint32_t iters;
	char reason[64];	/* REJECT: NUL-terminated text */
};

/* To and from the wire (big-endian, RD_OOB_LEN bytes). */
void rd_oob_encode(const struct rd_oob_msg *m, uint8_t buf[RD_OOB_LEN]);
/*
 * Decode and validate: magic, version, type, 24-bit QPN/PSN, MTU, GID kind,
 * a NUL-terminated printable reason.  -EPROTO (bad magic), -EPROTONOSUPPORT
 * (version), -EINVAL (a field out of range), with why[] naming the field.
 */
int rd_oob_decode(const uint8_t *buf, size_t len, struct rd_oob_msg *m, char *why, size_t why_len);

/* TCP with deadlines (CLOCK_MONOTONIC ns).  Return 0 or -errno (-ETIMEDOUT). */
int rd_tcp_connect(const char *host, uint16_t port, uint64_t deadline, char *err, size_t err_len);
int rd_tcp_listen(const char *bind_addr, uint16_t port, char *err, size_t err_len);
/* -EAGAIN when nothing arrived before the deadline. */
int rd_tcp_accept(int lfd, uint64_t deadline, char *peer, size_t peer_len);
int rd_tcp_send_all(int fd, const void *buf, size_t len, uint64_t deadline);
/* -ECONNRESET when the peer closes before len bytes. */
int rd_tcp_recv_all(int fd, void *buf, size_t len, uint64_t deadline);

#endif

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
/*
 * Version 2 added the server's target memory (rkey, address, length) for
 * RDMA WRITE, READ and atomics; version 3 the QP type and the UD Q_Key;
 * version 4 a device and port (HELLO: the one the client asks for, a rail of
 * the mesh; ACCEPT: the one the server uses).  A client sends the lowest
 * version that carries its test (RC: 2, UD: 3, a named device: 4), so that a
 * version 2 server still serves every RC test; a server answers in
 * the client's version and still serves version 1 (send only, 112 bytes).
 * A client says so when the answer is an older version (an old server's
 * REJECT).
 */
#define RD_OOB_VERSION 4	/* the newest this side speaks */
#define RD_OOB_VERSION_RC 2	/* what an RC client sends */
#define RD_OOB_VERSION_UD 3	/* what a UD client sends */
#define RD_OOB_VERSION_DEV 4	/* what a client naming the server's device sends */
#define RD_OOB_LEN 204		/* version 4; the largest */
#define RD_OOB_LEN_V3 136
#define RD_OOB_LEN_V2 128
#define RD_OOB_LEN_V1 112
#define RD_OOB_HDR_LEN 8	/* magic, version, type: enough to know the length */
#define RD_OOB_MAX_AREA (8u << 20)	/* RD_ST_MAX_SIZE */

/*
 * A REJECT reason that ends so names a passing condition on the server (busy
 * with another client, a peer address still resolving): the same HELLO may
 * be taken later.  An older client shows it as text.
 */
#define RD_OOB_RETRY "; retry"
bool rd_oob_retry_reason(const char *reason);

enum rd_oob_qp {
	RD_OOB_QP_RC = 0,
	RD_OOB_QP_UD = 1,
};

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
	/* version 2: ACCEPT: the server's target area for one-sided operations */
	uint32_t rkey;
	uint32_t area_len;	/* bytes of each of its write and read areas */
	uint64_t addr;
	/* version 3 */
	uint8_t qp_type;	/* enum rd_oob_qp; HELLO asks, ACCEPT confirms */
	uint32_t qkey;		/* UD: the Q_Key of the sender's QP */
	/* version 4: HELLO: the server's device and port the client asks for ("" and 0:
	 * the port of the address it reached); ACCEPT: the ones the server uses */
	char dev[64];		/* NUL-terminated, a device name's characters */
	uint8_t port;
};

/*
 * To the wire (big-endian) in m->version's layout (1 to 4: 112, 128, 136 or
 * 204 bytes).  Returns the length.
 */
size_t rd_oob_encode(const struct rd_oob_msg *m, uint8_t buf[RD_OOB_LEN]);
/* How many bytes a message whose first RD_OOB_HDR_LEN bytes are hdr has. */
size_t rd_oob_msg_len(const uint8_t *hdr);
/*
 * Decode and validate: magic, version (1 to ours: m->version says which),
 * type, 24-bit QPN/PSN, MTU, GID kind, a NUL-terminated printable reason, the
 * target area, the QP type, the device name.  -EPROTO (bad magic), -EPROTONOSUPPORT (another version:
 * why[] says "peer speaks exchange version N"), -EINVAL (a field out of range,
 * or a length not its version's), with why[] naming the field.
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
/*
 * One exchange message of version 1 to ours (its length from its header): 0
 * with *len, or -errno; -EPROTONOSUPPORT after the header (*len = 8) when it
 * has our magic and another version (rd_oob_hdr_version says which).
 */
int rd_oob_recv(int fd, uint8_t buf[RD_OOB_LEN], size_t *len, uint64_t deadline);
/* The version field of a message header. */
unsigned int rd_oob_hdr_version(const uint8_t *hdr);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Inside the engine: the local side of a test — which port and GID, the
 * device context, and the endpoint as the --verbs exchange message carries it.
 */
#ifndef RD_ST_LOCAL_H
#define RD_ST_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine.h"
#include "oob.h"

struct rd_st_local {
	char dev[64];
	uint8_t port;
	int gid_index;
	enum rd_gid_ver ver;
	bool ib;		/* InfiniBand link layer: no GID needed */
	char addr[48];
	uint8_t raw[16];	/* the GID */
	char why[160];		/* why no GID qualifies */
};

/* "IPv4" for an IPv4-mapped GID (::ffff:a.b.c.d), else "IPv6". */
const char *rd_st_gid_family(const uint8_t gid[16]);
/*
 * Can a client whose GID is of kind and gid talk to our GID lp?
 * NULL if so; else why not, in at most 63 characters, for a REJECT.
 */
const char *rd_st_gid_mismatch(unsigned int kind, const uint8_t gid[16], const struct rd_st_local *lp,
			       char *buf, size_t len);

/* The best GID of a port (as rdma-gids --best), or index want >= 0.  -ENOENT with lp->why. */
int rd_st_pick_gid(const struct rd_sysroot *sr, const struct rd_device *d, const struct rd_port *p,
		   int want, struct rd_st_local *lp);
/* The port and GID of list that carry a local address (a server's accepted socket). */
int rd_st_port_for_addr(const struct sockaddr_storage *ss, const struct rd_device_list *list,
			const struct rd_sysroot *sr, struct rd_st_local *lp);
/*
 * The port a client named (exchange version 4: a mesh rail): device dev, port
 * port (0: its first ACTIVE port), GID gid_index (-1: the best).  -ENODEV,
 * -ENETDOWN or -ENOENT with why[] in words a REJECT can carry ("no device
 * mlx5_3 here (it has mlx5_0, mlx5_1)", "mlx5_1 port 1 is DOWN here").
 */
int rd_st_port_named(const struct rd_device_list *list, const struct rd_sysroot *sr,
		     const char *dev, unsigned int port, int gid_index, struct rd_st_local *lp,
		     char *why, size_t why_len);
/* Why port (0: any) of list's device cannot carry a test, or NULL when it can. */
const char *rd_st_port_unusable(const struct rd_device *d, unsigned int port, char *why,
				size_t why_len);
enum rd_gid_kind rd_st_gid_kind(const struct rd_st_local *lp);
const char *rd_st_kind_name(unsigned int kind);	/* "RoCE v2" */
/* ibv_open_device by name; NULL with why (no provider, permission...). */
struct ibv_context *rd_st_open_device(const char *name, char *why, size_t why_len);

/*
 * The exchange message for our endpoint (a UD endpoint, one with a Q_Key, in
 * version 3; RC in version 2), and the peer's endpoint from one.
 */
void rd_st_hello(struct rd_oob_msg *m, int type, const struct rd_rc_endpoint *ep,
		 const struct rd_st_local *lp, const struct rd_st_params *prm);
void rd_st_endpoint_from(const struct rd_oob_msg *m, struct rd_rc_endpoint *ep);

#endif

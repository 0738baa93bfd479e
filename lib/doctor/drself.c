// SPDX-License-Identifier: MIT
/*
 * rdma-doctor --selftest: a short loopback self-test of one port, through the
 * lib's RC and self-test stages (lib/rc.h, lib/selftest.h): two RC QPs on the
 * same port connected to each other, a server thread echoing, a verified
 * ping-pong, goodbye.  Meant to fold into the self-test engine later.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "doctor_int.h"
#include "rc/rc.h"
#include "selftest/selftest.h"

#define PINGS 200
#define PING_SIZE 4096

struct serve_arg {
	struct rd_rc *rc;
	int idle_ms;
	const volatile int *stop;
	struct rd_st_error err;
	uint64_t msgs;
	int ret;
};

static void *serve(void *p)
{
	struct serve_arg *a = p;

	a->ret = rd_st_serve(a->rc, a->idle_ms, a->stop, &a->err, &a->msgs);
	return NULL;
}

static struct ibv_context *open_by_name(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; l && l[i]; i++)
		if (strcmp(ibv_get_device_name(l[i]), name) == 0)
			ctx = ibv_open_device(l[i]);
	if (l)
		ibv_free_device_list(l);
	return ctx;
}

int rd_dr_loopback(const struct rd_sysroot *sr, const struct rd_device *dev,
		   const struct rd_dr_port *dp, unsigned int timeout_ms, char *detail,
		   size_t detail_len)
{
	struct rd_st_params prm = { .max_size = PING_SIZE, .window = 16, .iters = PINGS };
	struct rd_rc srv = { 0 }, cli = { 0 };
	struct rd_rc_endpoint es, ec;
	struct rd_rc_opts opts;
	struct rd_st_error err = { 0 };
	struct rd_st_pingpong pp = { 0 };
	struct ibv_context *ctx;
	unsigned int nrecv, nsend;
	volatile int stop = 0;
	enum ibv_mtu mtu;
	size_t slot;
	int gid_index = -1, ret;

	(void)sr;
	if (dp->roce) {
		if (!dp->best) {
			snprintf(detail, detail_len, "no usable GID: %s", dp->best_why);
			return -ENOENT;
		}
		gid_index = (int)dp->best->index;
	}
	ctx = open_by_name(dev->name);
	if (!ctx) {
		snprintf(detail, detail_len, "cannot open %s: %s", dev->name,
			 dev->verbs_error[0] ? dev->verbs_error : strerror(errno));
		return -ENODEV;
	}
	rd_rc_opts_default(&opts);
	rd_st_slots(&prm, &nrecv, &nsend, &slot);
	if ((ret = rd_rc_alloc(&srv, ctx, (uint8_t)dp->p->num, slot, nrecv, nsend)) ||
	    (ret = rd_rc_alloc(&cli, ctx, (uint8_t)dp->p->num, slot, nrecv, nsend)) ||
	    (ret = rd_rc_create_qp(&srv)) || (ret = rd_rc_create_qp(&cli)) ||
	    (ret = rd_rc_local(&srv, gid_index, &es)) || (ret = rd_rc_local(&cli, gid_index, &ec))) {
		snprintf(detail, detail_len, "cannot create the queue pairs: %s", strerror(-ret));
		goto out;
	}
	if ((ret = rd_rc_connect(&srv, &es, &ec, &opts, &mtu)) ||
	    (ret = rd_rc_connect(&cli, &ec, &es, &opts, &mtu))) {
		snprintf(detail, detail_len, "QP bring-up RESET->INIT->RTR->RTS failed: %s",
			 strerror(-ret));
		goto out;
	}
	if ((ret = rd_st_post_receives(&srv, &err)) || (ret = rd_st_post_receives(&cli, &err))) {
		snprintf(detail, detail_len, "%s", err.what);
		goto out;
	}
	{
		struct serve_arg sa = { .rc = &srv, .idle_ms = (int)timeout_ms, .stop = &stop };
		pthread_t th;

		if (pthread_create(&th, NULL, serve, &sa)) {
			snprintf(detail, detail_len, "cannot start the server thread");
			ret = -EAGAIN;
			goto out;
		}
		ret = rd_st_pingpong(&cli, PINGS, PING_SIZE, (int)timeout_ms, &stop, &pp, &err);
		if (ret == 0)
			ret = rd_st_bye(&cli, (int)timeout_ms, &err);
		if (ret)
			stop = 1;	/* the server gives up at once */
		pthread_join(th, NULL);
		if (ret) {
			snprintf(detail, detail_len, "ping-pong after %u good messages: %s", pp.msgs,
				 err.what);
		} else if (sa.ret) {
			ret = sa.ret;
			snprintf(detail, detail_len, "the receiving QP failed: %s", sa.err.what);
		} else {
			char gid[24] = "";

			if (gid_index >= 0)
				snprintf(gid, sizeof(gid), ", GID index %d", gid_index);
			snprintf(detail, detail_len,
				 "loopback RC: %u messages of %u B verified both ways in %.1f ms%s",
				 pp.msgs, PING_SIZE, (double)pp.ns / 1e6, gid);
		}
	}
out:
	rd_rc_free(&cli);
	rd_rc_free(&srv);
	ibv_close_device(ctx);
	return ret;
}

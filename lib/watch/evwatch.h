/* SPDX-License-Identifier: MIT */
/*
 * The live event watcher: every device's async event fd, an rtnetlink
 * socket for the ports' netdevs and a kobject uevent socket for hot-plug,
 * multiplexed on one epoll.  Live system only.  Returns events one by one;
 * never prints (problems go to the warnings sink).
 */
#ifndef RD_EVWATCH_H
#define RD_EVWATCH_H

#include <stdbool.h>

#include "events.h"
#include "base/base.h"

struct rd_watch_opts {
	const struct rd_strlist *devices;	/* NULL or empty: every device, present and future */
	unsigned int port;			/* 0: every port */
	bool state;				/* a STATE event per port as watching of it starts */
	int stop_fd;				/* -1, or an fd whose readability ends the watch (signalfd) */
};

struct rd_watch;

enum {
	RD_WATCH_TIMEOUT = 0,
	RD_WATCH_EVENT = 1,
	RD_WATCH_STOP = 2,
	RD_WATCH_WARNING = 3,	/* nothing to return, but warnings were added: report them now */
};

/*
 * Set up the sources and open every device that matches (warning about
 * those that cannot be opened).  0 with *wp set, even when no device could
 * be opened (see rd_watch_ndevices); -errno when epoll itself fails.
 */
int rd_watch_open(struct rd_watch **wp, const struct rd_watch_opts *opts, struct rd_warnings *warn);

/* Devices watched right now. */
unsigned int rd_watch_ndevices(const struct rd_watch *w);

/*
 * The next event: RD_WATCH_EVENT with *ev filled, RD_WATCH_TIMEOUT after
 * timeout_ms (-1: no limit), RD_WATCH_STOP once stop_fd is readable,
 * RD_WATCH_WARNING when the sink got warnings but there is no event (call
 * again after reporting them), -errno on failure.  Every async event read is acknowledged before this
 * returns it.
 */
int rd_watch_next(struct rd_watch *w, struct rd_event *ev, int timeout_ms);

/* Release every context and socket. */
void rd_watch_close(struct rd_watch *w);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The watched set, shared by the watcher core (evwatch.c) and its sources
 * (evlink.c, evhotplug.c): the devices and ports being watched, each
 * device's async event fd (itself an event source), and the queue of events
 * not yet returned.  It knows neither the core nor the sources: where opening
 * a device needs a port's link state, it asks through the link_query hook.
 */
#ifndef RD_EV_SET_H
#define RD_EV_SET_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>

#include "events.h"
#include "evinput.h"
#include "base/base.h"
#include "model/model.h"
#include "sysroot/sysroot.h"

struct rd_ev_port {
	struct rd_port *p;		/* in rd_ev_dev.model */
	bool selected;			/* by -p */
	bool gids_known;
	struct rd_gid_table gids;
	struct rd_gid_memo memo;	/* where each GID was last seen: GID_MOVED */
	struct rd_ev_link link;		/* the port's netdev as last seen */
};

struct rd_ev_set;

struct rd_ev_dev {
	struct rd_ev_input src;	/* the async event fd */
	struct rd_ev_set *set;
	char uverbs[32];
	struct ibv_context *ctx;
	struct rd_device model;		/* sysfs facts; model.name follows renames */
	struct rd_ev_port *ports;	/* model.nports */
	bool dead;			/* released; freed by rd_ev_set_reap */
	struct rd_ev_dev *next;
};

/* The link of ifname (or of ifindex when non-zero) as the kernel has it now. */
typedef void (*rd_ev_link_query_fn)(void *ctx, const char *ifname, int ifindex,
				    struct rd_ev_link *l);

struct rd_ev_set {
	int epfd;			/* where device fds are polled (the core's) */
	struct rd_sysroot sr;		/* the live system */
	struct rd_strlist filter;	/* -d */
	unsigned int port;		/* -p */
	bool state;			/* a STATE event per port as watching starts */
	bool initial;			/* the first scan: no DEVICE_ADDED */
	struct rd_ev_dev *devs;
	unsigned int ndevs;
	/* uverbs names not reopened until they go and come back: after DEVICE_FATAL, */
	struct rd_strlist fatal;
	struct rd_strlist given_up;	/* and those that could not be opened (warned) */
	struct rd_event *q;		/* FIFO of events not yet returned */
	size_t qhead, qn, qcap;
	bool q_full_warned;
	struct rd_warnings *warn;
	rd_ev_link_query_fn link_query;	/* NULL: ports start with an unknown link */
	void *link_ctx;
};

/* A slot at the tail of the event queue, or NULL (out of memory: lost, said once). */
struct rd_event *rd_ev_push(struct rd_ev_set *s);
bool rd_ev_pop(struct rd_ev_set *s, struct rd_event *ev);

struct rd_ev_dev *rd_ev_find_uverbs(struct rd_ev_set *s, const char *uverbs);
struct rd_ev_dev *rd_ev_find_name(struct rd_ev_set *s, const char *name);
/* Open and watch one device: 0, or -errno when ibv_open_device failed (not warned). */
int rd_ev_open_dev(struct rd_ev_set *s, struct ibv_device *idev, const struct rd_nl_ports *nl);
/* Stop watching d and give its context back (the kernel may be waiting for that). */
void rd_ev_release(struct rd_ev_set *s, struct rd_ev_dev *d, const char *reason, const char *text);

enum rd_ev_drain { RD_EV_DRAIN_EMPTY, RD_EV_DRAIN_MORE, RD_EV_DRAIN_FATAL, RD_EV_DRAIN_ERROR };
/* Read, acknowledge and queue up to max pending async events; stops at DEVICE_FATAL. */
enum rd_ev_drain rd_ev_drain(struct rd_ev_set *s, struct rd_ev_dev *d, int max);

/* Free the devices released since the last call (after an epoll batch). */
void rd_ev_set_reap(struct rd_ev_set *s);
/* Release every device and free the set's memory (not the set itself). */
void rd_ev_set_free(struct rd_ev_set *s);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Inside the event watcher (evwatch.h), shared by its three parts:
 * evwatch.c (devices, async events, the loop), evlink.c (the ports'
 * netdevs through rtnetlink) and evhotplug.c (uevents and rescans).
 * Not for tools.
 */
#ifndef RD_EVWATCH_INT_H
#define RD_EVWATCH_INT_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>

#include "evwatch.h"
#include "model/model.h"

struct nl_sock;

/* What an epoll entry stands for. */
struct wsrc {
	enum { SRC_STOP, SRC_UEVENT, SRC_RTNL, SRC_TIMER, SRC_DEV } kind;
	struct wdev *dev;
};

struct wport {
	struct rd_port *p;	/* in wdev.model */
	bool selected;		/* by -p */
	bool gids_known;
	struct rd_gid_table gids;
	struct rd_ev_link link;	/* the port's netdev as last seen */
};

struct wdev {
	struct wsrc src;
	char uverbs[32];
	struct ibv_context *ctx;
	struct rd_device model;	/* sysfs facts; model.name follows renames */
	struct wport *ports;	/* model.nports */
	bool dead;		/* released; freed after the current epoll batch */
	struct wdev *next;
};

struct rd_watch {
	int epfd, uev_fd, stop_fd;
	int timer_fd;			/* retries of devices that could not be opened yet */
	unsigned int open_retries;
	struct nl_sock *rtnl;		/* RTNLGRP_LINK multicast */
	struct nl_sock *rtnl_query;	/* link lookups, on demand */
	struct wsrc stop_src, uev_src, rtnl_src, timer_src;
	struct rd_sysroot sr;		/* the live system */
	struct rd_strlist filter;
	unsigned int port;
	bool state, initial, stopped;
	struct wdev *devs;
	unsigned int ndevs;
	/* uverbs names not reopened until they go and come back: after DEVICE_FATAL, */
	struct rd_strlist fatal;
	struct rd_strlist given_up;	/* and those that could not be opened (warned) */
	struct rd_event *q;		/* FIFO of events not yet returned */
	size_t qhead, qn, qcap;
	bool q_full_warned;
	int link_msgtype;		/* RTM_NEWLINK / RTM_DELLINK being parsed */
	struct rd_warnings *warn;
};

/* evwatch.c */
/* A slot at the tail of the event queue, or NULL (out of memory: lost, said once). */
struct rd_event *rdw_push(struct rd_watch *w);
struct wdev *rdw_find_uverbs(struct rd_watch *w, const char *uverbs);
struct wdev *rdw_find_name(struct rd_watch *w, const char *name);
/* Stop watching d and give its context back (the kernel may be waiting for that). */
void rdw_release(struct rd_watch *w, struct wdev *d, const char *reason, const char *text);
enum drain_result { DRAIN_EMPTY, DRAIN_MORE, DRAIN_FATAL, DRAIN_ERROR };
/* Read, acknowledge and queue up to max pending async events; stops at DEVICE_FATAL. */
enum drain_result rdw_drain(struct rd_watch *w, struct wdev *d, int max);
/* Open and watch one device: 0, or -errno when ibv_open_device failed (not warned). */
int rdw_open_dev(struct rd_watch *w, struct ibv_device *idev, const struct rd_nl_ports *nl);

/* evlink.c */
int rdw_link_setup(struct rd_watch *w);
void rdw_link_read(struct rd_watch *w);
void rdw_link_close(struct rd_watch *w);
/* The link of ifname (or of ifindex when non-zero) as the kernel has it now. */
void rdw_link_query(struct rd_watch *w, const char *ifname, int ifindex, struct rd_ev_link *l);
struct rtnl_link;
/* A link as libnl parsed it from an RTM_NEWLINK/RTM_DELLINK (fuzzed: tests/fuzz/fuzz_netdev.c). */
void rdw_link_from_rtnl(struct rtnl_link *link, struct rd_ev_link *l);

/* evhotplug.c */
int rdw_uevent_setup(struct rd_watch *w);
void rdw_uevent_read(struct rd_watch *w);
void rdw_retry_setup(struct rd_watch *w);
void rdw_retry_fire(struct rd_watch *w);
/* Make the watched set match the kernel's. */
void rdw_rescan(struct rd_watch *w);

#endif

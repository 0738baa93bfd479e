/* SPDX-License-Identifier: MIT */
/*
 * The link source: an rtnetlink socket subscribed to RTNLGRP_LINK turns the
 * watched ports' netdev changes into LINK_UP/DOWN/MTU/RENAME/GONE events in
 * the set; a second socket answers one-off link queries (the set's
 * link_query hook, used when a device is opened).
 */
#ifndef RD_EV_LINK_H
#define RD_EV_LINK_H

#include "evset.h"
#include "evinput.h"

struct nl_sock;
struct rtnl_link;

struct rd_ev_links {
	struct rd_ev_input src;	/* the subscribed socket */
	struct rd_ev_set *set;
	struct nl_sock *rtnl;		/* RTNLGRP_LINK multicast; NULL once broken */
	struct nl_sock *rtnl_query;	/* link lookups, on demand */
	int msgtype;			/* RTM_NEWLINK / RTM_DELLINK being parsed */
};

/* Subscribe and poll on set->epfd.  0 or -errno; queries work either way. */
int rd_ev_links_open(struct rd_ev_links *w, struct rd_ev_set *set);
void rd_ev_links_close(struct rd_ev_links *w);
/* The set's link_query hook: ctx is the struct rd_ev_links. */
void rd_ev_links_query(void *ctx, const char *ifname, int ifindex, struct rd_ev_link *l);
/* A link as libnl parsed it from an RTM_NEWLINK/RTM_DELLINK (fuzzed: tests/fuzz/fuzz_netdev.c). */
void rd_ev_link_from_rtnl(struct rtnl_link *link, struct rd_ev_link *l);

#endif

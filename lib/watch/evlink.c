// SPDX-License-Identifier: MIT
/* The link source: the watched ports' netdevs through rtnetlink (libnl-route-3), evlink.h. */
#define _GNU_SOURCE
#include "evlink.h"

#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/object.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

void rd_ev_link_from_rtnl(struct rtnl_link *link, struct rd_ev_link *l)
{
	char buf[32];
	const char *name = rtnl_link_get_name(link);

	rd_strlcpy(l->netdev, name ? name : "", sizeof(l->netdev));
	l->ifindex = rtnl_link_get_ifindex(link);
	l->known = true;
	rtnl_link_operstate2str(rtnl_link_get_operstate(link), buf, sizeof(buf));
	rd_strlcpy(l->operstate, buf, sizeof(l->operstate));
	l->carrier = rtnl_link_get_carrier(link) ? 1 : 0;
	l->admin_up = (rtnl_link_get_flags(link) & IFF_UP) ? 1 : 0;
	l->mtu = rtnl_link_get_mtu(link);
}

void rd_ev_links_query(void *ctx, const char *ifname, int ifindex, struct rd_ev_link *l)
{
	struct rd_ev_links *w = ctx;
	struct rtnl_link *link = NULL;

	memset(l, 0, sizeof(*l));
	rd_strlcpy(l->netdev, ifname, sizeof(l->netdev));
	l->carrier = l->admin_up = -1;
	if (!ifname[0] && !ifindex)
		return;
	if (!w->rtnl_query) {
		struct timeval tv = { .tv_sec = 2 };	/* a kernel that never answers must not hang us */

		w->rtnl_query = nl_socket_alloc();
		if (!w->rtnl_query)
			return;
		if (nl_connect(w->rtnl_query, NETLINK_ROUTE) < 0 ||
		    setsockopt(nl_socket_get_fd(w->rtnl_query), SOL_SOCKET, SO_RCVTIMEO, &tv,
			       sizeof(tv)) < 0) {
			nl_socket_free(w->rtnl_query);
			w->rtnl_query = NULL;
			return;
		}
	}
	if (rtnl_link_get_kernel(w->rtnl_query, ifindex, ifindex ? NULL : ifname, &link) < 0)
		return;	/* not in this network namespace, or gone */
	rd_ev_link_from_rtnl(link, l);
	rtnl_link_put(link);
}

static void link_changed(struct rd_ev_set *s, struct rd_ev_dev *d, struct rd_ev_port *wp,
			 const struct rd_ev_link *now, bool deleted)
{
	struct rd_ev_link old = wp->link;
	struct rd_event *ev;

	if (deleted) {
		if ((ev = rd_ev_push(s)))
			rd_event_link(ev, d->model.name, wp->p->num, "LINK_GONE", &old);
		wp->link.known = false;
		wp->link.ifindex = 0;	/* a netdev of the same name may come back */
		return;
	}
	if (old.netdev[0] && strcmp(old.netdev, now->netdev) != 0) {
		struct rd_ev_link r = *now;

		rd_strlcpy(r.old_netdev, old.netdev, sizeof(r.old_netdev));
		if ((ev = rd_ev_push(s)))
			rd_event_link(ev, d->model.name, wp->p->num, "LINK_RENAME", &r);
	}
	if (old.known && rd_ev_link_up(&old) != rd_ev_link_up(now) && (ev = rd_ev_push(s)))
		rd_event_link(ev, d->model.name, wp->p->num, rd_ev_link_up(now) ? "LINK_UP" : "LINK_DOWN",
			      now);
	if (old.known && old.mtu != now->mtu) {
		struct rd_ev_link m = *now;

		m.old_mtu = old.mtu;
		if ((ev = rd_ev_push(s)))
			rd_event_link(ev, d->model.name, wp->p->num, "LINK_MTU", &m);
	}
	wp->link = *now;
	wp->link.old_netdev[0] = '\0';
	wp->link.old_mtu = 0;
}

static void on_link_object(struct nl_object *obj, void *arg)
{
	struct rd_ev_links *w = arg;
	struct rd_ev_set *s = w->set;
	struct rtnl_link *link = (struct rtnl_link *)obj;
	bool deleted = w->msgtype == RTM_DELLINK;
	struct rd_ev_link now;

	if (strcmp(nl_object_get_type(obj), "route/link") != 0)
		return;
	rd_ev_link_from_rtnl(link, &now);
	for (struct rd_ev_dev *d = s->devs; d; d = d->next) {
		if (d->dead)
			continue;
		for (unsigned int i = 0; i < d->model.nports; i++) {
			struct rd_ev_port *wp = &d->ports[i];

			if (!wp->selected)
				continue;
			if (wp->link.ifindex && wp->link.ifindex == now.ifindex) {
				link_changed(s, d, wp, &now, deleted);
			} else if (!wp->link.ifindex && !deleted && wp->link.netdev[0] &&
				   strcmp(wp->link.netdev, now.netdev) == 0) {
				/* The port's netdev (re)appeared: follow it from now on. */
				wp->link = now;
			}
		}
	}
}

static int on_rtnl_msg(struct nl_msg *msg, void *arg)
{
	struct rd_ev_links *w = arg;
	int type = nlmsg_hdr(msg)->nlmsg_type;

	if (type == RTM_NEWLINK || type == RTM_DELLINK) {
		w->msgtype = type;
		nl_msg_parse(msg, on_link_object, w);
	}
	return NL_OK;
}

/* After lost rtnetlink messages: compare every port's link with the kernel's. */
static void links_resync(struct rd_ev_links *w)
{
	struct rd_ev_set *s = w->set;

	for (struct rd_ev_dev *d = s->devs; d; d = d->next) {
		for (unsigned int i = 0; !d->dead && i < d->model.nports; i++) {
			struct rd_ev_port *wp = &d->ports[i];
			struct rd_ev_link now;

			if (!wp->selected || !wp->link.netdev[0])
				continue;
			rd_ev_links_query(w, wp->link.netdev, wp->link.ifindex, &now);
			if (now.known)
				link_changed(s, d, wp, &now, false);
			else if (wp->link.known)
				link_changed(s, d, wp, &now, true);
		}
	}
}

/* The RTNLGRP_LINK socket is readable. */
static void links_read(struct rd_ev_input *src, uint32_t revents)
{
	struct rd_ev_links *w = rd_container_of(src, struct rd_ev_links, src);
	int ret;

	(void)revents;
	if (!w->rtnl)
		return;
	ret = nl_recvmsgs_default(w->rtnl);

	if (ret == -NLE_NOMEM) {
		/* ENOBUFS: the socket overflowed and messages were lost. */
		links_resync(w);
	} else if (ret < 0 && ret != -NLE_AGAIN) {
		rd_warn(w->set->warn, "rtnetlink: %s; link changes are no longer watched", nl_geterror(ret));
		rd_ev_input_del(w->set->epfd, &w->src);
		nl_socket_free(w->rtnl);
		w->rtnl = NULL;
	}
}

int rd_ev_links_open(struct rd_ev_links *w, struct rd_ev_set *set)
{
	int ret;

	w->set = set;
	w->src.ready = links_read;

	w->rtnl = nl_socket_alloc();
	if (!w->rtnl)
		return -ENOMEM;
	nl_socket_disable_seq_check(w->rtnl);
	nl_socket_disable_auto_ack(w->rtnl);
	ret = nl_connect(w->rtnl, NETLINK_ROUTE);
	if (ret == 0)
		ret = nl_socket_add_membership(w->rtnl, RTNLGRP_LINK);
	if (ret == 0)
		ret = nl_socket_set_nonblocking(w->rtnl);
	if (ret == 0) {
		/* Room for bursts (a bond flapping); an overflow is handled by a resync. */
		(void)nl_socket_set_buffer_size(w->rtnl, 1 << 20, 0);
		nl_socket_modify_cb(w->rtnl, NL_CB_VALID, NL_CB_CUSTOM, on_rtnl_msg, w);
		w->src.fd = nl_socket_get_fd(w->rtnl);
		ret = rd_ev_input_add(set->epfd, &w->src);
		if (ret == 0)
			return 0;
	} else {
		ret = -EIO;
	}
	nl_socket_free(w->rtnl);
	w->rtnl = NULL;
	return ret;
}

void rd_ev_links_close(struct rd_ev_links *w)
{
	if (w->rtnl)
		nl_socket_free(w->rtnl);
	if (w->rtnl_query)
		nl_socket_free(w->rtnl_query);
	w->rtnl = w->rtnl_query = NULL;
}

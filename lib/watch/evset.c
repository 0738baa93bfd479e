// SPDX-License-Identifier: MIT
/* The watched set: devices, their ports and async events, the event queue (evset.h). */
#define _GNU_SOURCE
#include "evset.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

/* ---- the event queue ---- */

struct rd_event *rd_ev_push(struct rd_ev_set *s)
{
	if (s->qhead == s->qn)
		s->qhead = s->qn = 0;
	if (s->qn == s->qcap) {
		size_t ncap = s->qcap ? s->qcap * 2 : 16;
		struct rd_event *v = realloc(s->q, ncap * sizeof(*v));

		if (!v) {
			if (!s->q_full_warned)
				rd_warn(s->warn, "out of memory: events lost");
			s->q_full_warned = true;
			return NULL;
		}
		s->q = v;
		s->qcap = ncap;
	}
	RD_GCC_LEAK_FP_BEGIN	/* the grown queue is s->q, freed by rd_ev_set_free */
	return &s->q[s->qn++];
	RD_GCC_LEAK_FP_END
}

bool rd_ev_pop(struct rd_ev_set *s, struct rd_event *ev)
{
	if (s->qhead == s->qn)
		return false;
	*ev = s->q[s->qhead++];
	return true;
}

/* ---- devices ---- */

struct rd_ev_dev *rd_ev_find_uverbs(struct rd_ev_set *s, const char *uverbs)
{
	for (struct rd_ev_dev *d = s->devs; d; d = d->next)
		if (!d->dead && strcmp(d->uverbs, uverbs) == 0)
			return d;
	return NULL;
}

struct rd_ev_dev *rd_ev_find_name(struct rd_ev_set *s, const char *name)
{
	for (struct rd_ev_dev *d = s->devs; d; d = d->next)
		if (!d->dead && strcmp(d->model.name, name) == 0)
			return d;
	return NULL;
}

static void wdev_free(struct rd_ev_dev *d)
{
	for (unsigned int i = 0; d->ports && i < d->model.nports; i++) {
		rd_gid_table_free(&d->ports[i].gids);
		rd_gid_memo_free(&d->ports[i].memo);
	}
	free(d->ports);
	rd_device_free(&d->model);
	free(d);
}

void rd_ev_release(struct rd_ev_set *s, struct rd_ev_dev *d, const char *reason, const char *text)
{
	struct rd_event *ev = rd_ev_push(s);

	if (ev) {
		rd_event_device(ev, d->model.name, "DEVICE_REMOVED", RD_SEV_BAD);
		rd_strlcpy(ev->uverbs, d->uverbs, sizeof(ev->uverbs));
		ev->reason = reason;
		snprintf(ev->text, sizeof(ev->text), "%s; context released", text);
	}
	rd_ev_input_del(s->epfd, &d->src);
	ibv_close_device(d->ctx);
	d->ctx = NULL;
	d->dead = true;
	s->ndevs--;
}

void rd_ev_set_reap(struct rd_ev_set *s)
{
	struct rd_ev_dev **pp = &s->devs;

	while (*pp) {
		struct rd_ev_dev *d = *pp;

		if (d->dead) {
			*pp = d->next;
			wdev_free(d);
		} else {
			pp = &d->next;
		}
	}
}

struct moved_ctx {
	struct rd_ev_set *s;
	struct rd_ev_dev *d;
	struct rd_ev_port *wp;
};

static void queue_moved(void *arg, const struct rd_gid *g, unsigned int old_index)
{
	struct moved_ctx *c = arg;
	struct rd_event *ev = rd_ev_push(c->s);

	if (ev)
		rd_event_gid_moved(ev, c->d->model.name, c->wp->p->num, g, old_index);
}

static void queue_gid_changes(struct rd_ev_set *s, struct rd_ev_dev *d, struct rd_ev_port *wp)
{
	struct rd_gid_table t;
	struct rd_gid_diff diff;
	struct moved_ctx mc = { .s = s, .d = d, .wp = wp };

	if (rd_port_gid_table(&s->sr, &d->model, wp->p, false, &t, s->warn))
		return;	/* warned */
	if (wp->gids_known && rd_gid_table_diff(&wp->gids, &t, &diff) == 0) {
		for (size_t i = 0; i < diff.n; i++) {
			struct rd_event *ev = rd_ev_push(s);

			if (ev)
				rd_event_gid(ev, d->model.name, wp->p->num, &diff.v[i]);
		}
		rd_gid_diff_free(&diff);
	}
	/* The first read is the baseline: nothing can have moved yet. */
	if (rd_gid_memo_update(&wp->memo, &t, queue_moved, &mc))
		rd_warn(s->warn, "%s port %u: out of memory; GID moves are not followed", d->model.name,
			wp->p->num);
	rd_gid_table_free(&wp->gids);
	wp->gids = t;
	wp->gids_known = true;
}

static struct rd_ev_port *find_port(struct rd_ev_dev *d, unsigned int num)
{
	for (unsigned int i = 0; i < d->model.nports; i++)
		if (d->ports[i].p->num == num)
			return &d->ports[i];
	return NULL;
}

enum rd_ev_drain rd_ev_drain(struct rd_ev_set *s, struct rd_ev_dev *d, int max)
{
	for (int i = 0; i < max; i++) {
		struct ibv_async_event e;
		struct rd_ev_port *wp = NULL;
		struct rd_event *ev;
		unsigned int port = 0;
		int type;

		if (ibv_get_async_event(d->ctx, &e))
			return errno == EAGAIN || errno == EWOULDBLOCK ? RD_EV_DRAIN_EMPTY : RD_EV_DRAIN_ERROR;
		type = (int)e.event_type;
		if (rd_async_event_scope(type) == RD_ASYNC_PORT)
			port = (unsigned int)e.element.port_num;
		ibv_ack_async_event(&e);

		if (port) {
			wp = find_port(d, port);
			if (s->port && port != s->port)
				continue;	/* -p: another port */
		}
		if ((ev = rd_ev_push(s)))
			rd_event_async(ev, d->model.name, type, port);
		if (type == IBV_EVENT_GID_CHANGE && wp)
			queue_gid_changes(s, d, wp);
		if (type == IBV_EVENT_DEVICE_FATAL)
			return RD_EV_DRAIN_FATAL;
	}
	return RD_EV_DRAIN_MORE;
}

/* The device's async event fd is readable. */
static void read_async(struct rd_ev_input *src, uint32_t revents)
{
	struct rd_ev_dev *d = rd_container_of(src, struct rd_ev_dev, src);
	struct rd_ev_set *s = d->set;
	char text[96];

	if (d->dead)
		return;
	switch (rd_ev_drain(s, d, 64)) {
	case RD_EV_DRAIN_FATAL:
		/* Not reopened until the driver registers it again (its uverbs goes and comes back). */
		rd_strlist_add_unique(&s->fatal, d->uverbs);
		rd_ev_release(s, d, "device_fatal", "after DEVICE_FATAL");
		break;
	case RD_EV_DRAIN_ERROR:
		snprintf(text, sizeof(text), "reading async events failed: %s", strerror(errno));
		rd_ev_release(s, d, "read_error", text);
		break;
	case RD_EV_DRAIN_EMPTY:
		if (revents & (EPOLLHUP | EPOLLERR))
			rd_ev_release(s, d, "hangup", "async event file closed by the kernel");
		break;
	case RD_EV_DRAIN_MORE:
		break;	/* epoll is level-triggered: the rest comes on the next round */
	}
}

static void queue_state(struct rd_ev_set *s, struct rd_ev_dev *d)
{
	for (unsigned int i = 0; i < d->model.nports; i++) {
		struct rd_event *ev;

		if (d->ports[i].selected && (ev = rd_ev_push(s)))
			rd_event_port_state(ev, &d->model, d->ports[i].p, &d->ports[i].link);
	}
}

/* "1 port, uverbs1, netdev evA; watching" */
static void device_added_text(const struct rd_ev_dev *d, char *buf, size_t len)
{
	struct rd_strlist nets = { 0 };
	char *joined;

	for (unsigned int i = 0; i < d->model.nports; i++)
		if (d->ports[i].selected && d->ports[i].link.netdev[0])
			rd_strlist_add_unique(&nets, d->ports[i].link.netdev);
	joined = rd_strlist_join(&nets, " ");
	snprintf(buf, len, "%u port%s, %s%s%s; watching", d->model.nports,
		 d->model.nports == 1 ? "" : "s", d->uverbs,
		 !nets.n ? "" : nets.n == 1 ? ", netdev " : ", netdevs ",
		 nets.n && joined ? joined : "");
	free(joined);
	rd_strlist_free(&nets);
}

int rd_ev_open_dev(struct rd_ev_set *s, struct ibv_device *idev, const struct rd_nl_ports *nl)
{
	const char *name = ibv_get_device_name(idev);
	struct rd_ev_dev *d = calloc(1, sizeof(*d));
	int flags, ret;

	if (!d) {
		rd_warn(s->warn, "%s: out of memory; not watched", name);
		return 0;
	}
	d->src.ready = read_async;
	d->set = s;
	rd_strlcpy(d->uverbs, idev->dev_name, sizeof(d->uverbs));
	d->ctx = ibv_open_device(idev);
	if (!d->ctx) {
		int err = errno ? errno : EIO;

		free(d);
		return -err;
	}
	flags = fcntl(d->ctx->async_fd, F_GETFL);
	if (flags < 0 || fcntl(d->ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		rd_warn(s->warn, "%s: cannot make its async event fd non-blocking: %s; not watched",
			name, strerror(errno));
		goto fail;
	}
	/* Each port's netdev comes from netlink (link.netdev), not the ports' lists. */
	if (rd_device_read_flags(&s->sr, name, &d->model, s->warn, RD_SCAN_NO_NETDEVS)) {
		rd_warn(s->warn, "%s: cannot read its sysfs directory; not watched", name);
		goto fail;
	}
	d->ports = calloc(d->model.nports ? d->model.nports : 1, sizeof(*d->ports));
	if (!d->ports) {
		rd_warn(s->warn, "%s: out of memory; not watched", name);
		goto fail;
	}
	for (unsigned int i = 0; i < d->model.nports; i++) {
		struct rd_ev_port *wp = &d->ports[i];
		char ndev[64];
		enum rd_map_via via;
		bool other_netns;

		wp->p = &d->model.ports[i];
		wp->selected = !s->port || s->port == wp->p->num;
		wp->link.carrier = wp->link.admin_up = -1;
		if (!wp->selected)
			continue;
		rd_port_netdev(&s->sr, nl, &d->model, wp->p, ndev, sizeof(ndev), &via, &other_netns);
		if (s->link_query)
			s->link_query(s->link_ctx, ndev, 0, &wp->link);
		queue_gid_changes(s, d, wp);	/* the first read: no changes, the baseline */
	}
	d->src.fd = d->ctx->async_fd;
	ret = rd_ev_input_add(s->epfd, &d->src);
	if (ret) {
		rd_warn(s->warn, "%s: epoll: %s; not watched", name, strerror(-ret));
		goto fail;
	}
	d->next = NULL;
	/* Append: events and -s lines come in the system's device order. */
	{
		struct rd_ev_dev **pp = &s->devs;

		while (*pp)
			pp = &(*pp)->next;
		*pp = d;
	}
	s->ndevs++;
	if (!s->initial) {
		struct rd_event *ev = rd_ev_push(s);

		if (ev) {
			rd_event_device(ev, name, "DEVICE_ADDED", RD_SEV_GOOD);
			rd_strlcpy(ev->uverbs, d->uverbs, sizeof(ev->uverbs));
			ev->nports = d->model.nports;
			device_added_text(d, ev->text, sizeof(ev->text));
		}
	}
	if (s->state)
		queue_state(s, d);
	return 0;
fail:
	ibv_close_device(d->ctx);
	d->ctx = NULL;
	wdev_free(d);
	return 0;
}

void rd_ev_set_free(struct rd_ev_set *s)
{
	for (struct rd_ev_dev *d = s->devs; d; d = d->next) {
		if (!d->dead && d->ctx) {
			ibv_close_device(d->ctx);
			d->ctx = NULL;
			d->dead = true;
		}
	}
	rd_ev_set_reap(s);
	rd_strlist_free(&s->filter);
	rd_strlist_free(&s->fatal);
	rd_strlist_free(&s->given_up);
	free(s->q);
	s->q = NULL;
}

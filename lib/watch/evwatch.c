// SPDX-License-Identifier: MIT
/* The event watcher: devices, their async events, the event queue and the loop. */
#define _GNU_SOURCE
#include "evwatch.h"
#include "evwatch_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"

/* ---- the event queue ---- */

struct rd_event *rdw_push(struct rd_watch *w)
{
	if (w->qhead == w->qn)
		w->qhead = w->qn = 0;
	if (w->qn == w->qcap) {
		size_t ncap = w->qcap ? w->qcap * 2 : 16;
		struct rd_event *v = realloc(w->q, ncap * sizeof(*v));

		if (!v) {
			if (!w->q_full_warned)
				rd_warn(w->warn, "out of memory: events lost");
			w->q_full_warned = true;
			return NULL;
		}
		w->q = v;
		w->qcap = ncap;
	}
	return &w->q[w->qn++];
}

static bool q_pop(struct rd_watch *w, struct rd_event *ev)
{
	if (w->qhead == w->qn)
		return false;
	*ev = w->q[w->qhead++];
	return true;
}

/* ---- devices ---- */

struct wdev *rdw_find_uverbs(struct rd_watch *w, const char *uverbs)
{
	for (struct wdev *d = w->devs; d; d = d->next)
		if (!d->dead && strcmp(d->uverbs, uverbs) == 0)
			return d;
	return NULL;
}

struct wdev *rdw_find_name(struct rd_watch *w, const char *name)
{
	for (struct wdev *d = w->devs; d; d = d->next)
		if (!d->dead && strcmp(d->model.name, name) == 0)
			return d;
	return NULL;
}

static void wdev_free(struct wdev *d)
{
	if (d->ports)
		for (unsigned int i = 0; i < d->model.nports; i++)
			rd_gid_table_free(&d->ports[i].gids);
	free(d->ports);
	rd_device_free(&d->model);
	free(d);
}

void rdw_release(struct rd_watch *w, struct wdev *d, const char *reason, const char *text)
{
	struct rd_event *ev = rdw_push(w);

	if (ev) {
		rd_event_device(ev, d->model.name, "DEVICE_REMOVED", RD_SEV_BAD);
		rd_strlcpy(ev->uverbs, d->uverbs, sizeof(ev->uverbs));
		ev->reason = reason;
		snprintf(ev->text, sizeof(ev->text), "%s; context released", text);
	}
	epoll_ctl(w->epfd, EPOLL_CTL_DEL, d->ctx->async_fd, NULL);
	ibv_close_device(d->ctx);
	d->ctx = NULL;
	d->dead = true;
	w->ndevs--;
}

static void reap(struct rd_watch *w)
{
	struct wdev **pp = &w->devs;

	while (*pp) {
		struct wdev *d = *pp;

		if (d->dead) {
			*pp = d->next;
			wdev_free(d);
		} else {
			pp = &d->next;
		}
	}
}

static void queue_gid_changes(struct rd_watch *w, struct wdev *d, struct wport *wp)
{
	struct rd_gid_table t;
	struct rd_gid_diff diff;

	if (rd_port_gid_table(&w->sr, &d->model, wp->p, false, &t, w->warn))
		return;	/* warned */
	if (wp->gids_known && rd_gid_table_diff(&wp->gids, &t, &diff) == 0) {
		for (size_t i = 0; i < diff.n; i++) {
			struct rd_event *ev = rdw_push(w);

			if (ev)
				rd_event_gid(ev, d->model.name, wp->p->num, &diff.v[i]);
		}
		rd_gid_diff_free(&diff);
	}
	rd_gid_table_free(&wp->gids);
	wp->gids = t;
	wp->gids_known = true;
}

static struct wport *find_port(struct wdev *d, unsigned int num)
{
	for (unsigned int i = 0; i < d->model.nports; i++)
		if (d->ports[i].p->num == num)
			return &d->ports[i];
	return NULL;
}

enum drain_result rdw_drain(struct rd_watch *w, struct wdev *d, int max)
{
	for (int i = 0; i < max; i++) {
		struct ibv_async_event e;
		struct wport *wp = NULL;
		struct rd_event *ev;
		unsigned int port = 0;
		int type;

		if (ibv_get_async_event(d->ctx, &e))
			return errno == EAGAIN || errno == EWOULDBLOCK ? DRAIN_EMPTY : DRAIN_ERROR;
		type = (int)e.event_type;
		if (rd_async_event_scope(type) == RD_ASYNC_PORT)
			port = (unsigned int)e.element.port_num;
		ibv_ack_async_event(&e);

		if (port) {
			wp = find_port(d, port);
			if (w->port && port != w->port)
				continue;	/* -p: another port */
		}
		if ((ev = rdw_push(w)))
			rd_event_async(ev, d->model.name, type, port);
		if (type == IBV_EVENT_GID_CHANGE && wp)
			queue_gid_changes(w, d, wp);
		if (type == IBV_EVENT_DEVICE_FATAL)
			return DRAIN_FATAL;
	}
	return DRAIN_MORE;
}

static void read_async(struct rd_watch *w, struct wdev *d, uint32_t revents)
{
	char text[96];

	switch (rdw_drain(w, d, 64)) {
	case DRAIN_FATAL:
		/* Not reopened until the driver registers it again (its uverbs goes and comes back). */
		rd_strlist_add_unique(&w->fatal, d->uverbs);
		rdw_release(w, d, "device_fatal", "after DEVICE_FATAL");
		break;
	case DRAIN_ERROR:
		snprintf(text, sizeof(text), "reading async events failed: %s", strerror(errno));
		rdw_release(w, d, "read_error", text);
		break;
	case DRAIN_EMPTY:
		if (revents & (EPOLLHUP | EPOLLERR))
			rdw_release(w, d, "hangup", "async event file closed by the kernel");
		break;
	case DRAIN_MORE:
		break;	/* epoll is level-triggered: the rest comes on the next round */
	}
}

static void queue_state(struct rd_watch *w, struct wdev *d)
{
	for (unsigned int i = 0; i < d->model.nports; i++) {
		struct rd_event *ev;

		if (d->ports[i].selected && (ev = rdw_push(w)))
			rd_event_port_state(ev, &d->model, d->ports[i].p, &d->ports[i].link);
	}
}

/* "1 port, uverbs1, netdev evA; watching" */
static void device_added_text(const struct wdev *d, char *buf, size_t len)
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

int rdw_open_dev(struct rd_watch *w, struct ibv_device *idev, const struct rd_nl_ports *nl)
{
	const char *name = ibv_get_device_name(idev);
	struct epoll_event ee = { .events = EPOLLIN };
	struct wdev *d = calloc(1, sizeof(*d));
	int flags;

	if (!d) {
		rd_warn(w->warn, "%s: out of memory; not watched", name);
		return 0;
	}
	d->src.kind = SRC_DEV;
	d->src.dev = d;
	rd_strlcpy(d->uverbs, idev->dev_name, sizeof(d->uverbs));
	d->ctx = ibv_open_device(idev);
	if (!d->ctx) {
		int err = errno ? errno : EIO;

		free(d);
		return -err;
	}
	flags = fcntl(d->ctx->async_fd, F_GETFL);
	if (flags < 0 || fcntl(d->ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		rd_warn(w->warn, "%s: cannot make its async event fd non-blocking: %s; not watched",
			name, strerror(errno));
		goto fail;
	}
	if (rd_device_read(&w->sr, name, &d->model, w->warn)) {
		rd_warn(w->warn, "%s: cannot read its sysfs directory; not watched", name);
		goto fail;
	}
	d->ports = calloc(d->model.nports ? d->model.nports : 1, sizeof(*d->ports));
	if (!d->ports) {
		rd_warn(w->warn, "%s: out of memory; not watched", name);
		goto fail;
	}
	for (unsigned int i = 0; i < d->model.nports; i++) {
		struct wport *wp = &d->ports[i];
		char ndev[64];
		enum rd_map_via via;
		bool other_netns;

		wp->p = &d->model.ports[i];
		wp->selected = !w->port || w->port == wp->p->num;
		wp->link.carrier = wp->link.admin_up = -1;
		if (!wp->selected)
			continue;
		rd_port_netdev(&w->sr, nl, &d->model, wp->p, ndev, sizeof(ndev), &via, &other_netns);
		rdw_link_query(w, ndev, 0, &wp->link);
		queue_gid_changes(w, d, wp);	/* the first read: no changes, the baseline */
	}
	ee.data.ptr = &d->src;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, d->ctx->async_fd, &ee) < 0) {
		rd_warn(w->warn, "%s: epoll: %s; not watched", name, strerror(errno));
		goto fail;
	}
	d->next = NULL;
	/* Append: events and -s lines come in the system's device order. */
	{
		struct wdev **pp = &w->devs;

		while (*pp)
			pp = &(*pp)->next;
		*pp = d;
	}
	w->ndevs++;
	if (!w->initial) {
		struct rd_event *ev = rdw_push(w);

		if (ev) {
			rd_event_device(ev, name, "DEVICE_ADDED", RD_SEV_GOOD);
			rd_strlcpy(ev->uverbs, d->uverbs, sizeof(ev->uverbs));
			ev->nports = d->model.nports;
			device_added_text(d, ev->text, sizeof(ev->text));
		}
	}
	if (w->state)
		queue_state(w, d);
	return 0;
fail:
	ibv_close_device(d->ctx);
	d->ctx = NULL;
	wdev_free(d);
	return 0;
}

/* ---- the watch ---- */

int rd_watch_open(struct rd_watch **wp, const struct rd_watch_opts *opts, struct rd_warnings *warn)
{
	struct rd_watch *w = calloc(1, sizeof(*w));
	int ret;

	*wp = NULL;
	if (!w)
		return -ENOMEM;
	w->uev_fd = w->epfd = w->timer_fd = -1;
	w->stop_fd = opts->stop_fd;
	w->warn = warn;
	w->port = opts->port;
	w->state = opts->state;
	(void)rd_sysroot_init(&w->sr, NULL);
	for (size_t i = 0; opts->devices && i < opts->devices->n; i++) {
		if (rd_strlist_add(&w->filter, opts->devices->v[i])) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0) {
		ret = -errno;
		goto fail;
	}
	if (w->stop_fd >= 0) {
		struct epoll_event ee = { .events = EPOLLIN, .data.ptr = &w->stop_src };

		w->stop_src.kind = SRC_STOP;
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->stop_fd, &ee) < 0) {
			ret = -errno;
			goto fail;
		}
	}
	rdw_retry_setup(w);
	/* Subscribe before opening anything: no change can fall in between. */
	ret = rdw_uevent_setup(w);
	if (ret)
		rd_warn(warn, "kernel uevents: %s; devices added or removed later are not noticed",
			strerror(-ret));
	ret = rdw_link_setup(w);
	if (ret)
		rd_warn(warn, "rtnetlink: %s; link changes of the netdevs are not watched",
			strerror(-ret));
	w->initial = true;
	rdw_rescan(w);
	w->initial = false;
	*wp = w;
	return 0;
fail:
	rd_watch_close(w);
	return ret;
}

unsigned int rd_watch_ndevices(const struct rd_watch *w)
{
	return w->ndevs;
}

static long elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

int rd_watch_next(struct rd_watch *w, struct rd_event *ev, int timeout_ms)
{
	size_t warnings = w->warn ? w->warn->msgs.n : 0;
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct epoll_event evs[8];
		int n, wait = -1;

		if (q_pop(w, ev))
			return RD_WATCH_EVENT;
		if (w->stopped)
			return RD_WATCH_STOP;
		/* A warning must not wait for the next event to be seen. */
		if (w->warn && w->warn->msgs.n > warnings)
			return RD_WATCH_WARNING;
		if (timeout_ms >= 0) {
			long left = timeout_ms - elapsed_ms(&start);

			wait = left > 0 ? (int)left : 0;
		}
		n = epoll_wait(w->epfd, evs, (int)RD_ARRAY_SIZE(evs), wait);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return RD_WATCH_TIMEOUT;
		for (int i = 0; i < n; i++) {
			struct wsrc *src = evs[i].data.ptr;

			switch (src->kind) {
			case SRC_STOP:
				w->stopped = true;
				break;
			case SRC_UEVENT:
				rdw_uevent_read(w);
				break;
			case SRC_RTNL:
				if (w->rtnl)
					rdw_link_read(w);
				break;
			case SRC_TIMER:
				rdw_retry_fire(w);
				break;
			case SRC_DEV:
				if (!src->dev->dead)
					read_async(w, src->dev, evs[i].events);
				break;
			}
		}
		reap(w);
	}
}

void rd_watch_close(struct rd_watch *w)
{
	if (!w)
		return;
	for (struct wdev *d = w->devs; d; d = d->next) {
		if (!d->dead && d->ctx) {
			ibv_close_device(d->ctx);
			d->ctx = NULL;
			d->dead = true;
		}
	}
	reap(w);
	if (w->uev_fd >= 0)
		close(w->uev_fd);
	if (w->timer_fd >= 0)
		close(w->timer_fd);
	rdw_link_close(w);
	if (w->epfd >= 0)
		close(w->epfd);
	rd_strlist_free(&w->filter);
	rd_strlist_free(&w->fatal);
	rd_strlist_free(&w->given_up);
	free(w->q);
	free(w);
}

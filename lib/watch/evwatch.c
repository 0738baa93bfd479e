// SPDX-License-Identifier: MIT
/*
 * The watcher core: one epoll over its sources (the stop fd, the set's
 * devices, the link source, the hot-plug sources), returning queued events
 * one by one.  It knows each source only as a struct rd_ev_input.
 */
#define _GNU_SOURCE
#include "evwatch.h"
#include "evhotplug.h"
#include "evlink.h"
#include "evset.h"
#include "evinput.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"

struct rd_watch {
	int epfd;
	struct rd_ev_input stop;	/* fd -1 without a stop fd */
	bool stopped;
	struct rd_ev_set set;
	struct rd_ev_links links;
	struct rd_ev_hotplug hotplug;
};

static void stop_ready(struct rd_ev_input *src, uint32_t revents)
{
	(void)revents;
	rd_container_of(src, struct rd_watch, stop)->stopped = true;
}

/* ---- the watch ---- */

int rd_watch_open(struct rd_watch **wp, const struct rd_watch_opts *opts, struct rd_warnings *warn)
{
	struct rd_watch *w = calloc(1, sizeof(*w));
	int ret;

	*wp = NULL;
	if (!w)
		return -ENOMEM;
	w->epfd = w->set.epfd = -1;
	w->hotplug.uevents.fd = w->hotplug.retry.fd = -1;
	w->stop.fd = opts->stop_fd;
	w->stop.ready = stop_ready;
	w->set.warn = warn;
	w->set.port = opts->port;
	w->set.state = opts->state;
	w->set.link_query = rd_ev_links_query;
	w->set.link_ctx = &w->links;
	(void)rd_sysroot_init(&w->set.sr, NULL);
	for (size_t i = 0; opts->devices && i < opts->devices->n; i++) {
		if (rd_strlist_add(&w->set.filter, opts->devices->v[i])) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	w->epfd = w->set.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0) {
		ret = -errno;
		goto fail;
	}
	if (w->stop.fd >= 0 && (ret = rd_ev_input_add(w->epfd, &w->stop)))
		goto fail;
	/* Subscribe before opening anything: no change can fall in between. */
	ret = rd_ev_hotplug_open(&w->hotplug, &w->set);
	if (ret)
		rd_warn(warn, "kernel uevents: %s; devices added or removed later are not noticed",
			strerror(-ret));
	ret = rd_ev_links_open(&w->links, &w->set);
	if (ret)
		rd_warn(warn, "rtnetlink: %s; link changes of the netdevs are not watched",
			strerror(-ret));
	w->set.initial = true;
	rd_ev_hotplug_rescan(&w->hotplug);
	w->set.initial = false;
	*wp = w;
	return 0;
fail:
	rd_watch_close(w);
	return ret;
}

unsigned int rd_watch_ndevices(const struct rd_watch *w)
{
	return w->set.ndevs;
}

static long elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

int rd_watch_next(struct rd_watch *w, struct rd_event *ev, int timeout_ms)
{
	struct rd_warnings *warn = w->set.warn;
	size_t warnings = warn ? warn->msgs.n : 0;
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct epoll_event evs[8];
		int n, wait = -1;

		if (rd_ev_pop(&w->set, ev))
			return RD_WATCH_EVENT;
		if (w->stopped)
			return RD_WATCH_STOP;
		/* A warning must not wait for the next event to be seen. */
		if (warn && warn->msgs.n > warnings)
			return RD_WATCH_WARNING;
		if (timeout_ms >= 0) {
			long left = timeout_ms - elapsed_ms(&start);

			wait = left > 0 ? (int)left : 0;
		}
		/*
		 * Nothing is kept open while waiting (a fd count is the same at
		 * every idle moment), and what the kernel reports next may have
		 * moved a directory: read afresh after it.
		 */
		rd_sysroot_forget();
		n = epoll_wait(w->epfd, evs, (int)RD_ARRAY_SIZE(evs), wait);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return RD_WATCH_TIMEOUT;
		for (int i = 0; i < n; i++) {
			struct rd_ev_input *src = evs[i].data.ptr;

			src->ready(src, evs[i].events);
		}
		rd_ev_set_reap(&w->set);
	}
}

void rd_watch_close(struct rd_watch *w)
{
	if (!w)
		return;
	rd_ev_set_free(&w->set);
	rd_ev_hotplug_close(&w->hotplug);
	rd_ev_links_close(&w->links);
	if (w->epfd >= 0)
		close(w->epfd);
	free(w);
}

// SPDX-License-Identifier: MIT
/*
 * The hot-plug sources (evhotplug.h): kobject uevents of the infiniband and
 * infiniband_verbs classes, rescans of the device list, and retries of
 * devices that cannot be opened yet.
 */
#define _GNU_SOURCE
#include "evhotplug.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

static const char *open_hint(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return " (no permission on /dev/infiniband/uverbs*: run as root or check the udev rules)";
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return " (its uverbs device node is missing)";
	default:
		return "";
	}
}

/*
 * A device node that appeared a moment ago may not be usable yet: udev sets
 * its owner and mode after the kernel's uevent, which we receive as early as
 * udev does.  Such failures are retried a few times before the warning.
 */
static bool open_retryable(int err)
{
	return err == EACCES || err == EPERM || err == ENOENT || err == ENODEV || err == ENXIO;
}

/*
 * Retries back off: 0.3, 0.6, 1.2, 2.4 s, then every 3 s; 10 of them span
 * about 22 s, time for udev to finish its rules on a loaded host.
 */
#define OPEN_RETRIES 10
#define OPEN_RETRY_MS 300
#define OPEN_RETRY_MAX_MS 3000

static void retry_arm(struct rd_ev_hotplug *w, bool on)
{
	struct itimerspec its = { 0 };

	if (w->retry.fd < 0)
		return;
	if (on) {
		unsigned int k = w->open_retries ? w->open_retries - 1 : 0;	/* this retry's number - 1 */
		long ms = (long)OPEN_RETRY_MS << (k < 4 ? k : 4);

		ms = ms < OPEN_RETRY_MAX_MS ? ms : OPEN_RETRY_MAX_MS;
		its.it_value.tv_sec = ms / 1000;
		its.it_value.tv_nsec = (ms % 1000) * 1000000L;
	}
	(void)timerfd_settime(w->retry.fd, 0, &its, NULL);
}

/* The retry timer expired: try the devices again. */
static void retry_fire(struct rd_ev_input *src, uint32_t revents)
{
	struct rd_ev_hotplug *w = rd_container_of(src, struct rd_ev_hotplug, retry);
	uint64_t expirations;

	(void)revents;
	if (read(w->retry.fd, &expirations, sizeof(expirations)) > 0)
		rd_ev_hotplug_rescan(w);
}

static struct ibv_device *listed(struct ibv_device **list, const char *uverbs)
{
	for (int i = 0; list && list[i]; i++)
		if (strcmp(list[i]->dev_name, uverbs) == 0)
			return list[i];
	return NULL;
}

static void strlist_remove(struct rd_strlist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->v[i], name) == 0) {
			free(l->v[i]);
			l->v[i] = l->v[--l->n];
			return;
		}
	}
}

/* Drop the names of l that are not in keep. */
static void strlist_prune(struct rd_strlist *l, const struct rd_strlist *keep)
{
	for (size_t i = 0; i < l->n;) {
		if (!rd_strlist_has(keep, l->v[i])) {
			free(l->v[i]);
			l->v[i] = l->v[--l->n];
		} else {
			i++;
		}
	}
}

/* The kernel's uverbs devices and the ib device of each, in ib device order. */
struct uverbs_pairs {
	struct rd_strlist ibdevs, uverbs;
};

static void uverbs_pairs_read(const struct rd_sysroot *sr, struct uverbs_pairs *up)
{
	struct rd_strlist names = { 0 }, all = { 0 }, ib = { 0 }, uv = { 0 };
	char ibdev[64];

	if (rd_device_names(sr, &names) || rd_sys_list(sr, &all, "/sys/class/infiniband_verbs"))
		goto out;
	for (size_t j = 0; j < all.n; j++) {
		if (strncmp(all.v[j], "uverbs", 6) != 0 ||
		    rd_sys_read_str(sr, ibdev, sizeof(ibdev), "/sys/class/infiniband_verbs/%s/ibdev",
				    all.v[j]))
			continue;
		if (rd_strlist_add(&ib, ibdev))
			goto out;
		if (rd_strlist_add(&uv, all.v[j])) {
			free(ib.v[--ib.n]);
			goto out;
		}
	}
	for (size_t i = 0; i < names.n; i++) {
		for (size_t k = 0; k < ib.n; k++) {
			if (strcmp(ib.v[k], names.v[i]) != 0)
				continue;
			if (rd_strlist_add(&up->ibdevs, ib.v[k]))
				goto out;
			if (rd_strlist_add(&up->uverbs, uv.v[k])) {
				free(up->ibdevs.v[--up->ibdevs.n]);
				goto out;
			}
			break;
		}
	}
out:
	rd_strlist_free(&names);
	rd_strlist_free(&all);
	rd_strlist_free(&ib);
	rd_strlist_free(&uv);
}

static void uverbs_pairs_free(struct uverbs_pairs *up)
{
	rd_strlist_free(&up->ibdevs);
	rd_strlist_free(&up->uverbs);
}

/*
 * Make the watched set match the kernel's: release devices whose uverbs
 * device is gone (in case uevents were lost), open the matching ones not
 * watched yet.  sysfs says what exists; libibverbs opens it.  A device that
 * cannot be opened yet after a hot-plug is retried a few times before the
 * warning (see open_retryable), then left alone until it goes and comes back.
 */
void rd_ev_hotplug_rescan(struct rd_ev_hotplug *w)
{
	struct rd_ev_set *s = w->set;
	struct rd_nl_ports nl = { 0 };
	struct uverbs_pairs up = { 0 };
	bool have_nl = false, tried_nl = false, retry = false;
	struct ibv_device **list;
	int n = 0;

	uverbs_pairs_read(&s->sr, &up);
	for (struct rd_ev_dev *d = s->devs; d; d = d->next) {
		char text[96];

		if (d->dead || rd_strlist_has(&up.uverbs, d->uverbs))
			continue;
		snprintf(text, sizeof(text), "%s no longer exists", d->uverbs);
		rd_ev_release(s, d, "vanished", text);
	}
	strlist_prune(&s->fatal, &up.uverbs);
	strlist_prune(&s->given_up, &up.uverbs);

	/* libibverbs caches its list but reads the kernel's again on every call. */
	list = ibv_get_device_list(&n);
	if (!list)
		rd_warn(s->warn, "cannot list RDMA devices with libibverbs: %s", strerror(errno));
	for (size_t i = 0; i < up.uverbs.n; i++) {
		const char *name = up.ibdevs.v[i], *uv = up.uverbs.v[i];
		struct ibv_device *idev;
		int err;

		if (s->filter.n && !rd_strlist_has(&s->filter, name))
			continue;
		if (rd_ev_find_uverbs(s, uv) || rd_strlist_has(&s->fatal, uv) ||
		    rd_strlist_has(&s->given_up, uv))
			continue;
		idev = listed(list, uv);
		if (idev) {
			if (!tried_nl) {
				tried_nl = true;
				have_nl = rd_nldev_ports(&nl, 2000) == 0;
			}
			err = rd_ev_open_dev(s, idev, have_nl ? &nl : NULL);
			if (!err)
				continue;
		} else {
			/* libibverbs leaves out what it cannot stat in /dev/infiniband. */
			err = -ENODEV;
		}
		if (!s->initial && open_retryable(-err) && w->open_retries < OPEN_RETRIES) {
			retry = true;
			continue;
		}
		if (idev)
			rd_warn(s->warn, "%s: cannot open: %s%s; not watched", name, strerror(-err),
				open_hint(-err));
		else
			rd_warn(s->warn, "%s: libibverbs does not list it (no userspace provider for its "
				"driver, or no /dev/infiniband/%s); not watched", name, uv);
		rd_strlist_add_unique(&s->given_up, uv);
	}
	if (retry) {
		w->open_retries++;
		retry_arm(w, true);
	} else {
		w->open_retries = 0;
	}
	if (s->initial) {
		/* Devices without a uverbs device cannot be opened at all: say why. */
		struct rd_strlist names = { 0 };

		if (rd_device_names(&s->sr, &names) == 0) {
			for (size_t i = 0; i < names.n; i++) {
				if ((s->filter.n && !rd_strlist_has(&s->filter, names.v[i])) ||
				    rd_strlist_has(&up.ibdevs, names.v[i]))
					continue;
				rd_warn(s->warn, "%s: no uverbs device (is ib_uverbs loaded?); not watched",
					names.v[i]);
			}
		}
		rd_strlist_free(&names);
	}
	rd_nl_ports_free(&nl);
	if (list)
		ibv_free_device_list(list);
	uverbs_pairs_free(&up);
}

/* ---- kobject uevents ---- */

static void uevents_read(struct rd_ev_input *src, uint32_t revents);

int rd_ev_hotplug_open(struct rd_ev_hotplug *w, struct rd_ev_set *set)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };	/* kernel events */
	int fd, ret, sz = 1 << 20;

	w->set = set;
	w->uevents.ready = uevents_read;
	w->retry.ready = retry_fire;
	w->retry.fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	/* Without the timer, a device that cannot be opened at once is warned about. */
	if (w->retry.fd >= 0 && rd_ev_input_add(set->epfd, &w->retry)) {
		close(w->retry.fd);
		w->retry.fd = -1;
	}

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	w->uevents.fd = fd;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		ret = -errno;
	else
		ret = rd_ev_input_add(set->epfd, &w->uevents);
	if (ret) {
		close(fd);
		w->uevents.fd = -1;
	}
	return ret;
}

static void on_uevent(struct rd_ev_set *s, const struct rd_uevent *u, bool *rescan_needed)
{
	struct rd_ev_dev *d;
	char text[160];

	if (strcmp(u->subsystem, "infiniband_verbs") == 0) {
		if (strcmp(u->action, "add") == 0) {
			*rescan_needed = true;
		} else if (strcmp(u->action, "remove") == 0) {
			/*
			 * A driver without disassociate support (rxe, siw...) waits in
			 * the kernel until every context is closed: release now.
			 */
			if ((d = rd_ev_find_uverbs(s, u->kname))) {
				/* What it said before it went comes first. */
				(void)rd_ev_drain(s, d, 64);
				snprintf(text, sizeof(text), "%s removed", u->kname);
				rd_ev_release(s, d, "uevent", text);
			}
			strlist_remove(&s->fatal, u->kname);
			strlist_remove(&s->given_up, u->kname);
		}
	} else if (strcmp(u->subsystem, "infiniband") == 0) {
		if (strcmp(u->action, "add") == 0) {
			*rescan_needed = true;	/* usable once its uverbs device follows */
		} else if (strcmp(u->action, "remove") == 0) {
			if ((d = rd_ev_find_name(s, u->kname))) {
				(void)rd_ev_drain(s, d, 64);
				snprintf(text, sizeof(text), "%s removed", u->kname);
				rd_ev_release(s, d, "uevent", text);
			}
		} else if (strcmp(u->action, "move") == 0 && u->old_kname[0] &&
			   (d = rd_ev_find_name(s, u->old_kname))) {
			struct rd_event *ev = rd_ev_push(s);

			/* Renamed (rdma dev set NAME name NEW): the context stays valid. */
			rd_strlcpy(d->model.name, u->kname, sizeof(d->model.name));
			if (ev) {
				rd_event_device(ev, u->kname, "DEVICE_RENAMED", RD_SEV_WARN);
				rd_strlcpy(ev->uverbs, d->uverbs, sizeof(ev->uverbs));
				rd_strlcpy(ev->old_dev, u->old_kname, sizeof(ev->old_dev));
				snprintf(ev->text, sizeof(ev->text), "renamed from %s", u->old_kname);
			}
		}
	}
}

/* The uevent socket is readable. */
static void uevents_read(struct rd_ev_input *src, uint32_t revents)
{
	struct rd_ev_hotplug *w = rd_container_of(src, struct rd_ev_hotplug, uevents);
	bool rescan_needed = false;
	char buf[8192];

	for (int i = 0; i < 256; i++) {
		struct sockaddr_nl sa;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr msg = { .msg_name = &sa, .msg_namelen = sizeof(sa), .msg_iov = &iov,
				      .msg_iovlen = 1 };
		struct rd_uevent u;
		ssize_t n = recvmsg(w->uevents.fd, &msg, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				/* Lost some: find out what changed from the device list. */
				rescan_needed = true;
				continue;
			}
			break;	/* EAGAIN: drained */
		}
		/* Only the kernel (port id 0) speaks for devices. */
		if (sa.nl_pid != 0 || (msg.msg_flags & MSG_TRUNC))
			continue;
		if (rd_uevent_parse(buf, (size_t)n, &u) == 0)
			on_uevent(w->set, &u, &rescan_needed);
	}
	(void)revents;
	if (rescan_needed)
		rd_ev_hotplug_rescan(w);
}

void rd_ev_hotplug_close(struct rd_ev_hotplug *w)
{
	if (w->uevents.fd >= 0)
		close(w->uevents.fd);
	if (w->retry.fd >= 0)
		close(w->retry.fd);
	w->uevents.fd = w->retry.fd = -1;
}

// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "portwatch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/model.h"
#include "nlstat.h"
#include "base/base.h"

#define NL_TIMEOUT_MS 2000

/* A device name of the class directory we know about. */
struct rd_watch_dev {
	char name[64];
	int fd;			/* O_PATH of the device directory; -1 if it would not read */
	unsigned int nports;	/* rows made for it */
	unsigned int live;	/* of which not gone */
	bool seen;		/* listed by the current scan */
};

static int open_rooted(const struct rd_sysroot *sr, int flags, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int open_rooted(const struct rd_sysroot *sr, int flags, const char *fmt, ...)
{
	char rel[RD_PATH_MAX], full[RD_PATH_MAX];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = rd_vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (ret || rd_sys_resolve(sr, full, sizeof(full), rel))
		return -1;
	/* O_NONBLOCK: a FIFO where an attribute should be must not block. */
	return open(full, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* pread a small attribute into buf (NUL-terminated, trailing newline kept). */
static int pread_attr(int fd, char *buf, size_t len)
{
	ssize_t n;

	if (fd < 0)
		return -EBADF;
	do
		n = pread(fd, buf, len - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n ? 0 : -ENODATA;
}

static bool name_selected(const struct rd_portwatch *pw, const char *name)
{
	return !pw->devices || pw->devices->n == 0 || rd_strlist_has(pw->devices, name);
}

static void port_release(struct rd_watch_port *p)
{
	close_fd(&p->fd_dir);
	close_fd(&p->fd_state);
	close_fd(&p->fd_rate);
	close_fd(&p->fd_speed);
	rd_port_ctrs_close(&p->ctrs);
}

static void port_mark_gone(struct rd_portwatch *pw, struct rd_watch_port *p)
{
	if (p->gone)
		return;
	for (size_t i = 0; i < pw->ndevs; i++)
		if (strcmp(pw->devs[i].name, p->dev) == 0 && pw->devs[i].live)
			pw->devs[i].live--;
	p->gone = true;
	p->gone_age = 0;
	p->state_known = false;
	p->link_known = false;
	p->util_known = false;
	memset(p->sum, 0, sizeof(p->sum));
	port_release(p);
}

/* ---- netlink: device indexes and netdevs, hw counters ---- */

static void nl_refresh_ports(struct rd_portwatch *pw)
{
	if (!pw->use_netlink)
		return;
	if (!pw->nl_ports) {
		pw->nl_ports = calloc(1, sizeof(*pw->nl_ports));
		if (!pw->nl_ports)
			return;
	}
	rd_nl_ports_free(pw->nl_ports);
	if (rd_nldev_ports(pw->nl_ports, NL_TIMEOUT_MS))
		rd_nl_ports_free(pw->nl_ports);
	if (!pw->nl && rd_nlstat_open(&pw->nl, NL_TIMEOUT_MS))
		pw->nl = NULL;
}

static const struct rd_nl_port *nl_port(const struct rd_portwatch *pw, const char *dev,
					unsigned int port)
{
	for (size_t i = 0; pw->nl_ports && i < pw->nl_ports->n; i++)
		if (strcmp(pw->nl_ports->v[i].dev, dev) == 0 && pw->nl_ports->v[i].port == port)
			return &pw->nl_ports->v[i];
	return NULL;
}

static int nl_add_cb(void *ctx, const char *name, uint64_t value)
{
	struct rd_port_ctrs *pc = ctx;
	int ret;

	(void)value;
	ret = rd_port_ctrs_add(pc, RD_SRC_HW, name, -1);
	return ret < 0 ? ret : 0;
}

struct feed_ctx {
	struct rd_watch_port *p;
};

static int nl_feed_cb(void *ctx, const char *name, uint64_t value)
{
	struct rd_watch_port *p = ((struct feed_ctx *)ctx)->p;

	/* A counter the port did not have (an optional one switched on): next time. */
	if (rd_port_ctrs_feed(&p->ctrs, RD_SRC_HW, name, value) == -ENOENT)
		p->nl_new_names = true;
	return 0;
}

static int nl_collect_new_cb(void *ctx, const char *name, uint64_t value)
{
	struct rd_port_ctrs *pc = ctx;

	(void)value;
	for (size_t i = 0; i < pc->n; i++)
		if (pc->v[i].src == RD_SRC_HW && strcmp(pc->v[i].name, name) == 0)
			return 0;
	return nl_add_cb(ctx, name, value);
}

/* ---- adding a port ---- */

static int add_port(struct rd_portwatch *pw, const struct rd_device *d, const struct rd_port *p)
{
	struct rd_watch_port *wp, **v;
	const struct rd_nl_port *nlp;
	enum rd_map_via via;
	bool other_netns;
	int ret;

	/* NOLINTNEXTLINE(bugprone-sizeof-expression): v holds pointers; *v is one */
	v = realloc(pw->v, (pw->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	pw->v = v;
	wp = calloc(1, sizeof(*wp));
	if (!wp)
		return -ENOMEM;
	wp->fd_dir = wp->fd_state = wp->fd_rate = wp->fd_speed = -1;
	rd_strlcpy(wp->dev, d->name, sizeof(wp->dev));
	wp->port = p->num;
	wp->id = ++pw->next_id;
	wp->link_layer = (p->known & RD_PORT_LINK_LAYER) ? p->link_layer : RD_LL_UNKNOWN;
	wp->transport = rd_port_transport(d, p);
	if (d->known & RD_DEV_NODE_GUID)
		rd_format_guid_hex(d->node_guid, wp->guid);
	if (pw->netdevs)
		rd_port_netdev_cached(pw->netdevs, pw->nl_ports, d, p, NULL, wp->netdev,
				      sizeof(wp->netdev), &via, &other_netns);
	else
		rd_port_netdev(pw->sr, pw->nl_ports, d, p, wp->netdev, sizeof(wp->netdev), &via,
			       &other_netns);

	wp->fd_dir = open_rooted(pw->sr, O_PATH | O_DIRECTORY, "/sys/class/infiniband/%s/ports/%u",
				 d->name, p->num);
	wp->fd_state = open_rooted(pw->sr, O_RDONLY, "/sys/class/infiniband/%s/ports/%u/state",
				   d->name, p->num);
	/*
	 * Utilization is against the netdev's speed on RoCE and iWARP (the port
	 * rate there is derived from it, or made up when the driver does not
	 * know), against the port's rate on InfiniBand.
	 */
	if (wp->link_layer == RD_LL_ETHERNET) {
		if (wp->netdev[0] && !other_netns)
			wp->fd_speed = open_rooted(pw->sr, O_RDONLY, "/sys/class/net/%s/speed",
						   wp->netdev);
	} else {
		wp->fd_rate = open_rooted(pw->sr, O_RDONLY, "/sys/class/infiniband/%s/ports/%u/rate",
					  d->name, p->num);
	}

	/* hw counters through netlink when it answers for this port, else sysfs. */
	nlp = nl_port(pw, d->name, p->num);
	if (pw->nl && nlp && rd_port_ctrs_open(pw->sr, d->name, p->num, true, &wp->ctrs) == 0) {
		size_t pma = wp->ctrs.n;

		if (rd_nlstat_port(pw->nl, nlp->dev_index, p->num, nl_add_cb, &wp->ctrs) == 0 &&
		    wp->ctrs.n > pma) {
			rd_port_ctrs_index(&wp->ctrs);
			wp->use_nl = true;
			wp->nl_dev_index = nlp->dev_index;
		} else {
			rd_port_ctrs_close(&wp->ctrs);
		}
	}
	ret = wp->use_nl ? 0 : rd_port_ctrs_open(pw->sr, d->name, p->num, false, &wp->ctrs);
	if (ret) {
		port_release(wp);
		free(wp);
		return ret;
	}
	for (size_t i = 0; i < wp->ctrs.n; i++)
		if (wp->ctrs.v[i].src == RD_SRC_HW)
			wp->hw_source = wp->use_nl ? "netlink" : "sysfs";
	pw->v[pw->n++] = wp;
	return 0;
}

static int add_watch_dev(struct rd_portwatch *pw, const char *name, int fd)
{
	struct rd_watch_dev *v = realloc(pw->devs, (pw->ndevs + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	pw->devs = v;
	memset(&v[pw->ndevs], 0, sizeof(*v));
	rd_strlcpy(v[pw->ndevs].name, name, sizeof(v->name));
	v[pw->ndevs].fd = fd;
	v[pw->ndevs].seen = true;
	pw->ndevs++;
	return 0;
}

static int adopt_device(struct rd_portwatch *pw, const struct rd_device *d)
{
	int fd = open_rooted(pw->sr, O_PATH | O_DIRECTORY, "/sys/class/infiniband/%s", d->name);
	int ret;

	ret = add_watch_dev(pw, d->name, fd);
	if (ret) {
		if (fd >= 0)
			close(fd);
		return ret;
	}
	for (unsigned int j = 0; j < d->nports; j++) {
		if (pw->port_filter && d->ports[j].num != pw->port_filter)
			continue;
		RD_GCC_LEAK_FP_BEGIN	/* add_port stores its port in pw->v */
		ret = add_port(pw, d, &d->ports[j]);
		RD_GCC_LEAK_FP_END
		if (ret)
			return ret;
		pw->devs[pw->ndevs - 1].nports++;
		pw->devs[pw->ndevs - 1].live++;
	}
	return 0;
}

/* A name that appeared in the class directory. */
static int discover(struct rd_portwatch *pw, const char *name)
{
	struct rd_device d;
	int ret;

	if (!pw->nl_ports || pw->refreshes)
		nl_refresh_ports(pw);
	/* The ports' netdev lists are not shown. */
	if (rd_device_read_flags(pw->sr, name, &d, pw->w, RD_SCAN_NO_NETDEVS)) {
		/* Not (yet) readable, or a dangling link: leave it until it goes away. */
		return add_watch_dev(pw, name, -1);
	}
	ret = adopt_device(pw, &d);
	rd_device_free(&d);
	return ret;
}

/*
 * The class directory's names, NUL-separated, into pw->listing; true when
 * they are the same as last time (the common case: nothing to match).
 */
static bool list_class(struct rd_portwatch *pw)
{
	struct rd_buf *cur = &pw->listing[pw->cur_listing];
	struct rd_buf *old = &pw->listing[!pw->cur_listing];
	struct dirent *de;

	cur->len = 0;
	rewinddir(pw->classdir);
	while ((de = readdir(pw->classdir))) {
		size_t l = strlen(de->d_name) + 1;

		if (de->d_name[0] == '.')
			continue;
		if (cur->len + l > cur->cap) {
			size_t cap = (cur->len + l) * 2;
			char *p = realloc(cur->p, cap);

			if (!p)
				return false;	/* then match name by name */
			cur->p = p;
			cur->cap = cap;
		}
		memcpy(cur->p + cur->len, de->d_name, l);
		cur->len += l;
	}
	pw->cur_listing = !pw->cur_listing;
	return cur->len == old->len && (!cur->len || memcmp(cur->p, old->p, cur->len) == 0);
}

int rd_portwatch_init(struct rd_portwatch *pw, const struct rd_sysroot *sr,
		      const struct rd_strlist *devices, unsigned int port_filter,
		      const struct rd_device_list *list, struct rd_warnings *w)
{
	char path[RD_PATH_MAX];
	struct rd_netdev_cache netdevs;
	struct rd_buf *names;
	int ret = 0;

	memset(pw, 0, sizeof(*pw));
	pw->sr = sr;
	pw->devices = devices;
	pw->port_filter = port_filter;
	pw->keep_gone = 0;
	pw->w = w;
	pw->use_netlink = rd_sysroot_is_live(sr);
	if (rd_sys_resolve(sr, path, sizeof(path), "/sys/class/infiniband"))
		return -ENAMETOOLONG;
	pw->classdir = opendir(path);
	nl_refresh_ports(pw);
	/* The first ports share what they read of the netdevs (the IPoIB match's listing). */
	rd_netdev_cache_init(&netdevs, sr);
	pw->netdevs = &netdevs;
	for (unsigned int i = 0; list && i < list->n && ret == 0; i++)
		ret = adopt_device(pw, &list->v[i]);
	pw->netdevs = NULL;
	rd_netdev_cache_free(&netdevs);
	if (ret || !pw->classdir)
		return ret;
	/* What the scan could not read stays out, as it did there. */
	list_class(pw);
	names = &pw->listing[!pw->cur_listing];
	for (size_t off = 0; off < names->len; off += strlen(names->p + off) + 1) {
		const char *name = names->p + off;
		bool known = false;

		if (!name_selected(pw, name))
			continue;
		for (size_t i = 0; i < pw->ndevs && !known; i++)
			known = strcmp(pw->devs[i].name, name) == 0;
		if (!known && (ret = add_watch_dev(pw, name, -1)))
			return ret;
	}
	return 0;
}

/* ---- the refresh ---- */

static bool fd_unlinked(int fd)
{
	struct stat st;

	/* Removed directories keep nlink 0 on ordinary file systems (fixtures). */
	return fd >= 0 && fstat(fd, &st) == 0 && st.st_nlink == 0;
}

static void drop_dev(struct rd_portwatch *pw, size_t i)
{
	for (size_t k = 0; k < pw->n; k++)
		if (strcmp(pw->v[k]->dev, pw->devs[i].name) == 0)
			port_mark_gone(pw, pw->v[k]);
	close_fd(&pw->devs[i].fd);
	pw->devs[i] = pw->devs[--pw->ndevs];
}

static int rescan(struct rd_portwatch *pw)
{
	struct rd_buf *names;
	bool same, dropped = false;
	int ret;

	/* Ports whose directory was removed, devices re-created under their name. */
	for (size_t k = 0; k < pw->n; k++)
		if (!pw->v[k]->gone && fd_unlinked(pw->v[k]->fd_dir))
			port_mark_gone(pw, pw->v[k]);
	for (size_t i = 0; i < pw->ndevs; i++) {
		pw->devs[i].seen = false;
		/* Every port gone (kernfs said ENODEV): forget it, the listing may find it anew. */
		if (fd_unlinked(pw->devs[i].fd) || (pw->devs[i].nports && !pw->devs[i].live)) {
			drop_dev(pw, i--);
			dropped = true;
		}
	}
	if (!pw->classdir)
		return 0;
	same = list_class(pw);
	if (same && !dropped)
		return 0;
	names = &pw->listing[!pw->cur_listing];
	for (size_t off = 0; off < names->len; off += strlen(names->p + off) + 1) {
		const char *name = names->p + off;
		bool known = false;

		if (!name_selected(pw, name))
			continue;
		for (size_t i = 0; i < pw->ndevs; i++) {
			if (strcmp(pw->devs[i].name, name) == 0) {
				pw->devs[i].seen = true;
				known = true;
				break;
			}
		}
		if (!known && (ret = discover(pw, name)))
			return ret;
	}
	for (size_t i = 0; i < pw->ndevs; i++)
		if (!pw->devs[i].seen)
			drop_dev(pw, i--);
	return 0;
}

static void read_facts(struct rd_watch_port *p)
{
	char buf[128];
	uint64_t v;

	p->state_known = false;
	if (pread_attr(p->fd_state, buf, sizeof(buf)) == 0) {
		buf[strcspn(buf, "\n")] = '\0';
		if (rd_parse_enum(buf, &v, p->state_name, sizeof(p->state_name)) == 0) {
			/* The kernel's name for the code; the text only when the code is new. */
			const char *name = rd_port_state_name(v);

			if (name)
				rd_strlcpy(p->state_name, name, sizeof(p->state_name));
			p->state_known = true;
			p->state = v;
		}
	}
	p->link_known = false;
	if (p->fd_speed >= 0) {
		/* Mb/s; "-1" (or a failing read) when the driver does not know. */
		if (pread_attr(p->fd_speed, buf, sizeof(buf)) == 0 &&
		    rd_parse_counter(buf, strlen(buf), &v) == 0 && v > 0) {
			p->link_known = true;
			p->link_gbps = (double)v / 1000.0;
		}
	} else if (p->fd_rate >= 0) {
		struct rd_rate r;

		if (pread_attr(p->fd_rate, buf, sizeof(buf)) == 0 && rd_parse_rate(buf, &r) == 0 &&
		    r.gbps > 0) {
			p->link_known = true;
			p->link_gbps = r.gbps;
		}
	}
}

/* A counter that cannot be read shows as unknown; say why once, not every sample. */
static void warn_counters(struct rd_portwatch *pw, struct rd_watch_port *p)
{
	for (size_t i = 0; i < p->ctrs.n; i++) {
		struct rd_counter *c = &p->ctrs.v[i];
		const char *dir = rd_ctr_src_dir(c->src);

		if (c->err && c->err != c->warned) {
			if (c->fd >= 0 || !p->use_nl || c->src == RD_SRC_PMA)
				rd_warn(pw->w, "%s port %u: %s/%s: %s (%s/sys/class/infiniband/%s/ports/%u/%s/%s)",
					p->dev, p->port, dir, c->name, rd_read_strerror(c->err),
					pw->sr->root, p->dev, p->port, dir, c->name);
			else
				rd_warn(pw->w, "%s port %u: hw counter %s: %s (netlink)", p->dev, p->port,
					c->name, rd_read_strerror(c->err));
		}
		c->warned = c->err;
	}
}

static void sample_port(struct rd_portwatch *pw, struct rd_watch_port *p)
{
	const struct rd_sum_val *tx, *rx;
	bool gone = false;

	read_facts(p);
	rd_port_ctrs_begin(&p->ctrs, rd_monotonic());
	gone |= rd_port_ctrs_read_files(&p->ctrs, RD_SRC_PMA) == -ENODEV;
	if (p->use_nl && pw->nl) {
		struct feed_ctx fc = { .p = p };
		int ret = rd_nlstat_port(pw->nl, p->nl_dev_index, p->port, nl_feed_cb, &fc);

		/* The kernel no longer knows this device index: removed (maybe re-created). */
		gone |= ret == -EINVAL || ret == -ENODEV;
	} else {
		gone |= rd_port_ctrs_read_files(&p->ctrs, RD_SRC_HW) == -ENODEV;
	}
	rd_port_ctrs_end(&p->ctrs);
	if (gone) {
		port_mark_gone(pw, p);
		return;
	}
	warn_counters(pw, p);
	if (p->nl_new_names && pw->nl) {
		p->nl_new_names = false;
		if (rd_nlstat_port(pw->nl, p->nl_dev_index, p->port, nl_collect_new_cb, &p->ctrs) == 0)
			rd_port_ctrs_index(&p->ctrs);
	}
	rd_port_ctrs_summary(&p->ctrs, p->sum);
	tx = &p->sum[RD_SUM_TX_BYTES];
	rx = &p->sum[RD_SUM_RX_BYTES];
	p->util_known = false;
	if (p->link_known && tx->rate_state == RD_RATE_OK && rx->rate_state == RD_RATE_OK) {
		double bps = 8.0 * (tx->rate > rx->rate ? tx->rate : rx->rate);

		p->util_known = true;
		p->util_pct = 100.0 * bps / (p->link_gbps * 1e9);
	}
}

int rd_portwatch_refresh(struct rd_portwatch *pw)
{
	size_t k = 0;
	int ret;

	/* Devices may have come, gone or been renamed since the last refresh. */
	rd_sysroot_forget();
	/* Rows gone long enough leave the list. */
	for (size_t i = 0; i < pw->n; i++) {
		struct rd_watch_port *p = pw->v[i];

		if (p->gone && ++p->gone_age > pw->keep_gone) {
			free(p);
			continue;
		}
		pw->v[k++] = p;
	}
	pw->n = k;
	ret = rescan(pw);
	if (ret)
		return ret;
	for (size_t i = 0; i < pw->n; i++)
		if (!pw->v[i]->gone)
			sample_port(pw, pw->v[i]);
	pw->refreshes++;
	return 0;
}

size_t rd_portwatch_live(const struct rd_portwatch *pw)
{
	size_t n = 0;

	for (size_t i = 0; i < pw->n; i++)
		n += !pw->v[i]->gone;
	return n;
}

void rd_portwatch_free(struct rd_portwatch *pw)
{
	for (size_t i = 0; i < pw->n; i++) {
		port_release(pw->v[i]);
		free(pw->v[i]);
	}
	free(pw->v);
	for (size_t i = 0; i < pw->ndevs; i++)
		close_fd(&pw->devs[i].fd);
	free(pw->devs);
	if (pw->classdir)
		closedir(pw->classdir);
	free(pw->listing[0].p);
	free(pw->listing[1].p);
	rd_nlstat_close(pw->nl);
	if (pw->nl_ports) {
		rd_nl_ports_free(pw->nl_ports);
		free(pw->nl_ports);
	}
	memset(pw, 0, sizeof(*pw));
}

// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "events.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

/* ---- async events ---- */

struct async_desc {
	const char *name;
	enum rd_async_scope scope;
	const char *meaning;
};

/*
 * Indexed by enum ibv_event_type.  Meanings follow the verbs specification
 * (IBTA vol. 1, 11.6.3) and ibv_get_async_event(3), in the fewest words.
 */
static const struct async_desc async_events[] = {
	[IBV_EVENT_CQ_ERR] = { "CQ_ERR", RD_ASYNC_CQ,
		"CQ error (overrun or access error); the CQ is unusable" },
	[IBV_EVENT_QP_FATAL] = { "QP_FATAL", RD_ASYNC_QP,
		"QP fatal error; the QP went to the error state" },
	[IBV_EVENT_QP_REQ_ERR] = { "QP_REQ_ERR", RD_ASYNC_QP,
		"invalid request on a QP (transport error from the peer)" },
	[IBV_EVENT_QP_ACCESS_ERR] = { "QP_ACCESS_ERR", RD_ASYNC_QP,
		"local access violation on a QP (bad R_Key, protection)" },
	[IBV_EVENT_COMM_EST] = { "COMM_EST", RD_ASYNC_QP,
		"communication established on a QP (first packet in RTR)" },
	[IBV_EVENT_SQ_DRAINED] = { "SQ_DRAINED", RD_ASYNC_QP,
		"send queue drained (SQD reached)" },
	[IBV_EVENT_PATH_MIG] = { "PATH_MIG", RD_ASYNC_QP,
		"a QP migrated to its alternate path" },
	[IBV_EVENT_PATH_MIG_ERR] = { "PATH_MIG_ERR", RD_ASYNC_QP,
		"path migration of a QP failed" },
	[IBV_EVENT_DEVICE_FATAL] = { "DEVICE_FATAL", RD_ASYNC_DEVICE,
		"device fatal error; every resource on it is lost" },
	[IBV_EVENT_PORT_ACTIVE] = { "PORT_ACTIVE", RD_ASYNC_PORT,
		"port became active" },
	[IBV_EVENT_PORT_ERR] = { "PORT_ERR", RD_ASYNC_PORT,
		"port went down" },
	[IBV_EVENT_LID_CHANGE] = { "LID_CHANGE", RD_ASYNC_PORT,
		"port LID changed (subnet manager)" },
	[IBV_EVENT_PKEY_CHANGE] = { "PKEY_CHANGE", RD_ASYNC_PORT,
		"P_Key table changed" },
	[IBV_EVENT_SM_CHANGE] = { "SM_CHANGE", RD_ASYNC_PORT,
		"subnet manager changed (new SM LID)" },
	[IBV_EVENT_SRQ_ERR] = { "SRQ_ERR", RD_ASYNC_SRQ,
		"SRQ error; the SRQ is unusable" },
	[IBV_EVENT_SRQ_LIMIT_REACHED] = { "SRQ_LIMIT_REACHED", RD_ASYNC_SRQ,
		"SRQ fell below its armed limit" },
	[IBV_EVENT_QP_LAST_WQE_REACHED] = { "QP_LAST_WQE_REACHED", RD_ASYNC_QP,
		"last WQE of a QP on an SRQ consumed" },
	[IBV_EVENT_CLIENT_REREGISTER] = { "CLIENT_REREGISTER", RD_ASYNC_PORT,
		"SM asks to re-register (multicast joins, services)" },
	[IBV_EVENT_GID_CHANGE] = { "GID_CHANGE", RD_ASYNC_PORT,
		"GID table changed" },
	[IBV_EVENT_WQ_FATAL] = { "WQ_FATAL", RD_ASYNC_WQ,
		"WQ fatal error; the WQ went to the error state" },
};

static const struct async_desc *async_desc(int type)
{
	if (type < 0 || (size_t)type >= RD_ARRAY_SIZE(async_events) || !async_events[type].name)
		return NULL;
	return &async_events[type];
}

const char *rd_async_event_name(int type)
{
	const struct async_desc *d = async_desc(type);

	return d ? d->name : NULL;
}

const char *rd_async_event_meaning(int type)
{
	const struct async_desc *d = async_desc(type);

	return d ? d->meaning : NULL;
}

enum rd_async_scope rd_async_event_scope(int type)
{
	const struct async_desc *d = async_desc(type);

	return d ? d->scope : RD_ASYNC_UNKNOWN;
}

int rd_async_event_max(void)
{
	return (int)RD_ARRAY_SIZE(async_events) - 1;
}

static enum rd_ev_severity async_severity(int type)
{
	switch (type) {
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_COMM_EST:
		return RD_SEV_GOOD;
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return RD_SEV_WARN;
	default:
		return RD_SEV_BAD;
	}
}

/* ---- GID table diff ---- */

static bool gid_same(const struct rd_gid *a, const struct rd_gid *b)
{
	return memcmp(a->raw, b->raw, 16) == 0 && strcmp(a->type, b->type) == 0 &&
	       strcmp(a->ndev, b->ndev) == 0;
}

static int diff_add(struct rd_gid_diff *d, size_t *cap, enum rd_gid_change_kind kind,
		    const struct rd_gid *old, const struct rd_gid *cur)
{
	struct rd_gid_change *c;

	if (d->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 8;

		c = realloc(d->v, ncap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		d->v = c;
		*cap = ncap;
	}
	c = &d->v[d->n++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	if (old)
		c->old = *old;
	if (cur)
		c->cur = *cur;
	return 0;
}

int rd_gid_table_diff(const struct rd_gid_table *old, const struct rd_gid_table *cur,
		      struct rd_gid_diff *d)
{
	size_t i = 0, j = 0, cap = 0;
	int ret = 0;

	d->v = NULL;
	d->n = 0;
	/* Both tables are in index order: one merge pass. */
	while (!ret && (i < old->n || j < cur->n)) {
		const struct rd_gid *a = i < old->n ? &old->v[i] : NULL;
		const struct rd_gid *b = j < cur->n ? &cur->v[j] : NULL;

		if (a && (!b || a->index < b->index)) {
			ret = diff_add(d, &cap, RD_GID_REMOVED, a, NULL);
			i++;
		} else if (b && (!a || b->index < a->index)) {
			ret = diff_add(d, &cap, RD_GID_ADDED, NULL, b);
			j++;
		} else {
			assert(a && b);	/* the same index on both sides */
			if (!gid_same(a, b))
				ret = diff_add(d, &cap, RD_GID_CHANGED, a, b);
			i++;
			j++;
		}
	}
	if (ret)
		rd_gid_diff_free(d);
	return ret;
}

void rd_gid_diff_free(struct rd_gid_diff *d)
{
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

/* ---- uevents ---- */

static void last_component(const char *path, char *out, size_t len)
{
	const char *s = strrchr(path, '/');

	rd_strlcpy(out, s ? s + 1 : path, len);
}

int rd_uevent_parse(const void *buf, size_t len, struct rd_uevent *ev)
{
	const char *p = buf, *end = p + len, *at;
	size_t hl;
	bool has_action = false, has_path = false;

	memset(ev, 0, sizeof(*ev));
	if (!len || len > 1 << 16)
		return -EINVAL;
	/* The header "ACTION@DEVPATH" must be a NUL-terminated string in the buffer. */
	hl = strnlen(p, len);
	if (hl == len)
		return -EINVAL;
	at = memchr(p, '@', hl);
	if (!at || at == p)
		return -EINVAL;
	for (p += hl + 1; p < end;) {
		size_t l = strnlen(p, (size_t)(end - p));
		const char *v = memchr(p, '=', l);

		if (v) {
			size_t kl = (size_t)(v - p);
			char val[256];

			v++;
			/* Longer values than we keep are cut; none we use is that long. */
			snprintf(val, sizeof(val), "%.*s", (int)(l - kl - 1), v);
			if (kl == 6 && memcmp(p, "ACTION", 6) == 0) {
				rd_strlcpy(ev->action, val, sizeof(ev->action));
				has_action = true;
			} else if (kl == 9 && memcmp(p, "SUBSYSTEM", 9) == 0) {
				rd_strlcpy(ev->subsystem, val, sizeof(ev->subsystem));
			} else if (kl == 7 && memcmp(p, "DEVPATH", 7) == 0) {
				rd_strlcpy(ev->devpath, val, sizeof(ev->devpath));
				last_component(val, ev->kname, sizeof(ev->kname));
				has_path = true;
			} else if (kl == 11 && memcmp(p, "DEVPATH_OLD", 11) == 0) {
				last_component(val, ev->old_kname, sizeof(ev->old_kname));
			}
		}
		p += l + 1;
	}
	if (!has_action || !has_path || !ev->kname[0])
		return -EINVAL;
	return 0;
}

/* ---- the event record ---- */

const char *rd_ev_source_name(enum rd_ev_source s)
{
	switch (s) {
	case RD_EVSRC_ASYNC:
		return "async";
	case RD_EVSRC_LINK:
		return "link";
	case RD_EVSRC_GID:
		return "gid";
	case RD_EVSRC_DEVICE:
		return "device";
	case RD_EVSRC_STATE:
		return "state";
	}
	return "?";
}

bool rd_ev_link_up(const struct rd_ev_link *l)
{
	if (!l->known)
		return false;
	return rd_netdev_state_up(l->operstate, l->carrier);
}

const char *rd_ev_link_why_down(const struct rd_ev_link *l, char *buf, size_t len)
{
	if (!l->known)
		return "not visible";
	if (l->admin_up == 0)
		return "administratively down";
	if (l->carrier == 0)
		return "no carrier";
	snprintf(buf, len, "operstate %s", l->operstate[0] ? l->operstate : "unknown");
	return buf;
}

static void ev_init(struct rd_event *ev, enum rd_ev_source src, const char *dev, unsigned int port,
		    const char *name)
{
	memset(ev, 0, sizeof(*ev));
	clock_gettime(CLOCK_REALTIME, &ev->time);
	ev->source = src;
	rd_strlcpy(ev->dev, dev, sizeof(ev->dev));
	ev->port = port;
	rd_strlcpy(ev->name, name, sizeof(ev->name));
	ev->async_type = -1;
	ev->gid.vlan = ev->old_gid.vlan = -1;
}

void rd_event_async(struct rd_event *ev, const char *dev, int type, unsigned int port)
{
	const char *name = rd_async_event_name(type);
	char unknown[24];

	if (!name) {
		snprintf(unknown, sizeof(unknown), "EVENT_%d", type);
		name = unknown;
	}
	ev_init(ev, RD_EVSRC_ASYNC, dev, rd_async_event_scope(type) == RD_ASYNC_PORT ? port : 0, name);
	ev->async_type = type;
	ev->severity = rd_async_event_name(type) ? async_severity(type) : RD_SEV_WARN;
	rd_strlcpy(ev->text, rd_async_event_meaning(type) ? rd_async_event_meaning(type)
							  : "event unknown to this version",
		   sizeof(ev->text));
}

void rd_event_device(struct rd_event *ev, const char *dev, const char *name,
		     enum rd_ev_severity sev)
{
	ev_init(ev, RD_EVSRC_DEVICE, dev, 0, name);
	ev->severity = sev;
}

/* "::ffff:10.10.0.9 v2 eth0.100 vlan 100" */
static void gid_words(const struct rd_gid *g, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];
	const char *ver = rd_gid_ver_name(g->ver);
	int n;

	/* The IPv6 form for every GID: ::ffff:a.b.c.d shows what it maps. */
	inet_ntop(AF_INET6, g->raw, addr, sizeof(addr));
	n = snprintf(buf, len, "%s %s", addr, ver ? ver : "-");
	if (n > 0 && (size_t)n < len && g->ndev[0])
		n += snprintf(buf + n, len - (size_t)n, " %s", g->ndev);
	if (n > 0 && (size_t)n < len && g->vlan >= 0)
		snprintf(buf + n, len - (size_t)n, " vlan %d", g->vlan);
}

void rd_event_gid(struct rd_event *ev, const char *dev, unsigned int port,
		  const struct rd_gid_change *c)
{
	char now[112], was[112];

	switch (c->kind) {
	case RD_GID_ADDED:
		ev_init(ev, RD_EVSRC_GID, dev, port, "GID_ADD");
		ev->gid = c->cur;
		gid_words(&c->cur, now, sizeof(now));
		snprintf(ev->text, sizeof(ev->text), "index %u %s", c->cur.index, now);
		break;
	case RD_GID_REMOVED:
		ev_init(ev, RD_EVSRC_GID, dev, port, "GID_DEL");
		ev->gid = c->old;
		gid_words(&c->old, was, sizeof(was));
		snprintf(ev->text, sizeof(ev->text), "index %u %s", c->old.index, was);
		break;
	case RD_GID_CHANGED:
		ev_init(ev, RD_EVSRC_GID, dev, port, "GID_MOD");
		ev->gid = c->cur;
		ev->old_gid = c->old;
		gid_words(&c->cur, now, sizeof(now));
		gid_words(&c->old, was, sizeof(was));
		snprintf(ev->text, sizeof(ev->text), "index %u %s (was %s)", c->cur.index, now, was);
		break;
	}
	ev->severity = RD_SEV_INFO;
}

void rd_event_gid_moved(struct rd_event *ev, const char *dev, unsigned int port,
			const struct rd_gid *g, unsigned int old_index)
{
	char now[112];

	ev_init(ev, RD_EVSRC_GID, dev, port, "GID_MOVED");
	ev->gid = *g;
	gid_words(g, now, sizeof(now));
	snprintf(ev->text, sizeof(ev->text),
		 "index %u %s, was index %u: a job pinned to GID index %u now uses another address",
		 g->index, now, old_index, old_index);
	ev->severity = RD_SEV_WARN;
}

static bool same_gid(const struct rd_gid *a, const struct rd_gid *b)
{
	return memcmp(a->raw, b->raw, sizeof(a->raw)) == 0 && a->ver == b->ver &&
	       strcmp(a->ndev, b->ndev) == 0;
}

int rd_gid_memo_update(struct rd_gid_memo *m, const struct rd_gid_table *cur,
		       void (*moved)(void *ctx, const struct rd_gid *g, unsigned int old_index),
		       void *ctx)
{
	for (size_t i = 0; i < cur->n; i++) {
		const struct rd_gid *g = &cur->v[i];
		size_t k = 0;

		while (k < m->n && !same_gid(&m->v[k], g))
			k++;
		if (k < m->n) {
			if (m->v[k].index != g->index && moved)
				moved(ctx, g, m->v[k].index);
			m->v[k].index = g->index;
			continue;
		}
		if (m->n == m->cap) {
			size_t ncap = m->cap ? m->cap * 2 : 16;
			struct rd_gid *v = realloc(m->v, ncap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			m->v = v;
			m->cap = ncap;
		}
		m->v[m->n++] = *g;
	}
	return 0;
}

void rd_gid_memo_free(struct rd_gid_memo *m)
{
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
}

void rd_event_link(struct rd_event *ev, const char *dev, unsigned int port, const char *name,
		   const struct rd_ev_link *l)
{
	char why[48];

	ev_init(ev, RD_EVSRC_LINK, dev, port, name);
	ev->link = *l;
	if (strcmp(name, "LINK_UP") == 0) {
		ev->severity = RD_SEV_GOOD;
		snprintf(ev->text, sizeof(ev->text), "%s up", l->netdev);
	} else if (strcmp(name, "LINK_DOWN") == 0) {
		ev->severity = RD_SEV_BAD;
		snprintf(ev->text, sizeof(ev->text), "%s down (%s)", l->netdev,
			 rd_ev_link_why_down(l, why, sizeof(why)));
	} else if (strcmp(name, "LINK_MTU") == 0) {
		ev->severity = RD_SEV_WARN;
		snprintf(ev->text, sizeof(ev->text), "%s mtu %u -> %u", l->netdev, l->old_mtu, l->mtu);
	} else if (strcmp(name, "LINK_RENAME") == 0) {
		ev->severity = RD_SEV_WARN;
		snprintf(ev->text, sizeof(ev->text), "%s renamed to %s", l->old_netdev, l->netdev);
	} else {
		ev->severity = RD_SEV_BAD;
		snprintf(ev->text, sizeof(ev->text), "%s removed", l->netdev);
	}
}

void rd_event_port_state(struct rd_event *ev, const struct rd_device *dev,
			 const struct rd_port *port, const struct rd_ev_link *l)
{
	const char *st = NULL, *ph = NULL;
	char why[48];
	int n;

	ev_init(ev, RD_EVSRC_STATE, dev->name, port->num, "STATE");
	ev->link = *l;
	if (port->known & RD_PORT_STATE) {
		ev->has_state = true;
		ev->state = port->state;
		st = rd_port_state_name(port->state);
	}
	if (port->known & RD_PORT_PHYS_STATE) {
		ev->has_phys_state = true;
		ev->phys_state = port->phys_state;
		ph = rd_phys_state_name(port->phys_state);
	}
	if (port->known & RD_PORT_LINK_LAYER)
		ev->link_layer = rd_link_layer_name(port->link_layer);
	ev->severity = ev->has_state && port->state == 4 ? RD_SEV_GOOD : RD_SEV_BAD;
	/* "ACTIVE LinkUp Ethernet, eth0 up mtu 1500" */
	n = snprintf(ev->text, sizeof(ev->text), "%s %s %s", st ? st : "-", ph ? ph : "-",
		     ev->link_layer ? ev->link_layer : "-");
	if (n <= 0 || (size_t)n >= sizeof(ev->text))
		return;
	if (!l->netdev[0])
		snprintf(ev->text + n, sizeof(ev->text) - (size_t)n, ", no netdev");
	else if (!l->known)
		snprintf(ev->text + n, sizeof(ev->text) - (size_t)n, ", %s not visible here",
			 l->netdev);
	else if (!l->operstate[0] && l->carrier < 0)
		snprintf(ev->text + n, sizeof(ev->text) - (size_t)n, ", %s state unknown mtu %u",
			 l->netdev, l->mtu);
	else if (rd_ev_link_up(l))
		snprintf(ev->text + n, sizeof(ev->text) - (size_t)n, ", %s up mtu %u", l->netdev,
			 l->mtu);
	else
		snprintf(ev->text + n, sizeof(ev->text) - (size_t)n, ", %s down (%s) mtu %u",
			 l->netdev, rd_ev_link_why_down(l, why, sizeof(why)), l->mtu);
}

void rd_ev_link_from_sysfs(const struct rd_sysroot *sr, const char *ifname, struct rd_ev_link *l)
{
	uint64_t v;

	rd_strlcpy(l->netdev, ifname, sizeof(l->netdev));
	l->known = false;
	l->carrier = l->admin_up = -1;
	if (!ifname[0] || strchr(ifname, '/') || strcmp(ifname, ".") == 0 || strcmp(ifname, "..") == 0)
		return;
	l->oper_err = rd_sys_read_str(sr, l->operstate, sizeof(l->operstate), "/sys/class/net/%s/operstate",
				      ifname);
	if (l->oper_err) {
		l->operstate[0] = '\0';
		/* Not there: not visible here.  There but unreadable: its state is unknown. */
		if (rd_sys_check_dir(sr, "/sys/class/net/%s", ifname))
			return;
	}
	l->known = true;
	/* carrier cannot be read while the netdev is administratively down (EINVAL). */
	if (rd_sys_read_u64(sr, &v, "/sys/class/net/%s/carrier", ifname) == 0)
		l->carrier = v != 0;
	if (rd_sys_read_hex(sr, &v, "/sys/class/net/%s/flags", ifname) == 0)
		l->admin_up = (v & IFF_UP) != 0;
	if (rd_sys_read_u64(sr, &v, "/sys/class/net/%s/mtu", ifname) == 0 && v <= UINT32_MAX)
		l->mtu = (unsigned int)v;
	if (rd_sys_read_u64(sr, &v, "/sys/class/net/%s/ifindex", ifname) == 0 && v <= INT32_MAX)
		l->ifindex = (int)v;
}

void rd_ev_format_time(const struct timespec *ts, bool utc, char buf[40])
{
	rd_format_time(ts, utc, buf);
}

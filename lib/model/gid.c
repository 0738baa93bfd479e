// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "gid.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netdev.h"
#include "base/base.h"

bool rd_gid_is_zero(const uint8_t g[16])
{
	for (int i = 0; i < 16; i++)
		if (g[i])
			return false;
	return true;
}

bool rd_gid_is_v4mapped(const uint8_t g[16])
{
	for (int i = 0; i < 10; i++)
		if (g[i])
			return false;
	return g[10] == 0xff && g[11] == 0xff;
}

bool rd_gid_is_link_local(const uint8_t g[16])
{
	return g[0] == 0xfe && (g[1] & 0xc0) == 0x80;
}

void rd_gid_format(const uint8_t g[16], char buf[40])
{
	static const char hex[] = "0123456789abcdef";
	char *p = buf;

	/* Eight groups of four hex digits, as sysfs shows a GID (a table prints thousands). */
	for (int i = 0; i < 16; i++) {
		*p++ = hex[g[i] >> 4];
		*p++ = hex[g[i] & 0xf];
		if (i & 1)
			*p++ = i == 15 ? '\0' : ':';
	}
}

static char *put_dec8(char *p, unsigned int v)
{
	if (v >= 100)
		*p++ = (char)('0' + v / 100);
	if (v >= 10)
		*p++ = (char)('0' + v / 10 % 10);
	*p++ = (char)('0' + v % 10);
	return p;
}

/*
 * An IPv6 address as inet_ntop writes it (RFC 5952: lower-case hex without
 * leading zeros, the first longest run of two or more zero groups as "::"),
 * without its sprintf per group.  The forms with an IPv4 address inside
 * (::a.b.c.d, ::ffff:a.b.c.d) are left to inet_ntop; tests/unit/test_gid.c
 * compares the two on many addresses.
 */
static void format_ipv6(const uint8_t g[16], char buf[48])
{
	static const char hex[] = "0123456789abcdef";
	unsigned int w[8];
	int best = -1, bestlen = 0;
	char *p = buf;

	for (size_t i = 0; i < 8; i++)
		w[i] = (unsigned int)g[2 * i] << 8 | g[2 * i + 1];
	if (!w[0] && !w[1] && !w[2] && !w[3] && !w[4] && (w[5] == 0 || w[5] == 0xffff)) {
		inet_ntop(AF_INET6, g, buf, 48);
		return;
	}
	for (int i = 0; i < 8;) {
		int j = i;

		while (j < 8 && w[j] == 0)
			j++;
		if (j - i > bestlen && j - i >= 2) {
			best = i;
			bestlen = j - i;
		}
		i = j > i ? j : i + 1;
	}
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			*p++ = ':';
			if (i + bestlen == 8)
				*p++ = ':';
			i += bestlen - 1;
			continue;
		}
		if (i)
			*p++ = ':';
		for (int shift = 12, lead = 1; shift >= 0; shift -= 4) {
			unsigned int d = (w[i] >> shift) & 0xf;

			if (d || !lead || shift == 0) {
				*p++ = hex[d];
				lead = 0;
			}
		}
	}
	*p = '\0';
}

void rd_gid_address(const uint8_t g[16], char buf[48], int *family)
{
	if (rd_gid_is_v4mapped(g)) {
		char *p = buf;

		for (int i = 12; i < 16; i++) {
			p = put_dec8(p, g[i]);
			*p++ = i == 15 ? '\0' : '.';
		}
		if (family)
			*family = AF_INET;
	} else {
		format_ipv6(g, buf);
		if (family)
			*family = AF_INET6;
	}
}

enum rd_gid_ver rd_gid_ver_from(const char *type, enum rd_link_layer ll, bool ll_known)
{
	/* On IB ports the kernel says "IB/RoCE v1" too: the link layer decides. */
	if (ll_known && ll == RD_LL_INFINIBAND)
		return RD_GID_VER_IB;
	if (!type || !*type)
		return RD_GID_VER_UNKNOWN;
	if (strcmp(type, "RoCE v2") == 0)
		return RD_GID_VER_V2;
	if (strcmp(type, "IB/RoCE v1") == 0 || strcmp(type, "RoCE v1") == 0)
		return (ll_known && ll == RD_LL_ETHERNET) ? RD_GID_VER_V1 : RD_GID_VER_UNKNOWN;
	return RD_GID_VER_UNKNOWN;
}

enum rd_gid_ver rd_port_gid_ver(const struct rd_device *dev, const struct rd_port *port,
				const char *type)
{
	if ((dev->known & RD_DEV_NODE_TYPE) && dev->node_type == 4)
		return RD_GID_VER_IWARP;
	return rd_gid_ver_from(type, port->link_layer, port->known & RD_PORT_LINK_LAYER);
}

const char *rd_gid_ver_name(enum rd_gid_ver v)
{
	switch (v) {
	case RD_GID_VER_IWARP:
		return "iWARP";
	case RD_GID_VER_IB:
		return "IB";
	case RD_GID_VER_V1:
		return "v1";
	case RD_GID_VER_V2:
		return "v2";
	default:
		return NULL;
	}
}

int rd_port_gid_table(const struct rd_sysroot *sr, const struct rd_device *dev,
		      const struct rd_port *port, bool include_empty, struct rd_gid_table *t,
		      struct rd_warnings *w)
{
	struct rd_vlan_map vlans = { 0 };
	int ret;

	(void)rd_vlan_map_read(sr, &vlans);
	ret = rd_port_gid_table_vlans(sr, dev, port, include_empty, &vlans, t, w);
	rd_vlan_map_free(&vlans);
	return ret;
}

/*
 * gid_attrs/{types,ndevs}/<slot> of a used GID.  A read the kernel fails
 * (EINVAL: ndevs on IB ports; a copy keeps no file then) leaves the field
 * empty, silently; anything else (a dangling link, binary data, a name too
 * long, a type nobody knows) leaves it empty with a warning.
 */
static void read_gid_attr(const struct rd_sysroot *sr, struct rd_warnings *w,
			  const struct rd_device *dev, const struct rd_port *port, const char *dir,
			  const char *what, const char *slot, unsigned int index, char *buf, size_t len)
{
	int ret = rd_sys_read_str(sr, buf, len, "%s/gid_attrs/%s/%s", dir, what, slot);
	char why[96];

	if (ret == 0 && strcmp(what, "types") == 0 && strcmp(buf, "IB/RoCE v1") != 0 &&
	    strcmp(buf, "RoCE v2") != 0 && strcmp(buf, "RoCE v1") != 0) {
		snprintf(why, sizeof(why), buf[0] ? "unknown GID type \"%.40s\"" : "empty file", buf);
		ret = -EPROTO;
	} else if (ret == 0 && !buf[0]) {
		snprintf(why, sizeof(why), "empty file");
		ret = -EPROTO;
	} else if (ret) {
		snprintf(why, sizeof(why), "%s", rd_read_strerror(ret));
	}
	if (ret == 0)
		return;
	buf[0] = '\0';
	if (ret != -ENOENT && ret != -EINVAL) {
		char where[RD_PATH_MAX];	/* the file read, under --sysroot too */

		rd_sys_resolve(sr, where, sizeof(where), dir);
		rd_warn(w, "%s port %u: GID %u: gid_attrs/%s: %s (%s/gid_attrs/%s/%s)", dev->name,
			port->num, index, what, why, where, what, slot);
	}
}

int rd_port_gid_table_vlans(const struct rd_sysroot *sr, const struct rd_device *dev,
			    const struct rd_port *port, bool include_empty,
			    const struct rd_vlan_map *vlans, struct rd_gid_table *t,
			    struct rd_warnings *w)
{
	struct rd_strlist slots = { 0 };
	char dir[RD_PATH_MAX], where[RD_PATH_MAX];
	size_t cap = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports/%u", dev->name, port->num);
	rd_sys_resolve(sr, where, sizeof(where), dir);	/* warnings name the file read */
	ret = rd_sys_list(sr, &slots, "%s/gids", dir);
	if (ret) {
		rd_warn(w, "%s port %u: cannot list GIDs: %s (%s/gids)", dev->name, port->num,
			rd_read_strerror(ret), where);
		return ret;
	}

	for (size_t i = 0; i < slots.n; i++) {
		struct rd_gid g = { .vlan = -1 };
		uint64_t idx;

		if (rd_parse_u64(slots.v[i], &idx) || idx > 0xffffff) {
			rd_warn(w, "%s port %u: \"%.40s\" is not a GID index; skipped (%s/gids)",
				dev->name, port->num, slots.v[i], where);
			continue;
		}
		t->slots++;
		g.index = (unsigned int)idx;
		ret = rd_sys_read_gid(sr, g.raw, "%s/gids/%s", dir, slots.v[i]);
		if (ret) {
			rd_warn(w, "%s port %u: GID %u: %s; skipped (%s/gids/%s)", dev->name,
				port->num, g.index, rd_read_strerror(ret), where, slots.v[i]);
			continue;
		}
		if (rd_gid_is_zero(g.raw) && !include_empty)
			continue;
		if (!rd_gid_is_zero(g.raw)) {
			read_gid_attr(sr, w, dev, port, dir, "types", slots.v[i], g.index, g.type,
				      sizeof(g.type));
			read_gid_attr(sr, w, dev, port, dir, "ndevs", slots.v[i], g.index, g.ndev,
				      sizeof(g.ndev));
			g.ver = rd_port_gid_ver(dev, port, g.type);
			if (g.ndev[0])
				g.vlan = rd_vlan_map_lookup(vlans, g.ndev);
		}
		if (t->n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct rd_gid *v = realloc(t->v, ncap * sizeof(*v));

			if (!v) {
				ret = -ENOMEM;
				goto out;
			}
			t->v = v;
			cap = ncap;
		}
		t->v[t->n++] = g;
	}
	ret = 0;
out:
	rd_strlist_free(&slots);
	if (ret)
		rd_gid_table_free(t);
	return ret;
}

const char *rd_gid_table_ndev(const struct rd_gid_table *t, unsigned int index)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].index == index)
			return rd_gid_is_zero(t->v[i].raw) ? NULL : t->v[i].ndev;
	return NULL;
}

void rd_gid_table_free(struct rd_gid_table *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->slots = 0;
}

/* Does g's VLAN fit the wanted one?  1 yes, 0 no, -1 cannot tell. */
static int vlan_fits(const struct rd_gid *g, int vlan)
{
	if (vlan == RD_GID_VLAN_ANY)
		return 1;
	if (g->vlan == RD_VLAN_CANNOT_TELL)
		return -1;
	if (vlan < 0)
		return g->vlan == -1;
	if (g->vlan == RD_VLAN_TAGGED)
		return -1;
	return g->vlan == vlan;
}

/* Higher is better; -1 disqualifies.  The VLAN is checked apart (vlan_fits). */
static int gid_score(const struct rd_gid *g)
{
	int s = 0;

	if (rd_gid_is_zero(g->raw))
		return -1;
	if (g->ver == RD_GID_VER_V2)
		s += 100;
	else if (g->ver != RD_GID_VER_V1)
		return -1;
	if (rd_gid_is_v4mapped(g->raw))
		s += 20;
	else if (!rd_gid_is_link_local(g->raw))
		s += 10;
	return s;
}

const struct rd_gid *rd_gid_best(const struct rd_gid_table *t, const struct rd_port *port,
				 int vlan, rd_netdev_up_fn up, void *up_ctx, char *reason,
				 size_t reason_len, char *why, size_t why_len)
{
	const struct rd_gid *best = NULL, *unsure = NULL;
	int best_score = -1, unsure_score = -1;
	bool any = false, any_roce = false, any_vlan = false;
	char addr[48];

	reason[0] = why[0] = '\0';
	bool ib = (port->known & RD_PORT_LINK_LAYER) && port->link_layer == RD_LL_INFINIBAND;
	bool iwarp = t->n && t->v[0].ver == RD_GID_VER_IWARP;

	if (ib || iwarp) {
		for (size_t i = 0; i < t->n; i++) {
			if (!rd_gid_is_zero(t->v[i].raw)) {
				snprintf(reason, reason_len, ib ? "InfiniBand, port GID" :
					 "iWARP, the port's only GID");
				return &t->v[i];
			}
		}
		snprintf(why, why_len, "the GID table is empty");
		return NULL;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct rd_gid *g = &t->v[i];
		int s;

		if (rd_gid_is_zero(g->raw))
			continue;
		any = true;
		if (g->ver == RD_GID_VER_V1 || g->ver == RD_GID_VER_V2)
			any_roce = true;
		s = gid_score(g);
		if (s < 0)
			continue;
		int fits = vlan_fits(g, vlan);

		if (fits == 0)
			continue;
		if (fits > 0)
			any_vlan = true;
		if (up && g->ndev[0] && !up(up_ctx, g->ndev))
			continue;
		if (fits < 0) {
			if (s > unsure_score) {
				unsure = g;
				unsure_score = s;
			}
		} else if (s > best_score) {	/* strict: ties keep the lower index */
			best = g;
			best_score = s;
		}
	}
	if (unsure && unsure_score > best_score) {
		/* A GID of unknown tagging would win: no recommendation on a guess. */
		snprintf(why, why_len, "cannot tell whether %s is %s (no VLAN facts in this copy: add "
			 "proc/net/vlan/config, or name the netdev with -n)", unsure->ndev,
			 vlan >= 0 ? "on that VLAN" : "a VLAN netdev");
		return NULL;
	}
	if (!best) {
		if (!any)
			snprintf(why, why_len, "no GID configured; does the netdev have an IP address?");
		else if (!any_roce)
			snprintf(why, why_len, "no GID has a readable RoCE type in gid_attrs/types");
		else if (!any_vlan && vlan >= 0)
			snprintf(why, why_len, "no RoCE GID on VLAN %d", vlan);
		else if (!any_vlan)
			snprintf(why, why_len, "no untagged RoCE GID; use --vlan N to choose on a VLAN");
		else	/* !any_up: everything else was ruled out above */
			snprintf(why, why_len, "the netdevs of every candidate GID are down");
		return NULL;
	}
	rd_gid_address(best->raw, addr, NULL);
	/*
	 * Only a link-local GID left: usable, to peers on this L2 segment that
	 * address it by that GID (no routing, no IPv4 rdma_cm).  rdma-doctor's
	 * roce.gid WARNs with the same words.
	 */
	snprintf(reason, reason_len, "RoCE %s, %s%s%s%s%s", best->ver == RD_GID_VER_V2 ? "v2" : "v1",
		 rd_gid_is_link_local(best->raw) ? "link-local " : "", addr,
		 best->ndev[0] ? " on " : "", best->ndev,
		 rd_gid_is_link_local(best->raw) ? "; link-local only: this L2 segment, no routing" : "");
	return best;
}

void rd_gid_netns_init(struct rd_gid_netns *u, struct rd_netdev_cache *netdevs)
{
	memset(u, 0, sizeof(*u));
	u->netdevs = netdevs;
}

bool rd_gid_netdev_usable(void *ctx, const char *ifname)
{
	struct rd_gid_netns *u = ctx;

	u->checked++;
	if (rd_netdev_elsewhere(u->netdevs, ifname)) {
		if (!u->elsewhere++)
			rd_strlcpy(u->elsewhere_name, ifname, sizeof(u->elsewhere_name));
		return false;
	}
	return rd_netdev_is_up(u->netdevs, ifname);
}

bool rd_gid_netns_why(const struct rd_gid_netns *u, char *why, size_t why_len)
{
	if (!u->checked || u->elsewhere != u->checked)
		return false;
	snprintf(why, why_len, "no usable GID in this network namespace (the GIDs' netdevs, e.g. "
		 "%.40s, are in another one)", u->elsewhere_name);
	return true;
}

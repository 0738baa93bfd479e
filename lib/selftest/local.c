// SPDX-License-Identifier: MIT
/* The local side of a test: port, GID, device context, exchange endpoint (local.h). */
#define _GNU_SOURCE
#include "local.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"

/*
 * Live, GID tables come from each device's one ibv_query_gid_table() call:
 * sysfs has a file per slot, used or not (soft-RoCE has 1 024), and a server
 * looks a GID up for every client.  Under a --sysroot tree: sysfs.
 */
static struct rd_gid_live *gids_open(const struct rd_sysroot *sr, struct rd_vlan_map *vlans)
{
	memset(vlans, 0, sizeof(*vlans));
	(void)rd_vlan_map_read(sr, vlans);
	return rd_gid_live_open(sr);
}

static void gids_close(struct rd_gid_live *live, struct rd_vlan_map *vlans)
{
	rd_gid_live_close(live);
	rd_vlan_map_free(vlans);
}

int rd_st_pick_gid(const struct rd_sysroot *sr, const struct rd_device *d, const struct rd_port *p,
		   int want, struct rd_st_local *lp)
{
	struct rd_gid_table t;
	const struct rd_gid *g = NULL;
	struct rd_gid_live *live;
	struct rd_vlan_map vlans;
	int ret;

	memset(lp, 0, sizeof(*lp));
	lp->gid_index = -1;
	rd_strlcpy(lp->dev, d->name, sizeof(lp->dev));
	lp->port = (uint8_t)p->num;
	lp->ib = (p->known & RD_PORT_LINK_LAYER) && p->link_layer == RD_LL_INFINIBAND;
	live = gids_open(sr, &vlans);
	ret = rd_gid_port_table(live, sr, d, p, false, &vlans, &t, NULL);
	gids_close(live, &vlans);
	if (ret) {
		snprintf(lp->why, sizeof(lp->why), "cannot read the GID table");
		return -ENOENT;
	}
	if (want >= 0) {
		for (size_t i = 0; i < t.n; i++)
			if ((int)t.v[i].index == want)
				g = &t.v[i];
		if (!g)
			snprintf(lp->why, sizeof(lp->why), "GID index %d is empty (see rdma-gids)", want);
	} else {
		struct rd_netdev_cache netdevs;
		struct rd_gid_netns uc;
		char reason[160];

		/* The choice rdma-gids --best and rdma-doctor make, so that they agree. */
		rd_netdev_cache_init(&netdevs, sr);
		rd_gid_netns_init(&uc, &netdevs);
		g = rd_gid_best(&t, p, -1, rd_gid_netdev_usable, &uc, reason, sizeof(reason), lp->why,
				sizeof(lp->why));
		if (!g)
			(void)rd_gid_netns_why(&uc, lp->why, sizeof(lp->why));
		rd_netdev_cache_free(&netdevs);
	}
	if (g) {
		lp->gid_index = (int)g->index;
		lp->ver = g->ver;
		memcpy(lp->raw, g->raw, sizeof(lp->raw));
		rd_gid_address(g->raw, lp->addr, NULL);
	}
	rd_gid_table_free(&t);
	return g ? 0 : -ENOENT;
}

const char *rd_st_port_unusable(const struct rd_device *d, unsigned int port, char *why,
				size_t why_len)
{
	const struct rd_port *p = NULL;

	for (unsigned int j = 0; j < d->nports; j++)
		if (port ? d->ports[j].num == port : d->ports[j].state == 4) {
			p = &d->ports[j];
			break;
		}
	if (p && p->state == 4)
		return NULL;
	if (p) {
		const char *st = rd_port_state_name(p->state);

		snprintf(why, why_len, "%s port %u is %s", d->name, p->num, st ? st : "not ACTIVE");
	} else if (port) {
		snprintf(why, why_len, "%s has no port %u", d->name, port);
	} else if (d->nports == 1) {
		const char *st = rd_port_state_name(d->ports[0].state);

		snprintf(why, why_len, "%s port %u is %s", d->name, d->ports[0].num,
			 st ? st : "not ACTIVE");
	} else {
		snprintf(why, why_len, "%s has no ACTIVE port", d->name);
	}
	return why;
}

int rd_st_port_named(const struct rd_device_list *list, const struct rd_sysroot *sr,
		     const char *dev, unsigned int port, int gid_index, struct rd_st_local *lp,
		     char *why, size_t why_len)
{
	const struct rd_device *d = NULL;
	unsigned int j;
	size_t at;

	for (unsigned int i = 0; i < list->n && !d; i++)
		if (strcmp(list->v[i].name, dev) == 0)
			d = &list->v[i];
	if (!d) {
		at = (size_t)snprintf(why, why_len, "no device %s here (%s", dev,
				      list->n ? "it has " : "it has no RDMA device");
		for (unsigned int i = 0; i < list->n && at < why_len; i++)
			at += (size_t)snprintf(why + at, why_len - at, "%s%s", i ? ", " : "",
					       list->v[i].name);
		if (at < why_len)
			snprintf(why + at, why_len - at, ")");
		return -ENODEV;
	}
	if (rd_st_port_unusable(d, port, why, why_len)) {
		at = strlen(why);
		if (at < why_len)
			snprintf(why + at, why_len - at, " here");
		return -ENETDOWN;
	}
	for (j = 0; j < d->nports; j++)
		if (port ? d->ports[j].num == port : d->ports[j].state == 4)
			break;
	if (rd_st_pick_gid(sr, d, &d->ports[j], gid_index, lp)) {
		snprintf(why, why_len, "%s port %u: no usable GID here", d->name, d->ports[j].num);
		return -ENOENT;
	}
	return 0;
}

int rd_st_port_for_addr(const struct sockaddr_storage *ss, const struct rd_device_list *list,
			const struct rd_sysroot *sr, struct rd_st_local *lp)
{
	uint8_t want[16] = { 0 };
	struct rd_gid_live *live;
	struct rd_vlan_map vlans;
	int ret = -ENOENT;

	if (ss->ss_family == AF_INET) {
		want[10] = want[11] = 0xff;
		memcpy(want + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		memcpy(want, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
	} else {
		return -EAFNOSUPPORT;
	}
	live = gids_open(sr, &vlans);
	for (unsigned int i = 0; i < list->n && ret; i++) {
		for (unsigned int j = 0; j < list->v[i].nports && ret; j++) {
			struct rd_gid_table t;
			const struct rd_gid *best = NULL;

			if (rd_gid_port_table(live, sr, &list->v[i], &list->v[i].ports[j], false, &vlans,
					      &t, NULL))
				continue;
			for (size_t k = 0; k < t.n; k++)
				if (memcmp(t.v[k].raw, want, 16) == 0 &&
				    (!best || t.v[k].ver == RD_GID_VER_V2))
					best = &t.v[k];
			if (best) {
				memset(lp, 0, sizeof(*lp));
				rd_strlcpy(lp->dev, list->v[i].name, sizeof(lp->dev));
				lp->port = (uint8_t)list->v[i].ports[j].num;
				lp->gid_index = (int)best->index;
				lp->ver = best->ver;
				memcpy(lp->raw, best->raw, sizeof(lp->raw));
				rd_gid_address(best->raw, lp->addr, NULL);
				ret = 0;
			}
			rd_gid_table_free(&t);
		}
	}
	gids_close(live, &vlans);
	return ret;
}

enum rd_gid_kind rd_st_gid_kind(const struct rd_st_local *lp)
{
	switch (lp->ver) {
	case RD_GID_VER_V1:
		return RD_GK_ROCE_V1;
	case RD_GID_VER_V2:
		return RD_GK_ROCE_V2;
	case RD_GID_VER_IB:
		return RD_GK_IB;
	default:
		return RD_GK_NONE;
	}
}

const char *rd_st_kind_name(unsigned int kind)
{
	static const char *const n[] = { "none", "IB", "RoCE v1", "RoCE v2" };

	return kind < 4 ? n[kind] : "?";
}

const char *rd_st_gid_family(const uint8_t gid[16])
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(gid, v4mapped, sizeof(v4mapped)) == 0 ? "IPv4" : "IPv6";
}

const char *rd_st_gid_mismatch(unsigned int kind, const uint8_t gid[16], const struct rd_st_local *lp,
			       char *buf, size_t len)
{
	unsigned int ours = rd_st_gid_kind(lp);

	if (kind != ours) {
		snprintf(buf, len, "GID type mismatch: client %s, server %s (GID %d)",
			 rd_st_kind_name(kind), rd_st_kind_name(ours), lp->gid_index);
		return buf;
	}
	/* RoCE v2 puts an IPv4 or an IPv6 header on the wire, by the GID's family. */
	if (ours == RD_GK_ROCE_V2 && strcmp(rd_st_gid_family(gid), rd_st_gid_family(lp->raw)) != 0) {
		snprintf(buf, len, "GID family mismatch: client %s, server %s (GID %d)",
			 rd_st_gid_family(gid), rd_st_gid_family(lp->raw), lp->gid_index);
		return buf;
	}
	return NULL;
}

struct ibv_context *rd_st_open_device(const char *name, char *why, size_t why_len)
{
	struct ibv_device **l;
	struct ibv_context *ctx = NULL;
	int n = 0;

	l = ibv_get_device_list(&n);
	if (!l) {
		snprintf(why, why_len, "libibverbs: %s", strerror(errno));
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(l[i]), name) == 0) {
			ctx = ibv_open_device(l[i]);
			if (!ctx)
				snprintf(why, why_len, "cannot open %s: %s", name, strerror(errno));
		}
	}
	if (!ctx && !why[0])
		snprintf(why, why_len, "%s has no userspace verbs provider (ibverbs-providers?)", name);
	ibv_free_device_list(l);
	return ctx;
}

void rd_st_hello(struct rd_oob_msg *m, int type, const struct rd_rc_endpoint *ep,
		 const struct rd_st_local *lp, const struct rd_st_params *prm)
{
	memset(m, 0, sizeof(*m));
	/* RC in version 2 (every server since it serves it); UD needs 3; a named device 4. */
	m->version = ep->qkey ? RD_OOB_VERSION_UD : RD_OOB_VERSION_RC;
	m->qp_type = ep->qkey ? RD_OOB_QP_UD : RD_OOB_QP_RC;
	m->qkey = ep->qkey;
	m->type = (uint16_t)type;
	m->qpn = ep->qpn;
	m->psn = ep->psn;
	m->lid = ep->lid;
	m->mtu = (uint8_t)ep->mtu;
	m->gid_kind = (uint8_t)rd_st_gid_kind(lp);
	memcpy(m->gid, ep->gid, 16);
	m->max_size = prm->max_size;
	m->window = prm->window;
	m->iters = prm->iters;
}

void rd_st_endpoint_from(const struct rd_oob_msg *m, struct rd_rc_endpoint *ep)
{
	memset(ep, 0, sizeof(*ep));
	ep->qpn = m->qpn;
	ep->psn = m->psn;
	ep->lid = m->lid;
	ep->mtu = (enum ibv_mtu)m->mtu;
	ep->qkey = m->qkey;
	memcpy(ep->gid, m->gid, 16);
	ep->use_grh = m->gid_kind != RD_GK_NONE && m->gid_kind != RD_GK_IB;
}

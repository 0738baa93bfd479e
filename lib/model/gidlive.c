// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "gidlive.h"

#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

struct ifname_cache {
	unsigned int ifindex;
	char name[IF_NAMESIZE];
	bool ok;
};

struct rd_gid_live {
	struct ibv_device **devs;
	int ndevs;
	char cur[64];			/* device whose entries are held */
	int cur_err;
	struct ibv_gid_entry *ent;
	size_t nent;
	struct ifname_cache *names;
	size_t nnames, capnames;
};

struct rd_gid_live *rd_gid_live_open(const struct rd_sysroot *sr)
{
	struct rd_gid_live *l;

	if (!rd_sysroot_is_live(sr))
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->devs = ibv_get_device_list(&l->ndevs);
	if (!l->devs || l->ndevs <= 0) {
		rd_gid_live_close(l);
		return NULL;
	}
	return l;
}

void rd_gid_live_close(struct rd_gid_live *l)
{
	if (!l)
		return;
	if (l->devs)
		ibv_free_device_list(l->devs);
	free(l->ent);
	free(l->names);
	free(l);
}

/* The device's whole table in one ibv_query_gid_table() call. */
static int load_device(struct rd_gid_live *l, const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device_attr da;
	size_t max = 0;
	ssize_t n;
	int ret = -ENODEV;

	free(l->ent);
	l->ent = NULL;
	l->nent = 0;
	rd_strlcpy(l->cur, name, sizeof(l->cur));
	for (int i = 0; i < l->ndevs; i++) {
		if (strcmp(ibv_get_device_name(l->devs[i]), name) == 0) {
			ctx = ibv_open_device(l->devs[i]);
			if (!ctx)
				ret = errno > 0 ? -errno : -EIO;
			break;
		}
	}
	if (!ctx)
		goto out;
	ret = 0;
	if (ibv_query_device(ctx, &da)) {
		ret = errno ? -errno : -EIO;
		goto out;
	}
	for (unsigned int p = 1; p <= da.phys_port_cnt; p++) {
		struct ibv_port_attr pa;

		if (ibv_query_port(ctx, (uint8_t)p, &pa)) {
			ret = errno ? -errno : -EIO;
			goto out;
		}
		max += (size_t)pa.gid_tbl_len;
	}
	l->ent = calloc(max ? max : 1, sizeof(*l->ent));
	if (!l->ent) {
		ret = -ENOMEM;
		goto out;
	}
	n = ibv_query_gid_table(ctx, l->ent, max, 0);
	if (n < 0) {
		ret = (int)n;	/* -EOPNOTSUPP without the uverbs ioctl */
		goto out;
	}
	l->nent = (size_t)n;
out:
	if (ctx)
		ibv_close_device(ctx);
	l->cur_err = ret;
	return ret;
}

/* if_indextoname() once per ifindex; false when it has no name in this netns. */
static bool ifname(struct rd_gid_live *l, unsigned int ifindex, char *buf, size_t len)
{
	struct ifname_cache *c = NULL;

	for (size_t i = 0; i < l->nnames; i++)
		if (l->names[i].ifindex == ifindex)
			c = &l->names[i];
	if (!c) {
		if (l->nnames == l->capnames) {
			size_t nc = l->capnames ? l->capnames * 2 : 8;
			struct ifname_cache *v = realloc(l->names, nc * sizeof(*v));

			if (!v)
				return false;
			l->names = v;
			l->capnames = nc;
		}
		c = &l->names[l->nnames++];
		c->ifindex = ifindex;
		c->ok = if_indextoname(ifindex, c->name) != NULL;
	}
	if (c->ok)
		rd_strlcpy(buf, c->name, len);
	return c->ok;
}

static int cmp_index(const void *a, const void *b)
{
	const struct rd_gid *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

int rd_gid_live_port(struct rd_gid_live *l, const struct rd_sysroot *sr,
		     const struct rd_device *dev, const struct rd_port *port,
		     const struct rd_vlan_map *vlans, struct rd_gid_table *t)
{
	size_t k = 0;

	memset(t, 0, sizeof(*t));
	if (strcmp(l->cur, dev->name) != 0)
		(void)load_device(l, dev->name);
	if (l->cur_err)
		return l->cur_err;
	t->v = calloc(l->nent ? l->nent : 1, sizeof(*t->v));
	if (!t->v)
		return -ENOMEM;
	for (size_t i = 0; i < l->nent; i++) {
		const struct ibv_gid_entry *e = &l->ent[i];
		struct rd_gid *g;

		if (e->port_num != port->num)
			continue;
		g = &t->v[k];
		memset(g, 0, sizeof(*g));
		g->vlan = -1;
		g->index = e->gid_index;
		memcpy(g->raw, e->gid.raw, 16);
		if (rd_gid_is_zero(g->raw))
			continue;
		/* The strings gid_attrs/types holds (ib_cache_gid_type_str()). */
		rd_strlcpy(g->type, e->gid_type == IBV_GID_TYPE_ROCE_V2 ? "RoCE v2" : "IB/RoCE v1",
			   sizeof(g->type));
		if (e->ndev_ifindex && !ifname(l, e->ndev_ifindex, g->ndev, sizeof(g->ndev)) &&
		    rd_sys_read_str(sr, g->ndev, sizeof(g->ndev),
				    "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/%u",
				    dev->name, port->num, g->index))
			g->ndev[0] = '\0';
		g->ver = rd_port_gid_ver(dev, port, g->type);
		if (g->ndev[0])
			g->vlan = rd_vlan_map_lookup(vlans, g->ndev);
		k++;
	}
	t->n = t->slots = k;
	qsort(t->v, t->n, sizeof(*t->v), cmp_index);
	return 0;
}

int rd_gid_port_table(struct rd_gid_live *l, const struct rd_sysroot *sr,
		      const struct rd_device *dev, const struct rd_port *port, bool include_empty,
		      const struct rd_vlan_map *vlans, struct rd_gid_table *t,
		      struct rd_warnings *w)
{
	if (l && !include_empty && rd_gid_live_port(l, sr, dev, port, vlans, t) == 0)
		return 0;
	return rd_port_gid_table_vlans(sr, dev, port, include_empty, vlans, t, w);
}

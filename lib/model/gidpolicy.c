// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "gidpolicy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool rd_gid_filter_match(const struct rd_gid *g, const struct rd_gid_filter *f)
{
	if (f->netdev && strcmp(g->ndev, f->netdev) != 0)
		return false;
	if (f->v4_only && !rd_gid_is_v4mapped(g->raw))
		return false;
	if (f->v6_only && rd_gid_is_v4mapped(g->raw))
		return false;
	if (f->ver != RD_GID_VER_UNKNOWN && g->ver != f->ver)
		return false;
	if (f->have_ip && memcmp(g->raw, f->ip, 16) != 0)
		return false;
	return true;
}

bool rd_gid_filter_active(const struct rd_gid_filter *f)
{
	return f->netdev || f->v4_only || f->v6_only || f->ver != RD_GID_VER_UNKNOWN || f->have_ip;
}

int rd_gid_choose(struct rd_netdev_cache *netdevs, const struct rd_device *d,
		  const struct rd_port *p, const struct rd_gid_table *t,
		  const struct rd_gid_filter *f, int vlan, struct rd_gid_choice *c)
{
	struct rd_gid_table sel = { 0 };
	struct rd_gid_netns uc;
	const struct rd_gid *g;
	char why[160];

	memset(c, 0, sizeof(*c));
	c->d = d;
	c->p = p;
	sel.v = calloc(t->n ? t->n : 1, sizeof(*sel.v));
	if (!sel.v)
		return -ENOMEM;
	for (size_t k = 0; k < t->n; k++)
		if (rd_gid_filter_match(&t->v[k], f))
			sel.v[sel.n++] = t->v[k];
	rd_gid_netns_init(&uc, netdevs);
	g = rd_gid_best(&sel, p, vlan, rd_gid_netdev_usable, &uc, c->text, sizeof(c->text), why,
			sizeof(why));
	if (g) {
		c->ok = true;
		c->g = *g;
	} else {
		if (sel.n == 0 && t->n > 0 && rd_gid_filter_active(f))
			snprintf(why, sizeof(why), "no GID matches the filters");
		else
			(void)rd_gid_netns_why(&uc, why, sizeof(why));
		snprintf(c->text, sizeof(c->text), "%s", why);
	}
	free(sel.v);
	return 0;
}

int rd_gid_family_index(const struct rd_gid *g)
{
	return rd_gid_is_v4mapped(g->raw) ? 0 : 1;
}

bool rd_gid_nccl_counts(const struct rd_gid_choice *c)
{
	return c->ok && (c->g.ver == RD_GID_VER_V1 || c->g.ver == RD_GID_VER_V2);
}

/* The widest prefix all chosen addresses of a family share, at most /24 (IPv4) or /64 (IPv6). */
static void addr_range(const struct rd_gid_choice *c, size_t n, int fi, char *buf, size_t len)
{
	const int family = fi ? AF_INET6 : AF_INET;
	const int off = fi ? 0 : 12, bits = fi ? 128 : 32, cap = fi ? 64 : 24;
	const uint8_t *first = NULL;
	uint8_t net[16] = { 0 };
	int plen = cap;
	char a[48];

	for (size_t i = 0; i < n; i++) {
		const uint8_t *g = c[i].g.raw + off;

		if (!c[i].ok || rd_gid_family_index(&c[i].g) != fi)
			continue;
		if (!first) {
			first = g;
			continue;
		}
		for (int b = 0; b < plen; b++) {
			if (((first[b / 8] ^ g[b / 8]) >> (7 - b % 8)) & 1) {
				plen = b;
				break;
			}
		}
	}
	if (!first) {
		buf[0] = '\0';
		return;
	}
	for (int b = 0; b < plen && b < bits; b++)
		net[b / 8] |= (uint8_t)(first[b / 8] & (0x80 >> (b % 8)));
	inet_ntop(family, net, a, sizeof(a));
	snprintf(buf, len, "%s/%d", a, plen);
}

/*
 * NCCL selects by NCCL_IB_ADDR_FAMILY, NCCL_IB_ADDR_RANGE and
 * NCCL_IB_ROCE_VERSION_NUM when NCCL_IB_GID_INDEX is unset; a port without a
 * GID of that family keeps index 0, so the families are given apart.
 */
void rd_gid_nccl_advice(const struct rd_gid_choice *c, size_t n, struct rd_gid_nccl *adv)
{
	unsigned int first = 0, nok = 0, fam_n[2] = { 0 };
	bool v1[2] = { false, false };
	char range[64];

	memset(adv, 0, sizeof(*adv));
	for (size_t i = 0; i < n; i++) {
		if (!rd_gid_nccl_counts(&c[i]))
			continue;
		int fi = rd_gid_family_index(&c[i].g);

		fam_n[fi]++;
		if (c[i].g.ver == RD_GID_VER_V1)
			v1[fi] = true;
		if (nok++ == 0)
			first = c[i].g.index;
		else if (c[i].g.index != first)
			adv->differs = true;
	}
	if (!adv->differs)
		return;
	for (int fi = 0; fi < 2; fi++) {
		if (!fam_n[fi])
			continue;
		addr_range(c, n, fi, range, sizeof(range));
		snprintf(adv->env[fi], sizeof(adv->env[fi]),
			 "NCCL_IB_ADDR_FAMILY=%s NCCL_IB_ADDR_RANGE=%s NCCL_IB_ROCE_VERSION_NUM=%d",
			 fi ? "AF_INET6" : "AF_INET", range, v1[fi] ? 1 : 2);
	}
}

static int text_order_u(unsigned int a, unsigned int b)
{
	char sa[16], sb[16];

	snprintf(sa, sizeof(sa), "%u", a);
	snprintf(sb, sizeof(sb), "%u", b);
	return strcmp(sa, sb);
}

static int compat_dev_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rd_device *)a)->name, ((const struct rd_device *)b)->name);
}

static int compat_port_cmp(const void *a, const void *b)
{
	return text_order_u(((const struct rd_port *)a)->num, ((const struct rd_port *)b)->num);
}

static int compat_gid_cmp(const void *a, const void *b)
{
	return text_order_u(((const struct rd_gid *)a)->index, ((const struct rd_gid *)b)->index);
}

void rd_gid_compat_sort_devices(struct rd_device_list *list)
{
	if (list->n)
		qsort(list->v, list->n, sizeof(*list->v), compat_dev_cmp);
	for (unsigned int i = 0; i < list->n; i++)
		if (list->v[i].nports)	/* a device without ports has no array */
			qsort(list->v[i].ports, list->v[i].nports, sizeof(*list->v[i].ports),
			      compat_port_cmp);
}

void rd_gid_compat_sort_table(struct rd_gid_table *t)
{
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), compat_gid_cmp);
}

bool rd_gid_compat_skipped(const struct rd_gid *g)
{
	static const uint8_t ll_zero[16] = { 0xfe, 0x80 };

	return rd_gid_is_zero(g->raw) || memcmp(g->raw, ll_zero, 16) == 0;
}

// SPDX-License-Identifier: MIT
/*
 * VLAN-ness from sysfs, for a copied tree that has /sys but no
 * /proc/net/vlan/config.  The kernel does not put a VLAN's id in sysfs, but
 * it does say which netdevs are VLANs: a VLAN netdev has exactly one
 * lower_<dev> adjacency link in /sys/class/net/IF/ and "DEVTYPE=vlan" in its
 * uevent (net/8021q/vlan_dev.c sets the device type "vlan").  A netdev with no
 * lower_ link is not stacked on anything, so it is not a VLAN.
 * Also the name index of a VLAN map, which both readers (this one and
 * netdev.c's of /proc/net/vlan/config) build when they are done.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netdev.h"

/*
 * One netdev: RD_VLAN_TAGGED, -1 (not a VLAN) or RD_VLAN_CANNOT_TELL; or
 * RD_VLAN_STACKED with lower[] set when it sits on one netdev and is not a
 * VLAN by type: its tagging is then that of the lower one.
 */
#define RD_VLAN_STACKED 1
static int vlan_state_one(const struct rd_sysroot *sr, const char *ifname, char *lower,
			  size_t lower_len)
{
	struct rd_strlist ents = { 0 };
	char uevent[512];
	size_t nlower = 0;

	if (rd_sys_list(sr, &ents, "/sys/class/net/%s", ifname))
		return RD_VLAN_CANNOT_TELL;
	for (size_t i = 0; i < ents.n; i++) {
		if (strncmp(ents.v[i], "lower_", 6) == 0 && !nlower++)
			rd_strlcpy(lower, ents.v[i] + 6, lower_len);
	}
	bool bond = rd_strlist_has(&ents, "bonding");

	rd_strlist_free(&ents);
	if (!nlower)
		return -1;
	if (rd_sys_read_str(sr, uevent, sizeof(uevent), "/sys/class/net/%s/uevent", ifname) == 0) {
		for (char *l = uevent; l; l = strchr(l, '\n')) {
			if (*l == '\n')
				l++;
			if (strncmp(l, "DEVTYPE=vlan", 12) == 0 && (l[12] == '\n' || !l[12]))
				return RD_VLAN_TAGGED;
		}
	} else if (!bond) {
		return RD_VLAN_CANNOT_TELL;
	}
	/* A bond's slaves carry the bond's untagged frames; one lower: look at it. */
	if (nlower > 1 || bond)
		return -1;
	return RD_VLAN_STACKED;
}

/* Stacked but not a VLAN (macvlan...): tagged if what it sits on is; 4 levels at most. */
static int vlan_state(const struct rd_sysroot *sr, const char *ifname)
{
	char name[64], lower[64];

	rd_strlcpy(name, ifname, sizeof(name));
	for (int depth = 0; depth < 4; depth++) {
		int st = vlan_state_one(sr, name, lower, sizeof(lower));

		if (st != RD_VLAN_STACKED)
			return st;
		rd_strlcpy(name, lower, sizeof(name));
	}
	return RD_VLAN_CANNOT_TELL;
}

void rd_vlan_map_index(struct rd_vlan_map *map)
{
	rd_strmap_free(&map->index);
	memset(&map->index, 0, sizeof(map->index));
	for (size_t i = 0; i < map->names.n; i++) {
		size_t at = i;

		if (rd_strmap_sget_or_add(&map->index, map->names.v[i], &at) < 0) {
			rd_strmap_free(&map->index);
			memset(&map->index, 0, sizeof(map->index));
			return;
		}
	}
}

int rd_vlan_map_from_sysfs(const struct rd_sysroot *sr, struct rd_vlan_map *map)
{
	struct rd_strlist ifs = { 0 };
	size_t cap = 0;
	int ret;

	memset(map, 0, sizeof(*map));
	map->ids_unknown = true;
	ret = rd_sys_list(sr, &ifs, "/sys/class/net");
	if (ret)
		return ret;
	for (size_t i = 0; i < ifs.n && ret == 0; i++) {
		int st = vlan_state(sr, ifs.v[i]);

		if (st == -1)
			continue;
		if (map->names.n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			int *ids = realloc(map->ids, ncap * sizeof(*ids));

			if (!ids) {
				ret = -ENOMEM;
				break;
			}
			map->ids = ids;
			cap = ncap;
		}
		if (rd_strlist_add(&map->names, ifs.v[i]) || rd_strlist_add(&map->lowers, "")) {
			ret = -ENOMEM;
			break;
		}
		map->ids[map->names.n - 1] = st;
	}
	rd_strlist_free(&ifs);
	if (ret == 0)
		rd_vlan_map_index(map);
	return ret;
}

// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "netdev.h"
#include "nldev.h"
#include "base/base.h"

#include <ctype.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static void trim(char *s)
{
	size_t n = strlen(s);
	char *p = s;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)*p))
		p++;
	memmove(s, p, strlen(p) + 1);
}

int rd_parse_vlan_config_line(const char *line, char *name, size_t name_len, int *vid,
			      char *lower, size_t lower_len)
{
	char buf[256], *f1, *f2, *f3, *save = NULL;
	uint64_t id;

	if (strlen(line) >= sizeof(buf))
		return -EINVAL;
	rd_strlcpy(buf, line, sizeof(buf));
	f1 = strtok_r(buf, "|", &save);
	f2 = strtok_r(NULL, "|", &save);
	f3 = strtok_r(NULL, "|", &save);
	if (!f1 || !f2 || !f3 || strtok_r(NULL, "|", &save))
		return -EINVAL;
	trim(f1);
	trim(f2);
	trim(f3);
	if (!*f1 || !*f3 || rd_parse_u64(f2, &id) || id > 4095)
		return -EINVAL;
	if (strlen(f1) >= name_len || strlen(f3) >= lower_len)
		return -EINVAL;
	rd_strlcpy(name, f1, name_len);
	rd_strlcpy(lower, f3, lower_len);
	*vid = (int)id;
	return 0;
}

int rd_vlan_map_parse(FILE *f, struct rd_vlan_map *map)
{
	char line[256], name[64], lower[64];
	size_t cap = 0;
	int ret = 0, vid;

	memset(map, 0, sizeof(*map));
	while (fgets(line, sizeof(line), f)) {
		if (rd_parse_vlan_config_line(line, name, sizeof(name), &vid, lower, sizeof(lower)))
			continue;	/* the two header lines */
		if (map->names.n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			int *ids = realloc(map->ids, ncap * sizeof(*ids));

			if (!ids) {
				ret = -ENOMEM;
				break;
			}
			map->ids = ids;
			cap = ncap;
		}
		if (rd_strlist_add(&map->names, name) || rd_strlist_add(&map->lowers, lower)) {
			ret = -ENOMEM;
			break;
		}
		map->ids[map->names.n - 1] = vid;
	}
	if (ret == 0)
		rd_vlan_map_index(map);
	return ret;
}

int rd_vlan_map_read(const struct rd_sysroot *sr, struct rd_vlan_map *map)
{
	char path[RD_PATH_MAX];
	int ret;
	FILE *f;

	memset(map, 0, sizeof(*map));
	ret = rd_sys_resolve(sr, path, sizeof(path), "/proc/net/vlan/config");
	if (ret)
		return ret;
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		if (ret == -ENOENT && !rd_sysroot_is_live(sr) &&
		    !rd_sys_exists(sr, "/proc/net/vlan"))
			(void)rd_vlan_map_from_sysfs(sr, map);
		return ret;
	}
	ret = rd_vlan_map_parse(f, map);
	(void)fclose(f);	/* read-only stream */
	return ret;
}

/* Position of ifname in the map, or -1 (the first, if a name is there twice). */
static ssize_t vlan_map_find(const struct rd_vlan_map *map, const char *ifname)
{
	size_t at;

	if (map->index.cap) {
		if (rd_strmap_sget(&map->index, ifname, &at))
			return (ssize_t)at;
		return -1;
	}
	for (size_t i = 0; i < map->names.n; i++)
		if (strcmp(map->names.v[i], ifname) == 0)
			return (ssize_t)i;
	return -1;
}

int rd_vlan_map_lookup(const struct rd_vlan_map *map, const char *ifname)
{
	ssize_t i = vlan_map_find(map, ifname);

	return i < 0 ? -1 : map->ids[i];
}

const char *rd_vlan_map_lower(const struct rd_vlan_map *map, const char *ifname)
{
	ssize_t i = vlan_map_find(map, ifname);

	return i < 0 ? NULL : map->lowers.v[i];
}

void rd_vlan_map_free(struct rd_vlan_map *map)
{
	rd_strlist_free(&map->names);
	rd_strlist_free(&map->lowers);
	free(map->ids);
	map->ids = NULL;
	rd_strmap_free(&map->index);
	memset(&map->index, 0, sizeof(map->index));
}

bool rd_netdev_state_up(const char *operstate, int carrier)
{
	/* "up" with carrier 0: the driver brought the link up, no peer answers. */
	if (strcmp(operstate, "up") == 0)
		return carrier != 0;
	/* "unknown" (the driver does not say), or "" (the file could not be read): carrier decides. */
	return (strcmp(operstate, "unknown") == 0 || !operstate[0]) && carrier == 1;
}

/* What a run has read of one netdev, each file at most once (the SEEN_* bits). */
enum {
	SEEN_OPER = 1u << 0,
	SEEN_CARRIER = 1u << 1,
	SEEN_LINK = 1u << 2,
	SEEN_VISIBLE = 1u << 3,
	SEEN_TYPE = 1u << 4,
	SEEN_ADDRESS = 1u << 5,
};

struct rd_netdev_seen {
	unsigned int have;
	int oper_ret;		/* operstate: 0 or -errno */
	char operstate[32];
	int carrier_ret;	/* carrier: 0 or -errno */
	uint64_t carrier;
	int link_ret;		/* readlink of /sys/class/net/IF: 0 or -errno */
	bool visible;		/* /sys/class/net/IF resolves */
	int type_ret;		/* type (ARPHRD): 0 or -errno */
	uint64_t type;
	int address_ret;	/* address: 0 or -errno */
	char address[128];
};

void rd_netdev_cache_init(struct rd_netdev_cache *nc, const struct rd_sysroot *sr)
{
	memset(nc, 0, sizeof(*nc));
	nc->sr = sr;
	nc->netns_view = -1;
}

void rd_netdev_cache_free(struct rd_netdev_cache *nc)
{
	rd_strmap_free(&nc->index);
	free(nc->v);
	rd_strlist_free(&nc->names);
	rd_netdev_cache_init(nc, nc->sr);
}

/* ifname's entry, empty the first time it is asked for; NULL out of memory. */
static struct rd_netdev_seen *seen(struct rd_netdev_cache *nc, const char *ifname)
{
	size_t at = nc->n;
	int ret;

	if (nc->n == nc->cap) {	/* room first: a name in the index always has its entry */
		size_t cap = nc->cap ? nc->cap * 2 : 16;
		struct rd_netdev_seen *v = realloc(nc->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		nc->v = v;
		nc->cap = cap;
	}
	ret = rd_strmap_sget_or_add(&nc->index, ifname, &at);
	if (ret < 0)
		return NULL;
	if (ret == 0)
		memset(&nc->v[nc->n++], 0, sizeof(*nc->v));
	return &nc->v[at];
}

/*
 * The netdev's operstate into buf (len at most 32), as rd_sys_read_str
 * gives it; a value that does not fit is -EOVERFLOW.
 */
static int read_operstate(struct rd_netdev_cache *nc, const char *ifname, char *buf, size_t len)
{
	struct rd_netdev_seen *s = seen(nc, ifname);

	if (!s)
		return rd_sys_read_str(nc->sr, buf, len, "/sys/class/net/%s/operstate", ifname);
	if (!(s->have & SEEN_OPER)) {
		s->oper_ret = rd_sys_read_str(nc->sr, s->operstate, sizeof(s->operstate),
					      "/sys/class/net/%s/operstate", ifname);
		s->have |= SEEN_OPER;
	}
	if (s->oper_ret)
		return s->oper_ret;
	if (strlen(s->operstate) >= len)
		return -EOVERFLOW;
	rd_strlcpy(buf, s->operstate, len);
	return 0;
}

static int read_carrier(struct rd_netdev_cache *nc, const char *ifname, uint64_t *v)
{
	struct rd_netdev_seen *s = seen(nc, ifname);

	if (!s)
		return rd_sys_read_u64(nc->sr, v, "/sys/class/net/%s/carrier", ifname);
	if (!(s->have & SEEN_CARRIER)) {
		s->carrier_ret = rd_sys_read_u64(nc->sr, &s->carrier, "/sys/class/net/%s/carrier",
						 ifname);
		s->have |= SEEN_CARRIER;
	}
	*v = s->carrier;
	return s->carrier_ret;
}

/* The netdev's type, as rd_sys_read_u64 gives it. */
static int read_type(struct rd_netdev_cache *nc, const char *ifname, uint64_t *v)
{
	struct rd_netdev_seen *s = seen(nc, ifname);

	if (!s)
		return rd_sys_read_u64(nc->sr, v, "/sys/class/net/%s/type", ifname);
	if (!(s->have & SEEN_TYPE)) {
		s->type_ret = rd_sys_read_u64(nc->sr, &s->type, "/sys/class/net/%s/type", ifname);
		s->have |= SEEN_TYPE;
	}
	*v = s->type;
	return s->type_ret;
}

/* The netdev's hardware address into buf (len at most 128), as rd_sys_read_str gives it. */
static int read_address(struct rd_netdev_cache *nc, const char *ifname, char *buf, size_t len)
{
	struct rd_netdev_seen *s = seen(nc, ifname);

	if (!s)
		return rd_sys_read_str(nc->sr, buf, len, "/sys/class/net/%s/address", ifname);
	if (!(s->have & SEEN_ADDRESS)) {
		s->address_ret = rd_sys_read_str(nc->sr, s->address, sizeof(s->address),
						 "/sys/class/net/%s/address", ifname);
		s->have |= SEEN_ADDRESS;
	}
	if (s->address_ret)
		return s->address_ret;
	if (strlen(s->address) >= len)
		return -EOVERFLOW;
	rd_strlcpy(buf, s->address, len);
	return 0;
}

bool rd_netdev_is_up(struct rd_netdev_cache *nc, const char *ifname)
{
	char state[32];
	uint64_t carrier;

	if (strchr(ifname, '/'))
		return false;
	if (read_operstate(nc, ifname, state, sizeof(state)))
		return true;
	/* sysfs fails the carrier read (EINVAL) on a netdev that is down: unknown */
	return rd_netdev_state_up(state, read_carrier(nc, ifname, &carrier) ? -1 :
				  carrier == 1 ? 1 : 0);
}

bool rd_netdev_elsewhere(struct rd_netdev_cache *nc, const char *ifname)
{
	char target[RD_PATH_MAX];
	struct rd_netdev_seen *s;

	if (nc->netns_view < 0)
		nc->netns_view = rd_sys_exists(nc->sr, "/sys/class/net");
	if (!nc->netns_view || strchr(ifname, '/'))
		return false;
	s = seen(nc, ifname);
	if (!s)
		return rd_sys_readlink(nc->sr, target, sizeof(target), "/sys/class/net/%s",
				       ifname) == -ENOENT;
	if (!(s->have & SEEN_LINK)) {
		s->link_ret = rd_sys_readlink(nc->sr, target, sizeof(target), "/sys/class/net/%s",
					      ifname);
		s->have |= SEEN_LINK;
	}
	return s->link_ret == -ENOENT;
}

bool rd_netdev_visible(struct rd_netdev_cache *nc, const char *ifname)
{
	struct rd_netdev_seen *s = seen(nc, ifname);

	if (!s)
		return rd_sys_exists(nc->sr, "/sys/class/net/%s", ifname);
	if (!(s->have & SEEN_VISIBLE)) {
		s->visible = rd_sys_exists(nc->sr, "/sys/class/net/%s", ifname);
		s->have |= SEEN_VISIBLE;
	}
	return s->visible;
}

static bool valid_ifname(const char *s)
{
	return *s && strlen(s) < 64 && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

void rd_netdev_from_rtnl(struct rtnl_link *link, struct rd_netdev_info *nd)
{
	char buf[32];

	nd->present = true;
	rtnl_link_operstate2str(rtnl_link_get_operstate(link), buf, sizeof(buf));
	rd_strlcpy(nd->operstate, buf, sizeof(nd->operstate));
	nd->carrier = rtnl_link_get_carrier(link);
	nd->mtu = rtnl_link_get_mtu(link);
	nd->has_mtu = true;
	nd->ifindex = (uint64_t)rtnl_link_get_ifindex(link);
	nd->has_ifindex = true;
	nd->type = rtnl_link_get_arptype(link);
	/*
	 * Not rtnl_link_vlan_get_id(): libnl (3.7) dereferences a NULL pointer
	 * for a link of kind "vlan" that came without IFLA_INFO_DATA (found by
	 * tests/fuzz/fuzz_netdev.c).  The id comes from /proc/net/vlan/config,
	 * which exists whenever a VLAN netdev does (8021q).
	 */
}

/* Live: what rtnetlink says.  Returns false if it could not answer. */
static bool netdev_rtnl(const char *name, struct rd_netdev_info *nd)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct rtnl_link *link = NULL;
	bool ok = false;

	if (!sk)
		return false;
	if (nl_connect(sk, NETLINK_ROUTE) < 0)
		goto out;
	{
		struct timeval tv = { .tv_sec = 2 };

		setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (rtnl_link_get_kernel(sk, 0, name, &link) < 0)
		goto out;
	rd_netdev_from_rtnl(link, nd);
	ok = true;
out:
	if (link)
		rtnl_link_put(link);
	nl_socket_free(sk);
	return ok;
}

int64_t rd_parse_netdev_speed(const char *s)
{
	long long sp = strtoll(s, NULL, 10);

	return sp > 0 ? sp : -1;
}

/* rd_netdev_read, with operstate and carrier through nc when it is not NULL. */
static int netdev_read(const struct rd_sysroot *sr, struct rd_netdev_cache *nc, const char *name,
		       const struct rd_vlan_map *vlans, struct rd_netdev_info *nd)
{
	char base[RD_PATH_MAX], buf[256];
	uint64_t v;

	memset(nd, 0, sizeof(*nd));
	nd->carrier = -1;
	nd->vlan = -1;
	nd->speed_mbps = -1;
	rd_strlcpy(nd->name, name, sizeof(nd->name));
	if (!valid_ifname(name))
		return 0;
	snprintf(base, sizeof(base), "/sys/class/net/%s", name);
	nd->source = "sysfs";
	if (rd_sysroot_is_live(sr) && netdev_rtnl(name, nd))
		nd->source = "rtnetlink";
	if (!nd->present) {
		if (!rd_sys_exists(sr, "%s/", base))
			return 0;
		nd->present = true;
		nd->operstate_err = nc ? read_operstate(nc, name, nd->operstate, sizeof(nd->operstate)) :
				    rd_sys_read_str(sr, nd->operstate, sizeof(nd->operstate), "%s/operstate", base);
		if (nd->operstate_err)
			nd->operstate[0] = '\0';
		if ((nc ? read_carrier(nc, name, &v) : rd_sys_read_u64(sr, &v, "%s/carrier", base)) == 0)
			nd->carrier = v ? 1 : 0;
		if (rd_sys_read_u64(sr, &nd->mtu, "%s/mtu", base) == 0)
			nd->has_mtu = true;
		if (rd_sys_read_u64(sr, &nd->ifindex, "%s/ifindex", base) == 0)
			nd->has_ifindex = true;
		if (rd_sys_read_u64(sr, &v, "%s/type", base) == 0)
			nd->type = v;
	}
	/* speed is "-1" when unknown, and fails (EINVAL) on a down link. */
	if (rd_sys_read_str(sr, buf, sizeof(buf), "%s/speed", base) == 0) {
		nd->speed_mbps = rd_parse_netdev_speed(buf);
		nd->has_speed = nd->speed_mbps > 0;
	}
	if (vlans) {
		const char *lower = rd_vlan_map_lower(vlans, name);

		if (nd->vlan < 0)
			nd->vlan = rd_vlan_map_lookup(vlans, name);
		if (lower)
			rd_strlcpy(nd->vlan_lower, lower, sizeof(nd->vlan_lower));
	}
	if (rd_sys_read_str(sr, buf, sizeof(buf), "%s/bonding/slaves", base) == 0) {
		int ret = rd_parse_bond_slaves(buf, &nd->bond_slaves);

		if (ret)
			return ret;
	}
	if (rd_sys_link_basename(sr, buf, sizeof(buf), "%s/master", base) == 0)
		rd_strlcpy(nd->master, buf, sizeof(nd->master));
	return 0;
}

int rd_netdev_read(const struct rd_sysroot *sr, const char *name, const struct rd_vlan_map *vlans,
		   struct rd_netdev_info *nd)
{
	return netdev_read(sr, NULL, name, vlans, nd);
}

int rd_netdev_read_cached(struct rd_netdev_cache *nc, const char *name,
			  const struct rd_vlan_map *vlans, struct rd_netdev_info *nd)
{
	return netdev_read(nc->sr, nc, name, vlans, nd);
}

int rd_netdev_mtu(const struct rd_sysroot *sr, const char *name, uint64_t *mtu)
{
	struct rd_netdev_info nd;

	memset(&nd, 0, sizeof(nd));
	if (!valid_ifname(name))
		return -ENOENT;
	if (rd_sysroot_is_live(sr) && netdev_rtnl(name, &nd)) {
		*mtu = nd.mtu;
		return 0;
	}
	if (!rd_sys_exists(sr, "/sys/class/net/%s/", name) ||
	    rd_sys_read_u64(sr, mtu, "/sys/class/net/%s/mtu", name))
		return -ENOENT;
	return 0;
}

void rd_netdev_info_free(struct rd_netdev_info *nd)
{
	rd_strlist_free(&nd->bond_slaves);
}

const char *rd_netdev_updown(const struct rd_netdev_info *nd)
{
	if (!nd->present)
		return "NA";
	/* Neither the operstate nor the carrier could be read: say so, never "Down". */
	if (!nd->operstate[0] && nd->carrier < 0)
		return "Unknown";
	return rd_netdev_state_up(nd->operstate, nd->carrier) ? "Up" : "Down";
}

const char *rd_map_via_name(enum rd_map_via v)
{
	switch (v) {
	case RD_VIA_NETLINK:
		return "netlink";
	case RD_VIA_GID_NDEV:
		return "gid_ndevs";
	case RD_VIA_PARENT:
		return "parent";
	case RD_VIA_PCI:
		return "pci";
	case RD_VIA_IPOIB_GUID:
		return "ipoib_guid";
	default:
		return NULL;
	}
}

int rd_parse_hwaddr(const char *s, uint8_t *out, int max)
{
	int n = 0;

	while (*s) {
		unsigned int b;
		int used;

		/* NOLINTNEXTLINE(cert-err34-c): %2x reads at most 2 hex digits, no overflow */
		if (n == max || sscanf(s, "%2x%n", &b, &used) != 1 || used != 2)
			return -1;
		out[n++] = (uint8_t)b;
		s += used;
		if (*s == ':')
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

bool rd_ipoib_on_port(const struct rd_sysroot *sr, const struct rd_device *dev,
		      const struct rd_port *port, const char *ifname)
{
	uint8_t gid[16], hw[20];
	char addr[128];
	uint64_t type;

	if (!valid_ifname(ifname) ||
	    rd_sys_read_u64(sr, &type, "/sys/class/net/%s/type", ifname) || type != 32 ||
	    rd_sys_read_str(sr, addr, sizeof(addr), "/sys/class/net/%s/address", ifname) ||
	    rd_parse_hwaddr(addr, hw, 20) != 20 ||
	    rd_sys_read_gid(sr, gid, "/sys/class/infiniband/%s/ports/%u/gids/0", dev->name, port->num))
		return false;
	return memcmp(hw + 12, gid + 8, 8) == 0;
}

/*
 * An IPoIB netdev whose 20-byte address ends in the port GUID; physical
 * first.  Through nc the netdevs' listing, types and addresses are read
 * once a run (every IB port without another answer asks).
 */
static int ipoib_match(struct rd_netdev_cache *nc, const struct rd_device *dev,
		       const struct rd_port *port, char *name, size_t name_len)
{
	const struct rd_strlist *nets = &nc->names;
	uint8_t gid[16], hw[20];
	char addr[128] = "";
	int ret = -ENOENT;

	if (rd_sys_read_gid(nc->sr, gid, "/sys/class/infiniband/%s/ports/%u/gids/0", dev->name,
			    port->num))
		return -ENOENT;
	if (!nc->listed) {
		nc->listed = true;
		if (rd_sys_list(nc->sr, &nc->names, "/sys/class/net"))
			rd_strlist_free(&nc->names);
	}
	for (size_t i = 0; i < nets->n; i++) {
		uint64_t type;

		if (read_type(nc, nets->v[i], &type) || type != 32)
			continue;
		if (read_address(nc, nets->v[i], addr, sizeof(addr)) ||
		    rd_parse_hwaddr(addr, hw, 20) != 20 || memcmp(hw + 12, gid + 8, 8) != 0)
			continue;
		/* P_Key children share the GUID; prefer the parent (no '.' child name). */
		if (ret == 0 && strchr(nets->v[i], '.'))
			continue;
		rd_strlcpy(name, nets->v[i], name_len);
		ret = 0;
		if (!strchr(nets->v[i], '.'))
			break;
	}
	return ret;
}

/* rd_port_netdev through a netdev cache (nc), made for the call when the caller keeps none. */
static int port_netdev(struct rd_netdev_cache *nc, const struct rd_nl_ports *nl,
		       const struct rd_device *dev, const struct rd_port *port, const char *ndev0,
		       char *name, size_t name_len, enum rd_map_via *via, bool *other_netns);

int rd_port_netdev(const struct rd_sysroot *sr, const struct rd_nl_ports *nl,
		   const struct rd_device *dev, const struct rd_port *port, char *name,
		   size_t name_len, enum rd_map_via *via, bool *other_netns)
{
	struct rd_netdev_cache nc;
	int ret;

	rd_netdev_cache_init(&nc, sr);
	ret = port_netdev(&nc, nl, dev, port, NULL, name, name_len, via, other_netns);
	rd_netdev_cache_free(&nc);
	return ret;
}

int rd_port_netdev_cached(struct rd_netdev_cache *nc, const struct rd_nl_ports *nl,
			  const struct rd_device *dev, const struct rd_port *port, const char *ndev0,
			  char *name, size_t name_len, enum rd_map_via *via, bool *other_netns)
{
	return port_netdev(nc, nl, dev, port, ndev0, name, name_len, via, other_netns);
}

static int port_netdev(struct rd_netdev_cache *nc, const struct rd_nl_ports *nl,
		       const struct rd_device *dev, const struct rd_port *port, const char *ndev0,
		       char *name, size_t name_len, enum rd_map_via *via, bool *other_netns)
{
	const struct rd_sysroot *sr = nc->sr;
	struct rd_strlist l = { 0 };
	char buf[64];

	name[0] = '\0';
	*via = RD_VIA_NONE;
	*other_netns = false;
	if (nl) {
		for (size_t i = 0; i < nl->n; i++) {
			if (strcmp(nl->v[i].dev, dev->name) == 0 && nl->v[i].port == port->num &&
			    nl->v[i].has_ndev) {
				rd_strlcpy(name, nl->v[i].ndev, name_len);
				*via = RD_VIA_NETLINK;
				return 0;
			}
		}
	}
	if (ndev0)	/* read already ("" when it failed): the same test */
		rd_strlcpy(buf, ndev0, sizeof(buf));
	else if (rd_sys_read_str(sr, buf, sizeof(buf),
				 "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0", dev->name,
				 port->num))
		buf[0] = '\0';
	if (valid_ifname(buf)) {
		rd_strlcpy(name, buf, name_len);
		*via = RD_VIA_GID_NDEV;
	} else if (dev->parent[0]) {
		rd_strlcpy(name, dev->parent, name_len);
		*via = RD_VIA_PARENT;
	} else if (rd_sys_list(sr, &l, "/sys/class/infiniband/%s/device/net", dev->name) == 0) {
		for (size_t i = 0; i < l.n; i++) {
			uint64_t dev_port = 0;

			if (rd_sys_read_u64(sr, &dev_port, "/sys/class/infiniband/%s/device/net/%s/dev_port",
					    dev->name, l.v[i]) < 0)
				dev_port = 0;
			if (dev_port + 1 == port->num && !rd_netdev_is_representor(sr, dev->name, l.v[i])) {
				rd_strlcpy(name, l.v[i], name_len);
				*via = RD_VIA_PCI;
				break;
			}
		}
	}
	rd_strlist_free(&l);
	if (!name[0] && (port->known & RD_PORT_LINK_LAYER) && port->link_layer == RD_LL_INFINIBAND &&
	    ipoib_match(nc, dev, port, name, name_len) == 0)
		*via = RD_VIA_IPOIB_GUID;
	/* Named by sysfs but not visible here: it lives in another network namespace. */
	/* (Not when a copied tree has a dangling /sys/class/net link: that netdev is lost.) */
	if (name[0] && rd_sys_check_dir(sr, "/sys/class/net/%s", name) == -ENOENT)
		*other_netns = true;
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Netdev facts as the kernel hands them over: an RTM_NEWLINK/RTM_DELLINK
 * message through libnl's parser into what rdma-devmap (rd_netdev_from_rtnl)
 * and rdma-events (rd_ev_link_from_rtnl) take from it; /proc/net/vlan/config as
 * a whole file (and the map built from it looked up); the sysfs values
 * bonding/slaves, speed, and the address file IPoIB is matched by.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/object.h>
#include <netlink/route/link.h>

#include "watch/evlink.h"
#include "model/netdev.h"

static void on_object(struct nl_object *obj, void *arg)
{
	struct rd_netdev_info nd;
	struct rd_ev_link l;

	(void)arg;
	if (strcmp(nl_object_get_type(obj), "route/link") != 0)
		return;
	memset(&nd, 0, sizeof(nd));
	rd_netdev_from_rtnl((struct rtnl_link *)obj, &nd);
	rd_ev_link_from_rtnl((struct rtnl_link *)obj, &l);
	if (!memchr(nd.operstate, '\0', sizeof(nd.operstate)) || !memchr(l.netdev, '\0', sizeof(l.netdev)))
		__builtin_trap();
}

/* The input as one rtnetlink message, its header's length made to fit. */
static void rtnl_message(const uint8_t *data, size_t size)
{
	struct nlmsghdr *h;
	struct nl_msg *msg;

	if (size < sizeof(*h) || size > 65536)
		return;
	h = calloc(1, NLMSG_ALIGN(size));	/* nlmsg_convert copies the aligned length */
	if (!h)
		return;
	memcpy(h, data, size);
	h->nlmsg_len = (uint32_t)size;
	/* Only what the watcher and the link query hand to nl_msg_parse(). */
	if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
		h->nlmsg_type = RTM_NEWLINK;
	msg = nlmsg_convert(h);
	if (msg) {
		nlmsg_set_proto(msg, NETLINK_ROUTE);
		(void)nl_msg_parse(msg, on_object, NULL);
		nlmsg_free(msg);
	}
	free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_vlan_map map;
	struct rd_strlist slaves = { 0 };
	char *s;
	FILE *f;

	rtnl_message(data, size);

	/* The whole input as the VLAN config file. */
	f = fmemopen((void *)data, size, "r");
	if (f) {
		(void)rd_vlan_map_parse(f, &map);
		fclose(f);
		for (size_t i = 0; i < map.names.n; i++) {
			int vid = rd_vlan_map_lookup(&map, map.names.v[i]);
			const char *lower = rd_vlan_map_lower(&map, map.names.v[i]);

			/* What the map holds is what the parser accepted. */
			if (vid < 0 || vid > 4095 || !lower || !*lower)
				__builtin_trap();
		}
		rd_vlan_map_free(&map);
	}

	/* The input as one sysfs value (the readers hand over a C string). */
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)rd_parse_netdev_speed(s);
	{
		uint8_t hw[20];
		int n = rd_parse_hwaddr(s, hw, (int)sizeof(hw));

		if (n > (int)sizeof(hw))
			__builtin_trap();
	}
	if (rd_parse_bond_slaves(s, &slaves) == 0)
		for (size_t i = 0; i < slaves.n; i++)
			if (!*slaves.v[i] || strchr(slaves.v[i], ' '))
				__builtin_trap();
	rd_strlist_free(&slaves);
	free(s);
	return 0;
}

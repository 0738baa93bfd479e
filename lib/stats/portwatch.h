/* SPDX-License-Identifier: MIT */
/*
 * The ports a live view watches: discovered from /sys/class/infiniband
 * (honouring the -d/-p filters), re-checked at every refresh so that devices
 * appearing are added and vanishing ones are marked gone, and sampled: port
 * state, link speed and every counter (counters.h), hw counters through
 * RDMA netlink when live and it answers, sysfs otherwise.  Every file stays
 * open between refreshes.
 */
#ifndef RD_PORTWATCH_H
#define RD_PORTWATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "model/model.h"
#include "sysroot/sysroot.h"
#include "base/base.h"

struct rd_watch_port {
	char dev[64];
	unsigned int port;
	char netdev[64];		/* "" when no netdev maps */
	enum rd_link_layer link_layer;
	const char *transport;		/* "RoCE", "InfiniBand", "iWARP"... */
	char guid[19];			/* the node GUID, "0x" and 16 hex digits (rdma-fabric's
					 * local_guid); "" when unknown */
	unsigned long id;		/* unique per row, for keeping a selection */

	bool gone;			/* vanished; no more readings */
	unsigned int gone_age;		/* refreshes since it vanished (0: this one) */

	/* Facts re-read at every refresh */
	bool state_known;
	uint64_t state;			/* 4 = ACTIVE */
	char state_name[16];
	bool link_known;
	double link_gbps;		/* netdev speed (RoCE, iWARP) or port rate (IB) */
	const char *hw_source;		/* "netlink", "sysfs" or NULL without hw counters */

	struct rd_port_ctrs ctrs;
	struct rd_sum_val sum[RD_SUM_COUNT];
	bool util_known;
	double util_pct;		/* max(tx, rx) against the link */

	/* private */
	int fd_dir, fd_state, fd_rate, fd_speed;
	uint32_t nl_dev_index;
	bool use_nl, nl_new_names;
};

struct rd_watch_dev;
struct rd_nlstat;
struct rd_nl_ports;

struct rd_portwatch {
	const struct rd_sysroot *sr;
	const struct rd_strlist *devices;	/* -d filter (borrowed), empty = all */
	unsigned int port_filter;		/* -p, 0 = all */
	unsigned int keep_gone;			/* refreshes a gone row stays listed */
	bool use_netlink;			/* live and not disabled */

	struct rd_watch_port **v;		/* rows, in discovery order */
	size_t n;
	unsigned long refreshes;

	/* private */
	struct rd_watch_dev *devs;
	size_t ndevs;
	void *classdir;				/* DIR * kept open and rewound */
	struct rd_buf {
		char *p;
		size_t len, cap;
	} listing[2];				/* its names now and the time before */
	int cur_listing;
	struct rd_nlstat *nl;
	struct rd_nl_ports *nl_ports;		/* dev name -> index, netdevs */
	unsigned long next_id;
	struct rd_warnings *w;
	struct rd_netdev_cache *netdevs;	/* while the first ports are added: read once */
};

/*
 * Start watching the devices of list (as rd_cli_scan_devices returned them;
 * the list is not kept).  Names in the class directory that are not in the
 * list are taken as unreadable and left alone until they disappear.
 */
int rd_portwatch_init(struct rd_portwatch *pw, const struct rd_sysroot *sr,
		      const struct rd_strlist *devices, unsigned int port_filter,
		      const struct rd_device_list *list, struct rd_warnings *w);
/* Re-check what exists, then sample every port.  -ENOMEM only. */
int rd_portwatch_refresh(struct rd_portwatch *pw);
void rd_portwatch_free(struct rd_portwatch *pw);

/* Live rows (not gone). */
size_t rd_portwatch_live(const struct rd_portwatch *pw);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The hot-plug sources: a kobject uevent socket (devices added, removed,
 * renamed) and a retry timer (a device node udev has not made usable yet),
 * both ending in a rescan that makes the set match the kernel's devices.
 */
#ifndef RD_EV_HOTPLUG_H
#define RD_EV_HOTPLUG_H

#include "evset.h"
#include "evinput.h"

struct rd_ev_hotplug {
	struct rd_ev_input uevents;	/* fd -1 when not subscribed */
	struct rd_ev_input retry;	/* timerfd; -1 without retries */
	struct rd_ev_set *set;
	unsigned int open_retries;
};

/*
 * Set up both sources on set->epfd.  -errno when the uevent socket cannot be
 * had (devices added or removed later are then not noticed); the retry timer
 * is optional and never an error.  Fds are -1 until opened.
 */
int rd_ev_hotplug_open(struct rd_ev_hotplug *w, struct rd_ev_set *set);
void rd_ev_hotplug_close(struct rd_ev_hotplug *w);
/* Make the watched set match the kernel's devices. */
void rd_ev_hotplug_rescan(struct rd_ev_hotplug *w);

#endif

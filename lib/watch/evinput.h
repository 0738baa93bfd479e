/* SPDX-License-Identifier: MIT */
/*
 * What the watcher core knows of an input (an event source): a file descriptor to poll
 * and what to do when it is readable.  A source embeds this struct and finds
 * itself again with rd_container_of; the core never looks further.
 */
#ifndef RD_EV_INPUT_H
#define RD_EV_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct rd_ev_input {
	int fd;
	/* fd is readable (or hung up): revents as epoll reported them. */
	void (*ready)(struct rd_ev_input *src, uint32_t revents);
};

#define rd_container_of(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* Poll src->fd on epfd (level-triggered, EPOLLIN).  0 or -errno. */
int rd_ev_input_add(int epfd, struct rd_ev_input *src);
void rd_ev_input_del(int epfd, struct rd_ev_input *src);

#endif

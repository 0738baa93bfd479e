// SPDX-License-Identifier: MIT
/* Polling an event source (evinput.h). */
#include "evinput.h"

#include <errno.h>
#include <sys/epoll.h>

int rd_ev_input_add(int epfd, struct rd_ev_input *src)
{
	struct epoll_event ee = { .events = EPOLLIN, .data.ptr = src };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, src->fd, &ee) < 0 ? -errno : 0;
}

void rd_ev_input_del(int epfd, struct rd_ev_input *src)
{
	(void)epoll_ctl(epfd, EPOLL_CTL_DEL, src->fd, NULL);
}

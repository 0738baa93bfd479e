// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "ticker.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

int rd_ticker_open(struct rd_ticker *t, int input_fd, const int *signals)
{
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t mask;
	int ret;

	memset(t, 0, sizeof(*t));
	t->epfd = t->tfd = t->sfd = t->infd = -1;
	sigemptyset(&mask);
	for (; signals && *signals; signals++)
		sigaddset(&mask, *signals);
	if (sigprocmask(SIG_BLOCK, &mask, &t->oldmask) < 0)
		return -errno;
	t->masked = true;
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	t->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	t->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (t->epfd < 0 || t->tfd < 0 || t->sfd < 0)
		goto fail;
	ev.data.u32 = RD_EV_TICK;
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->tfd, &ev) < 0)
		goto fail;
	ev.data.u32 = RD_EV_SIGNAL;
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->sfd, &ev) < 0)
		goto fail;
	if (input_fd >= 0) {
		ev.data.u32 = RD_EV_INPUT;
		if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, input_fd, &ev) == 0)
			t->infd = input_fd;
		else if (errno != EPERM)	/* EPERM: a file or /dev/null, nothing to wait for */
			goto fail;
	}
	return 0;
fail:
	ret = -errno;
	rd_ticker_close(t);
	return ret;
}

int rd_ticker_arm(struct rd_ticker *t, double interval)
{
	struct itimerspec its = { 0 };

	if (!(interval >= 0) || interval > 86400)
		return -EINVAL;
	if (interval > 0) {
		double whole = floor(interval);

		its.it_interval.tv_sec = (time_t)whole;
		its.it_interval.tv_nsec = (long)((interval - whole) * 1e9);
		if (its.it_interval.tv_sec == 0 && its.it_interval.tv_nsec == 0)
			its.it_interval.tv_nsec = 1;
		its.it_value = its.it_interval;
	}
	if (timerfd_settime(t->tfd, 0, &its, NULL) < 0)
		return -errno;
	t->interval = interval;
	return 0;
}

void rd_ticker_drop_input(struct rd_ticker *t)
{
	if (t->infd >= 0)
		epoll_ctl(t->epfd, EPOLL_CTL_DEL, t->infd, NULL);
	t->infd = -1;
}

int rd_ticker_wait(struct rd_ticker *t, int timeout_ms, unsigned int *events, int *signo)
{
	struct epoll_event evs[3];
	int n;

	*events = 0;
	*signo = 0;
	do
		n = epoll_wait(t->epfd, evs, 3, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		switch (evs[i].data.u32) {
		case RD_EV_TICK: {
			uint64_t expirations;

			/* Overruns (a slow refresh) collapse into one tick. */
			if (read(t->tfd, &expirations, sizeof(expirations)) == sizeof(expirations))
				*events |= RD_EV_TICK;
			break;
		}
		case RD_EV_SIGNAL: {
			struct signalfd_siginfo si;

			if (read(t->sfd, &si, sizeof(si)) == sizeof(si)) {
				*events |= RD_EV_SIGNAL;
				*signo = (int)si.ssi_signo;
			}
			break;
		}
		case RD_EV_INPUT:
			*events |= RD_EV_INPUT;
			break;
		}
	}
	return 0;
}

void rd_ticker_close(struct rd_ticker *t)
{
	if (t->epfd >= 0)
		close(t->epfd);
	if (t->tfd >= 0)
		close(t->tfd);
	if (t->sfd >= 0)
		close(t->sfd);
	if (t->masked)
		sigprocmask(SIG_SETMASK, &t->oldmask, NULL);
	t->epfd = t->tfd = t->sfd = t->infd = -1;
	t->masked = false;
}

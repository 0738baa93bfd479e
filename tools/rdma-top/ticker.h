/* SPDX-License-Identifier: MIT */
/*
 * The loop of a live view, util-linux irqtop style: one epoll over a
 * periodic CLOCK_MONOTONIC timerfd, a signalfd and (optionally) an input fd.
 * The caller decides what a tick, a key or a signal means.
 */
#ifndef RD_TICKER_H
#define RD_TICKER_H

#include <signal.h>
#include <stdbool.h>

enum {
	RD_EV_TICK = 1u << 0,	/* the interval elapsed (once, however many expirations) */
	RD_EV_INPUT = 1u << 1,	/* the input fd is readable (or at EOF / hung up) */
	RD_EV_SIGNAL = 1u << 2,	/* a signal arrived: *signo */
};

struct rd_ticker {
	int epfd, tfd, sfd, infd;
	double interval;	/* seconds; 0: the timer is off */
	sigset_t oldmask;
	bool masked;
};

/*
 * Block the signals (a 0-terminated list) and receive them through a
 * signalfd; watch input_fd too unless it is -1 or cannot be polled (a
 * regular file, /dev/null).  The timer starts off.
 */
int rd_ticker_open(struct rd_ticker *t, int input_fd, const int *signals);
/* Fire every interval seconds from now (first tick after one interval); 0 stops it. */
int rd_ticker_arm(struct rd_ticker *t, double interval);
/* Stop watching the input fd (EOF). */
void rd_ticker_drop_input(struct rd_ticker *t);
/*
 * Wait at most timeout_ms (-1: no limit) for events.  *events is 0 on a
 * timeout.  With several signals pending, one is reported per call.
 */
int rd_ticker_wait(struct rd_ticker *t, int timeout_ms, unsigned int *events, int *signo);
/* Close everything and restore the signal mask. */
void rd_ticker_close(struct rd_ticker *t);

#endif

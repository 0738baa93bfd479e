/* SPDX-License-Identifier: MIT */
/*
 * The watch layer's interface: events and the watcher that multiplexes their sources on one epoll.
 * Code outside lib/watch/ includes this header only (lib/README.md).
 */
#ifndef RD_WATCH_LAYER_H
#define RD_WATCH_LAYER_H

#include "events.h"
#include "evwatch.h"

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The model layer's interface: devices, ports, GID tables, netdevs, RDMA netlink and verbs facts.
 * Code outside lib/model/ includes this header only (lib/README.md).
 */
#ifndef RD_MODEL_LAYER_H
#define RD_MODEL_LAYER_H

#include "device.h"
#include "gid.h"
#include "gidlive.h"
#include "gidpolicy.h"
#include "hcamodel.h"
#include "netdev.h"
#include "nldev.h"
#include "stack.h"
#include "verbs.h"

#endif

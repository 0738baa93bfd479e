/* SPDX-License-Identifier: MIT */
/*
 * fabric/ interface: the InfiniBand fabric through MADs, its model and
 * rdma-fabric's checks (fabapi.h).  Tools include this header only.
 */
#ifndef RD_FABRIC_H
#define RD_FABRIC_H

#include "fabapi.h"

#endif

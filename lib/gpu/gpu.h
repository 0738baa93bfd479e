/* SPDX-License-Identifier: MIT */
/*
 * The gpu layer's interface: GPUs and RDMA NICs as NCCL sees them
 * (gputopo.h: the graph, NCCL's settings, the decisions, --expect;
 * gpunvml.h, which it includes: NVML's NVLink and C2C facts).
 * Code outside lib/gpu/ includes this header only (lib/README.md).
 */
#ifndef RD_GPU_LAYER_H
#define RD_GPU_LAYER_H

#include "gputopo.h"

#endif

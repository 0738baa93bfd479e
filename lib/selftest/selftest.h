/* SPDX-License-Identifier: MIT */
/*
 * The selftest layer's interface: the self-test: stages over an RC QP, rdma_cm and TCP exchange, the engine.
 * Code outside lib/selftest/ includes this header only (lib/README.md).
 */
#ifndef RD_SELFTEST_LAYER_H
#define RD_SELFTEST_LAYER_H

#include "stages.h"
#include "engine.h"
#include "plan.h"
#include "mesh.h"
#include "report.h"

#endif

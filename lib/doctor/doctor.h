/* SPDX-License-Identifier: MIT */
/*
 * doctor/ interface: rdma-doctor's checks table and the engine that runs
 * them (drapi.h).  Tools include this header only.
 */
#ifndef RD_DOCTOR_H
#define RD_DOCTOR_H

#include "drapi.h"

#endif

/* SPDX-License-Identifier: MIT */
/*
 * The base layer's interface: strings, string lists, the warning sink, string parsers,
 * host lists, the files a run reads and writes.
 * Code outside lib/base/ includes this header only (lib/README.md).
 */
#ifndef RD_BASE_LAYER_H
#define RD_BASE_LAYER_H

#include "util.h"
#include "parse.h"
#include "hostlist.h"
#include "strmap.h"
#include "runfiles.h"
#include "infile.h"
#include "outfile.h"

#endif

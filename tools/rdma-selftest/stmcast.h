/* SPDX-License-Identifier: MIT */
/* rdma-selftest --mcast: a sender's stages, a receiver's tallies (text, JSON, JSON lines). */
#ifndef RD_STMCAST_H
#define RD_STMCAST_H

#include <stdbool.h>

#include "cli/cli.h"
#include "output/output.h"
#include "selftest/selftest.h"

/*
 * Send to cfg->mcast, or (server) receive from it, and print; the tool's
 * exit status (*out: the JSON writer).
 */
int rd_stmcast_main(struct rd_cli *cli, const struct rd_st_config *cfg, bool server,
		    struct rd_out **out);

#endif

/* SPDX-License-Identifier: MIT */
/* rdma-fabric's --help. */
#ifndef RD_FABUSAGE_H
#define RD_FABUSAGE_H

#define DEFAULT_NAME_MAP "/etc/rdma/ib-node-name-map"

void rd_fabric_usage(const char *prog);

#endif

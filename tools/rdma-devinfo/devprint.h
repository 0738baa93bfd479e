/* SPDX-License-Identifier: MIT */
/*
 * What rdma-devinfo prints of the scanned devices: their names (-l), a table
 * row per device (the default), or every sysfs and verbs fact of each device
 * and port (-v).  Only the devices with the -p port and the ports -p selects.
 */
#ifndef RD_DEVPRINT_H
#define RD_DEVPRINT_H

#include "cli/cli.h"
#include "model/model.h"
#include "output/output.h"

/* The default table, for -o's check. */
#define RD_DEVINFO_NTABLES 1
extern const struct rd_out_colset rd_devinfo_tables[RD_DEVINFO_NTABLES];

void rd_devinfo_print_names(struct rd_out *o, const struct rd_cli *cli,
			    struct rd_device_list *list);
void rd_devinfo_print_table(struct rd_out *o, const struct rd_cli *cli,
			    struct rd_device_list *list);
/* -v; the RDMA stack of the node is read here (once) and shown with each device. */
void rd_devinfo_print_detail(struct rd_out *o, const struct rd_cli *cli,
			     struct rd_device_list *list);

#endif

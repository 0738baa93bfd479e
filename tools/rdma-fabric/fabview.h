/* SPDX-License-Identifier: MIT */
/*
 * rdma-fabric's views: the checks report, the list of checks, --links,
 * --sm, --errors and --nhc, text and JSON through the output layer.
 */
#ifndef RD_FABVIEW_H
#define RD_FABVIEW_H

#include "fabric/fabric.h"
#include "output/output.h"

#define RD_FABVIEW_LIST_COLS 2
#define RD_FABVIEW_RESULT_COLS 5
#define RD_FABVIEW_PORT_COLS 10
#define RD_FABVIEW_SM_COLS 6
#define RD_FABVIEW_ERROR_COLS 5
extern const struct rd_col rd_fabview_list_cols[RD_FABVIEW_LIST_COLS];
extern const struct rd_col rd_fabview_result_cols[RD_FABVIEW_RESULT_COLS];
extern const struct rd_col rd_fabview_port_cols[RD_FABVIEW_PORT_COLS];
extern const struct rd_col rd_fabview_sm_cols[RD_FABVIEW_SM_COLS];
extern const struct rd_col rd_fabview_error_cols[RD_FABVIEW_ERROR_COLS];

void rd_fabview_list(struct rd_out *o);
void rd_fabview_report(struct rd_out *o, const struct rd_fab *fab, const struct rd_fab_report *r, bool verbose);
void rd_fabview_links(struct rd_out *o, const struct rd_fab *fab);
void rd_fabview_sms(struct rd_out *o, const struct rd_fab *fab);
void rd_fabview_errors(struct rd_out *o, const struct rd_fab *fab);
/* Node Health Check: silent when nothing FAILed, else one ERROR line on stdout. */
void rd_fabview_nhc(const struct rd_fab_report *r);

#endif

/* SPDX-License-Identifier: MIT */
/* rdma-doctor's GPU checks (drgpu.c): GPUDirect RDMA readiness by NCCL's rules. */
#ifndef RD_DRGPU_H
#define RD_DRGPU_H

#include "doctor_int.h"

void rd_dr_ck_gdr_backend(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp);
void rd_dr_ck_gdr_peermem(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp);
void rd_dr_ck_gdr_path(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp);
void rd_dr_ck_gdr_nic_port(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp);
void rd_dr_ck_gdr_balance(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp);
void rd_dr_ck_pci_acs(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp);
void rd_dr_ck_iommu_mode(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp);
void rd_dr_ck_gpu_bar1(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp);
void rd_dr_ck_gpu_link(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp);
void rd_dr_ck_topo_virtual(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp);
/* Release the topology the GPU checks built (the engine, after the run). */
void rd_dr_gpu_free(struct rd_dr_ctx *c);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * rdma-doctor's engine: a table of checks (drchecks.c), each with a
 * stable id, what it reads, a verdict function and the fix text, run over
 * the node, its devices and ports.  Adding a check is adding a table entry.
 * The engine never prints; the tool renders the report.
 */
#ifndef RD_DOCTOR_DRAPI_H
#define RD_DOCTOR_DRAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/model.h"
#include "sysroot/sysroot.h"
#include "base/base.h"

enum rd_dr_status {
	RD_DR_PASS = 0,
	RD_DR_SKIP,
	RD_DR_WARN,
	RD_DR_FAIL,
	RD_DR_NSTATUS,
};
const char *rd_dr_status_name(enum rd_dr_status s);	/* "PASS"...: text */
const char *rd_dr_status_word(enum rd_dr_status s);	/* "pass"...: JSON, as every tool's */

/*
 * The detail of every GPU check's SKIP on a node without a GPU: the text
 * table shows them as one line (rdma-doctor's print_report), JSON and NHC
 * keep every check.
 */
#define RD_DR_NO_GPU "no GPU on this node"

/* What one check looks at: the node once, each device, or each port. */
enum rd_dr_scope {
	RD_DR_NODE = 0,
	RD_DR_DEVICE,
	RD_DR_PORT,
};

struct rd_dr_ctx;
struct rd_dr_port;

struct rd_dr_check {
	const char *id;		/* "port.state": stable, for --only/--skip and scripts */
	enum rd_dr_scope scope;
	const char *reads;	/* where the facts come from */
	const char *summary;	/* one line for --list */
	/*
	 * Emits zero or more results through rd_dr_emit (none: does not apply,
	 * e.g. an IB check on a RoCE port).  dev/port are NULL for node checks.
	 */
	void (*verdict)(struct rd_dr_ctx *c, struct rd_device *dev, struct rd_dr_port *port);
	/* Default fix/inspect command; {dev} {port} {netdev} are filled in. */
	const char *fix;
	bool selftest;		/* runs only with --selftest */
};

const struct rd_dr_check *rd_dr_checks(size_t *n);
const struct rd_dr_check *rd_dr_check_find(const char *id);
/* Does id select check c?  Exact id, or a group prefix ("roce" selects "roce.mtu"). */
bool rd_dr_id_matches(const char *id, const struct rd_dr_check *c);

struct rd_dr_result {
	const struct rd_dr_check *check;
	char object[96];	/* "node", "mlx5_0", "mlx5_0/1", "mlx5_0/1 (ens1f0)" */
	char dev[64];		/* "" for node results */
	unsigned int port;	/* 0 unless a port result */
	enum rd_dr_status status;
	char detail[320];
	char fix[320];		/* "" when there is nothing to do */
};

struct rd_dr_report {
	struct rd_dr_result *v;
	size_t n, cap;
	unsigned int count[RD_DR_NSTATUS];
	unsigned int devices, ports;
	double interval;	/* seconds the counters were sampled over; 0 none */
};
void rd_dr_report_free(struct rd_dr_report *r);
enum rd_dr_status rd_dr_report_worst(const struct rd_dr_report *r);
/* The most important FAIL (a device or link fault before what may follow from it); NULL if none. */
const struct rd_dr_result *rd_dr_report_first_fail(const struct rd_dr_report *r);

/* --expect FILE: key=value lines, '#' comments. */
enum rd_dr_expect_key {
	RD_EXP_DEVICES = 0,	/* number of RDMA devices */
	RD_EXP_RATE,		/* port rate, Gb/s */
	RD_EXP_MTU,		/* netdev MTU of RoCE ports */
	RD_EXP_ACTIVE_MTU,	/* RoCE/IB MTU of ports: 256..4096 */
	RD_EXP_FW,		/* fw_ver of every device */
	RD_EXP_PCIE_WIDTH,	/* x of the device's PCI function */
	RD_EXP_PCIE_SPEED,	/* GT/s */
	RD_EXP_ROCE_MODE,	/* v1 | v2: rdma_cm default */
	RD_EXP_GID_INDEX,	/* the best GID index */
	RD_EXP_LINK_LAYER,	/* InfiniBand | Ethernet */
	RD_EXP_GDR,		/* GPUs that must have GPUDirect RDMA */
	RD_EXP_NKEYS,
};
/* "DEV.key=value" or "DEV/PORT.key=value": for one device or one port only. */
struct rd_dr_expect_scoped {
	char dev[64];
	unsigned int port;	/* 0: every port of dev */
	enum rd_dr_expect_key key;
	char val[64];
	double num;
	size_t line;		/* in the file, for messages */
};
#define RD_EXP_MAX_SCOPED 256
struct rd_dr_expect {
	bool has[RD_EXP_NKEYS];
	size_t line[RD_EXP_NKEYS];	/* of each node-wide key, for messages */
	char val[RD_EXP_NKEYS][64];
	double num[RD_EXP_NKEYS];
	/* scoped lines, which win over the node-wide key for their device or port */
	struct rd_dr_expect_scoped scoped[RD_EXP_MAX_SCOPED];
	size_t nscoped;
};
const char *rd_dr_expect_key_name(enum rd_dr_expect_key k);
/*
 * Read an --expect file (rd_infile's limits: 64 KiB, 1000 lines of 511 bytes;
 * a pipe or FIFO silent for timeout_ms is an error).  -EINVAL with why[]
 * naming the line ("line 3: unknown key 'foo' (known: ...)"), or -errno with
 * why[] saying why the file cannot be read.
 */
int rd_dr_expect_read(const char *path, int timeout_ms, struct rd_dr_expect *e, char *why,
		      size_t why_len);

struct rd_dr_opts {
	const struct rd_sysroot *sr;
	const struct rd_strlist *only;	/* ids or groups; NULL/empty: all */
	const struct rd_strlist *skip;
	unsigned int port;		/* -p, 0 = all */
	double interval;		/* error-counter sampling; 0: one reading */
	bool selftest;
	unsigned int selftest_ms;	/* per-port time limit */
	const struct rd_dr_expect *expect;	/* NULL: none */
	int scan_err;			/* the device scan's result (-ENOENT: no class) */
};

/*
 * How many checks of the table opts selects (--only, --skip, --selftest):
 * 0 means a run would check nothing, which a tool reports as a usage error.
 */
size_t rd_dr_selected_count(const struct rd_dr_opts *opts);

/*
 * Run every selected check over list (already scanned, honouring -d).
 * 0, or -ENOMEM.  Warnings (unreadable files) go to w.
 */
int rd_doctor_run(const struct rd_dr_opts *opts, struct rd_device_list *list,
		  struct rd_dr_report *rep, struct rd_warnings *w);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * Which RDMA stack a node runs: the distribution's ("inbox": the kernel's own
 * RDMA modules and rdma-core's user space) or NVIDIA's MLNX_OFED / DOCA-OFED,
 * which replaces both, and whether the two halves match.  A node whose
 * kernel modules and user space come from different stacks is a classic
 * cause of verbs failing in odd ways; a host on another stack than its
 * neighbours is a fleet outlier.
 *
 * Read from files only, nothing is run (an installed ofed_info is a script):
 *   kernel     /sys/module/mlx_compat is MLNX_OFED's compatibility module, loaded
 *              with its ib_core; the device driver's /sys/module/<driver>/version
 *              (MLNX_OFED's mlx5_core says e.g. "5.8-2.0.3"; inbox drivers of
 *              current kernels have none);
 *   user space /usr/bin/ofed_info exists (MLNX_OFED's ofed-scripts, always
 *              installed with it) and the release its text names
 *              ("MLNX_OFED_LINUX-5.8-2.0.3.0"); the libibverbs package's version in
 *              dpkg's status ("44.0-2" from Debian, "58mlnx43-1.58101" from
 *              MLNX_OFED); the version in libibverbs.so.1's file name ("1.14.44.0";
 *              MLNX_OFED's rdma-core keeps upstream's numbers there).
 */
#ifndef RD_STACK_H
#define RD_STACK_H

#include <stdbool.h>

#include "sysroot/sysroot.h"

enum rd_stack_kind {
	RD_STACK_UNKNOWN = 0,
	RD_STACK_INBOX,
	RD_STACK_OFED,
};

struct rd_stack {
	enum rd_stack_kind kernel;	/* UNKNOWN: no /sys/module to read */
	enum rd_stack_kind user;	/* UNKNOWN: no package, ofed_info or library found */
	char verbs_pkg[64];		/* libibverbs package version, "" */
	char ofed[64];			/* "MLNX_OFED_LINUX-5.8-2.0.3.0", "" */
	char verbs_lib[32];		/* "1.14.44.0" from libibverbs.so.1's target, "" */
	/*
	 * Driver modules' versions asked for (rd_stack_driver_version), each
	 * read once a run: every device of a driver shows the same.  A node
	 * has a few RDMA drivers; past these, a version is read each time.
	 */
	struct rd_stack_driver {
		char name[32];
		int ret;		/* the read's result: 0 or -errno */
		char version[64];
	} drivers[4];
	unsigned int ndrivers;
};

/* Fill st from the node (or the --sysroot tree).  Never fails: unknown halves stay UNKNOWN. */
void rd_stack_read(const struct rd_sysroot *sr, struct rd_stack *st);
/* "inbox", "MLNX_OFED", "mixed" (the halves differ) or NULL (nothing known). */
const char *rd_stack_name(const struct rd_stack *st);
const char *rd_stack_kind_name(enum rd_stack_kind k);
/* One line for people: "inbox (libibverbs1 44.0-2)", "MLNX_OFED (MLNX_OFED_LINUX-5.8-2.0.3.0)"... */
void rd_stack_describe(const struct rd_stack *st, char *buf, size_t len);
/* The driver module's version (/sys/module/<driver>/version); -ENOENT when it has none. */
int rd_driver_version(const struct rd_sysroot *sr, const char *driver, char *buf, size_t len);
/* The same, kept in st (read once a run per driver); a version longer than len is -EOVERFLOW. */
int rd_stack_driver_version(struct rd_stack *st, const struct rd_sysroot *sr, const char *driver,
			    char *buf, size_t len);

/* Parsers, for tests: a dpkg status text's libibverbs version; ofed_info's release name. */
bool rd_stack_dpkg_version(const char *status_text, char *buf, size_t len);
bool rd_stack_ofed_release(const char *text, char *buf, size_t len);

#endif

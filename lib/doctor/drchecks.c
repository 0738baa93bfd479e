// SPDX-License-Identifier: MIT
/*
 * rdma-doctor's checks: the table at the end of this file is the one place a
 * check is added.  A verdict function looks at facts the engine gathered (or
 * reads its own through drsys/drnl) and emits PASS / WARN / FAIL / SKIP with
 * one line of detail; the fix text comes from the table unless the verdict
 * has a more precise one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor_int.h"
#include "drgpu.h"
#include "drnl.h"
#include "model/model.h"

#define MEMLOCK_MIN (64ull << 20)

static const char *errstr(int err)
{
	return rd_read_strerror(err);
}

/* A live path or its copy under --sysroot, for access(). */
static bool node_access(const struct rd_dr_ctx *c, const char *path, int *err)
{
	char full[RD_PATH_MAX];

	if (rd_sys_resolve(c->sr, full, sizeof(full), path)) {
		*err = ENAMETOOLONG;
		return false;
	}
	if (access(full, R_OK | W_OK) == 0)
		return true;
	*err = errno;
	return false;
}

/* ---- devices and software ---- */

/* Why a device listed in class/infiniband cannot serve, or NULL if it reads whole. */
static const char *unreadable_why(const struct rd_device *d)
{
	if (!(d->known & RD_DEV_NODE_TYPE))
		return "no readable node_type";
	if (d->nports == 0)
		return "no ports";
	return NULL;
}

static void ck_dev_present(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_strlist own = { 0 }, bad = { 0 }, missing = { 0 };
	const struct rd_strlist *names = &own;
	const char *exp;
	double n;
	int ret;

	(void)d;
	(void)dp;
	/*
	 * Every device of the node, not only those -d names: the count is the
	 * node's.  The scan that made the list has listed them already.
	 */
	if (c->list->scanned) {
		names = &c->list->names;
		ret = c->list->class_ret;
	} else {
		ret = rd_device_names(c->sr, &own);
	}
	if (ret == -ENOENT || (ret == 0 && names->n == 0)) {
		rd_dr_emit(c, RD_DR_FAIL, NULL,
			   "no RDMA device (%s)", ret ? "no /sys/class/infiniband: no RDMA driver loaded" :
			   "/sys/class/infiniband is empty");
		rd_strlist_free(&own);
		return;
	}
	/* A device listed but half gone (a dangling link, no ports) is a fault, not a SKIP. */
	for (size_t i = 0; i < names->n; i++) {
		const struct rd_device *ld = NULL;
		struct rd_device tmp;
		struct rd_warnings w = { 0 };
		const char *why;

		for (unsigned int k = 0; k < c->list->n && !ld; k++)
			if (strcmp(c->list->v[k].name, names->v[i]) == 0)
				ld = &c->list->v[k];
		if (ld) {
			why = unreadable_why(ld);
		} else if ((c->list->scanned && rd_strlist_has(&c->list->unreadable, names->v[i])) ||
			   rd_device_read_flags(c->sr, names->v[i], &tmp, &w, RD_SCAN_NO_NETDEVS)) {
			why = "cannot be read";	/* as the scan found it, or reading it now */
		} else {
			why = unreadable_why(&tmp);
			rd_device_free(&tmp);
		}
		rd_warnings_free(&w);
		if (why) {
			char item[160];

			snprintf(item, sizeof(item), "%s (%s)", names->v[i], why);
			if (rd_strlist_add(&bad, item))
				break;
		}
	}
	exp = rd_dr_expected(c, RD_EXP_DEVICES, &n);
	/* a device (or port) that --expect names by name must be here */
	for (size_t i = 0; c->o->expect && i < c->o->expect->nscoped; i++) {
		const struct rd_dr_expect_scoped *x = &c->o->expect->scoped[i];
		char item[160];

		if (rd_strlist_has(names, x->dev)) {
			const struct rd_device *ld = NULL;

			for (unsigned int k = 0; k < c->list->n && !ld; k++)
				if (strcmp(c->list->v[k].name, x->dev) == 0)
					ld = &c->list->v[k];
			if (!x->port || !ld || x->port <= ld->nports)
				continue;
			snprintf(item, sizeof(item), "%s has no port %u (--expect line %zu)", x->dev,
				 x->port, x->line);
		} else {
			snprintf(item, sizeof(item), "%s is missing (--expect line %zu names it)", x->dev,
				 x->line);
		}
		if (!rd_strlist_has(&missing, item) && rd_strlist_add(&missing, item))
			break;
	}
	if (bad.n) {
		char *joined = rd_strlist_join(&bad, ", ");

		rd_dr_emit(c, RD_DR_FAIL, "dmesg | tail -50; rdma dev show (a driver unbinding, a hot-unplug "
			   "or a firmware fault left the device half gone: reload the driver)",
			   "%zu of %zu RDMA device%s unusable: %s", bad.n, names->n, names->n == 1 ? "" : "s",
			   joined ? joined : "?");
		free(joined);
	} else if (missing.n) {
		char *joined = rd_strlist_join(&missing, ", ");

		rd_dr_emit(c, RD_DR_FAIL, "rdma dev show; dmesg | grep -i -e mlx -e rdma (a device that "
			   "did not come up, or a name that changed: check the driver and the --expect "
			   "file)", "%s", joined ? joined : "?");
		free(joined);
	} else if (exp && fabs(n - (double)names->n) > 0.5) {
		/* The fix fits the miss: fewer devices is a device that did not come up (its
		 * driver is loaded: the others are here), more is an expectation to update. */
		const char *fix = (double)names->n > n ?
			"rdma dev show (more devices than expected: a new card or a VF; update devices= "
			"in the --expect file)" :
			"rdma dev show; lspci -nn | grep -i -e infiniband -e ethernet; dmesg | grep -i -e mlx "
			"-e rdma (a device that did not come up: its driver probe, firmware or PCIe link)";

		rd_dr_emit(c, RD_DR_FAIL, names->n ? fix : NULL, "%zu RDMA devices, expected %s", names->n, exp);
	} else {
		rd_dr_emit(c, RD_DR_PASS, NULL, "%zu RDMA device%s", names->n, names->n == 1 ? "" : "s");
	}
	rd_strlist_free(&bad);
	rd_strlist_free(&missing);
	rd_strlist_free(&own);
}

static void ck_dev_rdma_cm(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	int err = 0;

	(void)d;
	(void)dp;
	if (!c->live && !rd_sys_exists(c->sr, "/dev")) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "this sysroot has no /dev");
		return;
	}
	if (node_access(c, "/dev/infiniband/rdma_cm", &err)) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "/dev/infiniband/rdma_cm is read-write for uid %u",
			   (unsigned int)getuid());
	} else if (err == ENOENT) {
		rd_dr_emit(c, RD_DR_FAIL, "modprobe rdma_ucm",
			   "no /dev/infiniband/rdma_cm: rdma_cm applications (NCCL, MPI, perftest -R) cannot run");
	} else {
		rd_dr_emit(c, RD_DR_FAIL, NULL, "/dev/infiniband/rdma_cm: %s for uid %u",
			   strerror(err), (unsigned int)getuid());
	}
}

static void ck_sys_memlock(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	uint64_t bytes;
	bool unlimited;
	int ret;

	(void)d;
	(void)dp;
	ret = rd_memlock_limit(c->sr, &bytes, &unlimited);
	if (ret) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "cannot read /proc/self/limits: %s", errstr(ret));
	} else if (unlimited) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "RLIMIT_MEMLOCK unlimited");
	} else if (bytes < MEMLOCK_MIN) {
		rd_dr_emit(c, RD_DR_WARN, NULL,
			   "RLIMIT_MEMLOCK %llu KiB: memory registration beyond it fails (ibv_reg_mr ENOMEM)",
			   (unsigned long long)(bytes >> 10));
	} else {
		rd_dr_emit(c, RD_DR_PASS, NULL, "RLIMIT_MEMLOCK %llu MiB",
			   (unsigned long long)(bytes >> 20));
	}
}

static void ck_sys_modules(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	static const char *const mods[] = { "ib_core", "ib_uverbs", "rdma_ucm" };
	char missing[96] = "";
	size_t len = 0;

	(void)d;
	(void)dp;
	if (!c->live && rd_sys_check_dir(c->sr, "/sys/module")) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "this sysroot has no /sys/module");
		return;
	}
	for (size_t i = 0; i < RD_ARRAY_SIZE(mods); i++) {
		if (rd_module_present(c->sr, mods[i]))
			continue;
		int w = snprintf(missing + len, sizeof(missing) - len, "%s%s", len ? " " : "", mods[i]);

		if (w > 0 && (size_t)w < sizeof(missing) - len)
			len += (size_t)w;
	}
	if (len) {
		char fix[320];

		snprintf(fix, sizeof(fix), "modprobe -a %s", missing);
		rd_dr_emit(c, RD_DR_FAIL, fix, "kernel module%s not loaded: %s",
			   strchr(missing, ' ') ? "s" : "", missing);
	} else {
		rd_dr_emit(c, RD_DR_PASS, NULL, "ib_core, ib_uverbs and rdma_ucm loaded");
	}
}

/* Which RDMA stack, and do its kernel and user-space halves match (model/stack.h). */
static void ck_sys_stack(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_stack st;
	const char *name;
	char desc[320];

	(void)d;
	(void)dp;
	rd_stack_read(c->sr, &st);
	name = rd_stack_name(&st);
	if (!name) {
		rd_dr_emit(c, RD_DR_SKIP, NULL,
			   "no /sys/module to read, no libibverbs package or library found");
		return;
	}
	rd_stack_describe(&st, desc, sizeof(desc));
	if (strcmp(name, "mixed") == 0)
		rd_dr_emit(c, RD_DR_WARN,
			   st.kernel == RD_STACK_OFED ?
			   "reinstall MLNX_OFED's user space (mlnxofedinstall, or its libibverbs/rdma-core packages), "
			   "or remove MLNX_OFED (ofed_uninstall.sh) so that the kernel's own modules load" :
			   "load MLNX_OFED's kernel modules (/etc/init.d/openibd restart; their DKMS build "
			   "for this kernel), or remove MLNX_OFED's user space for the distribution's rdma-core",
			   "%s", desc);
	else
		rd_dr_emit(c, RD_DR_PASS, NULL, "%s", desc);
}

static void ck_ns_mode(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	bool exclusive = false;
	const char *via;
	int ret;

	(void)d;
	(void)dp;
	if (c->live) {
		ret = rd_nl_netns_mode(&exclusive, 1000);
		via = "RDMA netlink";
	} else {
		char v[8];

		ret = rd_sys_read_str(c->sr, v, sizeof(v), "/sys/module/ib_core/parameters/netns_mode");
		via = "ib_core netns_mode";
		if (!ret)
			exclusive = v[0] == 'N' || v[0] == '0';
	}
	if (ret) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "RDMA netns mode unknown (%s: %s)", via,
			   ret == -EOPNOTSUPP ? "not supported by this kernel" : errstr(ret));
		return;
	}
	if (exclusive)
		rd_dr_emit(c, RD_DR_PASS, "rdma system show",
			   "exclusive: each RDMA device belongs to one network namespace");
	else
		rd_dr_emit(c, RD_DR_PASS, "rdma system show",
			   "shared: every network namespace sees every RDMA device");
}

static void ck_dev_provider(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	(void)dp;
	if (!c->live) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "verbs are not used with --sysroot");
	} else if (d->verbs) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "libibverbs opens %s", d->name);
	} else {
		rd_dr_emit(c, RD_DR_FAIL, NULL, "libibverbs cannot open %s: %s", d->name,
			   d->verbs_error[0] ? d->verbs_error : "unknown reason");
	}
}

static void ck_dev_uverbs(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	char path[64];
	int err = 0;

	(void)dp;
	/* A copied tree often leaves the class out: no evidence, not a fault. */
	if (!d->uverbs[0] && !c->live && !rd_sys_exists(c->sr, "/sys/class/infiniband_verbs")) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "this sysroot has no /sys/class/infiniband_verbs "
			   "(a copy without it)");
		return;
	}
	if (!d->uverbs[0]) {
		rd_dr_emit(c, RD_DR_FAIL, "modprobe ib_uverbs",
			   "no uverbs device for %s: userspace verbs cannot reach it", d->name);
		return;
	}
	snprintf(path, sizeof(path), "/dev/infiniband/%s", d->uverbs);
	if (!c->live && !rd_sys_exists(c->sr, "/dev"))
		rd_dr_emit(c, RD_DR_SKIP, NULL, "%s exists; this sysroot has no /dev", d->uverbs);
	else if (node_access(c, path, &err))
		rd_dr_emit(c, RD_DR_PASS, NULL, "%s is read-write for uid %u", path,
			   (unsigned int)getuid());
	else if (err == ENOENT)
		rd_dr_emit(c, RD_DR_FAIL, NULL, "%s is missing (udev did not create it)", path);
	else
		rd_dr_emit(c, RD_DR_FAIL, NULL, "%s: %s for uid %u", path, strerror(err),
			   (unsigned int)getuid());
}

/* The kernel module of the RDMA driver that sits on a netdev/PCI driver. */
static const char *ib_module_of(const struct rd_device *d)
{
	static const struct {
		const char *drv, *ib;
	} map[] = {
		{ "mlx5_core", "mlx5_ib" }, { "mlx4_core", "mlx4_ib" }, { "ice", "irdma" },
		{ "i40e", "irdma" }, { "bnxt_en", "bnxt_re" }, { "qede", "qedr" },
		{ "hns3", "hns_roce_hw_v2" }, { "ionic", "ionic_rdma" }, { "erdma", "erdma" },
		{ "efa", "efa" }, { "vmw_pvrdma", "vmw_pvrdma" },
	};

	if (strncmp(d->name, "rxe", 3) == 0)
		return "rdma_rxe";
	if (strncmp(d->name, "siw", 3) == 0)
		return "siw";
	for (size_t i = 0; i < RD_ARRAY_SIZE(map); i++)
		if (strcmp(d->driver, map[i].drv) == 0)
			return map[i].ib;
	return NULL;
}

static void ck_dev_driver(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	const char *ib = ib_module_of(d);
	char fix[320];

	(void)dp;
	if (!c->live && rd_sys_check_dir(c->sr, "/sys/module")) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "this sysroot has no /sys/module");
		return;
	}
	if (!ib) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "driver %s: RDMA module not known to rdma-doctor",
			   d->driver[0] ? d->driver : "unknown");
		return;
	}
	snprintf(fix, sizeof(fix), "modprobe %s", ib);
	if (!rd_module_present(c->sr, ib)) {
		rd_dr_emit(c, RD_DR_FAIL, fix, "module %s not in /sys/module", ib);
		return;
	}
	if (d->driver[0] && !rd_module_present(c->sr, d->driver)) {
		snprintf(fix, sizeof(fix), "modprobe %s", d->driver);
		rd_dr_emit(c, RD_DR_FAIL, fix, "module %s not in /sys/module", d->driver);
		return;
	}
	if (d->driver[0])
		rd_dr_emit(c, RD_DR_PASS, NULL, "%s and %s loaded", d->driver, ib);
	else
		rd_dr_emit(c, RD_DR_PASS, NULL, "%s loaded", ib);
}

/* ---- PCIe ---- */

static void ck_pci_link(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_pci_link v[8];
	size_t n = 0;
	const char *exp_w, *exp_s;
	char fix[320];
	double num, num_s = 0;
	int ret;

	(void)dp;
	ret = rd_pci_chain(c->files, d->name, v, RD_ARRAY_SIZE(v), &n);
	if (ret || n == 0) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "%s is not on PCI%s", d->name,
			   d->parent[0] ? " (soft device)" : "");
		return;
	}
	if (!v[0].known) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "%s has no PCIe link attributes (a VF or a virtual function?)",
			   v[0].bdf);
		return;
	}
	/*
	 * An expectation missed is a FAIL, whatever else the link shows: judged
	 * before the WARN of a link below its maximum, which would hide it.
	 */
	/* Both asked for first: a width miss ends the check, yet both applied. */
	exp_s = rd_dr_expected(c, RD_EXP_PCIE_SPEED, &num_s);
	exp_w = rd_dr_expected(c, RD_EXP_PCIE_WIDTH, &num);
	if (exp_w && fabs(num - v[0].cur_width) > 0.5) {
		/* Wider than expected is the expectation to correct, not the slot. */
		if (v[0].cur_width > num)
			snprintf(fix, sizeof(fix), "the link is wider than expected: set pcie_width=%u in "
				 "the --expect file if x%u is this host's design", v[0].cur_width,
				 v[0].cur_width);
		else
			snprintf(fix, sizeof(fix), "lspci -vvs %s | grep -E 'LnkCap|LnkSta' (reseat the card "
				 "in an x%s slot, or check the riser and the BIOS's bifurcation)", v[0].bdf,
				 exp_w);
		rd_dr_emit(c, RD_DR_FAIL, fix, "%s runs x%u, expected x%s", v[0].bdf, v[0].cur_width,
			   exp_w);
		return;
	}
	if (exp_s && fabs(num_s - v[0].cur_gts) > 0.05) {
		if (v[0].cur_gts > num_s)
			snprintf(fix, sizeof(fix), "the link is faster than expected: set pcie_speed=%g in "
				 "the --expect file if this host's slot is of that generation", v[0].cur_gts);
		else
			snprintf(fix, sizeof(fix), "lspci -vvs %s | grep -E 'LnkCap|LnkSta' (the slot's PCIe "
				 "generation and the BIOS's link speed setting)", v[0].bdf);
		rd_dr_emit(c, RD_DR_FAIL, fix, "%s runs %.1f GT/s, expected %s GT/s", v[0].bdf,
			   v[0].cur_gts, exp_s);
		return;
	}
	if (exp_w && exp_s) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "%s x%u %.1f GT/s, as expected", v[0].bdf,
			   v[0].cur_width, v[0].cur_gts);
		return;
	}
	/* Each link is shared by a function and its upstream port: judge it by both ends' maximum. */
	for (size_t i = 0; i < n; i++) {
		double max_gts = v[i].max_gts;
		unsigned int max_w = v[i].max_width;

		if (!v[i].known)
			continue;
		if (i + 1 < n && v[i + 1].known) {
			max_gts = fmin(max_gts, v[i + 1].max_gts);
			max_w = max_w < v[i + 1].max_width ? max_w : v[i + 1].max_width;
		}
		/* What the user expects of the device's own link is not a degradation. */
		if (i == 0 && exp_w)
			max_w = v[0].cur_width;
		if (i == 0 && exp_s)
			max_gts = v[0].cur_gts;
		if (v[i].cur_width < max_w || v[i].cur_gts + 0.05 < max_gts) {
			snprintf(fix, sizeof(fix), "lspci -vvs %s | grep -E 'LnkCap|LnkSta'", v[i].bdf);
			rd_dr_emit(c, RD_DR_WARN, fix,
				   "%s%s runs x%u %.1f GT/s of x%u %.1f GT/s (%.0f%% of its bandwidth: "
				   "slot, riser or BIOS setting)", i ? "upstream bridge " : "", v[i].bdf,
				   v[i].cur_width, v[i].cur_gts, max_w, max_gts,
				   100.0 * (v[i].cur_width * v[i].cur_gts) / (max_w * max_gts));
			return;
		}
	}
	rd_dr_emit(c, RD_DR_PASS, NULL, "%s x%u %.1f GT/s, at its maximum%s", v[0].bdf,
		   v[0].cur_width, v[0].cur_gts, n > 1 ? " (upstream too)" : "");
}

/* ---- firmware ---- */

/* A device whose firmware is the kernel itself: rxe and siw sit on a netdev, not on PCI. */
static bool soft_device(const struct rd_device *d)
{
	return d->parent[0] || (!d->pci[0] && (!strcmp(d->driver, "rdma_rxe") ||
					       !strcmp(d->driver, "siw") || !d->driver[0]));
}

static const char *model_of(const struct rd_device *d)
{
	return d->hca_type[0] ? d->hca_type : d->board_id;
}

static void ck_fw_uniform(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	const char *model = model_of(d);
	const char *exp = rd_dr_expected(c, RD_EXP_FW, NULL);
	unsigned int same = 0, others = 0, best = 0;
	const char *major = NULL;
	char fix[320];

	(void)dp;
	if (!d->fw_ver[0]) {
		if (soft_device(d)) {
			rd_dr_emit(c, RD_DR_SKIP, NULL, "%s has no firmware (soft device on %s)", d->name,
				   d->parent[0] ? d->parent : "no PCI function");
			return;
		}
		/* A hardware HCA always reports its firmware: its query failed. */
		snprintf(fix, sizeof(fix), "dmesg | grep -i '%s' (the driver could not query the "
			 "firmware: a firmware reset or a power cycle, then an update)",
			 d->pci[0] ? d->pci : d->name);
		rd_dr_emit(c, RD_DR_FAIL, fix, "%s (%s%s%s) reports no firmware version", d->name,
			   d->driver[0] ? d->driver : "hardware", d->pci[0] ? " at " : "", d->pci);
		return;
	}
	if (exp && strcmp(exp, d->fw_ver) != 0) {
		rd_dr_emit(c, RD_DR_FAIL, NULL, "firmware %s, expected %s", d->fw_ver, exp);
		return;
	}
	/*
	 * The version most devices of this model run is the reference (on a tie
	 * the newest): only a device that differs from it is an outlier, and only
	 * the outliers are told to update.
	 */
	for (unsigned int i = 0; i < c->list->n; i++) {
		const struct rd_device *a = &c->list->v[i];
		unsigned int cnt = 0;

		if (!model[0] || strcmp(model_of(a), model) != 0 || !a->fw_ver[0])
			continue;
		if (a != d) {
			others++;
			if (strcmp(a->fw_ver, d->fw_ver) == 0)
				same++;
		}
		for (unsigned int k = 0; k < c->list->n; k++) {
			const struct rd_device *b = &c->list->v[k];

			if (strcmp(model_of(b), model) == 0 && strcmp(b->fw_ver, a->fw_ver) == 0)
				cnt++;
		}
		if (cnt > best || (cnt == best && major && strverscmp(a->fw_ver, major) > 0)) {
			best = cnt;
			major = a->fw_ver;
		}
	}
	if (!model[0] || others == 0) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "firmware %s (no other device of this model)", d->fw_ver);
	} else if (same == others) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "firmware %s, as on the other %u %s device%s", d->fw_ver,
			   others, model, others == 1 ? "" : "s");
	} else if (major && strcmp(major, d->fw_ver) != 0) {
		if (!strncmp(d->driver, "mlx", 3) && d->pci[0])
			snprintf(fix, sizeof(fix), "mlxfwmanager -d %s --online -u (or flint with the "
				 "%s image the others run)", d->pci, major);
		else
			snprintf(fix, sizeof(fix), "update %s's firmware to %s with the vendor's tool",
				 d->name, major);
		rd_dr_emit(c, RD_DR_WARN, fix, "firmware %s, while %u of the %u %s devices run %s%s",
			   d->fw_ver, best, others + 1, model, major,
			   2 * best > others + 1 ? "" : " (newer)");
	} else {
		unsigned int diff = others - same;

		if (2 * (same + 1) > others + 1)
			rd_dr_emit(c, RD_DR_PASS, NULL, "firmware %s, as %u of the %u %s devices (%u %s: "
				   "see %s check)", d->fw_ver, same + 1, others + 1, model, diff,
				   diff == 1 ? "differs" : "differ", diff == 1 ? "its" : "their");
		else
			rd_dr_emit(c, RD_DR_PASS, NULL, "firmware %s, the newest of the %u %s devices "
				   "(%u %s: see %s check)", d->fw_ver, others + 1, model, diff,
				   diff == 1 ? "differs" : "differ", diff == 1 ? "its" : "their");
	}
}

/* ---- ports ---- */

static void ck_port_state(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	const struct rd_port *p = dp->p;
	const char *st = (p->known & RD_PORT_STATE) ? rd_port_state_name(p->state) : NULL;
	const char *ph = (p->known & RD_PORT_PHYS_STATE) ? rd_phys_state_name(p->phys_state) : NULL;
	const char *exp = rd_dr_expected(c, RD_EXP_LINK_LAYER, NULL);
	const char *ll = (p->known & RD_PORT_LINK_LAYER) ? rd_link_layer_name(p->link_layer) : NULL;

	(void)d;
	if (!st || !ph) {
		/* The kernel always gives a port's state: one that cannot be read is a fault. */
		rd_dr_emit(c, RD_DR_FAIL, "dmesg | tail -50; ibstat {dev} {port} (the device is failing "
			   "or half removed)", "state unreadable (see the warnings)");
		return;
	}
	if (exp && ll && strcmp(exp, ll) != 0) {
		char fix[320];

		/* The port type of a VPI card is a firmware setting: mstconfig, then a reset. */
		if (!strncmp(d->driver, "mlx", 3) && d->pci[0])
			snprintf(fix, sizeof(fix), "mstconfig -d %s set LINK_TYPE_P%u=%d, then a reboot "
				 "(or mlxfwreset -d %s reset)", d->pci, p->num,
				 strcmp(exp, "InfiniBand") == 0 ? 1 : 2, d->pci);
		else
			snprintf(fix, sizeof(fix), "set the port type to %s in the NIC's firmware "
				 "configuration (the vendor's tool), then reboot", exp);
		rd_dr_emit(c, RD_DR_FAIL, fix, "link layer %s, expected %s", ll, exp);
		return;
	}
	if (p->state == 4 && p->phys_state == 5) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "ACTIVE, LinkUp");
		return;
	}
	if (dp->roce || !dp->ib)
		rd_dr_emit(c, RD_DR_FAIL, dp->netdev[0] ? "ip link set dev {netdev} up; ethtool {netdev}" :
			   NULL, "%s, %s", st, ph);
	else if (p->state == 2)
		rd_dr_emit(c, RD_DR_FAIL, "sminfo; ibstat {dev} {port}",
			   "%s, %s: the link is up but no subnet manager configured the port", st, ph);
	else
		rd_dr_emit(c, RD_DR_FAIL, NULL, "%s, %s", st, ph);
}

static void ck_port_rate(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	const struct rd_port *p = dp->p;
	const struct rd_hca_model *model;
	const char *exp;
	double num, top = 0;
	const char *top_name = NULL;
	char top_obj[96] = "";

	if (!(p->known & RD_PORT_RATE)) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "rate unreadable");
		return;
	}
	if (!(p->known & RD_PORT_STATE) || p->state != 4) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "port not ACTIVE: no rate is negotiated");
		return;
	}
	exp = rd_dr_expected(c, RD_EXP_RATE, &num);
	if (exp && fabs(num - p->rate.gbps) > 0.01 * num) {
		rd_dr_emit(c, RD_DR_FAIL, NULL, "%s, expected %s Gb/s", p->rate_str, exp);
		return;
	}
	/* What the user expects is the reference: nothing below it is a degradation. */
	if (exp) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "%s, as expected", p->rate_str);
		return;
	}
	/* A 4X InfiniBand HCA port that trained at fewer lanes (soft devices report 1X). */
	if (dp->ib && d->pci[0] && p->rate.width[0] &&
	    (strcmp(p->rate.width, "1X") == 0 || strcmp(p->rate.width, "2X") == 0)) {
		rd_dr_emit(c, RD_DR_WARN, NULL, "%s: an HCA port trained at %s of 4X lanes (cable or port fault)",
			   p->rate_str, p->rate.width);
		return;
	}
	/* An InfiniBand lane speed below the best the HCA model trains at. */
	model = dp->ib && d->pci[0] ? rd_hca_model_of(c->sr, d->name) : NULL;
	if (model && model->ib_speed && p->rate.speed[0] &&
	    rd_ib_speed_rank(p->rate.speed) > 0 &&
	    rd_ib_speed_rank(p->rate.speed) < rd_ib_speed_rank(model->ib_speed)) {
		rd_dr_emit(c, RD_DR_WARN, "ibportstate -C {dev} -D 0 {port} query (LinkSpeedEnabled); "
			   "check the cable's rating and the switch port's speed; --expect rate= if "
			   "this is the fabric's speed", "%s: the %s trains at %s, this port at %s", p->rate_str,
			   model->name, model->ib_speed, p->rate.speed);
		return;
	}
	/* RoCE: the RDMA rate must keep up with what the netdev negotiated. */
	if (dp->roce && dp->has_nd && dp->nd.present && dp->nd.speed_mbps > 0 &&
	    p->rate.gbps + 0.5 < (double)dp->nd.speed_mbps / 1000) {
		rd_dr_emit(c, RD_DR_WARN, "ethtool {netdev}; rdma link show {dev}/{port}; reload the "
			   "driver or update the firmware if they stay apart",
			   "%s while %s runs %lld Mb/s (the RDMA side trained lower: lanes or a firmware "
			   "fault)", p->rate_str, dp->netdev, (long long)dp->nd.speed_mbps);
		return;
	}
	/* Ports of the same HCA model: the fastest active one is what this one can do. */
	for (unsigned int i = 0; i < c->list->n; i++) {
		const struct rd_device *a = &c->list->v[i];

		if (!d->hca_type[0] || strcmp(a->hca_type, d->hca_type) != 0 ||
		    strcmp(a->board_id, d->board_id) != 0)
			continue;
		for (unsigned int j = 0; j < a->nports; j++) {
			const struct rd_port *q = &a->ports[j];

			if (!(q->known & RD_PORT_RATE) || q->state != 4 || q->link_layer != p->link_layer)
				continue;
			if (q->rate.gbps > top) {
				top = q->rate.gbps;
				top_name = q->rate_str;
				snprintf(top_obj, sizeof(top_obj), "%s/%u", a->name, q->num);
			}
		}
	}
	if (top_name && p->rate.gbps + 0.5 < top) {
		rd_dr_emit(c, RD_DR_WARN, NULL, "%s, while %s of the same model runs %s (degraded link)",
			   p->rate_str, top_obj, top_name);
		return;
	}
	rd_dr_emit(c, RD_DR_PASS, NULL, "%s", p->rate_str);
}

static void ck_port_errors(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	char moving[200] = "", nonzero[200] = "";
	size_t ml = 0, nl = 0;
	unsigned int nerr = 0;

	(void)d;
	if (!dp->has_ctrs) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "no counters/ or hw_counters/ (the driver exposes none)");
		return;
	}
	for (size_t i = 0; i < dp->ctrs.n; i++) {
		const struct rd_counter *k = &dp->ctrs.v[i];
		int w;

		if (!k->info.error || k->err)
			continue;
		nerr++;
		if (dp->sampled && (k->kind == RD_DELTA_OK || k->kind == RD_DELTA_WRAP) && k->delta) {
			w = snprintf(moving + ml, sizeof(moving) - ml, "%s%s +%llu", ml ? ", " : "",
				     k->name, (unsigned long long)k->delta);
			if (w > 0 && (size_t)w < sizeof(moving) - ml)
				ml += (size_t)w;
		}
		if (k->value) {
			w = snprintf(nonzero + nl, sizeof(nonzero) - nl, "%s%s %llu", nl ? ", " : "",
				     k->name, (unsigned long long)k->value);
			if (w > 0 && (size_t)w < sizeof(nonzero) - nl)
				nl += (size_t)w;
		}
	}
	if (ml)
		rd_dr_emit(c, RD_DR_FAIL, NULL, "errors rising over %.3g s: %s", c->rep->interval, moving);
	else if (nl)
		rd_dr_emit(c, RD_DR_WARN, NULL, "%s%s", nonzero,
			   dp->sampled ? " (not rising)" : " (not sampled: --interval 0)");
	else
		rd_dr_emit(c, RD_DR_PASS, NULL, "%u error counters at 0%s", nerr,
			   dp->sampled ? "" : " (not sampled)");
}

/* ---- RoCE ---- */

static void ck_roce_netdev(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	(void)d;
	if (!dp->roce)
		return;
	if (!dp->netdev[0]) {
		rd_dr_emit(c, RD_DR_FAIL, "rdma link show; rdma-devmap", "no netdev maps to this port");
		return;
	}
	if (!dp->has_nd || !dp->nd.present) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "%s is not in this network namespace", dp->netdev);
		return;
	}
	if (rd_netdev_state_up(dp->nd.operstate, dp->nd.carrier)) {
		if (dp->nd.speed_mbps > 0)
			rd_dr_emit(c, RD_DR_PASS, NULL, "%s up, carrier, %lld Mb/s", dp->netdev,
				   (long long)dp->nd.speed_mbps);
		else
			rd_dr_emit(c, RD_DR_PASS, NULL, "%s up, carrier", dp->netdev);
		return;
	}
	rd_dr_emit(c, RD_DR_FAIL, dp->nd.carrier == 0 && strcmp(dp->nd.operstate, "down") != 0 ?
		   "ethtool {netdev}; check the cable and the switch port" : NULL,
		   "%s operstate %s, carrier %s", dp->netdev,
		   dp->nd.operstate[0] ? dp->nd.operstate : "unknown",
		   dp->nd.carrier == 1 ? "on" : dp->nd.carrier == 0 ? "off" : "unknown");
}

/* The port's netdev is here and known to be down (not up, or up without carrier). */
static bool netdev_down(const struct rd_dr_port *dp)
{
	if (!dp->has_nd || !dp->nd.present)
		return false;
	return !rd_netdev_state_up(dp->nd.operstate, dp->nd.carrier);
}

static void ck_roce_gid(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	const char *exp;
	double num;

	(void)d;
	if (!dp->roce)
		return;
	if (!dp->has_gids) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "GID table unreadable");
		return;
	}
	/* A netdev that is down comes first: an address added to it gives no usable GID. */
	if ((!dp->best || rd_gid_is_link_local(dp->best->raw)) && netdev_down(dp)) {
		/* Up without carrier: no command brings it up; the cable or the peer does. */
		bool no_peer = strcmp(dp->nd.operstate, "up") == 0 && dp->nd.carrier == 0;

		rd_dr_emit(c, RD_DR_FAIL, no_peer ? "ethtool {netdev}; check the cable and the switch port" :
			   "ip link set dev {netdev} up (then, if it has no address: "
			   "ip addr add ADDR/PREFIX dev {netdev})", "no usable GID: %s is down (operstate "
			   "%s, carrier %s)", dp->netdev, dp->nd.operstate[0] ? dp->nd.operstate : "unknown",
			   dp->nd.carrier == 1 ? "on" : dp->nd.carrier == 0 ? "off" : "unknown");
		return;
	}
	if (!dp->best && dp->best_elsewhere) {
		/* rdma-gids --best and rdma-selftest say the same (model/gid's one choice). */
		rd_dr_emit(c, RD_DR_FAIL, "run in the namespace that holds the netdev (ip netns exec NS "
			   "...) or: rdma dev set {dev} netns NS", "%s", dp->best_why);
		return;
	}
	if (!dp->best) {
		rd_dr_emit(c, RD_DR_FAIL, NULL, "no usable GID: %s", dp->best_why);
		return;
	}
	exp = rd_dr_expected(c, RD_EXP_GID_INDEX, &num);
	if (exp && fabs(num - dp->best->index) > 0.5) {
		rd_dr_emit(c, RD_DR_FAIL, "rdma-gids -d {dev} -p {port}", "best GID index %u (%s), expected %s",
			   dp->best->index, dp->best_reason, exp);
		return;
	}
	if (rd_gid_is_link_local(dp->best->raw)) {
		/* Usable, as rdma-gids --best says, but only on its own link: a WARN, not a FAIL. */
		rd_dr_emit(c, RD_DR_WARN, NULL,
			   "index %u: %s; %s has no IPv4 or global IPv6 address",
			   dp->best->index, dp->best_reason, dp->best->ndev[0] ? dp->best->ndev : "the netdev");
		return;
	}
	if (dp->best->ver != RD_GID_VER_V2) {
		rd_dr_emit(c, RD_DR_WARN, NULL, "index %u: %s; no RoCE v2 GID (not routable)",
			   dp->best->index, dp->best_reason);
		return;
	}
	rd_dr_emit(c, RD_DR_PASS, NULL, "index %u: %s", dp->best->index, dp->best_reason);
}

/* The RoCE MTU a netdev MTU gives (the kernel's iboe_get_mtu: headers of 96 bytes). */
static unsigned int roce_mtu_of(uint64_t mtu)
{
	static const unsigned int steps[] = { 4096, 2048, 1024, 512, 256 };

	for (size_t i = 0; i < RD_ARRAY_SIZE(steps); i++)
		if (mtu >= steps[i] + 96ull)
			return steps[i];
	return 0;
}

static void ck_roce_mtu(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	unsigned int active, yield;
	bool mtu_met;
	const char *exp;
	double num;
	char fix[320];

	(void)d;
	if (!dp->roce)
		return;
	if (!dp->has_nd || !dp->nd.present || !dp->nd.has_mtu) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "netdev MTU unknown%s%s", dp->netdev[0] ? " for " : "",
			   dp->netdev);
		return;
	}
	yield = roce_mtu_of(dp->nd.mtu);
	active = yield;
	if (dp->p->verbs) {
		const char *s = rd_mtu_str(dp->p->verbs->attr.active_mtu);
		uint64_t v;

		if (s && rd_parse_u64(s, &v) == 0)
			active = (unsigned int)v;
	}
	exp = rd_dr_expected(c, RD_EXP_MTU, &num);
	if (exp && fabs(num - (double)dp->nd.mtu) > 0.5) {
		snprintf(fix, sizeof(fix), "ip link set dev %s mtu %s", dp->netdev, exp);
		rd_dr_emit(c, RD_DR_FAIL, fix, "%s MTU %llu, expected %s", dp->netdev,
			   (unsigned long long)dp->nd.mtu, exp);
		return;
	}
	mtu_met = exp != NULL;
	exp = rd_dr_expected(c, RD_EXP_ACTIVE_MTU, &num);
	if (exp && fabs(num - active) > 0.5) {
		/* the netdev MTU that yields the expected RoCE MTU (and not the next one up) */
		snprintf(fix, sizeof(fix), "ip link set dev %s mtu %.0f (gives active_mtu %s; and the "
			 "switch ports)", dp->netdev, num + 104, exp);
		rd_dr_emit(c, RD_DR_FAIL, fix, "active MTU %u (%s MTU %llu), expected %s", active,
			   dp->netdev, (unsigned long long)dp->nd.mtu, exp);
		return;
	}
	/* An expectation met is the verdict: the built-in 4096 rule is for nodes without one. */
	if (exp || mtu_met) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "%s MTU %llu gives active_mtu %u, as expected", dp->netdev,
			   (unsigned long long)dp->nd.mtu, active);
		return;
	}
	if (active < 4096) {
		snprintf(fix, sizeof(fix), "ip link set dev %s mtu 4200 (and the switch ports)",
			 dp->netdev);
		rd_dr_emit(c, RD_DR_WARN, fix,
			   "%s MTU %llu gives active_mtu %u; 4200 is needed for 4096", dp->netdev,
			   (unsigned long long)dp->nd.mtu, active);
	} else if (dp->nd.mtu > 4200) {
		rd_dr_emit(c, RD_DR_PASS, NULL,
			   "%s MTU %llu gives active_mtu 4096 (4200 is enough for RoCE; more serves TCP)",
			   dp->netdev, (unsigned long long)dp->nd.mtu);
	} else {
		rd_dr_emit(c, RD_DR_PASS, NULL, "%s MTU %llu gives active_mtu 4096", dp->netdev,
			   (unsigned long long)dp->nd.mtu);
	}
}

static void ck_roce_ipv6(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	uint64_t v;
	int ret;

	(void)d;
	if (!dp->roce || !dp->has_nd || !dp->nd.present)
		return;
	if (rd_sys_check_dir(c->sr, "/proc/sys/net") != 0) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "no /proc/sys/net to read");
		return;
	}
	if (rd_sys_check_dir(c->sr, "/proc/sys/net/ipv6/conf") != 0) {
		rd_dr_emit(c, RD_DR_WARN, "remove ipv6.disable=1 from the kernel command line",
			   "IPv6 is off in this kernel: no link-local GIDs, no IPv6 RoCE");
		return;
	}
	ret = rd_sysctl_conf(c->files, "ipv6", dp->netdev, "disable_ipv6", &v);
	if (ret) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "net.ipv6.conf.%s.disable_ipv6: %s", dp->netdev,
			   errstr(ret));
	} else if (v) {
		char fix[320];

		snprintf(fix, sizeof(fix), "sysctl -w net.ipv6.conf.%s.disable_ipv6=0", dp->netdev);
		rd_dr_emit(c, RD_DR_WARN, fix, "IPv6 disabled on %s: no link-local (fe80::) GID",
			   dp->netdev);
	} else {
		rd_dr_emit(c, RD_DR_PASS, NULL, "IPv6 enabled on %s", dp->netdev);
	}
}

static void ck_roce_gid_table(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	(void)d;
	if (!dp->roce || !dp->has_gids || dp->gids.slots == 0)
		return;
	if (dp->gids.n * 10 >= dp->gids.slots * 9)
		rd_dr_emit(c, RD_DR_WARN, NULL, "%zu of %zu GID entries used: new addresses/VLANs get no GID",
			   dp->gids.n, dp->gids.slots);
	else
		rd_dr_emit(c, RD_DR_PASS, NULL, "%zu of %zu GID entries used", dp->gids.n,
			   dp->gids.slots);
}

static void ck_roce_cm_mode(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_cm_defaults cm;
	const char *exp, *mode;
	char tos[32] = "";
	int ret;

	if (!dp->roce)
		return;
	exp = rd_dr_expected(c, RD_EXP_ROCE_MODE, NULL);	/* asked only where it applies */
	ret = rd_cm_defaults_read(c->files, d->name, dp->p->num, &cm);
	if (ret == -ENOTCONN) {
		rd_dr_emit(c, RD_DR_SKIP, "mount -t configfs none /sys/kernel/config",
			   "configfs not mounted: rdma_cm defaults unreadable");
		return;
	}
	if (ret == -ENOPKG) {
		rd_dr_emit(c, RD_DR_SKIP, "modprobe rdma_cm",
			   "no /sys/kernel/config/rdma_cm (rdma_cm not loaded)");
		return;
	}
	if (ret && ret != -ENOENT) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "rdma_cm configfs unreadable: %s", errstr(ret));
		return;
	}
	/* No directory: nobody overrode it, the kernel's default (RoCE v2 where supported). */
	mode = ret ? "v2" : strstr(cm.roce_mode, "v2") ? "v2" : strstr(cm.roce_mode, "v1") ? "v1" : "?";
	if (!ret && cm.has_tos)
		snprintf(tos, sizeof(tos), ", ToS %llu", (unsigned long long)cm.tos);
	if (exp && strcmp(exp, mode) != 0) {
		/* The directory exists only once someone made it: the fix makes it first. */
		rd_dr_emit(c, RD_DR_FAIL,
			   strcmp(exp, "v1") == 0 ?
			   "mkdir -p /sys/kernel/config/rdma_cm/{dev}; echo 'IB/RoCE v1' > /sys/kernel/config/rdma_cm/{dev}/ports/{port}/default_roce_mode" :
			   "mkdir -p /sys/kernel/config/rdma_cm/{dev}; echo 'RoCE v2' > /sys/kernel/config/rdma_cm/{dev}/ports/{port}/default_roce_mode",
			   "rdma_cm default RoCE %s, expected %s", mode, exp);
	} else if (exp) {
		/* The site chose this mode on purpose (--expect): no advice against it. */
		rd_dr_emit(c, RD_DR_PASS, NULL, "rdma_cm default RoCE %s%s, as expected", mode, tos);
	} else if (strcmp(mode, "v1") == 0) {
		rd_dr_emit(c, RD_DR_WARN, NULL,
			   "rdma_cm default '%s'%s: cannot connect to hosts that use RoCE v2",
			   cm.roce_mode, tos);
	} else if (ret) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "no configfs override: kernel default RoCE v2");
	} else {
		rd_dr_emit(c, RD_DR_PASS, NULL, "rdma_cm default '%s'%s", cm.roce_mode, tos);
	}
}

static void prio_list(unsigned int mask, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < 8; i++) {
		if (!(mask & (1u << i)))
			continue;
		int w = snprintf(buf + o, len - o, "%s%u", o ? "," : "", i);

		if (w < 0 || (size_t)w >= len - o)
			break;
		o += (size_t)w;
	}
}

static void ck_roce_ecn(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	unsigned int np, rp;
	char a[24], b[24];
	int r1, r2;

	(void)d;
	if (!dp->roce || !dp->netdev[0] || !dp->has_nd || !dp->nd.present)
		return;
	r1 = rd_ecn_read(c->files, dp->netdev, "roce_np", &np);
	r2 = rd_ecn_read(c->files, dp->netdev, "roce_rp", &rp);
	if (r1 || r2) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "%s's driver exposes no ECN switches (no %s/ecn)",
			   dp->netdev, dp->netdev);
		return;
	}
	prio_list(np, a, sizeof(a));
	prio_list(rp, b, sizeof(b));
	if (!np || !rp)
		rd_dr_emit(c, RD_DR_WARN,
			   "for p in 0 1 2 3 4 5 6 7; do echo 1 > /sys/class/net/{netdev}/ecn/roce_np/enable/$p; "
			   "echo 1 > /sys/class/net/{netdev}/ecn/roce_rp/enable/$p; done",
			   "ECN off: notification point on priorities %s, reaction point on %s "
			   "(no congestion control: drops or PFC storms under load)",
			   np ? a : "none", rp ? b : "none");
	else
		rd_dr_emit(c, RD_DR_PASS, NULL, "ECN notification point on priorities %s, reaction point on %s",
			   a, b);
}

static void ck_roce_pfc(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_dcb dcb;
	char en[24], trust[48] = "";
	int ret;

	(void)d;
	if (!dp->roce || !dp->netdev[0])
		return;
	if (!c->live) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "DCB is read over netlink: not with --sysroot");
		return;
	}
	if (!dp->has_nd || !dp->nd.present) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "%s is not in this network namespace", dp->netdev);
		return;
	}
	ret = rd_dcb_ieee_get(dp->netdev, &dcb, 1000);
	if (ret == -EOPNOTSUPP || ret == -EINVAL) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "%s's driver has no DCB support (no dcbnl ops): "
			   "PFC and trust cannot be read", dp->netdev);
		return;
	}
	if (ret) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "DCB of %s unreadable: %s", dp->netdev, strerror(-ret));
		return;
	}
	if (dcb.has_trust && dcb.ntrust) {
		const char *s = rd_dcb_selector_name(dcb.trust[0]);

		snprintf(trust, sizeof(trust), ", trust %s", s ? s : "?");
	}
	if (!dcb.has_pfc) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "%s reports no IEEE PFC settings%s", dp->netdev, trust);
		return;
	}
	prio_list(dcb.pfc_en, en, sizeof(en));
	if (!dcb.pfc_en)
		rd_dr_emit(c, RD_DR_WARN, "dcb pfc set dev {netdev} prio-pfc 3:on (the RoCE priority)",
			   "PFC off on every priority (cap %u)%s: RoCE is lossy, only ECN protects it",
			   dcb.pfc_cap, trust);
	else
		rd_dr_emit(c, RD_DR_PASS, "dcb pfc show dev {netdev}", "PFC on priorities %s%s", en, trust);
}

/* Effective conf value of an interface: the larger of 'all' and its own. */
static int conf_max(struct rd_dr_ctx *c, const char *ifname, const char *key, uint64_t *v)
{
	uint64_t a = 0, b = 0;
	int r1 = rd_sysctl_conf(c->files, "ipv4", "all", key, &a);
	int r2 = rd_sysctl_conf(c->files, "ipv4", ifname, key, &b);

	if (r1 && r2)
		return r2;
	*v = a > b ? a : b;
	return 0;
}

static void ck_roce_subnet(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	char others[128] = "", net[40] = "";
	size_t ol = 0;
	uint64_t ai = 0, aa = 0, rp = 0;
	const struct rd_route *mine = NULL;

	(void)d;
	if (!dp->roce || !dp->netdev[0] || !dp->has_nd || !dp->nd.present)
		return;
	if (!c->has_routes) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "/proc/net/route unreadable");
		return;
	}
	for (size_t i = 0; i < c->routes.n; i++) {
		const struct rd_route *r = &c->routes.v[i];

		if (strcmp(r->ifname, dp->netdev) != 0)
			continue;
		mine = r;
		/* Other RoCE netdevs with a connected route to the same subnet. */
		for (unsigned int a = 0; a < c->list->n; a++) {
			for (unsigned int b = 0; b < c->list->v[a].nports; b++) {
				const struct rd_dr_port *o = &c->ports[a][b];

				if (!o->roce || !o->netdev[0] || strcmp(o->netdev, dp->netdev) == 0 ||
				    strstr(others, o->netdev))
					continue;
				for (size_t k = 0; k < c->routes.n; k++) {
					const struct rd_route *q = &c->routes.v[k];

					if (strcmp(q->ifname, o->netdev) != 0 || q->dst != r->dst ||
					    q->mask != r->mask)
						continue;
					int w = snprintf(others + ol, sizeof(others) - ol, "%s%s",
							 ol ? " " : "", o->netdev);

					if (w > 0 && (size_t)w < sizeof(others) - ol)
						ol += (size_t)w;
					break;
				}
			}
		}
		if (ol)
			break;
	}
	if (!mine) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "%s has no IPv4 subnet", dp->netdev);
		return;
	}
	{
		uint8_t b[4];
		unsigned int bits = 0;

		memcpy(b, &mine->dst, 4);
		for (uint32_t m = mine->mask; m; m &= m - 1)
			bits++;
		snprintf(net, sizeof(net), "%u.%u.%u.%u/%u", b[0], b[1], b[2], b[3], bits);
	}
	if (!ol) {
		rd_dr_emit(c, RD_DR_PASS, NULL, "%s is the only RoCE netdev in %s", dp->netdev, net);
		return;
	}
	if (conf_max(c, dp->netdev, "arp_ignore", &ai) || conf_max(c, dp->netdev, "arp_announce", &aa) ||
	    conf_max(c, dp->netdev, "rp_filter", &rp)) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "%s shares %s with %s; its ARP sysctls are unreadable",
			   dp->netdev, net, others);
		return;
	}
	/* librdmacm's advice for several ports in one subnet: answer ARP only for
	 * the port's own address, announce it from that port, loose reverse path. */
	if (ai < 1 || aa < 2 || rp == 1) {
		char fix[320];

		snprintf(fix, sizeof(fix),
			 "sysctl -w net.ipv4.conf.%s.arp_ignore=1 net.ipv4.conf.%s.arp_announce=2 "
			 "net.ipv4.conf.%s.rp_filter=2", dp->netdev, dp->netdev, dp->netdev);
		rd_dr_emit(c, RD_DR_WARN, fix,
			   "%s shares %s with %s; arp_ignore %llu, arp_announce %llu, rp_filter %llu: "
			   "ARP and replies may use the wrong port", dp->netdev, net, others,
			   (unsigned long long)ai, (unsigned long long)aa, (unsigned long long)rp);
		return;
	}
	rd_dr_emit(c, RD_DR_PASS, NULL, "%s shares %s with %s; arp_ignore %llu, arp_announce %llu, rp_filter %llu",
		   dp->netdev, net, others, (unsigned long long)ai, (unsigned long long)aa,
		   (unsigned long long)rp);
}

/* ---- InfiniBand ---- */

static void ck_ib_sm(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	const struct rd_port *p = dp->p;

	(void)d;
	if (!dp->ib)
		return;
	if (!(p->known & RD_PORT_STATE) || p->state == 1) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "port DOWN: no subnet to manage");
		return;
	}
	if (p->state == 2 || !(p->known & RD_PORT_SM_LID) || p->sm_lid == 0) {
		rd_dr_emit(c, RD_DR_FAIL, NULL, "no subnet manager: port %s, SM LID %s",
			   rd_port_state_name(p->state) ? rd_port_state_name(p->state) : "?",
			   (p->known & RD_PORT_SM_LID) ? "0x0" : "unknown");
		return;
	}
	rd_dr_emit(c, RD_DR_PASS, NULL, "SM at LID 0x%llx, SL %llu", (unsigned long long)p->sm_lid,
		   (unsigned long long)p->sm_sl);
}

static void ck_ib_lid(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	const struct rd_port *p = dp->p;

	(void)d;
	if (!dp->ib)
		return;
	if (!(p->known & RD_PORT_STATE) || p->state == 1) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "port DOWN: no LID");
		return;
	}
	if (!(p->known & RD_PORT_LID) || p->lid == 0 || p->lid >= 0xc000) {
		rd_dr_emit(c, RD_DR_FAIL, NULL, "LID 0x%llx is not a unicast LID (not assigned by an SM)",
			   (unsigned long long)p->lid);
		return;
	}
	rd_dr_emit(c, RD_DR_PASS, NULL, "LID 0x%llx, LMC %llu", (unsigned long long)p->lid,
		   (unsigned long long)p->lid_mask_count);
}

static void ck_ib_pkey(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_strlist l = { 0 };
	int ret;
	bool found = false;
	uint64_t v = 0;
	size_t idx = 0;

	if (!dp->ib)
		return;
	ret = rd_sys_list(c->sr, &l, "/sys/class/infiniband/%s/ports/%u/pkeys", d->name, dp->p->num);
	if (ret || l.n == 0) {
		rd_strlist_free(&l);
		rd_dr_emit(c, RD_DR_SKIP, NULL, "no P_Key table in sysfs");
		return;
	}
	for (idx = 0; idx < l.n && !found; idx++) {
		if (rd_sys_read_hex(c->sr, &v, "/sys/class/infiniband/%s/ports/%u/pkeys/%s", d->name,
				    dp->p->num, l.v[idx]) == 0 && (v & 0x7fff) == 0x7fff)
			found = true;
	}
	if (found)
		rd_dr_emit(c, RD_DR_PASS, NULL, "default P_Key 0x%04llx at index %s (%s member)",
			   (unsigned long long)v, l.v[idx - 1], (v & 0x8000) ? "full" : "limited");
	else
		rd_dr_emit(c, RD_DR_FAIL, NULL, "default P_Key 0x7fff/0xffff not in the %zu-entry table", l.n);
	rd_strlist_free(&l);
}

/* ---- namespaces ---- */

static void ck_ns_gid(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	struct rd_strlist away = { 0 };
	size_t seen = 0, visible = 0;
	char *names;

	(void)d;
	if (!dp->roce || !dp->has_gids)
		return;
	for (size_t i = 0; i < dp->gids.n; i++) {
		const struct rd_gid *g = &dp->gids.v[i];

		if (!g->ndev[0])
			continue;
		seen++;
		if (!rd_netdev_visible(c->netdevs, g->ndev))
			(void)rd_strlist_add_unique(&away, g->ndev);
		else
			visible++;
	}
	if (seen == 0) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "no GID names a netdev");
	} else if (away.n && visible == 0) {
		names = rd_strlist_join(&away, " ");
		rd_dr_emit(c, RD_DR_FAIL, NULL,
			   "no usable GID in this network namespace: the GIDs are on %s, not visible here",
			   names ? names : "?");
		free(names);
	} else if (away.n && dp->best_elsewhere) {
		/* What is left here (VLAN GIDs, say) is not what a program would use. */
		names = rd_strlist_join(&away, " ");
		rd_dr_emit(c, RD_DR_FAIL, NULL, "the GIDs a program would use are on %s, in another "
			   "namespace; the netdevs here give no usable one", names ? names : "?");
		free(names);
	} else if (away.n) {
		names = rd_strlist_join(&away, " ");
		rd_dr_emit(c, RD_DR_PASS, NULL, "some GIDs are on netdevs of another namespace (%s)",
			   names ? names : "?");
		free(names);
	} else {
		rd_dr_emit(c, RD_DR_PASS, NULL, "the GIDs' netdevs are in this network namespace");
	}
	rd_strlist_free(&away);
}

/* ---- self-test ---- */

static void ck_selftest(struct rd_dr_ctx *c, struct rd_device *d, struct rd_dr_port *dp)
{
	char detail[256];

	if (!c->live) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "the self-test needs the live system, not --sysroot");
		return;
	}
	if (!(dp->p->known & RD_PORT_STATE) || dp->p->state != 4) {
		rd_dr_emit(c, RD_DR_SKIP, NULL, "port not ACTIVE");
		return;
	}
	if (rd_dr_loopback(c->sr, d, dp, c->o->selftest_ms, detail, sizeof(detail)))
		rd_dr_emit(c, RD_DR_FAIL, NULL, "%s", detail);
	else
		rd_dr_emit(c, RD_DR_PASS, NULL, "%s", detail);
}

/* ---- the table ---- */

static const struct rd_dr_check checks[] = {
	{ "dev.present", RD_DR_NODE, "/sys/class/infiniband",
	  "at least one RDMA device", ck_dev_present,
	  "modprobe mlx5_ib (or the NIC's RDMA driver); soft-RoCE: rdma link add rxe0 type rxe netdev IF", false },
	{ "dev.rdma_cm", RD_DR_NODE, "/dev/infiniband/rdma_cm",
	  "rdma_cm device node exists and the caller may open it", ck_dev_rdma_cm,
	  "ls -l /dev/infiniband; grant access via udev (rdma-core 90-rdma-ucm.rules) or the rdma group", false },
	{ "sys.memlock", RD_DR_NODE, "/proc/self/limits",
	  "RLIMIT_MEMLOCK unlimited or at least 64 MiB", ck_sys_memlock,
	  "ulimit -l unlimited; /etc/security/limits.d: '* - memlock unlimited'; systemd: LimitMEMLOCK=infinity", false },
	{ "sys.modules", RD_DR_NODE, "/sys/module",
	  "ib_core, ib_uverbs and rdma_ucm loaded", ck_sys_modules, "modprobe -a ib_uverbs rdma_ucm", false },
	{ "sys.stack", RD_DR_NODE, "/sys/module/mlx_compat, dpkg status, /usr/bin/ofed_info, libibverbs.so.1",
	  "the RDMA stack (inbox or MLNX_OFED) is one: kernel modules and user space match", ck_sys_stack,
	  "install one stack whole (the distribution's rdma-core, or MLNX_OFED)", false },
	{ "ns.mode", RD_DR_NODE, "RDMA netlink SYS_GET (ib_core netns_mode under --sysroot)",
	  "RDMA subsystem network-namespace mode (shared or exclusive)", ck_ns_mode,
	  "rdma system show", false },
	{ "dev.provider", RD_DR_DEVICE, "libibverbs ibv_open_device",
	  "a userspace verbs provider opens the device", ck_dev_provider,
	  "apt install ibverbs-providers (dnf install libibverbs); ibv_devices", false },
	{ "dev.uverbs", RD_DR_DEVICE, "/sys/class/infiniband_verbs, /dev/infiniband/uverbsN",
	  "the device's uverbs node exists and the caller may open it", ck_dev_uverbs,
	  "ls -l /dev/infiniband; udev rules or the rdma group grant access", false },
	{ "dev.driver", RD_DR_DEVICE, "/sys/module, device/driver",
	  "kernel modules of the device's driver loaded", ck_dev_driver, "lsmod; modprobe the driver", false },
	{ "pci.link", RD_DR_DEVICE, "device/{current,max}_link_{speed,width} and upstream bridges",
	  "PCIe link at its maximum speed and width, up to the root port", ck_pci_link,
	  "lspci -vv | grep -E 'LnkCap|LnkSta'", false },
	{ "fw.uniform", RD_DR_DEVICE, "fw_ver, hca_type, board_id",
	  "firmware the same on every device of one model", ck_fw_uniform,
	  "update the firmware (mlxfwmanager, or the vendor's tool); compare: rdma-devinfo -v", false },
	{ "port.state", RD_DR_PORT, "ports/N/state, phys_state",
	  "port ACTIVE and LinkUp", ck_port_state, "ibstat {dev} {port}; rdma link show {dev}/{port}", false },
	{ "port.rate", RD_DR_PORT, "ports/N/rate",
	  "rate at the model's best (or the expected) value, all lanes trained", ck_port_rate,
	  "ibstat {dev} {port}; ethtool {netdev}; reseat or replace the cable", false },
	{ "port.errors", RD_DR_PORT, "ports/N/counters, ports/N/hw_counters",
	  "error counters at 0 (WARN) and not rising over --interval (FAIL)", ck_port_errors,
	  "rdma-top -d {dev}; perfquery -x (IB); check cable, optics and switch port", false },
	{ "roce.netdev", RD_DR_PORT, "/sys/class/net/IF/operstate, carrier",
	  "the RoCE netdev is up with carrier", ck_roce_netdev, "ip link set dev {netdev} up", false },
	{ "roce.gid", RD_DR_PORT, "ports/N/gids, gid_attrs",
	  "a usable GID: RoCE v2, IPv4 or global IPv6, on a netdev that is up", ck_roce_gid,
	  "ip addr add ADDR/PREFIX dev {netdev}; rdma-gids --best -d {dev}", false },
	{ "roce.mtu", RD_DR_PORT, "/sys/class/net/IF/mtu, verbs active_mtu",
	  "netdev MTU gives RoCE active_mtu 4096 (4200 or more)", ck_roce_mtu,
	  "ip link set dev {netdev} mtu 4200", false },
	{ "roce.ipv6", RD_DR_PORT, "/proc/sys/net/ipv6/conf/IF/disable_ipv6",
	  "IPv6 enabled on the netdev (link-local GID)", ck_roce_ipv6,
	  "sysctl -w net.ipv6.conf.{netdev}.disable_ipv6=0", false },
	{ "roce.gid_table", RD_DR_PORT, "ports/N/gids",
	  "GID table below 90% full", ck_roce_gid_table, "rdma-gids -d {dev} -p {port}; remove unused addresses or VLANs", false },
	{ "roce.cm_mode", RD_DR_PORT, "/sys/kernel/config/rdma_cm/DEV/ports/N/default_roce_{mode,tos}",
	  "rdma_cm default RoCE mode v2 (v1 and v2 hosts cannot connect)", ck_roce_cm_mode,
	  "echo 'RoCE v2' > /sys/kernel/config/rdma_cm/{dev}/ports/{port}/default_roce_mode", false },
	{ "roce.ecn", RD_DR_PORT, "/sys/class/net/IF/ecn/roce_{np,rp}/enable/0-7",
	  "ECN (DCQCN) enabled where the driver exposes it", ck_roce_ecn,
	  "echo 1 > /sys/class/net/{netdev}/ecn/roce_np/enable/3", false },
	{ "roce.pfc", RD_DR_PORT, "rtnetlink RTM_GETDCB DCB_CMD_IEEE_GET",
	  "PFC and trust mode via DCB where the driver supports it", ck_roce_pfc,
	  "dcb pfc show dev {netdev}; dcb apptrust show dev {netdev}", false },
	{ "roce.subnet", RD_DR_PORT, "/proc/net/route, /proc/sys/net/ipv4/conf/{all,IF}/arp_*, rp_filter",
	  "RoCE netdevs sharing a subnet have arp_ignore=1, arp_announce=2, rp_filter!=1", ck_roce_subnet,
	  "sysctl -w net.ipv4.conf.{netdev}.arp_ignore=1 net.ipv4.conf.{netdev}.arp_announce=2", false },
	{ "ib.sm", RD_DR_PORT, "ports/N/state, sm_lid, sm_sl",
	  "a subnet manager configured the port", ck_ib_sm,
	  "sminfo; start opensm on one node of the fabric (or enable the switch's SM)", false },
	{ "ib.lid", RD_DR_PORT, "ports/N/lid, lid_mask_count",
	  "the port has a unicast LID", ck_ib_lid, "ibstat {dev} {port}; sminfo", false },
	{ "ib.pkey", RD_DR_PORT, "ports/N/pkeys",
	  "the default P_Key (0x7fff/0xffff) is in the table", ck_ib_pkey,
	  "check the SM's partitions.conf (Default=0x7fff must include this port)", false },
	{ "ns.gid", RD_DR_PORT, "gid_attrs/ndevs, /sys/class/net",
	  "the port's GIDs are usable from this network namespace", ck_ns_gid,
	  "run in the namespace that holds the netdev (ip netns exec NS ...) or: rdma dev set {dev} netns NS", false },
	{ "gdr.backend", RD_DR_NODE, "/sys/module/nvidia_peermem, /sys/kernel/mm/memory_peers, /proc/driver/nvidia/version, "
	  "kernel release, libibverbs",
	  "a GPUDirect RDMA backend: peer memory registered, or dma-buf ready", rd_dr_ck_gdr_backend,
	  "modprobe nvidia_peermem (after the RDMA stack); or the NVIDIA open kernel modules on a kernel >= 5.12 "
	  "for dma-buf", false },
	{ "gdr.peermem", RD_DR_NODE, "/sys/module/nvidia_peermem, /sys/kernel/mm/memory_peers",
	  "nvidia_peermem, when loaded, is registered", rd_dr_ck_gdr_peermem, NULL, false },
	{ "gdr.path", RD_DR_NODE, "the PCI tree (rdma-gpumap's model), NCCL_* settings",
	  "each GPU's NIC at or below NCCL's GDR level", rd_dr_ck_gdr_path, "rdma-gpumap -v", false },
	{ "gdr.nic_port", RD_DR_NODE, "the PCI tree, ports/N/state, NCCL_IB_HCA",
	  "each GPU's nearest NIC port is usable (up, admitted by NCCL_IB_HCA)", rd_dr_ck_gdr_nic_port,
	  "rdma-gpumap", false },
	{ "gdr.balance", RD_DR_NODE, "the PCI tree, ports/N/state",
	  "no NIC near a GPU idle while another serves more than its share", rd_dr_ck_gdr_balance,
	  "rdma-gpumap -m", false },
	{ "pci.acs", RD_DR_NODE, "config space of the bridges between each GPU and its NIC",
	  "no ACS redirection (ReqRedir, CmpltRedir, EgressCtrl) between a GPU and its NIC", rd_dr_ck_pci_acs,
	  "disable ACS on the switch ports (BIOS)", false },
	{ "iommu.mode", RD_DR_NODE, "/sys/bus/pci/devices/BDF/iommu_group, /sys/kernel/iommu_groups/N/type",
	  "the IOMMU passes GPU DMA through untranslated (or is off)", rd_dr_ck_iommu_mode, "iommu=pt", false },
	{ "gpu.bar1", RD_DR_NODE, "/sys/bus/pci/devices/BDF/resource",
	  "each GPU's BAR1 at least 1 GiB", rd_dr_ck_gpu_bar1, "Above 4G decoding, Resizable BAR", false },
	{ "pci.gpu_link", RD_DR_NODE, "{current,max}_link_{speed,width} of each GPU and its bridges",
	  "each GPU's PCIe links at their maximum, up to the root port", rd_dr_ck_gpu_link,
	  "lspci -vv | grep -E 'LnkCap|LnkSta'", false },
	{ "topo.virtual", RD_DR_NODE, "the PCI tree, NCCL_TOPO_FILE",
	  "a VM's flat PCI tree comes with NCCL_TOPO_FILE", rd_dr_ck_topo_virtual, "NCCL_TOPO_FILE", false },
	{ "selftest.loopback", RD_DR_PORT, "libibverbs: two RC QPs on the port",
	  "loopback RC ping-pong with verified data (--selftest)", ck_selftest,
	  "rdma-selftest -d {dev} -v", true },
};

const struct rd_dr_check *rd_dr_checks(size_t *n)
{
	*n = RD_ARRAY_SIZE(checks);
	return checks;
}

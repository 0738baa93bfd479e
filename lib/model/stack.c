// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "stack.h"
#include "base/base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Files read whole: dpkg's status is a few MB on a full system; ofed_info ~100 KB. */
#define STATUS_MAX (64u << 20)
#define OFED_INFO_MAX (4u << 20)

static const char *const lib_dirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib/powerpc64le-linux-gnu",
	"/usr/lib64", "/usr/lib", "/lib64", "/lib/x86_64-linux-gnu",
};

bool rd_stack_dpkg_version(const char *text, char *buf, size_t len)
{
	/* Stanzas are separated by blank lines; "Package:" comes before "Version:". */
	for (const char *p = text; p && *p;) {
		const char *end = strstr(p, "\n\n");
		const char *pkg = NULL, *ver = NULL;
		size_t slen = end ? (size_t)(end - p) : strlen(p);

		for (const char *l = p; l && l < p + slen; l = memchr(l, '\n', (size_t)(p + slen - l))) {
			if (*l == '\n')
				l++;
			if (strncmp(l, "Package: ", 9) == 0)
				pkg = l + 9;
			else if (strncmp(l, "Version: ", 9) == 0)
				ver = l + 9;
		}
		if (pkg && ver && strncmp(pkg, "libibverbs1\n", 12) == 0) {
			size_t n = strcspn(ver, "\n");

			if (n == 0 || n >= len)
				return false;
			memcpy(buf, ver, n);
			buf[n] = '\0';
			return true;
		}
		p = end ? end + 2 : NULL;
	}
	return false;
}

bool rd_stack_ofed_release(const char *text, char *buf, size_t len)
{
	static const char *const names[] = { "MLNX_OFED_LINUX-", "OFED-internal-", "MLNX_EN-" };

	for (size_t i = 0; i < RD_ARRAY_SIZE(names); i++) {
		const char *p = strstr(text, names[i]);
		size_t n;

		while (p && !(p[strlen(names[i])] >= '0' && p[strlen(names[i])] <= '9'))
			p = strstr(p + 1, names[i]);
		if (!p)
			continue;
		n = strlen(names[i]) + strspn(p + strlen(names[i]), "0123456789.-");
		while (n && (p[n - 1] == '.' || p[n - 1] == '-'))
			n--;
		if (n >= len)
			return false;
		memcpy(buf, p, n);
		buf[n] = '\0';
		return true;
	}
	return false;
}

/* A whole regular file under the root (a copy), or NULL: absent, not a regular file, too big. */
static char *slurp(const struct rd_sysroot *sr, const char *path, size_t max)
{
	struct rd_infile_limits lim = { .max_bytes = max, .max_line = max, .max_lines = max,
					.timeout_ms = 100, .binary = true };
	char full[RD_PATH_MAX], why[128], *copy = NULL;
	struct rd_infile f;
	const char *data;
	size_t n;

	if (rd_sys_resolve(sr, full, sizeof(full), path) ||
	    rd_infile_open(&f, full, &lim, why, sizeof(why)))
		return NULL;
	if (f.regular && rd_infile_all(&f, &data, &n, why, sizeof(why)) == 0)
		copy = strndup(data, n);
	rd_infile_close(&f);
	return copy;
}

void rd_stack_read(const struct rd_sysroot *sr, struct rd_stack *st)
{
	bool ofed_info;
	char *text;

	memset(st, 0, sizeof(*st));
	if (rd_sys_check_dir(sr, "/sys/module") == 0)
		st->kernel = rd_sys_check_dir(sr, "/sys/module/mlx_compat") == 0 ? RD_STACK_OFED
										    : RD_STACK_INBOX;
	text = slurp(sr, "/var/lib/dpkg/status", STATUS_MAX);
	if (text) {
		(void)rd_stack_dpkg_version(text, st->verbs_pkg, sizeof(st->verbs_pkg));
		free(text);
	}
	/* ofed_info comes with every MLNX_OFED (its ofed-scripts package): there, it is that. */
	ofed_info = rd_sys_exists(sr, "/usr/bin/ofed_info");
	text = ofed_info ? slurp(sr, "/usr/bin/ofed_info", OFED_INFO_MAX) : NULL;
	if (text) {
		(void)rd_stack_ofed_release(text, st->ofed, sizeof(st->ofed));
		free(text);
	}
	for (size_t i = 0; i < RD_ARRAY_SIZE(lib_dirs) && !st->verbs_lib[0]; i++) {
		char target[RD_PATH_MAX];
		const char *base, *pfx = "libibverbs.so.1.";

		if (rd_sys_readlink(sr, target, sizeof(target), "%s/libibverbs.so.1", lib_dirs[i]))
			continue;
		base = strrchr(target, '/');
		base = base ? base + 1 : target;
		if (strncmp(base, pfx, strlen(pfx)) == 0 && strlen(base) - strlen(pfx) + 3 <
		    sizeof(st->verbs_lib))
			snprintf(st->verbs_lib, sizeof(st->verbs_lib), "1.%s", base + strlen(pfx));
	}
	if (ofed_info || strstr(st->verbs_pkg, "mlnx"))
		st->user = RD_STACK_OFED;
	else if (st->verbs_pkg[0] || st->verbs_lib[0])
		st->user = RD_STACK_INBOX;
}

const char *rd_stack_kind_name(enum rd_stack_kind k)
{
	switch (k) {
	case RD_STACK_INBOX:
		return "inbox";
	case RD_STACK_OFED:
		return "MLNX_OFED";
	default:
		return NULL;
	}
}

const char *rd_stack_name(const struct rd_stack *st)
{
	if (st->kernel && st->user && st->kernel != st->user)
		return "mixed";
	return rd_stack_kind_name(st->kernel ? st->kernel : st->user);
}

void rd_stack_describe(const struct rd_stack *st, char *buf, size_t len)
{
	const char *name = rd_stack_name(st);
	const char *k = rd_stack_kind_name(st->kernel), *u = rd_stack_kind_name(st->user);
	char user[160];

	if (st->ofed[0] && st->verbs_pkg[0])
		snprintf(user, sizeof(user), "%s, libibverbs1 %s", st->ofed, st->verbs_pkg);
	else if (st->ofed[0])
		snprintf(user, sizeof(user), "%s", st->ofed);
	else if (st->verbs_pkg[0])
		snprintf(user, sizeof(user), "libibverbs1 %s", st->verbs_pkg);
	else if (st->verbs_lib[0])
		snprintf(user, sizeof(user), "libibverbs %s", st->verbs_lib);
	else if (st->user == RD_STACK_OFED)
		snprintf(user, sizeof(user), "/usr/bin/ofed_info");
	else
		snprintf(user, sizeof(user), "user space unknown");
	if (!name)
		snprintf(buf, len, "unknown (no /sys/module, no libibverbs found)");
	else if (strcmp(name, "mixed") == 0)
		snprintf(buf, len, "mixed: %s kernel modules%s, %s user space (%s)", k,
			 st->kernel == RD_STACK_OFED ? " (mlx_compat loaded)" : "", u, user);
	else
		snprintf(buf, len, "%s (%s%s)", name, user,
			 st->kernel == RD_STACK_OFED ? "; mlx_compat loaded" :
			 st->kernel == RD_STACK_INBOX ? "; the kernel's own modules" : "");
}

int rd_driver_version(const struct rd_sysroot *sr, const char *driver, char *buf, size_t len)
{
	if (!driver || !*driver || strchr(driver, '/'))
		return -EINVAL;
	return rd_sys_read_str(sr, buf, len, "/sys/module/%s/version", driver);
}

int rd_stack_driver_version(struct rd_stack *st, const struct rd_sysroot *sr, const char *driver,
			    char *buf, size_t len)
{
	struct rd_stack_driver *d = NULL;

	if (!driver || strlen(driver) >= sizeof(st->drivers[0].name))
		return rd_driver_version(sr, driver, buf, len);
	for (unsigned int i = 0; i < st->ndrivers && !d; i++)
		if (strcmp(st->drivers[i].name, driver) == 0)
			d = &st->drivers[i];
	if (!d) {
		if (st->ndrivers == RD_ARRAY_SIZE(st->drivers))
			return rd_driver_version(sr, driver, buf, len);
		d = &st->drivers[st->ndrivers++];
		rd_strlcpy(d->name, driver, sizeof(d->name));
		d->ret = rd_driver_version(sr, driver, d->version, sizeof(d->version));
	}
	if (d->ret)
		return d->ret;
	if (strlen(d->version) >= len)
		return -EOVERFLOW;
	rd_strlcpy(buf, d->version, len);
	return 0;
}

// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "drsys.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "pci/pci.h"

struct rd_dr_file {
	int ret;		/* the read's result: 0 or -errno */
	char val[64];
};

void rd_dr_files_init(struct rd_dr_files *f, const struct rd_sysroot *sr)
{
	memset(f, 0, sizeof(*f));
	f->sr = sr;
	f->configfs = 1;
}

void rd_dr_files_free(struct rd_dr_files *f)
{
	rd_strmap_free(&f->index);
	free(f->v);
	rd_dr_files_init(f, f->sr);
}

/* rd_sys_read_str of a node file, read the first time it is asked for. */
static int file_str(struct rd_dr_files *f, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int file_str(struct rd_dr_files *f, char *buf, size_t len, const char *fmt, ...)
{
	char path[RD_PATH_MAX];
	size_t at = f->n;
	va_list ap;
	int n, ret;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	if (f->n == f->cap) {	/* room first: a path in the index always has its entry */
		size_t cap = f->cap ? f->cap * 2 : 16;
		struct rd_dr_file *v = realloc(f->v, cap * sizeof(*v));

		if (!v)
			return rd_sys_read_str(f->sr, buf, len, "%s", path);
		f->v = v;
		f->cap = cap;
	}
	ret = rd_strmap_sget_or_add(&f->index, path, &at);
	if (ret < 0)
		return rd_sys_read_str(f->sr, buf, len, "%s", path);
	if (ret == 0) {
		f->n++;
		f->v[at].ret = rd_sys_read_str(f->sr, f->v[at].val, sizeof(f->v[at].val), "%s", path);
	}
	if (f->v[at].ret)
		return f->v[at].ret;
	if (strlen(f->v[at].val) >= len)
		return -EOVERFLOW;
	rd_strlcpy(buf, f->v[at].val, len);
	return 0;
}

/* The same as rd_sys_read_u64. */
static int file_u64(struct rd_dr_files *f, uint64_t *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int file_u64(struct rd_dr_files *f, uint64_t *v, const char *fmt, ...)
{
	char path[RD_PATH_MAX], buf[64];
	va_list ap;
	int n, ret;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	ret = file_str(f, buf, sizeof(buf), "%s", path);
	return ret ? ret : rd_parse_u64(buf, v);
}

int rd_parse_memlock_line(const char *line, uint64_t *bytes, bool *unlimited)
{
	static const char key[] = "Max locked memory";
	char soft[32];

	if (strncmp(line, key, sizeof(key) - 1) != 0)
		return -EINVAL;
	if (sscanf(line + sizeof(key) - 1, " %31s", soft) != 1)
		return -EINVAL;
	*unlimited = strcmp(soft, "unlimited") == 0;
	*bytes = 0;
	if (*unlimited)
		return 0;
	return rd_parse_u64(soft, bytes);
}

int rd_memlock_limit(const struct rd_sysroot *sr, uint64_t *bytes, bool *unlimited)
{
	char path[RD_PATH_MAX], line[256];
	int ret = -ENODATA;
	FILE *f;

	if (rd_sys_resolve(sr, path, sizeof(path), "/proc/self/limits"))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (rd_parse_memlock_line(line, bytes, unlimited) == 0) {
			ret = 0;
			break;
		}
	}
	(void)fclose(f);	/* read only */
	return ret;
}

bool rd_module_present(const struct rd_sysroot *sr, const char *name)
{
	return rd_sys_check_dir(sr, "/sys/module/%s", name) == 0;
}

static void read_link(struct rd_dr_files *f, const char *dir, struct rd_pci_link *l)
{
	char cs[32], ms[32];
	uint64_t cw, mw;

	l->known = false;
	if (file_str(f, cs, sizeof(cs), "%s/current_link_speed", dir) ||
	    file_str(f, ms, sizeof(ms), "%s/max_link_speed", dir) ||
	    file_u64(f, &cw, "%s/current_link_width", dir) ||
	    file_u64(f, &mw, "%s/max_link_width", dir))
		return;
	/* One reading of the kernel's "16.0 GT/s PCIe" for the kit: lib/pci's. */
	l->cur_gts = rd_pci_speed_gts(cs);
	l->max_gts = rd_pci_speed_gts(ms);
	if (!l->cur_gts || !l->max_gts)
		return;
	if (cw > 64 || mw > 64)
		return;
	l->cur_width = (unsigned int)cw;
	l->max_width = (unsigned int)mw;
	l->known = true;
}

int rd_pci_chain(struct rd_dr_files *f, const char *ibdev, struct rd_pci_link *v, size_t max,
		 size_t *n)
{
	char target[RD_PATH_MAX], abs[RD_PATH_MAX];
	const char *rest;
	char *comp[32];
	size_t ncomp = 0;
	int ret;

	*n = 0;
	ret = rd_sys_readlink(f->sr, target, sizeof(target), "/sys/class/infiniband/%s", ibdev);
	if (ret)
		return ret;
	/* Class links read "../../devices/..." */
	rest = strstr(target, "devices/");
	if (!rest)
		return 0;
	if (rd_snprintf(abs, sizeof(abs), "/sys/%s", rest))
		return -ENAMETOOLONG;
	for (char *save = NULL, *tok = strtok_r(abs + 1, "/", &save); tok && ncomp < 32;
	     tok = strtok_r(NULL, "/", &save))
		comp[ncomp++] = tok;
	/* Walk the path from the device up: each PCI function in it is a hop. */
	for (size_t i = ncomp; i-- > 0 && *n < max;) {
		char dir[RD_PATH_MAX] = "";
		size_t len = 0;

		if (!rd_is_pci_bdf(comp[i]))
			continue;
		for (size_t k = 0; k <= i; k++) {
			int w = snprintf(dir + len, sizeof(dir) - len, "/%s", comp[k]);

			if (w < 0 || (size_t)w >= sizeof(dir) - len)
				return -ENAMETOOLONG;
			len += (size_t)w;
		}
		rd_strlcpy(v[*n].bdf, comp[i], sizeof(v[*n].bdf));
		read_link(f, dir, &v[*n]);
		(*n)++;
	}
	return 0;
}

int rd_cm_defaults_read(struct rd_dr_files *f, const char *ibdev, unsigned int port,
			struct rd_cm_defaults *out)
{
	const char *base = "/sys/kernel/config/rdma_cm";
	int ret;

	memset(out, 0, sizeof(*out));
	if (f->configfs == 1) {
		f->configfs = 0;
		if (rd_sys_check_dir(f->sr, "%s", base)) {
			struct rd_strlist l = { 0 };

			/* configfs mounted shows its subsystems; an unmounted mount point is empty. */
			ret = rd_sys_list(f->sr, &l, "/sys/kernel/config");
			f->configfs = ret == 0 && l.n > 0 ? -ENOPKG : -ENOTCONN;
			rd_strlist_free(&l);
		}
	}
	if (f->configfs)
		return f->configfs;
	if (rd_sys_check_dir(f->sr, "%s/%s/ports/%u", base, ibdev, port))
		return -ENOENT;
	ret = file_str(f, out->roce_mode, sizeof(out->roce_mode), "%s/%s/ports/%u/default_roce_mode",
		       base, ibdev, port);
	if (ret)
		return ret;
	out->has_tos = file_u64(f, &out->tos, "%s/%s/ports/%u/default_roce_tos", base, ibdev,
				port) == 0;
	return 0;
}

int rd_ecn_read(struct rd_dr_files *f, const char *ifname, const char *point, unsigned int *mask)
{
	int ret;

	*mask = 0;
	ret = rd_sys_check_dir(f->sr, "/sys/class/net/%s/ecn/%s/enable", ifname, point);
	if (ret)
		return ret == -ENOTDIR ? -ENOENT : ret;
	for (unsigned int prio = 0; prio < 8; prio++) {
		uint64_t v;

		if (file_u64(f, &v, "/sys/class/net/%s/ecn/%s/enable/%u", ifname, point, prio) == 0 &&
		    v)
			*mask |= 1u << prio;
	}
	return 0;
}

int rd_sysctl_conf(struct rd_dr_files *f, const char *family, const char *ifname, const char *key,
		   uint64_t *v)
{
	return file_u64(f, v, "/proc/sys/net/%s/conf/%s/%s", family, ifname, key);
}

/* A hexadecimal field of /proc/net/route: 1 to 8 digits, nothing else. */
static int route_hex(const char *s, size_t n, unsigned int *v)
{
	unsigned int x = 0;

	if (n == 0 || n > 8)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int c = tolower((unsigned char)s[i]);

		if (!isxdigit(c))
			return -EINVAL;
		x = x << 4 | (unsigned int)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	*v = x;
	return 0;
}

int rd_parse_route_line(const char *line, struct rd_route *r, bool *keep)
{
	/* Iface Destination Gateway Flags RefCnt Use Metric Mask ...: fields 1, 2, 3 and 7 are hex. */
	unsigned int f[8] = { 0 };
	const char *s = line;

	*keep = false;
	for (unsigned int i = 0; i < 8; i++) {
		size_t n;

		s += strspn(s, " \t");
		n = strcspn(s, " \t\n");
		if (n == 0)
			return -EINVAL;
		if (i == 0) {
			if (n >= sizeof(r->ifname))
				return -EINVAL;
			memcpy(r->ifname, s, n);
			r->ifname[n] = '\0';
		} else if ((i <= 3 || i == 7) && route_hex(s, n, &f[i])) {
			return -EINVAL;
		}
		s += n;
	}
	r->dst = f[1];
	r->mask = f[7];
	/* RTF_UP (1), no RTF_GATEWAY (2), not a default route. */
	*keep = (f[3] & 1u) && !(f[3] & 2u) && f[2] == 0 && f[7] != 0;
	return 0;
}

int rd_routes_read(const struct rd_sysroot *sr, struct rd_routes *out)
{
	char path[RD_PATH_MAX], line[512];
	bool first = true;
	FILE *f;
	int ret = 0;

	out->v = NULL;
	out->n = 0;
	if (rd_sys_resolve(sr, path, sizeof(path), "/proc/net/route"))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct rd_route r;
		bool keep;

		if (first) {	/* the header */
			first = false;
			continue;
		}
		if (rd_parse_route_line(line, &r, &keep) || !keep)
			continue;
		struct rd_route *v = realloc(out->v, (out->n + 1) * sizeof(*v));

		if (!v) {
			ret = -ENOMEM;
			break;
		}
		out->v = v;
		out->v[out->n++] = r;
	}
	(void)fclose(f);	/* read only */
	return ret;
}

void rd_routes_free(struct rd_routes *r)
{
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

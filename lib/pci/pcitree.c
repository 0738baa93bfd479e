// SPDX-License-Identifier: MIT
/* The PCI tree from sysfs: places and identities at once, facts when asked. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcitree.h"

/* A function's config space as root reads it: the extended space included. */
#define PCI_CFG_SIZE 4096
#define PCI_EXT_CAP_START 0x100
#define PCI_EXT_CAP_ID_ACS 0x000d
#define PCI_EXT_CAP_ID_ATS 0x000f

/*
 * The functions placed so far by BDF, while the tree is read: each bridge of
 * each function's path is looked up before it is added, and a search of the
 * whole list for each was a tenth of a map's instructions.  Open addressing,
 * an index into t->v per slot (-1 empty), at most half full.
 */
struct fn_index {
	int *slot;
	size_t mask;
};

/* A BDF NUL-padded to its full size: two words to hash and to compare. */
static uint64_t bdf_hash(const char key[16])
{
	uint64_t a, b;

	memcpy(&a, key, 8);
	memcpy(&b, key + 8, 8);
	/* murmur3's finalizer: the low bits, which pick the slot, depend on every byte. */
	a ^= b * 0x9e3779b97f4a7c15ull;
	a ^= a >> 33;
	a *= 0xff51afd7ed558ccdull;
	a ^= a >> 33;
	a *= 0xc4ceb9fe1a85ec53ull;
	return a ^ a >> 33;
}

static int index_grow(struct fn_index *ix, const struct rd_pci_tree *t)
{
	size_t cap = ix->slot ? (ix->mask + 1) * 2 : 256;
	int *slot = malloc(cap * sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	memset(slot, 0xff, cap * sizeof(*slot));
	for (size_t i = 0; i < t->n; i++) {
		size_t h = (size_t)bdf_hash(t->v[i].bdf) & (cap - 1);

		while (slot[h] >= 0)
			h = (h + 1) & (cap - 1);
		slot[h] = (int)i;
	}
	free(ix->slot);
	ix->slot = slot;
	ix->mask = cap - 1;
	return 0;
}

static int add_fn(struct rd_pci_tree *t, struct fn_index *ix, const char *bdf, const char *path,
		  const char *hb, bool listed)
{
	struct rd_pci_fn *f;
	char key[sizeof(f->bdf)] = "";
	size_t h;

	/*
	 * Every bdf is NUL-padded to its full size (memset, then copied), and a
	 * checked BDF is shorter: one fixed-size compare per function instead
	 * of a strcmp.
	 */
	rd_strlcpy(key, bdf, sizeof(key));
	if ((!ix->slot || (t->n + 1) * 2 > ix->mask + 1) && index_grow(ix, t))
		return -ENOMEM;
	for (h = (size_t)bdf_hash(key) & ix->mask; ix->slot[h] >= 0; h = (h + 1) & ix->mask) {
		struct rd_pci_fn *old = &t->v[ix->slot[h]];

		if (memcmp(old->bdf, key, sizeof(key)) == 0) {
			old->listed |= listed;
			return 0;
		}
	}
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 64;
		struct rd_pci_fn *v = realloc(t->v, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = ncap;
	}
	f = &t->v[t->n];
	memset(f, 0, sizeof(*f));
	/* GCC 12's analyzer: a heap pointer stored into an element at a variable index (util.h). */
	RD_GCC_LEAK_FP_BEGIN
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	RD_GCC_LEAK_FP_END
	memcpy(f->bdf, key, sizeof(key));
	rd_strlcpy(f->host_bridge, hb, sizeof(f->host_bridge));
	f->listed = listed;
	f->parent = -1;
	f->numa = -1;
	f->iommu_group = -1;
	ix->slot[h] = (int)t->n;
	t->n++;
	return 0;
}

/*
 * "pci0000:00" (a host bridge's directory under /sys/devices, maybe below a
 * platform device): s's ten characters (the component's length is the caller's).
 */
static bool is_host_bridge_n(const char *s)
{
	return s[0] == 'p' && s[1] == 'c' && s[2] == 'i' && rd_is_xdigit(s[3]) &&
	       rd_is_xdigit(s[4]) && rd_is_xdigit(s[5]) && rd_is_xdigit(s[6]) && s[7] == ':' &&
	       rd_is_xdigit(s[8]) && rd_is_xdigit(s[9]);
}

/*
 * Place one listed function: its path's BDF components after the host
 * bridge are the bridges above it (each added, unlisted, if the listing
 * lacks it).  target is the link's text, in a buffer of RD_PATH_MAX bytes
 * that is rewritten: the path is built in it (no second path buffer on a
 * frame of the deepest stack: a fresh page of stack is a page fault).
 */
static int place(struct rd_pci_tree *t, struct fn_index *ix, const char *name, char *target,
		 struct rd_warnings *w)
{
	char *rest = strstr(target, "devices/"), *path, hb[24] = "";
	size_t comp[64], clen[64], ncomp = 0, first = 0, rlen = rest ? strlen(rest) : 0;

	if (!rest || rlen + 5 >= RD_PATH_MAX) {
		rd_warn(w, "PCI %s: link into %s is not a device path; skipped", name, target);
		return 0;
	}
	/* "/sys/" + "devices/...", over the link's "../../" when there is room before it. */
	path = (size_t)(rest - target) >= 5 ? rest - 5 : target;
	memmove(path + 5, rest, rlen + 1);
	memcpy(path, "/sys/", 5);
	/* One slash between components, as the functions' paths are kept. */
	for (char *r = path, *o = path; ; r++) {
		if (!(r[0] == '/' && r[1] == '/'))
			*o++ = *r;
		if (!*r)
			break;
	}
	/* The components between slashes (as strtok gives them: no empty one). */
	for (size_t q = 1; path[q] && ncomp < RD_ARRAY_SIZE(comp);) {
		if (path[q] == '/') {
			q++;
			continue;
		}
		comp[ncomp] = q;
		while (path[q] && path[q] != '/')
			q++;
		clen[ncomp] = q - comp[ncomp];
		ncomp++;
	}
	for (size_t i = 0; i < ncomp; i++) {
		if (clen[i] == 10 && is_host_bridge_n(path + comp[i])) {
			memcpy(hb, path + comp[i], 10);
			hb[10] = '\0';
			first = i + 1;
		}
	}
	if (!hb[0] || first >= ncomp || clen[ncomp - 1] != strlen(name) ||
	    memcmp(path + comp[ncomp - 1], name, clen[ncomp - 1]) != 0) {
		rd_warn(w, "PCI %s: %s is not below a host bridge; skipped", name, path);
		return 0;
	}
	/* Each function's path is the path up to its component: cut there in turn, then mended. */
	for (size_t i = first; i < ncomp; i++) {
		char bdf[24], *end = path + comp[i] + clen[i], saved = *end;
		int ret;

		if (clen[i] >= sizeof(bdf) || (memcpy(bdf, path + comp[i], clen[i]), bdf[clen[i]] = '\0',
						!rd_is_pci_bdf(bdf))) {
			char bad[64];

			rd_strlcpy(bad, path + comp[i], clen[i] < sizeof(bad) ? clen[i] + 1 : sizeof(bad));
			rd_warn(w, "PCI %s: %s has a component that is not a PCI address (%s); skipped",
				name, path, bad);
			return 0;
		}
		*end = '\0';
		ret = add_fn(t, ix, bdf, path, hb, i == ncomp - 1);
		*end = saved;
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_fn(const void *a, const void *b)
{
	return strcmp(((const struct rd_pci_fn *)a)->bdf, ((const struct rd_pci_fn *)b)->bdf);
}

int rd_pci_find(const struct rd_pci_tree *t, const char *bdf)
{
	struct rd_pci_fn key = { .parent = -1 };
	const struct rd_pci_fn *f;

	if (!bdf || strlen(bdf) >= sizeof(key.bdf))
		return -1;
	rd_strlcpy(key.bdf, bdf, sizeof(key.bdf));
	f = t->n ? bsearch(&key, t->v, t->n, sizeof(*t->v), cmp_fn) : NULL;
	return f ? (int)(f - t->v) : -1;
}

static void read_ids(struct rd_pci_tree *t, struct rd_pci_fn *f, struct rd_warnings *w)
{
	struct rd_sys_dir d;
	uint64_t ven, dev, cls;
	int e1, e2, e3;

	/* The function's directory held for its three files (as in rd_pci_facts). */
	(void)rd_sys_dir_open(t->sr, &d, "%s", f->path);
	e1 = rd_sys_dir_read_hex(&d, "vendor", &ven);
	e2 = rd_sys_dir_read_hex(&d, "device", &dev);
	e3 = rd_sys_dir_read_hex(&d, "class", &cls);
	rd_sys_dir_close(&d);
	if (e1 || e2 || e3 || ven > 0xffff || dev > 0xffff || cls > 0xffffff) {
		const char *file = e1 ? "vendor" : e2 ? "device" : e3 ? "class" :
				   ven > 0xffff ? "vendor" : dev > 0xffff ? "device" : "class";
		int err = e1 ? e1 : e2 ? e2 : e3 ? e3 : -ERANGE;

		rd_warn(w, "PCI %s: %s: %s; its identity is unknown", f->bdf, file, rd_read_strerror(err));
		return;
	}
	f->vendor = (uint16_t)ven;
	f->device = (uint16_t)dev;
	f->klass = (uint32_t)cls;
	f->ids_known = true;
}

int rd_pci_tree_read(const struct rd_sysroot *sr, struct rd_pci_tree *t, struct rd_warnings *w)
{
	struct rd_strlist names = { 0 };
	struct fn_index ix = { 0 };
	int ret;

	memset(t, 0, sizeof(*t));
	t->sr = sr;
	ret = rd_sys_list(sr, &names, "/sys/bus/pci/devices");
	if (ret)
		return ret;
	for (size_t i = 0; i < names.n && !ret; i++) {
		char target[RD_PATH_MAX];
		int err;

		if (!rd_is_pci_bdf(names.v[i])) {
			rd_warn(w, "PCI: /sys/bus/pci/devices/%s is not a PCI address; skipped", names.v[i]);
			continue;
		}
		err = rd_sys_readlink(sr, target, sizeof(target), "/sys/bus/pci/devices/%s", names.v[i]);
		if (err) {
			rd_warn(w, "PCI %s: /sys/bus/pci/devices/%s: %s; skipped", names.v[i], names.v[i],
				rd_read_strerror(err));
			continue;
		}
		ret = place(t, &ix, names.v[i], target, w);
	}
	rd_strlist_free(&names);
	free(ix.slot);
	if (ret)
		return ret;
	qsort(t->v, t->n, sizeof(*t->v), cmp_fn);
	for (size_t i = 0; i < t->n; i++) {
		struct rd_pci_fn *f = &t->v[i];
		const char *slash = strrchr(f->path, '/');
		char up[24] = "";

		/* The parent is the path's previous component, when it is a function. */
		if (slash && slash > f->path) {
			const char *p = slash;

			while (p > f->path && p[-1] != '/')
				p--;
			if ((size_t)(slash - p) < sizeof(up)) {
				memcpy(up, p, (size_t)(slash - p));
				up[slash - p] = '\0';
			}
		}
		f->parent = rd_is_pci_bdf(up) ? rd_pci_find(t, up) : -1;
		if (f->listed)
			read_ids(t, f, w);
	}
	for (size_t i = 0; i < t->n; i++) {
		unsigned int d = 0;

		for (int p = t->v[i].parent; p >= 0 && d < 64; p = t->v[p].parent)
			d++;
		t->v[i].depth = d;
	}
	return 0;
}

void rd_pci_tree_free(struct rd_pci_tree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

int rd_pci_find_path(const struct rd_pci_tree *t, const char *path)
{
	char buf[RD_PATH_MAX];
	const char *rest = strstr(path, "devices/");

	if (!rest || rd_snprintf(buf, sizeof(buf), "/sys/%s", rest))
		return -1;
	/* The deepest component that is a function of the tree. */
	for (;;) {
		char *slash = strrchr(buf, '/');

		if (!slash || slash == buf)
			return -1;
		if (rd_is_pci_bdf(slash + 1)) {
			int i = rd_pci_find(t, slash + 1);

			if (i >= 0 && strcmp(t->v[i].path, buf) == 0)
				return i;
		}
		*slash = '\0';
	}
}

int rd_pci_common(const struct rd_pci_tree *t, int a, int b)
{
	if (a < 0 || b < 0 || strcmp(t->v[a].host_bridge, t->v[b].host_bridge) != 0)
		return -1;
	while (a >= 0 && b >= 0 && a != b) {
		if (t->v[a].depth >= t->v[b].depth)
			a = t->v[a].parent;
		else
			b = t->v[b].parent;
	}
	return a == b ? a : -1;
}

double rd_pci_speed_gts(const char *s)
{
	char *end;
	double v;
	uint64_t m = 0, scale = 1;
	const char *p = s;
	unsigned int digits = 0;

	/*
	 * What the kernel writes ("16.0 GT/s", "2.5 GT/s") without strtod: the
	 * digits as one integer over a power of ten, both exact below 2^53, so
	 * the one division rounds as strtod does.  Anything else (a sign, an
	 * exponent, more digits) is strtod's.
	 */
	for (; *p >= '0' && *p <= '9' && digits < 15; p++, digits++)
		m = m * 10 + (uint64_t)(*p - '0');
	if (digits && *p == '.') {
		for (p++; *p >= '0' && *p <= '9' && digits < 15; p++, digits++) {
			m = m * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		}
	}
	if (digits && digits < 15 && *p == ' ') {
		v = (double)m / (double)scale;
		return v <= 0 || v > 1000 || strncmp(p, " GT/s", 5) != 0 ? 0 : v;
	}
	v = strtod(s, &end);

	if (end == s || v <= 0 || v > 1000 || strncmp(end, " GT/s", 5) != 0)
		return 0;
	return v;
}

const char *rd_acs_bits(uint16_t v, char buf[40])
{
	static const char *const names[] = { "SV", "TB", "RR", "CR", "UF", "EC", "DT" };
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < RD_ARRAY_SIZE(names); i++) {
		if (!(v & (1u << i)))
			continue;
		off += (size_t)snprintf(buf + off, 40 - off, "%s%s", off ? " " : "", names[i]);
	}
	if (!off)
		rd_strlcpy(buf, "-", 40);
	return buf;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * Walk the extended capabilities for ACS and ATS (a loop or a pointer out of
 * range ends the walk, with a warning).
 */
static void read_acs(struct rd_sys_dir *d, struct rd_pci_fn *f, struct rd_warnings *w)
{
	uint8_t cfg[PCI_CFG_SIZE];
	unsigned int off = PCI_EXT_CAP_START;
	size_t got = 0;
	int err = rd_sys_dir_read_bytes(d, "config", cfg, sizeof(cfg), &got);

	f->config_len = got;
	if (err) {
		if (err != -ENOENT)
			rd_warn(w, "PCI %s: config: %s", f->bdf, rd_read_strerror(err));
		return;
	}
	if (got < PCI_CFG_SIZE)
		return;	/* 64 or 256 bytes: not root, or no extended space */
	f->acs = f->ats = RD_CAP_ABSENT;
	for (unsigned int hops = 0; hops < 96 && off >= PCI_EXT_CAP_START && off <= PCI_CFG_SIZE - 8;
	     hops++) {
		uint32_t h = le32(cfg + off);

		if (h == 0 || h == 0xffffffffu)
			return;
		if ((h & 0xffff) == PCI_EXT_CAP_ID_ACS && f->acs == RD_CAP_ABSENT) {
			f->acs = RD_CAP_PRESENT;
			f->acs_cap = (uint16_t)(cfg[off + 4] | cfg[off + 5] << 8);
			f->acs_ctrl = (uint16_t)(cfg[off + 6] | cfg[off + 7] << 8);
		} else if ((h & 0xffff) == PCI_EXT_CAP_ID_ATS && f->ats == RD_CAP_ABSENT) {
			f->ats = RD_CAP_PRESENT;
			f->ats_ctrl = (uint16_t)(cfg[off + 6] | cfg[off + 7] << 8);
		}
		if ((h >> 20) == 0)
			return;	/* the end of the list */
		if (((h >> 20) & 3) || (h >> 20) <= off)
			break;	/* misaligned, or pointing back: a loop */
		off = h >> 20;
	}
	rd_warn(w, "PCI %s: config: malformed extended capability list at 0x%x", f->bdf, off);
}

static void read_link(struct rd_sys_dir *d, struct rd_pci_fn *f)
{
	uint64_t cw, mw;

	if (rd_sys_dir_read_str(d, "current_link_speed", f->cur_speed, sizeof(f->cur_speed)) ||
	    rd_sys_dir_read_str(d, "max_link_speed", f->max_speed, sizeof(f->max_speed)) ||
	    rd_sys_dir_read_u64(d, "current_link_width", &cw) ||
	    rd_sys_dir_read_u64(d, "max_link_width", &mw) || cw > 64 || mw > 64) {
		f->cur_speed[0] = f->max_speed[0] = '\0';
		return;
	}
	f->cur_gts = rd_pci_speed_gts(f->cur_speed);
	f->max_gts = rd_pci_speed_gts(f->max_speed);
	f->cur_width = (unsigned int)cw;
	f->max_width = (unsigned int)mw;
	f->link_known = true;
}

void rd_pci_facts(struct rd_pci_tree *t, size_t i, struct rd_warnings *w)
{
	struct rd_pci_fn *f = &t->v[i];
	struct rd_sys_dir d;
	char buf[64];
	uint64_t v;

	if (f->facts_read)
		return;
	f->facts_read = true;
	/* Eight files of one directory: opened relative to it, no path built for each. */
	(void)rd_sys_dir_open(t->sr, &d, "%s", f->path);
	if (rd_sys_dir_read_hex(&d, "subsystem_vendor", &v) == 0 && v <= 0xffff)
		f->sub_vendor = (uint16_t)v;
	if (rd_sys_dir_read_hex(&d, "subsystem_device", &v) == 0 && v <= 0xffff)
		f->sub_device = (uint16_t)v;
	/* numa_node is "-1" without NUMA (and in most VMs). */
	if (rd_sys_dir_read_str(&d, "numa_node", buf, sizeof(buf)) == 0) {
		if (strcmp(buf, "-1") == 0)
			f->numa = -1;
		else if (rd_parse_uint(buf, &v) == 0 && v < 4096)
			f->numa = (int)v;
		else
			rd_warn(w, "PCI %s: numa_node: malformed value \"%s\"", f->bdf, buf);
	}
	read_link(&d, f);
	read_acs(&d, f, w);
	rd_sys_dir_close(&d);
}

void rd_pci_iommu(struct rd_pci_tree *t, size_t i)
{
	struct rd_pci_fn *f = &t->v[i];
	char grp[32];
	uint64_t v;

	if (f->iommu_read)
		return;
	f->iommu_read = true;
	if (rd_sys_link_basename(t->sr, grp, sizeof(grp), "%s/iommu_group", f->path) == 0 &&
	    rd_parse_uint(grp, &v) == 0 && v < 1u << 20) {
		f->iommu_group = (int)v;
		if (rd_sys_read_str(t->sr, f->iommu_type, sizeof(f->iommu_type),
				    "/sys/kernel/iommu_groups/%s/type", grp))
			f->iommu_type[0] = '\0';
	}
}

int rd_pci_bar_size(const struct rd_pci_tree *t, size_t i, unsigned int n, uint64_t *size)
{
	char buf[2048], *line, *save = NULL;
	unsigned int k = 0;
	int ret;

	/* "0x00000000fa000000 0x00000000faffffff 0x0000000000040200" per resource, BARs first. */
	ret = rd_sys_read_str(t->sr, buf, sizeof(buf), "%s/resource", t->v[i].path);
	if (ret)
		return ret;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), k++) {
		unsigned long long start, end;
		char *e, *e2;

		if (k != n)
			continue;
		start = strtoull(line, &e, 16);
		if (e == line || *e != ' ')
			return -EINVAL;
		end = strtoull(e + 1, &e2, 16);
		if (e2 == e + 1 || *e2 != ' ' || end < start)
			return -EINVAL;
		if (!end)
			return -ENODATA;
		*size = end - start + 1;
		return 0;
	}
	/* The kernel writes a line for every resource of a function (PCI_NUM_RESOURCES). */
	return -EINVAL;
}

bool rd_pci_link_degraded(struct rd_pci_tree *t, size_t i, struct rd_warnings *w, double *cap_gts,
			  unsigned int *cap_width)
{
	const struct rd_pci_fn *f, *port = NULL;
	double gts;
	unsigned int width;

	rd_pci_facts(t, i, w);
	f = &t->v[i];
	if (!f->link_known || !f->max_width)
		return false;
	gts = f->max_gts;
	width = f->max_width;
	if (f->parent >= 0) {
		rd_pci_facts(t, (size_t)f->parent, w);
		port = &t->v[f->parent];
		if (port->link_known && port->max_width && port->max_width < width)
			width = port->max_width;
		if (port->link_known && port->max_gts && (!gts || port->max_gts < gts))
			gts = port->max_gts;
	}
	*cap_gts = gts;
	*cap_width = width;
	return f->cur_width < width || (f->cur_gts && gts && f->cur_gts < gts);
}

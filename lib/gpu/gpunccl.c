// SPDX-License-Identifier: MIT
/* NCCL's names and settings: path types, the variables that change its choice, per release. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gputopo.h"

static const char *const path_names[] = {
	"LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS", "NET", "DIS",
};

const char *rd_path_name(int path)
{
	return path >= 0 && (size_t)path < RD_ARRAY_SIZE(path_names) ? path_names[path] : "?";
}

int rd_path_parse(const char *s, int *path)
{
	/* NCCL's pre-2.7 numbers: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and up SYS. */
	static const int old[] = { RD_PATH_LOC, RD_PATH_PIX, RD_PATH_PXB, RD_PATH_PHB, RD_PATH_SYS };
	uint64_t n;

	for (int i = 0; i <= RD_PATH_SYS; i++) {
		if (strcmp(s, path_names[i]) == 0) {
			*path = i;
			return 0;
		}
	}
	if (rd_parse_uint(s, &n) == 0) {
		*path = old[n < RD_ARRAY_SIZE(old) ? n : RD_ARRAY_SIZE(old) - 1];
		return 0;
	}
	return -EINVAL;
}

void rd_nccl_conf_init(struct rd_nccl_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->version = RD_NCCL_NEWEST;
	c->gdr_level = c->gdr_c2c = c->dmabuf = c->merge_vfs = c->pxn_disable = c->pxn_c2c = -1;
}

int rd_nccl_version_parse(const char *s, unsigned int *v)
{
	/* "2.27" or "2.27.3": decimal digits only */
	size_t n1 = strspn(s, "0123456789"), n2;

	if (n1 != 1 || s[0] != '2' || s[1] != '.')
		return -EINVAL;
	n2 = strspn(s + 2, "0123456789");
	if (n2 < 1 || n2 > 2)
		return -EINVAL;
	if (s[2 + n2] == '.') {
		size_t n3 = strspn(s + 3 + n2, "0123456789");

		if (!n3 || s[3 + n2 + n3])
			return -EINVAL;
	} else if (s[2 + n2]) {
		return -EINVAL;
	}
	*v = 200 + (unsigned int)(n2 == 1 ? s[2] - '0' : (s[2] - '0') * 10 + (s[3] - '0'));
	return *v < RD_NCCL_OLDEST || *v > RD_NCCL_NEWEST ? -ERANGE : 0;
}

static int parse_bool(const char *val, int *out)
{
	if (strcmp(val, "0") == 0 || strcmp(val, "1") == 0) {
		*out = val[0] == '1';
		return 0;
	}
	return -EINVAL;
}

int rd_nccl_conf_set(struct rd_nccl_conf *c, const char *name, const char *val, const char *src,
		     char *msg, size_t msglen)
{
	int v;

	if (strcmp(name, "NCCL_NET_GDR_LEVEL") == 0) {
		if (rd_path_parse(val, &v)) {
			snprintf(msg, msglen, "%s: \"%s\" is not a path type (LOC PIX PXB P2C PHB SYS, or 0-5)",
				 name, val);
			return -EINVAL;
		}
		c->gdr_level = v;
		c->src_gdr_level = src;
	} else if (strcmp(name, "NCCL_NET_GDR_C2C") == 0 || strcmp(name, "NCCL_DMABUF_ENABLE") == 0 ||
		   strcmp(name, "NCCL_IB_MERGE_VFS") == 0 || strcmp(name, "NCCL_PXN_DISABLE") == 0 ||
		   strcmp(name, "NCCL_PXN_C2C") == 0) {
		if (parse_bool(val, &v)) {
			snprintf(msg, msglen, "%s: \"%s\" is not 0 or 1", name, val);
			return -EINVAL;
		}
		if (strcmp(name, "NCCL_PXN_DISABLE") == 0) {
			c->pxn_disable = v;
			c->src_pxn_disable = src;
		} else if (strcmp(name, "NCCL_PXN_C2C") == 0) {
			c->pxn_c2c = v;
			c->src_pxn_c2c = src;
		} else if (strcmp(name, "NCCL_NET_GDR_C2C") == 0) {
			c->gdr_c2c = v;
			c->src_gdr_c2c = src;
		} else if (strcmp(name, "NCCL_DMABUF_ENABLE") == 0) {
			c->dmabuf = v;
			c->src_dmabuf = src;
		} else {
			c->merge_vfs = v;
			c->src_merge_vfs = src;
		}
	} else if (strcmp(name, "NCCL_IB_HCA") == 0) {
		if (strlen(val) >= sizeof(c->ib_hca)) {
			snprintf(msg, msglen, "%s: longer than %zu bytes", name, sizeof(c->ib_hca) - 1);
			return -EINVAL;
		}
		rd_strlcpy(c->ib_hca, val, sizeof(c->ib_hca));
		c->ib_hca_set = true;
		c->src_ib_hca = src;
	} else if (strcmp(name, "NCCL_TOPO_FILE") == 0) {
		if (!*val || strlen(val) >= sizeof(c->topo_file)) {
			snprintf(msg, msglen, "%s: %s file name", name, *val ? "too long a" : "an empty");
			return -EINVAL;
		}
		rd_strlcpy(c->topo_file, val, sizeof(c->topo_file));
		c->src_topo_file = src;
	} else {
		snprintf(msg, msglen, "%s: not a setting this tool weighs", name);
		return -EINVAL;
	}
	return 0;
}

int rd_nccl_conf_env(struct rd_nccl_conf *c, char *msg, size_t msglen)
{
	static const char *const vars[] = {
		"NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_C2C", "NCCL_DMABUF_ENABLE",
		"NCCL_IB_MERGE_VFS", "NCCL_IB_HCA", "NCCL_TOPO_FILE",
		"NCCL_PXN_DISABLE", "NCCL_PXN_C2C",
	};
	const char *const *src[] = {
		&c->src_gdr_level, &c->src_gdr_c2c, &c->src_dmabuf,
		&c->src_merge_vfs, &c->src_ib_hca, &c->src_topo_file,
		&c->src_pxn_disable, &c->src_pxn_c2c,
	};

	for (size_t i = 0; i < RD_ARRAY_SIZE(vars); i++) {
		const char *val = getenv(vars[i]);

		/* An option given on the command line wins over the environment. */
		if (!val || *src[i])
			continue;
		/* NCCL treats an empty variable as unset. */
		if (!*val)
			continue;
		if (rd_nccl_conf_set(c, vars[i], val, "environment", msg, msglen))
			return -EINVAL;
	}
	return 0;
}

bool rd_nccl_gdr_c2c(const struct rd_nccl_conf *c)
{
	if (c->version < 226)
		return false;		/* no C2C rule before 2.26 */
	if (c->gdr_c2c >= 0)
		return c->gdr_c2c;
	return c->version >= 227;	/* opt-in in 2.26, on from 2.27 */
}

int rd_nccl_gdr_level(const struct rd_nccl_conf *c)
{
	if (c->gdr_level >= 0)
		return c->gdr_level;
	/* From 2.27 the default admits P2C (a C2C GPU's CPU-attached NIC) when the C2C rule is on. */
	return c->version >= 227 && rd_nccl_gdr_c2c(c) ? RD_PATH_P2C : RD_PATH_PXB;
}

bool rd_nccl_dmabuf(const struct rd_nccl_conf *c)
{
	if (c->version < 213)
		return false;
	return c->dmabuf != 0;
}

bool rd_nccl_merge_vfs(const struct rd_nccl_conf *c)
{
	if (c->version < 218)
		return false;
	return c->merge_vfs != 0;
}

bool rd_nccl_pxn(const struct rd_nccl_conf *c)
{
	return c->pxn_disable != 1;	/* PXN exists in every release known (2.12 on) */
}

int rd_nccl_pxn_level(const struct rd_nccl_conf *c)
{
	/* NCCL_PXN_C2C: from 2.27, off by default there and on from 2.28. */
	bool c2c = c->version >= 227 && (c->pxn_c2c >= 0 ? c->pxn_c2c == 1 : c->version >= 228);

	return c2c ? RD_PATH_P2C : RD_PATH_PXB;
}

/*
 * ncclTopoComputePaths: the peer reaches the NIC at the PXN level or better
 * (with GDR, from 2.30), is joined to the GPU by NVLink, and either has more
 * bandwidth to the NIC or spares the GPU a path through a CPU (worse than
 * PXB before 2.28, than PXN since).
 */
bool rd_nccl_pxn_through(const struct rd_nccl_conf *c, const struct rd_pxn_case *p)
{
	int far = c->version >= 228 ? RD_PATH_PXN : RD_PATH_PXB;

	if (!rd_nccl_pxn(c) || p->peer_type > rd_nccl_pxn_level(c) || p->peer_link > RD_PATH_NVL)
		return false;
	if (c->version >= 230 && !p->peer_gdr)
		return false;
	return p->peer_bw > p->gpu_bw || p->gpu_type > far;
}

/* One "prefix[:port]" entry against a device name and port, as NCCL matches them. */
static bool match_entry(const char *entry, size_t len, bool exact, const char *dev, unsigned int port)
{
	const char *colon = memchr(entry, ':', len);
	size_t plen = colon ? (size_t)(colon - entry) : len;
	long want = -1;

	if (plen == 0)
		return false;
	if (colon && (size_t)(colon - entry) + 1 < len) {
		char num[16];
		size_t nlen = len - plen - 1;
		const char *c2 = memchr(colon + 1, ':', nlen);

		if (c2)
			nlen = (size_t)(c2 - colon - 1);
		if (nlen && nlen < sizeof(num)) {
			memcpy(num, colon + 1, nlen);
			num[nlen] = '\0';
			char *e;
			long p = strtol(num, &e, 10);

			/* NCCL's atoi: what is not a number is port 0, which matches no port */
			want = e == num ? 0 : p;
		}
	}
	if (exact ? (strlen(dev) != plen || strncmp(dev, entry, plen) != 0) :
		    strncmp(dev, entry, plen) != 0)
		return false;
	return want < 0 || (unsigned long)want == port;
}

bool rd_nccl_hca_match(const char *spec, const char *dev, unsigned int port)
{
	bool neg = false, exact = false, any = false, hit = false;
	const char *p = spec;

	if (*p == '^') {
		neg = true;
		p++;
	}
	if (*p == '=') {
		exact = true;
		p++;
	}
	while (*p) {
		size_t len = strcspn(p, ",");

		/* parseStringList() keeps an entry only when its name before ':' is not empty. */
		if (len && *p != ':') {
			any = true;
			if (match_entry(p, len, exact, dev, port))
				hit = true;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	/* An empty list matches every device: alone it admits all, after '^' none (as NCCL does). */
	if (!any)
		return !neg;
	return hit != neg;
}

// SPDX-License-Identifier: MIT
/*
 * A fabric in a file: libibnetdisc's cache format (`ibnetdiscover --cache`,
 * `iblinkinfo --load-cache`), loaded and saved; and infiniband-diags' node
 * name map.  Every file goes through rd_infile / rd_outfile, so a FIFO, a
 * device or a huge file cannot hang or grow the tool, and --save never
 * writes through a link or over a device node.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/ibnetdisc.h>

#include "fabapi.h"
#include "fabint.h"

/* A cache of 2,048 nodes is about 2 MB: 64 MiB leaves room for the largest fabrics. */
#define CACHE_MAX_BYTES (64u << 20)

int rd_fab_load(struct rd_fab *fab, const char *path, int timeout_ms, char *why, size_t why_len)
{
	struct rd_infile_limits lim = {
		.max_bytes = CACHE_MAX_BYTES, .max_line = CACHE_MAX_BYTES,
		.max_lines = CACHE_MAX_BYTES, .timeout_ms = timeout_ms, .binary = true,
	};
	struct rd_infile f;
	const char *data;
	char fdpath[64];
	size_t len;
	ibnd_fabric_t *ibf;
	int ret, mfd = -1;

	memset(fab, 0, sizeof(*fab));
	fab->from_node = fab->from_port = -1;
	ret = rd_infile_open(&f, path, &lim, why, why_len);
	if (ret)
		return ret;
	ret = rd_infile_all(&f, &data, &len, why, why_len);
	if (ret)
		goto out;
	if (len == 0) {
		snprintf(why, why_len, "empty (not an ibnetdiscover --cache file)");
		ret = -EINVAL;
		goto out;
	}
	/*
	 * libibnetdisc reads a path: hand it a private copy of the bytes read
	 * under our limits, never the user's file again (it could change, or
	 * be a FIFO already drained).
	 */
	mfd = memfd_create("rd-fabric-cache", MFD_CLOEXEC);
	if (mfd < 0) {
		ret = -errno;
		snprintf(why, why_len, "%s", strerror(-ret));
		goto out;
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(mfd, data + off, len - off);

		if (w < 0) {
			ret = -errno;
			snprintf(why, why_len, "%s", strerror(-ret));
			goto out;
		}
		off += (size_t)w;
	}
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", mfd);
	ibf = ibnd_load_fabric(fdpath, 0);
	if (!ibf) {
		snprintf(why, why_len, "not a fabric cache libibnetdisc can read "
			 "(write one with rdma-fabric --save or ibnetdiscover --cache)");
		ret = -EINVAL;
		goto out;
	}
	fab->ibnd = ibf;
	ret = rd_fab_from_ibnd(fab, ibf);
	if (ret) {
		snprintf(why, why_len, "%s", strerror(-ret));
		rd_fab_free(fab);
	}
out:
	if (mfd >= 0)
		close(mfd);
	rd_infile_close(&f);
	return ret;
}

struct copy_arg {
	int fd;
};

static int copy_out(FILE *fp, void *arg)
{
	struct copy_arg *a = arg;
	char buf[65536];
	ssize_t n;

	while ((n = read(a->fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, fp) != (size_t)n)
			return -EIO;
	return n < 0 ? -errno : 0;
}

int rd_fab_save(const struct rd_fab *fab, const char *path, char *why, size_t why_len)
{
	char dir[] = "/tmp/rdma-fabric.XXXXXX", file[64];
	struct rd_outfile of;
	struct copy_arg a = { -1 };
	int ret;

	if (!fab->ibnd) {
		snprintf(why, why_len, "no swept fabric to save");
		return -EINVAL;
	}
	ret = rd_outfile_open(&of, path, why, why_len);
	if (ret)
		return ret;
	/* libibnetdisc writes to a path of its own: a private directory, then our copy. */
	if (!mkdtemp(dir)) {
		ret = -errno;
		snprintf(why, why_len, "cannot make a temporary directory: %s", strerror(-ret));
		goto out;
	}
	snprintf(file, sizeof(file), "%s/cache", dir);
	if (ibnd_cache_fabric(fab->ibnd, file, IBND_CACHE_FABRIC_FLAG_DEFAULT) != 0) {
		snprintf(why, why_len, "libibnetdisc could not write the cache");
		ret = -EIO;
		goto rm;
	}
	a.fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (a.fd < 0) {
		ret = -errno;
		snprintf(why, why_len, "%s", strerror(-ret));
		goto rm;
	}
	ret = rd_outfile_replace(&of, copy_out, &a, why, why_len);
	close(a.fd);
rm:
	unlink(file);
	rmdir(dir);
out:
	rd_outfile_close(&of);
	return ret;
}

/*
 * infiniband-diags' node name map: "0x0002c903000e0b72 "leaf01"" a line, '#'
 * comments; the name may be quoted or bare.  A line that does not parse is
 * an error naming it (a map that silently names nothing would mislead).
 */
int rd_fab_name_map(struct rd_fab *fab, const char *path, int timeout_ms, char *why, size_t why_len)
{
	struct rd_infile_limits lim = {
		.max_bytes = 16u << 20, .max_line = 1024, .max_lines = 200000, .timeout_ms = timeout_ms,
	};
	struct rd_infile f;
	char *line;
	size_t len;
	int ret;

	ret = rd_infile_open(&f, path, &lim, why, why_len);
	if (ret)
		return ret;
	while ((ret = rd_infile_line(&f, &line, &len, why, why_len)) == 1) {
		char *s = line, *end, *name;
		unsigned long long guid;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s || *s == '#')
			continue;
		errno = 0;
		guid = strtoull(s, &end, 0);
		if (errno || end == s || !isspace((unsigned char)*end)) {
			snprintf(why, why_len, "line %zu: not 'GUID name'", f.lineno);
			ret = -EINVAL;
			break;
		}
		s = end;
		while (isspace((unsigned char)*s))
			s++;
		if (*s == '"') {
			name = ++s;
			end = strchr(s, '"');
			if (!end) {
				snprintf(why, why_len, "line %zu: a name without its closing quote", f.lineno);
				ret = -EINVAL;
				break;
			}
		} else {
			name = s;
			for (end = s; *end && *end != '\r' && *end != '#'; end++)
				;
			while (end > name && isspace((unsigned char)end[-1]))
				end--;
		}
		*end = '\0';
		if (!*name) {
			snprintf(why, why_len, "line %zu: an empty name", f.lineno);
			ret = -EINVAL;
			break;
		}
		for (size_t i = 0; i < fab->n_nodes; i++)
			if (fab->nodes[i].guid == guid)
				rd_strlcpy(fab->nodes[i].name, name, sizeof(fab->nodes[i].name));
	}
	rd_infile_close(&f);
	return ret < 0 ? ret : 0;
}

// SPDX-License-Identifier: MIT
/*
 * gid-floor: the floor for a GID listing.  It opens, reads and closes each file a
 * listing of every device's GID table must read, once, and does nothing else: no
 * parsing beyond "is this the zero GID", no sorting, no output but one summary line.
 *
 *   per device  node_type node_guid sys_image_guid fw_ver hca_type board_id node_desc
 *               device/sriov_numvfs (the device scan's VF count)
 *   once        infiniband_verbs/uverbs* /ibdev (which uverbs node is whose)
 *   per port    state phys_state rate link_layer lid sm_lid sm_sl lid_mask_count cap_mask
 *   per slot    gids/N; for a non-zero GID also gid_attrs/types/N and gid_attrs/ndevs/N
 *   once        /proc/net/vlan/config (netdev -> VLAN id)
 *   listings    sys/class/infiniband, each device's ports/, each port's gids/
 *
 * That is the set of files rdma-gids reads for its listing (lib/model/device.c
 * rd_device_read/read_port, lib/model/gid.c rd_port_gid_table), each read once.
 *
 * With -a the same files are opened relative to their directory (openat on a
 * descriptor of the class, device, port, gids and gid_attrs directories, each
 * opened once): the cheapest way to read them, which an absolute path per file
 * (the default, as rdma-gids opens them today) hides; issue #33 measures
 * rdma-gids against both.
 *
 * usage: gid-floor [-a] SYSROOT (reads SYSROOT/sys and SYSROOT/proc; "/" for live)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned long nread, nmissing;

static ssize_t slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		nmissing++;
		return -1;
	}
	n = read(fd, buf, len);
	close(fd);
	nread++;
	return n;
}

/* Format a path into out; one that does not fit counts as missing (false). */
__attribute__((format(printf, 3, 4))) static bool pathf(char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(out, n, fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= n) {
		nmissing++;
		return false;
	}
	return true;
}

static void read_attrs(const char *dir, const char *const *names)
{
	char path[PATH_MAX], buf[256];

	for (; *names; names++) {
		if (pathf(path, sizeof(path), "%s/%s", dir, *names))
			slurp(path, buf, sizeof(buf));
	}
}

static const char *const dev_attrs[] = {
	"node_type", "node_guid", "sys_image_guid", "fw_ver", "hca_type", "board_id",
	"node_desc", "device/sriov_numvfs", NULL,
};
static const char *const port_attrs[] = {
	"state", "phys_state", "rate", "link_layer", "lid", "sm_lid", "sm_sl",
	"lid_mask_count", "cap_mask", NULL,
};

static const char zero_gid[] = "0000:0000:0000:0000:0000:0000:0000:0000";

/* ---- -a: every file relative to its directory's descriptor */

static ssize_t slurp_at(int dirfd, const char *name, char *buf, size_t len)
{
	int fd = dirfd < 0 ? -1 : openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		nmissing++;
		return -1;
	}
	n = read(fd, buf, len);
	close(fd);
	nread++;
	return n;
}

static int dir_at(int dirfd, const char *name)
{
	return dirfd < 0 ? -1 : openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* A listing of the directory open at fd (fd stays open for openat). */
static DIR *list_at(int fd)
{
	int d = fd < 0 ? -1 : dup(fd);
	DIR *dir = d < 0 ? NULL : fdopendir(d);

	if (!dir && d >= 0)
		close(d);
	if (dir)
		rewinddir(dir);
	return dir;
}

static void read_attrs_at(int dirfd, const char *const *names)
{
	char buf[256];

	for (; *names; names++)
		slurp_at(dirfd, *names, buf, sizeof(buf));
}

static int walk_at(const char *root)
{
	char path[PATH_MAX], buf[256];
	unsigned long ndev = 0, nport = 0, nslot = 0, nused = 0;
	int rootfd, ibfd, vfd;
	struct dirent *de, *pe, *ge;
	DIR *dd, *pd, *gd;

	if (!pathf(path, sizeof(path), "%s/", root))
		return 2;
	rootfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		perror(path);
		return 1;
	}
	{
		int fd = openat(rootfd, "proc/net/vlan/config", O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
			nread++;
		}
	}
	vfd = dir_at(rootfd, "sys/class/infiniband_verbs");
	dd = list_at(vfd);
	if (dd) {
		while ((de = readdir(dd))) {
			int ufd;

			if (strncmp(de->d_name, "uverbs", 6) != 0)
				continue;
			ufd = dir_at(vfd, de->d_name);
			slurp_at(ufd, "ibdev", buf, sizeof(buf));
			if (ufd >= 0)
				close(ufd);
		}
		closedir(dd);
	}
	if (vfd >= 0)
		close(vfd);
	ibfd = dir_at(rootfd, "sys/class/infiniband");
	dd = list_at(ibfd);
	if (!dd) {
		perror("sys/class/infiniband");
		return 1;
	}
	while ((de = readdir(dd))) {
		int devfd, portsfd;

		if (de->d_name[0] == '.')
			continue;
		ndev++;
		devfd = dir_at(ibfd, de->d_name);
		read_attrs_at(devfd, dev_attrs);
		portsfd = dir_at(devfd, "ports");
		pd = list_at(portsfd);
		while (pd && (pe = readdir(pd))) {
			int portfd, gidsfd, typesfd, ndevsfd;

			if (pe->d_name[0] == '.')
				continue;
			nport++;
			portfd = dir_at(portsfd, pe->d_name);
			read_attrs_at(portfd, port_attrs);
			gidsfd = dir_at(portfd, "gids");
			typesfd = dir_at(portfd, "gid_attrs/types");
			ndevsfd = dir_at(portfd, "gid_attrs/ndevs");
			gd = list_at(gidsfd);
			while (gd && (ge = readdir(gd))) {
				ssize_t n;

				if (ge->d_name[0] == '.')
					continue;
				nslot++;
				n = slurp_at(gidsfd, ge->d_name, buf, sizeof(buf));
				if (n < 39 || memcmp(buf, zero_gid, 39) == 0)
					continue;
				nused++;
				slurp_at(typesfd, ge->d_name, buf, sizeof(buf));
				slurp_at(ndevsfd, ge->d_name, buf, sizeof(buf));
			}
			if (gd)
				closedir(gd);
			for (int *f = (int[]){ gidsfd, typesfd, ndevsfd, portfd, -2 }; *f != -2; f++)
				if (*f >= 0)
					close(*f);
		}
		if (pd)
			closedir(pd);
		if (portsfd >= 0)
			close(portsfd);
		if (devfd >= 0)
			close(devfd);
	}
	closedir(dd);
	close(ibfd);
	close(rootfd);
	printf("devices=%lu ports=%lu slots=%lu used=%lu files_read=%lu missing=%lu\n", ndev,
	       nport, nslot, nused, nread, nmissing);
	return 0;
}

int main(int argc, char **argv)
{
	char root[PATH_MAX], ib[PATH_MAX], dev[PATH_MAX], port[PATH_MAX], path[PATH_MAX];
	char buf[256];
	unsigned long ndev = 0, nport = 0, nslot = 0, nused = 0;
	struct dirent *de, *pe, *ge;
	DIR *dd, *pd, *gd;

	if (argc == 3 && strcmp(argv[1], "-a") == 0)
		return walk_at(strcmp(argv[2], "/") ? argv[2] : "");
	if (argc != 2) {
		fprintf(stderr, "usage: %s [-a] SYSROOT\n", argv[0]);
		return 2;
	}
	if (!pathf(root, sizeof(root), "%s", strcmp(argv[1], "/") ? argv[1] : "") ||
	    !pathf(ib, sizeof(ib), "%s/sys/class/infiniband_verbs", root) ||
	    !pathf(path, sizeof(path), "%s/proc/net/vlan/config", root)) {
		fprintf(stderr, "%s: path too long\n", argv[1]);
		return 2;
	}
	{
		/* The config is small but may exceed one buffer: read it to the end. */
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
			nread++;
		}
	}

	dd = opendir(ib);
	if (dd) {
		while ((de = readdir(dd))) {
			if (strncmp(de->d_name, "uverbs", 6) != 0)
				continue;
			if (pathf(path, sizeof(path), "%s/%s/ibdev", ib, de->d_name))
				slurp(path, buf, sizeof(buf));
		}
		closedir(dd);
	}

	pathf(ib, sizeof(ib), "%s/sys/class/infiniband", root);	/* shorter than the one above */
	dd = opendir(ib);
	if (!dd) {
		perror(ib);
		return 1;
	}
	while ((de = readdir(dd))) {
		if (de->d_name[0] == '.')
			continue;
		ndev++;
		if (!pathf(dev, sizeof(dev), "%s/%s", ib, de->d_name))
			continue;
		read_attrs(dev, dev_attrs);
		pd = pathf(path, sizeof(path), "%s/ports", dev) ? opendir(path) : NULL;
		if (!pd)
			continue;
		while ((pe = readdir(pd))) {
			if (pe->d_name[0] == '.')
				continue;
			nport++;
			if (!pathf(port, sizeof(port), "%s/ports/%s", dev, pe->d_name))
				continue;
			read_attrs(port, port_attrs);
			gd = pathf(path, sizeof(path), "%s/gids", port) ? opendir(path) : NULL;
			if (!gd)
				continue;
			while ((ge = readdir(gd))) {
				ssize_t n;

				if (ge->d_name[0] == '.')
					continue;
				nslot++;
				if (!pathf(path, sizeof(path), "%s/gids/%s", port, ge->d_name))
					continue;
				n = slurp(path, buf, sizeof(buf));
				if (n < 39 || memcmp(buf, zero_gid, 39) == 0)
					continue;
				nused++;
				if (pathf(path, sizeof(path), "%s/gid_attrs/types/%s", port, ge->d_name))
					slurp(path, buf, sizeof(buf));
				if (pathf(path, sizeof(path), "%s/gid_attrs/ndevs/%s", port, ge->d_name))
					slurp(path, buf, sizeof(buf));
			}
			closedir(gd);
		}
		closedir(pd);
	}
	closedir(dd);
	printf("devices=%lu ports=%lu slots=%lu used=%lu files_read=%lu missing=%lu\n", ndev,
	       nport, nslot, nused, nread, nmissing);
	return 0;
}

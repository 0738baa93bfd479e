// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "sysroot.h"
#include "base/base.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rd_sysroot_init(struct rd_sysroot *sr, const char *dir)
{
	struct stat st;
	size_t len;

	sr->root[0] = '\0';
	sr->rootlen = 0;
	if (!dir || !*dir || strcmp(dir, "/") == 0)
		return 0;
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (len >= sizeof(sr->root))
		return -ENAMETOOLONG;
	memcpy(sr->root, dir, len);
	sr->root[len] = '\0';
	sr->rootlen = len;
	return 0;
}

bool rd_sysroot_is_live(const struct rd_sysroot *sr)
{
	return sr->rootlen == 0;
}

int rd_sys_resolve(const struct rd_sysroot *sr, char *buf, size_t len, const char *path)
{
	return rd_snprintf(buf, len, "%s%s", sr->root, path);
}

/*
 * A path format made of text, %s, %u and %d (all the readers' formats are),
 * written without printf: a GID table formats ~33,000 paths.  -EINVAL for
 * any other conversion (the caller then uses vsnprintf), -ENAMETOOLONG.
 */
static int format_path(char *buf, size_t len, size_t *outlen, const char *fmt, va_list ap)
{
	char *p = buf, *end = buf + len - 1;

	for (; *fmt; fmt++) {
		const char *s;
		char num[24], *q;
		size_t n;

		if (*fmt != '%') {
			/* The text up to the next conversion, in one copy. */
			s = strchrnul(fmt, '%');
			n = (size_t)(s - fmt);
			if (n > (size_t)(end - p))
				return -ENAMETOOLONG;
			memcpy(p, fmt, n);
			p += n;
			fmt = s - 1;
			continue;
		}
		if (fmt[1] == '%') {
			if (p == end)
				return -ENAMETOOLONG;
			*p++ = '%';
			fmt++;
			continue;
		}
		fmt++;
		if (*fmt == 's') {
			s = va_arg(ap, const char *);
			if (!s)
				return -EINVAL;	/* printf's "(null)" */
			n = strlen(s);
		} else if (*fmt == 'u' || *fmt == 'd') {
			unsigned int u;
			bool neg = false;

			if (*fmt == 'u') {
				u = va_arg(ap, unsigned int);
			} else {
				int d = va_arg(ap, int);

				neg = d < 0;
				u = neg ? 0u - (unsigned int)d : (unsigned int)d;
			}
			q = num + sizeof(num);
			do {
				*--q = (char)('0' + u % 10);
				u /= 10;
			} while (u);
			if (neg)
				*--q = '-';
			s = q;
			n = (size_t)(num + sizeof(num) - q);
		} else {
			return -EINVAL;
		}
		if (n > (size_t)(end - p))
			return -ENAMETOOLONG;
		memcpy(p, s, n);
		p += n;
	}
	*p = '\0';
	*outlen = (size_t)(p - buf);
	return 0;
}

/*
 * The root, then the formatted path after it: one format, no copy.  *plen
 * is the path's length, carried to the directory cache so that it is not
 * counted again there.
 */
static int vresolve(const struct rd_sysroot *sr, char *buf, size_t len, size_t *plen,
		    const char *fmt, va_list ap)
{
	va_list copy;
	size_t n = 0;
	int ret;

	if (sr->rootlen >= len)
		return -ENAMETOOLONG;
	memcpy(buf, sr->root, sr->rootlen);
	va_copy(copy, ap);
	ret = format_path(buf + sr->rootlen, len - sr->rootlen, &n, fmt, copy);
	va_end(copy);
	if (ret == -EINVAL) {
		ret = rd_vsnprintf(buf + sr->rootlen, len - sr->rootlen, fmt, ap);
		n = ret ? 0 : strlen(buf + sr->rootlen);
	}
	*plen = sr->rootlen + n;
	return ret;
}

/*
 * Directory descriptors.  A file is opened relative to a descriptor of its
 * directory (openat), kept from the last reads: the kernel then walks one
 * component instead of the whole path with its symlinks, which is most of
 * the cost of reading ~33,000 GID files.  Each thread has its own
 * (DIRCACHE of them, below), closed when the thread or the process ends.
 * A descriptor names the directory it was opened as: when that directory
 * is removed (a device unplugged) the open through it fails, and the read
 * is tried once more by path.  What can move without
 * being removed (a symlink pointed elsewhere, a device renamed) is why
 * a tool that watches calls rd_sysroot_forget() on every kernel event and
 * every refresh.
 *
 * The cache is DIRSETS sets of DIRWAYS descriptors, a directory's set
 * chosen by a hash of its path, the least recently used of a set replaced:
 * enough for a topology's walk over a PCI tree to find each function's
 * directory again when it comes back for more of its files (eight, in one
 * list, lost them all between the two passes), found without comparing
 * every path.
 */
#define DIRWAYS 4
#define DIRSETS 32
#define DIRCACHE ((size_t)DIRWAYS * DIRSETS)

struct dircache {
	struct {
		char *path;	/* the directory, root included */
		size_t len;
		uint64_t hash;	/* dir_hash(path, len) */
		int fd;
		unsigned long used;
	} e[DIRCACHE];
	unsigned long tick;
	size_t last;	/* the entry used last: a reader's next file is often beside its last */
	/*
	 * Directories missed lately (a hash of each path, in a place chosen by
	 * it): a directory is opened for the cache only when it is asked for
	 * again while still here.  A reader that goes round more directories
	 * than the cache holds then opens its files by path, one call each,
	 * instead of a directory and a file every time.
	 */
	uint64_t seen[DIRCACHE * 2];
	bool registered;
};

static __thread struct dircache dircache;
static pthread_key_t dircache_key;
static pthread_once_t dircache_once = PTHREAD_ONCE_INIT;

static void dircache_clear(struct dircache *dc)
{
	for (size_t i = 0; i < DIRCACHE; i++) {
		if (dc->e[i].path) {
			close(dc->e[i].fd);
			free(dc->e[i].path);
			dc->e[i].path = NULL;
		}
	}
}

void rd_sysroot_forget(void)
{
	dircache_clear(&dircache);
}

static void dircache_thread_end(void *dc)
{
	dircache_clear(dc);
}

static void dircache_exit(void)
{
	dircache_clear(&dircache);
}

static void dircache_setup(void)
{
	(void)pthread_key_create(&dircache_key, dircache_thread_end);
	(void)atexit(dircache_exit);
}

/*
 * A hash of a directory's path for the ring of directories missed lately,
 * eight bytes a step (the paths are long and mostly alike; FNV-1a a byte at
 * a time was a tenth of a run's instructions).  Never 0: 0 marks an empty
 * place.
 */
static uint64_t dir_hash(const char *path, size_t len)
{
	uint64_t hv = 1469598103934665603ull ^ len;
	/*
	 * The last 64 bytes and the length: paths of one tree share their
	 * beginning (the root, /sys/devices/pci...) and differ at the end.  Two
	 * that agree there only share a set, or count as seen; every hit is
	 * still checked against the whole path.
	 */
	size_t i = len > 64 ? len - 64 : 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, path + i, 8);
		hv = (hv ^ w) * 0x9e3779b97f4a7c15ull;
		hv ^= hv >> 29;
	}
	for (; i < len; i++)
		hv = (hv ^ (unsigned char)path[i]) * 1099511628211ull;
	hv ^= hv >> 32;
	return hv | 1;
}

/*
 * The cached directory e is path's (len bytes).  Directories at one depth
 * often have paths of one length that differ only at the end (a PCI
 * function's among its siblings'): their last eight bytes are compared
 * first.
 */
static bool same_dir(const char *e, const char *path, size_t len)
{
	if (len >= 8) {
		uint64_t x, y;

		memcpy(&x, e + len - 8, 8);
		memcpy(&y, path + len - 8, 8);
		if (x != y)
			return false;
	}
	return memcmp(e, path, len) == 0;
}

/* The cache's entry for the directory path[0..len) (hv its hash), or -1. */
static int dircache_find(struct dircache *dc, const char *path, size_t len, uint64_t hv)
{
	size_t set = (size_t)(hv >> 8) % DIRSETS * DIRWAYS;

	for (size_t i = set; i < set + DIRWAYS; i++) {
		if (dc->e[i].hash == hv && dc->e[i].len == len && dc->e[i].path &&
		    same_dir(dc->e[i].path, path, len))
			return (int)i;
	}
	return -1;
}

/*
 * Keep fd as the descriptor of the directory copy[0..len) (hv its hash; copy
 * is malloc'd and the cache's from here): the set's first empty slot, else
 * its least recently used, whose descriptor is closed.  false when it cannot
 * be kept (the caller still owns fd and copy).
 */
static bool dircache_put(struct dircache *dc, char *copy, size_t len, uint64_t hv, int fd)
{
	size_t set = (size_t)(hv >> 8) % DIRSETS * DIRWAYS, slot = set;

	for (size_t k = set; k < set + DIRWAYS; k++) {
		if (dc->e[slot].path && (!dc->e[k].path || dc->e[k].used < dc->e[slot].used))
			slot = k;
	}
	if (!dc->registered) {
		if (pthread_once(&dircache_once, dircache_setup) != 0)
			return false;
		/* The main thread's cache is closed by atexit, the others' by the key. */
		(void)pthread_setspecific(dircache_key, dc);
		dc->registered = true;
	}
	if (dc->e[slot].path) {
		close(dc->e[slot].fd);
		free(dc->e[slot].path);
	}
	dc->e[slot].path = copy;
	dc->e[slot].len = len;
	dc->e[slot].hash = hv;
	dc->e[slot].fd = fd;
	dc->e[slot].used = ++dc->tick;
	dc->last = slot;
	return true;
}

/*
 * The cached descriptor of the directory path[0..len), taken out of the
 * cache with its path (*copy), or -1 when it is not there.
 */
static int dircache_take(struct dircache *dc, const char *path, size_t len, uint64_t hv, char **copy)
{
	int i = dircache_find(dc, path, len, hv);

	if (i < 0)
		return -1;
	*copy = dc->e[i].path;
	dc->e[i].path = NULL;
	return dc->e[i].fd;
}

/*
 * A descriptor for path (-1 when there is none to be had) and where the
 * rest of path after it starts: its directory's, the name in it, or when
 * that directory is not cached the nearest cached ancestor's (up to three
 * levels), "dir/name" in it; *cached says it came from the cache.  A
 * directory not cached is opened (relative to that ancestor) only when it
 * is asked for again; the first time the file is opened by path, from the
 * ancestor when there is one: a PCI function's directory below its
 * bridge's, a port's below its device's, is then a step or two from it,
 * not the whole path again.  (The kernel resolves ".." and symlinks in
 * the rest from the directory the ancestor's descriptor holds, as it
 * would on the whole path.)
 */
static int dircache_get(const char *path, size_t pathlen, const char **name, bool *cached)
{
	struct dircache *dc = &dircache;
	/* From the end: the name is short, the directory's path long. */
	const char *slash = memrchr(path, '/', pathlen), *pslash;
	size_t len, plen = 0;
	uint64_t hv;
	char *copy;
	int fd, i, parent = -1;

	*cached = false;
	if (!slash || slash == path || !slash[1])
		return -1;
	len = (size_t)(slash - path);
	*name = slash + 1;
	/* The directory of the last file, again: no hash needed. */
	if (dc->e[dc->last].len == len && dc->e[dc->last].path &&
	    same_dir(dc->e[dc->last].path, path, len)) {
		dc->e[dc->last].used = ++dc->tick;
		*cached = true;
		return dc->e[dc->last].fd;
	}
	hv = dir_hash(path, len);
	i = dircache_find(dc, path, len, hv);
	if (i >= 0) {
		dc->e[i].used = ++dc->tick;
		dc->last = (size_t)i;
		*cached = true;
		return dc->e[i].fd;
	}
	/* The nearest of its parent, grandparent and great-grandparent that is cached. */
	pslash = path + len;
	for (unsigned int up = 0; up < 3 && parent < 0; up++) {
		pslash = memrchr(path, '/', (size_t)(pslash - path));
		if (!pslash || pslash == path)
			break;
		plen = (size_t)(pslash - path);
		parent = dircache_find(dc, path, plen, dir_hash(path, plen));
	}
	{
		uint64_t *seen = &dc->seen[(hv >> 32) % RD_ARRAY_SIZE(dc->seen)];

		if (*seen != hv) {
			*seen = hv;
			if (parent < 0)
				return -1;	/* the first time: by path */
			/* the first time: by path from the parent */
			dc->e[parent].used = ++dc->tick;
			*name = pslash + 1;
			*cached = true;
			return dc->e[parent].fd;
		}
	}
	copy = strndup(path, len);
	if (!copy)
		return -1;
	fd = -1;
	if (parent >= 0) {
		fd = openat(dc->e[parent].fd, copy + plen + 1, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			dc->e[parent].used = ++dc->tick;
	}
	if (fd < 0)
		fd = open(copy, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		free(copy);
		return -1;
	}
	if (!dircache_put(dc, copy, len, hv, fd)) {
		close(fd);
		free(copy);
		return -1;
	}
	return fd;
}

/* Forget the cached descriptor of the directory path[0..len) (it went stale). */
static void dircache_drop(const char *path, size_t len)
{
	struct dircache *dc = &dircache;

	for (size_t i = 0; i < DIRCACHE; i++) {
		if (dc->e[i].path && dc->e[i].len == len && memcmp(dc->e[i].path, path, len) == 0) {
			close(dc->e[i].fd);
			free(dc->e[i].path);
			dc->e[i].path = NULL;
		}
	}
}

/*
 * The cached descriptor dfd is still the directory at path[0..len) (the
 * same inode: while dfd holds it, a directory made again there has another).
 */
static bool dir_unchanged(int dfd, const char *path, size_t len)
{
	char dir[RD_PATH_MAX];
	struct stat held, now;

	if (!len || len >= sizeof(dir))
		return false;
	memcpy(dir, path, len);
	dir[len] = '\0';
	return fstat(dfd, &held) == 0 && stat(dir, &now) == 0 && held.st_dev == now.st_dev &&
	       held.st_ino == now.st_ino;
}

/*
 * One *at() call on path through the directory cache: op(dfd, name) with
 * the cached descriptor of path's directory, or op(AT_FDCWD, path).  Opens,
 * link reads and stats all take it: a readlink or stat by path walks every
 * component (a PCI function's iommu_group, the links of /sys/bus/pci/devices)
 * as an open does.
 */
typedef int (*at_op)(int dfd, const char *name, void *arg);

static int call_cached(const char *path, size_t pathlen, at_op op, void *arg)
{
	const char *name;
	bool cached;
	int dfd = dircache_get(path, pathlen, &name, &cached), ret;

	if (dfd < 0)
		return op(AT_FDCWD, path, arg);
	ret = op(dfd, name, arg);
	if (ret < 0 && cached && (errno == ENOENT || errno == ENODEV || errno == ESTALE)) {
		int err = errno;

		/*
		 * An attribute absent from a directory still in its place is
		 * absent (a soft device's parent, a port's missing file): not
		 * asked for a second time.
		 */
		if (err == ENOENT && dir_unchanged(dfd, path, (size_t)(name - 1 - path))) {
			errno = err;
			return -1;
		}
		/* The directory may have gone since it was cached: ask once more. */
		dircache_drop(path, (size_t)(name - 1 - path));
		dfd = dircache_get(path, pathlen, &name, &cached);
		ret = dfd < 0 ? op(AT_FDCWD, path, arg) : op(dfd, name, arg);
	}
	return ret;
}

static int op_open(int dfd, const char *name, void *arg)
{
	return openat(dfd, name, *(const int *)arg);
}

/* open(path, flags) through the directory cache (pathlen: strlen(path)). */
static int open_cached(const char *path, size_t pathlen, int flags)
{
	return call_cached(path, pathlen, op_open, &flags);
}

struct readlink_arg {
	char *buf;
	size_t len;
};

static int op_readlink(int dfd, const char *name, void *arg)
{
	const struct readlink_arg *a = arg;
	ssize_t n = readlinkat(dfd, name, a->buf, a->len);

	return n < 0 ? -1 : (int)n;
}

/* readlink(path) through the directory cache: the length, or -1 with errno. */
/* NOLINTNEXTLINE(readability-non-const-parameter): buf is written, by readlinkat through a.buf */
static ssize_t readlink_cached(const char *path, size_t pathlen, char *buf, size_t len)
{
	struct readlink_arg a = { buf, len > INT_MAX ? INT_MAX : len };

	return call_cached(path, pathlen, op_readlink, &a);
}

struct stat_arg {
	struct stat *st;
	int flags;
};

static int op_stat(int dfd, const char *name, void *arg)
{
	const struct stat_arg *a = arg;

	return fstatat(dfd, name, a->st, a->flags);
}

/* stat(path) (flags: AT_SYMLINK_NOFOLLOW for lstat) through the directory cache. */
static int stat_cached(const char *path, size_t pathlen, struct stat *st, int flags)
{
	struct stat_arg a = { st, flags };

	return call_cached(path, pathlen, op_stat, &a);
}

/*
 * Why path could not be opened: -ENOLINK when it is a symlink to nothing (a
 * copied tree that lost the target), so that it is not taken for an
 * attribute that is absent on purpose (-ENOENT).
 */
static int open_error(const char *path, int err)
{
	struct stat st;

	if (err == ENOENT && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return -ENOLINK;
	return err > 0 ? -err : -EIO;
}

/*
 * Why name could not be opened in the directory dfd: the same as
 * open_error, the symlink asked for with fstatat.
 */
static int open_error_at(int dfd, const char *name, int err)
{
	struct stat st;

	if (err == ENOENT && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
		return -ENOLINK;
	return err > 0 ? -err : -EIO;
}

/* Read a whole small file from fd, and close it; -EOVERFLOW if it does not fit (len >= 2). */
static int read_text_fd(int fd, char *buf, size_t len)
{
	struct stat st;
	size_t off = 0;
	int ret = 0;
	bool nul;

	for (;;) {
		ssize_t n = read(fd, buf + off, len - 1 - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		off += (size_t)n;
		/* sysfs hands over an attribute in one read: a short read is the end. */
		if ((size_t)n < len - 1 - (off - (size_t)n))
			break;
		if (off == len - 1) {
			char extra;

			n = read(fd, &extra, 1);
			if (n > 0)
				ret = -EOVERFLOW;
			break;
		}
	}
	buf[off] = '\0';
	/*
	 * sysfs and procfs attributes are regular files; a FIFO or device is not
	 * taken for one.  Asked only when the read did not give one clean text
	 * value (an error, nothing, too much, a NUL): what such a file gives
	 * (O_NONBLOCK: EAGAIN or nothing; a device: NULs or endless bytes) ends
	 * here, and the common case costs no fstat per file.
	 */
	nul = strlen(buf) != off;
	if (ret || off == 0 || nul) {
		if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
			close(fd);
			buf[0] = '\0';
			return S_ISDIR(st.st_mode) ? -EISDIR : -EMEDIUMTYPE;
		}
	}
	close(fd);
	if (ret)
		return ret;
	/* Binary garbage: a NUL inside the value is not a sysfs text value. */
	if (nul)
		return -EILSEQ;
	/* isspace's C-locale six, without a call per character */
	while (off && (buf[off - 1] == ' ' || (buf[off - 1] >= '\t' && buf[off - 1] <= '\r')))
		buf[--off] = '\0';
	return 0;
}

#define TEXT_OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

/* Read a whole small file; -EOVERFLOW if it does not fit. */
static int read_file(const char *path, size_t pathlen, char *buf, size_t len)
{
	int fd;

	if (len < 2)
		return -EINVAL;
	buf[0] = '\0';
	fd = open_cached(path, pathlen, TEXT_OPEN_FLAGS);
	if (fd < 0)
		return open_error(path, errno);
	return read_text_fd(fd, buf, len);
}

/* Up to len bytes of a binary attribute from fd (a regular file), and close it. */
static int read_bytes_fd(int fd, void *buf, size_t len, size_t *got)
{
	struct stat st;
	int ret = 0;

	/* A binary attribute (a PCI function's config) is a regular file. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EMEDIUMTYPE;
		close(fd);
		return ret;
	}
	while (*got < len) {
		ssize_t n = read(fd, (char *)buf + *got, len - *got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	close(fd);
	return ret;
}

/* Resolve the formatted path and read the file into buf. */
static int vread(const struct rd_sysroot *sr, char *buf, size_t len, const char *fmt, va_list ap)
{
	char path[RD_PATH_MAX];
	size_t plen;
	int ret = vresolve(sr, path, sizeof(path), &plen, fmt, ap);

	return ret ? ret : read_file(path, plen, buf, len);
}

int rd_sys_read_bytes(const struct rd_sysroot *sr, void *buf, size_t len, size_t *got,
		      const char *fmt, ...)
{
	char path[RD_PATH_MAX];
	size_t plen;
	va_list ap;
	int fd, ret;

	*got = 0;
	va_start(ap, fmt);
	ret = vresolve(sr, path, sizeof(path), &plen, fmt, ap);
	va_end(ap);
	if (ret)
		return ret;
	/* Through the directory cache, as text attributes: a function's config is read beside them. */
	fd = open_cached(path, plen, TEXT_OPEN_FLAGS);
	if (fd < 0)
		return open_error(path, errno);
	return read_bytes_fd(fd, buf, len, got);
}

int rd_sys_read_str(const struct rd_sysroot *sr, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vread(sr, buf, len, fmt, ap);
	va_end(ap);
	return ret;
}

int rd_sys_read_u64(const struct rd_sysroot *sr, uint64_t *v, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vread(sr, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return ret ? ret : rd_parse_u64(buf, v);
}

int rd_sys_read_hex(const struct rd_sysroot *sr, uint64_t *v, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vread(sr, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return ret ? ret : rd_parse_hex(buf, v);
}

int rd_sys_read_gid(const struct rd_sysroot *sr, uint8_t gid[16], const char *fmt, ...)
{
	char buf[96];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vread(sr, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return ret ? ret : rd_parse_gid(buf, gid);
}

/* ---- a directory held open for several of its files ---- */

int rd_sys_dir_open(const struct rd_sysroot *sr, struct rd_sys_dir *d, const char *fmt, ...)
{
	struct dircache *dc = &dircache;
	char path[RD_PATH_MAX];
	size_t plen;
	va_list ap;
	int ret;

	d->fd = -1;
	d->path = NULL;
	d->cached = false;
	va_start(ap, fmt);
	ret = vresolve(sr, path, sizeof(path), &plen, fmt, ap);
	va_end(ap);
	while (!ret && plen > 1 && path[plen - 1] == '/')
		path[--plen] = '\0';
	if (ret) {
		d->err = ret;
		return ret;
	}
	/*
	 * The directory's cached descriptor is the handle's while it is open
	 * (nothing else can close it under the reads), and goes back to the
	 * cache on close: a function's attributes read again later, or its
	 * children's opened below it, find it there.
	 */
	d->len = plen;
	d->hash = dir_hash(path, plen);
	d->fd = dircache_take(dc, path, plen, d->hash, &d->path);
	d->cached = d->fd >= 0;
	if (d->fd < 0) {
		d->path = strndup(path, plen);
		if (!d->path) {
			d->err = -ENOMEM;
			return d->err;
		}
		/* Relative to its parent's cached descriptor when there is one. */
		d->fd = open_cached(path, plen, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (d->fd < 0) {
			ret = errno > 0 ? -errno : -EIO;
			free(d->path);
			d->path = NULL;
		}
	}
	d->err = ret;
	return ret;
}

void rd_sys_dir_close(struct rd_sys_dir *d)
{
	if (d->fd >= 0 && !dircache_put(&dircache, d->path, d->len, d->hash, d->fd)) {
		close(d->fd);
		free(d->path);
	}
	d->fd = -1;
	d->path = NULL;
	d->err = -EBADF;
}

/*
 * name opened in d (a descriptor), or -errno: d's own error when d is not
 * open.  A descriptor taken from the cache may be of a directory removed
 * since (a device unplugged and back): when name is not there and the
 * directory's path now holds another, it is opened again and asked once more.
 */
static int dir_open_file(struct rd_sys_dir *d, const char *name)
{
	int fd, err;

	if (d->fd < 0)
		return d->err ? d->err : -EBADF;
	fd = openat(d->fd, name, TEXT_OPEN_FLAGS);
	if (fd >= 0)
		return fd;
	err = errno;
	if (d->cached && (err == ENOENT || err == ENODEV || err == ESTALE) &&
	    !dir_unchanged(d->fd, d->path, d->len)) {
		int nfd = open(d->path, O_PATH | O_DIRECTORY | O_CLOEXEC);

		d->cached = false;
		if (nfd < 0)
			return -ENOENT;	/* the directory itself is gone: as a read by path says */
		close(d->fd);
		d->fd = nfd;
		fd = openat(d->fd, name, TEXT_OPEN_FLAGS);
		if (fd >= 0)
			return fd;
		err = errno;
	}
	return open_error_at(d->fd, name, err);
}

int rd_sys_dir_read_str(struct rd_sys_dir *d, const char *name, char *buf, size_t len)
{
	int fd;

	if (len < 2)
		return -EINVAL;
	buf[0] = '\0';
	fd = dir_open_file(d, name);
	return fd < 0 ? fd : read_text_fd(fd, buf, len);
}

int rd_sys_dir_read_u64(struct rd_sys_dir *d, const char *name, uint64_t *v)
{
	char buf[64];
	int ret = rd_sys_dir_read_str(d, name, buf, sizeof(buf));

	return ret ? ret : rd_parse_u64(buf, v);
}

int rd_sys_dir_read_hex(struct rd_sys_dir *d, const char *name, uint64_t *v)
{
	char buf[64];
	int ret = rd_sys_dir_read_str(d, name, buf, sizeof(buf));

	return ret ? ret : rd_parse_hex(buf, v);
}

int rd_sys_dir_read_bytes(struct rd_sys_dir *d, const char *name, void *buf, size_t len,
			  size_t *got)
{
	int fd;

	*got = 0;
	fd = dir_open_file(d, name);
	return fd < 0 ? fd : read_bytes_fd(fd, buf, len, got);
}

/*
 * getdents64's buffer for rd_sys_list, one per thread (a listing calls
 * nothing that lists): not opendir's 32 KiB malloc per listing, which
 * spread the heap over more pages, and not the stack, where it would add
 * pages below the deepest frames; each page first touched is a fault.  A
 * directory of more entries than fit takes another call.
 */
static __thread char list_buf[4096] __attribute__((aligned(8)));

int rd_sys_list(const struct rd_sysroot *sr, struct rd_strlist *out, const char *fmt, ...)
{
	char path[RD_PATH_MAX], *ents = list_buf;
	size_t plen;
	va_list ap;
	int fd, ret;

	va_start(ap, fmt);
	ret = vresolve(sr, path, sizeof(path), &plen, fmt, ap);
	va_end(ap);
	if (ret)
		return ret;
	/* By path, as opendir did: a listing leaves no descriptor in the cache. */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return open_error(path, errno);
	for (;;) {
		ssize_t n = getdents64(fd, ents, sizeof(list_buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				ret = -errno;
			break;
		}
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *)(ents + off);

			off += de->d_reclen;
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			ret = rd_strlist_add(out, de->d_name);
			if (ret)
				goto out;
		}
	}
	if (!ret)
		rd_strlist_sort_natural(out);
out:
	close(fd);
	return ret;
}

int rd_sys_readlink(const struct rd_sysroot *sr, char *buf, size_t len, const char *fmt, ...)
{
	char path[RD_PATH_MAX];
	size_t plen;
	va_list ap;
	ssize_t n;
	int ret;

	va_start(ap, fmt);
	ret = vresolve(sr, path, sizeof(path), &plen, fmt, ap);
	va_end(ap);
	if (ret)
		return ret;
	if (len < 2)
		return -EINVAL;
	n = readlink_cached(path, plen, buf, len - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n == len - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}

int rd_sys_link_basename(const struct rd_sysroot *sr, char *buf, size_t len, const char *fmt, ...)
{
	char path[RD_PATH_MAX], target[RD_PATH_MAX];
	size_t plen;
	const char *base;
	va_list ap;
	ssize_t n;
	int ret;

	va_start(ap, fmt);
	ret = vresolve(sr, path, sizeof(path), &plen, fmt, ap);
	va_end(ap);
	if (ret)
		return ret;
	n = readlink_cached(path, plen, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!*base)
		return -EINVAL;
	if (strlen(base) >= len)
		return -ENAMETOOLONG;
	rd_strlcpy(buf, base, len);
	return 0;
}

/*
 * The resolved name without realpath's readlink of every component of the
 * path: when a link's text is relative and ends in a name (not "." or "..")
 * that is not itself a link, that name is where it leads.  -EAGAIN when it
 * cannot tell (absolute text, "..", a link to a link, no target): the
 * caller resolves the whole path.
 */
static int link_plain_name(const char *path, size_t plen, char *buf, size_t len)
{
	/*
	 * "<the link's directory>/<its text>", the text read straight into
	 * place: one path buffer in this frame, not two (it is on the deepest
	 * stack of a device scan; a fresh page of stack is a page fault).
	 */
	char at[RD_PATH_MAX], *target;
	const char *slash = memrchr(path, '/', plen), *base;
	struct stat st;
	size_t dlen, room;
	ssize_t n;

	if (!slash)
		return -EAGAIN;
	dlen = (size_t)(slash - path);
	if (dlen + 2 >= sizeof(at))
		return -EAGAIN;
	memcpy(at, path, dlen);
	at[dlen] = '/';
	target = at + dlen + 1;
	room = sizeof(at) - dlen - 1;
	n = readlink_cached(path, plen, target, room - 1);
	if (n <= 0 || (size_t)n >= room - 1)
		return -EAGAIN;	/* no link, or text that may not have fitted */
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (target[0] == '/' || !*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 ||
	    strlen(base) >= len)
		return -EAGAIN;
	if (stat_cached(at, dlen + 1 + (size_t)n, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISLNK(st.st_mode))
		return -EAGAIN;
	rd_strlcpy(buf, base, len);
	return 0;
}

int rd_sys_link_resolved_name(const struct rd_sysroot *sr, char *buf, size_t len, const char *fmt, ...)
{
	char path[RD_PATH_MAX];
	size_t plen;
	const char *base;
	char *real;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vresolve(sr, path, sizeof(path), &plen, fmt, ap);
	va_end(ap);
	if (ret)
		return ret;
	if (link_plain_name(path, plen, buf, len) == 0)
		return 0;
	real = realpath(path, NULL);
	if (!real)
		return rd_sys_link_basename(sr, buf, len, "%s", path + sr->rootlen);
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (!*base || strlen(base) >= len)
		ret = *base ? -ENAMETOOLONG : -EINVAL;
	else
		rd_strlcpy(buf, base, len);
	free(real);
	return ret;
}

int rd_sys_check_dir(const struct rd_sysroot *sr, const char *fmt, ...)
{
	char path[RD_PATH_MAX];
	size_t plen;
	struct stat st;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vresolve(sr, path, sizeof(path), &plen, fmt, ap);
	va_end(ap);
	if (ret)
		return ret;
	if (stat_cached(path, plen, &st, 0) < 0)
		return open_error(path, errno);
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

bool rd_sys_exists(const struct rd_sysroot *sr, const char *fmt, ...)
{
	char path[RD_PATH_MAX];
	size_t plen;
	struct stat st;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vresolve(sr, path, sizeof(path), &plen, fmt, ap);
	va_end(ap);
	if (ret)
		return false;
	/* A stat through the directory cache (F_OK asks no more than that). */
	return stat_cached(path, plen, &st, 0) == 0;
}

const char *rd_read_strerror(int err)
{
	switch (err) {
	case -ENODATA:
		return "empty file";
	case -EINVAL:
		return "malformed value";
	case -ERANGE:
		return "value out of range";
	case -EOVERFLOW:
		return "value too long";
	case -EILSEQ:
		return "binary data";
	case -ENOLINK:
		return "dangling symlink";
	case -ELOOP:
		return "symlink loop";
	case -EISDIR:
		return "a directory, not a file";
	case -EMEDIUMTYPE:
		return "not a regular file";
	default:
		return strerror(-err);
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * Rooted file access.  Every read of /sys or /proc goes through here, so that
 * --sysroot DIR replays a captured tree exactly like the live system.
 * Readers return 0 or -errno and never print.
 */
#ifndef RD_SYSROOT_H
#define RD_SYSROOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

#define RD_PATH_MAX 4096

struct rd_sysroot {
	char root[RD_PATH_MAX];	/* "" for the live system */
	size_t rootlen;
};

/* dir NULL or "" or "/" means the live system.  -errno if dir is not a directory. */
int rd_sysroot_init(struct rd_sysroot *sr, const char *dir);
bool rd_sysroot_is_live(const struct rd_sysroot *sr);
/*
 * Files are opened relative to cached descriptors of their directories (a
 * few per thread).  A tool that keeps running while devices come and go
 * calls this on every kernel event and refresh, so that nothing is read
 * through a directory that has moved since.
 */
void rd_sysroot_forget(void);
/* "/sys/x" -> "<root>/sys/x" */
int rd_sys_resolve(const struct rd_sysroot *sr, char *buf, size_t len, const char *path);

/*
 * Readers.  The path is a printf format for an absolute path ("/sys/...").
 * rd_sys_read_str: the whole file, trailing whitespace/newlines trimmed;
 *   -EOVERFLOW if it does not fit in len.
 * rd_sys_read_u64: decimal; rd_sys_read_hex: hex with optional 0x;
 *   both -ENODATA for an empty file, -EINVAL for garbage, -ERANGE on overflow.
 * rd_sys_read_gid: a GID/IPv6 address into 16 bytes.
 * All: -ENOLINK for a dangling symlink (-ENOENT only when nothing is there),
 *   -EISDIR for a directory, -EMEDIUMTYPE for a FIFO, socket or device node.
 */
int rd_sys_read_str(const struct rd_sysroot *sr, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int rd_sys_read_u64(const struct rd_sysroot *sr, uint64_t *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rd_sys_read_hex(const struct rd_sysroot *sr, uint64_t *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rd_sys_read_gid(const struct rd_sysroot *sr, uint8_t gid[16], const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Up to len bytes of a binary attribute (a PCI function's config space: 4096
 * bytes for root, 64 for others); *got says how many.  A FIFO or a device is
 * refused (-EMEDIUMTYPE), as for text attributes.
 */
int rd_sys_read_bytes(const struct rd_sysroot *sr, void *buf, size_t len, size_t *got,
		      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/*
 * A directory held open while several of its files are read (a PCI
 * function's attributes): each read is one openat() relative to it, with no
 * path to format or look up.  rd_sys_dir_open returns 0 or -errno; when it
 * failed, every read gives that error.  The rd_sys_dir_read_* readers take
 * a name relative to the directory and behave as the readers above.
 * rd_sys_dir_close ends it, on the thread that opened it (the directory's
 * descriptor then goes back to that thread's cache).
 */
struct rd_sys_dir {
	int fd;		/* the directory (O_PATH), -1 when not open */
	int err;	/* why not */
	char *path;	/* the rest is the cache's: the directory's path with the root */
	size_t len;
	uint64_t hash;
	bool cached;	/* fd came from the cache (it may be of a directory since removed) */
};
int rd_sys_dir_open(const struct rd_sysroot *sr, struct rd_sys_dir *d, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void rd_sys_dir_close(struct rd_sys_dir *d);
int rd_sys_dir_read_str(struct rd_sys_dir *d, const char *name, char *buf, size_t len);
int rd_sys_dir_read_u64(struct rd_sys_dir *d, const char *name, uint64_t *v);
int rd_sys_dir_read_hex(struct rd_sys_dir *d, const char *name, uint64_t *v);
int rd_sys_dir_read_bytes(struct rd_sys_dir *d, const char *name, void *buf, size_t len,
			  size_t *got);

/* Entries of a directory (no "." / ".."), sorted with rd_natural_cmp. */
int rd_sys_list(const struct rd_sysroot *sr, struct rd_strlist *out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Target of a symlink, as stored. */
int rd_sys_readlink(const struct rd_sysroot *sr, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Last path component of a symlink's target ("../../mlx5_core" -> "mlx5_core"). */
int rd_sys_link_basename(const struct rd_sysroot *sr, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * Last component of the path a symlink resolves to, following every link
 * on the way ("../.." from .../0000:03:00.0/infiniband/mlx5_0 ->
 * "0000:03:00.0"); when it does not resolve (a copied tree lost the
 * target), the last component of the link's text, as rd_sys_link_basename.
 */
int rd_sys_link_resolved_name(const struct rd_sysroot *sr, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* 0 if the path is a directory (symlinks followed); else -ENOTDIR, -ENOLINK, -ELOOP... */
int rd_sys_check_dir(const struct rd_sysroot *sr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool rd_sys_exists(const struct rd_sysroot *sr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A short description of a read error for warnings ("empty file", "not a number"...). */
const char *rd_read_strerror(int err);

#endif

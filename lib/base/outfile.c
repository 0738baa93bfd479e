// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "outfile.h"
#include "infile.h"
#include "runfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* "-" is standard output to most tools; never a file of that name by accident. */
#define STDOUT_WHY "standard output, not a file (./- is a file called \"-\"); nothing written"

/*
 * The target is absent or a regular file that is none of the run's inputs
 * (runfiles.h); anything else is refused.
 */
static int check_target(const struct rd_outfile *of, char *why, size_t why_len)
{
	const char *input;
	struct stat st;

	if (fstatat(of->dirfd, of->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		snprintf(why, why_len, "%s", strerror(errno));
		return -errno;
	}
	if (S_ISREG(st.st_mode) && (input = rd_run_input_of(&st))) {
		snprintf(why, why_len, "the same file as %s; nothing written", input);
		return -EEXIST;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%s", strerror(EISDIR));
		return -EISDIR;
	}
	snprintf(why, why_len, "exists and is %s: refusing to replace it (name a regular file)",
		 rd_file_kind(st.st_mode));
	return -EEXIST;
}

/* path's directory (strdup'ed into *dir) and its last name (in path). */
static int split_path(const char *path, char **dir, const char **name)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		*dir = strdup(".");
	else if (slash == path)
		*dir = strdup("/");
	else
		*dir = strndup(path, (size_t)(slash - path));
	*name = slash ? slash + 1 : path;
	return *dir ? 0 : -ENOMEM;
}

int rd_outfile_open(struct rd_outfile *of, const char *path, char *why, size_t why_len)
{
	const char *slash = strrchr(path, '/'), *name, *tree;
	struct stat dirst;
	char *dir;
	int ret;

	of->dirfd = -1;
	of->name = NULL;
	if (!*path || (slash && !slash[1])) {
		snprintf(why, why_len, "%s", strerror(*path ? EISDIR : ENOENT));
		return *path ? -EISDIR : -ENOENT;
	}
	if (strcmp(path, "-") == 0) {
		snprintf(why, why_len, "%s", STDOUT_WHY);
		return -EINVAL;
	}
	ret = split_path(path, &dir, &name);
	of->name = ret ? NULL : strdup(name);
	if (ret || !of->name) {
		free(dir);
		rd_outfile_close(of);
		snprintf(why, why_len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	of->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ret = of->dirfd < 0 ? -errno : 0;
	free(dir);
	if (ret) {
		snprintf(why, why_len, "its directory: %s", strerror(-ret));
		rd_outfile_close(of);
		return ret;
	}
	if (strcmp(of->name, ".") == 0 || strcmp(of->name, "..") == 0) {
		snprintf(why, why_len, "%s", strerror(EISDIR));
		rd_outfile_close(of);
		return -EISDIR;
	}
	/* A directory a run reads whole (--sysroot) takes no output. */
	if (fstat(of->dirfd, &dirst) == 0 && (tree = rd_run_tree_of(of->dirfd, &dirst))) {
		snprintf(why, why_len, "inside %s, which this run reads; nothing written", tree);
		rd_outfile_close(of);
		return -EEXIST;
	}
	ret = check_target(of, why, why_len);
	if (ret)
		rd_outfile_close(of);
	return ret;
}

int rd_outfile_check(const char *what, const char *path, char *why, size_t why_len)
{
	const char *name, *clash, *tree;
	struct stat dirst, st;
	bool exists;
	char *dir;
	int dirfd, ret;

	if (!*path) {
		snprintf(why, why_len, "is an empty file name");
		return -ENOENT;
	}
	if (strcmp(path, "-") == 0) {
		snprintf(why, why_len, "names %s", STDOUT_WHY);
		return -EINVAL;
	}
	if (split_path(path, &dir, &name)) {
		snprintf(why, why_len, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	/* No directory, or a name that is one: rd_outfile_open says so later. */
	if (dirfd < 0 || !*name || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    fstat(dirfd, &dirst)) {
		if (dirfd >= 0)
			close(dirfd);
		return 0;
	}
	/* Through a symlink too: one that leads to an input is named as that input. */
	exists = fstatat(dirfd, name, &st, 0) == 0;
	ret = 0;
	/* an input of the run, else another output of it: "the same file as" either */
	clash = exists ? rd_run_input_of(&st) : NULL;
	if (!clash && (tree = rd_run_tree_of(dirfd, &dirst))) {
		snprintf(why, why_len, "is inside %s, which this run reads; nothing written", tree);
		ret = -EEXIST;
	} else if (!clash && rd_run_output(what, &dirst, name, exists ? &st : NULL, &clash)) {
		snprintf(why, why_len, "%s", strerror(ENOMEM));
		ret = -ENOMEM;
	}
	if (!ret && clash) {
		snprintf(why, why_len, "is the same file as %s; nothing written", clash);
		ret = -EEXIST;
	}
	close(dirfd);
	return ret;
}

/*
 * A new temporary file ".NAME.XXXXXX" in the directory; its fd, or -errno.
 * A long NAME is cut so that the whole stays within the directory's longest
 * name: a target named at that limit still gets its temporary.
 */
static int create_temp(const struct rd_outfile *of, char *tmp, size_t len)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	long max = fpathconf(of->dirfd, _PC_NAME_MAX);
	size_t keep;

	if (max <= 0 || max > NAME_MAX)
		max = NAME_MAX;
	if (len > (size_t)max + 1)
		len = (size_t)max + 1;
	/* the name's bytes that fit beside the dots and the suffix */
	keep = len > sizeof("..XXXXXX") ? len - sizeof("..XXXXXX") : 0;
	for (int tries = 0; tries < 100; tries++) {
		unsigned char r[6];
		char sfx[7];
		int fd;

		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -EIO;
		for (size_t i = 0; i < sizeof(r); i++)
			sfx[i] = chars[r[i] % (sizeof(chars) - 1)];
		sfx[6] = '\0';
		if (snprintf(tmp, len, ".%.*s.%s", (int)keep, of->name, sfx) >= (int)len)
			return -ENAMETOOLONG;
		/* O_EXCL | O_NOFOLLOW: a name someone planted is never opened. */
		fd = openat(of->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/*
 * The temporary file behind a FILE that remembers why a write(2) failed:
 * stdio keeps only an error flag, and the writer's "-EIO" would hide
 * "No space left on device".
 */
struct sink {
	int fd;
	int err;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
	struct sink *k = cookie;
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(k->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			k->err = n < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static int sink_close(void *cookie)
{
	struct sink *k = cookie;

	if (close(k->fd) && !k->err)
		k->err = errno;
	return k->err ? -1 : 0;
}

int rd_outfile_replace(struct rd_outfile *of, int (*write_fn)(FILE *fp, void *arg), void *arg,
		       char *why, size_t why_len)
{
	static const cookie_io_functions_t io = { .write = sink_write, .close = sink_close };
	struct sink k = { .fd = -1 };
	char tmp[NAME_MAX + 1];
	bool made = false;
	FILE *fp;
	int ret;

	ret = check_target(of, why, why_len);
	if (ret)
		return ret;
	k.fd = create_temp(of, tmp, sizeof(tmp));
	if (k.fd < 0) {
		ret = k.fd;
		goto out;
	}
	made = true;
	fp = fopencookie(&k, "w", io);
	if (!fp) {
		ret = -errno;
		close(k.fd);
		goto out;
	}
	ret = write_fn(fp, arg);
	if (fflush(fp) && ret == 0)
		ret = -EIO;
	/*
	 * No fsync: rename alone makes readers see the old or the new file, and
	 * after a crash the next interval writes it again; a journal commit every
	 * second on a busy node would cost more than it saves.
	 */
	if (fclose(fp) && ret == 0)
		ret = -EIO;
	/* The write(2) that failed says why better than the writer's -EIO. */
	if (ret && k.err)
		ret = -k.err;
	if (ret == 0 && renameat(of->dirfd, tmp, of->dirfd, of->name))
		ret = -errno;
out:
	if (ret) {
		snprintf(why, why_len, "%s", strerror(-ret));
		if (made)
			(void)unlinkat(of->dirfd, tmp, 0);
	}
	return ret;
}

void rd_outfile_close(struct rd_outfile *of)
{
	if (of->dirfd >= 0)
		close(of->dirfd);
	of->dirfd = -1;
	free(of->name);
	of->name = NULL;
}

// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include "infile.h"
#include "runfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes asked of each read(). */
#define CHUNK 65536

/* "64 MiB", "512 bytes": a limit as people say it. */
static void fmt_size(char *buf, size_t len, size_t n)
{
	if (n >= (1u << 30) && n % (1u << 30) == 0)
		snprintf(buf, len, "%zu GiB", n >> 30);
	else if (n >= (1u << 20) && n % (1u << 20) == 0)
		snprintf(buf, len, "%zu MiB", n >> 20);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, len, "%zu KiB", n >> 10);
	else
		snprintf(buf, len, "%zu bytes", n);
}

const char *rd_file_kind(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/* What a named input may not be: a device (it may never end) or a socket. */
static const char *refused_kind(mode_t m)
{
	return S_ISCHR(m) || S_ISBLK(m) || S_ISSOCK(m) ? rd_file_kind(m) : NULL;
}

int rd_infile_open(struct rd_infile *f, const char *path, const struct rd_infile_limits *lim,
		   char *why, size_t why_len)
{
	struct stat st;
	const char *kind;
	bool is_stdin = strcmp(path, "-") == 0;
	int fd, err;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->lim = *lim;
	if (is_stdin) {
		fd = STDIN_FILENO;
	} else {
		/* O_NONBLOCK: opening a FIFO that has no writer must not wait. */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0) {
			err = errno;
			/* A socket cannot be opened: say what it is, not "No such device". */
			if (err == ENXIO && stat(path, &st) == 0 && (kind = refused_kind(st.st_mode))) {
				snprintf(why, why_len, "%s, not a file", kind);
				return -EINVAL;
			}
			snprintf(why, why_len, "%s", strerror(err));
			return -err;
		}
	}
	if (fstat(fd, &st)) {
		err = errno;
		snprintf(why, why_len, "%s", strerror(err));
		if (!is_stdin)
			close(fd);
		return -err;
	}
	err = 0;
	if (S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%s", strerror(EISDIR));
		err = -EISDIR;
	} else if (!is_stdin && (kind = refused_kind(st.st_mode))) {
		/* /dev/zero never ends and a tty waits for a person: refused by name. */
		snprintf(why, why_len, "%s, not a file", kind);
		err = -EINVAL;
	} else if (S_ISREG(st.st_mode) && (size_t)st.st_size > lim->max_bytes) {
		char sz[32];

		fmt_size(sz, sizeof(sz), lim->max_bytes);
		snprintf(why, why_len, "%lld bytes: larger than the limit of %s",
			 (long long)st.st_size, sz);
		err = -EFBIG;
	}
	if (!err && S_ISREG(st.st_mode)) {
		/* One of the run's inputs now: no output may replace it (runfiles.h). */
		char *what;

		if (is_stdin)
			what = strdup("stdin");
		else if (asprintf(&what, "input %s", path) < 0)
			what = NULL;
		err = what ? rd_run_input_stat(what, &st) : -ENOMEM;
		free(what);
		if (err)
			snprintf(why, why_len, "%s", strerror(-err));
	}
	if (err) {
		if (!is_stdin)
			close(fd);
		return err;
	}
	f->fd = fd;
	f->own_fd = !is_stdin;
	f->regular = S_ISREG(st.st_mode);
	return 0;
}

/* Wait for fd to be readable within the idle deadline. */
static int wait_readable(struct rd_infile *f, char *why, size_t why_len)
{
	struct pollfd p = { .fd = f->fd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, f->lim.timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = errno;

		snprintf(why, why_len, "%s", strerror(err));
		return -err;
	}
	if (n == 0) {
		snprintf(why, why_len, "no data for %g s (a pipe or FIFO whose writer is silent or absent)",
			 f->lim.timeout_ms / 1000.0);
		return -ETIMEDOUT;
	}
	return 0;
}

/* Read more bytes after f->end; sets f->eof at the end of the input. */
static int fill(struct rd_infile *f, char *why, size_t why_len)
{
	const char *nul;
	ssize_t n;
	int ret;

	if (f->start > 0) {
		memmove(f->buf, f->buf + f->start, f->end - f->start);
		f->end -= f->start;
		f->start = 0;
	}
	if (f->cap - f->end < CHUNK + 1) {	/* + 1: the spare byte for a last line's NUL */
		size_t cap = f->end + CHUNK + 1;
		char *b = realloc(f->buf, cap);

		if (!b) {
			snprintf(why, why_len, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		f->buf = b;
		f->cap = cap;
	}
	for (;;) {
		if (!f->regular) {
			ret = wait_readable(f, why, why_len);
			if (ret)
				return ret;
		}
		n = read(f->fd, f->buf + f->end, CHUNK);
		if (n >= 0)
			break;
		if (errno == EINTR || errno == EAGAIN)
			continue;
		ret = errno;
		snprintf(why, why_len, "%s", strerror(ret));
		return -ret;
	}
	if (n == 0) {
		f->eof = true;
		return 0;
	}
	/*
	 * A NUL byte is binary data: said without reading on.  A file is binary
	 * and said so at once; from a pipe, the whole lines before it are kept
	 * and returned first (what other hosts sent must not be lost to it).
	 */
	nul = f->lim.binary ? NULL : memchr(f->buf + f->end, '\0', (size_t)n);
	if (nul && f->regular) {
		size_t line = f->lineno + 1;

		for (const char *c = f->buf + f->start; c < nul; c++)
			line += *c == '\n';
		snprintf(why, why_len, "line %zu: binary data (a NUL byte)", line);
		return -EINVAL;
	}
	if (nul) {
		size_t line = f->lineno + 1;
		char *cut = f->buf + f->start;

		for (char *c = f->buf + f->start; c < nul; c++)
			if (*c == '\n') {
				line++;
				cut = c + 1;
			}
		snprintf(f->pending_why, sizeof(f->pending_why), "line %zu: binary data (a NUL byte)",
			 line);
		f->pending = -EINVAL;
		f->total += (size_t)(cut - (f->buf + f->end) > 0 ? cut - (f->buf + f->end) : 0);
		f->end = (size_t)(cut - f->buf);
		f->eof = true;
		return 0;
	}
	f->end += (size_t)n;
	f->total += (size_t)n;
	if (f->total > f->lim.max_bytes) {
		char sz[32];

		fmt_size(sz, sizeof(sz), f->lim.max_bytes);
		snprintf(why, why_len, "larger than the limit of %s", sz);
		return -EFBIG;
	}
	return 0;
}

int rd_infile_line(struct rd_infile *f, char **line, size_t *len, char *why, size_t why_len)
{
	size_t scanned = 0;	/* bytes of the current line already searched */

	/* The first call: a buffer before any pointer into it (NULL + 0 is undefined). */
	if (!f->buf && !f->eof) {
		int ret = fill(f, why, why_len);

		if (ret)
			return ret;
	}
	if (!f->buf)
		return 0;
	for (;;) {
		char *s = f->buf + f->start;
		size_t avail = f->end - f->start;
		char *nl = avail > scanned ? memchr(s + scanned, '\n', avail - scanned) : NULL;
		size_t n = nl ? (size_t)(nl - s) : avail;
		int ret;

		if (nl || (f->eof && avail)) {
			if (f->lineno + 1 > f->lim.max_lines) {
				snprintf(why, why_len, "more than %zu lines: the limit", f->lim.max_lines);
				return -EFBIG;
			}
			f->lineno++;
			if (n > f->lim.max_line) {
				char sz[32];

				fmt_size(sz, sizeof(sz), f->lim.max_line);
				snprintf(why, why_len, "line %zu: longer than the limit of %s", f->lineno, sz);
				return -EFBIG;
			}
			s[n] = '\0';	/* the newline, or the byte fill() keeps spare */
			f->start += nl ? n + 1 : n;
			/* A UTF-8 byte-order mark some editors write is not part of the first line. */
			if (f->lineno == 1 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
				s += 3;
				n -= 3;
			}
			*line = s;
			*len = n;
			return 1;
		}
		if (f->eof) {
			if (f->pending)
				snprintf(why, why_len, "%s", f->pending_why);
			return f->pending;
		}
		if (avail > f->lim.max_line) {
			char sz[32];

			fmt_size(sz, sizeof(sz), f->lim.max_line);
			snprintf(why, why_len, "line %zu: longer than the limit of %s", f->lineno + 1, sz);
			return -EFBIG;
		}
		scanned = avail;
		ret = fill(f, why, why_len);
		if (ret)
			return ret;
	}
}

int rd_infile_all(struct rd_infile *f, const char **data, size_t *len, char *why, size_t why_len)
{
	while (!f->eof) {
		int ret = fill(f, why, why_len);

		if (ret)
			return ret;
	}
	*data = f->buf ? f->buf + f->start : "";
	*len = f->end - f->start;
	return 0;
}

void rd_infile_close(struct rd_infile *f)
{
	if (f->own_fd && f->fd >= 0)
		close(f->fd);	/* read-only: nothing to lose */
	f->fd = -1;
	free(f->buf);
	f->buf = NULL;
	f->start = f->end = f->cap = 0;
}

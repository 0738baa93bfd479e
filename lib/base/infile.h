/* SPDX-License-Identifier: MIT */
/*
 * Files a tool reads that a user names (host files, --expect, fleet input):
 * read line by line under limits and a deadline, so that no input can hang a
 * tool or grow it without bound (DESIGN.md 4).
 *
 *   - a directory, a device node or a socket is refused at open, with the
 *     reason ("Is a directory", "a character device, not a file");
 *   - a FIFO or pipe (process substitution, "-" for stdin) is read with an
 *     idle deadline: no byte within timeout_ms is an error naming the wait;
 *   - the whole input, each line and the number of lines have limits;
 *   - a NUL byte is "binary data", not a line;
 *   - read errors carry errno's own words.
 */
#ifndef RD_INFILE_H
#define RD_INFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct rd_infile_limits {
	size_t max_bytes;	/* the whole input */
	size_t max_line;	/* one line, without its newline */
	size_t max_lines;
	int timeout_ms;		/* idle wait on a pipe or FIFO; regular files never wait */
	bool binary;		/* NUL bytes are data (rd_infile_all), not an error */
};

struct rd_infile {
	int fd;
	bool own_fd;		/* false for stdin ("-") */
	bool regular;
	struct rd_infile_limits lim;
	char *buf;		/* bytes read and not yet returned: buf[start, end) */
	size_t start, end, cap;
	size_t total;		/* bytes read so far */
	size_t lineno;		/* lines returned so far */
	bool eof;
	/* An error met past the lines still in buf (a NUL byte): the lines
	 * before it are returned first, then this. */
	int pending;
	char pending_why[64];
};

/*
 * Open path ("-": standard input) for reading under lim.  Returns 0, or
 * -errno with why (one line, without the path) filled in: the open's own
 * errno, -EISDIR, or -EINVAL for a device node or socket, or a regular file
 * already larger than lim->max_bytes (-EFBIG).
 */
int rd_infile_open(struct rd_infile *f, const char *path, const struct rd_infile_limits *lim,
		   char *why, size_t why_len);

/*
 * The next line, without its newline (a final "\r" is kept; callers that
 * accept CRLF strip it): *line points into f's buffer until the next call,
 * NUL-terminated, *len its length.  Returns 1 for a line, 0 at the end of the
 * input, or -errno with why filled in ("line 7: binary data (a NUL byte)",
 * "more than 1000 lines", "no data for 10 s (a pipe or FIFO whose writer
 * is silent)", "Input/output error").  After an error, call nothing but close.
 */
int rd_infile_line(struct rd_infile *f, char **line, size_t *len, char *why, size_t why_len);

/*
 * The whole input at once (a binary file: set lim->binary), under the same
 * limits and deadline: *data points into f's buffer until close.  Returns 0
 * or -errno with why.
 */
int rd_infile_all(struct rd_infile *f, const char **data, size_t *len, char *why, size_t why_len);

void rd_infile_close(struct rd_infile *f);

/* What a file type is, as messages say it: "a FIFO", "a character device"... */
const char *rd_file_kind(mode_t m);

#endif

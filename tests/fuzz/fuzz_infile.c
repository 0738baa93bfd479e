// SPDX-License-Identifier: MIT
/*
 * The readers of files a user names: the bytes as a file (a memfd) read by
 * rd_infile under small limits, a hostfile (rd_hostfile_read) and an
 * rdma-doctor --expect file (rd_dr_expect_read).  Invariants: every line
 * returned is NUL-terminated, as long as it says, holds no NUL or newline,
 * and is within the limits; the line count never passes the limit.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/base.h"
#include "doctor/doctor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct rd_infile_limits lim = {
		.max_bytes = 4096, .max_line = 200, .max_lines = 50, .timeout_ms = 100,
	};
	struct rd_strlist hosts = { 0 };
	struct rd_hostlist_error he;
	struct rd_dr_expect e;
	struct rd_infile f;
	char path[64], why[256], *line;
	size_t len, lines = 0;
	int fd, ret;

	fd = memfd_create("fuzz-infile", 0);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ret = rd_infile_open(&f, path, &lim, why, sizeof(why));
	while (ret == 0 && (ret = rd_infile_line(&f, &line, &len, why, sizeof(why))) == 1) {
		if (strlen(line) != len || len > lim.max_line || memchr(line, '\n', len) ||
		    ++lines > lim.max_lines || f.lineno != lines)
			__builtin_trap();
		ret = 0;
	}
	rd_infile_close(&f);
	if (ret < 0 && !memchr(why, '\0', sizeof(why)))
		__builtin_trap();
	(void)rd_hostfile_read(path, 100, &hosts, &he);
	rd_strlist_free(&hosts);
	(void)rd_dr_expect_read(path, 1000, &e, why, sizeof(why));
	close(fd);
	rd_run_reset();	/* each memfd was one of the run's inputs: not kept for ever */
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * Host lists as a run gathers them (rdma-fleet -w and --hostfile, rdma-selftest
 * --mesh): the bytes after byte 0 are split at NUL bytes into up to eight
 * parts, each expanded into one list in turn, as an expression
 * (rd_hostlist_expand, like -w or SLURM_JOB_NODELIST) or, when bit i of byte 0
 * is set, as a hostfile (rd_hostfile_read on a memfd).  Invariants: the list
 * never holds more than RD_HOSTLIST_MAX names; every name is a host name (1 to
 * RD_HOSTNAME_MAX bytes of letters, digits, '-', '.', '_'); a refused part
 * leaves the list as it was and says why (a column for a malformed part); a
 * small list compresses to one that expands to the same names.
 *
 * The time is bounded too: the names of a part are counted before any is
 * made, so no input makes more than RD_HOSTLIST_MAX names in all, and
 * libFuzzer's -timeout (tests/fuzz/run.sh) catches an input that costs more
 * than that (the seed "bomb": a hostfile of lines at the limit).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/base.h"

static bool host_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > RD_HOSTNAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '.' && *s != '_')
			return false;
	return true;
}

/* One part as a hostfile: the bytes in a memfd, read by path. */
static int hostfile_part(const char *s, size_t len, struct rd_strlist *l,
			 struct rd_hostlist_error *he)
{
	char path[64];
	int fd = memfd_create("fuzz-hostlist", 0), rc;

	if (fd < 0)
		return -EAGAIN;
	if (len && write(fd, s, len) != (ssize_t)len) {
		close(fd);
		return -EAGAIN;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rc = rd_hostfile_read(path, 100, l, he);
	close(fd);
	return rc;
}

/* The list's names, deduplicated and sorted, joined. */
static char *name_set(const struct rd_strlist *l)
{
	struct rd_strlist u = { 0 };
	char *j;

	for (size_t i = 0; i < l->n; i++)
		if (rd_strlist_add_unique(&u, l->v[i]))
			__builtin_trap();
	rd_strlist_sort_natural(&u);
	j = rd_strlist_join(&u, " ");
	rd_strlist_free(&u);
	return j;
}

static void compress_round_trip(const struct rd_strlist *l)
{
	struct rd_strlist back = { 0 };
	char *c = rd_hostlist_compress(l), *a, *b;

	if (!c || rd_hostlist_expand(c, &back, NULL) != 0)
		__builtin_trap();
	a = name_set(l);
	b = name_set(&back);
	if (!a || !b || strcmp(a, b) != 0)
		__builtin_trap();
	free(a);
	free(b);
	free(c);
	rd_strlist_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd_strlist l = { 0 };
	const char *s, *end;
	unsigned int files;
	char *buf;

	if (size < 1)
		return 0;
	files = data[0];
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	s = buf;
	end = buf + size - 1;
	for (int part = 0; part < 8 && s <= end; part++) {
		struct rd_hostlist_error he = { 0 };
		size_t len = strlen(s), before = l.n;
		int rc;

		rc = (files & (1u << part)) ? hostfile_part(s, len, &l, &he) :
					    rd_hostlist_expand(s, &l, &he);
		if (rc == -EAGAIN)
			break;
		if (l.n > RD_HOSTLIST_MAX)
			__builtin_trap();
		if (rc) {
			/* refused: the list as it was, and why */
			if (l.n != before || !he.msg[0] || !memchr(he.msg, '\0', sizeof(he.msg)))
				__builtin_trap();
			/* a malformed part or the limit: where (a hostfile: its line too) */
			if ((rc == -EINVAL || rc == -E2BIG) && he.column == 0 &&
			    (!(files & (1u << part)) || he.line))
				__builtin_trap();
		}
		for (size_t i = before; i < l.n; i++)
			if (!host_name(l.v[i]))
				__builtin_trap();
		s += len + 1;
	}
	if (l.n <= 10000)
		compress_round_trip(&l);
	rd_strlist_free(&l);
	rd_run_reset();	/* each memfd was one of the run's inputs */
	free(buf);
	return 0;
}

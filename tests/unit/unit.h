/* SPDX-License-Identifier: MIT */
/* Shared helpers for the cmocka unit tests: a scratch sysroot in /tmp. */
#ifndef RD_UNIT_H
#define RD_UNIT_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

static char scratch[256];

static inline void scratch_make(void)
{
	strcpy(scratch, "/tmp/rd-unit-XXXXXX");
	assert_non_null(mkdtemp(scratch));
}

static inline void scratch_remove(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	assert_int_equal(system(cmd), 0);
}

/* Write content to scratch/rel, creating parent directories. */
static inline void put(const char *rel, const char *content)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	for (p = path + strlen(scratch) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

/* Rewrite scratch/rel in place (same inode: a counter set keeps its files open). */
static inline void rewrite(const char *rel, const char *val)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), 0), 0);
	fputs(val, f);
	fclose(f);
}

static inline void mkdirs(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "mkdir -p '%s/%s'", scratch, rel);
	assert_int_equal(system(path), 0);
}

#endif

// SPDX-License-Identifier: MIT
/*
 * top-floor: the floor for one rdma-top refresh.  Opens every counter file
 * of a sysroot once (every file of sys/class/infiniband/DEV/ports/N/counters
 * and .../hw_counters but `lifespan`), then times passes that pread() each
 * file once into a buffer and nothing else: no parsing, no deltas, no output.
 * Prints: <files> <median_us> <min_us> per pass.
 *
 * usage: top-floor TREE [PASSES=200]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int *fds;
static size_t nfds, capfds;

static void add_dir(const char *dir)
{
	struct dirent *de;
	char path[8800];
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		int fd;

		if (de->d_name[0] == '.' || strcmp(de->d_name, "lifespan") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (nfds == capfds) {
			capfds = capfds ? capfds * 2 : 1024;
			fds = realloc(fds, capfds * sizeof(*fds));
			if (!fds)
				exit(1);
		}
		fds[nfds++] = fd;
	}
	closedir(d);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	char cls[4096], dir[8192], buf[64];
	int passes = argc > 2 ? atoi(argv[2]) : 200;
	struct dirent *de, *pe;
	double *t;
	DIR *d;

	if (argc < 2 || passes < 1) {
		fprintf(stderr, "usage: %s TREE [PASSES]\n", argv[0]);
		return 2;
	}
	snprintf(cls, sizeof(cls), "%s/sys/class/infiniband", argv[1]);
	d = opendir(cls);
	if (!d) {
		perror(cls);
		return 1;
	}
	while ((de = readdir(d))) {
		DIR *pd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s/ports", cls, de->d_name);
		pd = opendir(dir);
		while (pd && (pe = readdir(pd))) {
			char sub[8448];

			if (pe->d_name[0] == '.')
				continue;
			if (snprintf(sub, sizeof(sub), "%s/%s/counters", dir, pe->d_name) < (int)sizeof(sub))
				add_dir(sub);
			if (snprintf(sub, sizeof(sub), "%s/%s/hw_counters", dir, pe->d_name) < (int)sizeof(sub))
				add_dir(sub);
		}
		if (pd)
			closedir(pd);
	}
	closedir(d);
	t = calloc((size_t)passes, sizeof(*t));
	if (!t)
		return 1;
	for (int p = 0; p < passes; p++) {
		double t0 = now_us();

		for (size_t i = 0; i < nfds; i++)
			if (pread(fds[i], buf, sizeof(buf), 0) < 0)
				return 1;
		t[p] = now_us() - t0;
	}
	qsort(t, (size_t)passes, sizeof(*t), cmp);
	printf("%zu %.1f %.1f\n", nfds, t[passes / 2], t[0]);
	return 0;
}

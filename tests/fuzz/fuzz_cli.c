// SPDX-License-Identifier: MIT
/*
 * Every tool's command line, run in-process: the tools' main() functions are
 * compiled in renamed (<tool>_main, see the Makefile) and called with the
 * fuzzed arguments after a forced --sysroot=<fixture>, so that all of it —
 * option parsing, the value parsers, the checks between options and what the
 * tool then does with a fixture tree — is exercised without the live system.
 *
 * Input: byte 0 picks the tool, byte 1 the fixture, the rest is the arguments,
 * NUL-separated ("-d\0mlx5_0\0-p\0001").
 *
 * Kept deterministic and away from the kernel:
 *  - any argument that spells --sysroot (or an abbreviation of it) is dropped,
 *    so the fixture cannot be replaced by the live system or a random tree;
 *    and rd_sysroot_is_live() is wrapped (-Wl,--wrap) to trap if it ever says
 *    "live" all the same.  rdma-selftest refuses --sysroot after its option
 *    checks, rdma-events watches nothing with it (-s prints the tree's state).
 *  - rd_ticker_wait() is wrapped to report a signal at once: rdma-top's batch
 *    loop takes one sample and ends instead of sleeping -i seconds, -n times.
 *  - fd 1 is /dev/null (no tty, so rdma-top never starts its screen UI), and
 *    the stdout and stderr streams the tools print to are /dev/null; libFuzzer
 *    and the sanitizers keep reporting on the real fd 2.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysroot/sysroot.h"
#include "rdma-top/ticker.h"

#ifndef RD_FIXTURES
#define RD_FIXTURES "tests/fixtures"
#endif

int rdma_devinfo_main(int argc, char **argv);
int rdma_devmap_main(int argc, char **argv);
int rdma_events_main(int argc, char **argv);
int rdma_gids_main(int argc, char **argv);
int rdma_selftest_main(int argc, char **argv);
int rdma_top_main(int argc, char **argv);

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
} tools[] = {
	{ "rdma-devinfo", rdma_devinfo_main },
	{ "rdma-devmap", rdma_devmap_main },
	{ "rdma-events", rdma_events_main },
	{ "rdma-gids", rdma_gids_main },
	{ "rdma-selftest", rdma_selftest_main },
	{ "rdma-top", rdma_top_main },
};

static const char *const fixtures[] = {
	"mlx5-roce-dual", "ib-edr-hca", "rxe-plain", "iwarp-rnic", "roce-bond",
	"sriov-vfs", "gid-attrs-broken", "damaged", "empty", "bad-input",
};

#define MAX_ARGS 64

bool __real_rd_sysroot_is_live(const struct rd_sysroot *sr);
bool __wrap_rd_sysroot_is_live(const struct rd_sysroot *sr);
bool __wrap_rd_sysroot_is_live(const struct rd_sysroot *sr)
{
	if (__real_rd_sysroot_is_live(sr))
		__builtin_trap();	/* the harness let a tool reach the live system */
	return false;
}

int __wrap_rd_ticker_wait(struct rd_ticker *t, int timeout_ms, unsigned int *events, int *signo);
int __wrap_rd_ticker_wait(struct rd_ticker *t, int timeout_ms, unsigned int *events, int *signo)
{
	(void)t;
	(void)timeout_ms;
	*events = RD_EV_SIGNAL;
	*signo = SIGINT;
	return 0;
}

/* --sysroot, --sysr=..., --sy: what getopt_long would take for --sysroot. */
static bool spells_sysroot(const char *arg)
{
	size_t n;

	if (strncmp(arg, "--", 2) != 0)
		return false;
	arg += 2;
	n = strcspn(arg, "=");
	return n > 0 && n <= strlen("sysroot") && strncmp(arg, "sysroot", n) == 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	/* cppcheck-suppress incompatibleFileOpen ; two write-only streams on /dev/null */
	FILE *null_out = fopen("/dev/null", "w"), *null_err = fopen("/dev/null", "w");

	(void)argc;
	(void)argv;
	if (fd < 0 || !null_out || !null_err || dup2(fd, STDOUT_FILENO) < 0)
		abort();
	close(fd);
	/* glibc's standard streams are plain variables (glibc manual, "Standard Streams"). */
	stdout = null_out;
	stderr = null_err;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 4], *owned[MAX_ARGS + 2];
	int argc = 0, nowned = 0;
	size_t tool, fix, off;

	if (size < 2)
		return 0;
	tool = data[0] % (sizeof(tools) / sizeof(tools[0]));
	fix = data[1] % (sizeof(fixtures) / sizeof(fixtures[0]));

	argv[argc++] = (char *)tools[tool].name;
	if (asprintf(&owned[nowned], "--sysroot=%s/%s", RD_FIXTURES, fixtures[fix]) < 0)
		return 0;
	argv[argc++] = owned[nowned++];
	/* Each argument in its own allocation, so that reading past its end is caught. */
	for (off = 2; off < size && argc < MAX_ARGS;) {
		const uint8_t *nul = memchr(data + off, '\0', size - off);
		size_t len = nul ? (size_t)(nul - (data + off)) : size - off;
		char *a = strndup((const char *)data + off, len);

		if (!a)
			break;
		off += len + 1;
		if (spells_sysroot(a)) {
			free(a);
			continue;
		}
		owned[nowned++] = a;
		argv[argc++] = a;
	}
	argv[argc] = NULL;

	optind = 0;	/* glibc: a full re-initialisation of getopt */
	optarg = NULL;
	optopt = 0;
	(void)tools[tool].main(argc, argv);
	fflush(stdout);
	fflush(stderr);

	for (int i = 0; i < nowned; i++)
		free(owned[i]);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * runtime: run a command once with stdout to a file (default /dev/null) and print
 *   <wall_us> <maxrss_kb> <exit_status>
 * on stdout.  Wall time is CLOCK_MONOTONIC from just before fork() to the return of
 * wait4(); peak RSS is the child's ru_maxrss from wait4() (getrusage of that child
 * alone, not of earlier children).  Used by gids-vs-floor.sh so that the numbers do not
 * include the shell's own fork or /usr/bin/time, and work where hyperfine is missing.
 *
 * usage: runtime [-o FILE] COMMAND [ARG...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *out = "/dev/null";
	struct timespec t0, t1;
	struct rusage ru;
	int status, argi = 1;
	pid_t pid;

	if (argc > 2 && strcmp(argv[1], "-o") == 0) {
		out = argv[2];
		argi = 3;
	}
	if (argi >= argc) {
		fprintf(stderr, "usage: %s [-o FILE] COMMAND [ARG...]\n", argv[0]);
		return 2;
	}
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
			perror(out);
			_exit(127);
		}
		execvp(argv[argi], argv + argi);
		fprintf(stderr, "%s: %s\n", argv[argi], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("wait4");
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%lld %ld %d\n",
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000,
	       ru.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

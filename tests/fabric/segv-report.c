// SPDX-License-Identifier: MIT
/*
 * segv-report.c: a preload for the fabric tier (sim_run, build without
 * sanitizers). A program that faults (SIGSEGV, SIGBUS) first writes to
 * stderr which thread faulted, at which address, and that thread's frames:
 *
 *   segv-report: pid 1234 thread 1237 (not the main thread) signal 11 address 0x40
 *   <backtrace_symbols_fd lines>
 *
 * then dies of the signal as it would have. The tier's programs under ibsim
 * are single-threaded, so a fault in another thread is umad2sim's reader
 * (its frames say so): sim_run tells that simulator crash from one of ours.
 * Test code only; never installed.
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	void *frames[48];
	char line[200];
	int old, n, len;
	pid_t tid = gettid();

	(void)uc;
	/* a thread being cancelled (umad2sim's, at exit) must finish this */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	len = snprintf(line, sizeof(line), "segv-report: pid %d thread %d (%s) signal %d address %p\n",
		       (int)getpid(), (int)tid, tid == getpid() ? "the main thread" : "not the main thread",
		       sig, si->si_addr);
	if (len > 0 && write(STDERR_FILENO, line, (size_t)len) < 0)
		return;
	n = backtrace(frames, (int)(sizeof(frames) / sizeof(frames[0])));
	backtrace_symbols_fd(frames, n, STDERR_FILENO);
	/* SA_RESETHAND made the action the default one again: die of the signal now
	   (also when it was sent, not raised by a fault) */
	raise(sig);
}

__attribute__((constructor)) static void segv_report_init(void)
{
	struct sigaction sa;
	void *warm[2];

	backtrace(warm, 2);	/* loads the unwinder now, not inside the handler */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

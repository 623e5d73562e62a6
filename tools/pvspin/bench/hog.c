/*
 * bench/hog.c - the noisy-neighbour processes of `pvspin bench --hog N`
 * (see hog.h).
 */
#define _GNU_SOURCE
#include "bench/hog.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The child: die with the parent, then burn CPU until killed.  The loop
 * touches only its own stack (no shared lines, no system calls): pure
 * competition for the CPU. */
static void __attribute__((noreturn)) hog_main(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)   /* the parent died before the prctl */
		_exit(0);
	volatile uint64_t x = 1;
	for (;;)
		x = x * 6364136223846793005u + 1442695040888963407u;
}

int bench_hogs_start(struct bench_hogs *h, unsigned n)
{
	h->pids = NULL;
	h->n = 0;
	if (!n)
		return 0;
	h->pids = calloc(n, sizeof(*h->pids));
	if (!h->pids) {
		fprintf(stderr, "pvspin bench: --hog: out of memory\n");
		return -1;
	}
	pid_t self = getpid();
	fflush(NULL);   /* no buffered output duplicated into the children */
	for (unsigned i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid == 0)
			hog_main(self);
		if (pid < 0) {
			int e = errno;
			fprintf(stderr, "pvspin bench: --hog: cannot start hog process %u of %u: %s\n",
				i + 1, n, strerror(e));
			bench_hogs_stop(h);
			return -1;
		}
		h->pids[h->n++] = pid;
	}
	return 0;
}

void bench_hogs_stop(struct bench_hogs *h)
{
	for (unsigned i = 0; i < h->n; i++)
		kill(h->pids[i], SIGKILL);
	for (unsigned i = 0; i < h->n; i++)
		while (waitpid(h->pids[i], NULL, 0) < 0 && errno == EINTR)
			;
	free(h->pids);
	h->pids = NULL;
	h->n = 0;
}

/*
 * bench/hog.c - the noisy-neighbour processes of `pvspin bench --hog N`
 * (see hog.h).
 */
#define _GNU_SOURCE
#include "bench/hog.h"
#include "stop_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Iterations of a hog's loop between two looks at its parent's state:
 * 2^22 of a dependent multiply-add, a few milliseconds. */
#define HOG_CHECK_EVERY (1u << 22)
/* A hog whose parent is stopped looks again after this long, ns. */
#define HOG_STOPPED_POLL_NS 10000000L

/* Is process `pid` stopped (state T, by SIGSTOP or job control's SIGTSTP,
 * or t, traced)?  From /proc/PID/stat, whose third field follows the last
 * ')' (the command name may contain one).  False if unreadable. */
static bool hog_parent_stopped(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't');
}

/* The child: die with the parent, wait at the gate (the read end of a
 * pipe whose write end the parent closes once every hog is forked, so
 * that the forks do not compete with the hogs already burning: 1 024 of
 * them took 90 s to start, and a Ctrl-C meanwhile waited for all of them),
 * then burn CPU until killed.  The loop touches only its own stack (no
 * shared lines): pure competition for the CPU, but for one read of the
 * parent's /proc/PID/stat every few milliseconds: while the parent is
 * stopped (Ctrl-Z, SIGSTOP) the hog sleeps, 10 ms at a time, and burns
 * again once the parent runs.  The hogs are a process group of their own
 * (bench_hogs_start()), which job control's stop signals do not reach: a
 * new user's Ctrl-Z left them burning two CPUs while the bench was
 * stopped (helper-60, 2026-12-07). */
static void __attribute__((noreturn)) hog_main(pid_t parent, pid_t group, int gate_read,
					      int gate_write)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)   /* the parent died before the prctl */
		_exit(0);
	setpgid(0, group);   /* as the parent does for us: whichever runs first */
	close(gate_write);
	char c;
	while (read(gate_read, &c, 1) < 0 && errno == EINTR)
		;
	close(gate_read);
	volatile uint64_t x = 1;
	for (;;) {
		for (uint32_t i = 0; i < HOG_CHECK_EVERY; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
		while (hog_parent_stopped(parent)) {
			struct timespec ts = { 0, HOG_STOPPED_POLL_NS };
			nanosleep(&ts, NULL);
		}
	}
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
	int gate[2];
	if (pipe2(gate, O_CLOEXEC)) {
		fprintf(stderr, "pvspin bench: --hog: cannot make the hogs' gate (a pipe): %s\n",
			strerror(errno));
		free(h->pids);
		h->pids = NULL;
		return -1;
	}
	pid_t self = getpid();
	fflush(NULL);   /* no buffered output duplicated into the children */
	int rc = 0;
	/* A stop signal ends the forks: the hogs started are stopped again,
	 * and the caller, seeing the signal, measures nothing.  The hogs are
	 * a process group of their own (pids[0]'s), so that one
	 * kill() stops them all: the parent, competing with a thousand of
	 * them for the CPU, took seconds for a kill() each. */
	for (unsigned i = 0; i < n && !tool_stop_signal(); i++) {
		pid_t pid = fork();
		if (pid == 0)
			hog_main(self, h->n ? h->pids[0] : 0, gate[0], gate[1]);
		if (pid < 0) {
			fprintf(stderr, "pvspin bench: --hog: cannot start hog process %u of %u: %s\n",
				i + 1, n, strerror(errno));
			rc = -1;
			break;
		}
		setpgid(pid, h->n ? h->pids[0] : pid);
		h->pids[h->n++] = pid;
	}
	/* stopped while still at the gate, so that they never burn */
	if (rc || tool_stop_signal())
		bench_hogs_stop(h);
	close(gate[0]);
	close(gate[1]);   /* the gate opens: every hog burns from now on */
	return rc;
}

void bench_hogs_stop(struct bench_hogs *h)
{
	if (h->n)
		kill(-h->pids[0], SIGKILL);   /* the group (ESRCH if it never formed) */
	for (unsigned i = 0; i < h->n; i++)   /* any that a setpgid() missed */
		kill(h->pids[i], SIGKILL);
	for (unsigned i = 0; i < h->n; i++)
		while (waitpid(h->pids[i], NULL, 0) < 0 && errno == EINTR)
			;
	free(h->pids);
	h->pids = NULL;
	h->n = 0;
}

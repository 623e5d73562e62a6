/*
 * bench/hog.h - the noisy neighbour of `pvspin bench --hog N`: N child
 * processes that each keep one CPU busy for the whole run, as another
 * program (a batch job, a VM neighbour's vCPU) would.  They compete with
 * the bench's threads in the OS scheduler at the same nice level, so with
 * 2 CPUs and --hog 1 the measured threads share about 1.5 CPUs and every
 * cell is overcommitted, 2 threads included (docs/bench.md, "The
 * noisy-neighbour case").
 *
 * Not thread-safe: one caller (cmd_bench.c's main thread).
 */
#ifndef PVSPIN_BENCH_HOG_H
#define PVSPIN_BENCH_HOG_H

#include <sys/types.h>

#define BENCH_MAX_HOGS 1024

/** The running hogs: pids[0..n); their process group is pids[0]'s. */
struct bench_hogs {
	pid_t *pids;
	unsigned n;
};

/**
 * Fork `n` busy-looping hog processes (0: none, returns 0), all held at a
 * gate until the last is forked, then released together.  Each child
 * asks to be killed when its parent dies (PR_SET_PDEATHSIG), so an
 * aborted bench leaves none behind.  A stop signal (stop_signal.h) during
 * the forks ends them: the hogs started are stopped again, h is empty,
 * and 0 is returned (the caller sees the signal).  Returns 0, or -1
 * after a message on stderr naming the failure (fork, pipe, memory);
 * hogs already started are stopped again.
 */
int bench_hogs_start(struct bench_hogs *h, unsigned n);

/** Kill (SIGKILL) and reap every hog; h is empty afterwards.  Safe on an
 *  empty or already stopped h. */
void bench_hogs_stop(struct bench_hogs *h);

#endif /* PVSPIN_BENCH_HOG_H */

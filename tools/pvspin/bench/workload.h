/*
 * bench/workload.h - the calibrated busy work of `pvspin bench` (critical
 * and non-critical sections).
 *
 * The work is an empty counted loop the compiler may not remove (an asm
 * memory clobber per iteration): it touches no memory of its own, so the
 * only shared-memory traffic in a critical section is the lock and the
 * cache lines the runner writes.  bench_workload_calibrate() measures
 * loops per ns before the run, bench_workload_recheck() again before each
 * round (the fastest is kept); ns are converted to loops at each cell.
 */
#ifndef PVSPIN_BENCH_WORKLOAD_H
#define PVSPIN_BENCH_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "clock_random.h"

/** Result of the calibration. */
struct bench_workload {
	double loops_per_ns;     /* busy-loop iterations per ns: the fastest
				  * measured so far (bench_workload_recheck) */
	double loops_per_ns_start;  /* ... as bench_workload_calibrate()
				  * measured it, before the run */
	double clock_cost_ns;    /* cost of one tool_now_ns() call, ns */
};

/**
 * Spin `loops` iterations of the busy loop.  Out of line, one copy for
 * every lock's worker loop and for the calibration, at a 64-byte aligned
 * address: an inlined copy per lock ran at the speed its alignment gave
 * it (on this Skylake-derived Xeon a loop whose jump crosses a 32-byte
 * boundary misses the uop cache, Intel's "JCC erratum" microcode), so a
 * lock's cells ran longer critical sections than calibrated: spinpark's
 * copies did, and measured 0.5-0.6x the other locks at 1 thread in some
 * builds.  The call costs every lock the same.
 */
void bench_busy(uint64_t loops);

/**
 * Measure loops per ns: time a loop sized to about 200 us, 64 times, and
 * keep the fastest (the run least disturbed by other work on the machine),
 * then the cost of one clock read the same way.  Takes about 20 ms of one
 * CPU.
 * Sets both loops_per_ns and loops_per_ns_start.  Never fails.  Call once,
 * before the threads start.
 */
void bench_workload_calibrate(struct bench_workload *w);

/**
 * Measure loops per ns again, more briefly (16 runs of about 200 us: about
 * 3 ms of one CPU), and keep the faster of that and w->loops_per_ns.  Call
 * before each round of cells, while no worker runs.  A calibration taken
 * while the host ran this vCPU slowly for longer than its 64 runs (a busy
 * SMT sibling on the host: 1.5-1.9 loops/ns against 3.24 on this
 * machine's AMD EPYC guest, a new user's runs of 2026-12-07) gave every
 * cell critical sections of about half the `--cs-ns` asked; the next
 * round after the host speeds up now gets the full length.  Returns true
 * if w->loops_per_ns rose.  Never fails.
 */
bool bench_workload_recheck(struct bench_workload *w);

/** Loops of busy work for `ns` nanoseconds (rounded; 0 for 0). */
uint64_t bench_workload_loops(const struct bench_workload *w, uint64_t ns);

#endif /* PVSPIN_BENCH_WORKLOAD_H */

/*
 * bench/workload.h - the calibrated busy work of `pvspin bench` (critical
 * and non-critical sections).
 *
 * The work is an empty counted loop the compiler may not remove (an asm
 * memory clobber per iteration): it touches no memory of its own, so the
 * only shared-memory traffic in a critical section is the lock and the
 * cache lines the runner writes.  bench_workload_calibrate() measures
 * loops per ns once; ns are then converted to loops.
 */
#ifndef PVSPIN_BENCH_WORKLOAD_H
#define PVSPIN_BENCH_WORKLOAD_H

#include <stdint.h>

#include "clock_random.h"

/** Result of the calibration. */
struct bench_workload {
	double loops_per_ns;     /* busy-loop iterations per ns */
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
 * Never fails.  Call once, before the threads start.
 */
void bench_workload_calibrate(struct bench_workload *w);

/** Loops of busy work for `ns` nanoseconds (rounded; 0 for 0). */
uint64_t bench_workload_loops(const struct bench_workload *w, uint64_t ns);

#endif /* PVSPIN_BENCH_WORKLOAD_H */

/*
 * bench/workload.c - busy-loop calibration (see workload.h).
 */
#include "bench/workload.h"

#include <math.h>

/* Short runs, many of them: on a loaded machine (or a vCPU with steal
 * time) a 200 us run has a fair chance to go undisturbed, a 5 ms run
 * hardly any; the fastest run is the machine's real speed. */
#define CALIBRATE_RUN_NS 200000
#define CALIBRATE_RUNS 64
/* ... and runs of each recheck (bench_workload_recheck) */
#define RECHECK_RUNS 16

/* noinline and aligned: see workload.h.  The loop's own jump stays in the
 * function's first 32 bytes (checked with objdump: prologue, then a 10-byte
 * loop). */
__attribute__((noinline, aligned(64))) void bench_busy(uint64_t loops)
{
	for (uint64_t i = 0; i < loops; i++)
		__asm__ __volatile__("" ::: "memory");
}

/* Loops per ns of the fastest of `runs` runs of a loop sized to about
 * CALIBRATE_RUN_NS. */
static double measure_loops_per_ns(int runs)
{
	/* grow the loop until one run takes >= CALIBRATE_RUN_NS */
	uint64_t loops = 1u << 16, t;
	for (;;) {
		uint64_t t0 = tool_now_ns();
		bench_busy(loops);
		t = tool_now_ns() - t0;
		if (t >= CALIBRATE_RUN_NS || loops >= (1ull << 40))
			break;
		loops *= 2;
	}
	uint64_t best = t;
	for (int i = 0; i < runs; i++) {
		uint64_t t0 = tool_now_ns();
		bench_busy(loops);
		t = tool_now_ns() - t0;
		if (t < best)
			best = t;
	}
	return (double)loops / (double)(best ? best : 1);
}

bool bench_workload_recheck(struct bench_workload *w)
{
	double m = measure_loops_per_ns(RECHECK_RUNS);
	if (!(m > w->loops_per_ns))
		return false;
	w->loops_per_ns = m;
	return true;
}

void bench_workload_calibrate(struct bench_workload *w)
{
	w->loops_per_ns = w->loops_per_ns_start = measure_loops_per_ns(CALIBRATE_RUNS);

	/* clock cost: 2000 back-to-back reads, fastest of the runs */
	double best_clock = INFINITY;
	for (int i = 0; i < CALIBRATE_RUNS; i++) {
		uint64_t t0 = tool_now_ns(), x = 0;
		for (int j = 0; j < 2000; j++)
			x += tool_now_ns();
		__asm__ __volatile__("" : : "r"(x));
		double c = (double)(tool_now_ns() - t0) / 2001.0;
		if (c < best_clock)
			best_clock = c;
	}
	w->clock_cost_ns = best_clock;
}

uint64_t bench_workload_loops(const struct bench_workload *w, uint64_t ns)
{
	return (uint64_t)llround((double)ns * w->loops_per_ns);
}

/*
 * bench/runner.h - one cell of `pvspin bench`: one lock, N real threads,
 * a fixed duration, and what came out of it.
 *
 * The threads start together (a barrier shared with the main thread), run
 * the timed loop of worker_loop.h until the main thread raises a stop flag
 * after the duration, and are joined.  A plain (non-atomic) counter
 * incremented inside every critical section must then equal the sum of
 * the per-thread acquisitions, or the lock let two holders in (after the
 * checks of Linux kernel/locking/locktorture.c).
 *
 * bench_run_cell() is called from one thread at a time.
 */
#ifndef PVSPIN_BENCH_RUNNER_H
#define PVSPIN_BENCH_RUNNER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "pvspin/stats.h"
#include "bench/stats.h"

struct bench_lock;

/** Bytes reserved for a lock of any benchmarked kind (pthread_mutex_t is
 *  the largest: 40 bytes on x86-64 glibc).  Lock storage is 128-byte
 *  aligned and sits alone on its cache lines (two lines: the adjacent-line
 *  prefetcher of x86 fetches pairs). */
#define BENCH_LOCK_SIZE 128
/** Bytes of per-thread context a lock may use (the MCS node of ck_mcs). */
#define BENCH_CTX_SIZE 128

/** A cache line written in the critical section.  lines[0].word is the
 *  mutual-exclusion check counter. */
struct bench_line {
	uint64_t word;
	char pad[56];
} __attribute__((aligned(64)));

/**
 * What one thread runs with, and what it reports.  One per thread,
 * 128-byte aligned so no two threads share a line.  The timed loop reads
 * the inputs, writes only its own outputs.
 */
struct bench_worker {
	/* inputs */
	void *lock;                   /* BENCH_LOCK_SIZE bytes of lock */
	void *ctx;                    /* BENCH_CTX_SIZE bytes, this thread's */
	struct bench_line *lines;     /* the cs_lines shared lines */
	unsigned cs_lines;            /* >= 1 */
	const int *stop;              /* nonzero: leave the loop */
	uint64_t cs_loops;            /* busy loops inside the critical section */
	uint64_t ncs_loops;           /* busy loops outside it */
	uint32_t sample_every;        /* time every Nth lock() call (>= 1) */
	/* outputs */
	uint64_t acquisitions;        /* lock() calls completed */
	struct bench_reservoir lat;   /* sampled lock() latency, ns */
	/* thread bookkeeping (runner only) */
	pthread_t tid;
	struct bench_cell_run *run;
	int cpu;                      /* CPU to pin to, -1 = not pinned */
	unsigned char ctx_mem[BENCH_CTX_SIZE] __attribute__((aligned(128)));
} __attribute__((aligned(128)));

/** What a cell runs: everything but the lock is the same for all cells. */
struct bench_cell_spec {
	const struct bench_lock *lock;
	unsigned threads;             /* >= 1 */
	uint64_t cs_ns, ncs_ns;       /* busy work, ns */
	uint64_t cs_loops, ncs_loops; /* the same converted to loops */
	unsigned cs_lines;            /* shared lines written per cs, >= 1 */
	unsigned duration_ms;         /* >= 1 */
	uint32_t sample_every;        /* >= 1 */
	size_t samples_per_thread;    /* reservoir capacity per thread, >= 1 */
	bool pin;                     /* pin thread i to online CPU i mod ncpus */
	uint64_t seed;                /* reservoir random streams */
};

/** What a cell measured. */
struct bench_cell_result {
	double elapsed_s;             /* stop time - start time, s */
	double setup_s;               /* first thread created -> all checked in, s */
	double drain_s;               /* stop flag raised -> all threads joined, s */
	uint64_t acquisitions;        /* sum over threads */
	double ops_per_s;             /* acquisitions / elapsed_s */
	double jain;                  /* Jain's index of per-thread acquisitions */
	double max_min;               /* max/min of per-thread acquisitions (inf: a thread got none) */
	uint64_t acq_min, acq_max;    /* smallest and largest per-thread count */
	struct bench_latency lat;     /* sampled lock() latency, ns */
	struct pvspin_events events;  /* pvspin lock events during the cell (diff) */
	struct pvspin_slot_stats slots_before, slots_after; /* slot accounting */
	uint64_t counter;             /* the plain counter at the end */
	bool exclusion_ok;            /* counter == acquisitions */
};

/**
 * Run one cell: set up the lock, start spec->threads threads, let them run
 * spec->duration_ms, stop, join, check the counter, compute the result.
 * A stop signal (tool_stop_signal(), stop_signal.h) ends the run within
 * 0.1 s: the result then covers the cut cell, which the caller discards.
 * Returns 0 (look at out->exclusion_ok), or -1 with a message on stderr
 * when the cell could not run (memory, thread creation, lock init), or 1
 * when a stop signal came and the cell's threads had not all finished
 * 1 s later (hundreds of threads of a fair lock drain for minutes): they
 * are left running on the cell's memory, never freed, and *out is not
 * filled; the caller discards the cell and ends the process by the
 * signal (tool_stop_signal_reraise()).
 */
int bench_run_cell(const struct bench_cell_spec *spec, struct bench_cell_result *out);

/**
 * The lock (an index into the run's list of `nlocks` locks) that runs
 * `j`-th (0-based) in round `k` (repeat k, 0-based) of a thread count:
 * round k starts at lock k mod nlocks and goes on in the list's order,
 * wrapping.  So over nlocks rounds each lock runs once at each place in
 * a round, and a place that measures lower (measured: of two copies of
 * the same lock at 2 threads, cs 50 ns, the one run first in every round
 * did 0.971 of the other, median of 36 rounds, 25 of them below 1;
 * docs/bench.md, "Rounds") does not fall on one lock every time.  Pure;
 * `nlocks` >= 1, `k` + `j` within size_t.
 */
static inline size_t bench_round_lock(unsigned k, size_t j, size_t nlocks)
{
	return (k + j) % nlocks;
}

/**
 * bench_round_lock(), with locks `a` and `b` (indices into the list; an
 * index >= nlocks pairs nothing) trading places in every odd round: for
 * `--control`, so that the default kind and its control, the last lock
 * of the list, each run before the other in half the rounds (the
 * rotation alone ran the default kind first in every round of a
 * --repeat below the lock count, helper-65; with --repeat 5 now 3 rounds
 * to 2).  Each round is still a permutation of the locks.  Pure.
 */
static inline size_t bench_round_lock_pair(unsigned k, size_t j, size_t nlocks, size_t a,
					   size_t b)
{
	size_t l = bench_round_lock(k, j, nlocks);
	if (k % 2)
		l = l == a ? b : l == b ? a : l;
	return l;
}

#endif /* PVSPIN_BENCH_RUNNER_H */

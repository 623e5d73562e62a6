/*
 * bench/config.h - what a `pvspin bench` run was asked to do (the parsed
 * options plus the calibration), and one row of its results.  Plain data,
 * shared by cmd_bench.c (fills it) and output.c / plot.c (report it).
 */
#ifndef PVSPIN_BENCH_CONFIG_H
#define PVSPIN_BENCH_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/machine.h"
#include "bench/peers.h"
#include "bench/runner.h"
#include "bench/workload.h"

/** Defaults: 44 cells (11 locks x 4 thread counts on 2 CPUs) of
 *  400 ms x 3 repeats = 53 s of measurement.  Each repeat also starts and
 *  drains its threads: a few ms on a quiet machine, but the FIFO locks
 *  under overcommit drain through preempted waiters (50 ms - 1 s per
 *  repeat measured here with other work running).  500 ms x 3 took 76 s
 *  here, half of it with other work running: too close to the 90 s
 *  budget of issue 2.  docs/bench.md has the measurements. */
#define BENCH_DEFAULT_CS_NS        50
#define BENCH_DEFAULT_NCS_NS       100
#define BENCH_DEFAULT_CS_LINES     2
#define BENCH_DEFAULT_DURATION_MS  400
#define BENCH_DEFAULT_REPEAT       3
#define BENCH_DEFAULT_SAMPLE_EVERY 16
/** A shorter --duration-ms is run, with a warning: a cell of a few ms
 *  can end before all its threads run (a 1 ms cell here: Jain 0.500 at 2
 *  threads, one thread did every acquisition), so it measures next to no
 *  contention, and no preemption at all (a time slice is ms long). */
#define BENCH_MIN_USEFUL_DURATION_MS 10
/** Latency memory bound: at most this many samples per cell in all
 *  threads (8 bytes each), and per thread at most / at least: */
#define BENCH_SAMPLES_PER_CELL     (1u << 20)
#define BENCH_SAMPLES_PER_THREAD_MAX 16384u
#define BENCH_SAMPLES_PER_THREAD_MIN 256u

#define BENCH_MAX_THREADS 1024

struct bench_config {
	const struct bench_lock **locks;   /* the locks, in run order */
	size_t nlocks;
	unsigned *threads;                 /* the thread counts, in run order */
	size_t nthreads;
	uint64_t cs_ns, ncs_ns;            /* busy work per section, ns */
	unsigned cs_lines;                 /* shared lines written per cs */
	unsigned duration_ms;              /* per cell and repeat */
	unsigned repeat;                   /* repeats per cell (median by ops/s) */
	uint32_t sample_every;             /* time every Nth lock() */
	bool pin;                          /* pin threads round-robin */
	unsigned hogs;                     /* --hog: CPU hog processes beside it */
	bool no_placement;                 /* --no-placement: no line_rtt_ns probe */
	bool control;                      /* --control: the default kind measured
					    * twice a round, the second time as
					    * control_lock, last in locks */
	size_t control_of_index;           /* ... the default kind's place in locks */
	struct bench_lock control_lock;    /* ... its entry (control_of set) */
	char control_name[40];             /* ... and name, KIND_control */
	bool interrupted;                  /* SIGINT/SIGTERM: rows are the
					    * thread counts that completed */
	uint32_t spin_threshold;           /* pvqspinlock SPIN_THRESHOLD in effect */
	bool spin_threshold_set;           /* ... set by --spin-threshold */
	const char *json_path, *csv_path, *plot_path;  /* NULL: not asked */
	unsigned plot_wait_ms;             /* gnuplot's bound (bench_plot_wait_ms) */
	struct bench_workload workload;    /* calibration */
	double *round_loops_per_ns;        /* the busy loop's rate of each round
					    * (bench_workload_recheck), repeat k at
					    * thread count threads[t] in [t * repeat
					    * + k]; 0: not run, or not reported (a
					    * thread count cut short by a signal) */
	struct bench_machine machine;
};

/** One cell of the report: the median repeat (by ops/s; the lower of the
 *  two middle ones for an even count; of the repeats not stopped, where
 *  there is one) of one lock at one thread count. */
struct bench_row {
	const struct bench_lock *lock;
	unsigned threads;
	struct bench_cell_result r;       /* the median repeat */
	double *ops_repeats;              /* ops/s of every repeat, run order */
	unsigned nrepeats;
	double *rtt_repeats;              /* placement probe before every repeat,
					   * ns, NAN: not measured (placement.h) */
	double line_rtt_ns;               /* their median, NAN: none measured */
	bool exclusion_ok;                /* in every repeat */
	size_t samples_per_thread;        /* reservoir capacity used */
	bool *stopped;                    /* per repeat, run order: the bench
					   * was stopped during it (SIGSTOP,
					   * Ctrl-Z: a SIGCONT came), so its
					   * ops/s count that time; never the
					   * reported repeat where another ran
					   * (bench_median_index_except) */
};

#endif /* PVSPIN_BENCH_CONFIG_H */

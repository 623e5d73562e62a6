/*
 * bench/output.h - the reports of `pvspin bench`: the aligned table, JSON
 * (jansson), CSV, and the gnuplot plot.
 *
 * JSON shape: {"machine": {...}, "config": {...}, "results": [{"lock",
 * "threads", "cs_ns", "ncs_ns", "ops_per_s", "jain", "max_min",
 * "latency_ns": {"p50", "p99", "p999", "max"}, "events": {...}}, ...]}
 * (docs/bench.md lists every key).  Not thread-safe (one caller).
 */
#ifndef PVSPIN_BENCH_OUTPUT_H
#define PVSPIN_BENCH_OUTPUT_H

#include <stdio.h>

#include "bench/config.h"

/** Print the comment lines and the column header of the table (the busy
 *  loop's rate as calibrated at start, loops_per_ns_start).  Called
 *  after the run, just before the rows, so that nothing the run says on
 *  stderr falls inside the table. */
void bench_table_header(FILE *f, const struct bench_config *c);

/** Print one row of the table (flushes f). */
void bench_table_row(FILE *f, const struct bench_row *row);

/** After the rows: if a round ran with a busy-loop rate more than
 *  BENCH_CALIBRATION_NOTE_PCT % below the final one
 *  (c->workload.loops_per_ns; bench_workload_recheck: this CPU ran slowly
 *  when the run was calibrated, on a busy host or beside another task),
 *  so that its sections were that much shorter than asked: two comment
 *  lines, one with the calibrated and the final rate and the largest
 *  shortfall, one naming those rounds (c->round_loops_per_ns) by thread
 *  count, "1 thread (all 3), 2 threads (round 1 of 3)".  Else (or without
 *  c->round_loops_per_ns) nothing.  Flushes f. */
void bench_table_calibration_note(FILE *f, const struct bench_config *c);

/** After the rows: where the bench was stopped (SIGSTOP, Ctrl-Z) during a
 *  repeat, a comment line naming those cells ("spinpark x1 (1 of 3
 *  repeats)"), whose rates count the stopped time; nothing otherwise.
 *  rows[0..n) are the reported rows. */
void bench_table_stopped_note(FILE *f, const struct bench_row *rows, size_t n);
#define BENCH_CALIBRATION_NOTE_PCT 10

/**
 * After the table: the lock called `name` (the default kind) against the
 * best other lock at each of its thread counts: the ratio of the median
 * ops/s, the min-max and the median of the per-repeat ratios (repeat k of
 * every lock runs in one round, so those pairs saw the same machine), and
 * with a third lock the best other's ratio over the next best (a near
 * draw says the cell's winner is the noise's pick).  A control row
 * (--control, bench_lock.control_of) is never the best other lock.
 * Prints nothing when `name` is not among rows[0..n) or is alone.
 * Flushes f.
 */
void bench_table_versus(FILE *f, const struct bench_row *rows, size_t n, const char *name);

/**
 * After bench_table_versus(), for --control: each control row's lock
 * (control_of) over the control at its thread count, the same three
 * figures (median ratio, per-repeat [min-max], paired median).  One code
 * measured twice in each round: how far apart two measurements of one
 * lock fall in this run, the scale against which the comparisons above
 * are read.  Prints nothing without a control row.  Flushes f.
 */
void bench_table_control(FILE *f, const struct bench_row *rows, size_t n);

/**
 * After bench_table_versus(): the same comparison within each placement
 * class, where the run's placement probes fall in two
 * (bench_placement_split(): the host moved the two CPUs between cores that
 * share a cache and cores that do not, which moves every lock's ops/s by
 * up to 2x, so a median of one lock's repeats run close against another's
 * run apart compares placements, not locks).  Per thread count: for
 * "close" and "apart", the median ops/s of `name`'s repeats run so over
 * the highest such median among the other locks, its name, and the two
 * repeat counts (never a control row's); "-" where either has none, and
 * no line for a thread count where both classes would be "-".  Prints
 * nothing with one class (or --no-placement), or when `name` is not among
 * rows[0..n).
 * Flushes f.
 */
void bench_table_versus_by_placement(FILE *f, const struct bench_row *rows, size_t n,
				     const char *name);

/** Write the JSON report to `path` ("-" = stdout).  Returns 0, or -1 with
 *  a message on stderr naming the file. */
int bench_write_json(const char *path, const struct bench_config *c,
		     const struct bench_row *rows, size_t nrows);

/** Write one CSV row per cell (and a header) to `path` ("-" = stdout).
 *  Returns 0, or -1 with a message on stderr. */
int bench_write_csv(const char *path, const struct bench_config *c,
		    const struct bench_row *rows, size_t nrows);

/**
 * Check, before any measuring, that report file `path` of option `opt`
 * ("--json", ...) can be written: opens it for writing without truncating
 * (a file it had to create is removed again).  "-" (stdout) is fine.
 * Returns 0, or -1 with "pvspin bench: OPT: cannot write 'PATH': REASON"
 * on stderr.
 */
int bench_output_check(const char *opt, const char *path);

/**
 * Whether report paths `a` and `b` name the same file: the same string, the
 * same inode (existing files) or the same canonical directory + name.
 * "-" and NULL never match.
 */
int bench_output_same(const char *a, const char *b);

/** Why gnuplot cannot draw to --plot path `path` (a static string: not a
 *  .png or .svg name, a line break in it), or NULL if it can.  cmd_bench
 *  asks before the run, bench_write_plot() again.  Thread-safe. */
const char *bench_plot_name_problem(const char *path);

/** How long gnuplot may take to draw the plot, ms: then it is killed and
 *  no plot is written (a gnuplot that never ended hung the bench for
 *  ever).  A minute: gnuplot draws these plots in well under a second. */
#define BENCH_PLOT_WAIT_MS 60000u
/** TEST ONLY: a shorter bound, in ms (1 to BENCH_PLOT_WAIT_MS), for the
 *  test of the bound (test/bench.cmake, bench_plot_gnuplot_hangs). */
#define BENCH_PLOT_WAIT_ENV "PVSPIN_TEST_PLOT_WAIT_MS"

/** The bound on gnuplot's run into *ms: BENCH_PLOT_WAIT_MS, or the
 *  value of BENCH_PLOT_WAIT_ENV if set (TEST ONLY).  0, or -1 after a
 *  line on stderr naming a bad value ("pvspin bench:
 *  PVSPIN_TEST_PLOT_WAIT_MS=x: not an integer from 1 to 60000 (ms)").
 *  cmd_bench asks before the run.  Not thread-safe (getenv()). */
int bench_plot_wait_ms(unsigned *ms);

/** True if a `gnuplot` executable is on PATH. */
int bench_plot_have_gnuplot(void);

/** Can bench_write_plot() create its gnuplot script (a temporary file in
 *  $TMPDIR, else /tmp)?  Creates one and removes it: 0, or -1 with a
 *  message on stderr naming the directory and the reason.  cmd_bench asks
 *  before the run (a bad TMPDIR was found only after minutes of
 *  measuring: a new user's finding).  Thread-safe. */
int bench_plot_script_check(void);

/**
 * Draw ops/s against threads, one line per lock, log y (and log2 x), into
 * `path` (PNG or SVG by extension) by writing a gnuplot script to a
 * temporary file and running `gnuplot` on it, for at most
 * c->plot_wait_ms ms (bench_plot_wait_ms()).  Returns 0, or -1 with a
 * message on stderr (no gnuplot: says which package installs it; gnuplot
 * failed: its exit status; gnuplot not done in time, or a stop signal
 * came meanwhile: it is killed, with what it started, and the image it
 * began removed).
 */
int bench_write_plot(const char *path, const struct bench_config *c,
		     const struct bench_row *rows, size_t nrows);

#endif /* PVSPIN_BENCH_OUTPUT_H */

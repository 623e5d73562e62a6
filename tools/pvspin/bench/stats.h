/*
 * bench/stats.h - the statistics of `pvspin bench`: a bounded latency
 * reservoir per thread, its merge into percentiles (GSL), Jain's fairness
 * index, the max/min ratio, and the median repeat.
 *
 * Pure functions of their arguments (no globals): each reservoir belongs to
 * one thread while it records; merging and the fairness functions run
 * after the threads are joined.  Not thread-safe on a shared reservoir.
 */
#ifndef PVSPIN_BENCH_STATS_H
#define PVSPIN_BENCH_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock_random.h"

/**
 * A uniform random sample of at most `cap` latencies (ns) out of the `seen`
 * offered: Vitter's Algorithm R (J. S. Vitter, "Random sampling with a
 * reservoir", ACM TOMS 11(1), 1985).  `max` is the exact maximum of all
 * values offered, kept or not.  Memory: cap * sizeof(double), fixed at
 * init.
 */
struct bench_reservoir {
	double *v;       /* kept samples, ns; v[0..kept) */
	size_t cap;      /* capacity, samples */
	size_t kept;     /* samples in v (<= cap) */
	uint64_t seen;   /* samples offered */
	double max;      /* largest sample offered, ns (0 if none) */
	uint64_t rng;    /* xorshift64* state, never 0 */
};

/** Allocate a reservoir of `cap` >= 1 samples; `seed` picks the random
 *  stream (any value).  Returns 0, or -1 (errno ENOMEM / EINVAL). */
int bench_reservoir_init(struct bench_reservoir *r, size_t cap, uint64_t seed);

/** Free the samples; *r may be initialised again.  NULL-safe for r->v. */
void bench_reservoir_free(struct bench_reservoir *r);

/** Forget every sample (keeps the memory). */
void bench_reservoir_reset(struct bench_reservoir *r);

/** Offer one latency `ns` (>= 0).  O(1), no allocation. */
static inline void bench_reservoir_add(struct bench_reservoir *r, double ns)
{
	if (ns > r->max)
		r->max = ns;
	r->seen++;
	if (r->kept < r->cap) {
		r->v[r->kept++] = ns;
		return;
	}
	uint64_t j = tool_random(&r->rng) % r->seen;
	if (j < r->cap)
		r->v[j] = ns;
}

/** Latency percentiles in ns. */
struct bench_latency {
	double p50, p99, p999, max;
	size_t samples;   /* samples the percentiles were computed from */
	uint64_t seen;    /* samples taken (timed acquisitions) in total */
};

/**
 * Merge `n` reservoirs into percentiles.  Each reservoir contributes in
 * proportion to what it saw (samples taken), not to what it kept: all are
 * thinned to the smallest keep rate min(kept/seen), picking the kept
 * subset at random (partial Fisher-Yates; reorders r[i]->v).  Then the
 * union is sorted (gsl_sort) and p50/p99/p99.9 read with
 * gsl_stats_quantile_from_sorted_data (linear interpolation, GSL manual
 * "Median and Percentiles").  max is the exact max over all samples taken.
 * With no sample at all every field is NAN and samples = 0.
 * Returns 0, or -1 with errno ENOMEM.
 */
int bench_latency_merge(struct bench_reservoir *const *r, size_t n,
			struct bench_latency *out);

/** Jain's fairness index (Σx)² / (n·Σx²) of per-thread counts x[0..n):
 *  1 = all equal, 1/n = one thread did everything (R. Jain, D. Chiu,
 *  W. Hawe, DEC-TR-301, 1984).  NAN if n == 0 or all are 0. */
double bench_jain(const uint64_t *x, size_t n);

/** max(x)/min(x) of per-thread counts: 1 = equal.  INFINITY if the
 *  smallest is 0 (a starved thread), NAN if n == 0. */
double bench_max_min(const uint64_t *x, size_t n);

/** Index of the median of v[0..n) (the lower median for even n: of two
 *  middle values the smaller, never their mean, which no repeat ran;
 *  ties keep the first), -1 if n == 0.  v is not modified. */
long bench_median_index(const double *v, size_t n);

/** bench_median_index() of the v[i] whose skip[i] is false (skip NULL:
 *  none skipped), as an index of v; of all of v[0..n) if every one is
 *  skipped.  The table's repeat leaves out the repeats during which the
 *  bench was stopped (their ops/s count the stopped time): one of them is
 *  reported only where every repeat was stopped.  -1 if n == 0.  v and
 *  skip are not modified.  Thread-safe. */
long bench_median_index_except(const double *v, const bool *skip, size_t n);

/** The median of the finite values of v[0..n) (the mean of the middle two
 *  for an even count): a cell's placement from its repeats' probes, a
 *  class's ops/s (bench_median_in_class).  NAN if there are none, or if
 *  the copy it sorts cannot be allocated (gsl_sort,
 *  gsl_stats_median_from_sorted_data).  v is not modified.  Thread-safe. */
double bench_median_finite(const double *v, size_t n);

/**
 * Do the placement probes rtt[0..n) (ns; NAN or <= 0: not measured, skipped) fall
 * in two classes, "close" and "apart"?  True if the largest measured is
 * at least twice the smallest (this 2-vCPU guest: about 64 ns when the
 * host runs its vCPUs on cores that share a cache, 300-350 ns when not,
 * flipping within seconds) and each side of their geometric mean holds
 * at least 2 probes and a tenth of them; then *threshold = that mean, and
 * a probe below it is close, one at or above it apart.  A side with
 * fewer is dropped as outliers and the rest tried again: one probe of
 * 2.5 us on a busy CPU among 307-343 ns ones made every repeat "close"
 * (a new user's `make run`, 2026-12-06).  False (and *threshold = NAN)
 * with fewer than two measured or one class only.
 */
bool bench_placement_split(const double *rtt, size_t n, double *threshold);

/**
 * The median of the x[k] whose probe rtt[k] is measured (finite, > 0) and in class
 * `apart` (rtt[k] >= threshold) or close (rtt[k] < threshold), and in
 * *count how many there were; NAN with *count = 0 if none.  Repeats with
 * stopped[k] (the bench was stopped during them: their ops/s count the
 * stopped time; stopped NULL: none) are left out unless every repeat of
 * the class was stopped, as the table's repeat
 * (bench_median_index_except).  The mean of the two middle values for an
 * even count (GSL).  x, rtt and stopped are not modified.  Thread-safe.
 */
double bench_median_in_class(const double *x, const double *rtt, const bool *stopped, size_t n,
			     double threshold, bool apart, unsigned *count);

#endif /* PVSPIN_BENCH_STATS_H */

/*
 * bench/stats.c - statistics of `pvspin bench` (see stats.h).
 * Percentiles through GSL (gsl_sort, gsl_stats_quantile_from_sorted_data).
 */
#include "bench/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

int bench_reservoir_init(struct bench_reservoir *r, size_t cap, uint64_t seed)
{
	memset(r, 0, sizeof(*r));
	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	r->v = malloc(cap * sizeof(double));
	if (!r->v)
		return -1;
	r->cap = cap;
	/* splitmix-style scramble so that seeds 0, 1, 2... give unrelated
	 * streams; xorshift must not start at 0 */
	seed = (seed + 0x9E3779B97F4A7C15ULL) * 0xBF58476D1CE4E5B9ULL;
	r->rng = seed ^ (seed >> 31);
	if (!r->rng)
		r->rng = 1;
	return 0;
}

void bench_reservoir_free(struct bench_reservoir *r)
{
	free(r->v);
	r->v = NULL;
	r->cap = r->kept = 0;
	r->seen = 0;
}

void bench_reservoir_reset(struct bench_reservoir *r)
{
	r->kept = 0;
	r->seen = 0;
	r->max = 0;
}

int bench_latency_merge(struct bench_reservoir *const *r, size_t n,
			struct bench_latency *out)
{
	double rate = 1.0;
	uint64_t seen = 0;
	double max = 0;

	for (size_t i = 0; i < n; i++) {
		if (!r[i]->seen)
			continue;
		double ri = (double)r[i]->kept / (double)r[i]->seen;
		if (ri < rate)
			rate = ri;
		seen += r[i]->seen;
		if (r[i]->max > max)
			max = r[i]->max;
	}
	out->seen = seen;
	out->samples = 0;
	out->p50 = out->p99 = out->p999 = out->max = NAN;
	if (!seen)
		return 0;

	size_t total = 0, *take = calloc(n, sizeof(size_t));
	if (!take)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!r[i]->seen)
			continue;
		size_t k = (size_t)llround((double)r[i]->seen * rate);
		if (k > r[i]->kept)
			k = r[i]->kept;
		take[i] = k;
		total += k;
	}
	double *all = malloc((total ? total : 1) * sizeof(double));
	if (!all) {
		free(take);
		return -1;
	}
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		struct bench_reservoir *ri = r[i];
		/* partial Fisher-Yates: the first take[i] slots become a
		 * uniform random subset of the kept samples */
		for (size_t j = 0; j < take[i]; j++) {
			size_t pick = j + (size_t)(tool_random(&ri->rng) % (ri->kept - j));
			double t = ri->v[j];
			ri->v[j] = ri->v[pick];
			ri->v[pick] = t;
			all[at++] = ri->v[j];
		}
	}
	free(take);
	if (total) {
		gsl_sort(all, 1, total);
		out->p50 = gsl_stats_quantile_from_sorted_data(all, 1, total, 0.50);
		out->p99 = gsl_stats_quantile_from_sorted_data(all, 1, total, 0.99);
		out->p999 = gsl_stats_quantile_from_sorted_data(all, 1, total, 0.999);
	}
	out->max = max;
	out->samples = total;
	free(all);
	return 0;
}

double bench_jain(const uint64_t *x, size_t n)
{
	double s = 0, s2 = 0;
	for (size_t i = 0; i < n; i++) {
		s += (double)x[i];
		s2 += (double)x[i] * (double)x[i];
	}
	if (n == 0 || s2 == 0)
		return NAN;
	return s * s / ((double)n * s2);
}

double bench_max_min(const uint64_t *x, size_t n)
{
	if (n == 0)
		return NAN;
	uint64_t lo = x[0], hi = x[0];
	for (size_t i = 1; i < n; i++) {
		if (x[i] < lo)
			lo = x[i];
		if (x[i] > hi)
			hi = x[i];
	}
	if (lo == 0)
		return INFINITY;
	return (double)hi / (double)lo;
}

long bench_median_index_except(const double *v, const bool *skip, size_t n)
{
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		kept += !skip || !skip[i];
	if (!kept) {   /* every one skipped: the median of them all */
		skip = NULL;
		kept = n;
	}
	if (kept == 0)
		return -1;
	/* the kept element with exactly (kept-1)/2 kept others strictly below
	 * it, counting equal elements before it as below: O(n²), n is the
	 * repeat count */
	size_t want = (kept - 1) / 2;
	for (size_t i = 0; i < n; i++) {
		if (skip && skip[i])
			continue;
		size_t below = 0;
		for (size_t j = 0; j < n; j++)
			if ((!skip || !skip[j]) && (v[j] < v[i] || (v[j] == v[i] && j < i)))
				below++;
		if (below == want)
			return (long)i;
	}
	return 0; /* unreachable: some kept element has rank `want` */
}

long bench_median_index(const double *v, size_t n)
{
	return bench_median_index_except(v, NULL, n);
}

bool bench_placement_split(const double *rtt, size_t n, double *threshold)
{
	/* the probes still considered lie in [lo, hi]; a class too small to
	 * be one is dropped as outliers and the split tried again (each
	 * round drops one end, so at most `n` rounds) */
	double lo = 0, hi = INFINITY;
	for (;;) {
		double a = INFINITY, b = -INFINITY;
		size_t measured = 0;
		for (size_t k = 0; k < n; k++) {
			if (!isfinite(rtt[k]) || rtt[k] <= 0 || rtt[k] < lo || rtt[k] > hi)
				continue;
			measured++;
			a = rtt[k] < a ? rtt[k] : a;
			b = rtt[k] > b ? rtt[k] : b;
		}
		if (measured < 2 || b < 2 * a)
			break;
		double thr = sqrt(a * b);
		size_t apart = 0, least = measured / 10 > 2 ? measured / 10 : 2;
		for (size_t k = 0; k < n; k++)
			apart += isfinite(rtt[k]) && rtt[k] >= thr && rtt[k] <= hi;
		if (apart >= least && measured - apart >= least) {
			*threshold = thr;
			return true;
		}
		/* drop the smaller class's probes */
		if (apart < least)
			hi = nextafter(thr, 0);
		else
			lo = thr;
	}
	*threshold = NAN;
	return false;
}

double bench_median_finite(const double *v, size_t n)
{
	double *s = malloc(sizeof(*s) * (n ? n : 1)), m = NAN;
	size_t k = 0;
	if (!s)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			s[k++] = v[i];
	if (k) {
		gsl_sort(s, 1, k);
		m = gsl_stats_median_from_sorted_data(s, 1, k);
	}
	free(s);
	return m;
}

double bench_median_in_class(const double *x, const double *rtt, const bool *stopped, size_t n,
			     double threshold, bool apart, unsigned *count)
{
	double *v = malloc(sizeof(*v) * (n ? n : 1)), med = NAN;
	unsigned m = 0;
	/* the class's repeats not stopped; all of them if every one was */
	for (int pass = 0; v && pass < 2 && !m; pass++)
		for (size_t k = 0; k < n; k++)
			if (isfinite(rtt[k]) && rtt[k] > 0 && (rtt[k] >= threshold) == apart &&
			    (pass || !stopped || !stopped[k]))
				v[m++] = x[k];
	*count = m;
	if (v)
		med = bench_median_finite(v, m);
	free(v);
	return med;
}

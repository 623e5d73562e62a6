/*
 * test_bench_stats.c - the statistics of `pvspin bench` on known inputs:
 * Jain's index, max/min, the latency reservoir, the weighted merge into
 * GSL percentiles, the median repeat, and the placement classes of the
 * repeats.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/stats.h"

static void test_jain(void **state)
{
	(void)state;
	const uint64_t equal[] = { 5, 5, 5, 5 }, one[] = { 1, 0, 0, 0 }, ramp[] = { 1, 2, 3, 4 };
	const uint64_t zero[] = { 0, 0 };
	assert_float_equal(bench_jain(equal, 4), 1.0, 1e-12);
	assert_float_equal(bench_jain(one, 4), 0.25, 1e-12);           /* 1/n */
	assert_float_equal(bench_jain(ramp, 4), 100.0 / 120.0, 1e-12); /* 10² / (4·30) */
	assert_true(isnan(bench_jain(zero, 2)));
	assert_true(isnan(bench_jain(equal, 0)));
}

static void test_max_min(void **state)
{
	(void)state;
	const uint64_t a[] = { 2, 4, 8 }, starved[] = { 3, 0, 1 }, single[] = { 7 };
	assert_float_equal(bench_max_min(a, 3), 4.0, 1e-12);
	assert_true(isinf(bench_max_min(starved, 3)));
	assert_float_equal(bench_max_min(single, 1), 1.0, 1e-12);
	assert_true(isnan(bench_max_min(a, 0)));
}

static void test_percentiles(void **state)
{
	(void)state;
	struct bench_reservoir r;
	assert_int_equal(bench_reservoir_init(&r, 1000, 1), 0);
	for (int i = 100; i >= 1; i--)      /* 100..1: order must not matter */
		bench_reservoir_add(&r, i);
	struct bench_reservoir *rs[] = { &r };
	struct bench_latency l;
	assert_int_equal(bench_latency_merge(rs, 1, &l), 0);
	assert_int_equal(l.samples, 100);
	assert_int_equal(l.seen, 100);
	/* GSL: linear interpolation between order statistics at f·(n-1) */
	assert_float_equal(l.p50, 50.5, 1e-9);
	assert_float_equal(l.p99, 99.01, 1e-9);
	assert_float_equal(l.p999, 99.901, 1e-9);
	assert_float_equal(l.max, 100.0, 1e-12);
	bench_reservoir_free(&r);
}

static void test_reservoir_bounded_and_uniform(void **state)
{
	(void)state;
	struct bench_reservoir r;
	assert_int_equal(bench_reservoir_init(&r, 1000, 42), 0);
	for (int i = 0; i < 100000; i++)
		bench_reservoir_add(&r, i);
	assert_int_equal(r.kept, 1000);
	assert_int_equal(r.seen, 100000);
	assert_float_equal(r.max, 99999.0, 0);
	/* a uniform sample of 0..99999: mean 50000, s.d. of the mean ~913;
	 * the seed is fixed, so this is deterministic (5 s.d. margin) */
	double sum = 0, late = 0;
	for (size_t i = 0; i < r.kept; i++) {
		sum += r.v[i];
		late += r.v[i] >= 50000;
	}
	assert_in_range((long)(sum / 1000), 45000, 55000);
	assert_in_range((long)late, 400, 600);  /* not "the first 1000 seen" */
	bench_reservoir_reset(&r);
	assert_int_equal(r.kept, 0);
	bench_reservoir_free(&r);
	assert_int_equal(bench_reservoir_init(&r, 0, 1), -1);
}

static void test_merge_weights_by_samples_taken(void **state)
{
	(void)state;
	struct bench_reservoir busy, slow, idle;
	assert_int_equal(bench_reservoir_init(&busy, 100, 1), 0);
	assert_int_equal(bench_reservoir_init(&slow, 100, 2), 0);
	assert_int_equal(bench_reservoir_init(&idle, 100, 3), 0);
	for (int i = 0; i < 1000; i++)   /* saw 1000, keeps 100: rate 0.1 */
		bench_reservoir_add(&busy, 1);
	for (int i = 0; i < 100; i++)    /* saw 100, keeps all: thinned to 10 */
		bench_reservoir_add(&slow, 2);
	struct bench_reservoir *rs[] = { &busy, &slow, &idle };
	struct bench_latency l;
	assert_int_equal(bench_latency_merge(rs, 3, &l), 0);
	assert_int_equal(l.seen, 1100);
	assert_int_equal(l.samples, 110);  /* 100 ones, 10 twos: 1/11 are twos */
	assert_float_equal(l.p50, 1.0, 0);
	assert_float_equal(l.p99, 2.0, 0); /* index 0.99·109 = 107.9 > 99 */
	assert_float_equal(l.max, 2.0, 0);

	/* nothing sampled at all */
	struct bench_reservoir *none[] = { &idle };
	assert_int_equal(bench_latency_merge(none, 1, &l), 0);
	assert_int_equal(l.samples, 0);
	assert_true(isnan(l.p50) && isnan(l.p99) && isnan(l.p999) && isnan(l.max));
	bench_reservoir_free(&busy);
	bench_reservoir_free(&slow);
	bench_reservoir_free(&idle);
}

static void test_median_index(void **state)
{
	(void)state;
	const double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, same[] = { 5, 5, 5 }, one[] = { 7 };
	assert_int_equal(bench_median_index(odd, 3), 2);
	assert_int_equal(bench_median_index(even, 4), 3);  /* lower median: 2 */
	assert_int_equal(bench_median_index(same, 3), 1);  /* ties in order: the middle one */
	assert_int_equal(bench_median_index(one, 1), 0);
	assert_int_equal(bench_median_index(one, 0), -1);
	/* the repeats during which the bench was stopped are left out, as
	 * long as one is not: two repeats, the stopped one slower (it was
	 * the lower median); four, two stopped; all stopped: of them all */
	const double two[] = { 100, 500 }, four[] = { 50, 400, 60, 300 };
	const bool first[] = { true, false }, both[] = { true, true }, none[] = { false, false };
	const bool low_two[] = { true, false, true, false };
	assert_int_equal(bench_median_index(two, 2), 0);
	assert_int_equal(bench_median_index_except(two, first, 2), 1);
	assert_int_equal(bench_median_index_except(two, none, 2), 0);
	assert_int_equal(bench_median_index_except(two, NULL, 2), 0);
	assert_int_equal(bench_median_index_except(two, both, 2), 0);
	assert_int_equal(bench_median_index_except(four, low_two, 4), 3);   /* lower of 300, 400 */
	assert_int_equal(bench_median_index_except(even, NULL, 4), 3);
	assert_int_equal(bench_median_index_except(one, first, 0), -1);
}

/* The placement probes of one run on this guest (ns): two classes split at
 * the geometric mean; unmeasured probes (NAN, 0) count in neither. */
static void test_placement_classes(void **state)
{
	(void)state;
	const double rtt[] = { 64, 330, NAN, 62, 320, 66, 0 };
	const double ops[] = { 10, 5, 99, 12, 6, 11, 98 };
	double thr;
	assert_true(bench_placement_split(rtt, 7, &thr));
	assert_true(fabs(thr - sqrt(62.0 * 330.0)) < 1e-9);
	unsigned n;
	assert_true(fabs(bench_median_in_class(ops, rtt, NULL, 7, thr, false, &n) - 11) < 1e-9);
	assert_int_equal(n, 3);
	assert_true(fabs(bench_median_in_class(ops, rtt, NULL, 7, thr, true, &n) - 5.5) < 1e-9);
	assert_int_equal(n, 2);
	/* a repeat the bench was stopped during is left out of its class
	 * (close: 10 and 11 of 10, 12, 11), unless the class has no other
	 * (apart: 5 and 6 both stopped, both kept) */
	const bool stopped[] = { false, true, false, true, true, false, false };
	assert_true(fabs(bench_median_in_class(ops, rtt, stopped, 7, thr, false, &n) - 10.5) <
		    1e-9);
	assert_int_equal(n, 2);
	assert_true(fabs(bench_median_in_class(ops, rtt, stopped, 7, thr, true, &n) - 5.5) < 1e-9);
	assert_int_equal(n, 2);

	/* one class: a spread under 2x, a single probe, none measured */
	const double near[] = { 60, 64, 110 }, single[] = { 64, NAN }, none[] = { NAN, NAN };
	assert_false(bench_placement_split(near, 3, &thr));
	assert_true(isnan(thr));
	assert_false(bench_placement_split(single, 2, &thr));
	assert_false(bench_placement_split(none, 2, &thr));

	/* one outlier is not a class (a busy CPU's probe among apart ones:
	 * every repeat was called close), nor does it hide two real classes */
	double busy[21], both[21];
	for (int i = 0; i < 20; i++) {
		busy[i] = 307 + 2 * i;
		both[i] = i < 10 ? 60 + i : 320 + i;   /* 60-69, 330-339 */
	}
	busy[20] = both[20] = 2500;
	assert_false(bench_placement_split(busy, 21, &thr));
	assert_true(isnan(thr));
	assert_true(bench_placement_split(both, 21, &thr));
	assert_true(fabs(thr - sqrt(60.0 * 339.0)) < 1e-9);   /* 60-69 and 330-339 */
	assert_true(fabs(bench_median_in_class(both, both, NULL, 21, thr, false, &n) - 64.5) < 1e-9);
	assert_int_equal(n, 10);
	assert_true(isnan(bench_median_in_class(ops, none, NULL, 2, 100, false, &n)));
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jain),
		cmocka_unit_test(test_max_min),
		cmocka_unit_test(test_percentiles),
		cmocka_unit_test(test_reservoir_bounded_and_uniform),
		cmocka_unit_test(test_merge_weights_by_samples_taken),
		cmocka_unit_test(test_median_index),
		cmocka_unit_test(test_placement_classes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

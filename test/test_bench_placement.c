/*
 * test_bench_placement.c - `pvspin bench`'s placement probe
 * (tools/pvspin/bench/placement.c): the median of the finite values on
 * known inputs; with 2 or more CPUs allowed the probe measures a round
 * trip in (0, 1 ms) and ends within its cap; with one CPU allowed it
 * reports "not measured" (NAN).
 */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <cmocka.h>

#include "bench/placement.h"
#include "bench/stats.h"
#include "clock_random.h"

static void test_median(void **state)
{
	(void)state;
	const double odd[] = { 300, 60, 540 }, even[] = { 60, 540, 50, 65 };
	const double gaps[] = { NAN, 61, NAN, 63, INFINITY }, none[] = { NAN, NAN };
	assert_float_equal(bench_median_finite(odd, 3), 300, 1e-12);
	assert_float_equal(bench_median_finite(even, 4), 62.5, 1e-12);
	assert_float_equal(bench_median_finite(gaps, 5), 62, 1e-12);   /* finite only */
	assert_true(isnan(bench_median_finite(none, 2)));
	assert_true(isnan(bench_median_finite(odd, 0)));
}

static void test_probe(void **state)
{
	(void)state;
	cpu_set_t set;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	if (CPU_COUNT(&set) < 2)
		skip();
	/* a probe may meet a CPU that another task holds (or, under TSan,
	 * too slow to finish 1 000 round trips in the cap): the best of up
	 * to fifty, 20 ms apart (about 1.3 s), stopping at the third
	 * measured (three failed one loaded fresh-clone `make check` on
	 * 2026-12-05, and ten another, under TSan while a second build ran) */
	double best = NAN;
	int measured = 0;
	for (int i = 0; i < 50 && measured < 3; i++) {
		if (i)
			nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
		uint64_t t0 = tool_now_ns();
		double rtt = bench_placement_probe();
		double ms = (double)(tool_now_ns() - t0) / 1e6;
		printf("probe %d: %.1f ns in %.2f ms\n", i, rtt, ms);
		/* the cap: 5 ms + 1 ms, and two thread starts, which on a
		 * loaded machine took 148 ms once (a fresh-clone `make check`
		 * beside another build, 2026-12-06): bounded, not fast */
		assert_true(ms < 1000);
		measured += isfinite(rtt);
		if (isfinite(rtt) && !(rtt >= best))
			best = rtt;
	}
#if defined(__SANITIZE_THREAD__)
	/* Under TSan every acquire load of the bounced word goes through the
	 * runtime's sync state: with the vCPUs apart (a 450 ns round trip)
	 * fewer than half of the 2 000 round trips fit in the 5 ms cap, and
	 * all fifty probes of a quiet fresh-clone `make check` said "not
	 * measured" (2026-12-06 22:06).  What is checked here then is the
	 * bound on each probe's time (above) and a measured value's range. */
	if (!measured) {
		printf("no probe measured under TSan: the time bound alone is checked\n");
		return;
	}
#endif
	assert_true(best > 0 && best < 1e6);
}

static void test_one_cpu(void **state)
{
	(void)state;
	cpu_set_t all, one;
	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &one);
			break;
		}
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	double rtt = bench_placement_probe();
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
	assert_true(isnan(rtt));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_one_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_util.h - helpers shared by the tests: test scale from the
 * environment, CPU count, a start barrier.
 */
#ifndef PVSPIN_TEST_UTIL_H
#define PVSPIN_TEST_UTIL_H

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/** PVSPIN_TEST_SCALE (default 1.0): sanitizer builds run smaller sizes. */
static inline double test_scale(void)
{
	const char *s = getenv("PVSPIN_TEST_SCALE");
	double v = s ? atof(s) : 1.0;
	return v > 0 ? v : 1.0;
}

/** n scaled by test_scale(), at least `min`. */
static inline long scaled(long n, long min)
{
	long v = (long)((double)n * test_scale());
	return v < min ? min : v;
}

static inline int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

#endif

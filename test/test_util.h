/*
 * test_util.h - helpers shared by the tests: test scale from the
 * environment, CPU count, one lock event's count.
 */
#ifndef PVSPIN_TEST_UTIL_H
#define PVSPIN_TEST_UTIL_H

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "pvspin/stats.h"

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

/** The process's count of lock event `ev` (PVSPIN_EV_*) so far. */
static inline uint64_t event_count(int ev)
{
	struct pvspin_events e;
	pvspin_events_read(&e);
	return e.count[ev];
}

#endif

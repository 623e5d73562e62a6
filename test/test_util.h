/*
 * test_util.h - helpers shared by the tests: test scale from the
 * environment, CPU count, one lock event's count, and that count while a
 * thread runs.
 */
#ifndef PVSPIN_TEST_UTIL_H
#define PVSPIN_TEST_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
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

/** Start a thread running fn(NULL) into *t (false if it could not be
 *  created), sleep `ms` milliseconds, and return how many lock event `ev`
 *  the process counted meanwhile (a waiter's sleeps, PVSPIN_EV_PARK, say).
 *  The thread is left running: the caller joins it. */
static inline bool events_while_thread_runs(void *(*fn)(void *), pthread_t *t, long ms, int ev,
					    uint64_t *count)
{
	uint64_t before = event_count(ev);
	if (pthread_create(t, NULL, fn, NULL))
		return false;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
	*count = event_count(ev) - before;
	return true;
}

#endif

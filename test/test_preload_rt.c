/*
 * test_preload_rt.c - real-time threads on interposed mutexes and a
 * condvar must finish as they do on glibc (issue 11; docs/preload.md,
 * "Waiting").  Run under `pvspin run` by test/preload.cmake.
 *
 *   test_preload_rt [ROUNDS [WATCHDOG_S]]
 *
 * Nine threads on two mutexes and one condvar: SCHED_FIFO at priorities
 * 10, 40 and 80, SCHED_RR at 5, 30 and 60, and three SCHED_OTHER.  Each
 * round a thread takes mutex A, counts, yields the CPU while holding it
 * every 4th round (a holder that lets others run: the case where a waiter
 * that spins on without bound keeps a lower-priority holder off its CPU),
 * unlocks; then takes mutex B and meets the others at a condvar barrier
 * (the last one broadcasts).  Every ROUNDS rounds (default 200) must end
 * with the counts right.  A SCHED_FIFO 99 watchdog thread, which outranks
 * every spinner, fails the run after WATCHDOG_S seconds (default 30):
 * a hang is a failure, speed is not measured.
 *
 * Exit 0: finished and counts right; 1: wrong count or hang; 77 (ctest's
 * skip): real-time scheduling is not permitted here (not root, or no
 * CAP_SYS_NICE, or an RLIMIT_RTPRIO of 0), with a message saying so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_barrier.h"

#define NTHREADS 9

static const struct { int policy, prio; } spec[NTHREADS] = {
	{ SCHED_FIFO, 10 }, { SCHED_FIFO, 40 }, { SCHED_FIFO, 80 },
	{ SCHED_RR, 5 },    { SCHED_RR, 30 },   { SCHED_RR, 60 },
	{ SCHED_OTHER, 0 }, { SCHED_OTHER, 0 }, { SCHED_OTHER, 0 },
};

static pthread_mutex_t ma = PTHREAD_MUTEX_INITIALIZER;
static struct test_barrier bar = TEST_BARRIER_INIT(NTHREADS);
static long counter, rounds;

static void *worker(void *arg)
{
	(void)arg;
	for (long r = 0; r < rounds; r++) {
		pthread_mutex_lock(&ma);
		counter++;
		if (r % 4 == 0)
			sched_yield();
		pthread_mutex_unlock(&ma);

		test_barrier_wait(&bar);
	}
	return NULL;
}

static void *watchdog(void *arg)
{
	struct timespec ts = { .tv_sec = (long)(size_t)arg, .tv_nsec = 0 };
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
	fprintf(stderr, "test_preload_rt: FAIL: not finished after %ld s (hang)\n",
		(long)(size_t)arg);
	_exit(1);
}

/* A thread with `policy` at `prio` (attributes, not inherited). */
static int start(pthread_t *t, int policy, int prio, void *(*fn)(void *), void *arg)
{
	pthread_attr_t a;
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, policy);
	pthread_attr_setschedparam(&a, &sp);
	int e = pthread_create(t, &a, fn, arg);
	pthread_attr_destroy(&a);
	return e;
}

int main(int argc, char **argv)
{
	rounds = argc > 1 ? atol(argv[1]) : 200;
	long secs = argc > 2 ? atol(argv[2]) : 30;
	pthread_t dog, t[NTHREADS];

	int e = start(&dog, SCHED_FIFO, 99, watchdog, (void *)(size_t)secs);
	if (e == EPERM) {
		printf("test_preload_rt: SKIP: real-time scheduling not permitted "
		       "(needs root or CAP_SYS_NICE; euid %d)\n", (int)geteuid());
		return 77;
	}
	if (e) {
		fprintf(stderr, "test_preload_rt: FAIL: watchdog: %s\n", strerror(e));
		return 1;
	}
	for (int i = 0; i < NTHREADS; i++) {
		e = start(&t[i], spec[i].policy, spec[i].prio, worker, NULL);
		if (e) {
			fprintf(stderr, "test_preload_rt: FAIL: thread %d: %s\n", i, strerror(e));
			return 1;
		}
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	if (counter != rounds * NTHREADS || bar.gen != (unsigned long)rounds) {
		fprintf(stderr, "test_preload_rt: FAIL: counter %ld (want %ld), generation %lu\n",
			counter, rounds * NTHREADS, bar.gen);
		return 1;
	}
	printf("test_preload_rt: ok: %d threads x %ld rounds\n", NTHREADS, rounds);
	return 0;
}

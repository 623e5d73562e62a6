/*
 * bench/placement.c - the cache-line round trip between two CPUs (see
 * placement.h).
 */
#define _GNU_SOURCE
#include "bench/placement.h"
#include "bench/stats.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "bench/machine.h"
#include "clock_random.h"
#include "pvspin/platform.h"

#define NBATCH (BENCH_PLACEMENT_ROUND_TRIPS / BENCH_PLACEMENT_BATCH)
/* PAUSE loops between two deadline checks (a clock read each, ~20 ns) */
#define CHECK_EVERY 64
/* How long after the deadline the caller waits for the threads: a thread
 * that has not run by then (its CPU taken by a real-time task) is left
 * to end on its own. */
#define JOIN_SLACK_NS 1000000

/* The bounced word alone on its two lines (the adjacent-line prefetcher
 * of x86 fetches pairs); then the deadline, read-only while the threads
 * run, side A's batch times, read after the join, and the references:
 * the caller's and each running thread's, the last one frees it. */
struct probe {
	uint64_t word __attribute__((aligned(128)));
	uint64_t deadline __attribute__((aligned(128)));   /* tool_now_ns() */
	unsigned batches;                                   /* timed by A */
	double batch_ns[NBATCH];
	int refs;
};

static void probe_put(struct probe *p)
{
	if (!__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL))
		free(p);
}

/* Spin until p->word is v.  Returns 0, or -1 at the deadline. */
static int wait_for(struct probe *p, uint64_t v)
{
	for (unsigned i = 1; __atomic_load_n(&p->word, __ATOMIC_ACQUIRE) != v; i++) {
		pvspin_plat_cpu_relax();
		if (i % CHECK_EVERY == 0 && tool_now_ns() > p->deadline)
			return -1;
	}
	return 0;
}

/* Side A: the hand-shake (1, 2), then NBATCH timed batches of round
 * trips: write 2k+1, wait for 2k+2. */
static void run_a(struct probe *p)
{
	uint64_t k = 1;
	__atomic_store_n(&p->word, 1, __ATOMIC_RELEASE);
	if (wait_for(p, 2))
		return;
	for (unsigned b = 0; b < NBATCH; b++) {
		uint64_t t0 = tool_now_ns();
		for (unsigned i = 0; i < BENCH_PLACEMENT_BATCH; i++, k++) {
			__atomic_store_n(&p->word, 2 * k + 1, __ATOMIC_RELEASE);
			if (wait_for(p, 2 * k + 2))
				return;
		}
		p->batch_ns[b] = (double)(tool_now_ns() - t0);
		p->batches = b + 1;
	}
}

/* Side B: wait for 2k+1, write 2k+2; k = 0 is the hand-shake. */
static void run_b(struct probe *p)
{
	for (uint64_t k = 0; k <= BENCH_PLACEMENT_ROUND_TRIPS; k++) {
		if (wait_for(p, 2 * k + 1))
			return;
		__atomic_store_n(&p->word, 2 * k + 2, __ATOMIC_RELEASE);
	}
}

static void *side_a(void *arg)
{
	run_a(arg);
	probe_put(arg);
	return NULL;
}

static void *side_b(void *arg)
{
	run_b(arg);
	probe_put(arg);
	return NULL;
}

/* Start fn on CPU cpu.  Returns 0 or pthread's error. */
static int start_pinned(pthread_t *t, int cpu, void *(*fn)(void *), struct probe *p)
{
	pthread_attr_t attr;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	int err = pthread_attr_init(&attr);
	if (err)
		return err;
	err = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (!err)
		err = pthread_create(t, &attr, fn, p);
	pthread_attr_destroy(&attr);
	return err;
}

double bench_placement_probe(void)
{
	int cpu[2];
	struct probe *p = bench_allowed_cpus(cpu, 2) == 2 ? aligned_alloc(128, sizeof(*p)) : NULL;
	if (!p)
		return NAN;
	memset(p, 0, sizeof(*p));
	p->refs = 3;
	/* B first; A, the side that times, waits for it in the hand-shake.
	 * A thread that failed to start leaves the other to its deadline. */
	pthread_t t[2];
	void *(*const fn[2])(void *) = { side_b, side_a };
	struct timespec join_by;
	clock_gettime(CLOCK_REALTIME, &join_by);   /* pthread_timedjoin_np's clock */
	join_by.tv_nsec += BENCH_PLACEMENT_CAP_NS + JOIN_SLACK_NS;
	join_by.tv_sec += join_by.tv_nsec / 1000000000;
	join_by.tv_nsec %= 1000000000;
	p->deadline = tool_now_ns() + BENCH_PLACEMENT_CAP_NS;
	int started = 0, joined = 0;
	while (started < 2 && !start_pinned(&t[started], cpu[started], fn[started], p))
		started++;
	for (int i = started; i < 2; i++)
		probe_put(p);   /* the references of the threads not started */
	for (int i = 0; i < started; i++) {
		if (!pthread_timedjoin_np(t[i], NULL, &join_by))
			joined++;
		else
			pthread_detach(t[i]);
	}
	double rtt = NAN;
	if (joined == 2 && p->batches >= NBATCH / 2)
		rtt = bench_median_finite(p->batch_ns, p->batches) / BENCH_PLACEMENT_BATCH;
	probe_put(p);
	return rtt;
}

/*
 * test_mutual_exclusion.c - every kind under stress: threads up to 4x the
 * CPUs increment a plain (non-atomic) counter inside the critical section;
 * the final count must equal the number of acquisitions.  At least a
 * million acquisitions per kind.  A deliberately broken kind (a racy,
 * non-atomic test-and-set, built only here) must be caught by the same
 * check, proving the check can fail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "pvspin.h"
#include "test_util.h"

struct kind_ops {
	const char *name;
	void (*lock)(pvspin_lock_t *);
	void (*unlock)(pvspin_lock_t *);
};

/* Broken on purpose: test, then set, as two separate steps, with a window
 * between them wide enough that two threads running at once both pass. */
static void broken_lock(pvspin_lock_t *l)
{
	while (__atomic_load_n(&l->val, __ATOMIC_RELAXED))
		pvspin_plat_cpu_relax();
	for (int k = 0; k < 32; k++)
		pvspin_plat_cpu_relax();
	__atomic_store_n(&l->val, 1, __ATOMIC_RELAXED);
}
static void broken_unlock(pvspin_lock_t *l)
{
	__atomic_store_n(&l->val, 0, __ATOMIC_RELAXED);
}

static void q_lock(pvspin_lock_t *l) { pvspin_qspinlock_lock(l); }
static void q_unlock(pvspin_lock_t *l) { pvspin_qspinlock_unlock(l); }
static void pv_lock(pvspin_lock_t *l) { pvspin_pvqspinlock_lock(l); }
static void pv_unlock(pvspin_lock_t *l) { pvspin_pvqspinlock_unlock(l); }
static void tas_lock(pvspin_lock_t *l) { pvspin_tas_lock(l); }
static void tas_unlock(pvspin_lock_t *l) { pvspin_tas_unlock(l); }
static void tk_lock(pvspin_lock_t *l) { pvspin_ticket_lock(l); }
static void tk_unlock(pvspin_lock_t *l) { pvspin_ticket_unlock(l); }
static void sp_lock(pvspin_lock_t *l) { pvspin_spinpark_lock(l); }
static void sp_unlock(pvspin_lock_t *l) { pvspin_spinpark_unlock(l); }

static const struct kind_ops kinds[] = {
	{ "qspinlock", q_lock, q_unlock },
	{ "pvqspinlock", pv_lock, pv_unlock },
	{ "tas", tas_lock, tas_unlock },
	{ "ticket", tk_lock, tk_unlock },
	{ "spinpark", sp_lock, sp_unlock },
};
static const struct kind_ops broken = { "broken", broken_lock, broken_unlock };

struct shared {
	pvspin_lock_t lock;
	char pad[60];
	volatile uint64_t counter;   /* plain: protected only by the lock */
	volatile uint64_t shadow;    /* written with counter, read back */
	const struct kind_ops *ops;
	long iters;
	pthread_barrier_t start;
};

static void *worker(void *arg)
{
	struct shared *s = arg;
	pthread_barrier_wait(&s->start);
	for (long i = 0; i < s->iters; i++) {
		s->ops->lock(&s->lock);
		/* read-modify-write with a window, so a broken lock loses updates */
		uint64_t c = s->counter;
		s->shadow = c;
		for (int k = 0; k < 4; k++)
			__asm__ __volatile__("" ::: "memory");
		s->counter = c + 1;
		s->ops->unlock(&s->lock);
		if ((i & 63) == 0)
			for (int k = 0; k < (int)(i % 7) * 8; k++)
				pvspin_plat_cpu_relax();
	}
	return NULL;
}

/* Run `threads` threads x `iters`; returns the counter's shortfall. */
static uint64_t stress(const struct kind_ops *ops, int threads, long iters)
{
	static struct shared s __attribute__((aligned(64)));
	pthread_t tid[64];
	memset((void *)&s, 0, sizeof(s));
	s.ops = ops;
	s.iters = iters;
	pthread_barrier_init(&s.start, NULL, (unsigned)threads);
	for (int t = 0; t < threads; t++)
		assert_int_equal(pthread_create(&tid[t], NULL, worker, &s), 0);
	for (int t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	pthread_barrier_destroy(&s.start);
	uint64_t want = (uint64_t)threads * (uint64_t)iters;
	printf("  %-12s threads=%-2d acquisitions=%-8llu counter=%llu\n", ops->name, threads,
	       (unsigned long long)want, (unsigned long long)s.counter);
	return want - s.counter;
}

static void test_kind(void **state)
{
	const struct kind_ops *ops = *state;
	int ncpu = online_cpus();
	int over = 4 * ncpu > 64 ? 64 : 4 * ncpu;
	long total = 0;

	/* Dedicated-ish: 2 threads share the bulk of the million. */
	long it2 = scaled(450000, 5000);
	assert_int_equal(stress(ops, 2, it2), 0);
	total += 2 * it2;
	/* One per CPU. */
	long itn = scaled(100000 / ncpu, 2000);
	assert_int_equal(stress(ops, ncpu, itn), 0);
	total += ncpu * itn;
	/* 4x overcommit: fair kinds collapse here (LWP), so fewer each. */
	long ito = scaled(500, 100);
	assert_int_equal(stress(ops, over, ito), 0);
	total += over * ito;
	if (test_scale() >= 1.0)
		assert_true(total >= 1000000);
}

static void test_broken_kind_is_caught(void **state)
{
	(void)state;
	uint64_t lost = 0;
	/* Lost updates are overwhelmingly likely in one round; on a loaded
	 * machine the threads may seldom run at once, so allow several. */
	for (int round = 0; round < 20 && !lost; round++)
		lost = stress(&broken, 4, 100000);
	printf("  broken lock lost %llu updates\n", (unsigned long long)lost);
	assert_true(lost > 0);
}

int main(int argc, char **argv)
{
	struct CMUnitTest tests[8];
	size_t n = 0;
	bool with_broken = !(argc > 1 && strcmp(argv[1], "--no-broken") == 0);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct CMUnitTest t = { kinds[i].name, test_kind, NULL, NULL, (void *)&kinds[i] };
		tests[n++] = t;
	}
	if (with_broken) {
		struct CMUnitTest t = { "broken_kind_is_caught", test_broken_kind_is_caught, NULL, NULL, NULL };
		tests[n++] = t;
	}
	return _cmocka_run_group_tests("mutual_exclusion", tests, n, NULL, NULL);
}

/*
 * test_slots.c - thread slots.
 *  - Recycling: 100,000 short-lived threads each take a slot (their first
 *    slow path) and exit; slots return to the pool, none is exhausted.
 *  - Exhaustion (this file built against a library with
 *    PVSPIN_MAX_CPUS=4, test "test_slots_exhaustion"): 12 threads contend
 *    on each queued kind; threads beyond the capacity lock without a node
 *    (spin, then timed sleeps), the wait of one is bounded,
 *    mutual exclusion holds, and the fallback is counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "pvspin.h"
#include "test_util.h"

static void *take_slot(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)pvspin_plat_cpu();
}

static void test_slot_recycling(void **state)
{
	(void)state;
	struct pvspin_slot_stats before, after;
	long n = scaled(100000, 2000);
	intptr_t top = -1;   /* the highest slot a thread got */
	pvspin_slots_read(&before);
	for (long i = 0; i < n; i++) {
		pthread_t t;
		void *slot;
		assert_int_equal(pthread_create(&t, NULL, take_slot, NULL), 0);
		pthread_join(t, &slot);
		assert_true((intptr_t)slot >= 0);
		assert_true((intptr_t)slot < (intptr_t)before.capacity);
		if ((intptr_t)slot > top)
			top = (intptr_t)slot;
	}
	pvspin_slots_read(&after);
	printf("  %ld threads: allocated %llu, in use %u -> %u, exhausted %llu\n", n,
	       (unsigned long long)(after.allocated - before.allocated),
	       before.in_use, after.in_use, (unsigned long long)after.exhausted);
	assert_int_equal(after.allocated - before.allocated, (uint64_t)n);
	assert_int_equal(after.in_use, before.in_use);
	assert_int_equal(after.exhausted, before.exhausted);
	/* the high-water mark covers every slot handed out, within the pool */
	assert_true((intptr_t)after.high > top);
	assert_true(after.high <= after.capacity);
	assert_true(after.high >= before.high);
}

struct contend {
	pvspin_kind_t kind;
	pvspin_lock_t lock;
	volatile uint64_t counter;
	long iters;
	pthread_barrier_t start;
};

static void *contender(void *arg)
{
	struct contend *c = arg;
	(void)pvspin_plat_cpu(); /* take a slot now: 4 threads get one, 8 do not */
	pthread_barrier_wait(&c->start);
	for (long i = 0; i < c->iters; i++) {
		pvspin_kind_lock(c->kind, &c->lock);
		c->counter = c->counter + 1;
		for (int k = 0; k < 50; k++)
			pvspin_plat_cpu_relax();
		pvspin_kind_unlock(c->kind, &c->lock);
	}
	return NULL;
}

static void test_slot_exhaustion(void **state)
{
	(void)state;
	const pvspin_kind_t kinds[] = { PVSPIN_KIND_QSPINLOCK, PVSPIN_KIND_PVQSPINLOCK };
	enum { THREADS = 12 };
	struct pvspin_slot_stats st;
	pvspin_slots_read(&st);
	assert_int_equal(st.capacity, 4);   /* built with PVSPIN_MAX_CPUS=4 */

	for (size_t k = 0; k < 2; k++) {
		static struct contend c;
		struct pvspin_events before, after;
		pthread_t t[THREADS];
		memset((void *)&c, 0, sizeof(c));
		c.kind = kinds[k];
		c.iters = scaled(150, 50);
		pthread_barrier_init(&c.start, NULL, THREADS);
		pvspin_events_read(&before);
		for (int i = 0; i < THREADS; i++)
			pthread_create(&t[i], NULL, contender, &c);
		for (int i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
		pvspin_events_read(&after);
		pvspin_slots_read(&st);
		printf("  %s: counter %llu of %ld, lock_no_node +%llu, exhausted %llu\n",
		       pvspin_kind_name(c.kind), (unsigned long long)c.counter, THREADS * c.iters,
		       (unsigned long long)(after.count[PVSPIN_EV_LOCK_NO_NODE] -
					    before.count[PVSPIN_EV_LOCK_NO_NODE]),
		       (unsigned long long)st.exhausted);
		assert_int_equal(c.counter, (uint64_t)THREADS * (uint64_t)c.iters);
		assert_true(st.in_use <= 4);
		pthread_barrier_destroy(&c.start);
	}
	assert_true(st.exhausted > 0);
}

static pthread_barrier_t hold_start, hold_end;
static void *slot_holder(void *arg)
{
	(void)arg;
	(void)pvspin_plat_cpu();
	pthread_barrier_wait(&hold_start);
	pthread_barrier_wait(&hold_end);
	return NULL;
}

struct queued_waiter { pvspin_kind_t kind; pvspin_lock_t *lock; int slot; };
static void *slotless_waiter(void *arg)
{
	struct queued_waiter *w = arg;
	w->slot = pvspin_plat_cpu();
	pvspin_kind_lock(w->kind, w->lock);
	pvspin_kind_unlock(w->kind, w->lock);
	return NULL;
}

/* Every slot held by a live thread: a waiter that must queue (owner and
 * pending taken) gets no slot, takes the lock without a node, and it is
 * counted; while the lock stays taken it sleeps rather than spins. */
static void test_slotless_waiter_locks_without_node(void **state)
{
	(void)state;
	const pvspin_kind_t kinds[] = { PVSPIN_KIND_QSPINLOCK, PVSPIN_KIND_PVQSPINLOCK };
	pthread_t holders[4];
	pthread_barrier_init(&hold_start, NULL, 5);
	pthread_barrier_init(&hold_end, NULL, 5);
	for (int i = 0; i < 4; i++)
		pthread_create(&holders[i], NULL, slot_holder, NULL);
	pthread_barrier_wait(&hold_start);
	for (size_t k = 0; k < 2; k++) {
		pvspin_lock_t l = { .val = _Q_LOCKED_VAL | _Q_PENDING_VAL };
		struct queued_waiter w = { kinds[k], &l, 0 };
		struct pvspin_events before, after;
		pthread_t t;
		pvspin_events_read(&before);
		pthread_create(&t, NULL, slotless_waiter, &w);
		/* It counts lock_no_node before it spins; it never touches the tail. */
		do {
			assert_int_equal(__atomic_load_n(&l.val, __ATOMIC_RELAXED) & _Q_TAIL_MASK, 0);
			sched_yield();
			pvspin_events_read(&after);
		} while (after.count[PVSPIN_EV_LOCK_NO_NODE] == before.count[PVSPIN_EV_LOCK_NO_NODE]);
		/* Its wait is bounded: after one spin budget it sleeps instead
		 * of keeping a CPU from the holder (lock_no_node_sleep); 10 s
		 * is far beyond one budget even on a loaded machine. */
		for (int ms = 0; ms < 10000; ms++) {
			pvspin_events_read(&after);
			if (after.count[PVSPIN_EV_LOCK_NO_NODE_SLEEP] >
			    before.count[PVSPIN_EV_LOCK_NO_NODE_SLEEP] + 1)
				break;
			usleep(1000);
		}
		__atomic_store_n(&l.val, 0, __ATOMIC_RELEASE);
		pthread_join(t, NULL);
		assert_int_equal(w.slot, -1);
		assert_true(after.count[PVSPIN_EV_LOCK_NO_NODE] > before.count[PVSPIN_EV_LOCK_NO_NODE]);
		/* slept at least twice: the sleep ends and the wait goes on */
		assert_true(after.count[PVSPIN_EV_LOCK_NO_NODE_SLEEP] >
			    before.count[PVSPIN_EV_LOCK_NO_NODE_SLEEP] + 1);
	}
	pthread_barrier_wait(&hold_end);
	for (int i = 0; i < 4; i++)
		pthread_join(holders[i], NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest recycling[] = { cmocka_unit_test(test_slot_recycling) };
	const struct CMUnitTest exhaustion[] = {
		cmocka_unit_test(test_slotless_waiter_locks_without_node),
		cmocka_unit_test(test_slot_exhaustion),
	};
	if (argc > 1 && strcmp(argv[1], "--exhaustion") == 0)
		return cmocka_run_group_tests(exhaustion, NULL, NULL);
	return cmocka_run_group_tests(recycling, NULL, NULL);
}

/*
 * test_nesting.c - MCS node nesting (white-box, includes src/lock/qnode.h).
 *
 *  - A signal handler that interrupts a queued waiter and takes another
 *    contended lock queues on the thread's next node (tail index 1), and
 *    both acquisitions complete; the nesting count returns to 0.
 *  - Nested deeper than 4 nodes: the slow path takes the lock without a
 *    node (spinning on trylock) and counts lock_no_node.
 * For qspinlock and pvqspinlock.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pvspin.h"
#include "lock/qnode.h"
#include "test_util.h"

static pvspin_kind_t kind;
static pvspin_lock_t l1, l2;
static volatile int w_slot = -1, handler_done, w_done, release_h1, h1_holds;
static volatile int handler_tail_idx = -1;

static void wait_for(volatile int *flag)
{
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		sched_yield();
}

/* Spin (with yields) until the lock's tail names slot `slot`. */
static int wait_tail_slot(pvspin_lock_t *l, int slot)
{
	for (;;) {
		uint32_t v = __atomic_load_n(&l->val, __ATOMIC_ACQUIRE);
		if ((v & _Q_TAIL_MASK) &&
		    (int)(v >> _Q_TAIL_CPU_OFFSET) - 1 == slot)
			return (int)((v & _Q_TAIL_IDX_MASK) >> _Q_TAIL_IDX_OFFSET);
		sched_yield();
	}
}

static void on_sigusr1(int sig)
{
	(void)sig;
	pvspin_kind_lock(kind, &l2);
	pvspin_kind_unlock(kind, &l2);
	__atomic_store_n(&handler_done, 1, __ATOMIC_RELEASE);
}

static void *holder(void *arg)
{
	(void)arg;
	pvspin_kind_lock(kind, &l1);
	__atomic_store_n(&h1_holds, 1, __ATOMIC_RELEASE);
	wait_for(&release_h1);
	pvspin_kind_unlock(kind, &l1);
	return NULL;
}

static void *lock_unlock(void *arg)
{
	pvspin_lock_t *l = arg;
	pvspin_kind_lock(kind, l);
	pvspin_kind_unlock(kind, l);
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	__atomic_store_n(&w_slot, pvspin_plat_cpu(), __ATOMIC_RELEASE);
	pvspin_kind_lock(kind, &l1);
	pvspin_kind_unlock(kind, &l1);
	assert_int_equal(pvspin_qnodes[w_slot][0].count, 0);
	__atomic_store_n(&w_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void signal_nesting(pvspin_kind_t k)
{
	pthread_t h1, p1, w, p2;
	kind = k;
	memset((void *)&l1, 0, sizeof(l1));
	memset((void *)&l2, 0, sizeof(l2));
	w_slot = -1; handler_done = w_done = release_h1 = h1_holds = 0;
	signal(SIGUSR1, on_sigusr1);

	/* l1: held by h1, a first waiter p1 (pending or queue head), then w queued. */
	pthread_create(&h1, NULL, holder, NULL);
	wait_for(&h1_holds);
	pthread_create(&p1, NULL, lock_unlock, &l1);
	while (!pvspin_kind_is_contended(kind, &l1))
		sched_yield();
	pthread_create(&w, NULL, waiter, NULL);
	while (__atomic_load_n(&w_slot, __ATOMIC_ACQUIRE) < 0)
		sched_yield();
	assert_int_equal(wait_tail_slot(&l1, w_slot), 0);

	/* l2: held by us with a first waiter p2, so the handler must queue. */
	pvspin_kind_lock(kind, &l2);
	pthread_create(&p2, NULL, lock_unlock, &l2);
	while (!pvspin_kind_is_contended(kind, &l2))
		sched_yield();
	pthread_kill(w, SIGUSR1);
	/* The handler, on w's thread, queues on w's next node. */
	assert_int_equal(wait_tail_slot(&l2, w_slot), 1);
	pvspin_kind_unlock(kind, &l2);
	wait_for(&handler_done);
	assert_false(__atomic_load_n(&w_done, __ATOMIC_ACQUIRE)); /* w still waits for l1 */

	__atomic_store_n(&release_h1, 1, __ATOMIC_RELEASE);
	pthread_join(h1, NULL);
	pthread_join(p1, NULL);
	pthread_join(w, NULL);
	pthread_join(p2, NULL);
	assert_true(w_done);
	assert_false(pvspin_kind_is_locked(kind, &l1));
	assert_false(pvspin_kind_is_locked(kind, &l2));
	signal(SIGUSR1, SIG_DFL);
}

static void test_signal_nesting_qspinlock(void **s) { (void)s; signal_nesting(PVSPIN_KIND_QSPINLOCK); }
/* PV: a queue head that halts clears pending, and a newcomer then spins to
 * steal (hybrid trylock) rather than queue; keep heads spinning so the
 * handler's acquisition queues. */
static void test_signal_nesting_pvqspinlock(void **s)
{
	(void)s;
	uint32_t old = pvspin_tunable_get(PVSPIN_TUNE_SPIN_THRESHOLD);
	pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, 1u << 30);
	signal_nesting(PVSPIN_KIND_PVQSPINLOCK);
	pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, old);
}

static volatile int deep_done;
static void *deep_waiter(void *arg)
{
	int cpu = pvspin_plat_cpu();
	assert_true(cpu >= 0);
	pvspin_qnodes[cpu][0].count = PVSPIN_MAX_NODES; /* as if 4 levels deep */
	pvspin_kind_lock(kind, arg);
	assert_int_equal(pvspin_qnodes[cpu][0].count, PVSPIN_MAX_NODES);
	pvspin_kind_unlock(kind, arg);
	pvspin_qnodes[cpu][0].count = 0;
	__atomic_store_n(&deep_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void deeper_than_four(pvspin_kind_t k)
{
	pvspin_lock_t l = { .val = _Q_LOCKED_VAL | _Q_PENDING_VAL }; /* held, pending taken */
	struct pvspin_events before, after;
	pthread_t t;
	kind = k;
	deep_done = 0;
	pvspin_events_read(&before);
	pthread_create(&t, NULL, deep_waiter, &l);
	/* It cannot get a node: it must not touch the tail. */
	/* It counts lock_no_node before it spins; it never touches the tail. */
	do {
		assert_int_equal(__atomic_load_n(&l.val, __ATOMIC_RELAXED) & _Q_TAIL_MASK, 0);
		sched_yield();
		pvspin_events_read(&after);
	} while (after.count[PVSPIN_EV_LOCK_NO_NODE] == before.count[PVSPIN_EV_LOCK_NO_NODE]);
	assert_false(__atomic_load_n(&deep_done, __ATOMIC_ACQUIRE));
	__atomic_store_n(&l.val, 0, __ATOMIC_RELEASE);   /* owner and pending leave */
	pthread_join(t, NULL);
	pvspin_events_read(&after);
	assert_true(__atomic_load_n(&deep_done, __ATOMIC_ACQUIRE));
	assert_true(after.count[PVSPIN_EV_LOCK_NO_NODE] > before.count[PVSPIN_EV_LOCK_NO_NODE]);
}

static void test_deeper_than_four_qspinlock(void **s) { (void)s; deeper_than_four(PVSPIN_KIND_QSPINLOCK); }
static void test_deeper_than_four_pvqspinlock(void **s) { (void)s; deeper_than_four(PVSPIN_KIND_PVQSPINLOCK); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signal_nesting_qspinlock),
		cmocka_unit_test(test_signal_nesting_pvqspinlock),
		cmocka_unit_test(test_deeper_than_four_qspinlock),
		cmocka_unit_test(test_deeper_than_four_pvqspinlock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

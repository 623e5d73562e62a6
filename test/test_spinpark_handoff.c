/*
 * test_spinpark_handoff.c - a spinpark hand-off that its owner never
 * takes (docs/spinpark.md, "Starvation"): the locked byte 2 with
 * STARVING set is reserved for the starving owner, which spins for it.
 * An owner that cannot run (preempted, suspended in a signal handler that
 * waits for the same lock, or a thread of the parent in a fork child's
 * copy of the word) left every other waiter parked for ever: a new user's
 * fork children hung with the word 0x00441102 (parked 4, budget 4,
 * STARVING, one spinner, locked 2), and a signal handler that took the
 * lock while its thread waited as the starving owner deadlocked.  Since
 * 2026-12-03 a parked waiter that finds the same handed-off word after a
 * sleep of 1 ms takes it (sp_revoke_handoff), counted as handoff_revoke.
 *
 * On the code before, lock() of that word never returns: the test then
 * fails after 5 s instead of hanging.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "pvspin.h"
#include "pvspin/platform.h"
#include "pvspin/spinpark.h"
#include "pvspin/stats.h"

/* The word a fork child was left with: an owner and three parked waiters
 * that exist only in the parent, the lock handed to that owner. */
#define STALE_HANDOFF 0x00441102u

static pvspin_lock_t lock;
static int done;
static uint32_t word_held;

static void *taker(void *arg)
{
	(void)arg;
	pvspin_spinpark_lock(&lock);
	word_held = pvspin_plat_load32(&lock.val, PVSPIN_RELAXED);
	pvspin_spinpark_unlock(&lock);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_stale_handoff_is_taken(void **state)
{
	(void)state;
	__atomic_store_n(&lock.val, STALE_HANDOFF, __ATOMIC_RELEASE);
	struct pvspin_events before, after;
	pvspin_events_read(&before);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, taker, NULL), 0);
	uint64_t start = pvspin_plat_now_ns();
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE) &&
	       pvspin_plat_now_ns() - start < 5000000000ull) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	uint64_t waited_us = (pvspin_plat_now_ns() - start) / 1000;
	uint32_t v = pvspin_plat_load32(&lock.val, PVSPIN_RELAXED);
	print_message("lock() of %#x returned: %s after %llu us; word while held %#x, after %#x\n",
		      STALE_HANDOFF, done ? "yes" : "NO", (unsigned long long)waited_us, word_held,
		      v);
	assert_true(__atomic_load_n(&done, __ATOMIC_ACQUIRE));   /* else stuck for ever */
	assert_int_equal(pthread_join(t, NULL), 0);
	pvspin_events_read(&after);
	assert_int_equal(after.count[PVSPIN_EV_HANDOFF_REVOKE] -
			 before.count[PVSPIN_EV_HANDOFF_REVOKE], 1);
	/* taken as the owner would: locked 1, STARVING cleared, the parked
	 * count as it was (our own count came and went) */
	assert_int_equal(word_held & _SP_LOCKED_MASK, _SP_LOCKED);
	assert_int_equal(word_held & _SP_STARVING, 0);
	assert_int_equal(word_held & _SP_PARKED_MASK, STALE_HANDOFF & _SP_PARKED_MASK);
	/* released: free, no STARVING; the gone owner's spinner and the
	 * parkers' counts stay (docs/spinpark.md) */
	assert_int_equal(v & (_SP_LOCKED_MASK | _SP_STARVING), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stale_handoff_is_taken),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

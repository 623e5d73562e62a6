/*
 * test_spinpark_starve_gap.c - at most one spinpark waiter per lock
 * claims STARVING per millisecond (SP_STARVE_GAP_US, src/lock/spinpark.c),
 * and the claims go to the oldest starving waiter
 * (test_oldest_claims_first, below).
 *
 * Without the limit, with many more threads than CPUs, every waiter has
 * waited past the 1 ms starvation bound and claims in turn, each claim a
 * spin of up to 2048 PAUSE loops that mostly got no hand-off while the
 * holder was off-CPU (`pvspin bench`, 64 threads: 2 600-4 200 claims a
 * second, 116-932 hand-offs; torture at 256 threads: 145 k against 243-288 k
 * acquisitions a second with the limit).
 *
 * The test holds the lock for HOLD_MS while WAITERS threads wait for it:
 * all of them starve after 1 ms, wake by their timeouts (1, 2, 4 ... 16
 * ms) and claim whenever STARVING is clear.  It counts the claims
 * (PVSPIN_EV_STARVING) during the hold: at most one per millisecond of
 * the counting window, plus one for the clock's edges (16-18 in
 * 2026-12-06's runs; 84-88 since the oldest waiter comes back every
 * millisecond to claim, 2026-12-07: close to the bound, which the claim
 * now keeps exactly, by reserving each claim's stamp with a
 * compare-and-swap, sp_stamp_starve_reserve: before, a waiter preempted
 * between its check of the stamp and its cmpxchg of the word could claim
 * a second time within the millisecond).  The window is measured: it is
 * HOLD_MS and the time to create the waiters, 38-47 ms under
 * ThreadSanitizer (windows of 141-168 ms, 94-114 claims: the bound
 * HOLD_MS + 1 failed there).  On the code before the limit: 185-230 here,
 * 6-7 per waiter.  At least 5, so that the test cannot pass with nobody
 * starving.  The upper bound holds on any machine
 * (a loaded one wakes its waiters later, not more often).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "pvspin.h"
#include "pvspin/spinpark.h"
#include "pvspin/stats.h"
#include "test_util.h"

#define WAITERS 32
#define HOLD_MS 100

static pvspin_lock_t lock = PVSPIN_LOCK_INIT;

static void *waiter(void *arg)
{
	(void)arg;
	pvspin_spinpark_lock(&lock);
	pvspin_spinpark_unlock(&lock);
	return NULL;
}

static void test_one_claim_per_ms(void **state)
{
	(void)state;
	pthread_t t[WAITERS];
	pvspin_spinpark_lock(&lock);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t before = event_count(PVSPIN_EV_STARVING);
	for (int i = 0; i < WAITERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, waiter, NULL), 0);
	struct timespec hold = { 0, HOLD_MS * 1000000L };
	nanosleep(&hold, NULL);
	uint64_t claims = event_count(PVSPIN_EV_STARVING) - before;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* the window in whole milliseconds, rounded up */
	uint64_t window_ms = ((uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
			      (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec + 999999u) / 1000000u;
	pvspin_spinpark_unlock(&lock);
	for (int i = 0; i < WAITERS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	print_message("STARVING claims by %d waiters in %llu ms (a hold of %d ms): %llu\n",
		      WAITERS, (unsigned long long)window_ms, HOLD_MS, (unsigned long long)claims);
	assert_true(claims >= 5);
	assert_true(claims <= window_ms + 1);
	/* all gone: nothing held, counted or claimed is left in the word
	 * (the budget and the mode controller's flags may stay) */
	uint32_t v = __atomic_load_n(&lock.val, __ATOMIC_ACQUIRE);
	assert_int_equal(v & (_SP_LOCKED_MASK | _SP_SPINNERS_MASK | _SP_STARVING | _SP_WOKEN |
			      _SP_PARKED_MASK), 0);
}

/*
 * The oldest starving waiter claims first (sp_stamp_oldest_note,
 * src/lock/spinpark_stamp.c).  Per round: the lock is held; waiter 0
 * starts, and OLDEST_LEAD_MS later YOUNGER waiters; OLDEST_HOLD_MS after
 * that, once STARVING is set, the holder unlocks, which hands the lock to
 * the claim's owner, so the first waiter to take it is the one that
 * claimed.  Waiter 0 must be that one in at least OLDEST_FIRST of
 * OLDEST_ROUNDS rounds (the holder's unlock may come just after a claim
 * ran out and be taken by anyone; the record may go stale on a loaded
 * machine: with `stress-ng --cpu 2` beside it, 2 of 30 rounds missed).
 * Before the order, any woken starving waiter claimed when the
 * millisecond allowed it, and waiter 0, whose timeouts had doubled
 * furthest, slept most: it was first in 2 of 12 rounds (4 runs of 3
 * rounds, all failing).  With 8 of 12 asked, the old code passes with a
 * chance of about 0.01 %, and this code, missing 1 round in 15 under
 * load, fails with one of about 0.07 % (with 5 of 7, until 2026-12-07:
 * 0.2 % and 1 %, helper-55's audit).
 */
#define OLDEST_ROUNDS 12
#define OLDEST_FIRST 8
#define YOUNGER 16
#define OLDEST_LEAD_MS 20
#define OLDEST_HOLD_MS 30

static int order[YOUNGER + 1];
static int order_next;

static void *ordered_waiter(void *arg)
{
	pvspin_spinpark_lock(&lock);
	order[__atomic_fetch_add(&order_next, 1, __ATOMIC_RELAXED)] = (int)(intptr_t)arg;
	pvspin_spinpark_unlock(&lock);
	return NULL;
}

static void sleep_ms(long ms)
{
	struct timespec d = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&d, NULL);
}

static void test_oldest_claims_first(void **state)
{
	(void)state;
	int first0 = 0;
	for (int r = 0; r < OLDEST_ROUNDS; r++) {
		pthread_t t[YOUNGER + 1];
		order_next = 0;
		pvspin_spinpark_lock(&lock);
		for (int i = 0; i <= YOUNGER; i++) {
			assert_int_equal(pthread_create(&t[i], NULL, ordered_waiter,
							(void *)(intptr_t)i), 0);
			if (i == 0)
				sleep_ms(OLDEST_LEAD_MS);
		}
		sleep_ms(OLDEST_HOLD_MS);
		/* unlock while a claim is made (at most 1 s of polls) */
		for (int i = 0; i < 100000; i++) {
			if (__atomic_load_n(&lock.val, __ATOMIC_RELAXED) & _SP_STARVING)
				break;
			struct timespec d = { 0, 10000 };
			nanosleep(&d, NULL);
		}
		pvspin_spinpark_unlock(&lock);
		for (int i = 0; i <= YOUNGER; i++)
			assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(order_next, YOUNGER + 1);
		print_message("round %d: first to take the lock: waiter %d\n", r, order[0]);
		first0 += order[0] == 0;
	}
	assert_true(first0 >= OLDEST_FIRST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_claim_per_ms),
		cmocka_unit_test(test_oldest_claims_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_spinpark_uncounted.c - a spinpark waiter that the full `parked`
 * count (2047, include/pvspin/spinpark.h) leaves uncounted is never woken
 * and polls: its polls back off (1 ms doubling to 64 ms), so that
 * thousands of such waiters do not fill the CPUs with wake-ups.  With the
 * old fixed 1 ms poll, 3 000 threads on one lock took 20-36 s against
 * 0.3-0.8 s for 2 200 (a new user's test; 2.7 s with the back-off).
 *
 * The test fills the count by hand on a held lock, runs one waiter for
 * 300 ms and counts its sleeps (PVSPIN_EV_PARK): about 300 with a 1 ms
 * poll, about 10 with the back-off (1, 2, 4 ... 128 ms: 255 ms in 8).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pvspin.h"
#include "pvspin/spinpark.h"
#include "pvspin/stats.h"
#include "test_util.h"

static pvspin_lock_t lock = PVSPIN_LOCK_INIT;
static int got;

static void *waiter(void *arg)
{
	(void)arg;
	pvspin_spinpark_lock(&lock);
	__atomic_store_n(&got, 1, __ATOMIC_RELEASE);
	/* release by hand: the word's parked count is the test's */
	pvspin_plat_store8(&lock.locked, 0, PVSPIN_RELEASE);
	return NULL;
}

static void test_uncounted_waiter_backs_off(void **state)
{
	(void)state;
	/* held, parked count full (nobody really parked) */
	const uint32_t full = ((_SP_PARKED_MASK >> _SP_PARKED_OFFSET) >> 1) << _SP_PARKED_OFFSET;
	__atomic_store_n(&lock.val, _SP_LOCKED | full, __ATOMIC_RELEASE);

	pthread_t t;
	uint64_t parks;
	assert_true(events_while_thread_runs(waiter, &t, 300, PVSPIN_EV_PARK, &parks));
	assert_false(__atomic_load_n(&got, __ATOMIC_ACQUIRE));
	/* the waiter is uncounted: the word's count is still exactly full */
	assert_int_equal(__atomic_load_n(&lock.val, __ATOMIC_ACQUIRE) & _SP_PARKED_MASK, full);
	print_message("uncounted waiter: %llu sleeps in 300 ms\n", (unsigned long long)parks);
	assert_true(parks >= 1);
	assert_true(parks <= 12);

	/* free the lock (keep the count): the waiter finds it at its next poll */
	__atomic_fetch_and(&lock.val, ~_SP_LOCKED_MASK, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(__atomic_load_n(&got, __ATOMIC_ACQUIRE));
	__atomic_store_n(&lock.val, 0, __ATOMIC_RELEASE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uncounted_waiter_backs_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

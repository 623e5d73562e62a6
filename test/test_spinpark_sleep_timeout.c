/*
 * test_spinpark_sleep_timeout.c - a spinpark waiter counted as parked
 * sleeps with a timeout that doubles from 1 ms up to a cap: 16 ms while
 * few sleep, 256 us per counted sleeper where that is more
 * (SP_PARK_TIMEOUT_PER_PARKED_NS, src/lock/spinpark.c), so that a
 * thousand sleepers do not time out 60 000 times a second between them
 * (`pvspin torture --threads 1024`: 6-9 k acquisitions a second with the
 * fixed 16 ms, 150-180 k with the grown cap).
 *
 * The test holds the lock by hand, sets the word's parked count to a
 * crowd of sleepers that are not there (or none), runs one real waiter
 * for 600 ms and counts its sleeps (PVSPIN_EV_PARK).  With 1 000 counted
 * the cap is 256 ms: 1, 2, 4 ... 128, 256 ms, about 10 sleeps (40 with a
 * 16 ms cap); alone it stays 16 ms: about 40.  The upper bound holds on
 * any machine (a loaded one sleeps longer, not more often); the lower one
 * is loose (a third of the expected count).
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

static void *waiter(void *arg)
{
	(void)arg;
	pvspin_spinpark_lock(&lock);
	/* release by hand: the crowd in the word's count is the test's */
	pvspin_plat_store8(&lock.locked, 0, PVSPIN_RELEASE);
	return NULL;
}

/* Sleeps of one real waiter in 600 ms on a held lock whose word counts
 * `crowd` parked waiters besides it; then the lock is released by an
 * unlock (which wakes it) and the waiter joined. */
static uint64_t sleeps_in_600ms(uint32_t crowd)
{
	__atomic_store_n(&lock.val, _SP_LOCKED | crowd << _SP_PARKED_OFFSET, __ATOMIC_RELEASE);
	pthread_t t;
	uint64_t parks;
	assert_true(events_while_thread_runs(waiter, &t, 600, PVSPIN_EV_PARK, &parks));
	/* the waiter counted itself in the word, and sleeps */
	uint32_t v = __atomic_load_n(&lock.val, __ATOMIC_ACQUIRE);
	assert_int_equal(v >> _SP_PARKED_OFFSET, crowd + 1);
	pvspin_spinpark_unlock(&lock);   /* wakes it (WOKEN) */
	assert_int_equal(pthread_join(t, NULL), 0);
	/* the waiter took its count out with the lock: the crowd is left */
	assert_int_equal(__atomic_load_n(&lock.val, __ATOMIC_ACQUIRE) >> _SP_PARKED_OFFSET, crowd);
	__atomic_store_n(&lock.val, 0, __ATOMIC_RELEASE);
	return parks;
}

static void test_crowd_sleeps_longer(void **state)
{
	(void)state;
	uint64_t crowd = sleeps_in_600ms(1000);
	uint64_t alone = sleeps_in_600ms(0);
	print_message("sleeps in 600 ms: %llu with 1000 counted, %llu alone\n",
		      (unsigned long long)crowd, (unsigned long long)alone);
	assert_true(crowd >= 3);
	assert_true(crowd <= 20);
	assert_true(alone >= 13);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crowd_sleeps_longer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

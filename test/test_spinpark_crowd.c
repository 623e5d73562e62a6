/*
 * test_spinpark_crowd.c - what a crowd of parked waiters changes for one
 * spinpark waiter (src/lock/spinpark.c).  Both tests hold the lock by
 * hand, write into the word a crowd of parked waiters that are not there
 * (or none), run one real waiter for a while and count its sleeps
 * (PVSPIN_EV_PARK) and the park sequence's moves.
 *
 * 1. The sleep timeout's cap grows with the counted sleepers: 16 ms while
 *    few sleep, 256 us per counted sleeper where that is more
 *    (SP_PARK_TIMEOUT_PER_PARKED_NS), so that a thousand sleepers do not
 *    time out 60 000 times a second between them (`pvspin torture
 *    --threads 1024`: 6-9 k acquisitions a second with the fixed 16 ms,
 *    150-180 k with the grown cap).  In 600 ms with 1 000 counted the cap
 *    is 256 ms: 1, 2, 4 ... 128, 256 ms, about 10 sleeps (40 with a 16 ms
 *    cap); alone it stays 16 ms: about 40.  The upper bound holds on any
 *    machine (a loaded one sleeps longer, not more often); the lower one
 *    is loose (a third of the expected count).
 *
 * 2. A waiter whose last RMW on the word replaced a word that counted
 *    SP_CROWD (1 since 2026-12-07; 8 before) or more parked sleeps
 *    without the asymmetric fence: no add to the park sequence and no
 *    membarrier (the file comment's "the crowd").  Alone, its first
 *    sleep adds to the sequence (its count replaced a word with nobody
 *    parked); its re-sleeps in the same call find itself counted and do
 *    not (each of the 16 moved it while SP_CROWD was 8).  The first
 *    fence covers them: an unlock that read the word before the count
 *    is split by it, one that read it after releases by an RMW.  An
 *    unlock that reads such a crowd releases by an
 *    RMW, so nothing needs the fence; the Promela model checks the pairing
 *    (test/model/spinpark.pml, CROWD, and mutant (w), where the unlock
 *    keeps the plain store: a lost wake-up).  `pvspin torture --lock
 *    spinpark`, 3 s: 256 threads 363-365 k acquisitions a second against
 *    278-287 k with a fence per sleep, 1 024 threads 266-281 k against
 *    214-235 k (2026-12-06).  In 200 ms (sleeps of 1, 2, 4 ... ms: about
 *    12) among 100 counted the sequence does not move (12 moves on the
 *    code before).  Skipped where releases are RMWs anyway (no membarrier
 *    in this process: nobody fences) or where no spinner may spin (one
 *    CPU: a waiter that times out re-sleeps without a new RMW, and then
 *    fences).
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

/* One real waiter waits `ms` on a held lock whose word counts `crowd`
 * parked waiters besides it (none of them there) and has `flags` set;
 * then an unlock wakes it (with STARVING: hands the lock off to an owner
 * that is not there, which the waiter revokes after a 1 ms sleep) and it
 * is joined.
 * Its sleeps into *parks; returns the park sequence's moves
 * (PVSPIN_PARK_SEQ_ONE each) meanwhile. */
static uint32_t wait_among(uint32_t crowd, uint32_t flags, long ms, uint64_t *parks)
{
	__atomic_store_n(&lock.val, _SP_LOCKED | crowd << _SP_PARKED_OFFSET | flags,
			 __ATOMIC_RELEASE);
	uint32_t seq0 = __atomic_load_n(pvspin_plat_park_seq(), __ATOMIC_ACQUIRE);
	pthread_t t;
	assert_true(events_while_thread_runs(waiter, &t, ms, PVSPIN_EV_PARK, parks));
	uint32_t seq1 = __atomic_load_n(pvspin_plat_park_seq(), __ATOMIC_ACQUIRE);
	/* the waiter counted itself in the word, and sleeps */
	assert_int_equal(__atomic_load_n(&lock.val, __ATOMIC_ACQUIRE) >> _SP_PARKED_OFFSET,
			 crowd + 1);
	pvspin_spinpark_unlock(&lock);   /* wakes it (WOKEN), or hands off */
	assert_int_equal(pthread_join(t, NULL), 0);
	/* the waiter took its count out with the lock: the crowd is left */
	assert_int_equal(__atomic_load_n(&lock.val, __ATOMIC_ACQUIRE) >> _SP_PARKED_OFFSET, crowd);
	__atomic_store_n(&lock.val, 0, __ATOMIC_RELEASE);
	return (seq1 - seq0) / PVSPIN_PARK_SEQ_ONE;
}

static void test_crowd_sleeps_longer(void **state)
{
	(void)state;
	uint64_t crowd, alone;
	wait_among(1000, 0, 600, &crowd);
	wait_among(0, 0, 600, &alone);
	print_message("sleeps in 600 ms: %llu with 1000 counted, %llu alone\n",
		      (unsigned long long)crowd, (unsigned long long)alone);
	assert_true(crowd >= 3);
	assert_true(crowd <= 20);
	assert_true(alone >= 13);
}

static void test_crowd_sleeps_unfenced(void **state)
{
	(void)state;
	if (__atomic_load_n(pvspin_plat_park_seq(), __ATOMIC_ACQUIRE) &
	    PVSPIN_PARK_SEQ_RMW_RELEASE)
		skip();   /* RMW releases: no sleeper fences */
	if (pvspin_plat_spin_cpus() < 2)
		skip();   /* no spin: re-sleeps without an RMW fence */
	uint64_t parks_crowd, parks_alone;
	uint64_t parks_full;
	uint32_t crowd = wait_among(100, 0, 200, &parks_crowd);
	/* another's hand-off pending (STARVING): no spin, no claim, no
	 * give-up; after each timeout the waiter is counted and has nothing
	 * to change, and writes the word back unchanged to meet the crowd
	 * (each such re-sleep fenced before: 11 of 12 moved the sequence) */
	uint32_t full = wait_among(100, _SP_STARVING, 200, &parks_full);
	uint32_t alone = wait_among(0, 0, 200, &parks_alone);
	print_message("park sequence moves: %u in %llu sleeps among 100 counted, %u in %llu "
		      "with a hand-off pending, %u in %llu sleeps alone\n", crowd,
		      (unsigned long long)parks_crowd, full, (unsigned long long)parks_full,
		      alone, (unsigned long long)parks_alone);
	assert_true(parks_crowd >= 3 && parks_full >= 3 && parks_alone >= 3);
	assert_int_equal(crowd, 0);
	assert_int_equal(full, 0);
	/* alone, the first sleep fences and the re-sleeps do not (nothing
	 * else sleeps in this process, and the window spans the call) */
	assert_int_equal(alone, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crowd_sleeps_longer),
		cmocka_unit_test(test_crowd_sleeps_unfenced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

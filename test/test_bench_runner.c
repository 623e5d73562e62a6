/*
 * test_bench_runner.c - one cell of `pvspin bench` with real threads: a
 * correct lock passes the mutual-exclusion check and its counts add up;
 * a deliberately broken lock (no exclusion at all, after locktorture's
 * lock_busted) is caught by the plain counter.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/peers.h"
#include "bench/runner.h"
#include "bench/worker_loop.h"
#include "bench/workload.h"

static int mutex_init(void *mem) { return pthread_mutex_init(mem, NULL); }
static void mutex_destroy(void *mem) { pthread_mutex_destroy(mem); }
static inline void mutex_lock_op(void *l, void *c) { (void)c; pthread_mutex_lock(l); }
static inline void mutex_unlock_op(void *l, void *c) { (void)c; pthread_mutex_unlock(l); }
static void mutex_run(struct bench_worker *w) { bench_worker_loop(w, mutex_lock_op, mutex_unlock_op); }

static int busted_init(void *mem) { (void)mem; return 0; }
static void busted_destroy(void *mem) { (void)mem; }
static inline void busted_op(void *l, void *c) { (void)l; (void)c; }
static void busted_run(struct bench_worker *w) { bench_worker_loop(w, busted_op, busted_op); }

static const struct bench_lock mutex_lock = {
	"test_mutex", "pthread_mutex", PVSPIN_KIND_NONE, mutex_init, mutex_destroy, mutex_run, NULL,
};
static const struct bench_lock busted_lock __attribute__((unused)) = {
	"busted", "no mutual exclusion at all", PVSPIN_KIND_NONE, busted_init, busted_destroy,
	busted_run, NULL,
};

static struct bench_cell_spec spec_for(const struct bench_lock *l, unsigned threads)
{
	struct bench_cell_spec s = {
		.lock = l, .threads = threads, .cs_ns = 200, .ncs_ns = 0,
		.cs_loops = 200, .ncs_loops = 0, .cs_lines = 2, .duration_ms = 20,
		.sample_every = 4, .samples_per_thread = 256, .seed = 7,
	};
	return s;
}

static void test_correct_lock_passes(void **state)
{
	(void)state;
	struct bench_cell_spec s = spec_for(&mutex_lock, 3);
	struct bench_cell_result r;
	assert_int_equal(bench_run_cell(&s, &r), 0);
	assert_true(r.exclusion_ok);
	assert_true(r.acquisitions > 0);
	assert_true(r.counter == r.acquisitions);
	assert_true(r.acq_min <= r.acq_max);
	assert_true(r.ops_per_s > 0);
	assert_true(r.jain > 0 && r.jain <= 1.0 + 1e-12);
	assert_true(r.lat.seen > 0 && r.lat.samples > 0);
	assert_true(r.lat.p50 <= r.lat.p99 && r.lat.p99 <= r.lat.p999 && r.lat.p999 <= r.lat.max);
}

/* A cell that ends before its threads get going (here: 0 ms; on a loaded
 * machine a woken thread can start after a 20 ms cell) still has every
 * thread complete one acquisition, so counts and fairness are defined. */
static void test_cell_shorter_than_thread_start(void **state)
{
	(void)state;
	struct bench_cell_spec s = spec_for(&mutex_lock, 3);
	struct bench_cell_result r;
	s.duration_ms = 0;
	assert_int_equal(bench_run_cell(&s, &r), 0);
	assert_true(r.exclusion_ok);
	assert_true(r.acq_min >= 1);
	assert_true(r.acquisitions >= 3);
	assert_true(r.counter == r.acquisitions);
}

static void test_broken_lock_is_caught(void **state)
{
	(void)state;
#if defined(__SANITIZE_THREAD__)
	skip();   /* the race is the point; ThreadSanitizer would report it */
#else
	/* four threads increment the plain counter with no exclusion: on two
	 * CPUs updates are lost within microseconds; try up to 200 cells of
	 * 50 ms in case the threads did not overlap in one (40 were not always
	 * enough while a parallel ctest ran torture tests on both CPUs; the
	 * first cell normally catches it) */
	struct bench_cell_spec s = spec_for(&busted_lock, 4);
	struct bench_cell_result r;
	int caught = 0;
	s.duration_ms = 50;  /* a loaded machine may run the threads apart: more, longer tries */
	for (int i = 0; i < 200 && !caught; i++) {
		assert_int_equal(bench_run_cell(&s, &r), 0);
		caught = !r.exclusion_ok;
	}
	assert_true(caught);
	assert_true(r.counter < r.acquisitions);
#endif
}

/* Every round is a permutation of the locks, and over nlocks rounds each
 * lock runs once at each place (bench_round_lock). */
static void test_round_order_rotates(void **state)
{
	(void)state;
	for (size_t n = 1; n <= 12; n++) {
		unsigned places[12][12] = { { 0 } };
		for (unsigned k = 0; k < n + 3; k++) {
			bool seen[12] = { false };
			for (size_t j = 0; j < n; j++) {
				size_t l = bench_round_lock(k, j, n);
				assert_true(l < n);
				assert_false(seen[l]);
				seen[l] = true;
				if (k < n)
					places[l][j]++;
			}
		}
		for (size_t l = 0; l < n; l++)
			for (size_t j = 0; j < n; j++)
				assert_int_equal(places[l][j], 1);
	}
	assert_int_equal(bench_round_lock(0, 0, 11), 0);   /* round 0: the list's order */
	assert_int_equal(bench_round_lock(1, 0, 11), 1);
	assert_int_equal(bench_round_lock(12, 10, 11), 0);
}

/* --control's pair (bench_round_lock_pair): every round a permutation,
 * the pair's order alternating from round to round (the default kind at
 * 4 of 12 locks, its control last: with the rotation alone the kind ran
 * first in all of rounds 0-4), and nothing changed for an index past the
 * list (no pair). */
static void test_round_order_control_pair(void **state)
{
	(void)state;
	const size_t n = 12, a = 4, b = 11;
	unsigned a_first = 0;
	for (unsigned k = 0; k < 5; k++) {
		bool seen[12] = { false };
		size_t pa = n, pb = n;
		for (size_t j = 0; j < n; j++) {
			size_t l = bench_round_lock_pair(k, j, n, a, b);
			assert_true(l < n);
			assert_false(seen[l]);
			seen[l] = true;
			pa = l == a ? j : pa;
			pb = l == b ? j : pb;
			assert_int_equal(bench_round_lock_pair(k, j, n, n, n), bench_round_lock(k, j, n));
		}
		assert_true(pa < n && pb < n);
		a_first += pa < pb;
		assert_int_equal(pa < pb, k % 2 == 0);
	}
	assert_int_equal(a_first, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_order_rotates),
		cmocka_unit_test(test_round_order_control_pair),
		cmocka_unit_test(test_correct_lock_passes),
		cmocka_unit_test(test_cell_shorter_than_thread_start),
		cmocka_unit_test(test_broken_lock_is_caught),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

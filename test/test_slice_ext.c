/*
 * test_slice_ext.c - spinpark's use of the rseq time-slice extension
 * (Linux 7.0; src/platform/native_slice_ext.c, docs/spinpark.md): a
 * thread that got a lock after waiting requests the extension while it
 * holds it and marks the word EXTENDED, its unlock withdraws the request
 * and clears the bit (the unlock of a lock nested inside does not
 * withdraw it), a granted extension is given back (rseq_slice_yield,
 * counted as slice_ext_yield), and no request is set while a grant is
 * active.  The inline fast path requests nothing.
 *
 * On a kernel that does not offer the extension (this project's machine
 * runs 6.18) the first test checks the clean fall-back: the holder tried
 * once and has no slice_ctrl, the word never shows EXTENDED (so every
 * unlock stays on the inline path), and the lock works.  Where the kernel
 * offers it, the same test checks the request in the real rseq area.
 * The other tests give the thread a stand-in slice_ctrl
 * (pvspin_slice_ext_attach_for_test) so the protocol is checked on any
 * kernel; the yield system call is then ENOSYS before 7.0, harmless.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "test_util.h"
#include "pvspin.h"
#include "pvspin/policy.h"
#include "pvspin/spinpark.h"
#include "pvspin/stats.h"
#include "platform/native_slice_ext.h"

static pvspin_lock_t lock = PVSPIN_LOCK_INIT;
static pvspin_lock_t inner = PVSPIN_LOCK_INIT;

/* What the waiter saw while it held the lock, and after its unlock. */
struct seen {
	uint8_t *fake;         /* stand-in slice_ctrl, or NULL: the real one */
	bool grant;            /* play the kernel: grant while held */
	bool nested;           /* take and drop `inner` (free) while held */
	uint8_t request_inner; /* request byte after the inner unlock */
	bool tried;            /* enabling was attempted */
	bool has_ctrl;         /* a slice_ctrl is in use */
	uint8_t request_held;  /* request byte while holding */
	bool extended_held;    /* the word showed EXTENDED while holding */
	uint8_t request_after; /* request byte after the unlock */
	uint64_t yields;       /* slice_ext_yield events of this thread's unlock */
};


static void *waiter(void *arg)
{
	struct seen *s = arg;
	if (s->fake)
		pvspin_slice_ext_attach_for_test(s->fake);
	pvspin_spinpark_lock(&lock);      /* held by the main thread: slow path */
	uint8_t *c = pvspin_slice_ext_ctrl(&s->tried);
	s->has_ctrl = c != NULL;
	s->extended_held = pvspin_plat_load32(&lock.val, PVSPIN_RELAXED) & _SP_EXTENDED;
	if (c) {
		s->request_held = __atomic_load_n(&c[0], __ATOMIC_RELAXED);
		if (s->grant) {
			/* the kernel's side of a grant: request cleared, granted set */
			__atomic_store_n(&c[0], 0, __ATOMIC_RELAXED);
			__atomic_store_n(&c[1], 1, __ATOMIC_RELAXED);
		}
	}
	if (s->nested) {
		pvspin_spinpark_lock(&inner);     /* free: the fast path */
		pvspin_spinpark_unlock(&inner);   /* not EXTENDED: the inline unlock */
		if (c)
			s->request_inner = __atomic_load_n(&c[0], __ATOMIC_RELAXED);
	}
	uint64_t before = event_count(PVSPIN_EV_SLICE_EXT_YIELD);
	pvspin_spinpark_unlock(&lock);
	s->yields = event_count(PVSPIN_EV_SLICE_EXT_YIELD) - before;
	if (c)
		s->request_after = __atomic_load_n(&c[0], __ATOMIC_RELAXED);
	return NULL;
}

/* The main thread holds the lock, a waiter queues behind it (spins, then
 * parks), and gets it when the main thread lets go.  The waiter's unlock
 * leaves the word free and without EXTENDED. */
static void run_contended(struct seen *s)
{
	__atomic_store_n(&lock.val, _SP_LOCKED, __ATOMIC_RELEASE);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, waiter, s), 0);
	/* until the waiter has written the word (it spins registered, or
	 * parks: the slow path), then 20 ms more; on a loaded machine a
	 * fixed 20 ms let the waiter start only after the unlock, so that it
	 * took the lock by the fast path and never tried (a loaded `make
	 * check`, 2026-12-06): at most 10 s */
	struct timespec ms1 = { 0, 1000 * 1000 }, ts = { 0, 20 * 1000 * 1000 };
	for (int i = 0; i < 10000 &&
	     __atomic_load_n(&lock.val, __ATOMIC_ACQUIRE) == _SP_LOCKED; i++)
		nanosleep(&ms1, NULL);
	nanosleep(&ts, NULL);
	pvspin_spinpark_unlock(&lock);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_false(pvspin_spinpark_is_locked(&lock));
	assert_int_equal(__atomic_load_n(&lock.val, __ATOMIC_ACQUIRE) & _SP_EXTENDED, 0);
	__atomic_store_n(&lock.val, 0, __ATOMIC_RELEASE);
}

static void test_this_kernel(void **state)
{
	(void)state;
	struct seen s = { .fake = NULL };
	run_contended(&s);
	bool offered = pvspin_env_rseq_slice_ext() > 0;
	print_message("this kernel %s the extension; the holder tried %d, slice_ctrl %s\n",
		      offered ? "offers" : "does not offer", s.tried,
		      s.has_ctrl ? "in use" : "none");
	assert_true(s.tried);
	if (!s.has_ctrl) {
		/* the fall-back: nothing requested, nothing given back,
		 * the word not marked */
		assert_false(offered);
		assert_false(s.extended_held);
		assert_int_equal(s.yields, 0);
	} else {
		assert_true(s.extended_held);
		assert_int_equal(s.request_held, 1);
		assert_int_equal(s.request_after, 0);
	}
}

static void test_request_withdrawn(void **state)
{
	(void)state;
	uint8_t ctrl[4] = { 0 };
	struct seen s = { .fake = ctrl };
	run_contended(&s);
	assert_true(s.has_ctrl);
	assert_true(s.extended_held);
	assert_int_equal(s.request_held, 1);
	assert_int_equal(s.request_after, 0);
	assert_int_equal(s.yields, 0);   /* nothing granted: nothing to give back */
}

static void test_grant_given_back(void **state)
{
	(void)state;
	uint8_t ctrl[4] = { 0 };
	struct seen s = { .fake = ctrl, .grant = true };
	run_contended(&s);
	assert_int_equal(s.yields, 1);
	assert_int_equal(s.request_after, 0);
}

static void test_nested_unlock_keeps_request(void **state)
{
	(void)state;
	uint8_t ctrl[4] = { 0 };
	struct seen s = { .fake = ctrl, .nested = true };
	run_contended(&s);
	assert_int_equal(s.request_held, 1);
	assert_int_equal(s.request_inner, 1);   /* the inner lock's unlock left it */
	assert_int_equal(s.request_after, 0);   /* the outer's withdrew it */
}

static void test_no_request_during_grant(void **state)
{
	(void)state;
	uint8_t ctrl[4] = { 0, 1, 0, 0 };       /* a grant still active */
	struct seen s = { .fake = ctrl };
	run_contended(&s);
	assert_int_equal(s.request_held, 0);    /* request and granted never both */
	assert_int_equal(s.yields, 1);          /* the grant given back at the unlock */
}

static void *fast_path(void *arg)
{
	uint8_t *ctrl = arg;
	pvspin_slice_ext_attach_for_test(ctrl);
	pvspin_spinpark_lock(&lock);      /* free: the inline cmpxchg */
	uint8_t held = __atomic_load_n(&ctrl[0], __ATOMIC_RELAXED);
	pvspin_spinpark_unlock(&lock);
	return (void *)(uintptr_t)(held + 1);
}

static void test_fast_path_requests_nothing(void **state)
{
	(void)state;
	uint8_t ctrl[4] = { 0 };
	pthread_t t;
	void *r;
	assert_int_equal(pthread_create(&t, NULL, fast_path, ctrl), 0);
	assert_int_equal(pthread_join(t, &r), 0);
	assert_int_equal((uintptr_t)r, 1);   /* request byte 0 while held */
	assert_int_equal(ctrl[0], 0);
	assert_int_equal(__atomic_load_n(&lock.val, __ATOMIC_ACQUIRE), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_this_kernel),
		cmocka_unit_test(test_request_withdrawn),
		cmocka_unit_test(test_grant_given_back),
		cmocka_unit_test(test_fast_path_requests_nothing),
		cmocka_unit_test(test_nested_unlock_keeps_request),
		cmocka_unit_test(test_no_request_during_grant),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * preload_cond.c - pthread_cond_* over a futex sequence counter, in place,
 * so condition variables work with interposed mutexes and lose no wakeup.
 *
 * Layout inside glibc's 48-byte pthread_cond_t (PTHREAD_COND_INITIALIZER
 * is all zeros, which is a valid idle condvar here too):
 *
 *   offset  0  uint32_t seq       futex word; +1 on every signal/broadcast
 *   offset  4  uint32_t waiters   threads inside a wait (for destroy and to
 *                                 skip the wake syscall when nobody waits)
 *   offset 36  uint32_t flags     glibc's __wrefs flag bits: bit 0
 *                                 process-shared (glibc's object, passed
 *                                 through), bit 1 CLOCK_MONOTONIC
 *
 * Wait (after the classic futex condvar, Drepper "Futexes Are Tricky",
 * 2011, section 8, with a sequence counter): count in waiters, read seq,
 * both while still holding the mutex; release the mutex; FUTEX_WAIT while
 * seq is unchanged; leave; retake the mutex.  A signal after the mutex
 * release changes seq, so the futex wait returns at once or is woken: no
 * lost wakeup.  Signal = seq++ and wake one; broadcast = seq++ and wake
 * all.  Spurious wakeups (allowed by POSIX) happen when several waiters
 * see one signal; a 2^32 wrap of seq between a waiter's read and its
 * sleep would lose that waiter's wakeup (not reachable in practice).
 *
 * Works with every mutex: interposed ones are released and retaken
 * completely (a recursive mutex regains its depth), pass-through ones
 * (robust, PI, PP, shared) through glibc (EOWNERDEAD is returned as glibc
 * does).  A condvar initialised PTHREAD_PROCESS_SHARED is glibc's own and
 * every call on it goes to glibc; waiting on it with an interposed
 * (private) mutex returns EINVAL.  The waits are cancellation points:
 * asynchronous cancellation around the futex sleep only, with a cleanup
 * that leaves the condvar and retakes the mutex (as POSIX requires).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <time.h>
#include <stddef.h>
#include <string.h>

#include "preload.h"
#include "pvspin/platform.h"

struct pcond {
	uint32_t seq;
	uint32_t waiters;
	uint32_t unused[7];
	uint32_t flags;
};
_Static_assert(sizeof(struct pcond) <= sizeof(pthread_cond_t), "pcond too big");
_Static_assert(offsetof(struct pcond, flags) == 36, "flags overlay __wrefs");

#define COND_PSHARED 1u
#define COND_MONOTONIC 2u

static inline struct pcond *pc_of(pthread_cond_t *c) { return (struct pcond *)c; }

static inline bool cond_is_passthrough(pthread_cond_t *c)
{
	return (__atomic_load_n(&pc_of(c)->flags, __ATOMIC_RELAXED) & COND_PSHARED) != 0;
}

PVSPIN_EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
	int pshared = PTHREAD_PROCESS_PRIVATE;
	clockid_t clock = CLOCK_REALTIME;
	if (attr) {
		pthread_condattr_getpshared(attr, &pshared);
		pthread_condattr_getclock(attr, &clock);
	}
	if (pshared != PTHREAD_PROCESS_PRIVATE) {
		const struct preload_real *r = preload_real();
		return r ? r->cond_init(c, attr) : EAGAIN;
	}
	memset(c, 0, sizeof(*c));
	if (clock == CLOCK_MONOTONIC)
		pc_of(c)->flags = COND_MONOTONIC;
	return 0;
}

/* pthread_cond_destroy()'s wait for woken waiters: this many
 * sched_yield()s, then sleeps doubling from 1 us up to 1 us << this
 * (about 1 ms). */
#define COND_DESTROY_YIELDS 16u
#define COND_DESTROY_SLEEP_MAX_SHIFT 10u

PVSPIN_EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
	if (cond_is_passthrough(c)) {
		const struct preload_real *r = preload_real();
		return r ? r->cond_destroy(c) : EAGAIN;
	}
	/* As glibc: wait until woken waiters have left (they still touch the
	 * object), so the memory may be freed right after a broadcast.  They
	 * leave within microseconds: a few yields, then sleeps doubling from
	 * 1 us to about 1 ms, so that a destroy with a waiter still blocked
	 * (undefined behaviour: glibc sleeps for ever) does not burn a CPU
	 * for ever either (it used 2.74 s of 3: helper-60). */
	for (unsigned n = 0; __atomic_load_n(&pc_of(c)->waiters, __ATOMIC_ACQUIRE) != 0; n++) {
		if (n < COND_DESTROY_YIELDS) {
			sched_yield();
			continue;
		}
		unsigned shift = n - COND_DESTROY_YIELDS;
		struct timespec ts = { 0, 1000L << (shift < COND_DESTROY_SLEEP_MAX_SHIFT
						    ? shift : COND_DESTROY_SLEEP_MAX_SHIFT) };
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* What a cancelled waiter must undo (see cond_wait_common). */
struct wait_ctx {
	struct pcond *pc;
	pthread_mutex_t *m;
	const struct preload_real *r;
	bool mutex_passthrough;
	int count;
};

/* Leave the condvar and retake the mutex: the end of every wait, and the
 * cancellation cleanup (POSIX: a waiter cancelled in pthread_cond_wait
 * runs its cleanup handlers with the mutex held again). */
static int wait_leave(struct wait_ctx *w)
{
	__atomic_fetch_sub(&w->pc->waiters, 1, __ATOMIC_RELEASE);
	if (w->mutex_passthrough)
		return w->r->mutex_lock(w->m);
	preload_mutex_reacquire(w->m, w->count);
	return 0;
}

static void wait_cancelled(void *arg)
{
	(void)wait_leave(arg);
}

static int cond_wait_common(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
			    const struct timespec *abstime)
{
	struct wait_ctx w = { .pc = pc_of(c), .m = m, .r = NULL,
			      .mutex_passthrough = preload_mutex_is_passthrough(m), .count = 0 };
	volatile int ret = 0; /* survives the cleanup buffer's setjmp */

	if (abstime && !preload_valid_timespec(abstime))
		return EINVAL;
	if (w.mutex_passthrough && !(w.r = preload_real()))
		return EAGAIN;

	__atomic_fetch_add(&w.pc->waiters, 1, __ATOMIC_SEQ_CST);
	uint32_t seq = __atomic_load_n(&w.pc->seq, __ATOMIC_SEQ_CST);
	if (w.mutex_passthrough) {
		int e = w.r->mutex_unlock(m);
		if (e) {
			__atomic_fetch_sub(&w.pc->waiters, 1, __ATOMIC_RELEASE);
			return e;
		}
	} else {
		w.count = preload_mutex_release_for_wait(m);
		if (w.count < 0) {
			__atomic_fetch_sub(&w.pc->waiters, 1, __ATOMIC_RELEASE);
			return -w.count;
		}
	}

	/* A cancellation point, as glibc's: cancellation is made
	 * asynchronous only around the futex sleep (glibc did the same
	 * before 2.34), and the cleanup leaves and retakes the mutex. */
	pthread_cleanup_push(wait_cancelled, &w);
	while (__atomic_load_n(&w.pc->seq, __ATOMIC_ACQUIRE) == seq) {
		int oldtype, r;
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &oldtype);
		r = preload_futex_wait(&w.pc->seq, seq, clock, abstime);
		pthread_setcanceltype(oldtype, NULL);
		if (r == ETIMEDOUT) {
			ret = ETIMEDOUT;
			break;
		}
	}
	pthread_cleanup_pop(0);

	int e = wait_leave(&w);
	return e ? e : ret;
}

PVSPIN_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (cond_is_passthrough(c)) {
		const struct preload_real *r = preload_real();
		if (!r)
			return EAGAIN;
		return preload_mutex_is_passthrough(m) ? r->cond_wait(c, m) : EINVAL;
	}
	return cond_wait_common(c, m, CLOCK_REALTIME, NULL);
}

PVSPIN_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
					 const struct timespec *abstime)
{
	if (cond_is_passthrough(c)) {
		const struct preload_real *r = preload_real();
		if (!r)
			return EAGAIN;
		return preload_mutex_is_passthrough(m) ? r->cond_timedwait(c, m, abstime) : EINVAL;
	}
	clockid_t clock = (__atomic_load_n(&pc_of(c)->flags, __ATOMIC_RELAXED) & COND_MONOTONIC)
				  ? CLOCK_MONOTONIC : CLOCK_REALTIME;
	return cond_wait_common(c, m, clock, abstime);
}

PVSPIN_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
					 clockid_t clock, const struct timespec *abstime)
{
	if (cond_is_passthrough(c)) {
		const struct preload_real *r = preload_real();
		if (!r)
			return EAGAIN;
		if (!r->cond_clockwait)
			return ENOSYS;
		return preload_mutex_is_passthrough(m) ? r->cond_clockwait(c, m, clock, abstime)
						       : EINVAL;
	}
	if (!preload_valid_clock(clock))
		return EINVAL;
	return cond_wait_common(c, m, clock, abstime);
}

static int cond_wake(pthread_cond_t *c, int n)
{
	struct pcond *pc = pc_of(c);
	pvspin_plat_fence_full();
	if (__atomic_load_n(&pc->waiters, __ATOMIC_RELAXED) == 0)
		return 0;
	__atomic_fetch_add(&pc->seq, 1, __ATOMIC_SEQ_CST);
	preload_futex_wake(&pc->seq, n);
	return 0;
}

PVSPIN_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	if (cond_is_passthrough(c)) {
		const struct preload_real *r = preload_real();
		return r ? r->cond_signal(c) : EAGAIN;
	}
	return cond_wake(c, 1);
}

PVSPIN_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	if (cond_is_passthrough(c)) {
		const struct preload_real *r = preload_real();
		return r ? r->cond_broadcast(c) : EAGAIN;
	}
	return cond_wake(c, INT_MAX);
}

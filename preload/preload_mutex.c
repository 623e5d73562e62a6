/*
 * preload_mutex.c - pthread_mutex_* on a pvspin lock word, in place.
 *
 * A private, non-robust, non-PI/PP mutex keeps glibc's size (40 bytes) and
 * glibc's type field (__kind at offset 16, which the static initializers
 * PTHREAD_MUTEX_INITIALIZER, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
 * PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP and PTHREAD_ADAPTIVE_..._NP set
 * to 0, 1, 2, 3), and reuses the other bytes (all zero after a static
 * initializer) as:
 *
 *   offset  0  pvspin_lock_t word    the lock, of the process's kind
 *   offset  4  uint32_t count        recursion depth (recursive type)
 *   offset  8  uintptr_t owner       owning thread (recursive, errorcheck):
 *                                    address of a thread-local variable,
 *                                    unique among live threads; the
 *                                    forking thread keeps it in the child
 *   offset 16  int kind              glibc's type bits: never written
 *                                    except by init and destroy
 *   offset 20  uint32_t timed_waiters threads sleeping in a timed lock
 *   offset 24  uint32_t seq          futex word the timed waiters sleep on
 *
 * Robust, priority-inheritance, priority-protect and process-shared
 * mutexes are initialised by glibc (the attribute decides) and every call
 * on them goes to glibc: their __kind carries the bits 0x10/0x20/0x40/0x80.
 *
 * Locks and unlocks follow glibc's semantics (POSIX plus glibc's choices):
 * normal and adaptive: relock deadlocks, unlock by anyone; recursive:
 * counted, EPERM on unlock by a non-owner, EAGAIN at UINT32_MAX levels;
 * errorcheck: EDEADLK on relock, EPERM on unlock by a non-owner or of an
 * unlocked mutex; trylock EBUSY (also errorcheck relock); timed locks:
 * free mutex -> 0 whatever the time, else EINVAL for a bad tv_nsec,
 * ETIMEDOUT at the deadline on CLOCK_REALTIME (timedlock) or the given
 * clock (clocklock: CLOCK_REALTIME or CLOCK_MONOTONIC, else EINVAL).
 * destroy: EBUSY while locked; afterwards __kind is -1 like glibc's, so a
 * later use is glibc's EINVAL.
 *
 * Waiting: an untimed locker runs the kind's lock (pvqspinlock halts after
 * SPIN_THRESHOLD; the other kinds spin until they get the lock, like the
 * kernel locks they are).  With PVSPIN_MUTEX_SPIN_LIMIT=N (N > 0), an
 * untimed locker of the kinds other than pvqspinlock instead takes the
 * timed path below with N spin loops and no deadline: it never enters the
 * kind's queue and sleeps instead of spinning on.
 *
 * Timed locks: pvspin locks have no timeout, so a timed locker spins
 * briefly with trylock, then counts itself in timed_waiters and sleeps on
 * the futex `seq` with the absolute deadline (FUTEX_WAIT_BITSET, on the
 * requested clock); every unlock that sees timed_waiters != 0 bumps seq
 * and wakes them all, and each retries trylock.  This is a Dekker pattern
 * (unlocker: release the word, read timed_waiters; sleeper: increment
 * timed_waiters, read seq, trylock) and needs a StoreLoad fence on both
 * sides.  The unlock fast path must stay cheap, so the fence is
 * asymmetric, after the userspace RCU (liburcu) use of membarrier(2): the
 * unlocker has only a compiler barrier, and the sleeper, after its
 * increment, calls membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which
 * runs a full fence on every CPU running a thread of this process.  Then
 * either the unlocker's load comes after that fence and sees the
 * increment, or its store came before it and the sleeper's trylock sees
 * the free lock: no lost wakeup.  Where membarrier is not available (old
 * kernel, seccomp; or PVSPIN_PRELOAD_NO_MEMBARRIER=1), sleepers wake every
 * 1 ms to retry: a missed wakeup then costs at most 1 ms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"
#include "pvspin/platform.h"
#include "pvspin/spinlock.h"

struct pmutex {
	pvspin_lock_t word;
	uint32_t count;
	uintptr_t owner;
	int kind;
	uint32_t timed_waiters;
	uint32_t seq;
};

_Static_assert(sizeof(struct pmutex) <= sizeof(pthread_mutex_t), "pmutex too big");
_Static_assert(offsetof(struct pmutex, kind) ==
	       offsetof(pthread_mutex_t, __data.__kind), "kind must overlay __kind");
_Static_assert(offsetof(struct pmutex, word) == 0, "word first");

#define TYPE_MASK 3 /* PTHREAD_MUTEX_KIND_MASK_NP */

/* Spins (trylock + PAUSE) of a timed locker before it sleeps. */
#define TIMED_SPIN_LOOPS 1000

static _Thread_local char self_tag;
#define SELF ((uintptr_t)&self_tag)

static inline struct pmutex *pm_of(pthread_mutex_t *m) { return (struct pmutex *)m; }

static inline int type_of(struct pmutex *pm)
{
	return __atomic_load_n(&pm->kind, __ATOMIC_RELAXED) & TYPE_MASK;
}

/* Asymmetric fence for the sleeping waiters (see the file comment):
 * 0 not known yet, 1 membarrier(PRIVATE_EXPEDITED) registered, 2 not
 * available (or PVSPIN_PRELOAD_NO_MEMBARRIER=1): sleepers poll. */
static int membarrier_state;

static bool membarrier_ready(void)
{
	int st = __atomic_load_n(&membarrier_state, __ATOMIC_ACQUIRE);
	if (__builtin_expect(st == 0, 0)) {
		const char *off = getenv("PVSPIN_PRELOAD_NO_MEMBARRIER");
		long q = (off && *off && strcmp(off, "0") != 0)
				 ? -1 : syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
		st = 2;
		if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
			st = 1;
		__atomic_store_n(&membarrier_state, st, __ATOMIC_RELEASE);
	}
	return st == 1;
}

/* Run the asymmetric fence.  False if it could not be had: the
 * registration belongs to the address space, and a fork child (new mm)
 * may have to register again; if even that fails, the caller polls. */
static bool membarrier_fence(void)
{
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
		return true;
	return errno == EPERM &&
	       syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 &&
	       syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
}

static inline void word_unlock(struct pmutex *pm)
{
	pvspin_kind_unlock(preload_kind(), &pm->word);
	/* No CPU fence here: the sleeper's membarrier() supplies it.  Only
	 * the compiler must keep the store before the load. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&pm->timed_waiters, __ATOMIC_RELAXED) != 0, 0)) {
		__atomic_fetch_add(&pm->seq, 1, __ATOMIC_SEQ_CST);
		preload_futex_wake(&pm->seq, INT_MAX);
	}
}

/* Unlock the word if it is locked: as glibc, unlocking an unlocked normal
 * mutex is harmless. */
static inline void word_unlock_if_locked(struct pmutex *pm)
{
	if (__builtin_expect(pvspin_kind_is_locked(preload_kind(), &pm->word), 1))
		word_unlock(pm);
}

/* Without membarrier a sleeper may miss a wake: it sleeps at most this
 * long before it retries trylock. */
#define POLL_SLICE_NS 1000000L

/* Sleep on `seq` while it is `s`: until `abstime` (NULL: none), and with
 * `poll` at most POLL_SLICE_NS.  Returns ETIMEDOUT only at `abstime`. */
static int sleep_on_seq(struct pmutex *pm, uint32_t s, bool poll, clockid_t clock,
			const struct timespec *abstime)
{
	if (!poll)
		return preload_futex_wait(&pm->seq, s, clock, abstime) == ETIMEDOUT ? ETIMEDOUT : 0;
	struct timespec slice;
	clock_gettime(clock, &slice);
	slice.tv_nsec += POLL_SLICE_NS;
	if (slice.tv_nsec >= 1000000000L) {
		slice.tv_sec++;
		slice.tv_nsec -= 1000000000L;
	}
	bool last = abstime && (abstime->tv_sec < slice.tv_sec ||
				(abstime->tv_sec == slice.tv_sec && abstime->tv_nsec <= slice.tv_nsec));
	int r = preload_futex_wait(&pm->seq, s, clock, last ? abstime : &slice);
	return r == ETIMEDOUT && last ? ETIMEDOUT : 0;
}

/* Spin-then-sleep acquisition of the word (see the file comment): up to
 * `spins` PAUSE loops retrying trylock, then sleep on `seq` until
 * `abstime` on `clock` (NULL: no deadline).  0 or ETIMEDOUT.  The caller
 * has already tried once and checked abstime. */
static int word_wait(struct pmutex *pm, uint32_t spins, clockid_t clock,
		     const struct timespec *abstime)
{
	pvspin_kind_t k = preload_kind();
	for (uint32_t i = 0; i < spins; i++) {
		pvspin_plat_cpu_relax();
		if (!pvspin_kind_is_locked(k, &pm->word) && pvspin_kind_trylock(k, &pm->word))
			goto taken;
	}
	int ret;
	__atomic_fetch_add(&pm->timed_waiters, 1, __ATOMIC_SEQ_CST);
	bool fenced = membarrier_ready() && membarrier_fence();
	for (;;) {
		uint32_t s = __atomic_load_n(&pm->seq, __ATOMIC_SEQ_CST);
		if (pvspin_kind_trylock(k, &pm->word)) {
			ret = 0;
			break;
		}
		if (sleep_on_seq(pm, s, !fenced, clock, abstime) == ETIMEDOUT) {
			ret = pvspin_kind_trylock(k, &pm->word) ? 0 : ETIMEDOUT;
			break;
		}
	}
	__atomic_fetch_sub(&pm->timed_waiters, 1, __ATOMIC_RELAXED);
	if (ret)
		return ret;
taken:
	if (preload_stats_wanted())
		preload_count_acquire(true);
	return 0;
}

/* PVSPIN_MUTEX_SPIN_LIMIT: 0 (default) = waiters run the kind's lock;
 * N = waiters of the kinds that do not halt by themselves (all but
 * pvqspinlock) retry trylock for N PAUSE loops, then sleep. */
static int64_t mutex_spin_limit = -1;

static uint32_t spin_limit(void)
{
	int64_t v = __atomic_load_n(&mutex_spin_limit, __ATOMIC_RELAXED);
	if (__builtin_expect(v < 0, 0)) {
		const char *s = getenv("PVSPIN_MUTEX_SPIN_LIMIT");
		char *end = NULL;
		unsigned long n = s && *s ? strtoul(s, &end, 10) : 0;
		if (s && *s && (*end || n > UINT32_MAX))
			n = 0; /* pvspin run validates; a bad value means "off" */
		v = preload_kind() == PVSPIN_KIND_PVQSPINLOCK ? 0 : (int64_t)n;
		__atomic_store_n(&mutex_spin_limit, v, __ATOMIC_RELAXED);
	}
	return (uint32_t)v;
}

static inline void word_lock(struct pmutex *pm)
{
	uint32_t limit = spin_limit();
	if (__builtin_expect(limit != 0, 0)) {
		if (!preload_word_trylock(&pm->word))
			(void)word_wait(pm, limit, CLOCK_REALTIME, NULL);
		return;
	}
	preload_word_lock(&pm->word);
}

/* Timed acquisition: 0, ETIMEDOUT, or EINVAL for a bad abstime when the
 * lock is not free (glibc's order of checks). */
static int word_timedlock(struct pmutex *pm, clockid_t clock, const struct timespec *abstime)
{
	if (preload_word_trylock(&pm->word))
		return 0;
	if (!preload_valid_timespec(abstime))
		return EINVAL;
	if (abstime->tv_sec < 0)
		return ETIMEDOUT;
	return word_wait(pm, TIMED_SPIN_LOOPS, clock, abstime);
}

/* ---- the wrappers ------------------------------------------------------ */

PVSPIN_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
	int type = PTHREAD_MUTEX_NORMAL, pshared = PTHREAD_PROCESS_PRIVATE;
	int robust = PTHREAD_MUTEX_STALLED, protocol = PTHREAD_PRIO_NONE;
	if (attr) {
		pthread_mutexattr_gettype(attr, &type);
		pthread_mutexattr_getpshared(attr, &pshared);
		pthread_mutexattr_getrobust(attr, &robust);
		pthread_mutexattr_getprotocol(attr, &protocol);
	}
	if (pshared != PTHREAD_PROCESS_PRIVATE || robust != PTHREAD_MUTEX_STALLED ||
	    protocol != PTHREAD_PRIO_NONE) {
		const struct preload_real *r = preload_real();
		return r ? r->mutex_init(m, attr) : EAGAIN;
	}
	memset(m, 0, sizeof(*m));
	pm_of(m)->kind = type & TYPE_MASK;
	return 0;
}

PVSPIN_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
	if (preload_mutex_is_passthrough(m)) {
		const struct preload_real *r = preload_real();
		return r ? r->mutex_destroy(m) : EAGAIN;
	}
	struct pmutex *pm = pm_of(m);
	if (pvspin_kind_is_locked(preload_kind(), &pm->word))
		return EBUSY;
	__atomic_store_n(&pm->kind, -1, __ATOMIC_RELAXED);
	return 0;
}

/* How an acquisition waits: not at all (trylock), until it has the lock,
 * or until an absolute deadline. */
enum acquire_mode { ACQUIRE_TRY, ACQUIRE_WAIT, ACQUIRE_TIMED };

/* Take the word: 0, EBUSY (trylock), ETIMEDOUT or EINVAL (timed). */
static int word_acquire(struct pmutex *pm, enum acquire_mode mode, clockid_t clock,
			const struct timespec *abstime)
{
	switch (mode) {
	case ACQUIRE_TRY:
		return preload_word_trylock(&pm->word) ? 0 : EBUSY;
	case ACQUIRE_TIMED:
		return word_timedlock(pm, clock, abstime);
	default:
		word_lock(pm);
		return 0;
	}
}

/*
 * Every acquisition of an interposed mutex, by type, with glibc's results:
 * a recursive mutex already ours counts up (EAGAIN at UINT32_MAX); an
 * error-checking one already ours is EDEADLK (EBUSY for trylock, as glibc);
 * otherwise take the word and, for those two types, record the owner.
 */
static int typed_acquire(struct pmutex *pm, int kind, enum acquire_mode mode,
			 clockid_t clock, const struct timespec *abstime)
{
	int type = kind & TYPE_MASK, ret;
	bool owned = __atomic_load_n(&pm->owner, __ATOMIC_RELAXED) == SELF;

	if (type == PTHREAD_MUTEX_RECURSIVE && owned) {
		if (pm->count == UINT32_MAX)
			return EAGAIN;
		pm->count++;
		return 0;
	}
	if (type == PTHREAD_MUTEX_ERRORCHECK && owned)
		return mode == ACQUIRE_TRY ? EBUSY : EDEADLK;
	ret = word_acquire(pm, mode, clock, abstime);
	if (ret == 0 && (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK)) {
		__atomic_store_n(&pm->owner, SELF, __ATOMIC_RELAXED);
		if (type == PTHREAD_MUTEX_RECURSIVE)
			pm->count = 1;
	}
	return ret;
}

PVSPIN_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	struct pmutex *pm = pm_of(m);
	int kind = __atomic_load_n(&pm->kind, __ATOMIC_RELAXED);
	if (__builtin_expect(kind == PTHREAD_MUTEX_NORMAL, 1)) {
		word_lock(pm);
		return 0;
	}
	if (kind & PRELOAD_MUTEX_PASSTHROUGH_BITS) {
		const struct preload_real *r = preload_real();
		return r ? r->mutex_lock(m) : EAGAIN;
	}
	return typed_acquire(pm, kind, ACQUIRE_WAIT, CLOCK_REALTIME, NULL);
}

PVSPIN_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	struct pmutex *pm = pm_of(m);
	int kind = __atomic_load_n(&pm->kind, __ATOMIC_RELAXED);
	if (kind & PRELOAD_MUTEX_PASSTHROUGH_BITS) {
		const struct preload_real *r = preload_real();
		return r ? r->mutex_trylock(m) : EAGAIN;
	}
	return typed_acquire(pm, kind, ACQUIRE_TRY, CLOCK_REALTIME, NULL);
}

static int clocklock_common(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime)
{
	struct pmutex *pm = pm_of(m);
	return typed_acquire(pm, __atomic_load_n(&pm->kind, __ATOMIC_RELAXED), ACQUIRE_TIMED,
			     clock, abstime);
}

PVSPIN_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	if (preload_mutex_is_passthrough(m)) {
		const struct preload_real *r = preload_real();
		return r ? r->mutex_timedlock(m, abstime) : EAGAIN;
	}
	return clocklock_common(m, CLOCK_REALTIME, abstime);
}

PVSPIN_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
					  const struct timespec *abstime)
{
	if (preload_mutex_is_passthrough(m)) {
		const struct preload_real *r = preload_real();
		if (!r)
			return EAGAIN;
		return r->mutex_clocklock ? r->mutex_clocklock(m, clock, abstime) : ENOSYS;
	}
	if (!preload_valid_clock(clock))
		return EINVAL;
	return clocklock_common(m, clock, abstime);
}

PVSPIN_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	struct pmutex *pm = pm_of(m);
	int kind = __atomic_load_n(&pm->kind, __ATOMIC_RELAXED);
	if (__builtin_expect(kind == PTHREAD_MUTEX_NORMAL, 1)) {
		word_unlock_if_locked(pm);
		return 0;
	}
	if (kind & PRELOAD_MUTEX_PASSTHROUGH_BITS) {
		const struct preload_real *r = preload_real();
		return r ? r->mutex_unlock(m) : EAGAIN;
	}
	switch (kind & TYPE_MASK) {
	case PTHREAD_MUTEX_RECURSIVE:
		if (__atomic_load_n(&pm->owner, __ATOMIC_RELAXED) != SELF)
			return EPERM;
		if (--pm->count != 0)
			return 0;
		__atomic_store_n(&pm->owner, 0, __ATOMIC_RELAXED);
		word_unlock(pm);
		return 0;
	case PTHREAD_MUTEX_ERRORCHECK:
		if (__atomic_load_n(&pm->owner, __ATOMIC_RELAXED) != SELF)
			return EPERM;
		__atomic_store_n(&pm->owner, 0, __ATOMIC_RELAXED);
		word_unlock(pm);
		return 0;
	default:
		word_unlock_if_locked(pm);
		return 0;
	}
}

/* ---- for the condition variables --------------------------------------- */

int preload_mutex_release_for_wait(pthread_mutex_t *m)
{
	struct pmutex *pm = pm_of(m);
	int type = type_of(pm);
	int count = 1;
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK) {
		if (__atomic_load_n(&pm->owner, __ATOMIC_RELAXED) != SELF)
			return -EPERM;
		if (type == PTHREAD_MUTEX_RECURSIVE)
			count = (int)pm->count;
		pm->count = 0;
		__atomic_store_n(&pm->owner, 0, __ATOMIC_RELAXED);
	}
	word_unlock_if_locked(pm);
	return count;
}

void preload_mutex_reacquire(pthread_mutex_t *m, int count)
{
	struct pmutex *pm = pm_of(m);
	int type = type_of(pm);
	word_lock(pm);
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK) {
		__atomic_store_n(&pm->owner, SELF, __ATOMIC_RELAXED);
		if (type == PTHREAD_MUTEX_RECURSIVE)
			pm->count = (uint32_t)count;
	}
}

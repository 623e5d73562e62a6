/*
 * preload_spin.c - pthread_spin_* in place: pthread_spinlock_t is 4 bytes,
 * exactly a pvspin_lock_t, and a private spinlock is a pvspin lock of the
 * process's kind (0 = unlocked, so zeroed memory is a free spinlock, as
 * with glibc's generic spinlock; x86-64's glibc has 1 for free).  A
 * spinlock in shared memory that pthread_spin_init() never marked shared
 * is therefore a private one (docs/preload.md).
 *
 * PTHREAD_PROCESS_SHARED spinlocks must work between processes, where the
 * kinds that queue cannot: an MCS node and a thread slot belong to one
 * process, and pvqspinlock's halt is a FUTEX_*_PRIVATE wait.  A shared
 * spinlock is therefore a test-and-set lock with its own two word values:
 * 0x80000000 free, 0x80000001 locked (cmpxchg free -> locked to take,
 * store-release free to drop; never halts, but yields the CPU every
 * 1024 PAUSE loops of waiting).  No private word of any kind
 * ever holds one of these two values (qspinlock/pvqspinlock: bit 31 is the
 * top of the tail CPU, unused below 8192 slots, PVSPIN_MAX_CPUS is 4096;
 * tas: 0 or 1; ticket: next - owner would be 32767 or 32768 waiters), so
 * one load tells which kind of spinlock a word is.  Every process using a
 * shared spinlock must run under the interposer (a glibc process would see
 * the free value as locked).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>

#include "preload.h"
#include "pvspin/platform.h"
#include "pvspin/spinlock.h"

#define PSHARED_FREE 0x80000000u
#define PSHARED_LOCKED 0x80000001u
/* PAUSE loops between two sched_yield() of a shared-spinlock waiter */
#define PSHARED_SPINS_BEFORE_YIELD 1024

_Static_assert(sizeof(pthread_spinlock_t) == sizeof(pvspin_lock_t), "spinlock size");
_Static_assert(PVSPIN_MAX_CPUS < 8192, "bit 31 must be free in queued words");

static inline uint32_t *word_of(pthread_spinlock_t *l) { return (uint32_t *)(void *)l; }

/* Is the spinlock a shared one (PSHARED_FREE or PSHARED_LOCKED)?  The top
 * byte (0x80 in both values, little endian) is read first, by a load of
 * its own: a kind may take and drop its lock by a write of the low byte
 * alone (spinpark's cmpxchg and store of the locked byte), and a 32-bit
 * load right after such a write, still in the store buffer, cannot take
 * its value from there and waits for the write to reach the cache
 * (spinpark.h, _pvspin_spinpark_load_fields).  Here that was every lock
 * after an unlock and every unlock after a lock: pthread_spin_lock and
 * _unlock, one thread, no contention, 15 ns a pair against glibc's 6.5.
 * A byte that the write does not touch forwards no value and costs no
 * wait; the whole word is read only where the top byte is 0x80, which
 * no private word of the byte-writing kinds has (bit 31 clear).
 * is_pshared_top() is that first load: false means private for sure. */
static inline bool is_pshared_top(uint32_t *w)
{
	return __atomic_load_n((uint8_t *)w + 3, __ATOMIC_RELAXED) == (uint8_t)(PSHARED_FREE >> 24);
}

static inline bool is_pshared(uint32_t *w)
{
	if (__builtin_expect(!is_pshared_top(w), 1))
		return false;
	return (__atomic_load_n(w, __ATOMIC_RELAXED) & ~1u) == PSHARED_FREE;
}

PVSPIN_EXPORT int pthread_spin_init(pthread_spinlock_t *l, int pshared)
{
	__atomic_store_n(word_of(l), pshared == PTHREAD_PROCESS_SHARED ? PSHARED_FREE : 0u,
			 __ATOMIC_RELEASE);
	return 0;
}

PVSPIN_EXPORT int pthread_spin_destroy(pthread_spinlock_t *l)
{
	(void)l;
	return 0;
}

/* Take a shared spinlock.  True if the first try failed (contended). */
static bool pshared_lock(uint32_t *w)
{
	for (bool contended = false;; contended = true) {
		uint32_t v = PSHARED_FREE;
		if (__atomic_compare_exchange_n(w, &v, PSHARED_LOCKED, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return contended;
		/* spin, and yield the CPU now and then: the holder may be
		 * another process waiting for this CPU (overcommit) */
		for (unsigned n = 1; __atomic_load_n(w, __ATOMIC_RELAXED) == PSHARED_LOCKED; n++) {
			pvspin_plat_cpu_relax();
			if (n % PSHARED_SPINS_BEFORE_YIELD == 0)
				sched_yield();
		}
	}
}

/* pthread_spin_lock() of a shared spinlock, or with the counters on
 * (out of line, so that the inline path saves no registers). */
static __attribute__((noinline)) int spin_lock_slow(pthread_spinlock_t *l)
{
	uint32_t *w = word_of(l);
	if (is_pshared(w)) {
		/* counted as the private ones are (PVSPIN_STATS=1: `pvspin run
		 * --stats` said "no lock was taken" of a program of shared
		 * spinlocks only, helper-60) */
		bool contended = pshared_lock(w);
		if (preload_stats_wanted())
			preload_count(PRELOAD_EV(PRELOAD_EV_ACQUIRE) |
				      (contended ? PRELOAD_EV(PRELOAD_EV_CONTENDED) : 0));
		return 0;
	}
	preload_word_lock((pvspin_lock_t *)w);
	return 0;
}

PVSPIN_EXPORT_HOT int pthread_spin_lock(pthread_spinlock_t *l)
{
	uint32_t *w = word_of(l);
	/* a private spinlock, counters off: the kind's lock, inline (for
	 * spinpark one cmpxchg, pvspin_kind_lock()); the rest out of line.
	 * Was one function: its three saved registers and the calls kept
	 * in it cost an uncontended pair about 0.5 ns (6.5-7.6 ns, glibc
	 * 5.3, test_preload_helper uncontended) */
	if (__builtin_expect(!is_pshared_top(w) && !preload_stats_wanted(), 1)) {
		pvspin_kind_lock(preload_kind(), (pvspin_lock_t *)w);
		return 0;
	}
	return spin_lock_slow(l);
}

PVSPIN_EXPORT int pthread_spin_trylock(pthread_spinlock_t *l)
{
	uint32_t *w = word_of(l);
	if (__builtin_expect(is_pshared(w), 0)) {
		uint32_t v = PSHARED_FREE;
		bool ok = __atomic_compare_exchange_n(w, &v, PSHARED_LOCKED, false, __ATOMIC_ACQUIRE,
						      __ATOMIC_RELAXED);
		if (ok && preload_stats_wanted())
			preload_count(PRELOAD_EV(PRELOAD_EV_ACQUIRE));
		return ok ? 0 : EBUSY;
	}
	return preload_word_trylock((pvspin_lock_t *)w) ? 0 : EBUSY;
}

/* pthread_spin_unlock() of a word whose top byte is 0x80 (a shared
 * spinlock, or a corrupted private word, which the kind's unlock
 * reports): out of line, as spin_lock_slow(). */
static __attribute__((noinline)) int spin_unlock_slow(pthread_spinlock_t *l)
{
	uint32_t *w = word_of(l);
	if (is_pshared(w)) {
		__atomic_store_n(w, PSHARED_FREE, __ATOMIC_RELEASE);
		return 0;
	}
	pvspin_kind_t k = preload_kind();
	/* glibc stores 0 whatever the state: unlocking a free lock is harmless */
	if (!pvspin_kind_is_locked(k, (pvspin_lock_t *)w))
		return 0;
	pvspin_kind_unlock(k, (pvspin_lock_t *)w);
	return 0;
}

PVSPIN_EXPORT_HOT int pthread_spin_unlock(pthread_spinlock_t *l)
{
	uint32_t *w = word_of(l);
	if (__builtin_expect(!is_pshared_top(w), 1)) {
		/* glibc stores 0 whatever the state: unlocking a free lock is
		 * harmless */
		pvspin_kind_t k = preload_kind();
		if (pvspin_kind_is_locked(k, (pvspin_lock_t *)w))
			pvspin_kind_unlock(k, (pvspin_lock_t *)w);
		return 0;
	}
	return spin_unlock_slow(l);
}

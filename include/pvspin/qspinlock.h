/*
 * pvspin/qspinlock.h - native queued spinlock, after Linux
 * kernel/locking/qspinlock.c: cmpxchg fast path, pending bit for the first
 * waiter, MCS queue behind it.  FIFO once queued; best with dedicated CPUs.
 *
 * Functions: pvspin_qspinlock_{lock,trylock,unlock,is_locked,is_contended}.
 * Fast paths are inline; the slow path is src/lock/qspinlock.c.
 * Thread-safe; async-signal-safe (a handler that interrupts a waiter queues
 * on the next of the thread's 4 MCS nodes; deeper nesting spins on trylock).
 */
#ifndef PVSPIN_QSPINLOCK_H
#define PVSPIN_QSPINLOCK_H

#include "pvspin/lock.h"
#include "pvspin/platform.h"
#include "pvspin/lock_word.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Out-of-line slow path: `val` is the word seen by the failed fast path.
 *  Returns with the lock held; or, for a corrupted word (a pending or
 *  locked byte no transition writes, a tail naming a slot beyond the 4096),
 *  reports it (pvspin_report_misuse) and, if the handler returns, returns
 *  without the lock. */
void pvspin_qspinlock_lock_slowpath(pvspin_lock_t *lock, uint32_t val);

/** The end of a trylock that failed on the word `val`: reports it if it
 *  is corrupted (a pending or locked byte other than 0 and 1, a tail
 *  beyond the node array: "qspinlock: corrupted lock word",
 *  pvspin_report_misuse, as the lock's slow path says it), and returns
 *  false.  Out of line, so that the definition of a corrupted word is the
 *  library's, not the caller's copy of it. */
bool pvspin_qspinlock_trylock_failed(pvspin_lock_t *lock, uint32_t val);

/** Try once: (0,0,0) -> (0,0,1).  Returns true if the lock was taken
 *  (acquire ordering), false at once otherwise, after reporting a
 *  corrupted word (pvspin_qspinlock_trylock_failed(), called on the
 *  failed path only). */
static inline bool pvspin_qspinlock_trylock(pvspin_lock_t *lock)
{
	uint32_t val;
	if (pvspin_word_trylock_seen(lock, &val))
		return true;
	return pvspin_qspinlock_trylock_failed(lock, val);
}

/** Take the lock, spinning (never sleeping) until it is ours. */
static inline void pvspin_qspinlock_lock(pvspin_lock_t *lock)
{
	uint32_t val;
	/* (0,0,0) -> (0,0,1): acquire */
	if (__builtin_expect(pvspin_word_lock_fast(lock, &val), 1))
		return;
	pvspin_qspinlock_lock_slowpath(lock, val);
}

/** Release: (*,*,1) -> (*,*,0) with a store-release of the locked byte.
 *  Unlocking a lock that is not locked is reported (pvspin_report_misuse)
 *  and the word is left as it was. */
static inline void pvspin_qspinlock_unlock(pvspin_lock_t *lock)
{
	pvspin_word_unlock(lock, _Q_LOCKED_MASK, "qspinlock: unlock of a lock that is not locked",
			   "qspinlock: corrupted locked byte");
}

/** True if some thread holds the lock (a snapshot). */
static inline bool pvspin_qspinlock_is_locked(pvspin_lock_t *lock)
{
	return pvspin_plat_load32(&lock->val, PVSPIN_RELAXED) & _Q_LOCKED_MASK;
}

/** True if some thread waits for the lock (pending or queued; a snapshot). */
static inline bool pvspin_qspinlock_is_contended(pvspin_lock_t *lock)
{
	return pvspin_plat_load32(&lock->val, PVSPIN_RELAXED) & ~_Q_LOCKED_MASK;
}

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_QSPINLOCK_H */

/*
 * pvspin/pvqspinlock.h - paravirtual queued spinlock, after Linux
 * kernel/locking/qspinlock_paravirt.h: the qspinlock word and queue, but
 * waiters spin a bounded time (tunable PVSPIN_TUNE_SPIN_THRESHOLD) and then
 * halt (pv_wait); the unlocker kicks (pv_kick) a halted queue head; a
 * waiter entering the slow path may steal the lock while no head spins.
 * Best when CPUs are overcommitted.
 *
 * Functions: pvspin_pvqspinlock_{lock,trylock,unlock,is_locked,is_contended}.
 * Fast paths are inline; the slow paths are src/lock/pvqspinlock.c.
 * Thread-safe; async-signal-safe like pvspin/qspinlock.h.
 */
#ifndef PVSPIN_PVQSPINLOCK_H
#define PVSPIN_PVQSPINLOCK_H

#include "pvspin/lock.h"
#include "pvspin/platform.h"
#include "pvspin/lock_word.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Out-of-line lock slow path (`val`: the word seen by the failed fast
 *  path); returns with the lock held, or reports a corrupted word and
 *  returns without it, like pvspin_qspinlock_lock_slowpath(). */
void pvspin_pvqspinlock_lock_slowpath(pvspin_lock_t *lock, uint32_t val);

/** Out-of-line unlock slow path: `locked` is the locked byte the fast path
 *  found instead of _Q_LOCKED_VAL (_Q_SLOW_VAL: unhash and kick the halted
 *  waiter; anything else is reported as misuse). */
void pvspin_pvqspinlock_unlock_slowpath(pvspin_lock_t *lock, uint8_t locked);

/** The end of a trylock that failed on the word `val`: reports it if it
 *  is corrupted (a pending byte other than 0 and 1, a locked byte other
 *  than 0, 1 and _Q_SLOW_VAL, a tail beyond the node array:
 *  "pvqspinlock: corrupted lock word", pvspin_report_misuse, as the
 *  lock's slow path says it), and returns false.  Out of line, as
 *  pvspin_qspinlock_trylock_failed(). */
bool pvspin_pvqspinlock_trylock_failed(pvspin_lock_t *lock, uint32_t val);

/** Try once: (0,0,0) -> (0,0,1).  True if taken (acquire); false after
 *  reporting a corrupted word (pvspin_pvqspinlock_trylock_failed(),
 *  called on the failed path only). */
static inline bool pvspin_pvqspinlock_trylock(pvspin_lock_t *lock)
{
	uint32_t val;
	if (pvspin_word_trylock_seen(lock, &val))
		return true;
	return pvspin_pvqspinlock_trylock_failed(lock, val);
}

/** Take the lock: spin, then halt until kicked, until it is ours. */
static inline void pvspin_pvqspinlock_lock(pvspin_lock_t *lock)
{
	uint32_t val;
	/* (0,0,0) -> (0,0,1): acquire */
	if (__builtin_expect(pvspin_word_lock_fast(lock, &val), 1))
		return;
	pvspin_pvqspinlock_lock_slowpath(lock, val);
}

/** Release: cmpxchg-release of the locked byte 1 -> 0; if it held
 *  _Q_SLOW_VAL, the slow path unhashes and kicks the halted waiter. */
static inline void pvspin_pvqspinlock_unlock(pvspin_lock_t *lock)
{
	uint8_t locked = _Q_LOCKED_VAL;
	if (__builtin_expect(pvspin_plat_cmpxchg8(&lock->locked, &locked, 0,
						  PVSPIN_RELEASE), 1))
		return;
	pvspin_pvqspinlock_unlock_slowpath(lock, locked);
}

/** True if some thread holds the lock (a snapshot). */
static inline bool pvspin_pvqspinlock_is_locked(pvspin_lock_t *lock)
{
	return pvspin_plat_load32(&lock->val, PVSPIN_RELAXED) & _Q_LOCKED_MASK;
}

/** True if some thread waits for the lock (a snapshot). */
static inline bool pvspin_pvqspinlock_is_contended(pvspin_lock_t *lock)
{
	return pvspin_plat_load32(&lock->val, PVSPIN_RELAXED) & ~_Q_LOCKED_MASK;
}

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_PVQSPINLOCK_H */

/*
 * pvspin/tas.h - unfair test-and-test-and-set lock, after Linux
 * virt_spin_lock() (arch/x86/include/asm/qspinlock.h): read the word; if it
 * is 0, cmpxchg 0 -> 1; else relax and retry.  Any waiter may take a free
 * lock, so a preempted waiter never blocks the others (no LWP), at the cost
 * of fairness.  Optional bounded exponential backoff between attempts
 * (tunable PVSPIN_TUNE_TAS_BACKOFF_MAX, in PAUSE loops; 0 = off).
 *
 * Functions: pvspin_tas_{lock,trylock,unlock,is_locked,is_contended}.
 * Thread-safe and async-signal-safe.
 */
#ifndef PVSPIN_TAS_H
#define PVSPIN_TAS_H

#include "pvspin/lock.h"
#include "pvspin/platform.h"
#include "pvspin/lock_word.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Out-of-line spin loop; returns with the lock held. */
void pvspin_tas_lock_slowpath(pvspin_lock_t *lock);

/** Try once: 0 -> 1.  True if taken (acquire). */
static inline bool pvspin_tas_trylock(pvspin_lock_t *lock)
{
	return pvspin_word_trylock(lock);
}

/** Take the lock, spinning until it is ours. */
static inline void pvspin_tas_lock(pvspin_lock_t *lock)
{
	uint32_t val;
	if (__builtin_expect(pvspin_word_lock_fast(lock, &val), 1))
		return;
	pvspin_tas_lock_slowpath(lock);
}

/** Release with a store-release of 0; an unlocked lock is reported. */
static inline void pvspin_tas_unlock(pvspin_lock_t *lock)
{
	pvspin_word_unlock(lock, "tas: unlock of a lock that is not locked",
			   "tas: corrupted locked byte");
}

/** True if held (a snapshot). */
static inline bool pvspin_tas_is_locked(pvspin_lock_t *lock)
{
	return pvspin_plat_load32(&lock->val, PVSPIN_RELAXED) != 0;
}

/** Always false: a tas lock does not know its waiters. */
static inline bool pvspin_tas_is_contended(pvspin_lock_t *lock)
{
	(void)lock;
	return false;
}

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_TAS_H */

/*
 * pvspin/lock_word.h - the fast-path steps on the 4-byte lock word that the
 * qspinlock, pvqspinlock and tas families share: they use the same word
 * layout (pvspin/lock.h) and the same uncontended transitions, written once
 * here.  After Linux include/asm-generic/qspinlock.h (queued_spin_trylock,
 * the queued_spin_lock fast path, queued_spin_unlock).
 *
 * Internal to the public headers: included by pvspin/qspinlock.h,
 * pvspin/pvqspinlock.h and pvspin/tas.h; call the family functions
 * (pvspin_<kind>_lock etc.), not these.  Thread-safe and
 * async-signal-safe; every step is one or two atomics of the platform
 * interface (pvspin/platform.h), so the simulator runs them too.
 */
#ifndef PVSPIN_LOCK_WORD_H
#define PVSPIN_LOCK_WORD_H

#include "pvspin/lock.h"
#include "pvspin/platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Try once: (0,0,0) -> (0,0,1), acquire.  A relaxed read first, so a
 *  busy word costs no exclusive cache-line transfer.  True if taken;
 *  else *val is the word seen (the read, or the failed cmpxchg's), for
 *  the family's check of a corrupted word. */
static inline bool pvspin_word_trylock_seen(pvspin_lock_t *lock, uint32_t *val)
{
	*val = pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
	if (*val)
		return false;
	return pvspin_plat_cmpxchg32(&lock->val, val, _Q_LOCKED_VAL, PVSPIN_ACQUIRE);
}

/** pvspin_word_trylock_seen() without the word: the slow paths' try
 *  (qspinlock_slowpath.h), which checks the word itself.  True if
 *  taken. */
static inline bool pvspin_word_trylock(pvspin_lock_t *lock)
{
	uint32_t val;
	return pvspin_word_trylock_seen(lock, &val);
}

/** The uncontended lock: (0,0,0) -> (0,0,1), acquire.  True if taken;
 *  else *val is the word seen (for the family's slow path).  Callers wrap
 *  it in __builtin_expect(..., 1): a hint inside an inline function does
 *  not reach the caller's branch, and the slow-path call must stay out of
 *  the straight-line path. */
static inline bool pvspin_word_lock_fast(pvspin_lock_t *lock, uint32_t *val)
{
	*val = 0;
	return pvspin_plat_cmpxchg32(&lock->val, val, _Q_LOCKED_VAL, PVSPIN_ACQUIRE);
}

/** Unlock by clearing the locked byte: (*,*,1) -> (*,*,0), release.  The
 *  bits of the word in `checked` must read exactly _Q_LOCKED_VAL (the
 *  locked byte, _Q_LOCKED_MASK, for the queued kinds, whose upper bytes
 *  belong to waiters; the whole word, ~0u, for tas, whose word is only
 *  ever 0 or 1); anything else is reported as misuse and the word left
 *  alone: `not_locked` when those bits are 0 (an unlock of a free lock),
 *  `corrupted` otherwise (the word was overwritten).  One load (of the
 *  byte or the word), one byte store. */
static inline void pvspin_word_unlock(pvspin_lock_t *lock, uint32_t checked,
				      const char *not_locked, const char *corrupted)
{
	/* only the byte when only the byte is checked (a constant once
	 * inlined): a 32-bit load right after the pending waiter's 16-bit
	 * store (clear_pending_set_locked) could not be forwarded from it */
	uint32_t val = checked == _Q_LOCKED_MASK ? pvspin_plat_load8(&lock->locked, PVSPIN_RELAXED)
						 : pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
	if (__builtin_expect((val & checked) != _Q_LOCKED_VAL, 0)) {
		pvspin_report_misuse((val & checked) ? corrupted : not_locked, lock,
				     pvspin_plat_load32(&lock->val, PVSPIN_RELAXED));
		return;
	}
	pvspin_plat_store8(&lock->locked, 0, PVSPIN_RELEASE);
}

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_LOCK_WORD_H */

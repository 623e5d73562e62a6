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

/** A tas word is 0 (free) or 1 (held): the locked byte of the common
 *  layout (pvspin/lock.h) and no other bit, which no tas step ever sets.
 *  The interposer's process-shared spinlocks (0x80000000, 0x80000001,
 *  preload/preload_spin.c) never reach the tas functions. */
#define PVSPIN_TAS_WORD_OK(v) ((v) <= _Q_LOCKED_VAL)

/** Out-of-line spin loop: waits until the word is no longer 1, then tries
 *  0 -> 1 again.  Returns with the lock held; or, for a corrupted word
 *  (anything but 0 and 1: a locked byte other than 0/1, or any bit
 *  outside it), reports "tas: corrupted lock word" (pvspin_report_misuse)
 *  and, if the handler returns, returns without the lock and leaves the
 *  word as it was.  The word is checked when the fast path fails and each
 *  time the wait ends, so a word overwritten while waiting is reported
 *  too. */
void pvspin_tas_lock_slowpath(pvspin_lock_t *lock);

/** Try once: 0 -> 1.  True if taken (acquire).  A try that fails on a
 *  corrupted word (anything but 0 and 1) reports it, "tas: corrupted lock
 *  word" (pvspin_report_misuse, as lock() and unlock()), and returns
 *  false, the word left as it was: one comparison of the word already
 *  read, on the failed path only. */
static inline bool pvspin_tas_trylock(pvspin_lock_t *lock)
{
	uint32_t val;
	if (pvspin_word_trylock_seen(lock, &val))
		return true;
	if (__builtin_expect(!PVSPIN_TAS_WORD_OK(val), 0))
		pvspin_report_misuse("tas: corrupted lock word", lock, val);
	return false;
}

/** Take the lock, spinning until it is ours. */
static inline void pvspin_tas_lock(pvspin_lock_t *lock)
{
	uint32_t val;
	if (__builtin_expect(pvspin_word_lock_fast(lock, &val), 1))
		return;
	pvspin_tas_lock_slowpath(lock);
}

/** Release: (0,0,1) -> (0,0,0), a store-release of the locked byte.  A
 *  word that is not 1 is reported (pvspin_report_misuse) and left as it
 *  was: 0 as an unlock of a lock that is not locked, anything else as a
 *  corrupted word (pvspin_word_unlock() on the whole word). */
static inline void pvspin_tas_unlock(pvspin_lock_t *lock)
{
	pvspin_word_unlock(lock, ~0u, "tas: unlock of a lock that is not locked",
			   "tas: corrupted lock word");
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

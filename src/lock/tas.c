/*
 * tas.c - test-and-test-and-set slow path (pvspin/tas.h), after Linux
 * virt_spin_lock(): wait until the word reads 0, then cmpxchg 0 -> 1;
 * with PVSPIN_TUNE_TAS_BACKOFF_MAX > 0, back off 1, 2, 4, ... up to that
 * many PAUSE loops after each failed attempt.
 *
 * A tas word is only ever 0 or 1 (PVSPIN_TAS_WORD_OK).  The kernel's loop
 * waits for the whole word to read 0, so a word that some store of the
 * program turned into anything else (0xff, 0x100, 0xfffc0000) kept every
 * waiter spinning for ever without a word.  Here the wait ends on any
 * word but 1, and a word that is then not 0 is reported as corrupted and
 * the call returns without the lock, as the queued kinds do
 * (qspinlock_slowpath.h).
 */
#include "pvspin/tas.h"
#include "pvspin/tunables.h"
#include "lock_steps.h"
#include "backoff.h"

/* The word is no longer a held tas lock: 0, or corrupted. */
static inline bool tas_word_not_held(uint32_t v, uint32_t arg)
{
	(void)arg;
	return v != _Q_LOCKED_VAL;
}

void pvspin_tas_lock_slowpath(pvspin_lock_t *lock)
{
	uint32_t backoff_max = pvspin_tunable_get(PVSPIN_TUNE_TAS_BACKOFF_MAX);
	uint32_t backoff = 1, val;

	for (;;) {
		/* test: wait until the word is not (0,0,1) (acquire) */
		pvspin_plat_wait32(&lock->val, tas_word_not_held, 0, PVSPIN_WAIT_FOREVER,
				   &val, NULL);
		if (!PVSPIN_TAS_WORD_OK(val)) {
			pvspin_report_misuse("tas: corrupted lock word", lock, val);
			return;
		}
		/* and set: (0,0,0) -> (0,0,1), acquire */
		if (pvspin_plat_cmpxchg32(&lock->val, &val, _Q_LOCKED_VAL, PVSPIN_ACQUIRE))
			return;
		if (backoff_max) {
			pvspin_plat_wait32(&lock->val, word_never, 0, backoff, &val, NULL);
			backoff = pvspin_backoff_next(backoff, backoff_max);
		}
	}
}

/*
 * tas.c - test-and-test-and-set slow path (pvspin/tas.h), after Linux
 * virt_spin_lock(): wait until the word reads 0, then cmpxchg 0 -> 1;
 * with PVSPIN_TUNE_TAS_BACKOFF_MAX > 0, back off 1, 2, 4, ... up to that
 * many PAUSE loops after each failed attempt.
 */
#include "pvspin/tas.h"
#include "pvspin/tunables.h"
#include "lock_steps.h"

void pvspin_tas_lock_slowpath(pvspin_lock_t *lock)
{
	uint32_t backoff_max = pvspin_tunable_get(PVSPIN_TUNE_TAS_BACKOFF_MAX);
	uint32_t backoff = 1, val;

	for (;;) {
		/* test: wait for (0,0,0) (acquire) */
		pvspin_plat_wait32(&lock->val, word_zero, 0, PVSPIN_WAIT_FOREVER, &val, NULL);
		/* and set: (0,0,0) -> (0,0,1), acquire */
		if (pvspin_plat_cmpxchg32(&lock->val, &val, _Q_LOCKED_VAL, PVSPIN_ACQUIRE))
			return;
		if (backoff_max) {
			pvspin_plat_wait32(&lock->val, word_never, 0, backoff, &val, NULL);
			if (backoff < backoff_max)
				backoff = backoff * 2 > backoff_max ? backoff_max : backoff * 2;
		}
	}
}

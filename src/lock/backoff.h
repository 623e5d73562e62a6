/*
 * backoff.h - the step of a bounded exponential backoff, in PAUSE loops:
 * tas's between attempts (tas.c, PVSPIN_TUNE_TAS_BACKOFF_MAX).  Private
 * to the library.
 */
#ifndef PVSPIN_SRC_LOCK_BACKOFF_H
#define PVSPIN_SRC_LOCK_BACKOFF_H

#include <stdint.h>

/**
 * The backoff, in PAUSE loops, after one of `b` (1 or more) failed
 * again: doubled, at most `max` (1 or more), and never less than `b`.
 * Computed without doubling past `max`: `b * 2` in 32 bits is 0 for any
 * `b` of 2^31 or more, and a wait of 0 loops is PVSPIN_WAIT_FOREVER, so
 * with a `max` above 2^31 (the tunable takes up to 4294967295) a waiter
 * once backed off 2^31 loops waited for ever on a free lock.
 */
static inline uint32_t pvspin_backoff_next(uint32_t b, uint32_t max)
{
	if (b >= max)
		return b;
	return b > max / 2 ? max : b * 2;
}

#endif

/*
 * spinpark_word.h - the spinpark word's fields and bounds (pvspin/spinpark.h
 * has the layout), shared by the slow paths (spinpark.c) and the fork
 * child's repair (fork_repair.c).  Private to src/lock.
 */
#ifndef PVSPIN_SRC_LOCK_SPINPARK_WORD_H
#define PVSPIN_SRC_LOCK_SPINPARK_WORD_H

#include <stdbool.h>
#include <stdint.h>

#include "pvspin/spinpark.h"

/* Largest budget exponent: 16 << 7 = 2048 PAUSE loops, about 50 us at
 * the 25 ns PAUSE measured here, the starving owner's bound.  A futex
 * sleep and wake round trip (about 11 us, the bound of 2-competitive
 * spinning) was the largest until 2026-12-05: where the releasing thread
 * takes the lock back before a waiter on a vCPU apart can see it free,
 * a waiter waits several holds, and with 512 loops 3 % of the
 * acquisitions behind a 2 us hold ran out of it (the park, membarrier
 * and wake-up that follow cost the holder too): `pvspin bench --cs-ns
 * 2000` at 2 threads in that placement, 6 rounds, 1.04-1.11x the 512
 * cap, spin_fail 4 000 -> 2 500 per 300 ms (docs/spinpark.md).  The
 * budget rises only on evidence (sp_next_budget). */
#define SP_BUDGET_MAX 7u
_Static_assert(SP_BUDGET_MAX == (_SP_BUDGET_MASK >> _SP_BUDGET_OFFSET),
	       "every budget exponent the field holds is valid (sp_word_ok)");
/* Most registered spinners on one lock, whatever the CPUs: a few
 * spinners keep a lock busy, more only add to the storm of reads and
 * cmpxchgs at each release (concurrency restriction).  In `pvspin sim`,
 * spawn-dedicated (120 vCPUs, one hot lock): 1.24 M ops/s with 14
 * spinners, 1.38 M with 2 to 4. */
#define SP_SPINNERS_CAP 4u
/* Bit 31 stays clear (parked <= 2047): the interposer's process-shared
 * spinlocks use 0x8000000x, which no private word may hold
 * (preload/preload_spin.c). */
#define SP_PARKED_MAX ((_SP_PARKED_MASK >> _SP_PARKED_OFFSET) >> 1)

/** The locked byte: 0 free, 1 locked, 2 handed off (_SP_HANDOFF). */
static inline uint32_t sp_locked(uint32_t v) { return v & _SP_LOCKED_MASK; }
/** Registered spinners. */
static inline uint32_t sp_spinners(uint32_t v)
{ return (v & _SP_SPINNERS_MASK) >> _SP_SPINNER_OFFSET; }
/** The spin budget exponent e (16 << e PAUSE loops). */
static inline uint32_t sp_budget(uint32_t v) { return (v & _SP_BUDGET_MASK) >> _SP_BUDGET_OFFSET; }
/** Waiters counted as parked. */
static inline uint32_t sp_parked(uint32_t v) { return v >> _SP_PARKED_OFFSET; }

/** A word some step writes?  Not: a locked byte other
 *  than 0, 1 and 2, more spinners
 *  than the cap and one starving owner (sp_spin), or a parked count with
 *  bit 31 (above SP_PARKED_MAX).  The slow paths report such a word and
 *  leave it as it is; so does the fork child's repair (without a
 *  report). */
static inline bool sp_word_ok(uint32_t v)
{
	return sp_locked(v) <= _SP_HANDOFF &&
	       sp_spinners(v) <= SP_SPINNERS_CAP + 1 &&
	       sp_parked(v) <= SP_PARKED_MAX;
}

#endif /* PVSPIN_SRC_LOCK_SPINPARK_WORD_H */

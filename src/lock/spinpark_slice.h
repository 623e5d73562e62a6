/*
 * spinpark_slice.h - lock slices for spinpark: the per-lock meter that
 * decides, from the lock's measured throughput, whether its waiters spin
 * (shared mode) or park while one thread at a time runs with the lock for
 * a slice (slice mode).  Private to src/lock; docs/spinpark.md, "Slice
 * mode".
 *
 * After the scheduler-cooperative locks' lock slices (Patel, Kundu,
 * Arpaci-Dusseau, Arpaci-Dusseau, "u-SCL", EuroSys 2020) and concurrency
 * restriction down to one circulating thread (Dice and Kogan, Malthusian
 * locks, EuroSys 2017); the explore-then-exploit switch after GCR (Dice
 * and Kogan, "Avoiding Scalability Collapse by Restricting Concurrency",
 * Euro-Par 2019), which also measures throughput per lock to decide how
 * many threads may circulate.  No code is taken from any of them.
 *
 * The 4-byte word has no room for this state, so it lives in a side table
 * of SP_SLICE_ENTRIES cache-line sized entries indexed by a hash of the
 * lock's address, like pvqspinlock's lock->node hash: only locks that have
 * been contended (ARMED) look there.  A lock whose slot holds another,
 * live lock is never sliced.
 */
#ifndef PVSPIN_SPINPARK_SLICE_H
#define PVSPIN_SPINPARK_SLICE_H

#include "pvspin/spinpark.h"

struct sp_slice;

/* Everything here is internal to the library: hidden from libpvspin.so's
 * dynamic symbol table, so that a program's function of the same name
 * cannot replace it (a new user's finding: a program defining
 * sp_slice_of() was called by the library through the PLT). */
#pragma GCC visibility push(hidden)

/** The meter's clock: pvspin_plat_now_ns() in us, 32 bits that wrap every
 *  71 minutes (compare differences, not values).  Thread-safe. */
static inline uint32_t sp_now_us(void)
{
	return (uint32_t)(pvspin_plat_now_ns() / 1000u);
}

/** The side-table entry of `lock`, claiming its slot if the slot is free
 *  or its lock's meter has not run for a second; NULL if the slot is
 *  another live lock's or being claimed.  Thread-safe (claims under the
 *  entry's trylock); one load when the entry is already the lock's. */
struct sp_slice *sp_slice_of(pvspin_lock_t *lock);

/** What sp_slice_unlock() found. */
enum sp_slice_verdict {
	SP_SLICE_NONE,   /* the lock has no entry: not metered, never sliced */
	SP_SLICE_GO_ON,  /* metered; nothing to do */
	SP_SLICE_OVER,   /* in slice mode, and the slice is over: wake a
			  * parked waiter (the next slice starts now) */
};

/** Meter one unlock of `lock`, called by its holder before the release
 *  (only holders change _SP_SLICED).  Most unlocks are only counted in the
 *  thread slot's counter: then *later is that counter, for the caller to
 *  increment after its release (the meter stays out of the critical
 *  section; only this thread writes it), and the verdict is
 *  SP_SLICE_GO_ON.  Otherwise (*later NULL) the unlock is counted now:
 *  every SP_SLICE_TICK-th unlock of this thread adds the count to the
 *  lock's entry and runs the mode controller, which may set or clear
 *  _SP_SLICED in the word; so does every unlock of a thread without a
 *  slot, and of a lock new to the slot.  A lock that has lost its entry
 *  gets SP_SLICE_NONE up to SP_SLICE_TICK - 1 unlocks late.  Thread-safe:
 *  one controller at a time per entry (a trylock; a busy entry skips its
 *  turn). */
enum sp_slice_verdict sp_slice_unlock(pvspin_lock_t *lock, uint32_t **later);

/** Leave slice mode: clear _SP_SLICED and wake the waiters it put to
 *  sleep (all those counted in `parked`), so that they spin or park by
 *  shared mode's rules.  Nothing if the lock was not sliced.  The
 *  controller's switch, and the unlock's when the lock lost its entry.
 *  Thread-safe. */
void sp_slice_leave(pvspin_lock_t *lock);

/** Stamp the lock's entry with the time (sp_now_us()) of a wake-up about
 *  to be sent (pvspin_spinpark_unlock_slowpath(), after the release: it
 *  touches only the side table), for the woken sleeper's
 *  budget evidence (spinpark.c, sp_spin_longer).  Nothing if the lock has no
 *  entry.  Thread-safe (a relaxed store). */
void sp_slice_stamp_wake(pvspin_lock_t *lock);

/** The lock's last wake stamp into *wake_us (us, as stamped; 0 if none
 *  yet); false if the lock has no entry.  Thread-safe (a relaxed load). */
bool sp_slice_last_wake(pvspin_lock_t *lock, uint32_t *wake_us);

/** Forget every entry (the simulator, before each run, so that no state
 *  or time of one run leaks into the next).  Not thread-safe: call it
 *  while no thread uses a spinpark lock. */
void pvspin_spinpark_slices_reset(void);

#pragma GCC visibility pop

#endif /* PVSPIN_SPINPARK_SLICE_H */

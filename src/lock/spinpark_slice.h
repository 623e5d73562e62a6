/*
 * spinpark_slice.h - spinpark's mode controller: shared mode or slice
 * mode, chosen per lock from throughput measured on that lock
 * (docs/spinpark.md, "Slice mode").  Private to src/lock.
 *
 * In shared mode waiters spin and park as spinpark.c describes.  In slice
 * mode (_SP_SLICED in the word) a waiter that finds the lock held sleeps
 * for a slice (SP_SLICE_NS) instead of spinning, so the thread that holds
 * the lock keeps taking it back through the fast path while the others
 * are off the lock's cache line: one hand-off per slice instead of one
 * per critical section.  That wins where hand-offs cost more than the
 * work between two critical sections (two vCPUs that the host placed on
 * different CCXs or sockets: a cache-line round trip of 300+ ns against
 * 60 ns), and loses where two threads can interleave (the same vCPUs
 * placed close: 6.2 M against 10.9 M ops/s at 2 threads, cs 50 ns, ncs
 * 100 ns).  Placement changes within seconds here, so the choice is made
 * again and again, from measurements: after Dice and Kogan's GCR
 * (Euro-Par 2019), which restricts concurrency only while a throughput
 * meter says it pays, and the lock slices of u-SCL (Patel et al.,
 * EuroSys 2020).
 *
 * The meter: while _SP_METER is set, every unlock goes out of line and
 * counts itself (in its thread slot, 16 at a time into the lock's entry),
 * and every 16th also checks the phase's clock.  The controller cycles:
 *
 *   shared, for an exploit period (128 ms, doubling to 512 ms while the
 *   choice stays the same; slices 128 ms)
 *     -> probe shared: METER, 1 ms -> unlocks per ms in shared mode
 *     -> probe slices: METER | SLICED, 4 ms (0.5 ms if behind by then)
 *        -> unlocks per ms in slices
 *     -> sliced (SLICED) if the slices did at least 10 % more, else
 *        shared; each for an exploit period
 *     -> the next probe when a waiter finds the period over.
 *
 * A lock used too little to measure (fewer than SP_METER_MIN_UNLOCKS in a
 * probe) stays shared.  Only waiters (slow path) start probes, so a lock
 * that is never contended never pays for the meter; outside probes no
 * unlock pays for it.  One entry per hash of the lock's address; a lock
 * whose entry another lock holds stays shared until the entry is free
 * (an entry is taken over when its phase has been idle for a second).
 */
#ifndef PVSPIN_SRC_LOCK_SPINPARK_SLICE_H
#define PVSPIN_SRC_LOCK_SPINPARK_SLICE_H

#include <stdbool.h>
#include <stdint.h>

#include "pvspin/spinpark.h"

#pragma GCC visibility push(hidden)

/* How long a waiter that finds a sliced lock held sleeps, ns. */
#define SP_SLICE_NS 250000u
/* Sleepers per slice: with n waiters sleeping through slices of a lock,
 * each sleeps ceil(n / SP_SLICE_SLEEPERS) slices (at most
 * SP_SLICE_WAIT_MAX_NS), so a lock with hundreds of waiters does not
 * wake hundreds of threads every slice. */
#define SP_SLICE_SLEEPERS 4u
/* A waiter sleeps through slices for at most this long per lock() call,
 * then waits as in shared mode (where starvation is handled). */
#define SP_SLICE_WAIT_MAX_NS 2000000u

/** A waiter's slow path has met `lock`: every SP_WAITER_TICK-th call of
 *  this thread (every call if `every`: a waiter sleeping through slices),
 *  see whether the controller's exploit period is over and, if so, start
 *  a probe (sets METER in the word by cmpxchg: the waiter does not hold
 *  the lock, it only adds a flag, as a spinner adds its count).  Clears
 *  the mode flags of a lock that does not own its entry.  Thread-safe. */
void sp_mode_waiter_tick(pvspin_lock_t *lock, bool every);

/** The unlock slow path, holding `lock`, whose word *v shows METER: count
 *  this unlock; every 16th of this thread, flush the count and, if the
 *  probe's time is up, run the controller, which may set or clear METER
 *  and SLICED in the word (cmpxchg, while we hold the lock).  *v is the
 *  word now (reloaded if the controller changed it).  Thread-safe. */
void sp_mode_unlock_count(pvspin_lock_t *lock, uint32_t *v);

/** A waiter is about to sleep through a slice of `lock` (delta +1), or
 *  has slept (-1): the count of such sleepers in the lock's entry.
 *  Returns the count after the change.  Thread-safe (an atomic add). */
uint32_t sp_mode_sleepers_add(pvspin_lock_t *lock, int32_t delta);

/** Forget every entry and thread count (the simulator, before each run).
 *  Not thread-safe: call it while no thread uses a spinpark lock. */
void pvspin_spinpark_modes_reset(void);

#pragma GCC visibility pop

#endif /* PVSPIN_SRC_LOCK_SPINPARK_SLICE_H */

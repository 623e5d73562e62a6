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
 *     -> probe slices: METER | SLICED, 4 ms (0.5 ms if below 75 % by then)
 *        -> unlocks per ms in slices
 *     -> sliced (SLICED) if the slices did at least 10 % more, else
 *        shared; each for an exploit period
 *     -> the next probe when a waiter finds the period over.
 *
 * A lock used too little to measure (fewer than SP_METER_MIN_UNLOCKS in a
 * shared probe) stays shared and probes again after 16 ms.  Only waiters
 * (slow path) start probes, so a lock that is never contended never pays
 * for the meter; outside probes no unlock pays for it.  One entry per
 * hash of the lock's address; a lock whose entry another lock holds
 * stays shared until the entry is free (an entry is taken over when its
 * phase has been idle for a second).
 */
#ifndef PVSPIN_SRC_LOCK_SPINPARK_SLICE_H
#define PVSPIN_SRC_LOCK_SPINPARK_SLICE_H

#include <stdbool.h>
#include <stdint.h>

#include "pvspin/spinpark.h"

#pragma GCC visibility push(hidden)

/* A slice, ns: a turn is the acquisitions of one slice at the lock's
 * measured rate, and a slice sleeper's timeout one slice per
 * SP_SLICE_SLEEPERS sleepers. */
#define SP_SLICE_NS 250000u
/* Sleepers per slice: with n waiters sleeping through slices of a lock,
 * each sleeps ceil(n / SP_SLICE_SLEEPERS) slices (at most
 * SP_SLICE_WAIT_MAX_NS), so a lock with hundreds of waiters does not
 * wake hundreds of threads every slice. */
#define SP_SLICE_SLEEPERS 4u
/* A waiter sleeps through slices for at most this long per lock() call,
 * then waits as in shared mode (where starvation is handled).  Longer
 * than 8 threads' turns (2-4 ms; 2 ms, until turns were passed by count,
 * made waiters fall back and cut the holder's turn short). */
#define SP_SLICE_WAIT_MAX_NS 8000000u

/** A waiter's slow path has met `lock`: every SP_WAITER_TICK-th call of
 *  this thread (every call if `every`: a waiter sleeping through slices),
 *  see whether the controller's exploit period is over and, if so, start
 *  a probe (sets METER in the word by cmpxchg: the waiter does not hold
 *  the lock, it only adds a flag, as a spinner adds its count).  Clears
 *  the mode flags of a lock that does not own its entry.  Thread-safe. */
void sp_mode_waiter_tick(pvspin_lock_t *lock, bool every);

/** The unlock slow path, holding `lock`, whose word *v shows METER or
 *  SLICED: count this unlock, once, with one look-up of the entry and
 *  the thread slot for both counts.  METER: in the probe (every 16th of
 *  this thread flushes the count and, if the probe's time is up, runs the
 *  controller, which may set or clear METER and SLICED in the word).
 *  SLICED: in the calling thread's turn (below; every SP_METER_FLUSH-th
 *  also in the entry's unlock count that sleepers watch); the second turn
 *  in a row to end with no sleeper ends slice mode (clears SLICED; the
 *  next waiter probes again), so that a lock whose contention is over
 *  unlocks inline again within two turns.  Flags change by cmpxchg while
 *  we hold the lock; *v is the word now.  A lock that does not own its
 *  entry drops both flags.  True if this unlock ends a turn that is to be
 *  passed: then the caller, after its release, calls sp_mode_turn_pass().
 *  A thread without a slot counts only in the entry (it has no turns).
 *  Thread-safe. */
bool sp_mode_unlock_count(pvspin_lock_t *lock, uint32_t *v);

/* ---- turns: who holds a sliced lock, by count of acquisitions ----------
 *
 * In slice mode every unlock goes out of line (_SP_SLICED is in
 * _SP_UNLOCK_SLOW_MASK) and counts itself in its thread slot.  A thread's
 * turn is its run of acquisitions since it last slept on the lock; after
 * the entry's turn length (the acquisitions the lock did in SP_SLICE_NS
 * at the rate its last probe measured), the unlock passes the turn: it
 * wakes the slice sleeper whose thread has had the fewest acquisitions
 * of the lock (up to 64 sleepers sit in the entry's cells and sleep on
 * their slot's own word; others on the entry's, FIFO), which then
 * waits for the lock as a
 * starving waiter, so that the next unlock hands it the lock.  A sleeper
 * whose timeout ran out takes the lock only if no unlock was counted
 * meanwhile (the holder stopped, or does not run), never by the clock
 * alone.  So the acquisitions, not the time, are shared out: with another
 * process busy on one of two CPUs (`pvspin bench --hog 1`, 8 threads,
 * vCPUs apart), turns ended by the clock gave a thread on that CPU half
 * the acquisitions of one on the other, and max/min was above 2 in a
 * third of the rounds. */

/** Pass the turn of `lock` (after the release: touches only the side
 *  table and the slots): wake the least served slice sleeper (above).
 *  Thread-safe. */
void sp_mode_turn_pass(pvspin_lock_t *lock);

/** The successor of a pass has the lock, or has given up waiting for it
 *  (it took it in shared mode, or a corrupted word): the next turn's end
 *  may pass again.  Thread-safe. */
void sp_mode_turn_taken(pvspin_lock_t *lock);

/** sp_mode_slice_sleep() results. */
enum {
	SP_SLEEP_PASSED,   /* the turn was passed to us (or a signal came) */
	SP_SLEEP_IDLE,     /* timed out, and no unlock was counted meanwhile */
	SP_SLEEP_BUSY,     /* timed out while the holder kept unlocking */
};

/** A waiter that found the sliced `lock` held sleeps (uncounted: no unlock
 *  owes it a wake-up) until a turn is passed to it or for SP_SLICE_NS per
 *  SP_SLICE_SLEEPERS such sleepers (at most SP_SLICE_WAIT_MAX_NS); its
 *  thread's next turn starts from zero.  Returns SP_SLEEP_*.  Thread-safe;
 *  async-signal-safe once the thread has its slot. */
int sp_mode_slice_sleep(pvspin_lock_t *lock);

/** Forget every entry and thread count (the simulator, before each run).
 *  Not thread-safe: call it while no thread uses a spinpark lock. */
void pvspin_spinpark_modes_reset(void);

#pragma GCC visibility pop

#endif /* PVSPIN_SRC_LOCK_SPINPARK_SLICE_H */

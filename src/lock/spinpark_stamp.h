/*
 * spinpark_stamp.h - spinpark's stamps: the time of each lock's last
 * wake-up, for a woken waiter's evidence on the spin budget (spinpark.c,
 * sp_spin_longer), of its last STARVING claim, which limits claims to
 * one per SP_STARVE_GAP_US (spinpark.c, sp_spin), and the record of its
 * oldest starving waiter, to whom the claims go (sp_stamp_oldest_note).
 * Private to src/lock; docs/spinpark.md ("Oldest first").
 *
 * The 4-byte word has no room for a time, so the stamps live in a side
 * table of SP_STAMP_ENTRIES entries indexed by a hash of the lock's
 * address (as pvqspinlock's lock -> node hash), each the lock's address
 * and its stamp.  Locks that share an entry overwrite each other's stamp:
 * the reader then finds no stamp of its lock, or in a race another
 * lock's time, and at worst misjudges one budget step (the evidence is a
 * heuristic; sp_next_budget falls back to a fixed bound, SP_SHORT_PARK_NS,
 * without it; a claim stamp not found allows a claim, as before the
 * limit; a record not found lets any starving waiter claim).  Only
 * wake-ups and starving waiters (waiters that have waited for more than a
 * millisecond) write here, so the table costs nothing on the lock's other
 * paths.
 */
#ifndef PVSPIN_SPINPARK_STAMP_H
#define PVSPIN_SPINPARK_STAMP_H

#include <stdbool.h>
#include <stdint.h>

#include "pvspin/spinpark.h"

/* Internal to the library: hidden from libpvspin.so's dynamic symbol
 * table, so that a program's function of the same name cannot replace
 * it (a new user's finding: a program defining such a function was called
 * by the library through the PLT). */
#pragma GCC visibility push(hidden)

/** A record of a lock's oldest starving waiter that has not been written
 *  for this long, us, is stale: its waiter did not come back (preempted,
 *  asleep, or it took the lock some other way) and anyone may claim.  A
 *  recorded waiter whose record younger ones found sleeps at most
 *  SP_PARK_TIMEOUT_MIN_NS (1 ms) and refreshes the record at each of its
 *  decisions, so 4 ms is 4 of its sleeps. */
#define SP_OLDEST_STALE_US 4000u
/** A younger starving waiter that found the record marks it contested;
 *  the mark lasts this long, us: two of the longest sleeps (16 ms) of a
 *  few waiters, whose decisions come that far apart, so that the oldest
 *  keeps coming back every millisecond while they wait.  (4 ms: they
 *  slept through the marks' end, the oldest went back to its own long
 *  sleeps, its record went stale and a younger one claimed.) */
#define SP_OLDEST_CONTEST_US 32000u

/** The stamps' clock: pvspin_plat_now_ns() in us, 32 bits that wrap every
 *  71 minutes (compare differences, not values).  Thread-safe. */
static inline uint32_t sp_now_us(void)
{
	return (uint32_t)(pvspin_plat_now_ns() / 1000u);
}

/** Stamp `lock`'s entry with sp_now_us(): a wake-up is about to be sent
 *  (pvspin_spinpark_unlock_slowpath(), after the release: it touches
 *  only the side table, never the lock).  Thread-safe (two
 *  stores: the time, then the address with release). */
void sp_stamp_wake(const pvspin_lock_t *lock);

/** The time of `lock`'s last stamped wake-up into *wake_us (us, as
 *  stamped); false if its entry holds no stamp of this lock.
 *  Thread-safe (the address with acquire, then the
 *  time). */
bool sp_stamp_last_wake(const pvspin_lock_t *lock, uint32_t *wake_us);

/** Stamp `lock`'s entry with sp_now_us() as the time of its last
 *  STARVING claim (spinpark.c, sp_spin: a sliced lock's successor, which
 *  claims whatever the gap, has just set STARVING).
 *  Thread-safe (two stores, as sp_stamp_wake()). */
void sp_stamp_starve_claim(const pvspin_lock_t *lock);

/** A reserved STARVING claim (sp_stamp_starve_reserve): the stamp it
 *  wrote and the one it replaced, us. */
struct sp_stamp_reservation {
	uint32_t mine, prev;
};

/** Reserve `lock`'s next STARVING claim (spinpark.c, sp_spin, just before
 *  the cmpxchg that sets STARVING): true if no claim of this lock was
 *  stamped within `us` microseconds and this call stamped one now, by one
 *  compare-and-swap of the stamp, so that one waiter per `us` claims
 *  however the waiters' decisions and cmpxchgs interleave (*r gets what
 *  sp_stamp_starve_unreserve() needs); false otherwise.  An entry that
 *  holds another lock's stamps (or none) is taken over, as any stamp
 *  takes it: two waiters that do that at once may both reserve, once
 *  (only one can set STARVING in the word).  Thread-safe. */
bool sp_stamp_starve_reserve(const pvspin_lock_t *lock, uint32_t us,
			     struct sp_stamp_reservation *r);

/** Give back a reservation whose claim was not made (the word changed
 *  under the cmpxchg): the stamp goes back to what it replaced, unless a
 *  later stamp replaced ours, or the reservation took the entry over
 *  (then it stays: the next claim waits for the gap).  Thread-safe. */
void sp_stamp_starve_unreserve(const pvspin_lock_t *lock, const struct sp_stamp_reservation *r);

/** Was `lock`'s last STARVING claim less than `us` microseconds ago?
 *  False if its entry holds no stamp of this lock (none yet, or another
 *  lock's): a claim is then allowed, as without the table.  Thread-safe. */
bool sp_stamp_starve_claimed_within(const pvspin_lock_t *lock, uint32_t us);

/** Note a starving waiter deciding on a STARVING claim, whose first
 *  sleep began at t0_us (sp_now_us()'s clock): it becomes `lock`'s oldest
 *  starving waiter if it is older than the one recorded (or is that one),
 *  or if the record is stale (written more than SP_OLDEST_STALE_US ago),
 *  not of this lock, or cleared; else the record is marked contested.
 *  True: the record is now ours (written, or refreshed), and *contested
 *  says whether a younger starving waiter found it within
 *  SP_OLDEST_CONTEST_US (then we should come back soon for the claim; not
 *  written when false).  Thread-safe (plain stores, the address last, as
 *  sp_stamp_wake(); two noters that race may both believe they hold it,
 *  which at worst lets the younger claim: a heuristic). */
bool sp_stamp_oldest_note(const pvspin_lock_t *lock, uint32_t t0_us, bool *contested);

/** May a starving waiter whose first sleep began at t0_us claim STARVING
 *  on `lock`?  True unless a fresh record (sp_stamp_oldest_note, within
 *  SP_OLDEST_STALE_US) names an older waiter.  Thread-safe. */
bool sp_stamp_oldest_may_claim(const pvspin_lock_t *lock, uint32_t t0_us);

/** Clear `lock`'s record of its oldest starving waiter if it names the
 *  waiter whose first sleep began at t0_us (that waiter took the lock),
 *  so that the next starving waiters elect the next oldest.
 *  Thread-safe (a racing note may be lost: a heuristic). */
void sp_stamp_oldest_clear(const pvspin_lock_t *lock, uint32_t t0_us);

/** Forget every stamp (the simulator, before each run, so that no time
 *  of one run leaks into the next).  Not thread-safe: call it while no
 *  thread uses a spinpark lock. */
void pvspin_spinpark_stamps_reset(void);

#pragma GCC visibility pop

#endif /* PVSPIN_SPINPARK_STAMP_H */

/*
 * pvspin/spinpark.h - spin-then-park lock for threads the OS can preempt
 * (docs/spinpark.md).  The fifth kind on the same 4-byte word: a waiter
 * spins only while spinning can pay (at most as many spinners as there
 * are CPUs besides the holder's, for a budget learned per lock), then
 * parks on a futex on the lock word; an unlock wakes one parked waiter.
 * The lock goes to a running thread where one waits (barging), and a
 * waiter that has waited past a starvation bound is handed the lock.
 * Where a contended lock's measured throughput says so, it runs in slice
 * mode: one thread at a time keeps taking it for a slice while the
 * others park (src/lock/spinpark_slice.c).
 *
 * Design sources: two-phase waiting / competitive spinning (Ousterhout
 * 1982; Karlin et al., SOSP 1991), Dice's spin-then-park, the kernel's
 * mutex optimistic spinning with its HANDOFF flag
 * (kernel/locking/mutex.c), Go's sync.Mutex (mutexWoken, starvation mode
 * after 1 ms), WebKit's WTF::Lock / parking_lot (barging, a short spin,
 * park), glibc's adaptive mutex (a spin budget learned per lock),
 * concurrency restriction (Dice and Kogan, Malthusian locks, EuroSys
 * 2017), and for the cheap unlock the asymmetric fence of liburcu's
 * membarrier(2) use.  No code is taken from any of them.
 *
 * Word layout (little endian; the locked byte is the qspinlock's):
 *
 *   bits  0- 7  locked byte  0 free, 1 locked, 2 = _SP_HANDOFF: released
 *                            by its holder and reserved for the waiter
 *                            that set _SP_STARVING
 *   bits  8-11  spinners     threads spinning in the slow path (0-15)
 *   bit  12     STARVING     a waiter has waited past the starvation
 *                            bound and spins for a hand-off
 *   bit  13     WOKEN        a parked waiter was woken and has not run
 *   bit  14     SLICED       slice mode: waiters park without spinning,
 *                            and the thread that runs keeps the lock for
 *                            a slice (the lock's meter decides; docs)
 *   bit  15     reserved     0
 *   bits 16-18  budget       spin budget exponent e: a spinner spins at
 *                            most 16 << e PAUSE loops (16-512)
 *   bit  19     ARMED        a parker's membarrier has run on this lock:
 *                            from now on every unlock fences before it
 *                            decides not to wake, and parkers skip the
 *                            membarrier (sticky)
 *   bits 20-31  parked       threads counted as parked (0-2047: bit 31
 *                            stays clear; more waiters poll uncounted,
 *                            every 1 ms doubling up to 64 ms)
 *
 * Transitions are written (parked, spinners, locked) in src/lock/spinpark.c.
 *
 * Uncontended lock: cmpxchg of the locked byte 0 -> 1 (acquire).
 * Unlock: a plain store-release of 0 into the locked byte, a compiler
 * barrier, one load of the upper half; only if waiters are parked (or
 * the lock is ARMED) is the slow side entered.  The StoreLoad ordering
 * that a sleeping waiter needs is supplied from its side by the first
 * parker's pvspin_plat_fence_heavy() (membarrier), so the unlock of a lock
 * that has never had a parker carries no fence (pvspin/platform.h); once
 * a lock is ARMED its unlock pays one full fence instead, and no parker
 * pays a membarrier any more.
 *
 * Functions: pvspin_spinpark_{lock,trylock,unlock,is_locked,is_contended}.
 * Fast paths inline, slow paths in src/lock/spinpark.c.  Thread-safe and
 * async-signal-safe (the slow path uses only futex, clock_gettime and
 * membarrier); no thread slot is needed.  Never spins without bound: a
 * waiter of any scheduling class spins at most 2048 PAUSE loops before it
 * sleeps.
 */
#ifndef PVSPIN_SPINPARK_H
#define PVSPIN_SPINPARK_H

#include "pvspin/lock.h"
#include "pvspin/platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Word fields (see the layout above). */
#define _SP_LOCKED_MASK     0x000000ffu
#define _SP_LOCKED          0x00000001u
#define _SP_HANDOFF         0x00000002u
#define _SP_SPINNER_OFFSET  8
#define _SP_SPINNER_ONE     (1u << _SP_SPINNER_OFFSET)
#define _SP_SPINNERS_MASK   0x00000f00u
#define _SP_STARVING        0x00001000u
#define _SP_WOKEN           0x00002000u
#define _SP_SLICED          0x00004000u
#define _SP_RESERVED_MASK   0x00008000u
#define _SP_BUDGET_OFFSET   16
#define _SP_BUDGET_MASK     0x00070000u
#define _SP_ARMED           0x00080000u
#define _SP_PARKED_OFFSET   20
#define _SP_PARKED_ONE      (1u << _SP_PARKED_OFFSET)
#define _SP_PARKED_MASK     0xfff00000u

/** Out-of-line lock slow path: spin (bounded), then park; returns with
 *  the lock held.  If the lock is ARMED (it has been contended), the
 *  holder then requests the rseq time-slice extension of Linux 7.0
 *  (pvspin_plat_slice_ext_begin(); nothing before 7.0), which its unlock
 *  withdraws. */
void pvspin_spinpark_lock_slowpath(pvspin_lock_t *lock);

/** Out-of-line unlock slow path: `val` is the word the fast path read,
 *  whose locked byte is not plain _SP_LOCKED or whose STARVING bit is
 *  set: hand the lock off, or report misuse (unlock of a free lock, a
 *  corrupted word). */
void pvspin_spinpark_unlock_slowpath(pvspin_lock_t *lock, uint32_t val);

/** After a release that saw parked waiters or ARMED: meter the unlock
 *  (slice mode, src/lock/spinpark_slice.c); in a slice that is not over,
 *  nothing more; else a full fence, then read the word and wake one
 *  unless nobody is parked, a spinner will take the lock, or a woken one
 *  has not run yet.  Last, withdraw a time-slice extension request
 *  (pvspin_plat_slice_ext_end()). */
void pvspin_spinpark_unlock_wake(pvspin_lock_t *lock);

/** Try once: locked byte 0 -> 1 (acquire).  True if taken.  A relaxed
 *  read first, so a busy lock costs no exclusive line transfer. */
static inline bool pvspin_spinpark_trylock(pvspin_lock_t *lock)
{
	uint8_t free_byte = pvspin_plat_load8(&lock->locked, PVSPIN_RELAXED);
	if (free_byte)
		return false;
	return pvspin_plat_cmpxchg8(&lock->locked, &free_byte, _SP_LOCKED, PVSPIN_ACQUIRE);
}

/** Take the lock: (*, *, 0) -> (*, *, 1) by one cmpxchg (acquire), else
 *  spin while spinning can pay, then sleep until woken. */
static inline void pvspin_spinpark_lock(pvspin_lock_t *lock)
{
	uint8_t free_byte = 0;
	if (__builtin_expect(pvspin_plat_cmpxchg8(&lock->locked, &free_byte, _SP_LOCKED,
						  PVSPIN_ACQUIRE), 1))
		return;
	pvspin_spinpark_lock_slowpath(lock);
}

/** The release step, also the unlock slow path's: (*, *, 1) -> (*, *, 0)
 *  by a store-release of the locked byte, a compiler barrier (the
 *  first parker's pvspin_plat_fence_heavy() supplies the StoreLoad
 *  ordering against it), one load; if threads are parked or the lock is
 *  ARMED, the wake side (out of line, which fences). */
static inline void pvspin_spinpark_release(pvspin_lock_t *lock)
{
	pvspin_plat_store8(&lock->locked, 0, PVSPIN_RELEASE);
	pvspin_plat_fence_light();
	/* Only the upper half (budget, ARMED, parked): a load that overlaps the
	 * byte just stored would wait for that store to reach the cache
	 * (no store-to-load forwarding from a narrower store), which costs
	 * the line's transfer from a spinning waiter. */
	uint16_t hi = pvspin_plat_load16(&lock->tail, PVSPIN_RELAXED);
	if (__builtin_expect((hi & ((_SP_PARKED_MASK | _SP_ARMED) >> 16)) != 0, 0))
		pvspin_spinpark_unlock_wake(lock);
}

/** Release the lock (pvspin_spinpark_release()).  A waiter that starves
 *  gets the lock handed off instead, and an unlock of a free lock or of a
 *  corrupted word is reported as misuse (out of line). */
static inline void pvspin_spinpark_unlock(pvspin_lock_t *lock)
{
	uint32_t v = pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
	if (__builtin_expect((v & (_SP_LOCKED_MASK | _SP_STARVING)) != _SP_LOCKED, 0)) {
		pvspin_spinpark_unlock_slowpath(lock, v);
		return;
	}
	pvspin_spinpark_release(lock);
}

/** True if held (locked or handed off; a snapshot). */
static inline bool pvspin_spinpark_is_locked(pvspin_lock_t *lock)
{
	return (pvspin_plat_load32(&lock->val, PVSPIN_RELAXED) & _SP_LOCKED_MASK) != 0;
}

/** True if some thread spins or is parked on the lock (a snapshot). */
static inline bool pvspin_spinpark_is_contended(pvspin_lock_t *lock)
{
	return (pvspin_plat_load32(&lock->val, PVSPIN_RELAXED) &
		(_SP_SPINNERS_MASK | _SP_PARKED_MASK)) != 0;
}

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_SPINPARK_H */

/*
 * pvspin/spinpark.h - spin-then-park lock for threads the OS can preempt
 * (docs/spinpark.md).  The fifth kind on the same 4-byte word: a waiter
 * spins only while spinning can pay (at most as many spinners as there
 * are CPUs besides the holder's, for a budget learned per lock), then
 * parks on a futex on the lock word; an unlock wakes one parked waiter.
 * The lock goes to a running thread where one waits (barging), and a
 * waiter that has waited past a starvation bound is handed the lock.
 *
 * Design sources: two-phase waiting / competitive spinning (Ousterhout
 * 1982; Karlin et al., SOSP 1991), Dice's spin-then-park, the kernel's
 * mutex optimistic spinning with its HANDOFF flag
 * (kernel/locking/mutex.c), Go's sync.Mutex (mutexWoken, starvation mode
 * after 1 ms), WebKit's WTF::Lock / parking_lot (barging, a short spin,
 * park), glibc's adaptive mutex (a spin budget learned per lock),
 * concurrency restriction (Dice and Kogan, Malthusian locks, EuroSys
 * 2017), and for an unlock that never touches the lock after its
 * release, glibc's lowlevellock (one atomic exchange, then at most a
 * FUTEX_WAKE; glibc bug 13690).  No code is taken from any of them.
 *
 * Word layout (little endian; the locked byte is the qspinlock's):
 *
 *   bits  0- 7  locked byte  0 free, 1 locked, 2 = _SP_HANDOFF: released
 *                            by its holder and reserved for the waiter
 *                            that set _SP_STARVING
 *   bits  8-11  spinners     threads spinning in the slow path (0-5:
 *                            the cap of 4 and one starving owner; 6-15
 *                            is a corrupted word)
 *   bit  12     STARVING     a waiter has waited past the starvation
 *                            bound and spins for a hand-off
 *   bit  13     WOKEN        a parked waiter was woken and has not run
 *   bit  14     METER        the lock's mode controller measures: every
 *                            unlock goes out of line and counts itself
 *                            (src/lock/spinpark_slice.h)
 *   bit  15     SLICED       slice mode: a waiter that finds the lock
 *                            held sleeps instead of spinning, so the
 *                            holder keeps taking it back for a turn (the
 *                            acquisitions of a 250 us slice); every
 *                            unlock goes out of line and counts itself,
 *                            and the last of a turn wakes a sleeper to
 *                            take over; chosen only while measured to pay
 *   bits 16-18  budget       spin budget exponent e: a spinner spins at
 *                            most 16 << e PAUSE loops (16-2048)
 *   bit  19     EXTENDED     the holder asked the kernel for the rseq
 *                            time-slice extension (it waited for the
 *                            lock, and the kernel offers it: Linux 7.0);
 *                            its unlock withdraws the request and clears
 *                            the bit with the release.  Never set where
 *                            the kernel does not offer it.
 *   bits 20-31  parked       threads counted as parked (0-2047: bit 31
 *                            stays clear; more waiters poll uncounted,
 *                            every 1 ms doubling up to 64 ms)
 *
 * Transitions are written (parked, spinners, locked) in src/lock/spinpark.c.
 *
 * Uncontended lock: cmpxchg of the locked byte 0 -> 1 (acquire).
 * Corrupted words (a locked byte other than 0, 1 and 2, more than 5
 * spinners, or bit 31):
 * the slow path of lock() reports "spinpark: corrupted lock
 * word" (pvspin_report_misuse) wherever it reads one, before it acts on
 * it, and returns without the lock (a word corrupted on entry is left as
 * it was).  The inline fast path and trylock look at the locked byte
 * only, so they take a word whose locked byte is 0 whatever its other
 * bits (0x80000000 becomes 0x80000001); its unlock then reports it and
 * leaves it held, if the corrupted field sends it out of line (bit 31;
 * not a spinner count), as "corrupted lock word" whatever its locked
 * byte says (not as the unlock of a free or handed-off lock).  A trylock
 * that fails reads the word out of line and reports it the same way
 * (pvspin_spinpark_trylock_failed()): nothing is added to the path that
 * takes the lock.
 * Unlock: a load of the process's park sequence (pvspin_plat_park_seq())
 * and of the word field by field (misuse, STARVING, parked waiters,
 * EXTENDED; _pvspin_spinpark_load_fields), the
 * release as a plain store of 0 to the locked byte (as Linux's
 * queued_spin_unlock), then the sequence again: if a waiter went to
 * sleep meanwhile, one sleeper is woken (the sleepers' side is a
 * membarrier: src/lock/spinpark.c, "Lost wake-ups").  Where the process
 * has no membarrier or may run on more than
 * PVSPIN_PARK_SEQ_STORE_MAX_CPUS CPUs, the release is one `lock xadd`
 * instead.  Where a parked waiter is to be woken, WOKEN is set before the
 * release, while the lock is still held; after the release the unlock
 * touches no byte of the lock, and only a wake-up's FUTEX_WAKE names its
 * address.  So a thread that takes the lock next may destroy and free it
 * as soon as it has unlocked it, as POSIX allows for
 * pthread_spin_destroy and pthread_mutex_destroy (an unlock that read
 * the word after its release wrote WOKEN into memory freed and reused by
 * then: a new user's finding).
 *
 * Functions: pvspin_spinpark_{lock,trylock,unlock,is_locked,is_contended}.
 * Fast paths inline, slow paths in src/lock/spinpark.c.  Thread-safe and
 * async-signal-safe once the calling thread has its thread slot (the
 * slow path uses only futex, membarrier and clock_gettime; a thread's
 * first slow path of any kind takes its slot with pthread_once and
 * pthread_setspecific, which are not: a handler whose lock() is its
 * thread's first slow path, interrupting that thread's own first one,
 * is the unsafe case).
 * The lock itself needs no thread slot: a thread without one (every slot
 * taken) waits as any other.  The slot only holds the wait note that a
 * fork child reads (src/lock/fork_repair.c): the child takes the counts,
 * STARVING, WOKEN and hand-offs of the parent's other waiters out of the
 * word.  A waiter without a slot notes nothing, so a fork child keeps its
 * counts in the word (the child's waiters on that lock spin less and
 * wake by their timeouts) and a hand-off to it, which the child's waiters
 * revoke after a 1 ms sleep.  Never spins without bound: a
 * waiter of any scheduling class spins at most 16 + 2048 PAUSE loops
 * before it sleeps (the unregistered spin, then one registered spin;
 * about 51 us at this machine's 25 ns PAUSE, about twice that where
 * PAUSE takes 140 cycles, as on recent Intel cores); in slice mode, a
 * sleeper that finds the lock's sleepers and holder no more than the
 * CPUs the process may run on reads its own wake word for at most one
 * slice (250 us) before it sleeps (src/lock/spinpark_slice.c).
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
#define _SP_METER           0x00004000u
#define _SP_SLICED          0x00008000u
#define _SP_BUDGET_OFFSET   16
#define _SP_BUDGET_MASK     0x00070000u
#define _SP_EXTENDED        0x00080000u
#define _SP_PARKED_OFFSET   20
#define _SP_PARKED_ONE      (1u << _SP_PARKED_OFFSET)
#define _SP_PARKED_MASK     0xfff00000u
/* Word bits that send an unlock to its slow path: a locked byte other
 * than 1, STARVING (hand-off), METER (count the unlock), SLICED (count it
 * in the holder's turn), EXTENDED (a time-slice extension to withdraw),
 * parked waiters (maybe a wake-up). */
#define _SP_UNLOCK_SLOW_MASK \
	(_SP_LOCKED_MASK | _SP_STARVING | _SP_METER | _SP_SLICED | _SP_EXTENDED | _SP_PARKED_MASK)

/** Out-of-line lock slow path: spin (bounded), then park; returns with
 *  the lock held.  The holder, having waited, then requests the rseq
 *  time-slice extension of Linux 7.0 (pvspin_plat_slice_ext_begin();
 *  nothing before 7.0) and, if a request was made, sets EXTENDED so that
 *  its unlock withdraws it. */
void pvspin_spinpark_lock_slowpath(pvspin_lock_t *lock);

/** Out-of-line unlock: `val` is the word the fast path read, which shows
 *  something for the slow side (_SP_UNLOCK_SLOW_MASK), and `seq` the park
 *  sequence it read before it (the order the store release needs; neither
 *  is read again).  Reports misuse (a corrupted word, whatever its locked
 *  byte; else an unlock of a free lock, of one handed off) and returns;
 *  hands the lock to a STARVING waiter; sets WOKEN, still holding, if it
 *  is to wake a parked waiter (none while enough spinners will take the
 *  lock or a woken one has not run yet);
 *  releases, by a plain store with the fence and nothing EXTENDED, else by
 *  one `lock xadd` that also clears EXTENDED; then only FUTEX_WAKEs the
 *  address (also when the park sequence moved across the store, or the
 *  RMW returned a word with a new parker).  Last, if EXTENDED was set,
 *  withdraws the time-slice extension request
 *  (pvspin_plat_slice_ext_end()).  Never touches the lock after the
 *  release. */
void pvspin_spinpark_unlock_slowpath_seq(pvspin_lock_t *lock, uint32_t val, uint32_t seq);

/** The out-of-line unlock that pvspin 0.2.0's header called (`val`
 *  without the park sequence): reads the sequence and then the word, and
 *  goes on as pvspin_spinpark_unlock_slowpath_seq().  Kept so that
 *  programs built with that header run with this library. */
void pvspin_spinpark_unlock_slowpath(pvspin_lock_t *lock, uint32_t val);

/** After an RMW release whose load saw nobody parked but whose
 *  subtraction returned `old` with a parked waiter (it counted itself in
 *  between): wake one if it should be woken, without WOKEN (the lock is no
 *  longer ours to write: an extra wake-up is harmless, a missed one is
 *  not).  Touches only the address (FUTEX_WAKE). */
void pvspin_spinpark_unlock_released(pvspin_lock_t *lock, uint32_t old);

/** After a plain-store release during which the park sequence moved (a
 *  waiter, of this lock or another, went to sleep meanwhile and may have
 *  missed the release): wake one sleeper on `lock`, without WOKEN.
 *  Touches only the address (FUTEX_WAKE) and the wake stamps' side
 *  table; an extra wake-up is harmless, a missed one is not. */
void pvspin_spinpark_unlock_raced(pvspin_lock_t *lock);

/* Internal, for the inline paths here and src/lock/spinpark.c; not API. */

/* The take of a free lock: (*, *, 0) -> (*, *, 1), one cmpxchg of the
 * locked byte (acquire), whatever the word's other fields.  True if
 * taken.  lock(), trylock() and the slow path's unregistered spin. */
static inline bool _pvspin_spinpark_take_free(pvspin_lock_t *lock)
{
	uint8_t free_byte = 0;
	return pvspin_plat_cmpxchg8(&lock->locked, &free_byte, _SP_LOCKED, PVSPIN_ACQUIRE);
}

/* The plain-store release (the park sequence in store mode, `seq` read
 * before the word): (p, s, 1) -> (p, s, 0) by a store of the locked byte
 * (release), the compiler barrier that is this side of the sleepers'
 * membarrier (pvspin_plat_fence_light), then the sequence again.  True
 * if it moved since `seq`: a waiter went to sleep meanwhile and may have
 * missed the release, so the caller wakes one.  Nothing of the lock is
 * touched after the store.  The inline unlock and its slow path. */
static inline bool _pvspin_spinpark_store_release(pvspin_lock_t *lock, uint32_t seq)
{
	pvspin_plat_store8(&lock->locked, 0, PVSPIN_RELEASE);
	pvspin_plat_fence_light();
	return pvspin_plat_load32(pvspin_plat_park_seq(), PVSPIN_RELAXED) != seq;
}

/* The word read field by field: the locked byte, the byte above it and
 * the upper half, each by a load of its own width (relaxed), put
 * together.  For the unlock, and for the lock's slow path's first read,
 * right after the fast path's failed cmpxchg.  Not one 32-bit load: the
 * lock's cmpxchg of the locked byte, taken or failed (x86's locked
 * cmpxchg writes the byte back when it fails), may still be in this
 * CPU's store buffer, and a load wider than a store it overlaps cannot
 * take its value from there (store-to-load forwarding fails) and waits
 * until the store reaches the cache.  On this machine's AMD EPYC: a loop
 * of take, load and release on one thread, 6.8 ns with one 32-bit load,
 * 2.2 ns with these three, as with no load at all; a failed cmpxchg and
 * a load, 6.75 against 2.56 ns.
 *
 * The parts may be read at slightly different times, and that loses no
 * wake-up: in the unlock every part is read after the acquire load of
 * the park sequence (s1), so each sees everything a sleeper did before
 * its add to the sequence that s1 saw (its count, and the spinner count
 * it gave up); what changed after s1 belongs to a waiter whose sleep
 * comes after s1, which the release's second read of the sequence or the
 * sleeper's re-check covers (src/lock/spinpark.c, "Lost wake-ups").  So
 * do the unlock's slow path's decisions on such a word not to wake.
 * Every write either path makes on a word so read is a cmpxchg, which
 * fails on a word that is not the lock's. */
static inline uint32_t _pvspin_spinpark_load_fields(pvspin_lock_t *lock)
{
	uint32_t locked = pvspin_plat_load8(&lock->locked, PVSPIN_RELAXED);
	uint32_t pending = pvspin_plat_load8(&lock->pending, PVSPIN_RELAXED);
	uint32_t tail = pvspin_plat_load16(&lock->tail, PVSPIN_RELAXED);
	return locked | pending << 8 | tail << 16;
}

/* The try: locked byte 0 -> 1 (acquire), after a relaxed read of the
 * byte, so a busy lock costs no exclusive line transfer.  True if taken.
 * Says nothing of the word: trylock() and the slow path's tries, which
 * check the word themselves. */
static inline bool _pvspin_spinpark_try(pvspin_lock_t *lock)
{
	return !pvspin_plat_load8(&lock->locked, PVSPIN_RELAXED) &&
	       _pvspin_spinpark_take_free(lock);
}

/** The end of a trylock that failed: reads the word (field by field,
 *  _pvspin_spinpark_load_fields) and reports it if it is corrupted (a
 *  locked byte other than 0, 1 and 2, more than 5 spinners, bit 31:
 *  "spinpark: corrupted lock word", pvspin_report_misuse, as the unlock
 *  and the lock's slow path say it); returns false.  Out of line, so that
 *  the definition of a corrupted word is the library's, not the caller's
 *  copy of it. */
bool pvspin_spinpark_trylock_failed(pvspin_lock_t *lock);

/** Try once: locked byte 0 -> 1 (acquire).  True if taken.  A relaxed
 *  read first, so a busy lock costs no exclusive line transfer.  A try
 *  that fails reports a corrupted word (pvspin_spinpark_trylock_failed(),
 *  called on the failed path only: the taking path is the read and the
 *  cmpxchg, as before) and returns false. */
static inline bool pvspin_spinpark_trylock(pvspin_lock_t *lock)
{
	if (_pvspin_spinpark_try(lock))
		return true;
	return pvspin_spinpark_trylock_failed(lock);
}

/** Take the lock: (*, *, 0) -> (*, *, 1) by one cmpxchg (acquire), else
 *  spin while spinning can pay, then sleep until woken. */
static inline void pvspin_spinpark_lock(pvspin_lock_t *lock)
{
	if (__builtin_expect(_pvspin_spinpark_take_free(lock), 1))
		return;
	pvspin_spinpark_lock_slowpath(lock);
}

/** Release the lock.  When the word read shows nothing for the slow side
 *  (nobody parked, not EXTENDED, no STARVING, METER or SLICED, not
 *  corrupted):
 *  (0, s, 1) -> (p, s, 0), in store mode (the park sequence's bit 0
 *  clear: the asymmetric fence, a small machine) by a plain store of the
 *  locked byte (release), after Linux's queued_spin_unlock, then, if the
 *  park sequence moved since before the word was read (a waiter went to
 *  sleep meanwhile), pvspin_spinpark_unlock_raced(); in RMW mode by one
 *  atomic subtraction (release) that returns the word it replaced, and
 *  if that counts a parker that came meanwhile,
 *  pvspin_spinpark_unlock_released().  Else
 *  pvspin_spinpark_unlock_slowpath_seq().  Nothing of the lock is read or
 *  written after the release (see the header comment).  The acquire load
 *  of the sequence orders it before the word's (a sleeper counts itself
 *  in the word before it adds to the sequence); the compiler barrier
 *  (pvspin_plat_fence_light) is this side of the sleeper's membarrier. */
static inline void pvspin_spinpark_unlock(pvspin_lock_t *lock)
{
	uint32_t seq = pvspin_plat_load32(pvspin_plat_park_seq(), PVSPIN_ACQUIRE);
	uint32_t v = _pvspin_spinpark_load_fields(lock);
	if (__builtin_expect((v & _SP_UNLOCK_SLOW_MASK) == _SP_LOCKED, 1)) {
		if (__builtin_expect(!(seq & PVSPIN_PARK_SEQ_RMW_RELEASE), 1)) {
			if (__builtin_expect(_pvspin_spinpark_store_release(lock, seq), 0))
				pvspin_spinpark_unlock_raced(lock);
			return;
		}
		uint32_t old = pvspin_plat_fetch_add32(&lock->val, -_SP_LOCKED, PVSPIN_RELEASE);
		if (__builtin_expect((old & _SP_PARKED_MASK) != 0, 0))
			pvspin_spinpark_unlock_released(lock, old);
		return;
	}
	pvspin_spinpark_unlock_slowpath_seq(lock, v, seq);
}

/** True if held (locked or handed off; a snapshot).  The locked byte by
 *  a load of its own width: right after this thread's lock(), whose
 *  cmpxchg of that byte may still be buffered, a 32-bit load would wait
 *  for it (_pvspin_spinpark_load_fields). */
static inline bool pvspin_spinpark_is_locked(pvspin_lock_t *lock)
{
	return pvspin_plat_load8(&lock->locked, PVSPIN_RELAXED) != 0;
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

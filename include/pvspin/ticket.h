/*
 * pvspin/ticket.h - classic FIFO ticket lock in the same 4 bytes (Linux's
 * spinlock before qspinlock, arch/x86 ticket spinlocks): bits 0-15 are the
 * ticket now served (owner), bits 16-31 the next ticket to hand out.
 * Historical baseline: fair, and the textbook victim of lock waiter
 * preemption.  At most 65535 threads holding or waiting at once (with
 * 65536, next wraps onto owner and the word reads free).
 *
 * No ticket word is reported as corrupted, because none can be told from
 * a real state: owner and next both count modulo 65536, so a free lock
 * is any word with next == owner (0x12341234 after 0x1234 acquisitions,
 * 0xffffffff after 65535), and next - owner (mod 65536) is the holder
 * plus its waiters, any of 1-65535 (a lock in shared memory may have
 * waiters in several processes, so not even this process's thread count
 * bounds it).  So trylock and lock take any word with next == owner, and
 * a stray store that leaves next != owner looks like a held lock: lock()
 * takes the next ticket and waits for it, as behind a holder.  Only the
 * unlock of a free word (next == owner) is certainly misuse, and it is
 * reported.
 *
 * Functions: pvspin_ticket_{lock,trylock,unlock,is_locked,is_contended}.
 * Thread-safe; not async-signal-safe against a waiter it interrupted
 * (no FIFO lock can be).
 */
#ifndef PVSPIN_TICKET_H
#define PVSPIN_TICKET_H

#include "pvspin/lock.h"
#include "pvspin/platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One ticket: added to the word to take the next ticket. */
#define PVSPIN_TICKET_NEXT_ONE (1u << 16)

/** Out-of-line wait for ticket `ticket`; returns with the lock held. */
void pvspin_ticket_lock_slowpath(pvspin_lock_t *lock, uint16_t ticket);

/** Try once: take the next ticket only if it is served at once. */
static inline bool pvspin_ticket_trylock(pvspin_lock_t *lock)
{
	uint32_t val = pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
	if ((val >> 16) != (val & 0xffffu))
		return false;
	return pvspin_plat_cmpxchg32(&lock->val, &val, val + PVSPIN_TICKET_NEXT_ONE,
				     PVSPIN_ACQUIRE);
}

/** Take a ticket (fetch-add, acquire) and wait until it is served. */
static inline void pvspin_ticket_lock(pvspin_lock_t *lock)
{
	uint32_t old = pvspin_plat_fetch_add32(&lock->val, PVSPIN_TICKET_NEXT_ONE,
					       PVSPIN_ACQUIRE);
	if (__builtin_expect((old >> 16) == (old & 0xffffu), 1))
		return;
	pvspin_ticket_lock_slowpath(lock, (uint16_t)(old >> 16));
}

/** Serve the next ticket (store-release of owner + 1); an unlocked lock is
 *  reported and left as it was. */
static inline void pvspin_ticket_unlock(pvspin_lock_t *lock)
{
	uint32_t val = pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
	uint16_t owner = (uint16_t)(val & 0xffffu);
	if (__builtin_expect(owner == (uint16_t)(val >> 16), 0)) {
		pvspin_report_misuse("ticket: unlock of a lock that is not locked",
				     lock, val);
		return;
	}
	pvspin_plat_store16(&lock->locked_pending, (uint16_t)(owner + 1), PVSPIN_RELEASE);
}

/** True if held (a snapshot). */
static inline bool pvspin_ticket_is_locked(pvspin_lock_t *lock)
{
	uint32_t val = pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
	return (val >> 16) != (val & 0xffffu);
}

/** True if a thread waits behind the holder (a snapshot). */
static inline bool pvspin_ticket_is_contended(pvspin_lock_t *lock)
{
	uint32_t val = pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
	return (uint16_t)((val >> 16) - (val & 0xffffu)) > 1;
}

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_TICKET_H */

/*
 * lock_steps.h - the small named steps of the queued spinlock slow paths,
 * after Linux kernel/locking/qspinlock.c (clear_pending,
 * clear_pending_set_locked, xchg_tail, set_locked, ...), and the wait
 * predicates they spin on.  Private to src/lock.  Word transitions are
 * written (tail, pending, locked).
 */
#ifndef PVSPIN_SRC_LOCK_STEPS_H
#define PVSPIN_SRC_LOCK_STEPS_H

#include "pvspin/lock.h"
#include "pvspin/platform.h"
#include "pvspin/tunables.h"
#include "qnode.h"

/* ---- wait predicates: true when the wait is over ------------------- */

static inline bool word_nonzero(uint32_t v, uint32_t arg)
{ (void)arg; return v != 0; }
static inline bool word_zero(uint32_t v, uint32_t arg)
{ (void)arg; return v == 0; }
/* Anything but (0,1,0): the pending -> locked hand-over is over. */
static inline bool word_not_pending_only(uint32_t v, uint32_t arg)
{ (void)arg; return v != _Q_PENDING_VAL; }
/* (*,*,0) */
static inline bool word_unlocked(uint32_t v, uint32_t arg)
{ (void)arg; return !(v & _Q_LOCKED_MASK); }
/* (*,0,0) */
static inline bool word_unlocked_no_pending(uint32_t v, uint32_t arg)
{ (void)arg; return !(v & _Q_LOCKED_PENDING_MASK); }
/* Never true: a pure delay of max_loops PAUSEs (backoff). */
static inline bool word_never(uint32_t v, uint32_t arg)
{ (void)v; (void)arg; return false; }

/*
 * A word that no transition of the queued kinds makes, so the program
 * overwrote it: a pending byte other than 0 or 1, a locked byte other
 * than 0 or 1 (or _Q_SLOW_VAL when `pv`), or a tail naming a slot beyond
 * the node array (following it would read and write outside it).
 */
static inline bool word_corrupt(uint32_t v, bool pv)
{
	uint32_t locked = v & _Q_LOCKED_MASK, pending = (v & _Q_PENDING_MASK) >> _Q_PENDING_OFFSET;
	return pending > 1 || (locked > 1 && !(pv && locked == _Q_SLOW_VAL)) ||
	       ((v & _Q_TAIL_MASK) && !tail_in_range(v));
}

/* ---- steps on the lock word --------------------------------------- */

/* (*,1,*) -> (*,0,*): relaxed byte store (we own the pending bit). */
static inline void clear_pending(pvspin_lock_t *lock)
{
	pvspin_plat_store8(&lock->pending, 0, PVSPIN_RELAXED);
}

/* (*,0,*) -> (*,1,*): relaxed byte store (the PV queue head). */
static inline void set_pending(pvspin_lock_t *lock)
{
	pvspin_plat_store8(&lock->pending, 1, PVSPIN_RELAXED);
}

/* (*,1,0) -> (*,0,1): one halfword store; we own pending, nobody else
 * writes the low half now.  Relaxed: acquire came from the wait. */
static inline void clear_pending_set_locked(pvspin_lock_t *lock)
{
	pvspin_plat_store16(&lock->locked_pending, _Q_LOCKED_VAL, PVSPIN_RELAXED);
}

/* (*,*,0) -> (*,*,1): relaxed byte store (queue head, lock is ours). */
static inline void set_locked(pvspin_lock_t *lock)
{
	pvspin_plat_store8(&lock->locked, _Q_LOCKED_VAL, PVSPIN_RELAXED);
}

/* (*,*,*) -> (*,1,*): fetch_or, acquire; returns the old word. */
static inline uint32_t set_pending_fetch_acquire(pvspin_lock_t *lock)
{
	return pvspin_plat_fetch_or32(&lock->val, _Q_PENDING_VAL, PVSPIN_ACQUIRE);
}

/* (p,*,*) -> (n,*,*): exchange the tail halfword, acq_rel; returns the old
 * tail in word position. */
static inline uint32_t xchg_tail(pvspin_lock_t *lock, uint32_t tail)
{
	return (uint32_t)pvspin_plat_xchg16(&lock->tail,
					    (uint16_t)(tail >> _Q_TAIL_IDX_OFFSET),
					    PVSPIN_ACQ_REL) << _Q_TAIL_IDX_OFFSET;
}

/* Wait until our successor has linked itself (acquire). */
static inline struct pvspin_qnode *wait_for_next(struct pvspin_qnode *node)
{
	return pvspin_plat_waitptr((void *const *)&node->next);
}

/* A waiter without an MCS node sleeps for this long after each spin
 * budget that ended with the word still not free, doubling up to the cap
 * (ns).  Nobody wakes it: the sleep is a timed wait on the lock word. */
#define NO_NODE_SLEEP_MIN_NS 50000u      /* 50 us */
#define NO_NODE_SLEEP_MAX_NS 16000000u   /* 16 ms */

/*
 * Take the lock without an MCS node (nesting beyond PVSPIN_MAX_NODES or no
 * slot left): wait until the word reads free, (0,0,0), then try; repeat.
 * The kernel spins here without a bound (its only case is an NMI nested
 * four deep, which ends within one critical section).  A thread is not
 * that: with more threads than slots, hundreds of slot-less threads can
 * wait at once, and each one that spins takes a CPU that the holder, or
 * a halted queue head that was just kicked, needs to run; on two CPUs
 * that made every hand-off wait for a scheduler round (a 0.3 s run of
 * 4,500 threads took minutes).  So the wait is bounded: one spin budget
 * (PVSPIN_TUNE_SPIN_THRESHOLD loops), then a timed sleep on the word
 * (pvspin_plat_park32), 50 us doubling to 16 ms, counted as
 * lock_no_node_sleep.  Such a waiter only takes a free word, so it never
 * overtakes the queue; it waits until the queue drains.
 */
static inline void lock_without_node(pvspin_lock_t *lock,
				     bool (*trylock)(pvspin_lock_t *))
{
	uint32_t budget = pvspin_tunable_get(PVSPIN_TUNE_SPIN_THRESHOLD), val;
	uint64_t sleep_ns = NO_NODE_SLEEP_MIN_NS;

	while (!trylock(lock)) {
		if (pvspin_plat_wait32(&lock->val, word_zero, 0, budget, &val, NULL))
			continue;
		pvspin_plat_event(PVSPIN_EV_LOCK_NO_NODE_SLEEP);
		(void)pvspin_plat_park32(&lock->val, val, sleep_ns);
		if (sleep_ns < NO_NODE_SLEEP_MAX_NS)
			sleep_ns *= 2;
	}
}

#endif /* PVSPIN_SRC_LOCK_STEPS_H */

/*
 * torture_lost_handoff.c - the torture-only broken kind `lost_handoff`:
 * the library's native queued spinlock slow path
 * (src/lock/qspinlock_slowpath.h, the shipped source) compiled again with
 * its pv_kick_node hook - called right after the new owner passed the MCS
 * baton to its successor - replaced by one that takes the baton back in 1
 * of 16 hand-overs.  A successor that had not yet seen the baton spins for
 * ever while the lock is free and every later waiter queues behind it: the
 * stall watchdog's rule 1 ("free lock, waiting writer") must catch it.
 * The MCS node array is the library's.  Offered by `pvspin torture` only.
 */
#include "pvspin/qspinlock.h"
#include "lock/qnode.h"
#include "torture.h"

static uint64_t lost_handoffs;
static _Thread_local uint64_t handoff_rng;

/* The broken hook: now and then undo the baton store just made. */
static void take_back_baton(struct pvspin_qnode *next)
{
	if (!handoff_rng)
		handoff_rng = (uint64_t)(uintptr_t)&handoff_rng | 1;
	if (tool_random(&handoff_rng) % 16)
		return;
	if (__atomic_exchange_n(&next->locked, 0, __ATOMIC_RELAXED))
		__atomic_fetch_add(&lost_handoffs, 1, __ATOMIC_RELAXED);
}

#define QSPIN_PV 0
#define QSPIN_SLOWPATH torture_lost_handoff_lock_slowpath
#define QSPIN_NAME "lost_handoff"
#define queued_trylock pvspin_word_trylock
#define pv_init_node(node, cpu) ((void)(node), (void)(cpu))
#define pv_wait_node(node, prev) ((void)(node), (void)(prev))
#define pv_kick_node(lock, node) ((void)(lock), take_back_baton(node))
#define pv_wait_head_or_lock(lock, node) ((void)(lock), (void)(node), 0u)

void torture_lost_handoff_lock_slowpath(pvspin_lock_t *lock, uint32_t val);
#include "lock/qspinlock_slowpath.h"

void torture_lost_handoff_lock(pvspin_lock_t *lock)
{
	uint32_t val = 0;
	/* the fast path of pvspin_qspinlock_lock, then the broken slow path */
	if (pvspin_plat_cmpxchg32(&lock->val, &val, _Q_LOCKED_VAL, PVSPIN_ACQUIRE))
		return;
	torture_lost_handoff_lock_slowpath(lock, val);
}

void torture_lost_handoff_unlock(pvspin_lock_t *lock)
{
	pvspin_qspinlock_unlock(lock);
}

uint64_t torture_lost_handoffs(void)
{
	return __atomic_load_n(&lost_handoffs, __ATOMIC_RELAXED);
}

/*
 * torture_lost_kick.c - the torture-only broken kind `lost_kick`: the
 * library's pvqspinlock (src/lock/pvqspinlock.c, the shipped source, not a
 * copy) compiled a second time with its kick renamed to one that drops
 * every kick, and its two slow paths renamed so that they do not clash with
 * the library's.  The MCS node array (pvspin_qnodes) is shared with the
 * library; the lock -> node hash table is static in pvqspinlock.c, so this
 * copy has its own.  A halted waiter is never woken: the stall watchdog of
 * `pvspin torture` must catch it.  Offered by `pvspin torture` only.
 */
#define pvspin_plat_pv_kick torture_lost_kick_pv_kick
#define pvspin_pvqspinlock_lock_slowpath torture_lost_kick_lock_slowpath
#define pvspin_pvqspinlock_unlock_slowpath torture_lost_kick_unlock_slowpath
/* and its trylock's end (unused: torture takes lost_kick by lock()) */
#define pvspin_pvqspinlock_trylock_failed torture_lost_kick_trylock_failed
/* its own hash table's fork-child repair (unused: torture does not fork) */
#define pvspin_pv_hash_drop torture_lost_kick_hash_drop
/* and its own reset between simulator runs (unused here) */
#define pvspin_pv_hash_reset torture_lost_kick_hash_reset
#include "lock/pvqspinlock.c"

#include "torture.h"

static uint64_t lost_kicks;

/* The broken kick: count it, do nothing. */
void torture_lost_kick_pv_kick(int cpu)
{
	(void)cpu;
	__atomic_fetch_add(&lost_kicks, 1, __ATOMIC_RELAXED);
}

uint64_t torture_lost_kicks(void)
{
	return __atomic_load_n(&lost_kicks, __ATOMIC_RELAXED);
}

/* The inline fast paths of pvspin/pvqspinlock.h, here calling the renamed
 * slow paths. */
void torture_lost_kick_lock(pvspin_lock_t *lock)
{
	pvspin_pvqspinlock_lock(lock);
}

void torture_lost_kick_unlock(pvspin_lock_t *lock)
{
	pvspin_pvqspinlock_unlock(lock);
}

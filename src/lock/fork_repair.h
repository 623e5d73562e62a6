/*
 * fork_repair.h - the fork child's repair of the lock words the parent's
 * other threads were waiting on (fork_repair.c).  Private to src/lock;
 * hidden in the shared libraries.
 */
#ifndef PVSPIN_SRC_LOCK_FORK_REPAIR_H
#define PVSPIN_SRC_LOCK_FORK_REPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "pvspin/lock.h"

#pragma GCC visibility push(hidden)

/** Is `lock` one of the `nkeep` locks in `keep` (the forking thread's own
 *  waits, which the repair leaves alone)?  Linear: nkeep <= 7. */
static inline bool fork_repair_kept(pvspin_lock_t *const *keep, uint32_t nkeep,
				    const pvspin_lock_t *lock)
{
	for (uint32_t k = 0; k < nkeep; k++)
		if (keep[k] == lock)
			return true;
	return false;
}

/**
 * Repair every lock word that a wait note (wait_note.h) of slots
 * 0 .. nslots-1 other than `own` names, empty the PV hash of the entries
 * of those waits, and reset those slots' notes and MCS nesting counts.
 * `own`: the calling thread's slot, or -1; the words its own notes name
 * are left as they are.  Only for a process where the threads of those
 * slots no longer exist (the child of fork(), from its atfork handler);
 * not thread-safe.  Native only (fork_repair.c).
 */
void pvspin_fork_repair_child(int own, uint32_t nslots);

/**
 * Remove from the PV hash every entry whose lock is not one of the
 * `nkeep` locks in `keep`, setting that lock's _Q_SLOW_VAL locked byte
 * back to _Q_LOCKED_VAL (nobody is left to kick).  Same conditions as
 * above (pvqspinlock.c).
 */
void pvspin_pv_hash_drop(pvspin_lock_t *const *keep, uint32_t nkeep);

#pragma GCC visibility pop

#endif /* PVSPIN_SRC_LOCK_FORK_REPAIR_H */

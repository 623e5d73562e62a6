/*
 * pvspin/spinlock.h - lock operations on the process-wide default kind
 * (pvspin_default_kind(), pvspin/lock.h): what an application normally
 * calls.  Each is one out-of-line call that dispatches to the family's
 * inline fast path.  Thread-safe.
 */
#ifndef PVSPIN_SPINLOCK_H
#define PVSPIN_SPINLOCK_H

#include <stdbool.h>
#include "pvspin/lock.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Initialise *lock to unlocked (same as PVSPIN_LOCK_INIT). */
void pvspin_lock_init(pvspin_lock_t *lock);
/** Take the lock (default kind); spins and, for pvqspinlock, may halt. */
void pvspin_lock(pvspin_lock_t *lock);
/** Try once; true if taken. */
bool pvspin_trylock(pvspin_lock_t *lock);
/** Release; misuse is reported (pvspin_set_misuse_handler). */
void pvspin_unlock(pvspin_lock_t *lock);
/** Snapshot: held by some thread? */
bool pvspin_is_locked(pvspin_lock_t *lock);
/** Snapshot: waited for by some thread? */
bool pvspin_is_contended(pvspin_lock_t *lock);

/** The same five operations on an explicit kind (benchmarks, tests).
 *  An invalid kind is reported as misuse. */
void pvspin_kind_lock(pvspin_kind_t kind, pvspin_lock_t *lock);
bool pvspin_kind_trylock(pvspin_kind_t kind, pvspin_lock_t *lock);
void pvspin_kind_unlock(pvspin_kind_t kind, pvspin_lock_t *lock);
bool pvspin_kind_is_locked(pvspin_kind_t kind, pvspin_lock_t *lock);
bool pvspin_kind_is_contended(pvspin_kind_t kind, pvspin_lock_t *lock);

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_SPINLOCK_H */

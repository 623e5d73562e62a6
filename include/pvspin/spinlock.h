/*
 * pvspin/spinlock.h - lock operations on the process-wide default kind
 * (pvspin_default_kind(), pvspin/lock.h): what an application normally
 * calls.  Each is one out-of-line call that dispatches to the family's
 * inline fast path; the explicit-kind pvspin_kind_*() are inline.
 * Thread-safe.
 */
#ifndef PVSPIN_SPINLOCK_H
#define PVSPIN_SPINLOCK_H

#include <stdbool.h>
#include "pvspin/lock.h"
#include "pvspin/pvqspinlock.h"
#include "pvspin/qspinlock.h"
#include "pvspin/tas.h"
#include "pvspin/ticket.h"
#include "pvspin/spinpark.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Initialise *lock to unlocked (same as PVSPIN_LOCK_INIT). */
void pvspin_lock_init(pvspin_lock_t *lock);
/** Take the lock (default kind); spins and, for pvqspinlock and
 *  spinpark, may sleep. */
void pvspin_lock(pvspin_lock_t *lock);
/** Try once; true if taken. */
bool pvspin_trylock(pvspin_lock_t *lock);
/** Release; misuse is reported (pvspin_set_misuse_handler). */
void pvspin_unlock(pvspin_lock_t *lock);
/** Snapshot: held by some thread? */
bool pvspin_is_locked(pvspin_lock_t *lock);
/** Snapshot: waited for by some thread? */
bool pvspin_is_contended(pvspin_lock_t *lock);

/*
 * The same five operations on an explicit kind (benchmarks, the
 * interposer, tests), dispatching to the kinds' inline fast paths.  An
 * invalid kind is reported as misuse (pvspin_set_misuse_handler); the lock
 * is then not taken and the boolean ones return false.
 */

/** Report an invalid kind passed to pvspin_kind_*(). */
void pvspin_kind_invalid(pvspin_kind_t kind, pvspin_lock_t *lock);

/* Each dispatch below tests spinpark, the default policy's kind on every
 * machine, before the switch: the switch over five kinds compiles to a
 * jump table, and the interposer's pthread_spin_lock and _unlock, which
 * dispatch per call, cost 7.1-7.8 ns a pair with it against glibc's 5.3
 * (2026-12-07, an AMD EPYC KVM guest). */
#define _PVSPIN_KIND_IS_DEFAULT(kind) __builtin_expect((kind) == PVSPIN_KIND_SPINPARK, 1)

static inline void pvspin_kind_lock(pvspin_kind_t kind, pvspin_lock_t *lock)
{
	if (_PVSPIN_KIND_IS_DEFAULT(kind)) {
		pvspin_spinpark_lock(lock);
		return;
	}
	switch (kind) {
	case PVSPIN_KIND_QSPINLOCK: pvspin_qspinlock_lock(lock); return;
	case PVSPIN_KIND_PVQSPINLOCK: pvspin_pvqspinlock_lock(lock); return;
	case PVSPIN_KIND_TAS: pvspin_tas_lock(lock); return;
	case PVSPIN_KIND_TICKET: pvspin_ticket_lock(lock); return;
	case PVSPIN_KIND_SPINPARK: pvspin_spinpark_lock(lock); return;
	default: pvspin_kind_invalid(kind, lock);
	}
}

static inline bool pvspin_kind_trylock(pvspin_kind_t kind, pvspin_lock_t *lock)
{
	if (_PVSPIN_KIND_IS_DEFAULT(kind))
		return pvspin_spinpark_trylock(lock);
	switch (kind) {
	case PVSPIN_KIND_QSPINLOCK: return pvspin_qspinlock_trylock(lock);
	case PVSPIN_KIND_PVQSPINLOCK: return pvspin_pvqspinlock_trylock(lock);
	case PVSPIN_KIND_TAS: return pvspin_tas_trylock(lock);
	case PVSPIN_KIND_TICKET: return pvspin_ticket_trylock(lock);
	case PVSPIN_KIND_SPINPARK: return pvspin_spinpark_trylock(lock);
	default: pvspin_kind_invalid(kind, lock); return false;
	}
}

static inline void pvspin_kind_unlock(pvspin_kind_t kind, pvspin_lock_t *lock)
{
	if (_PVSPIN_KIND_IS_DEFAULT(kind)) {
		pvspin_spinpark_unlock(lock);
		return;
	}
	switch (kind) {
	case PVSPIN_KIND_QSPINLOCK: pvspin_qspinlock_unlock(lock); return;
	case PVSPIN_KIND_PVQSPINLOCK: pvspin_pvqspinlock_unlock(lock); return;
	case PVSPIN_KIND_TAS: pvspin_tas_unlock(lock); return;
	case PVSPIN_KIND_TICKET: pvspin_ticket_unlock(lock); return;
	case PVSPIN_KIND_SPINPARK: pvspin_spinpark_unlock(lock); return;
	default: pvspin_kind_invalid(kind, lock);
	}
}

static inline bool pvspin_kind_is_locked(pvspin_kind_t kind, pvspin_lock_t *lock)
{
	if (_PVSPIN_KIND_IS_DEFAULT(kind))
		return pvspin_spinpark_is_locked(lock);
	switch (kind) {
	case PVSPIN_KIND_QSPINLOCK: return pvspin_qspinlock_is_locked(lock);
	case PVSPIN_KIND_PVQSPINLOCK: return pvspin_pvqspinlock_is_locked(lock);
	case PVSPIN_KIND_TAS: return pvspin_tas_is_locked(lock);
	case PVSPIN_KIND_TICKET: return pvspin_ticket_is_locked(lock);
	case PVSPIN_KIND_SPINPARK: return pvspin_spinpark_is_locked(lock);
	default: pvspin_kind_invalid(kind, lock); return false;
	}
}

static inline bool pvspin_kind_is_contended(pvspin_kind_t kind, pvspin_lock_t *lock)
{
	switch (kind) {
	case PVSPIN_KIND_QSPINLOCK: return pvspin_qspinlock_is_contended(lock);
	case PVSPIN_KIND_PVQSPINLOCK: return pvspin_pvqspinlock_is_contended(lock);
	case PVSPIN_KIND_TAS: return pvspin_tas_is_contended(lock);
	case PVSPIN_KIND_TICKET: return pvspin_ticket_is_contended(lock);
	case PVSPIN_KIND_SPINPARK: return pvspin_spinpark_is_contended(lock);
	default: pvspin_kind_invalid(kind, lock); return false;
	}
}

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_SPINLOCK_H */

/*
 * preload_kind_ops.h - the lock operations of a kind chosen at run time,
 * dispatched to the kinds' INLINE fast paths (pvspin/<kind>.h), so an
 * uncontended interposed lock/unlock costs no call into the dispatch of
 * pvspin/spinlock.h.  Same contract as pvspin_kind_lock() and friends
 * (thread-safe; an invalid kind is reported as misuse).  Private to
 * preload/.
 */
#ifndef PVSPIN_PRELOAD_KIND_OPS_H
#define PVSPIN_PRELOAD_KIND_OPS_H

#include "pvspin/pvqspinlock.h"
#include "pvspin/qspinlock.h"
#include "pvspin/spinlock.h"
#include "pvspin/tas.h"
#include "pvspin/ticket.h"

static inline __attribute__((always_inline)) void
preload_kind_lock(pvspin_kind_t k, pvspin_lock_t *l)
{
	switch (k) {
	case PVSPIN_KIND_PVQSPINLOCK: pvspin_pvqspinlock_lock(l); return;
	case PVSPIN_KIND_QSPINLOCK: pvspin_qspinlock_lock(l); return;
	case PVSPIN_KIND_TAS: pvspin_tas_lock(l); return;
	case PVSPIN_KIND_TICKET: pvspin_ticket_lock(l); return;
	default: pvspin_kind_lock(k, l); return;
	}
}

static inline __attribute__((always_inline)) bool
preload_kind_trylock(pvspin_kind_t k, pvspin_lock_t *l)
{
	switch (k) {
	case PVSPIN_KIND_PVQSPINLOCK: return pvspin_pvqspinlock_trylock(l);
	case PVSPIN_KIND_QSPINLOCK: return pvspin_qspinlock_trylock(l);
	case PVSPIN_KIND_TAS: return pvspin_tas_trylock(l);
	case PVSPIN_KIND_TICKET: return pvspin_ticket_trylock(l);
	default: return pvspin_kind_trylock(k, l);
	}
}

static inline __attribute__((always_inline)) void
preload_kind_unlock(pvspin_kind_t k, pvspin_lock_t *l)
{
	switch (k) {
	case PVSPIN_KIND_PVQSPINLOCK: pvspin_pvqspinlock_unlock(l); return;
	case PVSPIN_KIND_QSPINLOCK: pvspin_qspinlock_unlock(l); return;
	case PVSPIN_KIND_TAS: pvspin_tas_unlock(l); return;
	case PVSPIN_KIND_TICKET: pvspin_ticket_unlock(l); return;
	default: pvspin_kind_unlock(k, l); return;
	}
}

static inline __attribute__((always_inline)) bool
preload_kind_is_locked(pvspin_kind_t k, pvspin_lock_t *l)
{
	switch (k) {
	case PVSPIN_KIND_PVQSPINLOCK: return pvspin_pvqspinlock_is_locked(l);
	case PVSPIN_KIND_QSPINLOCK: return pvspin_qspinlock_is_locked(l);
	case PVSPIN_KIND_TAS: return pvspin_tas_is_locked(l);
	case PVSPIN_KIND_TICKET: return pvspin_ticket_is_locked(l);
	default: return pvspin_kind_is_locked(k, l);
	}
}

#endif /* PVSPIN_PRELOAD_KIND_OPS_H */

/*
 * kind.c - kind names, misuse reporting and the explicit-kind dispatch of
 * pvspin/spinlock.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvspin/lock.h"
#include "pvspin/spinlock.h"
#include "pvspin/qspinlock.h"
#include "pvspin/pvqspinlock.h"
#include "pvspin/tas.h"
#include "pvspin/ticket.h"

static const char *const kind_names[PVSPIN_KIND_COUNT] = {
	[PVSPIN_KIND_NONE] = "none",
	[PVSPIN_KIND_QSPINLOCK] = "qspinlock",
	[PVSPIN_KIND_PVQSPINLOCK] = "pvqspinlock",
	[PVSPIN_KIND_TAS] = "tas",
	[PVSPIN_KIND_TICKET] = "ticket",
};

const char *pvspin_kind_name(pvspin_kind_t kind)
{
	if ((unsigned)kind >= PVSPIN_KIND_COUNT)
		return "none";
	return kind_names[kind];
}

pvspin_kind_t pvspin_kind_from_name(const char *name)
{
	if (!name)
		return PVSPIN_KIND_NONE;
	for (int k = PVSPIN_KIND_NONE + 1; k < PVSPIN_KIND_COUNT; k++)
		if (strcmp(name, kind_names[k]) == 0)
			return (pvspin_kind_t)k;
	return PVSPIN_KIND_NONE;
}

const char *pvspin_kind_names(void)
{
	return "qspinlock, pvqspinlock, tas, ticket";
}

/* ---- misuse --------------------------------------------------------- */

static void default_misuse_handler(const char *what, const void *lock, uint32_t word)
{
	fprintf(stderr, "pvspin: %s (lock %p, word 0x%08x)\n", what, lock, word);
	abort();
}

static pvspin_misuse_handler_t misuse_handler = default_misuse_handler;

pvspin_misuse_handler_t pvspin_set_misuse_handler(pvspin_misuse_handler_t h)
{
	return __atomic_exchange_n(&misuse_handler, h ? h : default_misuse_handler,
				   __ATOMIC_ACQ_REL);
}

void pvspin_report_misuse(const char *what, const void *lock, uint32_t word)
{
	pvspin_misuse_handler_t h = __atomic_load_n(&misuse_handler, __ATOMIC_ACQUIRE);
	h(what, lock, word);
}

/* ---- explicit-kind dispatch ---------------------------------------- */

static void bad_kind(pvspin_kind_t kind, pvspin_lock_t *lock)
{
	(void)kind;
	pvspin_report_misuse("invalid lock kind", lock, lock ? lock->val : 0);
}

void pvspin_lock_init(pvspin_lock_t *lock)
{
	__atomic_store_n(&lock->val, 0, __ATOMIC_RELAXED);
}

void pvspin_kind_lock(pvspin_kind_t kind, pvspin_lock_t *lock)
{
	switch (kind) {
	case PVSPIN_KIND_QSPINLOCK: pvspin_qspinlock_lock(lock); return;
	case PVSPIN_KIND_PVQSPINLOCK: pvspin_pvqspinlock_lock(lock); return;
	case PVSPIN_KIND_TAS: pvspin_tas_lock(lock); return;
	case PVSPIN_KIND_TICKET: pvspin_ticket_lock(lock); return;
	default: bad_kind(kind, lock);
	}
}

bool pvspin_kind_trylock(pvspin_kind_t kind, pvspin_lock_t *lock)
{
	switch (kind) {
	case PVSPIN_KIND_QSPINLOCK: return pvspin_qspinlock_trylock(lock);
	case PVSPIN_KIND_PVQSPINLOCK: return pvspin_pvqspinlock_trylock(lock);
	case PVSPIN_KIND_TAS: return pvspin_tas_trylock(lock);
	case PVSPIN_KIND_TICKET: return pvspin_ticket_trylock(lock);
	default: bad_kind(kind, lock); return false;
	}
}

void pvspin_kind_unlock(pvspin_kind_t kind, pvspin_lock_t *lock)
{
	switch (kind) {
	case PVSPIN_KIND_QSPINLOCK: pvspin_qspinlock_unlock(lock); return;
	case PVSPIN_KIND_PVQSPINLOCK: pvspin_pvqspinlock_unlock(lock); return;
	case PVSPIN_KIND_TAS: pvspin_tas_unlock(lock); return;
	case PVSPIN_KIND_TICKET: pvspin_ticket_unlock(lock); return;
	default: bad_kind(kind, lock);
	}
}

bool pvspin_kind_is_locked(pvspin_kind_t kind, pvspin_lock_t *lock)
{
	switch (kind) {
	case PVSPIN_KIND_QSPINLOCK: return pvspin_qspinlock_is_locked(lock);
	case PVSPIN_KIND_PVQSPINLOCK: return pvspin_pvqspinlock_is_locked(lock);
	case PVSPIN_KIND_TAS: return pvspin_tas_is_locked(lock);
	case PVSPIN_KIND_TICKET: return pvspin_ticket_is_locked(lock);
	default: bad_kind(kind, lock); return false;
	}
}

bool pvspin_kind_is_contended(pvspin_kind_t kind, pvspin_lock_t *lock)
{
	switch (kind) {
	case PVSPIN_KIND_QSPINLOCK: return pvspin_qspinlock_is_contended(lock);
	case PVSPIN_KIND_PVQSPINLOCK: return pvspin_pvqspinlock_is_contended(lock);
	case PVSPIN_KIND_TAS: return pvspin_tas_is_contended(lock);
	case PVSPIN_KIND_TICKET: return pvspin_ticket_is_contended(lock);
	default: bad_kind(kind, lock); return false;
	}
}

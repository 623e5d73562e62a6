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
#include "pvspin/spinpark.h"

static const char *const kind_names[PVSPIN_KIND_COUNT] = {
	[PVSPIN_KIND_NONE] = "none",
	[PVSPIN_KIND_QSPINLOCK] = "qspinlock",
	[PVSPIN_KIND_PVQSPINLOCK] = "pvqspinlock",
	[PVSPIN_KIND_TAS] = "tas",
	[PVSPIN_KIND_TICKET] = "ticket",
	[PVSPIN_KIND_SPINPARK] = "spinpark",
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
	return "qspinlock, pvqspinlock, tas, ticket, spinpark";
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

/* ---- explicit-kind dispatch: inline in pvspin/spinlock.h ------------ */

void pvspin_kind_invalid(pvspin_kind_t kind, pvspin_lock_t *lock)
{
	(void)kind;
	pvspin_report_misuse("invalid lock kind", lock, lock ? lock->val : 0);
}

void pvspin_lock_init(pvspin_lock_t *lock)
{
	__atomic_store_n(&lock->val, 0, __ATOMIC_RELAXED);
}

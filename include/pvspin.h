/*
 * pvspin.h - umbrella header of libpvspin: spinlocks that stay fast when
 * the CPUs they run on are virtual.
 *
 *   pvspin/lock.h         the 4-byte word, kinds, default kind, misuse
 *   pvspin/spinlock.h     lock/unlock on the default or an explicit kind
 *   pvspin/qspinlock.h    native queued spinlock (inline fast paths)
 *   pvspin/pvqspinlock.h  paravirtual queued spinlock
 *   pvspin/tas.h          unfair test-and-set (virt_spin_lock)
 *   pvspin/ticket.h       ticket lock
 *   pvspin/spinpark.h     spin-then-park lock for preemptible threads
 *   pvspin/stats.h        lock event counters, slot accounting
 *   pvspin/tunables.h     spin threshold and other knobs
 *   pvspin/policy.h       environment detection and lock-selection policy
 */
#ifndef PVSPIN_H
#define PVSPIN_H

#include "pvspin/lock.h"
#include "pvspin/spinlock.h"
#include "pvspin/qspinlock.h"
#include "pvspin/pvqspinlock.h"
#include "pvspin/tas.h"
#include "pvspin/ticket.h"
#include "pvspin/spinpark.h"
#include "pvspin/stats.h"
#include "pvspin/tunables.h"
#if __has_include("pvspin/policy.h")
#include "pvspin/policy.h"
#endif

#endif /* PVSPIN_H */

/*
 * torture_locks.c - the lock kinds `pvspin torture` can torture: every
 * library kind, the pthread locks (through the pthread API, so that under
 * `pvspin run` the interposed locks are the ones tortured), and two
 * deliberately broken kinds offered by the torture only:
 *
 *   busted     a racy, non-atomic test-and-set (check, pause, then store),
 *              after locktorture's lock_busted: no mutual exclusion;
 *   lost_kick  pvqspinlock whose kicks are all dropped
 *              (torture_lost_kick.c): a halted waiter is never woken;
 *   lost_handoff  qspinlock whose new owner sometimes takes back the MCS
 *              baton it passed (torture_lost_handoff.c): the queue stops
 *              while the lock is free.
 *
 * One lock of the chosen kind exists per process (torture_lock).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "pvspin/pvqspinlock.h"
#include "pvspin/qspinlock.h"
#include "pvspin/tas.h"
#include "pvspin/ticket.h"
#include "pvspin/spinpark.h"
#include "torture.h"

static pvspin_lock_t torture_lock = PVSPIN_LOCK_INIT;
static pthread_mutex_t torture_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t torture_spin;
static pthread_once_t torture_spin_once = PTHREAD_ONCE_INIT;

static void qspinlock_lock(void) { pvspin_qspinlock_lock(&torture_lock); }
static void qspinlock_unlock(void) { pvspin_qspinlock_unlock(&torture_lock); }
static void pvqspinlock_lock(void) { pvspin_pvqspinlock_lock(&torture_lock); }
static void pvqspinlock_unlock(void) { pvspin_pvqspinlock_unlock(&torture_lock); }
static void tas_lock(void) { pvspin_tas_lock(&torture_lock); }
static void tas_unlock(void) { pvspin_tas_unlock(&torture_lock); }
static void ticket_lock(void) { pvspin_ticket_lock(&torture_lock); }
static void ticket_unlock(void) { pvspin_ticket_unlock(&torture_lock); }
static void spinpark_lock(void) { pvspin_spinpark_lock(&torture_lock); }
static void spinpark_unlock(void) { pvspin_spinpark_unlock(&torture_lock); }
static void lost_kick_lock(void) { torture_lost_kick_lock(&torture_lock); }
static void lost_kick_unlock(void) { torture_lost_kick_unlock(&torture_lock); }
static void lost_handoff_lock(void) { torture_lost_handoff_lock(&torture_lock); }
static void lost_handoff_unlock(void) { torture_lost_handoff_unlock(&torture_lock); }

static void mutex_lock(void)
{
	int err = pthread_mutex_lock(&torture_mutex);
	if (err)
		fprintf(stderr, "pvspin torture: pthread_mutex_lock: %s\n", strerror(err));
}
static void mutex_unlock(void) { pthread_mutex_unlock(&torture_mutex); }

static void spin_init_once(void)
{
	pthread_spin_init(&torture_spin, PTHREAD_PROCESS_PRIVATE);
}
static void spin_lock(void)
{
	pthread_once(&torture_spin_once, spin_init_once);
	pthread_spin_lock(&torture_spin);
}
static void spin_unlock(void) { pthread_spin_unlock(&torture_spin); }

/*
 * busted: test, then set - two steps, with a pause between them that
 * widens the race window.  Two threads that both read 0 both "own" the
 * lock.  BROKEN ON PURPOSE: it proves the mutual-exclusion check can fail.
 * Relaxed atomics keep the lock word itself free of undefined behaviour.
 */
#define BUSTED_RACE_WINDOW 16
static void busted_lock(void)
{
	while (__atomic_load_n(&torture_lock.locked, __ATOMIC_RELAXED))
		pvspin_plat_cpu_relax();
	for (int i = 0; i < BUSTED_RACE_WINDOW; i++)
		pvspin_plat_cpu_relax();
	__atomic_store_n(&torture_lock.locked, 1, __ATOMIC_RELAXED);
}
static void busted_unlock(void)
{
	__atomic_store_n(&torture_lock.locked, 0, __ATOMIC_RELAXED);
}

/* Flags by name (designated initializers): a kind sets only those that
 * hold for it; the rest are false. */
const struct torture_kind torture_kinds[] = {
	{ .name = "qspinlock", .what = "native queued spinlock (pvspin)",
	  .fair_spin = true, .layout = TORTURE_WORD_QSPIN,
	  .lock = qspinlock_lock, .unlock = qspinlock_unlock },
	{ .name = "pvqspinlock", .what = "paravirtual queued spinlock (pvspin)",
	  .pv = true, .layout = TORTURE_WORD_QSPIN,
	  .lock = pvqspinlock_lock, .unlock = pvqspinlock_unlock },
	{ .name = "tas", .what = "unfair test-and-set (pvspin)",
	  .layout = TORTURE_WORD_BYTE, .lock = tas_lock, .unlock = tas_unlock },
	{ .name = "ticket", .what = "FIFO ticket lock (pvspin)",
	  .fair_spin = true, .layout = TORTURE_WORD_TICKET,
	  .lock = ticket_lock, .unlock = ticket_unlock },
	{ .name = "spinpark", .what = "spin-then-park lock (pvspin)",
	  .layout = TORTURE_WORD_SPINPARK, .lock = spinpark_lock, .unlock = spinpark_unlock },
	{ .name = "pthread_mutex",
	  .what = "pthread_mutex_lock/unlock (interposed under `pvspin run`)",
	  .layout = TORTURE_WORD_NONE, .lock = mutex_lock, .unlock = mutex_unlock },
	{ .name = "pthread_spin",
	  .what = "pthread_spin_lock/unlock (interposed under `pvspin run`)",
	  .layout = TORTURE_WORD_NONE, .lock = spin_lock, .unlock = spin_unlock },
	{ .name = "busted", .what = "BROKEN: racy test-then-set, no mutual exclusion",
	  .broken = true, .layout = TORTURE_WORD_BYTE,
	  .lock = busted_lock, .unlock = busted_unlock },
	{ .name = "lost_kick", .what = "BROKEN: pvqspinlock that drops every kick",
	  .broken = true, .pv = true, .layout = TORTURE_WORD_QSPIN,
	  .lock = lost_kick_lock, .unlock = lost_kick_unlock },
	{ .name = "lost_handoff", .what = "BROKEN: qspinlock that sometimes takes the MCS baton back",
	  .broken = true, .layout = TORTURE_WORD_QSPIN,
	  .lock = lost_handoff_lock, .unlock = lost_handoff_unlock },
	{ .name = NULL },
};

const struct torture_kind *torture_kind_find(const char *name)
{
	for (const struct torture_kind *k = torture_kinds; k->name; k++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

const char *torture_kind_names(void)
{
	static char names[256];
	if (!names[0]) {
		size_t off = 0;
		for (const struct torture_kind *k = torture_kinds; k->name; k++)
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
						off ? ", " : "", k->name);
	}
	return names;
}

uint32_t torture_lock_word(void)
{
	return __atomic_load_n(&torture_lock.val, __ATOMIC_RELAXED);
}

const char *torture_lock_provider(const struct torture_kind *kind)
{
	void *fn;
	Dl_info info;

	if (!strcmp(kind->name, "pthread_mutex"))
		fn = (void *)pthread_mutex_lock;
	else if (!strcmp(kind->name, "pthread_spin"))
		fn = (void *)pthread_spin_lock;
	else
		return NULL;
	if (!dladdr(fn, &info) || !info.dli_fname)
		return "?";
	return info.dli_fname;
}

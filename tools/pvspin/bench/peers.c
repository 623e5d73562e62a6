/*
 * bench/peers.c - the lock table of `pvspin bench` (see peers.h): adapters
 * that give every lock the same (lock, ctx) shape, and one instance of the
 * timed loop per lock with the lock's fast path inlined.
 */
#define _GNU_SOURCE
#include "bench/peers.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "pvspin/qspinlock.h"
#include "pvspin/pvqspinlock.h"
#include "pvspin/tas.h"
#include "pvspin/ticket.h"
#include "pvspin/spinpark.h"

#ifdef PVSPIN_HAVE_CK
#include <ck_spinlock.h>
#endif

#include "bench/runner.h"
#include "bench/worker_loop.h"

_Static_assert(sizeof(pthread_mutex_t) <= BENCH_LOCK_SIZE, "lock storage");
_Static_assert(sizeof(pthread_spinlock_t) <= BENCH_LOCK_SIZE, "lock storage");

/* ---- pvspin kinds: the lock word, zero-initialised ----------------------- */

static int pv_init(void *mem)
{
	*(pvspin_lock_t *)mem = (pvspin_lock_t)PVSPIN_LOCK_INIT;
	return 0;
}
static void nop_destroy(void *mem) { (void)mem; }

BENCH_PEER_LOOP(qspinlock, pvspin_qspinlock_lock, pvspin_qspinlock_unlock)
BENCH_PEER_LOOP(pvqspinlock, pvspin_pvqspinlock_lock, pvspin_pvqspinlock_unlock)
BENCH_PEER_LOOP(tas, pvspin_tas_lock, pvspin_tas_unlock)
BENCH_PEER_LOOP(ticket, pvspin_ticket_lock, pvspin_ticket_unlock)
BENCH_PEER_LOOP(spinpark, pvspin_spinpark_lock, pvspin_spinpark_unlock)

/* ---- glibc ---------------------------------------------------------------- */

static int pspin_init(void *mem)
{
	return pthread_spin_init(mem, PTHREAD_PROCESS_PRIVATE);
}
static void pspin_destroy(void *mem) { pthread_spin_destroy(mem); }
BENCH_PEER_LOOP(pspin, pthread_spin_lock, pthread_spin_unlock)

static int mutex_init_type(void *mem, int type)
{
	pthread_mutexattr_t a;
	int err = pthread_mutexattr_init(&a);
	if (!err)
		err = pthread_mutexattr_settype(&a, type);
	if (!err)
		err = pthread_mutex_init(mem, &a);
	pthread_mutexattr_destroy(&a);
	return err;
}
static int mutex_init(void *mem) { return mutex_init_type(mem, PTHREAD_MUTEX_NORMAL); }
static int mutex_adaptive_init(void *mem) { return mutex_init_type(mem, PTHREAD_MUTEX_ADAPTIVE_NP); }
static void mutex_destroy(void *mem) { pthread_mutex_destroy(mem); }
BENCH_PEER_LOOP(mutex, pthread_mutex_lock, pthread_mutex_unlock)

/* ---- Concurrency Kit ------------------------------------------------------ */

#ifdef PVSPIN_HAVE_CK
_Static_assert(sizeof(ck_spinlock_mcs_t) <= BENCH_LOCK_SIZE, "lock storage");
_Static_assert(sizeof(struct ck_spinlock_mcs) <= BENCH_CTX_SIZE, "ctx storage");
_Static_assert(sizeof(ck_spinlock_ticket_t) <= BENCH_LOCK_SIZE, "lock storage");
_Static_assert(sizeof(ck_spinlock_fas_t) <= BENCH_LOCK_SIZE, "lock storage");

/* ck_mcs: the lock is the queue tail pointer; ctx is this thread's node */
static int ck_mcs_init(void *mem) { ck_spinlock_mcs_init(mem); return 0; }
static inline void ck_mcs_lock_op(void *l, void *c) { ck_spinlock_mcs_lock(l, c); }
static inline void ck_mcs_unlock_op(void *l, void *c) { ck_spinlock_mcs_unlock(l, c); }
__attribute__((aligned(64))) static void ck_mcs_run(struct bench_worker *w)
{ bench_worker_loop(w, ck_mcs_lock_op, ck_mcs_unlock_op); }

static int ck_ticket_init(void *mem) { ck_spinlock_ticket_init(mem); return 0; }
BENCH_PEER_LOOP(ck_ticket, ck_spinlock_ticket_lock, ck_spinlock_ticket_unlock)

static int ck_fas_init(void *mem) { ck_spinlock_fas_init(mem); return 0; }
BENCH_PEER_LOOP(ck_fas, ck_spinlock_fas_lock, ck_spinlock_fas_unlock)
#endif

#ifdef PVSPIN_BENCH_AB
void bench_ab_run(struct bench_worker *w);   /* bench/peer_ab.c */
#endif

/* ---- the table ------------------------------------------------------------ */

static const struct bench_lock locks[] = {
	{ "qspinlock", "pvspin native queued spinlock (pending bit + MCS queue)",
	  PVSPIN_KIND_QSPINLOCK, pv_init, nop_destroy, qspinlock_run, NULL },
	{ "pvqspinlock", "pvspin paravirtual queued spinlock (spin, then halt on a futex)",
	  PVSPIN_KIND_PVQSPINLOCK, pv_init, nop_destroy, pvqspinlock_run, NULL },
	{ "tas", "pvspin unfair test-and-test-and-set (virt_spin_lock)",
	  PVSPIN_KIND_TAS, pv_init, nop_destroy, tas_run, NULL },
	{ "ticket", "pvspin FIFO ticket lock",
	  PVSPIN_KIND_TICKET, pv_init, nop_destroy, ticket_run, NULL },
	{ "spinpark", "pvspin spin-then-park lock (bounded adaptive spin, futex park)",
	  PVSPIN_KIND_SPINPARK, pv_init, nop_destroy, spinpark_run, NULL },
	{ "pthread_spin", "glibc pthread_spin_lock (test-and-set)",
	  PVSPIN_KIND_NONE, pspin_init, pspin_destroy, pspin_run, NULL },
	{ "pthread_mutex", "glibc pthread_mutex, PTHREAD_MUTEX_NORMAL (futex, unfair)",
	  PVSPIN_KIND_NONE, mutex_init, mutex_destroy, mutex_run, NULL },
	{ "pthread_mutex_adaptive", "glibc pthread_mutex, PTHREAD_MUTEX_ADAPTIVE_NP (spins, then futex)",
	  PVSPIN_KIND_NONE, mutex_adaptive_init, mutex_destroy, mutex_run, NULL },
#ifdef PVSPIN_HAVE_CK
	{ "ck_mcs", "Concurrency Kit ck_spinlock_mcs (MCS queue lock)",
	  PVSPIN_KIND_NONE, ck_mcs_init, nop_destroy, ck_mcs_run, NULL },
	{ "ck_ticket", "Concurrency Kit ck_spinlock_ticket",
	  PVSPIN_KIND_NONE, ck_ticket_init, nop_destroy, ck_ticket_run, NULL },
	{ "ck_fas", "Concurrency Kit ck_spinlock_fas (fetch-and-store)",
	  PVSPIN_KIND_NONE, ck_fas_init, nop_destroy, ck_fas_run, NULL },
#endif
#ifdef PVSPIN_BENCH_AB
	{ "spinpark_base", "another revision's spinpark (A/B build, bench/ab_build.sh)",
	  PVSPIN_KIND_NONE, pv_init, nop_destroy, bench_ab_run, NULL },
#endif
};
#define NLOCKS (sizeof(locks) / sizeof(locks[0]))

static const char *const ck_names[] = { "ck_mcs", "ck_ticket", "ck_fas" };

const struct bench_lock *bench_locks(size_t *n)
{
	*n = NLOCKS;
	return locks;
}

const struct bench_lock *bench_lock_find(const char *name)
{
	for (size_t i = 0; i < NLOCKS; i++)
		if (!strcmp(locks[i].name, name))
			return &locks[i];
	return NULL;
}

static char names_buf[512];

static void names_fill(void)
{
	size_t at = 0;
	for (size_t i = 0; i < NLOCKS; i++)
		at += (size_t)snprintf(names_buf + at, sizeof(names_buf) - at, "%s%s",
				       i ? ", " : "", locks[i].name);
}

const char *bench_lock_names(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, names_fill);
	return names_buf;
}

int bench_lock_is_unavailable(const char *name)
{
	if (bench_lock_find(name))
		return 0;
	for (size_t i = 0; i < sizeof(ck_names) / sizeof(ck_names[0]); i++)
		if (!strcmp(ck_names[i], name))
			return 1;
	return 0;
}

/*
 * bench/peers.h - the locks `pvspin bench` measures: the four pvspin kinds
 * (qspinlock, pvqspinlock, tas, ticket) and their peers (glibc
 * pthread_spin, pthread_mutex, pthread_mutex_adaptive; Concurrency Kit
 * ck_mcs, ck_ticket, ck_fas when built with libck-dev).
 *
 * Each entry knows how to initialise and destroy a lock in
 * BENCH_LOCK_SIZE bytes and how to run the timed loop with its own lock
 * operations inlined (worker_loop.h).  The table is constant; thread-safe.
 */
#ifndef PVSPIN_BENCH_PEERS_H
#define PVSPIN_BENCH_PEERS_H

#include <stddef.h>

#include "pvspin/lock.h"

struct bench_worker;

struct bench_lock {
	const char *name;          /* kind name, as used everywhere in pvspin */
	const char *what;          /* one-line description for --help */
	pvspin_kind_t kind;        /* the pvspin kind, PVSPIN_KIND_NONE for a peer */
	/** Initialise the lock in `mem` (BENCH_LOCK_SIZE bytes, 128-aligned).
	 *  Returns 0 or an errno value. */
	int (*init)(void *mem);
	/** Destroy it (all threads joined, lock free). */
	void (*destroy)(void *mem);
	/** The timed loop of one thread (worker_loop.h). */
	void (*run)(struct bench_worker *w);
	/** NULL in the table.  In the control row of `--control`, the lock it
	 *  measures again (the same functions; the name is KIND_control):
	 *  never counted as another lock in the comparisons. */
	const struct bench_lock *control_of;
};

/** The locks of this build, in the default order; *n receives the count. */
const struct bench_lock *bench_locks(size_t *n);

/** The lock named `name` (exact match), or NULL. */
const struct bench_lock *bench_lock_find(const char *name);

/** Every name of this build joined by ", " (for messages). */
const char *bench_lock_names(void);

/** What a message about a bad --locks item says after "--locks ITEM: ",
 *  before bench_lock_names(): "lock", not "lock kind", as the list holds
 *  the glibc and Concurrency Kit peers too (tool_value_error(), in the
 *  shape of PVSPIN_LOCK_NOT_A_KIND). */
#define BENCH_NOT_A_LOCK "not a lock; valid locks: "
/** The same, for a peer that bench_lock_is_unavailable(). */
#define BENCH_LOCK_NOT_BUILT \
	"not in this build (built without Concurrency Kit, libck-dev); valid locks: "

/** True if `name` is a peer known to pvspin but left out of this build
 *  (Concurrency Kit missing at build time). */
int bench_lock_is_unavailable(const char *name);

#endif /* PVSPIN_BENCH_PEERS_H */

/*
 * pvspin/tunables.h - process-wide knobs of the lock slow paths.
 *
 * Each tunable is read once at the start of a slow path, so a change
 * applies to later acquisitions.  Each can also be set from the
 * environment: PVSPIN_SPIN_THRESHOLD, PVSPIN_PENDING_LOOPS,
 * PVSPIN_TAS_BACKOFF_MAX, PVSPIN_EARLY_HALT_PREEMPTED,
 * PVSPIN_MUTEX_SPIN_LIMIT, read and checked once when the library is
 * loaded (an invalid value is reported on stderr then, "pvspin: ignoring
 * VAR=VALUE: ...", and the default kept; pvspin_tunables_check_env()
 * checks them on demand).  Thread-safe.
 */
#ifndef PVSPIN_TUNABLES_H
#define PVSPIN_TUNABLES_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pvspin_tunable {
	/** pvqspinlock: PAUSE loops a waiter spins before it halts
	 *  (kernel SPIN_THRESHOLD, 1<<15 on x86).  Default: see
	 *  PVSPIN_DEFAULT_SPIN_THRESHOLD and docs/tuning.md. */
	PVSPIN_TUNE_SPIN_THRESHOLD,
	/** qspinlock: PAUSE loops the first waiter waits for an in-flight
	 *  pending -> locked hand-over before it queues (kernel
	 *  _Q_PENDING_LOOPS, 512 on x86).  Default 512. */
	PVSPIN_TUNE_PENDING_LOOPS,
	/** tas: largest backoff between attempts, in PAUSE loops, doubling
	 *  from 1 (0 = no backoff, the kernel's virt_spin_lock).  Default 0. */
	PVSPIN_TUNE_TAS_BACKOFF_MAX,
	/** pvqspinlock: 1 = a queued waiter also halts early when the
	 *  predecessor's CPU is preempted (the variant the kernel tried and
	 *  reverted), 0 = only when the predecessor is halted.  Default 0. */
	PVSPIN_TUNE_EARLY_HALT_PREEMPTED,
	/** libpvspin-preload.so (`pvspin run`): PAUSE loops an interposed
	 *  pthread mutex waiter spins before it sleeps, for every kind
	 *  (0 = the budget measured per mutex, docs/preload.md "Waiting").
	 *  Read once per contended mutex wait; the library's own locks never
	 *  read it.  Default 0. */
	PVSPIN_TUNE_MUTEX_SPIN_LIMIT,
	PVSPIN_TUNE_COUNT
} pvspin_tunable_t;

/** Default spin threshold in PAUSE loops (chosen from measurement,
 *  docs/tuning.md). */
#define PVSPIN_DEFAULT_SPIN_THRESHOLD (1u << 11)

/** Current value of `t` (0 for an invalid t). */
uint32_t pvspin_tunable_get(pvspin_tunable_t t);

/** Set `t` to `value`.  Returns 0, or -1 with errno EINVAL for an invalid
 *  tunable or a value out of range (spin threshold and pending loops must
 *  be >= 1). */
int pvspin_tunable_set(pvspin_tunable_t t, uint32_t value);

/** Name of `t` ("spin_threshold", ...), "?" if invalid. */
const char *pvspin_tunable_name(pvspin_tunable_t t);

/**
 * Check the tunables' environment variables as they are now (getenv(),
 * not what was read at load) and, for each one set to a value its tunable
 * refuses, write one line to `err`:
 *
 *   WHO: bad PVSPIN_SPIN_THRESHOLD=abc: not a valid value for
 *   spin_threshold (expected a decimal integer from 1 to 4294967295)
 *
 * `who` names the caller ("pvspin run"; NULL: "pvspin"); `err` NULL:
 * count only.  Changes no tunable.  Returns the number of bad variables:
 * 0 when each is unset, empty or valid.  For a program that refuses to
 * start on a bad value (the `pvspin` tool's run, bench and torture: exit
 * 2) where the library itself only ignores it.  Thread-safe as getenv()
 * is: not against a concurrent setenv().  The simulator build reads no
 * environment and returns 0.
 */
int pvspin_tunables_check_env(FILE *err, const char *who);

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_TUNABLES_H */

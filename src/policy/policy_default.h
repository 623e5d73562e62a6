/*
 * policy_default.h - the one entry point the lock layer needs from the
 * selection policy (private to the library).
 */
#ifndef PVSPIN_SRC_POLICY_DEFAULT_H
#define PVSPIN_SRC_POLICY_DEFAULT_H

#include "pvspin/lock.h"

/**
 * The kind the library's default lock uses: the pick of the policy named by
 * PVSPIN_POLICY (default "pvspin"; see pvspin/policy.h) for this machine,
 * detected live without sleeping (steal time is the average since boot).
 * An unknown policy name is reported on stderr with the valid names and
 * the process exits with status 2.  Called once per process, from the
 * first default-kind lock operation; takes no pvspin lock, does not
 * allocate from the heap, reads about ten small /proc and /sys files
 * (tens of microseconds).
 */
pvspin_kind_t pvspin_policy_pick_default(void);

/**
 * Print the printf-style message (a bad PVSPIN_LOCK or PVSPIN_POLICY,
 * ending in a newline) on stderr and exit with status 2, once per process:
 * a thread that comes second waits (pause()) for the first one's exit.
 * Never returns.  Defined in src/lock/default_kind.c.
 */
void pvspin_default_kind_exit(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2), visibility("hidden")));

#endif

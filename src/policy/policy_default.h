/*
 * policy_default.h - the one entry point the lock layer needs from the
 * selection policy (private to the library).
 */
#ifndef PVSPIN_SRC_POLICY_DEFAULT_H
#define PVSPIN_SRC_POLICY_DEFAULT_H

#include <stdio.h>

#include "pvspin/lock.h"
#include "pvspin/policy.h"

/**
 * The kind the library's default lock uses: the pick of the policy named by
 * PVSPIN_POLICY (default "pvspin"; see pvspin/policy.h) for this machine,
 * detected live without sleeping (steal time is the average since boot).
 * An unknown policy name is reported on stderr with the valid names and
 * the process exits with status 2 (pvspin_default_kind_exit(); the
 * library calls this only while PVSPIN_LOCK is unset, so the line is
 * PVSPIN_POLICY's).  Called once per process, from the
 * first default-kind lock operation; takes no pvspin lock, does not
 * allocate from the heap, reads about ten small /proc and /sys files
 * (tens of microseconds).
 */
pvspin_kind_t pvspin_policy_pick_default(void);

/* What a message about a bad PVSPIN_LOCK says after "PVSPIN_LOCK=VALUE: ",
 * before the valid names (pvspin_kind_names()): the shape of PVSPIN_POLICY's
 * "PVSPIN_POLICY=VALUE: not a policy; valid policies: ..."
 * (pvspin_policy_parse_error()), and of the switches' and tunables' lines:
 * the variable, its value, what is wrong, what it takes.  Also what the
 * tools' --lock options say after "--lock VALUE: " (tool_value_error(),
 * tools/pvspin/option_error.h). */
#define PVSPIN_LOCK_NOT_A_KIND "not a lock kind; valid kinds: "

/**
 * PVSPIN_LOCK as it is now: 0 unset (absent or empty), 1 a kind
 * (*kind), -1 not a kind, after one line on `err` unless NULL, prefixed
 * with `who` (NULL: "pvspin"): "WHO: PVSPIN_LOCK=VALUE: not a lock
 * kind; valid kinds: ..." (PVSPIN_LOCK_NOT_A_KIND; VALUE in quotes if it
 * holds a blank, pvspin_value_quote(): "PVSPIN_LOCK='tas '").  The test
 * pvspin_default_kind() makes first (its value wins; PVSPIN_POLICY is
 * read only when it is unset), and the wording of
 * pvspin_default_kind_check_env(), which calls it; also `pvspin
 * detect`'s, which says which variable programs started from it follow.
 * Defined in src/lock/default_kind.c.  Thread-safe as getenv() is.
 */
int pvspin_default_lock_env(FILE *err, const char *who, pvspin_kind_t *kind)
	__attribute__((visibility("hidden")));
/**
 * PVSPIN_POLICY as it is now: 0 unset (absent or empty), 1 a policy
 * (*p), -1 not a policy, after one line on `err` unless NULL, prefixed
 * with `who` (NULL: "pvspin"): "WHO: PVSPIN_POLICY=VALUE: REASON"
 * (pvspin_policy_parse_error(); VALUE quoted as PVSPIN_LOCK's).  The wording of
 * pvspin_default_kind_check_env() (pvspin/lock.h), which calls it.
 * Thread-safe as getenv() is.
 */
int pvspin_default_policy_env(FILE *err, const char *who, pvspin_policy_t *p)
	__attribute__((visibility("hidden")));

/**
 * Print the line of the bad PVSPIN_LOCK or PVSPIN_POLICY on stderr
 * (pvspin_default_kind_check_env(stderr, NULL): PVSPIN_LOCK's when it is
 * bad, else PVSPIN_POLICY's) and exit with status 2, once per process: a
 * thread that comes second waits (pause()) for the first one's exit.
 * For a caller that found one of them bad.  Never returns.  Defined in
 * src/lock/default_kind.c.
 */
void pvspin_default_kind_exit(void) __attribute__((noreturn, visibility("hidden")));

#endif

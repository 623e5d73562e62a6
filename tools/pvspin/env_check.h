/*
 * env_check.h - the one environment check of the `pvspin` subcommands
 * that refuse a bad PVSPIN_* variable before they start (run, bench,
 * torture: exit 2, as for a bad option, also where an option would
 * replace the variable).  detect and sim take no value from these
 * variables and only say that they ignore one (detect: a bad one, each
 * in its own line, in this order; cmd_detect.c).
 */
#ifndef PVSPIN_TOOLS_ENV_CHECK_H
#define PVSPIN_TOOLS_ENV_CHECK_H

#include <stdio.h>

/**
 * Check the PVSPIN_* variables as they are now (getenv()), every one of
 * them whatever the others are, and write one line for each bad one, in
 * this order:
 *   - the tunables (PVSPIN_SPIN_THRESHOLD, ...): pvspin_tunables_check_env(),
 *     "WHO: bad VAR=VALUE: ...";
 *   - PVSPIN_LOCK, then PVSPIN_POLICY, each checked whatever the other
 *     says (the words of pvspin_default_kind_check_env(), which stops at
 *     the first);
 *   - PVSPIN_STATS, which the interposer reads, then PVSPIN_NO_MEMBARRIER,
 *     which the library reads (1 on; 0, empty or unset off): anything
 *     else is "WHO: VAR=VALUE: expected 1 (on) or 0 (off)" (for
 *     PVSPIN_NO_MEMBARRIER "1 (no membarrier) or 0 (membarrier)").
 * So a user with several typos sees them all in one run, not a group
 * per run.  Then a name pvspin does not read is said, not refused
 * (tool_env_warn_unknown()).
 * The lines go to stderr, `who` naming the subcommand ("pvspin bench").
 * Returns 0 if every variable is unset, empty or valid, else nonzero
 * (the caller exits 2).  Changes nothing.  Thread-safe as getenv() is.
 */
int tool_env_check(const char *who);

/**
 * Write one line to `err` for each variable in the environment named
 * PVSPIN_* that pvspin does not read (the tunables', PVSPIN_LOCK,
 * PVSPIN_POLICY, PVSPIN_STATS, PVSPIN_NO_MEMBARRIER, PVSPIN_PRELOAD_LIB),
 * in the environment's order:
 *   "WHO: PVSPIN_LOKC is not a variable pvspin reads (ignored); did you
 *   mean PVSPIN_LOCK?"
 * naming the known variable at the least edit distance if it is at most 2
 * (else pointing to docs/tuning.md).  A misspelt name was silently
 * ignored: PVSPIN_LOKC=ticket measured the default kind.  Said, not
 * refused: a script may set variables for another version.  Returns the
 * number of such variables.  Changes nothing.  Thread-safe as getenv()
 * is (it reads `environ`).
 */
int tool_env_warn_unknown(FILE *err, const char *who);

#endif /* PVSPIN_TOOLS_ENV_CHECK_H */

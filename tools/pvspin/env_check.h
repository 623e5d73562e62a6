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
 * per run.
 * The lines go to stderr, `who` naming the subcommand ("pvspin bench").
 * Returns 0 if every variable is unset, empty or valid, else nonzero
 * (the caller exits 2).  Changes nothing.  Thread-safe as getenv() is.
 */
int tool_env_check(const char *who);

#endif /* PVSPIN_TOOLS_ENV_CHECK_H */

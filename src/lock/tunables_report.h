/*
 * tunables_report.h - whether the library's load-time read of the
 * PVSPIN_* tunable variables reports a bad value, and that report on
 * demand for a program that turned it off.  Private to the
 * project: src/lock/tunables.c has the library's (weak) definition, the
 * `pvspin` tool (tools/pvspin/main.c) the strong one that turns it off.
 */
#ifndef PVSPIN_SRC_LOCK_TUNABLES_REPORT_H
#define PVSPIN_SRC_LOCK_TUNABLES_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "pvspin/tunables.h"

/**
 * True if the library, when it reads the environment (its constructor,
 * or the first tunable read if a lock came first), prints "pvspin:
 * ignoring VAR=VALUE: ..." for each bad value; the bad value is ignored
 * (the default kept) either way.  The same holds for PVSPIN_NO_MEMBARRIER,
 * read at load too (src/platform/native.c, platform/env_switch.h).  The
 * library's definition is weak and returns true; a program linked with
 * libpvspin.a that checks the environment itself with
 * pvspin_tunables_check_env() defines it to return false, so that its
 * users hear about a bad value once, in the program's words.  Called once
 * per process by each of the two reads, possibly before main() and before
 * any other constructor of the program: it must depend on nothing that
 * needs initialising.  Thread-safe.
 */
__attribute__((visibility("hidden"))) bool pvspin_tunables_report_at_load(void);

/**
 * For a program that turned the load-time report off and still runs on
 * the defaults (the `pvspin` tool's detect and sim, which take no value
 * from these variables): write to `err`, for each PVSPIN_* tunable
 * variable set now (getenv()) to a value its tunable refuses, the line
 * the load-time report writes, prefixed with `who` (NULL: "pvspin"):
 *
 *   WHO: ignoring PVSPIN_PENDING_LOOPS=0x10: not a valid value for
 *   pending_loops (expected a decimal integer from 1 to 4294967295; the
 *   default 512 is used)
 *
 * `tail` (NULL: "; the default N is used", N the library's default)
 * replaces what follows the range inside the parentheses.  `err` NULL:
 * count only.  Changes no tunable.  Returns the number of such
 * variables.  Not in the simulator build.  Thread-safe as getenv() is.
 */
__attribute__((visibility("hidden"))) int pvspin_tunables_report_ignored(FILE *err,
									  const char *who,
									  const char *tail);

/**
 * Tunable t's environment variable as it is now (getenv()): its name in
 * *var ("PVSPIN_SPIN_THRESHOLD") and its text in *text; returns 0 if it
 * is unset (absent or empty), 1 if its value is valid for t, -1 if not
 * (what pvspin_tunables_report_ignored() says).  0 for an invalid t
 * (*var, *text untouched).  For a program that takes no value from the
 * variables and says so of a valid one too (`pvspin sim`).  Changes no
 * tunable.  Not in the simulator build.  Thread-safe as getenv() is.
 */
__attribute__((visibility("hidden"))) int pvspin_tunable_env(pvspin_tunable_t t,
							       const char **var,
							       const char **text);

#endif /* PVSPIN_SRC_LOCK_TUNABLES_REPORT_H */

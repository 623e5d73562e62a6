/*
 * env_switch.h - the PVSPIN_* variables that are switches, and the one
 * rule for their values: "1" is on; "0", empty or unset is off; anything
 * else is bad, and counts as off where it is read.  Private to the
 * project.  PVSPIN_NO_MEMBARRIER is read by the library at load
 * (src/platform/native.c), PVSPIN_STATS by the interposer
 * (preload/preload_init.c); the `pvspin` tool's run, bench and torture
 * refuse a bad one (tools/pvspin/env_check.c), its detect and sim say they
 * ignore one, as the library does.
 */
#ifndef PVSPIN_SRC_PLATFORM_ENV_SWITCH_H
#define PVSPIN_SRC_PLATFORM_ENV_SWITCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What each switch's values mean, as every message about a bad one says
 * it, after "VAR=VALUE: ". */
#define PVSPIN_NO_MEMBARRIER_EXPECTED "expected 1 (no membarrier) or 0 (membarrier)"
#define PVSPIN_STATS_EXPECTED "expected 1 (on) or 0 (off)"

/**
 * Switch variable `var` as it is now (getenv()): 1 for "1"; 0 for "0",
 * empty or unset; -1 for anything else (bad: its readers take it as 0,
 * and say so).  *text (if `text`) is the value, NULL if unset.  No stdio,
 * no allocation: usable where a lock may be held.  Thread-safe as
 * getenv() is.
 */
static inline int pvspin_env_switch(const char *var, const char **text)
{
	const char *s = getenv(var);
	if (text)
		*text = s;
	if (!s || !*s || !strcmp(s, "0"))
		return 0;
	return strcmp(s, "1") ? -1 : 1;
}

/**
 * If PVSPIN_NO_MEMBARRIER is bad now, write to `err` the line the library
 * writes at load, prefixed with `who` (NULL: "pvspin"):
 *
 *   WHO: ignoring PVSPIN_NO_MEMBARRIER=VALUE: expected 1 (no membarrier)
 *   or 0 (membarrier); membarrier is used
 *
 * `tail` (NULL: "; membarrier is used") replaces what follows the
 * expected values.  Returns 1 if the value is bad, else 0.  For a program
 * whose copy of the library is silent at load
 * (pvspin_tunables_report_at_load(), lock/tunables_report.h) and that
 * goes on past a bad value: `pvspin detect` and `sim`.  Not in the
 * simulator build.  Thread-safe as getenv() is.
 */
__attribute__((visibility("hidden"))) int pvspin_plat_no_membarrier_report_ignored(
	FILE *err, const char *who, const char *tail);

#endif /* PVSPIN_SRC_PLATFORM_ENV_SWITCH_H */

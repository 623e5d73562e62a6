/*
 * env_check.c - tool_env_check(): the PVSPIN_* variables that run, bench
 * and torture refuse (env_check.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env_check.h"
#include "pvspin/lock.h"
#include "pvspin/tunables.h"

/* A switch of 1 or 0, as the library reads PVSPIN_STATS (the interposer,
 * preload/preload_init.c) and PVSPIN_NO_MEMBARRIER (src/platform/native.c):
 * "1" on; "0", empty or unset off; anything else they say they ignore. */
static int switch_env_check(FILE *err, const char *who, const char *var, const char *on,
			    const char *off)
{
	const char *s = getenv(var);
	if (!s || !*s || !strcmp(s, "0") || !strcmp(s, "1"))
		return 0;
	fprintf(err, "%s: %s=%s: expected 1 (%s) or 0 (%s)\n", who, var, s, on, off);
	return 1;
}

int tool_env_check(const char *who)
{
	if (pvspin_tunables_check_env(stderr, who))
		return 1;
	if (pvspin_default_kind_check_env(stderr, who))
		return 1;
	return switch_env_check(stderr, who, "PVSPIN_STATS", "on", "off") |
	       switch_env_check(stderr, who, "PVSPIN_NO_MEMBARRIER", "no membarrier", "membarrier");
}

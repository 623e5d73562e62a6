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

/* PVSPIN_STATS as the interposer reads it (preload/preload_init.c: "1"
 * on; "0", empty or unset off; anything else it ignores, stats off). */
static int stats_env_check(FILE *err, const char *who)
{
	const char *s = getenv("PVSPIN_STATS");
	if (!s || !*s || !strcmp(s, "0") || !strcmp(s, "1"))
		return 0;
	fprintf(err, "%s: PVSPIN_STATS=%s: expected 1 (on) or 0 (off)\n", who, s);
	return 1;
}

int tool_env_check(const char *who)
{
	if (pvspin_tunables_check_env(stderr, who))
		return 1;
	if (pvspin_default_kind_check_env(stderr, who))
		return 1;
	return stats_env_check(stderr, who);
}

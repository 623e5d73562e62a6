/*
 * env_check.c - tool_env_check(): the PVSPIN_* variables that run, bench
 * and torture refuse (env_check.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env_check.h"
#include "platform/env_switch.h"
#include "policy/policy_default.h"
#include "pvspin/lock.h"
#include "pvspin/tunables.h"

/* A switch, PVSPIN_STATS (read by the interposer) or PVSPIN_NO_MEMBARRIER
 * (read by the library), by the rule they are read by
 * (platform/env_switch.h): a bad one is said, and refused. */
static int switch_env_check(FILE *err, const char *who, const char *var, const char *expected)
{
	const char *s;
	if (pvspin_env_switch(var, &s) >= 0)
		return 0;
	fprintf(err, "%s: %s=%s: %s\n", who, var, s, expected);
	return 1;
}

int tool_env_check(const char *who)
{
	pvspin_kind_t kind;
	pvspin_policy_t policy;
	int bad = 0;
	/* Every check runs, whatever the ones before found: one line for
	 * each bad variable, all of them at once (they were said a group at
	 * a time, so a user fixed one group to be shown the next).  PVSPIN_LOCK
	 * and PVSPIN_POLICY each by its own test, not
	 * pvspin_default_kind_check_env(), which says only the first. */
	bad |= pvspin_tunables_check_env(stderr, who) != 0;
	bad |= pvspin_default_lock_env(stderr, who, &kind) < 0;
	bad |= pvspin_default_policy_env(stderr, who, &policy) < 0;
	bad |= switch_env_check(stderr, who, "PVSPIN_STATS", PVSPIN_STATS_EXPECTED);
	bad |= switch_env_check(stderr, who, "PVSPIN_NO_MEMBARRIER", PVSPIN_NO_MEMBARRIER_EXPECTED);
	return bad;
}

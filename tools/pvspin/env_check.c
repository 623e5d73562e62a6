/*
 * env_check.c - tool_env_check(): the PVSPIN_* variables that run, bench
 * and torture refuse (env_check.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env_check.h"
#include "lock/tunables_report.h"
#include "option_error.h"
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
	tool_value_line(err, who, var, '=', s, expected, NULL);
	return 1;
}

/* The variables pvspin reads besides the tunables' (pvspin_tunable_env()
 * names those): the default kind and policy (the library), PVSPIN_STATS
 * (the interposer), PVSPIN_NO_MEMBARRIER (the library), PVSPIN_PRELOAD_LIB
 * (`pvspin run`), and the test hook PVSPIN_TEST_PLOT_WAIT_MS (`pvspin
 * bench --plot`, bench/output.h). */
static const char *const env_vars[] = {
	"PVSPIN_LOCK", "PVSPIN_POLICY", "PVSPIN_STATS", "PVSPIN_NO_MEMBARRIER",
	"PVSPIN_PRELOAD_LIB", "PVSPIN_TEST_PLOT_WAIT_MS",
};
#define ENV_VARS (sizeof(env_vars) / sizeof(env_vars[0]))

/* Edit distance (insertions, deletions, substitutions, each 1) between
 * a and b, or 3 if it is above 2: only "close enough to be a typo" is
 * asked.  Names here are under 32 characters; longer ones count as far. */
static int typo_distance(const char *a, const char *b)
{
	enum { N = 32 };
	size_t la = strlen(a), lb = strlen(b);
	int row[N + 1];
	if (la > N || lb > N || (la > lb ? la - lb : lb - la) > 2)
		return 3;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb] > 2 ? 3 : row[lb];
}

/* Known variable i of ENV_VARS + PVSPIN_TUNE_COUNT: env_vars, then the
 * tunables' by their own table (pvspin_tunable_env()). */
static const char *env_known(size_t i)
{
	const char *var = "", *text;
	if (i < ENV_VARS)
		return env_vars[i];
	pvspin_tunable_env((pvspin_tunable_t)(i - ENV_VARS), &var, &text);
	return var;
}

int tool_env_warn_unknown(FILE *err, const char *who)
{
	extern char **environ;
	int unknown = 0;
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, "PVSPIN_", 7))
			continue;
		const char *eq = strchr(*e, '=');
		char name[64];
		snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - *e) : (int)strlen(*e), *e);
		const char *near = NULL;
		int best = 3;
		for (size_t i = 0; i < ENV_VARS + PVSPIN_TUNE_COUNT && best; i++) {
			const char *k = env_known(i);
			int d = typo_distance(name, k);
			if (d < best) {
				best = d;
				near = k;
			}
		}
		if (best == 0)
			continue;
		unknown++;
		if (near)   /* the name quoted where a blank in it would not show */
			fprintf(err, "%s: " PVSPIN_QUOTED " is not a variable pvspin reads (ignored); "
				"did you mean %s?\n", who, PVSPIN_QUOTED_ARGS(name), near);
		else
			fprintf(err, "%s: " PVSPIN_QUOTED " is not a variable pvspin reads (ignored; "
				"docs/tuning.md lists them)\n", who, PVSPIN_QUOTED_ARGS(name));
	}
	return unknown;
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
	tool_env_warn_unknown(stderr, who);   /* said, not refused */
	return bad;
}

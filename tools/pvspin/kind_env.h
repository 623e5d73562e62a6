/*
 * kind_env.h - one rule for the default kind's variables in every
 * subcommand that runs pvspin locks (run, bench, torture): an inherited
 * PVSPIN_LOCK or PVSPIN_POLICY with a bad value is a usage error, said
 * with the subcommand's name before anything runs, also where --lock or
 * --policy would replace it (a typo fails whatever the options, as a bad
 * PVSPIN_* tunable does).  Without it the library's pvspin_default_kind()
 * would say it as "pvspin: ..." and exit, and only where the default
 * kind is asked for.  `pvspin detect` reports such a value instead, and
 * `pvspin sim` never reads it.
 */
#ifndef PVSPIN_TOOLS_KIND_ENV_H
#define PVSPIN_TOOLS_KIND_ENV_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pvspin/lock.h"
#include "pvspin/policy.h"

/** Check PVSPIN_LOCK and PVSPIN_POLICY as inherited (an empty value is
 *  unset).  Returns 0, or 2 (bad usage) after one line on stderr naming
 *  the variable and the valid values, prefixed with `prog` ("pvspin run"). */
static inline int tool_kind_env_check(const char *prog)
{
	const char *lock = getenv("PVSPIN_LOCK"), *policy = getenv("PVSPIN_POLICY");
	if (lock && *lock && pvspin_kind_from_name(lock) == PVSPIN_KIND_NONE) {
		fprintf(stderr, "%s: PVSPIN_LOCK=%s is not a lock kind; valid kinds: %s\n", prog,
			lock, pvspin_kind_names());
		return 2;
	}
	pvspin_policy_t p;
	if (policy && *policy && pvspin_policy_parse(policy, &p)) {
		fprintf(stderr, "%s: PVSPIN_POLICY=%s: %s\n", prog, policy,
			pvspin_policy_parse_error(errno));
		return 2;
	}
	return 0;
}

#endif /* PVSPIN_TOOLS_KIND_ENV_H */

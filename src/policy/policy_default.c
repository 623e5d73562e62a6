/*
 * policy_default.c - the library's default kind: the pick of the policy
 * named by PVSPIN_POLICY (default "pvspin") on this machine, detected live
 * without sleeping (steal time since boot).  See policy_default.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "pvspin/policy.h"
#include "policy_default.h"
#include "../util/value_quote.h"

int pvspin_default_policy_env(FILE *err, const char *who, pvspin_policy_t *p)
{
	const char *name = getenv("PVSPIN_POLICY");
	if (!name || !*name)
		return 0;
	if (!pvspin_policy_parse(name, p))
		return 1;
	if (err)   /* 'linux ': the blank shows */
		fprintf(err, "%s: PVSPIN_POLICY=" PVSPIN_QUOTED ": %s\n", who ? who : "pvspin",
			PVSPIN_QUOTED_ARGS(name), pvspin_policy_parse_error(errno));
	return -1;
}

pvspin_kind_t pvspin_policy_pick_default(void)
{
	pvspin_policy_t p;
	pvspin_env_t env;
	pvspin_policy_choice_t c;

	int r = pvspin_default_policy_env(NULL, NULL, &p);
	if (r < 0)
		pvspin_default_kind_exit();
	if (r == 0)
		(void)pvspin_policy_parse("pvspin", &p);   /* the default: always known */
	pvspin_env_detect(&env, NULL);
	pvspin_policy_pick(&p, &env, &c);
	return c.kind;
}

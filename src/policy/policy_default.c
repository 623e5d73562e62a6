/*
 * policy_default.c - the library's default kind: the pick of the policy
 * named by PVSPIN_POLICY (default "pvspin") on this machine, detected live
 * without sleeping (steal time since boot).  See policy_default.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "pvspin/policy.h"
#include "policy_default.h"

pvspin_kind_t pvspin_policy_pick_default(void)
{
	const char *name = getenv("PVSPIN_POLICY");
	pvspin_policy_t p;
	pvspin_env_t env;
	pvspin_policy_choice_t c;

	if (!name || !*name)
		name = "pvspin";
	if (pvspin_policy_parse(name, &p)) {
		pvspin_default_kind_exit("pvspin: PVSPIN_POLICY=%s: %s\n", name,
					 pvspin_policy_parse_error(errno));
	}
	pvspin_env_detect(&env, NULL);
	pvspin_policy_pick(&p, &env, &c);
	return c.kind;
}

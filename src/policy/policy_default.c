/*
 * policy_default.c - bootstrap choice of the default kind until the
 * selection policy (issue "pvspin detect") lands: pvqspinlock, the kind
 * that degrades gracefully both on dedicated and on overcommitted CPUs.
 */
#include "policy_default.h"

pvspin_kind_t pvspin_policy_pick_default(void)
{
	return PVSPIN_KIND_PVQSPINLOCK;
}

/*
 * policy_default.h - the one entry point the lock layer needs from the
 * selection policy (private to the library).
 */
#ifndef PVSPIN_SRC_POLICY_DEFAULT_H
#define PVSPIN_SRC_POLICY_DEFAULT_H

#include "pvspin/lock.h"

/**
 * The kind the library's default lock uses: the pick of the policy named by
 * PVSPIN_POLICY (default "pvspin") for this machine.  An unknown policy
 * name is reported on stderr with the valid names and the process exits
 * with status 2.  Called once per process, from the first default-kind
 * lock operation; must not take any pvspin lock.
 */
pvspin_kind_t pvspin_policy_pick_default(void);

#endif

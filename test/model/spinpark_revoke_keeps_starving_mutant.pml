/* (o) spinpark.pml with a sp_revoke_handoff whose take leaves STARVING
 * set: (p, s, 2) -> (p - 1, s, 1) | STARVING.  The revoker's unlock then
 * hands the lock off again, to the same owner; where that owner never
 * runs (-DGONE_OWNER: a fork child's copy of the word) every later unlock
 * hands off to nobody, every acquisition waits for a timed-out sleep,
 * and the run ends with the lock handed off: must be rejected (the
 * end-of-run word check). */
#define REVOKE_KEEPS_STARVING 1
#include "spinpark.pml"

/* (r) spinpark.pml without sp_revoke_handoff: the code before 081bc16.
 * A hand-off whose owner never runs (-DGONE_OWNER: a fork child's copy
 * of the word) is never taken: the waiters sleep on it, time out and
 * sleep again for ever.  Must be rejected (liveness: acceptance cycle). */
#define NO_REVOKE 1
#include "spinpark.pml"

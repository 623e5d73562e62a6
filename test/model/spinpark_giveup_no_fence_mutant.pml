/* (f) spinpark.pml, in the protocol before c54ba5c (NO_ARMED: every
 * counted parker runs membarrier, the unlock never fences), with a
 * spinner that was already counted in `parked` (a woken parker spinning
 * again) giving up and parking without
 * pvspin_plat_fence_heavy(): its give-up (p, s, 1) -> (p, s - 1, 1)
 * counted nobody new, so it skips the fence that pairs with counting.
 * The unlock here wakes even on WOKEN (WAKE_ON_WOKEN), so that only the
 * spinner rule can skip a wake-up: an unlock that sees a registered
 * spinner skips it ("a spinner will take the lock"), which holds only if
 * a spinner that gives up instead fences and re-checks.  Must be
 * rejected; the same model with an unlock that wakes whenever a waiter is
 * parked passes (spinpark_giveup_no_fence_wake_always.pml).  In the code
 * of c54ba5c such a parker always finds ARMED (its own first park set
 * it) and skips the membarrier by design, the unlock's full fence taking
 * its place: spinpark.pml -DGIVEUP_NO_FENCE passes, asserting that. */
#define NO_ARMED 1
#define GIVEUP_NO_FENCE 1
#define WAKE_ON_WOKEN 1
#include "spinpark.pml"

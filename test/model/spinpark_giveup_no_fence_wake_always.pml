/* Control for spinpark_giveup_no_fence_mutant.pml: the same give-up
 * without a fence, with an unlock that wakes one whenever a waiter is
 * parked (no WOKEN test, no spinner test).  Must pass: the fence after a
 * give-up that counts nobody is needed only for the spinner rule (and,
 * in the code, for the WOKEN rule: GIVEUP_NO_FENCE alone is rejected
 * too). */
#define GIVEUP_NO_FENCE 1
#define WAKE_ON_WOKEN 1
#define WAKE_WITH_SPINNERS 1
#include "spinpark.pml"

/* Control for spinpark_giveup_no_fence_mutant.pml: the same give-up
 * without a fence, in the protocol before c54ba5c (NO_ARMED), with an
 * unlock that wakes one whenever a waiter is parked (no WOKEN test, no
 * spinner test).  Must pass: the fence after a give-up that counts nobody
 * was needed only for the spinner rule (and, in that code, for the WOKEN
 * rule: -DNO_ARMED -DGIVEUP_NO_FENCE alone is rejected too). */
#define NO_ARMED 1
#define GIVEUP_NO_FENCE 1
#define WAKE_ON_WOKEN 1
#define WAKE_WITH_SPINNERS 1
#include "spinpark.pml"

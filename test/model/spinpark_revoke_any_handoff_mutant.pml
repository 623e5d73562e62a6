/* (p) spinpark.pml with a sp_park that revokes a handed-off word without
 * comparing it with the one its last sleep began on: it remembers only
 * that the sleep timed out on a hand-off (a handoff_slept flag without
 * handoff_word).  A waiter that timed out on one hand-off takes the next
 * one, which its owner had no sleep's time to take: must be rejected
 * (the ghost hsl[]: a revocation takes only the hand-off that its
 * timed-out sleep began on). */
#define REVOKE_ANY_HANDOFF 1
#include "spinpark.pml"

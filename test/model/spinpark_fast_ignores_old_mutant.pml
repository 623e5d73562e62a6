/* (n) spinpark.pml with an unlock fast path that does not look at the
 * word its release (lock xadd) returns: no
 * pvspin_spinpark_unlock_released.  A waiter that counted itself as
 * parked between the unlock's load (nothing parked, nothing for the slow
 * side) and its release, and then re-checked the still locked word and
 * slept, is not woken.  Must be rejected. */
#define FAST_IGNORES_OLD 1
#define RMW_RELEASE 1       /* the lock xadd release of 3c1c80f */
#include "spinpark.pml"

/* (l) spinpark.pml with the unlock before 61e9ec6: store8 0 into the
 * locked byte (the release), then a load16 of the upper half and, on
 * parked waiters or ARMED, unlock_wake's load32, cmpxchg WOKEN and
 * FUTEX_WAKE.  In this SC model it loses no wake-up (the membarrier it
 * needed was for TSO's store buffer, which the model no longer has), but
 * it reads the word after its release: must be rejected by the ghost
 * properties (rel[], and with -DNO_REL_GHOST the freed lock itself). */
#define OLD_UNLOCK 1
#define RMW_RELEASE 1       /* the lock xadd release of 3c1c80f */
#include "spinpark.pml"

/* (h) spinpark.pml with an unlock_wake that trusts the word it reads
 * without pvspin_plat_fence_full(): once the lock is ARMED, parkers skip
 * the membarrier, so the unlock's own fence is all that orders its
 * buffered release before its read of `parked`.  Without it the read
 * misses a parker that counted itself while the release was still
 * buffered, and that parker's re-check still sees the lock taken.  Must
 * be rejected. */
#define WAKE_NO_FENCE 1
#include "spinpark.pml"

/* (m) spinpark.pml with the tick of the meter of an ARMED lock's unlock
 * after the release, as unlock_wake metered every unlock before 61e9ec6:
 * sp_unlock_meter reads the word (and in slice mode sp_slice_leave may
 * clear SLICED in it), so after the release that is a use of a lock that
 * the next holder may have freed.  (The code meters a tick before the
 * release, while it holds the lock; only the count of a non-tick unlock
 * comes after it, in per-thread state.)  Must be rejected by the ghost
 * properties. */
#define METER_AFTER_RELEASE 1
#include "spinpark.pml"

/* (m) spinpark.pml with the unlock of an ARMED lock metered after its
 * release, as unlock_wake did before 61e9ec6: sp_unlock_meter reads the
 * word (and in slice mode sp_slice_leave may clear SLICED in it), so
 * after the release that is a use of a lock that the next holder may
 * have freed.  Must be rejected by the ghost properties. */
#define METER_AFTER_RELEASE 1
#include "spinpark.pml"

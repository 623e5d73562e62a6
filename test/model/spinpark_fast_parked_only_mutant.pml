/* (j) spinpark.pml with a lock ARMED from the start (no parker ever runs
 * membarrier) and an unlock whose load16 enters unlock_wake only when
 * parked != 0, not on ARMED: the unlock's fence is then skipped exactly
 * when its unfenced read missed the count, and the parker's re-check
 * still sees the buffered release's lock taken.  ARMED must be tested in
 * the fast path.  Must be rejected; the same lock ARMED from the start
 * with the code's fast path passes (spinpark_armed_at_start.pml). */
#define ARMED_AT_START 1
#define FAST_PARKED_ONLY 1
#include "spinpark.pml"

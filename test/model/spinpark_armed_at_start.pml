/* Control for spinpark_fast_parked_only_mutant.pml: the lock is ARMED
 * from the start, so no parker ever runs membarrier and every unlock
 * fences in unlock_wake (the fast path tests ARMED).  Must pass: the
 * unlock's full fence against the parker's locked RMW is a plain Dekker
 * pair, the membarrier only makes the first park's unlock cheaper. */
#define ARMED_AT_START 1
#include "spinpark.pml"

/* spinpark.pml with the proposed fix for the lost wake-ups of the code as
 * it is (README.md, "Findings"): a counted waiter that takes the lock
 * clears WOKEN in the same cmpxchg (sp_take), and a parker whose re-check
 * sees WOKEN does not sleep on it but goes round again (its next RMW
 * clears WOKEN, then the heavy fence and the re-check run again).  Must
 * pass safety and liveness. */
#define TAKE_CLEARS_WOKEN 1
#define WOKEN_RECHECK 1
#include "spinpark.pml"

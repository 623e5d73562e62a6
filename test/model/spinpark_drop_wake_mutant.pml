/* spinpark_fixed.pml with an unlock that sets WOKEN but never calls
 * FUTEX_WAKE: a parked waiter sleeps for ever.  Must be rejected. */
#define TAKE_CLEARS_WOKEN 1
#define WOKEN_RECHECK 1
#define DROP_WAKE 1
#include "spinpark.pml"

/* (a) spinpark.pml with an unlock that sets WOKEN but never calls
 * FUTEX_WAKE: a parked waiter sleeps for ever.  Must be rejected. */
#define DROP_WAKE 1
#include "spinpark.pml"

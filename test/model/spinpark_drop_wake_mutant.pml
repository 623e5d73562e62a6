/* (a) spinpark.pml with an unlock whose releasing cmpxchg sets WOKEN but
 * that never calls FUTEX_WAKE: a parked waiter sleeps for ever.  Must be
 * rejected (the wake-up the protocol must not drop). */
#define DROP_WAKE 1
#include "spinpark.pml"

/* (a) spinpark.pml with an unlock slow path that sets WOKEN (while it
 * holds the lock) but never calls FUTEX_WAKE after its release: a parked
 * waiter sleeps for ever.  The fast path's wake-up of a parker that came
 * after its load is kept (mutant (n) drops that one).  Must be rejected
 * (the wake-up the protocol must not drop). */
#define DROP_WAKE 1
#include "spinpark.pml"

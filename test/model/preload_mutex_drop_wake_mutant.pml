/* (6) preload_mutex.pml with an unlock whose releasing cmpxchg sets WOKEN
 * but that never calls FUTEX_WAKE: a counted sleeper sleeps for ever.
 * Must be rejected (the wake-up the protocol must not drop). */
#define DROP_WAKE 1
#include "preload_mutex.pml"

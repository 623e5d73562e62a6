/* (g) spinpark.pml with an unlock slow path that decides the wake-up
 * once, from the word it was entered with (the fast path's load), and
 * keeps that decision: WOKEN set on whatever word its cmpxchg finds if it
 * decided to wake, and the word its release (lock xadd) returns not
 * looked at if it decided not to.  A waiter that counted itself after
 * the decision, and re-checked the still locked word and slept, is not
 * woken.  The code decides again after a failed cmpxchg and on the word
 * the release returns ("a parker that counted itself since our
 * decision").  Must be rejected. */
#define STALE_WAKE 1
#include "spinpark.pml"

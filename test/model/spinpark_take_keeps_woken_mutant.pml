/* spinpark_fixed.pml with an sp_take that leaves WOKEN set: a woken
 * waiter takes the lock, its unlock sees WOKEN and wakes nobody, the other
 * parked waiter sleeps for ever.  What the code does
 * (src/lock/spinpark.c sp_take); must be rejected. */
#define WOKEN_RECHECK 1
#include "spinpark.pml"

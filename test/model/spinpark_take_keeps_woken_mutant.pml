/* (d) spinpark.pml with an sp_take that leaves WOKEN set: a woken waiter
 * takes the lock, its unlock sees WOKEN and wakes nobody, the other
 * parked waiter sleeps for ever.  The code before c62d924 (hole 2 of
 * README.md); must be rejected.  The check of the word at the end
 * (NO_END_CHECK) is off: it would reject the mutant first, for the WOKEN
 * left on a free lock with nobody parked, and this check is for the lost
 * wake-up itself. */
#define TAKE_KEEPS_WOKEN 1
#define NO_END_CHECK 1
#include "spinpark.pml"

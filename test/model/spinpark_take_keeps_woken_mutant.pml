/* (d) spinpark.pml with an sp_take that leaves WOKEN set: a woken waiter
 * takes the lock, its unlock sees WOKEN and wakes nobody, the other
 * parked waiter sleeps for ever.  The code before c62d924 (hole 2 of
 * README.md); must be rejected. */
#define TAKE_KEEPS_WOKEN 1
#include "spinpark.pml"

/* (v) spinpark.pml, the store release, on a kernel whose FUTEX_WAKE does
 * not order the waker's earlier stores before its look for waiters
 * (Linux's futex_wake runs smp_mb() first: (B) in
 * kernel/futex/waitwake.c).  An unlock whose second read of park_seq
 * sees a sleeper's add wakes nobody if that sleeper is not in its
 * futex wait yet, and the sleeper's compare may still miss the buffered
 * release.  Not a mutation of pvspin's code: it shows that the protocol
 * relies on that barrier.  Must be rejected. */
#define WAKE_NO_BARRIER 1
#include "spinpark.pml"

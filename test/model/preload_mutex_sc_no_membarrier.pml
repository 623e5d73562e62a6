/* Control for preload_mutex_no_membarrier_mutant.pml: no membarrier, but
 * the unlock's store reaches memory at once (sequential consistency, no
 * store buffer).  Must pass: the heavy fence is there only for the
 * StoreLoad reordering. */
#define NO_MEMBARRIER 1
#define SC_UNLOCK 1
#include "preload_mutex.pml"

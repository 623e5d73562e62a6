/* (b) spinpark.pml with a parker that skips pvspin_plat_fence_heavy()
 * (membarrier): the unlocker's load overtakes its buffered store of the
 * locked byte (x86-TSO StoreLoad), misses the parker's count, and the
 * parker's re-check still sees the lock taken.  Must be rejected: the
 * store-buffer model has teeth. */
#define NO_MEMBARRIER 1
#include "spinpark.pml"

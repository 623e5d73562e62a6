/* (3) preload_mutex.pml with a first sleeper (not ARMED, count 0 -> 1)
 * that skips pvspin_plat_fence_heavy() (membarrier; it sets SL_ARMED all
 * the same, as if the call had run): the unlocker's load of
 * `sleepers` overtakes its buffered release (x86-TSO StoreLoad), reads 0
 * and wakes nobody, while the sleeper's trylock still sees the word
 * taken.  Must be rejected: the store-buffer model has teeth. */
#define NO_MEMBARRIER 1
#include "preload_mutex.pml"

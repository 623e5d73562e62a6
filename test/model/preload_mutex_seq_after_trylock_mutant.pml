/* (4) preload_mutex.pml with a sleeper that reads seq after its failed
 * trylock instead of before: the unlock it lost to bumps seq and wakes
 * (nobody asleep yet) between the two, and FUTEX_WAIT on the new value
 * sleeps.  Must be rejected. */
#define SEQ_AFTER_TRYLOCK 1
#include "preload_mutex.pml"

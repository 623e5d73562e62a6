/* (2) preload_mutex.pml with a sleeper that clears SL_WOKEN after its
 * trylock instead of before: an unlock between the failed trylock and the
 * clear sees WOKEN (fenced or not) and wakes nobody, and the sleeper then
 * clears WOKEN and sleeps.  Must be rejected. */
#define CLEAR_AFTER_TRYLOCK 1
#include "preload_mutex.pml"

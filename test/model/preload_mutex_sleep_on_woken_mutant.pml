/* (7) preload_mutex.pml with a sleeper that does not clear WOKEN but
 * sleeps on a word that shows it: an unlock that found WOKEN (set by an
 * unlock whose FUTEX_WAKE reached nobody, the sleeper not being asleep
 * yet) woke nobody.  Must be rejected. */
#define SLEEP_ON_WOKEN 1
#include "preload_mutex.pml"

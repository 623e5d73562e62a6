/* (5) preload_mutex.pml with a wake_one_sleeper that trusts a zero count
 * at once, without the fence and re-read that fbbd466 added for SL_ARMED,
 * while a sleeper that finds ARMED still skips membarrier (even at a
 * count of 0): the unlock's load of `sleepers` overtakes its buffered
 * release, reads ARMED with a count of 0 and wakes nobody; a sleeper
 * counts itself, runs no membarrier, its trylock still sees the word
 * taken, and it sleeps.  Must be rejected.  The same trail rejects
 * UNLOCK_EC86039 (the unlock of ec86039 with the ARMED sleeper: "ARMED
 * without the unlock's fence"), so that one is not a ctest step. */
#define ARMED_NO_FENCE 1
#include "preload_mutex.pml"

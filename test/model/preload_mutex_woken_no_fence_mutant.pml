/* (1) preload_mutex.pml with a wake_one_sleeper that trusts SL_WOKEN
 * without its seq_cst fence (the fence stays for a zero count with
 * SL_ARMED): it re-reads `sleepers` while its release of the word may
 * still sit in the store buffer, sees the WOKEN of a waiter that has not
 * yet cleared it and wakes nobody; the waiter clears WOKEN, its trylock
 * still sees the word taken, and it sleeps.  Must be rejected. */
#define WOKEN_NO_FENCE 1
#include "preload_mutex.pml"

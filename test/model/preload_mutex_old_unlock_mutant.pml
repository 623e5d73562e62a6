/* (9) preload_mutex.pml with the unlock before 8cece85, in the one word:
 * the release first (the kind's unlock), then a load of the sleepers'
 * count and, if one is counted without WOKEN, a cmpxchg that sets WOKEN
 * and FUTEX_WAKE.  In this SC model it loses no wake-up (the membarrier
 * and fences it relied on were for the StoreLoad reordering of its plain
 * store and separate count), but it reads and writes the mutex after its
 * release: must be rejected by the ghost properties (rel[], and with
 * -DNO_REL_GHOST the freed mutex itself). */
#define OLD_UNLOCK 1
#include "preload_mutex.pml"

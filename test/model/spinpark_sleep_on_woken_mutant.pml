/* spinpark_fixed.pml without the re-check of WOKEN: a parker sleeps on a
 * word whose WOKEN it did not clear (WOKEN set by an unlock that woke
 * nobody, since the parker was not asleep yet).  What the code does
 * (src/lock/spinpark.c sp_park); must be rejected. */
#define TAKE_CLEARS_WOKEN 1
#include "spinpark.pml"

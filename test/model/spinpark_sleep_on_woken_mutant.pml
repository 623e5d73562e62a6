/* (c) spinpark.pml without sp_park's WOKEN test: a parker sleeps on a
 * word whose WOKEN it did not clear (WOKEN set by an unlock that woke
 * nobody, since the parker was not asleep yet).  The code before 4bdbb22
 * (hole 1 of README.md); must be rejected. */
#define SLEEP_ON_WOKEN 1
#include "spinpark.pml"

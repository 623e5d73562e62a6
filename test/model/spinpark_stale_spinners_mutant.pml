/* (g) spinpark.pml with an unlock that takes "a spinner will take the
 * lock" from the word it loaded before its release store (the fast
 * path's load32) instead of the load after it: the spinner it saw may
 * have given up, parked and re-checked a still locked word in between.
 * Must be rejected. */
#define STALE_SPINNERS 1
#include "spinpark.pml"

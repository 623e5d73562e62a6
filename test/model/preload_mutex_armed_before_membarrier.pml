/* Control: preload_mutex.pml with a first sleeper that sets SL_ARMED
 * before its membarrier instead of after.  Passes: until the membarrier
 * has run the first sleeper is still counted, so a sleeper that arrives
 * meanwhile finds a count of 1 or more and would skip membarrier without
 * ARMED too, and an unlock that reads the word then takes the cmpxchg (a
 * locked instruction) rather than trusting a zero count.  ARMED with a
 * zero count is read only after the first sleeper has left, i.e. after
 * its membarrier.  The code's order (after) is not needed in this model;
 * README.md. */
#define ARMED_BEFORE_MEMBARRIER 1
#include "preload_mutex.pml"

/* (w) spinpark.pml with the crowd (CROWD): a sleeper whose count met a
 * crowd of parked waiters skips the park sequence's add and the
 * membarrier, but the unlock keeps the plain-store release whatever
 * parked count it read.  A spinner that gives up counts itself among the
 * crowd and skips its fence while the release sits in the store buffer
 * of an unlock that left the wake-up to that spinner: a lost wake-up.
 * Must be rejected (the code releases by an RMW when it reads a crowd). */
#define CROWD_PLAIN 1
#include "spinpark.pml"

/* (t) spinpark.pml, the store release, with an unlock that never reads
 * the park sequence again after its store (no pvspin_spinpark_unlock_raced,
 * no wake-up on a moved sequence in the slow path): a sleeper whose
 * membarrier came before the store, and whose futex wait then compared
 * the word while the store was still buffered, is not woken.  Must be
 * rejected. */
#define NO_SEQ_CHECK 1
#include "spinpark.pml"

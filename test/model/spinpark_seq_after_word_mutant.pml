/* (u) spinpark.pml, the store release, with an unlock that reads the
 * park sequence (s1) after the word instead of before it (fast path and
 * slow path): a parker that counts itself after the unlock's read of the
 * word and adds to the sequence before s1 is neither in the word the
 * unlock decided on nor seen as a move of the sequence.  Must be
 * rejected. */
#define SEQ_AFTER_WORD 1
#include "spinpark.pml"

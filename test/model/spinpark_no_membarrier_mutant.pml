/* (s) spinpark.pml, the store release, with a sleeper that adds to the
 * park sequence but skips the membarrier before its futex wait: the
 * unlocker's release store may still sit in its store buffer when the
 * futex wait compares the word, and its second read of the sequence may
 * come before the add.  Must be rejected. */
#define NO_MEMBARRIER 1
#include "spinpark.pml"

/* Control: preload_mutex.pml with an unlock that wakes one sleeper
 * whenever the word its cmpxchg replaces counts one, WOKEN or not (it
 * still sets WOKEN where the code does).  More wake-ups than needed,
 * never fewer: must pass.  WOKEN only saves system calls, and the model
 * is not vacuous: mutants (6) and (7) of the WOKEN rule are rejected and
 * this passes. */
#define WAKE_ALWAYS 1
#include "preload_mutex.pml"

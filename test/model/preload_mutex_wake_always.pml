/* Control: preload_mutex.pml without SL_WOKEN (the WOKEN rule before
 * ec86039; SL_ARMED and the unlock's fence before it trusts a zero count
 * stay): an unlock that sees a sleeper counted always bumps seq and wakes one.
 * More wake-ups than needed, never fewer: must pass.  SL_WOKEN only saves
 * system calls, and the model is not vacuous: the mutants of the WOKEN
 * rule, (1) and (2), are rejected and this passes. */
#define WAKE_ALWAYS 1
#include "preload_mutex.pml"

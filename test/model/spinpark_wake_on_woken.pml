/* (e) Control: spinpark.pml with an unlock that wakes one sleeper even
 * when WOKEN is set (still not when a thread spins).  More wake-ups than
 * needed, never fewer: must pass.  WOKEN only saves system calls. */
#define WAKE_ON_WOKEN 1
#include "spinpark.pml"

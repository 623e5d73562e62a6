/* Control: spinpark.pml with the wake rule before 4bdbb22: an unlock
 * that sees parked waiters and no WOKEN wakes one even while a thread
 * spins.  Must pass (the new rule only saves wake-ups). */
#define WAKE_WITH_SPINNERS 1
#include "spinpark.pml"

/* pvqspinlock.pml with a halt that forgets early kicks: no KICKED state
 * (a kick only wakes a vCPU already asleep) and no re-check of the halt
 * condition after announcing SLEEPING.  A kick that lands between the
 * waiter's check and its sleep is lost: must be rejected. */
#define NO_KICK_FLAG 1
#define NO_RECHECK 1
#include "pvqspinlock.pml"

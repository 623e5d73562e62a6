/* pvqspinlock.pml without pv_wait's re-check of *ptr after announcing
 * SLEEPING (src/platform/native.c calls it "latency only"): the KICKED
 * flag alone must keep every wakeup, so this variant must pass. */
#define NO_RECHECK 1
#include "pvqspinlock.pml"

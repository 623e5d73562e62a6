/* (i) spinpark.pml with sp_arm setting ARMED before its membarrier
 * instead of after it. */
#define ARMED_EARLY 1
#include "spinpark.pml"

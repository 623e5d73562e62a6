/* The model of pvqspinlock.pml with one pv_kick lost: must be rejected. */
#define DROP_ONE_KICK 1
#include "pvqspinlock.pml"

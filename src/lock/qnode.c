/* qnode.c - storage of the MCS node array (see qnode.h). */
#include "qnode.h"

struct pvspin_qnode pvspin_qnodes[PVSPIN_MAX_CPUS][PVSPIN_MAX_NODES];

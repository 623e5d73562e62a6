/* qnode.c - storage of the MCS node array (see qnode.h) and of the wait
 * notes (see wait_note.h). */
#include "qnode.h"
#include "wait_note.h"

struct pvspin_qnode pvspin_qnodes[PVSPIN_MAX_CPUS][PVSPIN_MAX_NODES];
struct pvspin_wait_notes pvspin_wait_notes[PVSPIN_MAX_CPUS];

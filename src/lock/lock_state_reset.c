/* lock_state_reset.c - pvspin_lock_state_reset() (lock_state_reset.h). */
#include "lock_state_reset.h"
#include "qnode.h"
#include "spinpark_slice.h"
#include "spinpark_stamp.h"
#include "wait_note.h"

#include <string.h>

void pvspin_lock_state_reset(void)
{
	memset(pvspin_qnodes, 0, sizeof(pvspin_qnodes));
	memset(pvspin_wait_notes, 0, sizeof(pvspin_wait_notes));
	pvspin_pv_hash_reset();
	pvspin_spinpark_stamps_reset();
	pvspin_spinpark_modes_reset();
}

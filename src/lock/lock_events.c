/*
 * lock_events.c - names of the lock events (pvspin/stats.h), the kernel's
 * (kernel/locking/lock_events_list.h).  Part of the lock layer, so the
 * native library and the simulator share one table.
 */
#include "pvspin/stats.h"

static const char *const event_names[PVSPIN_EV_COUNT] = {
	[PVSPIN_EV_PV_WAIT_NODE] = "pv_wait_node",
	[PVSPIN_EV_PV_WAIT_HEAD] = "pv_wait_head",
	[PVSPIN_EV_PV_WAIT_AGAIN] = "pv_wait_again",
	[PVSPIN_EV_PV_WAIT_EARLY] = "pv_wait_early",
	[PVSPIN_EV_PV_KICK_UNLOCK] = "pv_kick_unlock",
	[PVSPIN_EV_PV_KICK_WAKE] = "pv_kick_wake",
	[PVSPIN_EV_PV_SPURIOUS_WAKEUP] = "pv_spurious_wakeup",
	[PVSPIN_EV_PV_LOCK_STEALING] = "pv_lock_stealing",
	[PVSPIN_EV_PV_HASH_HOPS] = "pv_hash_hops",
	[PVSPIN_EV_LOCK_PENDING] = "lock_pending",
	[PVSPIN_EV_LOCK_SLOWPATH] = "lock_slowpath",
	[PVSPIN_EV_LOCK_NO_NODE] = "lock_no_node",
	/* pvspin's own from here (no kernel counterpart) */
	[PVSPIN_EV_LOCK_NO_NODE_SLEEP] = "lock_no_node_sleep",
	/* spinpark's */
	[PVSPIN_EV_SPIN_ACQUIRE] = "spin_acquire",
	[PVSPIN_EV_SPIN_FAIL] = "spin_fail",
	[PVSPIN_EV_PARK] = "park",
	[PVSPIN_EV_UNPARK] = "unpark",
	[PVSPIN_EV_HANDOFF] = "handoff",
	[PVSPIN_EV_STARVING] = "starving",
	[PVSPIN_EV_SLICE_EXT_YIELD] = "slice_ext_yield",
	[PVSPIN_EV_HANDOFF_REVOKE] = "handoff_revoke",
	[PVSPIN_EV_SLICE_PROBE] = "slice_probe",
	[PVSPIN_EV_SLICE_ON] = "slice_on",
	[PVSPIN_EV_SLICE_SLEEP] = "slice_sleep",
	[PVSPIN_EV_SLICE_PASS] = "slice_pass",
};

const char *pvspin_event_name(int ev)
{
	if ((unsigned)ev >= PVSPIN_EV_COUNT)
		return "?";
	return event_names[ev];
}

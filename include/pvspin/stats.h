/*
 * pvspin/stats.h - lock event counters (after Linux lock_events) and
 * thread-slot accounting.
 *
 * Counters are process-wide totals since start, summed over per-slot shards;
 * a reader sees a consistent-enough snapshot (each counter read once,
 * relaxed).  Diff two snapshots to measure an interval.  Thread-safe.
 */
#ifndef PVSPIN_STATS_H
#define PVSPIN_STATS_H

#include <stdint.h>
#include "pvspin/platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A snapshot of every counter: count[e] for e in enum pvspin_event. */
struct pvspin_events {
	uint64_t count[PVSPIN_EV_COUNT];
};

/** Fill *out with the process-wide totals since the process started (a
 *  fork child's start from zero, not from its parent's).  Never fails. */
void pvspin_events_read(struct pvspin_events *out);

/** Kernel-style name of event `ev` ("pv_wait_node", ...), "?" if out of
 *  range. */
const char *pvspin_event_name(int ev);

/** Thread-slot accounting. */
struct pvspin_slot_stats {
	uint32_t capacity;    /* slots in the pool (PVSPIN_MAX_CPUS) */
	uint32_t in_use;      /* slots held by live threads now */
	uint64_t allocated;   /* slot allocations since start (in a fork child:
			       * 1 for the forking thread's slot, if it had one) */
	uint64_t exhausted;   /* slow paths run without a slot (pool empty) */
	uint32_t high;        /* one past the highest slot index ever allocated:
			       * every slot used so far is below it (for code
			       * with per-slot arrays of its own, such as the
			       * interposer's counters) */
};

/** Fill *out.  Never fails. */
void pvspin_slots_read(struct pvspin_slot_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_STATS_H */

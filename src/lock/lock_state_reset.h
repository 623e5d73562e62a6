/*
 * lock_state_reset.h - forget the lock code's process-wide state between
 * two runs of the simulator (sim/sim_engine.c), which runs the shipped
 * lock code run after run in one process.  Private to src/lock and the
 * simulator.
 */
#ifndef PVSPIN_SRC_LOCK_STATE_RESET_H
#define PVSPIN_SRC_LOCK_STATE_RESET_H

#pragma GCC visibility push(hidden)

/**
 * Clear every table the lock kinds keep outside their lock words: the
 * MCS queue nodes and the wait notes (qnode.c), pvqspinlock's lock ->
 * node hash (pvqspinlock.c), spinpark's wake stamps (spinpark_stamp.c)
 * and mode entries (spinpark_slice.c).  A run stopped with waiters in
 * their slow paths leaves entries in each; left there, the next run
 * noted at other depths, probed past stale hash entries and read the
 * last run's times, and two runs of one configuration could differ.
 * Not thread-safe: call it while no thread uses a lock.
 */
void pvspin_lock_state_reset(void);

/** pvqspinlock.c's part of pvspin_lock_state_reset(): empty the hash. */
void pvspin_pv_hash_reset(void);

#pragma GCC visibility pop

#endif /* PVSPIN_SRC_LOCK_STATE_RESET_H */

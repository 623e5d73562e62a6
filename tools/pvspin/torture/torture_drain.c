/*
 * torture_drain.c - when `pvspin torture` gives up on the writers that are
 * leaving the lock after the time is up (tools/pvspin/cmd_torture.c).
 *
 * Each writer queued in the lock takes it once more to leave.  A fair kind
 * that never sleeps (ticket, qspinlock) hands the lock to one given waiter,
 * which must first be run by the scheduler behind every other spinning
 * writer: with ~1000 writers on 2 CPUs a hand-off can take longer than the
 * patience (2 s) while the queue still moves (`--lock ticket --threads
 * 1024 --seconds 1 --seed 3` ended in FAILURE after 22 s, owner 637 next
 * 1657).  A lost wakeup leaves its waiter asleep; a queue of runnable
 * writers is slow, not stuck, and is given up to a cap.
 *
 * Pure functions: no I/O, no shared state.
 */
#include "torture.h"

enum torture_drain_verdict torture_drain_verdict(uint64_t quiet_ns, uint64_t patience_ns,
						 uint64_t cap_ns, int remaining, int runnable)
{
	if (remaining <= 0 || quiet_ns <= patience_ns)
		return TORTURE_DRAIN_WAIT;
	/* One writer asleep (S, D) or of unknown state with no progress for
	 * the patience: nobody is running who could wake it. */
	if (runnable < remaining)
		return TORTURE_DRAIN_STUCK;
	/* Every one runnable: a writer spinning on a baton nobody will pass
	 * (a lost hand-off) is runnable too, so the wait is bounded. */
	return quiet_ns <= cap_ns ? TORTURE_DRAIN_SLOW_WAIT : TORTURE_DRAIN_STUCK;
}

bool torture_word_progress(enum torture_word_layout layout, uint32_t before, uint32_t after)
{
	/* Only the ticket lock's unlock writes the owner half, and always
	 * moves it on: a new owner is a hand-off, seen before the writer that
	 * released bumps its acquisition count (it may be preempted between
	 * the two).  The other words are written by waiters too (the qspin
	 * tail by each newcomer, spinpark's spinner and parked counts by
	 * waiters coming and going around a lost wake-up): a change there does
	 * not show that anyone got the lock. */
	if (layout == TORTURE_WORD_TICKET)
		return (before & 0xffffu) != (after & 0xffffu);
	return false;
}

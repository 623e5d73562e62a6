/*
 * fork_repair.c - in the child of fork(), take the parent's other threads
 * out of the lock words they were waiting on.  Native library only (the
 * simulator has no fork and does not build this file).
 *
 * In a fork child only the forking thread exists (POSIX fork()), but the
 * child's memory is the parent's, lock words included.  A word that other
 * threads were waiting on at the fork keeps their state (wait_note.h):
 *
 *   qspinlock, pvqspinlock  a tail naming their MCS nodes: the child's next
 *                           waiter links behind a node whose owner will
 *                           never pass the baton, and waits for ever;
 *                           the pending bit of a pending waiter or of a
 *                           PV queue head: the child's queue head waits
 *                           for (*,0,0) for ever (Linux's unbounded head
 *                           wait, kept);
 *                           _Q_SLOW_VAL with a node of theirs in the PV
 *                           hash: the unlock kicks a thread that is gone;
 *   ticket                  tickets handed out to them: the owner half
 *                           reaches the first and stops there;
 *   spinpark                their spinner and parked counts (the child's
 *                           waiters spin less, and a stale spinner count
 *                           stops every wake-up on up to 3 CPUs: they
 *                           wake by their 1-16 ms timeouts), STARVING
 *                           and WOKEN (no hand-off and no wake-up would
 *                           be made for the child's own waiters), and a
 *                           locked byte 2 handed off to a starving owner
 *                           that is not in the child (free only once a
 *                           waiter's 1 ms sleep revokes it).
 *
 * A pthread_atfork() "prepare: lock; parent, child: unlock" handler with
 * threads waiting on the lock was enough to leave the child stuck at its
 * next lock() (qspinlock 10 of 10, ticket 10 of 10 forks, a new user's
 * measurement).
 *
 * Every such waiter notes the lock in its slot's wait notes before it
 * writes any state to the word, and clears the note before lock() returns
 * (wait_note.h).  In the child, pvspin_fork_repair_child() - called by
 * the native platform's fork child handler (src/platform/native.c),
 * registered when the library is loaded (glibc runs child handlers in
 * registration order, so before those a program registers later) - reads
 * the notes of every slot but the forking thread's and repairs each lock
 * named there:
 *
 *   queued word   (n,p,l) -> (0,0,l): the queue and the pending bit go,
 *                 the locked byte stays (pvqspinlock: _Q_SLOW_VAL becomes
 *                 _Q_LOCKED_VAL, the hashed waiter is gone).  Its holder
 *                 is the forking thread, whose unlock then frees it, or a
 *                 thread that does not exist, and then the lock stays
 *                 held, as a glibc mutex held by another thread does in a
 *                 child.
 *   ticket word   next = owner + 1 when tickets are out: the one being
 *                 served (the holder, as above) stays, the others go.
 *   spinpark word (p,s,0) -> (0,0,0); (p,s,1) -> (0,0,1), keeping
 *                 EXTENDED (its holder's time-slice request, as above);
 *                 (p,s,2) -> (0,0,0): the starving owner it was handed
 *                 to is gone, so the lock is free.  STARVING and WOKEN
 *                 go, the learned budget stays; a corrupted word
 *                 (sp_word_ok) is left as it is, for the slow path to
 *                 report.
 *
 * If one of them was a pvqspinlock note, every PV hash entry goes but
 * those of the locks the forking thread's own notes name
 * (pvspin_pv_hash_drop(): an entry exists only while a waiter of its lock
 * is inside lock(), and in the child that can only be the forking thread);
 * a child whose parent had no PV waiter does not read the table (512
 * KiB).  Last, those slots' notes and MCS nesting counts are reset, which
 * a thread of the child that gets one of these slots starts from.  Plain
 * order is enough: the child has one thread while its fork handlers run.
 *
 * Sound because nothing a note names can be live in the child: every
 * waiter other than the forking thread is gone, and the forking thread is
 * inside fork(), waiting on nothing; unless fork() was called from a
 * signal handler that interrupted its lock(), and then the words its own
 * notes name are left as they are.  For a spinpark word that is the only
 * consistent choice: the forking thread's own parked or spinner count,
 * STARVING if it is the starving owner, and a hand-off to it are in the
 * word and in its struct sp_waiter (on its stack, which the repair cannot
 * read), and its slow path, resumed when the handler returns, takes them
 * out again (sp_take subtracts its counts: a repaired word would
 * underflow into the neighbouring fields).  The other threads' counts in
 * that word stay too: the child's waiters on it spin less and wake by
 * their timeouts, as before the repair existed.  A forking thread without
 * a slot has no notes to keep by: if it forked from a handler that
 * interrupted its own spinpark wait on a word another thread noted, the
 * repair takes its counts out too, and its resumed slow path reports
 * the word corrupted (a parked count below zero) or miscounts spinners
 * (more than PVSPIN_MAX_CPUS threads and a fork from a signal handler:
 * not handled).  A lock in use has valid memory (its
 * waiter was inside lock()), and only the entries below a slot's note
 * depth are read.  What the notes do not cover is not repaired
 * (docs/architecture.md, "Known limits"): a ticket taken by the inline
 * fetch_add of a thread that had not yet reached its note; the waits of
 * a thread without a slot
 * (beyond PVSPIN_MAX_CPUS: a pending bit, tickets, spinpark counts and
 * hand-offs, the last revoked by the child's waiters after 1 ms; queued
 * waiters without a node leave nothing in the word) or nested deeper than
 * PVSPIN_MAX_WAIT_NOTES; a pending bit that no waiter set (a store of the
 * program), as in Linux.
 */
#include "pvspin/platform.h"
#include "fork_repair.h"
#include "qnode.h"
#include "spinpark_word.h"
#include "wait_note.h"

/* The lock a note names (its tag masked off). */
static pvspin_lock_t *note_lock(const void *w)
{
	return (pvspin_lock_t *)((uintptr_t)w & ~WAIT_NOTE_TAG_MASK);
}

/* (n,p,l) -> (0,0,l); with `pv`, a locked byte _Q_SLOW_VAL -> _Q_LOCKED_VAL */
static void repair_queued(pvspin_lock_t *lock, bool pv)
{
	uint32_t v = pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
	uint32_t nv = v & _Q_LOCKED_MASK;
	if (pv && nv == _Q_SLOW_VAL)
		nv = _Q_LOCKED_VAL;
	if (nv != v)
		pvspin_plat_store32(&lock->val, nv, PVSPIN_RELAXED);
}

/* owner o, next n -> n = o + 1 unless the lock is free (n == o) */
static void repair_ticket(pvspin_lock_t *lock)
{
	uint32_t v = pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
	uint16_t owner = (uint16_t)v, next = (uint16_t)(v >> 16);
	if (next != owner && next != (uint16_t)(owner + 1))
		pvspin_plat_store32(&lock->val,
				    ((uint32_t)(uint16_t)(owner + 1) << 16) | owner,
				    PVSPIN_RELAXED);
}

/* (p,s,0) -> (0,0,0); (p,s,1) -> (0,0,1) keeping EXTENDED; (p,s,2) ->
 * (0,0,0); STARVING and WOKEN cleared, the budget kept; a corrupted word
 * left as it is. */
static void repair_spinpark(pvspin_lock_t *lock)
{
	uint32_t v = pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
	if (!sp_word_ok(v))
		return;
	uint32_t nv = v & _SP_BUDGET_MASK;
	if (sp_locked(v) == _SP_LOCKED)
		nv |= v & (_SP_LOCKED_MASK | _SP_EXTENDED);
	if (nv != v)
		pvspin_plat_store32(&lock->val, nv, PVSPIN_RELAXED);
}

/* The entries of a slot's notes in use. */
static uint32_t notes_in_use(const struct pvspin_wait_notes *n)
{
	return n->depth < PVSPIN_MAX_WAIT_NOTES ? n->depth : PVSPIN_MAX_WAIT_NOTES;
}

/*
 * Called in every fork child, so it reads only the slots ever used
 * (nslots) and writes only where a note or a count is set: a slot whose
 * thread was not in a slow path at the fork costs two reads, and no page
 * is copied for it.
 */
void pvspin_fork_repair_child(int own, uint32_t nslots)
{
	pvspin_lock_t *keep[PVSPIN_MAX_WAIT_NOTES];
	uint32_t nkeep = 0;
	bool pv = false;

	if (nslots > PVSPIN_MAX_CPUS)
		nslots = PVSPIN_MAX_CPUS;
	if (own >= 0 && (uint32_t)own < PVSPIN_MAX_CPUS) {
		const struct pvspin_wait_notes *n = &pvspin_wait_notes[own];
		for (uint32_t i = 0, d = notes_in_use(n); i < d; i++) {
			void *w = pvspin_plat_loadptr(&n->on[i], PVSPIN_RELAXED);
			if (w)
				keep[nkeep++] = note_lock(w);
		}
	}

	for (uint32_t s = 0; s < nslots; s++) {
		if ((int)s == own)
			continue;
		struct pvspin_wait_notes *n = &pvspin_wait_notes[s];
		for (uint32_t i = 0, d = notes_in_use(n); i < d; i++) {
			void *w = pvspin_plat_loadptr(&n->on[i], PVSPIN_RELAXED);
			if (!w)
				continue;
			pvspin_plat_storeptr(&n->on[i], NULL, PVSPIN_RELAXED);
			pvspin_lock_t *lock = note_lock(w);
			if (fork_repair_kept(keep, nkeep, lock))
				continue;
			switch ((uintptr_t)w & WAIT_NOTE_TAG_MASK) {
			case WAIT_NOTE_TICKET:
				repair_ticket(lock);
				break;
			case WAIT_NOTE_SPINPARK:
				repair_spinpark(lock);
				break;
			case WAIT_NOTE_PV:
				pv = true;
				repair_queued(lock, true);
				break;
			default:
				repair_queued(lock, false);
				break;
			}
		}
		if (n->depth)
			n->depth = 0;
		if (pvspin_qnodes[s][0].count)
			pvspin_qnodes[s][0].count = 0;
	}
	if (pv)
		pvspin_pv_hash_drop(keep, nkeep);
}

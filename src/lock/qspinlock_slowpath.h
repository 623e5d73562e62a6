/*
 * qspinlock_slowpath.h - the queued spinlock slow path, written once and
 * compiled twice: by qspinlock.c with empty PV hooks (native) and by
 * pvqspinlock.c with the paravirtual hooks.  After Linux
 * kernel/locking/qspinlock.c, which builds itself twice the same way.
 *
 * The includer defines, before including this file:
 *   QSPIN_PV                 0 (native) or 1 (paravirtual)
 *   QSPIN_SLOWPATH           name of the generated function
 *   QSPIN_NAME               the kind's name, for misuse reports
 *   queued_trylock(lock)     trylock used on queue entry and without a node
 *                            (one that reports nothing: the slow path
 *                            checks the words it reads itself)
 *   pv_init_node(node, cpu), pv_wait_node(node, prev),
 *   pv_kick_node(lock, node), pv_wait_head_or_lock(lock, node)
 * and, to have it generated too, QSPIN_TRYLOCK_FAILED: the name of the
 * kind's pvspin_<kind>_trylock_failed() (below).
 *
 * Every transition is written as (tail, pending, locked); memory ordering
 * is stated at each atomic.  Shared memory is touched only through the
 * platform interface (pvspin/platform.h).
 *
 * Not Linux's: the wait notes (wait_note.h), one relaxed store before a
 * waiter's own pending bit or tail can be in the word and one after it
 * is out, so that a fork child can take out what the parent's other
 * threads left there (fork_repair.c).  They touch no lock word and
 * change no transition.
 */
#ifndef QSPIN_SLOWPATH
#error "define QSPIN_SLOWPATH and the PV hooks before including this file"
#endif

#include "qnode.h"
#include "lock_steps.h"
#include "wait_note.h"

/* The tag of this kind's wait notes. */
#define QSPIN_NOTE_TAG (QSPIN_PV ? WAIT_NOTE_PV : WAIT_NOTE_QSPINLOCK)

#ifdef QSPIN_TRYLOCK_FAILED
/* The end of the kind's inline trylock that failed on the word `val`
 * (pvspin/qspinlock.h, pvspin/pvqspinlock.h): a corrupted word is
 * reported in the slow path's words, below; false either way. */
bool QSPIN_TRYLOCK_FAILED(pvspin_lock_t *lock, uint32_t val)
{
	if (word_corrupt(val, QSPIN_PV))
		pvspin_report_misuse(QSPIN_NAME ": corrupted lock word", lock, val);
	return false;
}
#endif

void QSPIN_SLOWPATH(pvspin_lock_t *lock, uint32_t val)
{
	struct pvspin_qnode *node, *prev, *next;
	uint32_t old, tail, tmp, note = WAIT_NOTE_NONE;
	int cpu, idx;

	/* A corrupted word (the program overwrote it): report it and return
	 * without the lock, rather than follow its tail out of the node
	 * array or wait for a locked byte no unlock clears. */
	if (word_corrupt(val, QSPIN_PV)) {
		pvspin_report_misuse(QSPIN_NAME ": corrupted lock word", lock, val);
		return;
	}
	/* This thread's slot (-1: none), for the wait note and the node:
	 * looked up once, whichever path follows. */
	cpu = pvspin_plat_cpu();

#if !QSPIN_PV
	/*
	 * Wait for an in-flight pending -> locked hand-over, bounded:
	 * (0,1,0) -> (0,0,1).
	 */
	if (val == _Q_PENDING_VAL)
		pvspin_plat_wait32(&lock->val, word_not_pending_only, 0,
				   pvspin_tunable_get(PVSPIN_TUNE_PENDING_LOOPS), &val, NULL);

	/* Any contention beyond the owner (pending or a queue): queue. */
	if (val & ~_Q_LOCKED_MASK)
		goto queue;

	/* Our pending bit may be in the word from here on: note the lock. */
	note = wait_note_begin(cpu, lock, QSPIN_NOTE_TAG);

	/* trylock || pending: (0,0,*) -> (0,1,*), acquire. */
	val = set_pending_fetch_acquire(lock);

	/*
	 * (n,0,*) or (*,1,*): a concurrent locker; undo our pending bit if we
	 * set it (it may have made a head's (n,0,0) -> (0,0,1) claim fail),
	 * and queue.
	 */
	if (val & ~_Q_LOCKED_MASK) {
		if (!(val & _Q_PENDING_MASK))
			clear_pending(lock);
		wait_note_end(cpu, note);
		note = WAIT_NOTE_NONE;
		goto queue;
	}

	/* We own pending: wait for the owner to go, (0,1,1) -> (0,1,0), acquire. */
	if (val & _Q_LOCKED_MASK)
		pvspin_plat_wait32(&lock->val, word_unlocked, 0, PVSPIN_WAIT_FOREVER,
				   &val, NULL);

	/* Take it: (*,1,0) -> (*,0,1). */
	clear_pending_set_locked(lock);
	wait_note_end(cpu, note);
	pvspin_plat_event(PVSPIN_EV_LOCK_PENDING);
	return;

queue:
#endif
	pvspin_plat_event(PVSPIN_EV_LOCK_SLOWPATH);

	if (cpu < 0) {
		/* No slot left (more threads than PVSPIN_MAX_CPUS): no node. */
		pvspin_plat_event(PVSPIN_EV_LOCK_NO_NODE);
		lock_without_node(lock, queued_trylock);
		return;
	}

	node = &pvspin_qnodes[cpu][0];
	idx = (int)node->count++;          /* owner-only field */
	pvspin_plat_barrier();             /* count before use, for nested handlers */

	if (idx >= PVSPIN_MAX_NODES) {
		/* Nested deeper than 4: spin on trylock without a node. */
		pvspin_plat_event(PVSPIN_EV_LOCK_NO_NODE);
		lock_without_node(lock, queued_trylock);
		goto release;
	}

	node += idx;
	tail = encode_tail(cpu, idx);
	pvspin_plat_store32(&node->locked, 0, PVSPIN_RELAXED);
	pvspin_plat_storeptr((void **)&node->next, NULL, PVSPIN_RELAXED);
	pv_init_node(node, cpu);

	/* The lock may have been freed while we set up: try once more. */
	if (queued_trylock(lock))
		goto release;

	/* Our tail (and as PV head the pending bit, a hash entry) may be in
	 * the word from here on: note the lock. */
	note = wait_note_begin(cpu, lock, QSPIN_NOTE_TAG);

	/*
	 * Publish our node: (p,*,*) -> (n,*,*).  Release makes the node's
	 * initialisation visible to whoever follows the tail; acquire makes
	 * the previous tail's node visible to us.
	 */
	old = xchg_tail(lock, tail);
	next = NULL;

	/* A tail out of range was written by the program after the check
	 * above: report it and queue as the head (nothing to link behind). */
	if ((old & _Q_TAIL_MASK) && !tail_in_range(old)) {
		pvspin_report_misuse(QSPIN_NAME ": corrupted lock word", lock, old);
		old &= ~_Q_TAIL_MASK;
	}

	if (old & _Q_TAIL_MASK) {
		prev = decode_tail(old);
		/* Link behind prev (release: our node is initialised). */
		pvspin_plat_storeptr((void **)&prev->next, node, PVSPIN_RELEASE);

		pv_wait_node(node, prev);
		/* Wait for the MCS baton (acquire). */
		pvspin_plat_wait32(&node->locked, word_nonzero, 0, PVSPIN_WAIT_FOREVER,
				   &tmp, NULL);
		/* Our successor, if it has linked already (saves a wait later);
		 * acquire: its node's initialisation happens before our baton
		 * store to it. */
		next = pvspin_plat_loadptr((void *const *)&node->next, PVSPIN_ACQUIRE);
	}

	/*
	 * We are the queue head: wait for the owner and the pending waiter to
	 * go, (*,1,1) -> (*,*,0) -> (*,0,0), acquire.  The PV head may take
	 * the lock itself while waiting (returns non-zero).
	 */
	if ((val = pv_wait_head_or_lock(lock, node)))
		goto locked;

	pvspin_plat_wait32(&lock->val, word_unlocked_no_pending, 0, PVSPIN_WAIT_FOREVER,
			   &val, NULL);

locked:
	/*
	 * Claim the lock.  Alone in the queue: (n,0,0) -> (0,0,1) clears the
	 * tail with a cmpxchg (relaxed: acquire came from the wait above).
	 * Otherwise (*,0,0) -> (*,0,1) and hand the MCS baton on.
	 */
	while ((val & _Q_TAIL_MASK) == tail) {
		if (pvspin_plat_cmpxchg32(&lock->val, &val, _Q_LOCKED_VAL, PVSPIN_RELAXED))
			goto release;
#if !QSPIN_PV
		/*
		 * Still alone, so the cmpxchg failed on a pending bit that a
		 * newcomer set on a queued lock and will undo: (n,1,0).  Unlike
		 * Linux, do not take the lock and wait for that newcomer to
		 * queue behind us: one without a node (no slot left, nested
		 * deeper than 4) never will, and would spin on trylock for ever
		 * against our held lock.  Wait for (*,0,0) again instead.
		 */
		if ((val & _Q_TAIL_MASK) == tail)
			pvspin_plat_wait32(&lock->val, word_unlocked_no_pending, 0,
					   PVSPIN_WAIT_FOREVER, &val, NULL);
#endif
	}

	/* Somebody queued behind us: (*,0,0) -> (*,0,1). */
	set_locked(lock);

	if (!next)
		next = wait_for_next(node);

	/* Pass the MCS baton (release: our critical-section entry is ordered). */
	pvspin_plat_store32(&next->locked, 1, PVSPIN_RELEASE);
	pv_kick_node(lock, next);

release:
	wait_note_end(cpu, note);
	pvspin_plat_barrier();
	pvspin_qnodes[cpu][0].count--;
}

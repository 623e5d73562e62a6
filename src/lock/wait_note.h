/*
 * wait_note.h - wait notes: which lock words a thread's slow paths have
 * left state of theirs in, for the child of fork() (fork_repair.c).
 * Private to src/lock.
 *
 * A waiter of the kernel kinds writes state of its own into the lock word
 * and takes it out again before lock() returns:
 *
 *   qspinlock     the pending bit (the pending waiter), or the tail
 *                 naming its MCS node (a queued waiter);
 *   pvqspinlock   the tail; as queue head the pending bit, and a hash
 *                 entry with _Q_SLOW_VAL;
 *   ticket        a ticket handed out beyond the one being served;
 *   spinpark      its spinner or parked count, STARVING (it spins as the
 *                 starving owner), WOKEN (it was woken), and a locked
 *                 byte 2 that an unlock handed off to it.
 *
 * In a fork child only the forking thread exists, so that state is dead
 * and nobody takes it out.  Linux has no such case (its CPUs do not fork),
 * so the algorithms stay Linux's and each such waiter only notes the lock
 * here, in its slot's own cache line, before it writes that state, and
 * clears the note before lock() returns: one relaxed store each way, on
 * the slow path only (the inline fast paths are unchanged).  A thread
 * without a slot notes nothing (wait_note_begin with cpu -1).
 *
 * The notes are a stack, one entry per nested wait (a lock taken in a
 * signal handler that interrupted a waiter), with its own depth:
 * entries at and above the depth are NULL, in program order (the depth
 * goes up before an entry is written and down after it is cleared).
 * The line is written only by the slot's thread (and its signal
 * handlers, ordered by compiler barriers, as the MCS nodes' count) and
 * read only by a fork child, so the simulator charges one line-local
 * store for each note (its coherence model: the line stays the vCPU's).
 *
 * Ordering: nobody reads the notes while the process runs.  A fork child
 * sees each other thread's memory as a prefix of its program order (a
 * store after fork() write-protected a page faults and waits until fork()
 * is over; those before are in the pages the child shares), so a note
 * written before the state it covers is in the child whenever that state
 * is; relaxed stores and compiler barriers are enough.
 */
#ifndef PVSPIN_SRC_LOCK_WAIT_NOTE_H
#define PVSPIN_SRC_LOCK_WAIT_NOTE_H

#include "pvspin/lock.h"
#include "pvspin/platform.h"

_Static_assert(_Alignof(pvspin_lock_t) >= 4, "wait notes tag the low 2 bits of a lock address");

/** Entries per slot: nested waits that can be noted (a deeper one is not,
 *  docs/architecture.md, "Known limits"). */
#define PVSPIN_MAX_WAIT_NOTES 7

/** Tags of a note (the low 2 bits of the lock's address): how the fork
 *  child repairs the word.  All four values are taken. */
enum {
	WAIT_NOTE_QSPINLOCK = 0,   /* pending bit or tail of a qspinlock word */
	WAIT_NOTE_TICKET = 1,      /* a ticket of a ticket lock */
	WAIT_NOTE_PV = 2,          /* tail, pending, hash entry of a pvqspinlock word */
	WAIT_NOTE_SPINPARK = 3,    /* counts, STARVING, WOKEN, a hand-off of a spinpark word */
};

/** The bits of a note that hold its tag (a mask, not a count of tags). */
#define WAIT_NOTE_TAG_MASK ((uintptr_t)3)

/** No note taken (no slot). */
#define WAIT_NOTE_NONE UINT32_MAX

/** One slot's notes: its own cache line. */
struct pvspin_wait_notes {
	uint32_t depth;                            /* entries in use */
	uint32_t pad;
	void *on[PVSPIN_MAX_WAIT_NOTES];           /* lock address | tag, or NULL */
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct pvspin_wait_notes) == 64, "one cache line per slot");

/** The notes, [slot] (qnode.c). */
extern struct pvspin_wait_notes pvspin_wait_notes[PVSPIN_MAX_CPUS]
	__attribute__((visibility("hidden")));

/**
 * Note that the calling thread (slot `cpu`, or -1: none, then nothing is
 * noted) is about to leave state in `lock`'s word; `tag` says the kind.
 * Returns the entry for wait_note_end().
 */
static inline uint32_t wait_note_begin(int cpu, const pvspin_lock_t *lock, uintptr_t tag)
{
	if (cpu < 0)
		return WAIT_NOTE_NONE;
	struct pvspin_wait_notes *n = &pvspin_wait_notes[cpu];
	uint32_t d = n->depth++;          /* owner-only field */
	pvspin_plat_barrier();            /* depth before the entry, for nested handlers */
	if (d < PVSPIN_MAX_WAIT_NOTES)
		pvspin_plat_storeptr(&n->on[d], (void *)((uintptr_t)lock | tag), PVSPIN_RELAXED);
	/* the entry before the caller's first write to the word: a relaxed
	 * RMW that follows need not stay behind a relaxed store otherwise
	 * (compiler only: the fork child sees a prefix of program order) */
	pvspin_plat_barrier();
	return d;
}

/** The wait of wait_note_begin()'s entry `d` is over: its state is out
 *  of the word (or has become the lock's holder). */
static inline void wait_note_end(int cpu, uint32_t d)
{
	if (d == WAIT_NOTE_NONE)
		return;
	struct pvspin_wait_notes *n = &pvspin_wait_notes[cpu];
	if (d < PVSPIN_MAX_WAIT_NOTES)
		pvspin_plat_storeptr(&n->on[d], NULL, PVSPIN_RELAXED);
	pvspin_plat_barrier();            /* the entry cleared before the depth */
	n->depth--;
}

#endif /* PVSPIN_SRC_LOCK_WAIT_NOTE_H */

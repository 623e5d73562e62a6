/*
 * ticket.c - ticket lock slow path (pvspin/ticket.h): wait until the owner
 * half of the word equals our ticket.
 *
 * The waiter notes the lock (wait_note.h, tagged WAIT_NOTE_TICKET) for
 * the duration of the wait, so that a fork child can take back the
 * tickets the parent's other threads were waiting with, which no thread
 * of the child will ever be served (fork_repair.c).  The ticket is taken
 * by the inline fast path's fetch_add and the note is written only here,
 * a few instructions later: a waiter between the two when another thread
 * forks is not seen (docs/architecture.md, "Known limits").
 */
#include "pvspin/ticket.h"
#include "wait_note.h"

/* The owner half serves `ticket`. */
static inline bool ticket_served(uint32_t v, uint32_t ticket)
{
	return (v & 0xffffu) == ticket;
}

void pvspin_ticket_lock_slowpath(pvspin_lock_t *lock, uint16_t ticket)
{
	int cpu = pvspin_plat_cpu();
	uint32_t val, note = wait_note_begin(cpu, lock, WAIT_NOTE_TICKET);

	/* acquire on success */
	pvspin_plat_wait32(&lock->val, ticket_served, ticket, PVSPIN_WAIT_FOREVER,
			   &val, NULL);
	wait_note_end(cpu, note);
}

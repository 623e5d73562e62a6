/*
 * ticket.c - ticket lock slow path (pvspin/ticket.h): wait until the owner
 * half of the word equals our ticket.
 */
#include "pvspin/ticket.h"

/* The owner half serves `ticket`. */
static inline bool ticket_served(uint32_t v, uint32_t ticket)
{
	return (v & 0xffffu) == ticket;
}

void pvspin_ticket_lock_slowpath(pvspin_lock_t *lock, uint16_t ticket)
{
	uint32_t val;
	/* acquire on success */
	pvspin_plat_wait32(&lock->val, ticket_served, ticket, PVSPIN_WAIT_FOREVER,
			   &val, NULL);
}

/*
 * spinpark_stamp.c - spinpark's stamps: last wake-up, last STARVING claim
 * (spinpark_stamp.h).
 */
#include "spinpark_stamp.h"
#include "lock_hash.h"

#include <string.h>

/* Entries in the side table (a power of two). */
#define SP_STAMP_ENTRIES 256u

struct sp_stamp {
	const pvspin_lock_t *lock;   /* whose stamp this is (NULL: none yet) */
	uint32_t wake_us;            /* its last wake-up, sp_now_us() */
	uint32_t starving_us;        /* its last STARVING claim, sp_now_us() */
};

static struct sp_stamp sp_stamps[SP_STAMP_ENTRIES];

static inline struct sp_stamp *sp_stamp_entry(const pvspin_lock_t *lock)
{
	return &sp_stamps[lock_hash(lock) & (SP_STAMP_ENTRIES - 1)];
}

/* Stamp e, `lock`'s entry: the time into *field (one of e's), then the
 * address that names it, with release. */
static void sp_stamp_set(struct sp_stamp *e, const pvspin_lock_t *lock, uint32_t *field)
{
	pvspin_plat_store32(field, sp_now_us(), PVSPIN_RELAXED);
	pvspin_plat_storeptr((void **)&e->lock, (void *)lock, PVSPIN_RELEASE);
}

/* `lock`'s entry if it holds stamps of this lock (the address with
 * acquire, before the caller reads a time), else NULL. */
static struct sp_stamp *sp_stamp_of(const pvspin_lock_t *lock)
{
	struct sp_stamp *e = sp_stamp_entry(lock);
	return pvspin_plat_loadptr((void *const *)&e->lock, PVSPIN_ACQUIRE) == lock ? e : NULL;
}

void sp_stamp_wake(const pvspin_lock_t *lock)
{
	struct sp_stamp *e = sp_stamp_entry(lock);
	sp_stamp_set(e, lock, &e->wake_us);
}

bool sp_stamp_last_wake(const pvspin_lock_t *lock, uint32_t *wake_us)
{
	struct sp_stamp *e = sp_stamp_of(lock);
	if (!e)
		return false;
	*wake_us = pvspin_plat_load32(&e->wake_us, PVSPIN_RELAXED);
	return true;
}

void sp_stamp_starve_claim(const pvspin_lock_t *lock)
{
	struct sp_stamp *e = sp_stamp_entry(lock);
	sp_stamp_set(e, lock, &e->starving_us);
}

bool sp_stamp_starve_claimed_within(const pvspin_lock_t *lock, uint32_t us)
{
	struct sp_stamp *e = sp_stamp_of(lock);
	/* us that wrap: a difference */
	return e && sp_now_us() - pvspin_plat_load32(&e->starving_us, PVSPIN_RELAXED) < us;
}

void pvspin_spinpark_stamps_reset(void)
{
	memset(sp_stamps, 0, sizeof(sp_stamps));
}

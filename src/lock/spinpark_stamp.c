/*
 * spinpark_stamp.c - spinpark's stamps: last wake-up, last STARVING claim,
 * the oldest starving waiter (spinpark_stamp.h).
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
	uint32_t oldest_t0_us;       /* its oldest starving waiter's first
				      * sleep (sp_stamp_oldest_note) */
	uint32_t oldest_at_us;       /* when that was written (0: cleared) */
	uint32_t contested_us;       /* when a younger starving waiter last
				      * found that record (0: never) */
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

/* e, `lock`'s entry (sp_stamp_entry()), if it holds stamps of this lock
 * (the address with acquire, before the caller reads a time), else NULL. */
static struct sp_stamp *sp_stamp_owned(struct sp_stamp *e, const pvspin_lock_t *lock)
{
	return pvspin_plat_loadptr((void *const *)&e->lock, PVSPIN_ACQUIRE) == lock ? e : NULL;
}

/* `lock`'s entry if it holds stamps of this lock, else NULL. */
static struct sp_stamp *sp_stamp_of(const pvspin_lock_t *lock)
{
	return sp_stamp_owned(sp_stamp_entry(lock), lock);
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

bool sp_stamp_starve_reserve(const pvspin_lock_t *lock, uint32_t us,
			     struct sp_stamp_reservation *r)
{
	struct sp_stamp *e = sp_stamp_entry(lock);
	uint32_t now = sp_now_us();
	if (!sp_stamp_owned(e, lock)) {
		/* none of ours yet: take the entry over.  Not given back
		 * (prev = mine): two waiters that take it over at once both
		 * reserve, and the one whose cmpxchg fails must not wipe the
		 * stamp of the other's claim; a claim that fails here waits
		 * for the next gap */
		sp_stamp_set(e, lock, &e->starving_us);
		r->prev = r->mine = pvspin_plat_load32(&e->starving_us, PVSPIN_RELAXED);
		return true;
	}
	uint32_t old = pvspin_plat_load32(&e->starving_us, PVSPIN_RELAXED);
	/* us that wrap: a difference */
	if (now - old < us || !pvspin_plat_cmpxchg32(&e->starving_us, &old, now, PVSPIN_RELAXED))
		return false;
	r->prev = old;
	r->mine = now;
	return true;
}

void sp_stamp_starve_unreserve(const pvspin_lock_t *lock, const struct sp_stamp_reservation *r)
{
	struct sp_stamp *e = sp_stamp_of(lock);
	uint32_t mine = r->mine;
	if (e)
		pvspin_plat_cmpxchg32(&e->starving_us, &mine, r->prev, PVSPIN_RELAXED);
}

bool sp_stamp_starve_claimed_within(const pvspin_lock_t *lock, uint32_t us)
{
	struct sp_stamp *e = sp_stamp_of(lock);
	/* us that wrap: a difference */
	return e && sp_now_us() - pvspin_plat_load32(&e->starving_us, PVSPIN_RELAXED) < us;
}

/* sp_now_us() as a stamp, which 0 ("never", "cleared") cannot be. */
static inline uint32_t sp_stamp_now(void)
{
	uint32_t now = sp_now_us();
	return now ? now : 1;
}

/* Does e, a lock's own entry (sp_stamp_of(); NULL: none), hold a fresh
 * record of the lock's oldest starving waiter at `now` (written less than
 * SP_OLDEST_STALE_US before, not cleared)?  Its t0 into *t0_us. */
static bool sp_stamp_oldest_fresh(const struct sp_stamp *e, uint32_t now, uint32_t *t0_us)
{
	if (!e)
		return false;
	uint32_t at = pvspin_plat_load32(&e->oldest_at_us, PVSPIN_ACQUIRE);
	*t0_us = pvspin_plat_load32(&e->oldest_t0_us, PVSPIN_RELAXED);
	/* us that wrap: differences */
	return at && now - at < SP_OLDEST_STALE_US;
}

bool sp_stamp_oldest_note(const pvspin_lock_t *lock, uint32_t t0_us, bool *contested)
{
	uint32_t rec, now = sp_stamp_now();
	struct sp_stamp *e = sp_stamp_entry(lock), *mine = sp_stamp_owned(e, lock);
	/* a fresh record of a strictly older waiter stays: it is contested */
	if (sp_stamp_oldest_fresh(mine, now, &rec) && (int32_t)(t0_us - rec) > 0) {
		pvspin_plat_store32(&e->contested_us, now, PVSPIN_RELAXED);
		return false;
	}
	/* a mark left by another lock that shared the entry is not ours */
	uint32_t c = mine ? pvspin_plat_load32(&e->contested_us, PVSPIN_RELAXED) : 0;
	*contested = c && now - c < SP_OLDEST_CONTEST_US;
	pvspin_plat_store32(&e->oldest_t0_us, t0_us, PVSPIN_RELAXED);
	pvspin_plat_store32(&e->oldest_at_us, now, PVSPIN_RELEASE);
	pvspin_plat_storeptr((void **)&e->lock, (void *)lock, PVSPIN_RELEASE);
	return true;
}

bool sp_stamp_oldest_may_claim(const pvspin_lock_t *lock, uint32_t t0_us)
{
	uint32_t rec;
	return !sp_stamp_oldest_fresh(sp_stamp_of(lock), sp_now_us(), &rec) ||
	       (int32_t)(t0_us - rec) <= 0;
}

void sp_stamp_oldest_clear(const pvspin_lock_t *lock, uint32_t t0_us)
{
	struct sp_stamp *e = sp_stamp_of(lock);
	if (e && pvspin_plat_load32(&e->oldest_t0_us, PVSPIN_RELAXED) == t0_us)
		pvspin_plat_store32(&e->oldest_at_us, 0, PVSPIN_RELAXED);
}

void pvspin_spinpark_stamps_reset(void)
{
	memset(sp_stamps, 0, sizeof(sp_stamps));
}

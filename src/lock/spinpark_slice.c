/*
 * spinpark_slice.c - spinpark's mode controller (spinpark_slice.h,
 * docs/spinpark.md "Slice mode").
 *
 * State per lock lives in a side table indexed by a hash of the lock's
 * address (lock_hash.h), never in the lock: the word holds only the two
 * flags the fast paths and waiters must see (METER: unlocks count
 * themselves; SLICED: waiters sleep).  Every change of the entry's phase
 * is made by one thread at a time, the one that takes the entry's `busy`
 * flag; the counts are atomic adds.
 */
#include "spinpark_slice.h"
#include "lock_hash.h"
#include "spinpark_stamp.h"
#include "spinpark_word.h"

#include <string.h>

/* Entries in the side table (a power of two). */
#define SP_MODE_ENTRIES 64u
/* Probe lengths, us: shared first, then slices (several slices, so that
 * the hand-offs between them are in the rate). */
#define SP_PROBE_SHARED_US 1000u
#define SP_PROBE_SLICE_US 4000u
/* A slice probe that has done less than shared mode after this long
 * ends early: slices lose, and a probe of them costs their loss. */
#define SP_PROBE_SLICE_MIN_US 500u
/* Exploit periods, ms: the first after a change of choice, and the cap
 * of its doubling while the choice stays. */
#define SP_EXPLOIT_MIN_MS 128u
#define SP_EXPLOIT_MAX_MS 512u
/* The cap for slices, lower: the host may move the vCPUs close again at
 * any time, and slices kept then cost 45 % until the next probe (2
 * threads, cs 50 ns: 6.2 M against 10.9 M ops/s); a probe while sliced
 * costs about 1 ms at the shared rate. */
#define SP_EXPLOIT_SLICED_MAX_MS 128u
/* Slices must do this much better to be chosen, per cent: the probe's
 * noise, and the fairness slices give up (a sleeper waits up to a slice). */
#define SP_SLICE_MARGIN_PCT 10u
/* Fewer unlocks than this in a probe: too little use to measure, shared. */
#define SP_METER_MIN_UNLOCKS 256u
/* An unlock flushes its thread's count every this many unlocks, and only
 * then reads the clock. */
#define SP_METER_FLUSH 16u
/* A waiter looks at the controller every this many slow paths (always
 * while the word shows a mode flag). */
#define SP_WAITER_TICK 32u
/* An entry whose phase began this long ago may be taken by another lock. */
#define SP_ENTRY_IDLE_US 1000000u

enum sp_phase {
	SP_PHASE_SHARED,        /* exploit shared mode until end_us */
	SP_PHASE_PROBE_SHARED,  /* METER: count unlocks in shared mode */
	SP_PHASE_PROBE_SLICE,   /* METER | SLICED: count unlocks in slices */
	SP_PHASE_SLICED,        /* exploit slice mode until end_us */
};

struct sp_mode {
	const pvspin_lock_t *lock;  /* the lock this entry measures (NULL: free) */
	uint32_t busy;              /* a thread is changing the phase */
	uint32_t phase;             /* enum sp_phase */
	uint32_t seq;               /* phase number: thread counts of another are stale */
	uint32_t sliced;            /* the last choice: 1 slices, 0 shared */
	uint32_t exploit_ms;        /* the last exploit period */
	uint32_t start_us;          /* this phase's start (sp_now_us: compare differences) */
	uint32_t end_us;            /* exploit: its end; probe: its earliest end */
	uint32_t count;             /* unlocks counted in this probe */
	uint32_t shared_count;      /* the shared probe's unlocks ... */
	uint32_t shared_us;         /* ... in this many us */
	uint32_t sleepers;          /* waiters sleeping through a slice now */
} __attribute__((aligned(64)));

/* A thread slot's pending unlock count and its waiter tick. */
struct sp_mode_tick {
	const pvspin_lock_t *lock;  /* the count's lock */
	uint32_t seq;               /* the count's phase */
	uint32_t n;                 /* unlocks not yet added to the entry */
	uint32_t waiter;            /* slow paths met, for SP_WAITER_TICK */
} __attribute__((aligned(64)));

static struct sp_mode sp_modes[SP_MODE_ENTRIES];
static struct sp_mode_tick sp_ticks[PVSPIN_MAX_CPUS];

static inline struct sp_mode *sp_mode_entry(const pvspin_lock_t *lock)
{
	return &sp_modes[lock_hash(lock) & (SP_MODE_ENTRIES - 1)];
}

/* Set `set` and clear `clear` among the mode flags of the word, by
 * cmpxchg (other threads change the word's other fields meanwhile; a
 * corrupted word is left alone, the slow paths report it).  *v: the word
 * read last, updated. */
static void sp_mode_flags(pvspin_lock_t *lock, uint32_t *v, uint32_t set, uint32_t clear)
{
	for (;;) {
		if (!sp_word_ok(*v))
			return;
		uint32_t nv = (*v | set) & ~clear;
		if (nv == *v ||
		    pvspin_plat_cmpxchg32(&lock->val, v, nv, PVSPIN_RELAXED)) {
			*v = nv;
			return;
		}
	}
}

static inline bool sp_mode_trylock(struct sp_mode *e)
{
	uint32_t z = 0;
	return pvspin_plat_load32(&e->busy, PVSPIN_RELAXED) == 0 &&
	       pvspin_plat_cmpxchg32(&e->busy, &z, 1, PVSPIN_ACQUIRE);
}

static inline void sp_mode_unlock(struct sp_mode *e)
{
	pvspin_plat_store32(&e->busy, 0, PVSPIN_RELEASE);
}

/* Enter `phase` at `now` (busy held). */
static void sp_mode_enter(struct sp_mode *e, uint32_t phase, uint32_t now, uint32_t len_us)
{
	pvspin_plat_store32(&e->phase, phase, PVSPIN_RELAXED);
	pvspin_plat_store32(&e->seq, e->seq + 1, PVSPIN_RELAXED);
	pvspin_plat_store32(&e->start_us, now, PVSPIN_RELAXED);
	pvspin_plat_store32(&e->end_us, now + len_us, PVSPIN_RELAXED);
	pvspin_plat_store32(&e->count, 0, PVSPIN_RELAXED);
}

/* Has the phase's end passed (us that wrap: a difference)? */
static inline bool sp_mode_due(struct sp_mode *e, uint32_t now)
{
	return (int32_t)(now - pvspin_plat_load32(&e->end_us, PVSPIN_RELAXED)) >= 0;
}

/* Does a slice probe running since at least SP_PROBE_SLICE_MIN_US show
 * fewer unlocks per us than the shared probe?  Then it ends early. */
static inline bool sp_mode_slices_lose(struct sp_mode *e, uint32_t now)
{
	uint32_t us = now - pvspin_plat_load32(&e->start_us, PVSPIN_RELAXED);
	return pvspin_plat_load32(&e->phase, PVSPIN_RELAXED) == SP_PHASE_PROBE_SLICE &&
	       us >= SP_PROBE_SLICE_MIN_US &&
	       (uint64_t)pvspin_plat_load32(&e->count, PVSPIN_RELAXED) *
	       pvspin_plat_load32(&e->shared_us, PVSPIN_RELAXED) <
	       (uint64_t)pvspin_plat_load32(&e->shared_count, PVSPIN_RELAXED) * us;
}

static inline bool sp_mode_probing(struct sp_mode *e)
{
	uint32_t phase = pvspin_plat_load32(&e->phase, PVSPIN_RELAXED);
	return phase == SP_PHASE_PROBE_SHARED || phase == SP_PHASE_PROBE_SLICE;
}

/* The choice after the probes (busy held): exploit it, for longer while it
 * stays the same; the word's flags follow. */
static void sp_mode_choose(pvspin_lock_t *lock, struct sp_mode *e, uint32_t *v, bool sliced,
			   uint32_t now)
{
	uint32_t cap = sliced ? SP_EXPLOIT_SLICED_MAX_MS : SP_EXPLOIT_MAX_MS;
	e->exploit_ms = (uint32_t)sliced == e->sliced && e->exploit_ms
			? (2 * e->exploit_ms < cap ? 2 * e->exploit_ms : cap)
			: SP_EXPLOIT_MIN_MS;
	e->sliced = sliced;
	sp_mode_enter(e, sliced ? SP_PHASE_SLICED : SP_PHASE_SHARED, now, e->exploit_ms * 1000u);
	if (sliced)
		pvspin_plat_event(PVSPIN_EV_SLICE_ON);
	sp_mode_flags(lock, v, sliced ? _SP_SLICED : 0, _SP_METER | (sliced ? 0 : _SP_SLICED));
}

/* A probe whose lock's word lost METER (a fork child's repair clears it)
 * is never ended by an unlock: one this long past its end is over. */
#define SP_PROBE_STUCK_US 100000u

/* Is e's probe running: probing, and not stuck (SP_PROBE_STUCK_US past
 * its end with no METER in `v`)? */
static inline bool sp_mode_probe_runs(struct sp_mode *e, uint32_t v, uint32_t now)
{
	return sp_mode_probing(e) &&
	       ((v & _SP_METER) ||
		(int32_t)(now - pvspin_plat_load32(&e->end_us, PVSPIN_RELAXED)) < (int32_t)SP_PROBE_STUCK_US);
}

/* Nothing for a waiter to start: a probe runs (the unlocks end it), or
 * the exploit period is not over. */
static inline bool sp_mode_nothing_due(struct sp_mode *e, uint32_t v, uint32_t now)
{
	return sp_mode_probe_runs(e, v, now) || (!sp_mode_probing(e) && !sp_mode_due(e, now));
}

void sp_mode_waiter_tick(pvspin_lock_t *lock, bool every)
{
	int cpu = pvspin_plat_cpu();
	if (!every && cpu >= 0 && ++sp_ticks[cpu].waiter % SP_WAITER_TICK)
		return;
	uint32_t v = pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
	struct sp_mode *e = sp_mode_entry(lock);
	const pvspin_lock_t *owner = pvspin_plat_loadptr((void *const *)&e->lock, PVSPIN_ACQUIRE);
	uint32_t now = sp_now_us();
	if (owner == lock && sp_mode_nothing_due(e, v, now))
		return;
	if (!sp_mode_trylock(e))
		return;
	owner = e->lock;
	if (owner != lock) {
		/* flags without the entry (another lock took it): drop them */
		if (v & (_SP_SLICED | _SP_METER)) {
			sp_mode_flags(lock, &v, 0, _SP_SLICED | _SP_METER);
			sp_mode_unlock(e);
			return;
		}
		if (owner && now - pvspin_plat_load32(&e->start_us, PVSPIN_RELAXED) <
				     SP_ENTRY_IDLE_US) {
			sp_mode_unlock(e);
			return;
		}
		/* take it: a new lock's history (the phase is set below) */
		e->sliced = e->exploit_ms = 0;
		pvspin_plat_storeptr((void **)&e->lock, (void *)lock, PVSPIN_RELEASE);
	} else if (sp_mode_nothing_due(e, v, now)) {   /* again, under busy */
		sp_mode_unlock(e);
		return;
	}
	/* the exploit period is over: probe shared mode (METER, not SLICED) */
	sp_mode_enter(e, SP_PHASE_PROBE_SHARED, now, SP_PROBE_SHARED_US);
	pvspin_plat_event(PVSPIN_EV_SLICE_PROBE);
	sp_mode_flags(lock, &v, _SP_METER, _SP_SLICED);
	sp_mode_unlock(e);
}

void sp_mode_unlock_count(pvspin_lock_t *lock, uint32_t *v)
{
	struct sp_mode *e = sp_mode_entry(lock);
	if (pvspin_plat_loadptr((void *const *)&e->lock, PVSPIN_ACQUIRE) != lock) {
		/* flags without the entry: drop them */
		sp_mode_flags(lock, v, 0, _SP_SLICED | _SP_METER);
		return;
	}
	uint32_t seq = pvspin_plat_load32(&e->seq, PVSPIN_RELAXED);
	int cpu = pvspin_plat_cpu();
	if (cpu >= 0) {
		struct sp_mode_tick *t = &sp_ticks[cpu];
		if (t->lock != lock || t->seq != seq) {
			t->lock = lock;   /* a count of another lock or phase: stale */
			t->seq = seq;
			t->n = 0;
		}
		if (++t->n < SP_METER_FLUSH)
			return;
		pvspin_plat_fetch_add32(&e->count, t->n, PVSPIN_RELAXED);
		t->n = 0;
	} else if ((pvspin_plat_fetch_add32(&e->count, 1, PVSPIN_RELAXED) + 1) % SP_METER_FLUSH) {
		return;
	}
	if (!sp_mode_probing(e)) {
		/* METER left over from a probe that a choice has ended */
		sp_mode_flags(lock, v, 0, _SP_METER);
		return;
	}
	uint32_t now = sp_now_us();
	if (!sp_mode_due(e, now) && !sp_mode_slices_lose(e, now))
		return;
	if (!sp_mode_trylock(e))
		return;
	if (pvspin_plat_load32(&e->seq, PVSPIN_RELAXED) != seq || e->lock != lock) {
		sp_mode_unlock(e);   /* another thread moved the phase on */
		return;
	}
	uint32_t n = pvspin_plat_load32(&e->count, PVSPIN_RELAXED);
	uint32_t us = now - pvspin_plat_load32(&e->start_us, PVSPIN_RELAXED);
	switch (pvspin_plat_load32(&e->phase, PVSPIN_RELAXED)) {
	case SP_PHASE_PROBE_SHARED:
		if (n < SP_METER_MIN_UNLOCKS) {
			sp_mode_choose(lock, e, v, false, now);
			break;
		}
		pvspin_plat_store32(&e->shared_count, n, PVSPIN_RELAXED);
		pvspin_plat_store32(&e->shared_us, us, PVSPIN_RELAXED);
		sp_mode_enter(e, SP_PHASE_PROBE_SLICE, now, SP_PROBE_SLICE_US);
		sp_mode_flags(lock, v, _SP_SLICED, 0);
		break;
	case SP_PHASE_PROBE_SLICE:
		/* slices win if n / us > (1 + margin) * shared_count / shared_us */
		sp_mode_choose(lock, e, v,
			       (uint64_t)n * pvspin_plat_load32(&e->shared_us, PVSPIN_RELAXED) * 100u >
			       (uint64_t)pvspin_plat_load32(&e->shared_count, PVSPIN_RELAXED) * us *
			       (100u + SP_SLICE_MARGIN_PCT),
			       now);
		break;
	default:
		break;
	}
	sp_mode_unlock(e);
}

uint32_t sp_mode_sleepers_add(pvspin_lock_t *lock, int32_t delta)
{
	return pvspin_plat_fetch_add32(&sp_mode_entry(lock)->sleepers, (uint32_t)delta,
				       PVSPIN_RELAXED) + (uint32_t)delta;
}

void pvspin_spinpark_modes_reset(void)
{
	memset(sp_modes, 0, sizeof(sp_modes));
	memset(sp_ticks, 0, sizeof(sp_ticks));
}

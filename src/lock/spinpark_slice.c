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
/* A slice probe that has done clearly less than shared mode after this
 * long ends early: slices lose, and a probe of them costs their loss. */
#define SP_PROBE_SLICE_MIN_US 500u
/* ... less than this, per cent of the shared rate.  The first 0.5 ms hold
 * the change-over (the waiter of shared mode still spinning or parked,
 * the first pass), so slices that win by 25 % over the whole probe can
 * be behind by then: 2 threads, cs 2000 ns, vCPUs apart, 160-176 unlocks
 * in 0.5 ms against 0.32-0.37 a us shared (whole probes of slices did
 * 0.43-0.45), ended in 2 of 23 probes, each for 128-512 ms of shared
 * mode (debug prints of every probe).  Slices that lose lose by more:
 * 0.57 of shared with the vCPUs close, 2 threads, cs 50 ns. */
#define SP_PROBE_SLICE_LOSE_PCT 75u
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
/* Fewer unlocks than this in a shared probe: too few to measure; shared
 * mode, and the next probe after SP_EXPLOIT_SHORT_MS (no choice was
 * made: the exploit period's doubling is left as it was).  The count is
 * what threads have added, 16 at a time, so a probe falls short by up to
 * 15 unlocks a thread: with 2 threads at cs 2000 ns, vCPUs apart, shared
 * mode does 0.29-0.37 unlocks a us, and a lock's first probe counted
 * 144-176 in 1 ms, so that every new lock stayed shared for its first
 * 128 ms (40 % of a 300 ms bench cell) at about 0.7 of the sliced rate.
 * A probe that ran on until 256 (at most 8 ms; docs/spinpark.md) reached
 * a slice probe in `pvspin sim` spawn-dedicated, where 120 threads each
 * add 16 only every 1.5 ms and slices lose 12-fold: 0.977 -> 0.954 of the
 * best kernel kind (Intel), 0.880 -> 0.861 (AMD). */
#define SP_METER_MIN_UNLOCKS 256u
#define SP_EXPLOIT_SHORT_MS 16u
/* An unlock flushes its thread's count every this many unlocks, and only
 * then reads the clock. */
#define SP_METER_FLUSH 16u
/* A waiter looks at the controller every this many slow paths (always
 * while the word shows a mode flag). */
#define SP_WAITER_TICK 32u
/* An entry whose phase began this long ago may be taken by another lock. */
#define SP_ENTRY_IDLE_US 1000000u
/* A turn's length in acquisitions: those of SP_SLICE_NS at the rate the
 * last probe measured, within these bounds (and the default before any
 * rate is known). */
#define SP_TURN_MIN 16u
#define SP_TURN_MAX 65536u
#define SP_TURN_DEFAULT 1024u
/* Cells of an entry's `asleep`: this many slice sleepers of a lock sleep
 * on their slot's own wake word, where a pass can choose among them; the
 * rest (and threads without a slot) sleep on the entry's turn word, FIFO. */
#define SP_TURN_CELLS 64u

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
	uint32_t turn;              /* futex word of slice sleepers without a
				     * cell: +1 per pass to them */
	uint32_t turn_acqs;         /* a turn's acquisitions (0: SP_TURN_DEFAULT) */
	uint32_t unlocks;           /* unlocks of a sliced lock, SP_METER_FLUSH a step */
	uint32_t asleep[SP_TURN_CELLS]; /* slice sleepers on their own wake
				     * words: slot + 1 each (0: a free cell) */
	uint32_t vmin;              /* `served` of the last successor chosen */
	uint32_t passed_us;         /* a pass not yet taken: its time (0: none) */
} __attribute__((aligned(64)));

/* A thread slot's pending unlock count and its waiter tick. */
struct sp_mode_tick {
	const pvspin_lock_t *lock;  /* the count's lock */
	uint32_t seq;               /* the count's phase */
	uint32_t n;                 /* unlocks not yet added to the entry */
	uint32_t waiter;            /* slow paths met, for SP_WAITER_TICK */
	const pvspin_lock_t *turn_lock;  /* the lock of the thread's turns ... */
	uint32_t turn_n;            /* ... its acquisitions in this turn ... */
	uint32_t served;            /* ... and in all its turns (wraps: compare
				     * differences), for the choice of successor */
	uint32_t wake;              /* futex word of this slot's slice sleeps */
	uint32_t alone;             /* the last turn's end found no sleeper */
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

/* Set the turn length from n unlocks in us microseconds (busy held):
 * the acquisitions of one slice at that rate. */
static void sp_mode_set_turn(struct sp_mode *e, uint32_t n, uint32_t us)
{
	uint64_t k = us ? (uint64_t)n * (SP_SLICE_NS / 1000u) / us : SP_TURN_DEFAULT;
	k = k < SP_TURN_MIN ? SP_TURN_MIN : k > SP_TURN_MAX ? SP_TURN_MAX : k;
	pvspin_plat_store32(&e->turn_acqs, (uint32_t)k, PVSPIN_RELAXED);
}

/* Does a slice probe running since at least SP_PROBE_SLICE_MIN_US show
 * fewer than SP_PROBE_SLICE_LOSE_PCT % of the shared probe's unlocks per
 * us?  Then it ends early. */
static inline bool sp_mode_slices_lose(struct sp_mode *e, uint32_t now)
{
	uint32_t us = now - pvspin_plat_load32(&e->start_us, PVSPIN_RELAXED);
	return pvspin_plat_load32(&e->phase, PVSPIN_RELAXED) == SP_PHASE_PROBE_SLICE &&
	       us >= SP_PROBE_SLICE_MIN_US &&
	       (uint64_t)pvspin_plat_load32(&e->count, PVSPIN_RELAXED) *
	       pvspin_plat_load32(&e->shared_us, PVSPIN_RELAXED) * 100u <
	       (uint64_t)pvspin_plat_load32(&e->shared_count, PVSPIN_RELAXED) * us *
	       SP_PROBE_SLICE_LOSE_PCT;
}

static inline bool sp_mode_probing(struct sp_mode *e)
{
	uint32_t phase = pvspin_plat_load32(&e->phase, PVSPIN_RELAXED);
	return phase == SP_PHASE_PROBE_SHARED || phase == SP_PHASE_PROBE_SLICE;
}

/* Exploit slices or shared mode for `ms` from `now` (busy held): the
 * phase, and the word's flags (METER off, SLICED as chosen). */
static void sp_mode_exploit(pvspin_lock_t *lock, struct sp_mode *e, uint32_t *v, bool sliced,
			    uint32_t now, uint32_t ms)
{
	sp_mode_enter(e, sliced ? SP_PHASE_SLICED : SP_PHASE_SHARED, now, ms * 1000u);
	if (sliced)
		pvspin_plat_event(PVSPIN_EV_SLICE_ON);
	sp_mode_flags(lock, v, sliced ? _SP_SLICED : 0, _SP_METER | (sliced ? 0 : _SP_SLICED));
}

/* The choice after the probes (busy held): exploit it, for longer while it
 * stays the same. */
static void sp_mode_choose(pvspin_lock_t *lock, struct sp_mode *e, uint32_t *v, bool sliced,
			   uint32_t now)
{
	uint32_t cap = sliced ? SP_EXPLOIT_SLICED_MAX_MS : SP_EXPLOIT_MAX_MS;
	e->exploit_ms = (uint32_t)sliced == e->sliced && e->exploit_ms
			? (2 * e->exploit_ms < cap ? 2 * e->exploit_ms : cap)
			: SP_EXPLOIT_MIN_MS;
	e->sliced = sliced;
	sp_mode_exploit(lock, e, v, sliced, now, e->exploit_ms);
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

/* METER: count this unlock in the probe (slot `cpu`, -1: none), and if
 * the probe's time is up, run the controller (sp_mode_unlock_count). */
static void sp_mode_meter(pvspin_lock_t *lock, struct sp_mode *e, int cpu, uint32_t *v)
{
	uint32_t seq = pvspin_plat_load32(&e->seq, PVSPIN_RELAXED);
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
		if (n < SP_METER_MIN_UNLOCKS) {   /* too few: no choice, probe again soon */
			sp_mode_exploit(lock, e, v, false, now, SP_EXPLOIT_SHORT_MS);
			break;
		}
		pvspin_plat_store32(&e->shared_count, n, PVSPIN_RELAXED);
		pvspin_plat_store32(&e->shared_us, us, PVSPIN_RELAXED);
		sp_mode_set_turn(e, n, us);
		sp_mode_enter(e, SP_PHASE_PROBE_SLICE, now, SP_PROBE_SLICE_US);
		sp_mode_flags(lock, v, _SP_SLICED, 0);
		break;
	case SP_PHASE_PROBE_SLICE:
		sp_mode_set_turn(e, n, us);
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

/* A waiter is about to sleep through a slice of entry e's lock (delta
 * +1), or has slept (-1): the count of such sleepers, after the change. */
static uint32_t sp_mode_sleepers_add(struct sp_mode *e, int32_t delta)
{
	return pvspin_plat_fetch_add32(&e->sleepers, (uint32_t)delta, PVSPIN_RELAXED) +
	       (uint32_t)delta;
}

/* A slot's served count is kept within this many turns below the last
 * successor's (CFS's bound on a woken task's lag, after
 * kernel/sched/fair.c place_entity): a thread back from a long absence
 * gets a few turns of credit, not a run of turns that starves the rest. */
#define SP_TURN_LAG 16u
/* A slice sleeper's spin before it sleeps, at most, ns
 * (sp_mode_slice_spin), and its PAUSE loops between two clock reads. */
#define SP_SLICE_SPIN_NS SP_SLICE_NS
#define SP_SLICE_SPIN_CLOCK_LOOPS 256u
/* A pass whose successor has not taken the lock this long after is
 * forgotten (the next turn's end passes again). */
#define SP_PASS_STALE_US 2000u

static inline uint32_t sp_mode_turn_len(struct sp_mode *e)
{
	uint32_t k = pvspin_plat_load32(&e->turn_acqs, PVSPIN_RELAXED);
	return k ? k : SP_TURN_DEFAULT;
}

/* Slot t's turns are of `lock` from now on: a slot new to the lock, or
 * one whose count lags more than SP_TURN_LAG turns behind the last
 * successor's, starts at that bound (the thread's own slot only). */
static void sp_mode_turn_join(struct sp_mode *e, struct sp_mode_tick *t, pvspin_lock_t *lock)
{
	uint32_t vmin = pvspin_plat_load32(&e->vmin, PVSPIN_RELAXED);
	uint32_t floor = vmin - SP_TURN_LAG * sp_mode_turn_len(e);
	if (t->turn_lock != lock) {
		pvspin_plat_storeptr((void **)&t->turn_lock, (void *)lock, PVSPIN_RELAXED);
		t->turn_n = 0;
		pvspin_plat_store32(&t->served, vmin, PVSPIN_RELAXED);
	} else if ((int32_t)(t->served - floor) < 0) {
		pvspin_plat_store32(&t->served, floor, PVSPIN_RELAXED);
	}
}

/* Two turns in a row ended with nobody asleep on the lock: slice mode is
 * over, for its holder is alone (busy not held: a try).  Clear SLICED
 * (cmpxchg, holding the lock: *v is the word now), so that its unlocks
 * go inline again, and end the exploit period, so that the next waiter
 * probes. */
static void sp_mode_turn_alone(pvspin_lock_t *lock, struct sp_mode *e, uint32_t *v)
{
	sp_mode_flags(lock, v, 0, _SP_SLICED);
	if (!sp_mode_trylock(e))
		return;
	if (e->lock == lock && pvspin_plat_load32(&e->phase, PVSPIN_RELAXED) == SP_PHASE_SLICED)
		sp_mode_enter(e, SP_PHASE_SLICED, sp_now_us(), 0);
	sp_mode_unlock(e);
}

/* SLICED: count this unlock in the turn of slot `cpu` (-1: none); true
 * if it ends the turn and the turn is to be passed (sp_mode_unlock_count). */
static bool sp_mode_turn_count(pvspin_lock_t *lock, struct sp_mode *e, int cpu, uint32_t *v)
{
	if (cpu < 0) {
		pvspin_plat_fetch_add32(&e->unlocks, 1, PVSPIN_RELAXED);
		return false;
	}
	struct sp_mode_tick *t = &sp_ticks[cpu];
	if (t->turn_lock != lock)
		sp_mode_turn_join(e, t, lock);
	pvspin_plat_store32(&t->served, t->served + 1, PVSPIN_RELAXED);
	uint32_t n = ++t->turn_n;
	if (n % SP_METER_FLUSH == 0)
		pvspin_plat_fetch_add32(&e->unlocks, 1, PVSPIN_RELAXED);
	if (n < sp_mode_turn_len(e))
		return false;
	t->turn_n = 0;   /* passed, or nobody to pass it to: a new turn */
	if (!pvspin_plat_load32(&e->sleepers, PVSPIN_RELAXED)) {
		if (t->alone)
			sp_mode_turn_alone(lock, e, v);
		t->alone = 1;
		return false;
	}
	t->alone = 0;
	/* one pass at a time: while the last successor has not come (its
	 * CPU busy with another process, say), the holder goes on, and its
	 * count puts it last in the line */
	uint32_t passed = pvspin_plat_load32(&e->passed_us, PVSPIN_RELAXED);
	return !passed || sp_now_us() - passed > SP_PASS_STALE_US;
}

void sp_mode_turn_taken(pvspin_lock_t *lock)
{
	pvspin_plat_store32(&sp_mode_entry(lock)->passed_us, 0, PVSPIN_RELAXED);
}

void sp_mode_turn_pass(pvspin_lock_t *lock)
{
	struct sp_mode *e = sp_mode_entry(lock);
	pvspin_plat_event(PVSPIN_EV_SLICE_PASS);
	pvspin_plat_store32(&e->passed_us, sp_now_us() | 1u, PVSPIN_RELAXED);
	/* the least served of the sleepers in the cells (a stride
	 * scheduler's choice: Waldspurger and Weihl, 1995), so that a thread
	 * whose turns were cut short, its CPU taken by another process, say,
	 * gets the next; counts are compared as differences (they wrap).
	 * Taken out of its cell by cmpxchg, so that the next pass does not
	 * choose it again before it runs; a sleeper that left meanwhile
	 * makes us choose again. */
	for (unsigned tries = 0; tries < SP_TURN_CELLS; tries++) {
		uint32_t best = SP_TURN_CELLS, least = 0, who = 0;
		for (uint32_t i = 0; i < SP_TURN_CELLS; i++) {
			uint32_t s1 = pvspin_plat_load32(&e->asleep[i], PVSPIN_ACQUIRE);
			if (!s1)
				continue;
			uint32_t c = pvspin_plat_load32(&sp_ticks[s1 - 1].served, PVSPIN_RELAXED);
			if (best == SP_TURN_CELLS || (int32_t)(c - least) < 0) {
				best = i;
				least = c;
				who = s1;
			}
		}
		if (best == SP_TURN_CELLS)
			break;
		if (!pvspin_plat_cmpxchg32(&e->asleep[best], &who, 0, PVSPIN_RELAXED))
			continue;
		pvspin_plat_store32(&e->vmin, least, PVSPIN_RELAXED);
		pvspin_plat_fetch_add32(&sp_ticks[who - 1].wake, 1, PVSPIN_RELEASE);
		pvspin_plat_unpark32(&sp_ticks[who - 1].wake, 1);
		return;
	}
	pvspin_plat_fetch_add32(&e->turn, 1, PVSPIN_RELEASE);
	pvspin_plat_unpark32(&e->turn, 1);
}

/*
 * Before a slice sleeper sleeps: while the lock's slice sleepers and its
 * holder are no more than the CPUs this process may run on (`n` + 1 <=
 * pvspin_plat_spin_cpus(), so that no sleeper's spin takes the holder's
 * CPU), wait for the pass on our own wake word, not the lock's line, by
 * reading it, for at most SP_SLICE_SPIN_NS (about the turn we arrived
 * in): the pass then finds us running, where a sleeper's CPU has gone
 * idle and the pass's FUTEX_WAKE must wake it (an IPI, and on a guest the
 * host's wake-up of the vCPU: 24-42 us here).  The sleep that follows
 * (if no pass came) is the same as without it: the futex compares the
 * word, so a pass during the spin ends it at once; its timeout starts
 * after the spin, so a sleeper that spun ends its wait up to
 * SP_SLICE_SPIN_NS later (what that timeout is for, a holder that
 * stopped, is decided by the unlocks counted since before the spin).  The wait is
 * pvspin_plat_wait32() in chunks of SP_SLICE_SPIN_CLOCK_LOOPS with the
 * clock read between them: the simulator parks the vCPU until the line
 * is written instead of running every load.  `pvspin bench`, A/B against
 * the code before (paired 300 ms repeats, order alternated, 2026-12-06):
 * 2 threads, vCPUs apart, cs 2000 ns 1.028 (30 pairs; 1.027 in 63 in an
 * earlier run), cs 50 ns 1.067 (23 pairs); 8 threads and `--hog 1`
 * 0.985-0.993, noise (two copies of one code: 0.983).
 * docs/spinpark.md, "A slice sleeper spins first".
 */
static bool sp_mode_word_moved(uint32_t v, uint32_t seen)
{
	return v != seen;
}

static void sp_mode_slice_spin(const uint32_t *word, uint32_t seen)
{
	uint64_t t0 = pvspin_plat_now_ns();
	uint32_t v;
	while (!pvspin_plat_wait32(word, sp_mode_word_moved, seen, SP_SLICE_SPIN_CLOCK_LOOPS, &v,
				   NULL))
		if (pvspin_plat_now_ns() - t0 > SP_SLICE_SPIN_NS)
			return;
}

int sp_mode_slice_sleep(pvspin_lock_t *lock)
{
	struct sp_mode *e = sp_mode_entry(lock);
	int cpu = pvspin_plat_cpu();
	uint32_t cell = SP_TURN_CELLS, *word = &e->turn;
	if (cpu >= 0) {
		sp_mode_turn_join(e, &sp_ticks[cpu], lock);
		sp_ticks[cpu].turn_n = 0;   /* our next turn starts from zero */
		word = &sp_ticks[cpu].wake;
	}
	/* the wake word before the unlock count and before we show in a
	 * cell: a pass after this read ends the sleep at once (the futex
	 * compares the word), or shows after it (below) */
	uint32_t seen = pvspin_plat_load32(word, PVSPIN_ACQUIRE);
	uint32_t unlocks = pvspin_plat_load32(&e->unlocks, PVSPIN_RELAXED);
	for (uint32_t i = 0; cpu >= 0 && i < SP_TURN_CELLS; i++) {
		uint32_t z = 0;   /* read first: no RMW on a taken cell */
		if (!pvspin_plat_load32(&e->asleep[i], PVSPIN_RELAXED) &&
		    pvspin_plat_cmpxchg32(&e->asleep[i], &z, (uint32_t)cpu + 1, PVSPIN_RELEASE)) {
			cell = i;
			break;
		}
	}
	if (cpu >= 0 && cell == SP_TURN_CELLS) {   /* no cell: the entry's word */
		word = &e->turn;
		seen = pvspin_plat_load32(word, PVSPIN_ACQUIRE);
	}
	uint32_t n = sp_mode_sleepers_add(e, 1);
	uint64_t ns = (uint64_t)SP_SLICE_NS * ((n + SP_SLICE_SLEEPERS - 1) / SP_SLICE_SLEEPERS);
	pvspin_plat_event(PVSPIN_EV_SLICE_SLEEP);
	if (n + 1 <= pvspin_plat_spin_cpus())
		sp_mode_slice_spin(word, seen);
	int r = pvspin_plat_park32(word, seen, ns < SP_SLICE_WAIT_MAX_NS ? ns : SP_SLICE_WAIT_MAX_NS);
	if (cell < SP_TURN_CELLS) {   /* out of the cell, unless a pass took us */
		uint32_t me = (uint32_t)cpu + 1;
		pvspin_plat_cmpxchg32(&e->asleep[cell], &me, 0, PVSPIN_RELAXED);
	}
	sp_mode_sleepers_add(e, -1);
	if (r != PVSPIN_PARK_TIMEDOUT || pvspin_plat_load32(word, PVSPIN_ACQUIRE) != seen)
		return SP_SLEEP_PASSED;
	return pvspin_plat_load32(&e->unlocks, PVSPIN_RELAXED) == unlocks ? SP_SLEEP_IDLE
									 : SP_SLEEP_BUSY;
}

bool sp_mode_unlock_count(pvspin_lock_t *lock, uint32_t *v)
{
	struct sp_mode *e = sp_mode_entry(lock);
	if (pvspin_plat_loadptr((void *const *)&e->lock, PVSPIN_ACQUIRE) != lock) {
		/* flags without the entry: drop them */
		sp_mode_flags(lock, v, 0, _SP_SLICED | _SP_METER);
		return false;
	}
	int cpu = pvspin_plat_cpu();   /* once per unlock, for both counts */
	if (*v & _SP_METER)
		sp_mode_meter(lock, e, cpu, v);
	return (*v & _SP_SLICED) && sp_mode_turn_count(lock, e, cpu, v);
}

void pvspin_spinpark_modes_reset(void)
{
	memset(sp_modes, 0, sizeof(sp_modes));
	memset(sp_ticks, 0, sizeof(sp_ticks));
}

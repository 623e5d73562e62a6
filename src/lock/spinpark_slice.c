/*
 * spinpark_slice.c - lock slices for spinpark (spinpark_slice.h,
 * docs/spinpark.md "Slice mode").
 *
 * Why.  When the lock is saturated and a thread's work outside the
 * critical section is shorter than a hand-off (the lock's line, and the
 * lines the critical section writes, crossing to the next holder's CPU),
 * the lock does more work per second when one thread takes it again and
 * again while the others sleep than when every release goes to a spinning
 * waiter: the hand-off is on the lock's critical path, the releaser's
 * non-critical work is not.  Measured here (pvspin bench, cs 50 ns, ncs
 * 100 ns, 2 to 8 threads on 2 CPUs), that is the gap between glibc's
 * mutexes in their "one thread runs, the rest sleep" regime and a
 * spinning lock.  When the non-critical work is long, or the lock is not
 * saturated, the opposite holds, so the choice is made per lock from
 * measurements, never from a constant.
 *
 * The meter.  Once a lock has had a spinning acquisition its holder sets
 * ARMED (spinpark.c), so every unlock of it goes through
 * pvspin_spinpark_unlock_slowpath(), which counts it here before its
 * release, while it still holds the lock (so the controller's changes
 * of _SP_SLICED are serialised by the lock itself).  Time is divided
 * into phases, each in one mode, and each phase measures its own rate
 * (unlocks per ms over the whole phase):
 *
 *   exploit (the mode believed best, SP_EXPLOIT_MIN_US..SP_EXPLOIT_MAX_US)
 *     -> probe (the other mode, SP_PROBE_US)
 *     -> exploit of the winner of the two rates just measured
 *
 * Slice mode must beat shared mode by SP_SLICE_GAIN_PCT to win: it costs
 * the waiters latency (they wait out other threads' slices).  A probe
 * that loses doubles the next exploit phase (up to SP_EXPLOIT_MAX_US), so
 * a lock where one mode always wins pays the probes less and less (after
 * GCR's periodic re-evaluation, Dice and Kogan 2019); a probe that wins
 * resets it, and one that runs at less than half the other mode's rate
 * ends after SP_PROBE_ABORT_US.  The very first phase, shared, is a
 * probe's length.  Each phase starts with SP_WARMUP_US that are not
 * measured.
 *
 * Slices.  In slice mode (_SP_SLICED in the word) waiters do not spin:
 * they park at once, and unlocks do not wake them, so the thread that
 * runs keeps taking the free lock uncontended.  After SP_SLICE_US the
 * unlock wakes a parked waiter (WOKEN, released, FUTEX_WAKE one;
 * spinpark.c), which spins as the starving owner, so the holder's next
 * unlock hands the lock to it (locked byte 1 -> 2): the previous holder's
 * next lock() finds the lock taken and parks in turn, at the tail of the futex queue,
 * so slices rotate in FIFO order.  Parkers in slice mode also time out
 * after SP_SLICED_PARK_NS (spinpark.c), so a lock that is left free by a
 * holder that does not come back is found within that bound.
 *
 * Concurrency.  Each thread counts its unlocks in its slot's private
 * counter and adds them to the entry's `count` (a relaxed fetch-add)
 * every SP_SLICE_TICK; then it runs the controller, under the entry's
 * `busy` trylock (acquire / release): an unlock that finds it busy skips
 * its turn.  Everything else in an entry is the controller's.
 */
#include "spinpark_slice.h"
#include "lock_hash.h"

#include <string.h>
#ifdef SP_SLICE_DEBUG
#include <stdio.h>
#endif

/* Entries in the side table (a power of two). */
#define SP_SLICE_ENTRIES 256u
/* The controller runs on every SP_SLICE_TICK-th metered unlock. */
#define SP_SLICE_TICK 16u
/* One slice: the time a thread runs with the lock while others park.  A
 * hand-off costs about a futex wake-up (10-60 us here), so 1 ms keeps it
 * to a few percent, and 8 threads each get a slice every 8 ms. */
#define SP_SLICE_US 1000u
/* Length of a probe of the other mode, and of the first phase, after a
 * warm-up that is not measured: a switch of mode takes a while to settle
 * (spinners finish their spins, sleepers wake or go to sleep). */
#define SP_PROBE_US 4000u
#define SP_WARMUP_US 500u
/* A probe that has run this long (warm-up included) at less than half the
 * other mode's rate ends at once: a probe of slice mode on a lock that
 * many CPUs share (pvspin sim's spawn-dedicated: a quarter of the shared
 * rate) would otherwise cost a few percent of every exploit phase. */
#define SP_PROBE_ABORT_US 250u
/* Exploit phases: the first after a switch, and the cap after doubling. */
#define SP_EXPLOIT_MIN_US 32000u
#define SP_EXPLOIT_MAX_US 128000u
/* Slice mode must do this much more than shared mode to be chosen. */
#define SP_SLICE_GAIN_PCT 10u
/* An entry whose controller has not run for this long may be claimed by
 * another lock; a phase older than this is restarted, not measured. */
#define SP_SLICE_STALE_US 1000000u

/* `mode` bits. */
#define SP_MODE_SLICED 1u   /* this phase is in slice mode */
#define SP_MODE_PROBE  2u   /* this phase probes the mode not believed best */
#define SP_MODE_WARM   4u   /* the phase's first SP_WARMUP_US: not measured */

struct sp_slice {
	/* read by every metered unlock, written only by a claim: a line of
	 * its own, apart from the fields that flushes and the controller
	 * write (with 120 vCPUs in pvspin sim's spawn-dedicated, sharing the
	 * line cost 9 % of the throughput: 1.30 against 1.42 M ops/s) */
	pvspin_lock_t *lock;     /* the lock this entry meters (NULL: free) */
	uint32_t count __attribute__((aligned(64)));   /* metered unlocks (wraps) */
	uint32_t busy;           /* the controller's trylock: 0 free, 1 held */
	uint32_t wake_us;        /* the last wake-up's stamp, us (wraps; atomic:
				  * written by the waking unlock, read by the
				  * woken) */
	/* the controller's, under `busy`: */
	uint32_t mode;           /* SP_MODE_* of the current phase */
	uint32_t phase_us;       /* start of the phase, us (wraps) */
	uint32_t phase_count;    /* `count` at its start */
	uint32_t phase_len_us;   /* its measured length, after the warm-up */
	uint32_t exploit_len_us; /* the next exploit phase's length */
	uint32_t slice_us;       /* start of the current slice (slice mode) */
	uint32_t stamp_us;       /* the controller's last run (atomic: read
				  * without `busy` by claimants) */
	uint32_t rate[2];        /* unlocks per ms of the last phase in shared
				  * [0] and slice [1] mode; 0: not measured */
} __attribute__((aligned(64)));

static struct sp_slice sp_slices[SP_SLICE_ENTRIES];

/* Each thread slot (pvspin_plat_cpu()) counts its own unlocks of the lock
 * it last unlocked and adds them to the entry's `count` every
 * SP_SLICE_TICK: one shared RMW per 16 unlocks instead of one per unlock,
 * which in shared mode would cross CPUs with every hand-off.  Only the
 * slot's thread touches its counter. */
struct sp_slot_count {
	pvspin_lock_t *lock;
	uint32_t n;
} __attribute__((aligned(64)));

static struct sp_slot_count sp_slot_counts[PVSPIN_MAX_CPUS];

static inline struct sp_slice *sp_slot(const pvspin_lock_t *lock)
{
	return &sp_slices[lock_hash(lock) & (SP_SLICE_ENTRIES - 1)];
}

static inline bool sp_busy_try(struct sp_slice *s)
{
	uint32_t idle = 0;
	return pvspin_plat_cmpxchg32(&s->busy, &idle, 1, PVSPIN_ACQUIRE);
}

static inline void sp_busy_done(struct sp_slice *s)
{
	pvspin_plat_store32(&s->busy, 0, PVSPIN_RELEASE);
}

/* The entry of `lock`, or NULL if it has none: one load. */
static inline struct sp_slice *sp_slice_find(pvspin_lock_t *lock)
{
	struct sp_slice *s = sp_slot(lock);
	return pvspin_plat_loadptr((void *const *)&s->lock, PVSPIN_ACQUIRE) == lock ? s : NULL;
}

struct sp_slice *sp_slice_of(pvspin_lock_t *lock)
{
	struct sp_slice *s = sp_slot(lock);
	void *tag = pvspin_plat_loadptr((void *const *)&s->lock, PVSPIN_ACQUIRE);
	if (tag == lock)
		return s;
	uint32_t now = sp_now_us();
	/* another lock's, in use: do not even contend for its trylock */
	if (tag && now - pvspin_plat_load32(&s->stamp_us, PVSPIN_RELAXED) <= SP_SLICE_STALE_US)
		return NULL;
	if (!sp_busy_try(s))
		return NULL;
	tag = pvspin_plat_loadptr((void *const *)&s->lock, PVSPIN_RELAXED);
	if (tag == lock || !tag ||
	    now - pvspin_plat_load32(&s->stamp_us, PVSPIN_RELAXED) > SP_SLICE_STALE_US) {
		if (tag != lock) {
			/* a new phase in shared mode, a probe's length */
			s->mode = SP_MODE_WARM;
			s->phase_us = s->slice_us = now;
			pvspin_plat_store32(&s->stamp_us, now, PVSPIN_RELAXED);
			s->phase_count = pvspin_plat_load32(&s->count, PVSPIN_RELAXED);
			s->phase_len_us = SP_PROBE_US;
			s->exploit_len_us = SP_EXPLOIT_MIN_US;
			s->rate[0] = s->rate[1] = 0;
			pvspin_plat_store32(&s->wake_us, 0, PVSPIN_RELAXED);
			/* release: the fields before the tag that names them */
			pvspin_plat_storeptr((void **)&s->lock, lock, PVSPIN_RELEASE);
		}
		tag = lock;
	}
	sp_busy_done(s);
	return tag == lock ? s : NULL;
}

void sp_slice_leave(pvspin_lock_t *lock)
{
	/* relaxed RMW: a mode bit, which no other field depends on */
	uint32_t v = pvspin_plat_fetch_and32(&lock->val, ~_SP_SLICED, PVSPIN_RELAXED);
	/* Back to shared mode: the waiters that slice mode put to sleep run
	 * again and spin or park by shared mode's rules, instead of coming
	 * back one wake-up per unlock. */
	if ((v & _SP_SLICED) && (v >> _SP_PARKED_OFFSET))
		pvspin_plat_unpark32(&lock->val, v >> _SP_PARKED_OFFSET);
}

/* Set or clear _SP_SLICED in the word. */
static void sp_set_sliced(pvspin_lock_t *lock, bool on)
{
	if (on) {
		/* relaxed RMW: a mode bit, which no other field depends on */
		pvspin_plat_fetch_or32(&lock->val, _SP_SLICED, PVSPIN_RELAXED);
		pvspin_plat_event(PVSPIN_EV_SLICE_ON);
	} else {
		sp_slice_leave(lock);
	}
}

/* The mode of the phase after `mode`'s, whose rate is in s->rate (file
 * comment); sets the next phase's length. */
static uint32_t sp_next_mode(struct sp_slice *s, uint32_t mode)
{
	if (!(mode & SP_MODE_PROBE)) {
		s->phase_len_us = SP_PROBE_US;
		return ((mode & SP_MODE_SLICED) ^ SP_MODE_SLICED) | SP_MODE_PROBE;
	}
	bool sliced_wins = (uint64_t)s->rate[1] * 100u >
			   (uint64_t)s->rate[0] * (100u + SP_SLICE_GAIN_PCT);
	uint32_t winner = sliced_wins ? SP_MODE_SLICED : 0;
	/* the probed mode is the one not believed best: did it win? */
	if (winner == (mode & SP_MODE_SLICED))
		s->exploit_len_us = SP_EXPLOIT_MIN_US;
	else if (s->exploit_len_us < SP_EXPLOIT_MAX_US)
		s->exploit_len_us *= 2;
	s->phase_len_us = s->exploit_len_us;
	return winner;
}

/* One run of the controller, under `busy`; `n` is the count with this
 * unlock.  True: sliced, and the slice is over. */
static bool sp_slice_step(struct sp_slice *s, pvspin_lock_t *lock, uint32_t n)
{
	uint32_t now = sp_now_us(), mode = s->mode, el = now - s->phase_us;
	bool sliced = mode & SP_MODE_SLICED, over = false;


	pvspin_plat_store32(&s->stamp_us, now, PVSPIN_RELAXED);
	if (el > SP_SLICE_STALE_US ||
	    (!(mode & SP_MODE_WARM) && el > s->phase_len_us + s->phase_len_us / 4 + SP_WARMUP_US)) {
		/* not metered for long (time from another run, or the lock
		 * went unused well past the phase's end, so its rate would
		 * count the pause): restart the phase, measuring nothing */
		s->phase_us = s->slice_us = now;
		s->phase_count = n;
		return false;
	}
	if (sliced && now - s->slice_us >= SP_SLICE_US) {
		over = true;
		s->slice_us = now;
	}
	/* The phase's rate so far (a division: only when it is used), at
	 * the phase's end and for a probe, which ends early, warm-up or not,
	 * when it runs at less than half the other mode's rate. */
	bool probing = (mode & SP_MODE_PROBE) && el >= SP_PROBE_ABORT_US;
	bool ending = !(mode & SP_MODE_WARM) && el >= s->phase_len_us;
	uint32_t rate = probing || ending
			? (uint32_t)((uint64_t)(n - s->phase_count) * 1000u / (el ? el : 1)) : 0;
	bool losing = probing && (uint64_t)rate * 2u < s->rate[!sliced];
	if (!ending && !losing) {
		if ((mode & SP_MODE_WARM) && el >= SP_WARMUP_US) {
			/* the measured part of the phase starts now */
			s->mode = mode & ~SP_MODE_WARM;
			s->phase_us = now;
			s->phase_count = n;
		}
		return over;
	}
	s->rate[sliced] = rate;
	uint32_t next = sp_next_mode(s, mode);
#ifdef SP_SLICE_DEBUG
	fprintf(stderr, "slice %p mode %u el %u n %u rate %u/%u -> %u len %u\n", (void *)lock, mode, el,
		n - s->phase_count, s->rate[0], s->rate[1], next, s->phase_len_us);
#endif
	bool next_sliced = next & SP_MODE_SLICED;
	if (next_sliced != sliced) {
		sp_set_sliced(lock, next_sliced);
		s->slice_us = now;   /* this thread's slice starts now */
		over = false;
	}
	s->mode = next | SP_MODE_WARM;
	s->phase_us = now;
	s->phase_count = n;
	return over;
}

/* sp_slice_unlock() past its fast path: a tick, a new lock for the slot,
 * or no slot (`c` NULL).  Out of line, so that the fast path saves no
 * registers. */
static __attribute__((noinline)) enum sp_slice_verdict
sp_slice_count(pvspin_lock_t *lock, struct sp_slot_count *c)
{
	struct sp_slice *s = sp_slice_find(lock);
	if (!s)
		return SP_SLICE_NONE;
	uint32_t add, n;
	if (c) {
		if (c->lock != lock) {
			/* the last lock's count goes to its entry, if it has
			 * one (its address is only hashed and compared) */
			struct sp_slice *o = c->n ? sp_slice_find(c->lock) : NULL;
			if (o)
				pvspin_plat_fetch_add32(&o->count, c->n, PVSPIN_RELAXED);
			c->lock = lock;
			c->n = 0;
		}
		if (++c->n < SP_SLICE_TICK)
			return SP_SLICE_GO_ON;
		add = c->n;
		c->n = 0;
		n = pvspin_plat_fetch_add32(&s->count, add, PVSPIN_RELAXED) + add;
	} else {
		/* slot-less: count each unlock, tick on every 16th */
		n = pvspin_plat_fetch_add32(&s->count, 1, PVSPIN_RELAXED) + 1;
		if (n % SP_SLICE_TICK)
			return SP_SLICE_GO_ON;
	}
	if (!sp_busy_try(s))
		return SP_SLICE_GO_ON;
	bool over = false;
	if (pvspin_plat_loadptr((void *const *)&s->lock, PVSPIN_RELAXED) == lock)
		over = sp_slice_step(s, lock, n);
	sp_busy_done(s);
	return over ? SP_SLICE_OVER : SP_SLICE_GO_ON;
}

/* This thread's slot counter, if it counts `lock` and the next unlock is
 * not a tick (sp_slice_unlock()'s fast path); else NULL, with the slot
 * (NULL: none) in *cp. */
static inline uint32_t *sp_slot_counter(pvspin_lock_t *lock, struct sp_slot_count **cp)
{
	int cpu = pvspin_plat_cpu();
	struct sp_slot_count *c = cpu >= 0 ? &sp_slot_counts[cpu] : NULL;
	*cp = c;
	return __builtin_expect(c && c->lock == lock && c->n + 1 < SP_SLICE_TICK, 1) ? &c->n
										    : NULL;
}

enum sp_slice_verdict sp_slice_unlock(pvspin_lock_t *lock, uint32_t **later)
{
	struct sp_slot_count *c;
	/* Between ticks, only the slot's counter, which the caller bumps
	 * after its release: the counter names a lock only once it had an
	 * entry, and a lock that has lost it since is told so at the next
	 * tick (header). */
	if ((*later = sp_slot_counter(lock, &c)))
		return SP_SLICE_GO_ON;
	return sp_slice_count(lock, c);
}

void sp_slice_stamp_wake(pvspin_lock_t *lock)
{
	struct sp_slice *s = sp_slice_find(lock);
	if (s)
		pvspin_plat_store32(&s->wake_us, sp_now_us(), PVSPIN_RELAXED);
}

bool sp_slice_last_wake(pvspin_lock_t *lock, uint32_t *wake_us)
{
	struct sp_slice *s = sp_slice_find(lock);
	if (!s)
		return false;
	*wake_us = pvspin_plat_load32(&s->wake_us, PVSPIN_RELAXED);
	return true;
}

void pvspin_spinpark_slices_reset(void)
{
	memset(sp_slices, 0, sizeof(sp_slices));
	memset(sp_slot_counts, 0, sizeof(sp_slot_counts));
}

/*
 * spinpark.c - slow paths of the spin-then-park lock (pvspin/spinpark.h,
 * docs/spinpark.md).  Transitions are written (parked, spinners, locked);
 * flags by name.
 *
 * A waiter first spins unregistered, once per call, where one spinner may
 * spin (sp_spin_unregistered: at most 512 PAUSE loops, the word read
 * after each, nothing written to it), then goes
 * through two phases per round:
 *
 *  1. a registered spin: only if fewer than spin_cpus - 1 threads (and at
 *     most SP_SPINNERS_CAP) spin already (the holder needs a CPU too: more
 *     spinners than that can only delay it), for the lock's learned budget
 *     of 16 << e PAUSE
 *     loops (sp_next_budget): e rises when a spin needed most of its
 *     budget or a waiter that gave up finds that the lock came free
 *     sooner than its wake-up took (sp_spin_longer), and falls when a
 *     parked waiter whose spin ran out on a lock held all along slept
 *     long (one that never spun, or saw the lock free and lost it to
 *     other waiters, waited for its turn, not for a long hold, and
 *     leaves e): a lock whose holders are
 *     preempted, block or yield stops being spun on, one whose holders
 *     run keeps a budget that covers its holds (after glibc's adaptive
 *     mutex, which learns a spin count per lock, and the kernel mutex's
 *     rule to spin only while the owner runs, which a thread cannot
 *     observe);
 *  2. park: count itself in `parked` (an RMW on the word), re-check,
 *     FUTEX_WAIT on the word (with a timeout, see below).  The unlocker
 *     reads the word; if it counts a parked waiter, nobody spins (a
 *     spinner will take the lock) and no woken waiter is still on its
 *     way (WOKEN, after Go's mutexWoken), it sets WOKEN while still
 *     holding the lock; it releases (below) and then FUTEX_WAKEs one,
 *     also when a sleeper may have come after its read.
 *
 * Lost wake-ups, with the plain-store release (an asymmetric Dekker,
 * after userspace RCU's membarrier pairing): the unlock reads the park
 * sequence (s1, pvspin_plat_park_seq()) and then the word, stores 0 to
 * the locked byte, and reads the sequence again (s2; a compiler barrier
 * between, pvspin_plat_fence_light()).  A sleeper counts itself in the
 * word (an RMW), adds PVSPIN_PARK_SEQ_ONE to the sequence (release),
 * calls membarrier (pvspin_plat_fence_heavy()) and sleeps by FUTEX_WAIT,
 * which compares the word in the kernel after that.  The membarrier
 * splits the unlocker's program at one point: if the store comes before
 * it, the futex's compare sees the release (or a later value) and does
 * not sleep on the old word; if after, so is the s2 read, which then
 * sees the sequence move, and the unlocker wakes one.  That wake-up has
 * a leg of its own: it may come before the sleeper is queued, and then
 * only the sleeper's compare saves it, which needs the release in memory
 * by then; Linux's futex_wake() runs a full barrier before it looks for
 * waiters (kernel/futex/waitwake.c, paired with the waiter's before its
 * read), which drains the unlocker's store.  A port of
 * pvspin_plat_unpark32() to another wait queue must keep that (the
 * Promela model's mutant (v) loses a wake-up without it).  If s1 already saw
 * the sleeper's add, the word read after it counts the sleeper (its
 * count came first) and the unlocker decides on it (sp_should_wake): it
 * wakes one, or leaves the lock to spinners or to a WOKEN waiter on its
 * way, each of which either takes the lock (and its unlock decides in
 * turn) or gives up and sleeps, adding to the sequence after s1.
 * On x86 the store does not wait for the line, which a spinning waiter
 * holds: the releasing CPU goes on at once, where a `lock xadd` stalls
 * for a line transfer (~165 ns when this guest's vCPUs sit apart).
 *
 * The crowd (SP_CROWD, 2026-12-06; a crowd of one since 2026-12-07, so
 * the store is kept for locks nobody sleeps on): a membarrier costs the
 * sleeper about 9 us and every other CPU running the process about 5 us,
 * and with hundreds of waiters there are tens of thousands of sleeps a
 * second (with 4 and 8 threads on 2 CPUs, hundreds: SP_CROWD's comment).
 * So an unlock that reads SP_CROWD or more parked waiters releases by
 * the RMW below, not the store, and a sleeper whose last RMW on the word
 * in this round (its count, a spinner's give-up, or clearing WOKEN)
 * replaced a word that counted SP_CROWD or more skips the add and the
 * membarrier.  Why no wake-up is lost: take an unlock U whose release
 * such a sleeper S misses.  U released by the store, so the word U last
 * read counted fewer than SP_CROWD.  If U read it after S's RMW, U counted
 * S, and decided on it as for any counted sleeper: it wakes one (whose
 * FUTEX_WAKE drains the store first), or leaves the lock to a spinner or
 * a WOKEN waiter, which takes it or counts itself with an RMW (fencing,
 * or meeting a crowd: below).  If U read it before S's RMW, the count
 * rose from below SP_CROWD to SP_CROWD between the two: the waiter G
 * whose count made it SP_CROWD met fewer, so G fences before it sleeps,
 * after U's read.  G's membarrier splits U as above: U's store is in
 * memory before G's re-check (G takes the lock, or finds it taken by a
 * thread whose unlock counts S), or U's second read of the sequence
 * sees G's add and U wakes one.  A counted waiter with nothing to change
 * in the word (WOKEN clear, the spinners full or another's hand-off
 * pending: a re-sleep after a timeout or an EAGAIN) writes the word back
 * unchanged by a cmpxchg among a crowd, an RMW like any other (only
 * where sleeps fence at all), and without a crowd fences.  The Promela
 * model checks this with CROWD 1 and 2 (3 threads), and rejects mutant
 * (w), whose unlock keeps the store while the crowd's sleepers skip the
 * fence: a spinner that gives up then counts itself unfenced while the
 * store it should have seen is still buffered.  `pvspin torture`, 3 s:
 * 256 threads 363-365 k acquisitions a second against 278-287 k, 1 024
 * threads 266-281 k against 214-235 k (glibc's pthread_mutex 379 k and
 * 370 k in the same hour); `pvspin bench` at 8 threads (never 8 parked) 1.00 of before
 * (with SP_CROWD 8).
 * With the write-back of re-sleeps too (a profile of that 1 024-thread
 * run still had 15 % of the samples in membarrier's IPIs): 1 024 threads
 * 321-357 k against 226-237 k, longest wait 0.97-1.20 s against 1.41-1.46
 * s; 256 threads 360-378 k against 286-288 k (pthread_mutex 282 k and
 * 387 k in the same minutes, longest 0.16 s and 44 ms).
 *
 * Lost wake-ups, with the RMW release (a process without the fence or
 * on more than PVSPIN_PARK_SEQ_STORE_MAX_CPUS CPUs, where the pairing's
 * membarrier IPIs and the sequence's line cost more: the sequence's
 * bit 0, PVSPIN_PARK_SEQ_RMW_RELEASE; and an unlock that clears
 * EXTENDED): the parker's count and the unlocker's release are both
 * RMWs on the one word, so one of them comes first in the word's
 * modification order.  If the release does, the parker's re-check, a
 * load after its own RMW, reads the release or a later value (coherence)
 * and takes the free lock, or sees it taken again by a thread whose
 * unlock comes after the count; if the count does, the release returns a
 * word that counts the parker and the unlocker wakes one (or a WOKEN waiter
 * is on its way, and it re-parks only after clearing WOKEN by an RMW and
 * re-checking in turn).  A futex wait on a changed word returns at once,
 * so a wake-up between the re-check and the sleep is not lost either.
 * The Promela model test/model/spinpark.pml checks the protocol.
 *
 * Nothing after the release: the unlock sets WOKEN before it, while it
 * still holds the lock; after the release it only reads the park
 * sequence, calls FUTEX_WAKE on the address and touches side-table and
 * per-thread state (the wake stamp, the time-slice extension), so a lock may be freed by
 * the next thread as soon as that thread has unlocked it.  Until
 * 2026-12 the unlock stored 0 and then read the word (and perhaps set
 * WOKEN) to detect parkers, paired with a membarrier by the first
 * parker: a program that destroyed and unmapped a lock right after its
 * last unlock crashed in 4 of 4 runs, and a reused word was found
 * corrupted by WOKEN in 9 209 of 10 806 reuses (a new user's test).
 *
 * EXTENDED: set by a holder that waited and asked the kernel for the
 * rseq time-slice extension (sp_hold_begin), so that its unlock goes to
 * the slow path, withdraws the request and clears the bit with the
 * release.  Never set where the kernel does not offer the extension.
 *
 * Until 2026-12-03 a contended lock was also metered on every unlock
 * (ARMED) and could run in "slice mode" (SLICED: one thread keeps the
 * lock for 1 ms while the others sleep, chosen per lock from measured
 * throughput, after u-SCL and GCR).  Measured that day on this 2-vCPU
 * guest the controller kept shared mode in nearly every bench cell, the
 * meter cost 4-6 ns per unlock, and without both the bench was at
 * 0.94-1.10 of before (median cell 1.03) and `pvspin sim` 1.6-4.4 %
 * faster (docs/spinpark.md, "Slice mode, removed"), so both went.

 * Starvation (after Go's starvation mode and the kernel mutex's HANDOFF):
 * a parked waiter that has waited more than SP_STARVE_NS and then spins
 * sets STARVING (one owner at a time, and one claim per lock per
 * SP_STARVE_GAP_US: with many more threads than CPUs every waiter
 * starves, by the scheduler's doing too).  The next unlock then does not
 * release the lock to bargers but hands it off, locked byte 1 -> 2, and
 * only that spinning owner may take a handed-off lock (2 -> 1).  The
 * owner spins SP_STARVE_SPIN_LOOPS at most, and clears STARVING when it
 * stops spinning, so a lock is never handed to a sleeping thread.
 *
 * Oldest first (2026-12-06): the claims go to the oldest starving waiter.
 * Each starving waiter's decision notes it in the lock's side-table entry
 * (sp_stamp_oldest_note) if it is older than the waiter recorded there;
 * a younger one may not claim while that record is fresh (written within
 * SP_OLDEST_STALE_US, 4 ms), and marks it contested; the recorded waiter,
 * while contested, sleeps 1 ms at a time instead of its doubling timeout,
 * so that it comes back for each claim, and clears the record when it
 * takes the lock.  Before, any starving waiter that woke when the
 * millisecond allowed claimed: with 1 024 threads every one of them
 * starves, and the longest waits (0.7-1 s, `pvspin torture`) were of
 * waiters refused a claim 20-35 times, each time because another had
 * just claimed.  Same runs, 3 s, new against old: 1 024 threads longest
 * wait 498-535 against 872-1 232 ms; 256 threads 87-125 against 155-288
 * ms; acquisitions a second the same within the runs' spread.  The
 * Promela model lets any starving waiter skip its claim, which is all
 * the order does to the protocol (a sleep's length is the model's
 * choice too).
 *
 * Bounds, for threads of any scheduling class: no loop here spins more
 * than SP_STARVE_SPIN_LOOPS (2048) PAUSE loops before it sleeps (so does
 * 16 << SP_BUDGET_MAX).  Every
 * sleep has a timeout (1 ms, doubling per timed-out sleep up to 16 ms, or
 * up to 256 us per waiter counted as parked where that is more:
 * SP_PARK_TIMEOUT_PER_PARKED_NS), so a starving waiter notices.  A
 * waiter past the `parked` count (2047) is never woken and polls, 1 ms
 * doubling up to 64 ms (SP_UNCOUNTED_POLL_MAX_NS).
 */
#include "pvspin/spinpark.h"
#include "spinpark_slice.h"
#include "spinpark_stamp.h"
#include "spinpark_word.h"
#include "wait_note.h"

/* PAUSE loops of the budget at e = 0. */
#define SP_SPIN_MIN_LOOPS 16u
/* The unregistered spin (sp_spin_unregistered): at most this many PAUSE
 * loops, reading the word after each. */
#define SP_UNREG_LOOPS 512u
/* A starving owner's spin, PAUSE loops. */
#define SP_STARVE_SPIN_LOOPS 2048u
/* Without the lock's wake stamp (none, or no wake-up since we
 * slept): a park that ended in the lock within this long since the first
 * sleep means the lock came free soon after we gave up spinning: about a
 * sleep and wake-up round trip plus the longest budget. */
#define SP_SHORT_PARK_NS 30000u
/* Waiting longer than this makes a waiter starving (Go: 1 ms). */
#define SP_STARVE_NS 1000000u
/* At most one STARVING claim per lock in this long, us (the claim's time
 * in the stamps' side table, spinpark_stamp.h).  With many more threads
 * than CPUs every waiter waits more than SP_STARVE_NS, for the scheduler
 * as much as for the lock: claims then followed one another, each a spin
 * of up to SP_STARVE_SPIN_LOOPS that more than half the time got no
 * hand-off (the holder was off-CPU), while STARVING kept every other
 * waiter from spinning, so that those parked.  `pvspin bench`, 64
 * threads, 1 s cells: 2 600-4 200 claims and 116-932 hand-offs a second
 * at 3.4-4.4 M ops/s; limited: 450-710 claims, 146-311 hand-offs, 7.1-7.8
 * M, max/min 2-5 (15, 3, 5 before).  `pvspin torture`, 3 s: 64 threads
 * 325-349 k acquisitions/s against 182-252 k; 256 threads 243-288 k
 * against 145-147 k, longest wait 363-405 ms against 604-715 ms; 1 024
 * threads 180-237 k against 124-137 k, longest 1.7-2.4 s against 2.4-2.5
 * s.  At 2-8 threads a claim every millisecond is more than the waits
 * ask for: 2, 4 (`--hog 1`) and 8 threads 1.00, 1.00 and 1.00 of the code
 * without the limit (medians of 8-10 alternating 300 ms pairs), max/min
 * the same (2026-12-06). */
#define SP_STARVE_GAP_US 1000u
/* Sleep timeouts: the first, and the cap after doubling. */
#define SP_PARK_TIMEOUT_MIN_NS 1000000u
#define SP_PARK_TIMEOUT_MAX_NS 16000000u
/* ... a cap that grows past SP_PARK_TIMEOUT_MAX_NS with the waiters
 * counted as parked, by this much each, so that the lock's counted
 * sleepers together time out about 1 / 256 us = 4 000 times a second
 * at most, however many they are.  Each timeout costs a wake-up, a look
 * at the word and a sleep again, with a membarrier where releases are
 * plain stores (about 9 us here, and 5 us on the other CPU): with a
 * fixed 16 ms, 1 024 threads on one lock (`pvspin torture`, 3 s) timed
 * out some 60 000 times a second and made 6-9 k acquisitions a second;
 * with this 150-180 k (glibc's pthread_mutex 320-370 k).  It applies
 * from 63 parked waiters on (16 ms / 256 us): never in `pvspin bench`'s
 * default cells (at most 7 parked at 8 threads). */
#define SP_PARK_TIMEOUT_PER_PARKED_NS 256000u
/* A crowd of parked waiters: an unlock that reads this many or more
 * counted releases by an RMW, not the plain store, and a waiter whose
 * last RMW on the word replaced a word that counted this many sleeps
 * without the park sequence's add and the membarrier (file comment,
 * "Lost wake-ups", the crowd).  1 (2026-12-07; 8 before): the plain
 * store is kept for a lock nobody sleeps on, where it pays (a release
 * that does not wait for the line a spinner reads), and the first
 * sleeper still fences; the others sleep unfenced.  With 8, `pvspin
 * bench` at 4 and 8 threads on this 2-vCPU guest (at most 7 parked)
 * fenced every sleep, each a membarrier of about 9 us for the sleeper
 * and an IPI of about 5 us into the holder on the other CPU.  Against
 * 8, in one process (bench/ab_build.sh, 20-30 interleaved 300 ms
 * repeats a cell, geometric mean of the paired ratios): 8 threads cs
 * 2000 ns 1.02-1.15 in seven runs (0.99-1.01 for the unchanged copy
 * against itself), cs 50 1.02-1.10, cs 10 1.11; 4 threads cs 50
 * 1.05-1.11, cs 2000 1.05, cs 10 1.01; 2 threads 1.03 (nobody parks
 * there: noise); `--hog 1` 2 threads 0.99, 4 1.03, 8 1.08, 8 at cs 2000
 * 1.06.  The Promela model checks the rule with CROWD 1.  With 1, a
 * release by the store never has a sleeper to wake by its own decision
 * (WOKEN needs one counted): the unlock's `|| wake` there stays for
 * other values. */
#define SP_CROWD 1u
/* A waiter that the full `parked` count leaves uncounted is never woken:
 * it polls, from SP_PARK_TIMEOUT_MIN_NS doubling per poll up to this.  A fixed 1 ms
 * poll let 1 000 such waiters (3 000 threads on one lock, a new user's
 * test) fill both CPUs with wake-ups and starve the holder: 20-25 s
 * against 0.5 s for 2 200 threads. */
#define SP_UNCOUNTED_POLL_MAX_NS 64000000u

/* ---- fields (sp_locked, sp_spinners, sp_budget, sp_parked, sp_word_ok:
 * spinpark_word.h) ------------------------------------------------------ */

static inline uint32_t sp_with_locked(uint32_t v, uint32_t locked)
{ return (v & ~_SP_LOCKED_MASK) | locked; }
static inline uint32_t sp_with_budget(uint32_t v, uint32_t e)
{ return (v & ~_SP_BUDGET_MASK) | (e << _SP_BUDGET_OFFSET); }

/* Does v count a crowd of parked waiters (SP_CROWD or more)?  Then its
 * unlock releases by an RMW, and a waiter whose RMW replaced v sleeps
 * without the fence (file comment, "the crowd"). */
static inline bool sp_crowd(uint32_t v) { return sp_parked(v) >= SP_CROWD; }

/* Do sleepers fence in this process: are releases plain stores (the park
 * sequence's bit 0 clear, file comment "Lost wake-ups")?  Where releases
 * are RMWs no sleep fences, and nothing is done to skip a fence. */
static inline bool sp_sleeps_fence(void)
{
	return !(pvspin_plat_load32(pvspin_plat_park_seq(), PVSPIN_RELAXED) &
		 PVSPIN_PARK_SEQ_RMW_RELEASE);
}

/* Wait predicate: the locked byte is not plain 1 (free, or handed off). */
static inline bool sp_not_plain_locked(uint32_t v, uint32_t arg)
{ (void)arg; return sp_locked(v) != _SP_LOCKED; }

/* Is v corrupted (!sp_word_ok)?  Then report it (once: every caller then
 * returns from the slow path without the lock, leaving the word as it
 * read it, and with any count it holds in it). */
static bool sp_word_corrupt(pvspin_lock_t *lock, uint32_t v)
{
	if (sp_word_ok(v))
		return false;
	pvspin_report_misuse("spinpark: corrupted lock word", lock, v);
	return true;
}

/* ---- one waiter's state across its rounds ---------------------------- */

struct sp_waiter {
	bool counted;          /* counted in `parked` */
	bool starving_owner;   /* we set STARVING and spin for the hand-off */
	bool spun_out;         /* the last spin gave up with its budget spent
				* (not for a full spinner count or
				* another's hand-off) */
	bool spin_longer;      /* the last sleep showed that a longer spin
				* would have paid (sp_spin_longer) */
	bool held_out;         /* a spin of this call ran out of budget on a
				* lock that stayed held all along (it never
				* saw it free): holds outlast the budget */
	bool took;             /* we hold the lock (sp_take succeeded) */
	bool crowd;            /* our last RMW on the word in this round (the
				* count, a spinner's give-up, clearing WOKEN,
				* or the write-back of an unchanged word)
				* replaced a word with SP_CROWD or more parked:
				* our sleep needs no fence (sp_park); set by
				* every round's sp_spin before sp_park */
	bool sliced;           /* we slept through slices first (t0: since) */
	bool oldest;           /* our last decision on a STARVING claim made
				* us the lock's oldest starving waiter
				* (sp_stamp_oldest_note) */
	bool oldest_contested; /* ... and younger ones wait for the claim
				* too: our sleeps last 1 ms, so that we come
				* back for the next claim */
	bool successor;        /* a sliced lock's turn was passed to us: we wait
				* as a starving waiter (sp_mode_turn_pass) */
	uint32_t handoff_word; /* the handed-off word our last sleep began on
				* and timed out on (0: none; a handed-off
				* word is never 0) */
	uint64_t t0;           /* ns of the first park (0: none yet) */
	uint64_t timeout_ns;   /* of the next sleep */
};

/* The time of w's first sleep on the stamps' clock (sp_now_us(), us):
 * what the record of a lock's oldest starving waiter names. */
static inline uint32_t sp_t0_us(const struct sp_waiter *w)
{
	return (uint32_t)(w->t0 / 1000u);
}

/* Spinners allowed besides the holder: spin_cpus - 1 (0 on one CPU), at
 * most SP_SPINNERS_CAP. */
static inline uint32_t sp_spinner_cap(void)
{
	uint32_t n = pvspin_plat_spin_cpus();
	n = n > 1 ? n - 1 : 0;
	return n < SP_SPINNERS_CAP ? n : SP_SPINNERS_CAP;
}

/*
 * The budget exponent to store with an acquisition, from this wait's
 * evidence (file comment): a waiter whose last sleep shows it gave up
 * too early (sp_spin_longer), or that got the lock within
 * SP_SHORT_PARK_NS of its first sleep, raises it; one that slept longer
 * was right to park and lowers it, but only if one of its spins ran out
 * on a lock held all along (w->held_out: the holds outlast the budget);
 * a spin that got the lock after more than half its budget had little to
 * spare (+1).  Failing spins and quick successes leave it: failing to
 * spin long enough costs a sleep and a wake-up, far more than spinning a
 * little too long.  So does the long wait of a waiter that never spun
 * (the spinners were full) or that saw the lock come free and lost it to
 * others: it waited for its turn among many waiters, which says nothing
 * of the holds.  Counting those waits as evidence drove e down to 0 in
 * `pvspin sim`'s spawn-dedicated (120 vCPUs, one hot lock of 0.4 us
 * holds), where nearly half the spins then ran out (18 743 of 40 583)
 * and spinpark did 0.800 of the best kernel kind on the AMD profile,
 * 0.884 with this rule (seeds 1-3; Intel 0.971 -> 0.976).
 */
static uint32_t sp_next_budget(const struct sp_waiter *w, uint32_t v, bool long_spin)
{
	uint32_t e = sp_budget(v);
	if (w->counted && w->t0) {
		bool early = w->spin_longer || pvspin_plat_now_ns() - w->t0 < SP_SHORT_PARK_NS;
		if (early)
			return e < SP_BUDGET_MAX ? e + 1 : e;
		return w->held_out && e ? e - 1 : e;
	}
	return long_spin && e < SP_BUDGET_MAX ? e + 1 : e;
}

/*
 * Take a free lock seen as v: (p, s, 0) -> (p - counted, s - spinning, 1),
 * or a lock handed off to us as starving owner: (p, s, 2) -> (p - 1,
 * s - 1, 1) clearing STARVING; a parked waiter clears WOKEN (it runs,
 * so the next unlock may wake another).  `spinning`: we are counted in spinners;
 * `long_spin`: our spin used more than half its budget.  Acquire.  False
 * (v updated) if the word changed.
 */
static bool sp_take(pvspin_lock_t *lock, struct sp_waiter *w, uint32_t *v, bool spinning,
		    bool long_spin)
{
	uint32_t nv = *v - (w->counted ? _SP_PARKED_ONE : 0) - (spinning ? _SP_SPINNER_ONE : 0);
	nv = sp_with_budget(sp_with_locked(nv, _SP_LOCKED), sp_next_budget(w, *v, long_spin));
	if (w->starving_owner)
		nv &= ~_SP_STARVING;
	if (w->counted)
		nv &= ~_SP_WOKEN;   /* a parked waiter runs: the next may be woken */
	if (!pvspin_plat_cmpxchg32(&lock->val, v, nv, PVSPIN_ACQUIRE))
		return false;
	if (sp_locked(*v) == _SP_HANDOFF)
		pvspin_plat_event(PVSPIN_EV_HANDOFF);
	w->counted = w->starving_owner = false;
	w->took = true;
	if (w->oldest) {   /* the record named us: let the next oldest stand */
		sp_stamp_oldest_clear(lock, sp_t0_us(w));
		w->oldest = false;
	}
	return true;
}

static inline bool sp_ours(const struct sp_waiter *w, uint32_t v)
{
	return sp_locked(v) == 0 || (sp_locked(v) == _SP_HANDOFF && w->starving_owner);
}

/*
 * Without spinning: take the lock if free, else make sure we are counted
 * in `parked` (p -> p + 1) with WOKEN cleared if we were parked already
 * (we run, so the next unlock may wake another).  True: lock taken (or a
 * corrupted word reported).  A full `parked` count leaves us uncounted:
 * we then poll.
 */
static bool sp_take_or_count(pvspin_lock_t *lock, struct sp_waiter *w, uint32_t v)
{
	for (;;) {
		if (sp_word_corrupt(lock, v))
			return true;   /* reported; the caller returns without the lock */
		if (sp_locked(v) == 0) {
			if (sp_take(lock, w, &v, false, false))
				return true;
			continue;
		}
		uint32_t nv = v;
		if (!w->counted && sp_parked(v) < SP_PARKED_MAX)
			nv += _SP_PARKED_ONE;         /* (p, s, l) -> (p + 1, s, l) */
		else if (w->counted)
			nv &= ~_SP_WOKEN;
		/* Nothing to change (counted, WOKEN clear; or uncounted with
		 * the count full) and no crowd to meet: no RMW, and our sleep
		 * fences.  Among a crowd a counted waiter writes the word back
		 * unchanged (nv == v), so that its sleep meets the crowd and
		 * skips the fence (file comment, "the crowd": any RMW of ours
		 * that replaced such a word does); a line transfer against a
		 * membarrier's 9 us here and 5 us on every other CPU.  Not
		 * where releases are RMWs: no sleep fences there (in `pvspin
		 * sim`'s kcbench-no-ple, 2 VMs of 32 vCPUs, the write-back
		 * among a crowd of 1 cost 0.6 %). */
		if (nv == v && !(w->counted && sp_crowd(v) && sp_sleeps_fence())) {
			w->crowd = false;
			return false;
		}
		if (pvspin_plat_cmpxchg32(&lock->val, &v, nv, PVSPIN_RELAXED)) {
			w->counted = true;
			w->crowd = sp_crowd(v);   /* v: the word replaced */
			return false;
		}
	}
}

/*
 * Phase 1, the registered spin (file comment).  True: lock taken, or a
 * corrupted word reported (sp_word_corrupt: checked at every word read
 * before a step that acts on it, so a word corrupted on entry is left as
 * it was).  False: we are counted in `parked` (unless the count is
 * full), not spinning.
 */
static bool sp_spin(pvspin_lock_t *lock, struct sp_waiter *w)
{
	/* by field: on the first round the fast path's failed cmpxchg may
	 * still be buffered (_pvspin_spinpark_load_fields) */
	uint32_t v = _pvspin_spinpark_load_fields(lock), cap = sp_spinner_cap();
	/* a sliced lock's successor (sp_slice_wait) waits for the hand-off
	 * of the turn passed to it.  A waiter that slept through slices
	 * counts that wait too: it falls back here after
	 * SP_SLICE_WAIT_MAX_NS, so it is starving at once and gets the next
	 * hand-off.  With another process busy on one CPU
	 * (`pvspin bench --hog 1`, 8 threads, vCPUs apart) max/min went from
	 * a median of 2.00 (63 of 126 rounds above 2) to 1.83 (41 of 118),
	 * throughput 0.994; shared mode there: about 1.5 */
	bool starving = w->successor || ((w->counted || w->sliced) && w->t0 &&
					 pvspin_plat_now_ns() - w->t0 > SP_STARVE_NS);
	uint32_t t0_us = sp_t0_us(w);
	bool noted = false;

	/* Join the spinners: (p, s, 1) -> (p, s + 1, 1) [| STARVING], or take
	 * a free lock on the way. */
	for (;;) {
		if (sp_word_corrupt(lock, v))
			return true;   /* reported; the caller returns without the lock */
		if (sp_locked(v) == 0) {
			if (sp_take(lock, w, &v, false, false))
				return true;
			continue;
		}
		/* one claim per SP_STARVE_GAP_US per lock (a turn's
		 * successor excepted: the pass chose it) */
		bool owner = starving && !(v & _SP_STARVING) &&
			     (w->successor ||
			      (!sp_stamp_starve_claimed_within(lock, SP_STARVE_GAP_US) &&
			       sp_stamp_oldest_may_claim(lock, t0_us)));
		/* stand for the next claims if we are the oldest (refreshed
		 * at every round's decision, the claim's included) */
		if (starving && !noted && !w->successor) {
			noted = true;
			w->oldest_contested = false;
			w->oldest = sp_stamp_oldest_note(lock, t0_us, &w->oldest_contested);
		}
		/* Another's hand-off pending, or enough spinners: do not
		 * spin. */
		if (((v & _SP_STARVING) && !owner) || sp_spinners(v) >= cap + owner) {
			w->spun_out = false;   /* no spin: no evidence on the budget */
			return sp_take_or_count(lock, w, v);
		}
		/* A claim under the gap is reserved in the side table (one
		 * compare-and-swap of the claim's stamp) before the word
		 * says it: the check above and our cmpxchg below are two
		 * steps, and a waiter preempted between them, back when the
		 * word had returned to the value it read (a claim made and
		 * dropped meanwhile), claimed a second time within the gap
		 * (helper-55's reading of test_spinpark_starve_gap).  Given
		 * back if the cmpxchg fails. */
		struct sp_stamp_reservation res;
		bool reserved = owner && !w->successor;
		if (reserved && !sp_stamp_starve_reserve(lock, SP_STARVE_GAP_US, &res))
			continue;   /* another claimed just now: decide again */
		uint32_t nv = v + _SP_SPINNER_ONE;
		if (w->counted)
			nv &= ~_SP_WOKEN;
		if (owner)
			nv |= _SP_STARVING;
		if (pvspin_plat_cmpxchg32(&lock->val, &v, nv, PVSPIN_RELAXED)) {
			if (owner) {
				if (!reserved)
					sp_stamp_starve_claim(lock);   /* a successor's */
				pvspin_plat_event(PVSPIN_EV_STARVING);
			}
			w->starving_owner = owner;
			v = nv;
			break;
		}
		if (reserved)
			sp_stamp_starve_unreserve(lock, &res);
	}

	uint32_t spent, budget = w->starving_owner ? SP_STARVE_SPIN_LOOPS
						      : SP_SPIN_MIN_LOOPS << sp_budget(v);
	uint32_t left = budget;
	bool saw_free = false;   /* the lock came free during this spin */
	for (;;) {
		if (sp_word_corrupt(lock, v))
			return true;   /* reported (our spinner count stays in it) */
		/* STARVING cleared while we own it: a parked waiter took our
		 * hand-off while we could not run (sp_revoke_handoff); spin on
		 * as any waiter */
		if (w->starving_owner && !(v & _SP_STARVING))
			w->starving_owner = false;
		if (sp_ours(w, v)) {
			saw_free = true;
			/* a spin that paid: the budget grows */
			if (sp_take(lock, w, &v, true, left < budget / 2)) {
				pvspin_plat_event(PVSPIN_EV_SPIN_ACQUIRE);
				return true;
			}
			continue;
		}
		if (sp_locked(v) == _SP_LOCKED && left) {
			/* acquire on success; loops bounded by `left` */
			pvspin_plat_wait32(&lock->val, sp_not_plain_locked, 0, left, &v, &spent);
			left -= spent < left ? spent : left;
			continue;
		}
		/* Give up: budget spent, or the lock handed to another.
		 * (p, s, l) -> (p + 1 unless counted, s - 1, l); the owner
		 * drops STARVING (it will not wait for a hand-off asleep). */
		uint32_t nv = v - _SP_SPINNER_ONE;
		bool count = !w->counted && sp_parked(v) < SP_PARKED_MAX;
		if (count)
			nv += _SP_PARKED_ONE;
		if (w->starving_owner)
			nv &= ~_SP_STARVING;
		if (pvspin_plat_cmpxchg32(&lock->val, &v, nv, PVSPIN_RELAXED)) {
			/* a plain budget's spin that ran out on a held lock */
			w->spun_out = !left && !w->starving_owner && sp_locked(v) == _SP_LOCKED;
			w->held_out = w->held_out || (w->spun_out && !saw_free);
			w->counted = w->counted || count;
			w->crowd = sp_crowd(v);   /* v: the word replaced */
			w->starving_owner = false;
			pvspin_plat_event(PVSPIN_EV_SPIN_FAIL);
			return false;
		}
		/* the word changed (maybe freed, maybe handed to us): re-check */
	}
}

/*
 * Did the sleep after a spin that ran out of budget show that a longer
 * spin would have cost less (competitive spinning, Karlin et al., SOSP
 * 1991: spin for as long as a park and wake-up cost, then park)?  The
 * lock's last wake-up was stamped at `wake` (sp_stamp_last_wake, by the
 * unlock that woke a sleeper; us): if it came after we slept, the lock
 * came free wake - slept after we gave up, and the wake-up took now -
 * wake.  A lock free sooner than a wake-up takes: yes.  Anything else
 * (a later wake-up, which with other spinners may come long after the
 * lock was first free again; a timeout; no stamp since we slept) is no
 * evidence here, and sp_next_budget() falls back to SP_SHORT_PARK_NS.
 * On this 2-vCPU guest a wake-up takes 24-42 us, so that fixed 30 us
 * misjudged about half the parks behind a 2 us hold and kept the budget
 * too short to cover it.
 */
static bool sp_spin_longer(pvspin_lock_t *lock, uint32_t slept_us, bool timed_out)
{
	uint32_t wake, now = sp_now_us();
	/* microseconds that wrap: compare differences, not values */
	return !timed_out && sp_stamp_last_wake(lock, &wake) && (int32_t)(wake - slept_us) >= 0 &&
	       (int32_t)(now - wake) >= 0 && wake - slept_us < now - wake;
}

/*
 * A hand-off that its owner has not taken for a whole sleep of ours: take
 * it, (p, s, 2) -> (p - counted, s, 1) clearing STARVING, as the owner
 * would.  The owner spins for a hand-off (SP_STARVE_SPIN_LOOPS, about 50
 * us) and takes it within that, so one still there, the same word, after
 * a 1 ms sleep means an owner that cannot run: preempted, suspended in a
 * signal handler that waits for this very lock (a new user's test:
 * deadlocked in 4 of 13 runs), or gone (a fork child's copy of a word
 * whose owner was a thread of the parent: 9 children of 1 900 hung).  The
 * owner, if it runs again, finds STARVING cleared and spins as any
 * waiter (sp_spin); the cmpxchg decides between it and us.  The owner's
 * spinner count stays until it gives up (for ever in a fork child: its
 * waiters then spin less; docs/spinpark.md).  True: taken.
 */
static bool sp_revoke_handoff(pvspin_lock_t *lock, struct sp_waiter *w, uint32_t *v)
{
	/* One cmpxchg: if it fails, *v is the word now, and the caller
	 * decides again (it revokes only the very word its sleep began on;
	 * a retry here on any 2 took hand-offs made microseconds ago to a
	 * new starving owner: the Promela model's finding 1) */
	w->starving_owner = true;   /* sp_take: as the owner, clearing STARVING */
	bool took = sp_take(lock, w, v, false, false);
	w->starving_owner = false;
	if (took)
		pvspin_plat_event(PVSPIN_EV_HANDOFF_REVOKE);
	return took;
}

/* The cap of a counted sleeper's doubling timeout on the word v: 16 ms,
 * or SP_PARK_TIMEOUT_PER_PARKED_NS per waiter counted in v if more (at
 * most 2047 x 256 us = 524 ms). */
static inline uint64_t sp_counted_timeout_cap(uint32_t v)
{
	uint64_t scaled = (uint64_t)sp_parked(v) * SP_PARK_TIMEOUT_PER_PARKED_NS;
	return scaled > SP_PARK_TIMEOUT_MAX_NS ? scaled : SP_PARK_TIMEOUT_MAX_NS;
}

/*
 * Phase 2: sleep once.  We are counted (our last RMW on the word counted
 * us or cleared WOKEN), and the re-check below reads the word after that
 * RMW (file comment, "Lost wake-ups").  True: lock taken during the
 * re-check (or a corrupted word reported).
 */
static bool sp_park(pvspin_lock_t *lock, struct sp_waiter *w)
{
	uint32_t v = pvspin_plat_load32(&lock->val, PVSPIN_ACQUIRE);
	bool fenced = false, fence_ok = true;

	for (;;) {
		if (sp_word_corrupt(lock, v))
			return true; /* reported; the caller returns without the lock */
		if (sp_locked(v) == 0) {
			if (sp_take(lock, w, &v, false, false))
				return true;
			continue;
		}
		/* the same hand-off as before our last sleep, which timed
		 * out: revoke it; if the cmpxchg fails, decide again on the
		 * word it read (it may be free: sleeping on it waited for a
		 * timeout, the model's finding 2) */
		if (v == w->handoff_word) {
			if (sp_revoke_handoff(lock, w, &v))
				return true;
			continue;
		}
		/* WOKEN set: an unlock may have skipped its wake-up because
		 * of it, even one that woke nobody (the sleeper it meant was
		 * not asleep yet).  Sleeping on it could be for ever: go
		 * round again, clear it (sp_spin, sp_take_or_count), and
		 * re-check in turn.  Found by the Promela model
		 * (test/model/spinpark.pml). */
		if (v & _SP_WOKEN)
			return false;
		if (fenced || !w->counted || w->crowd)
			break;
		/* About to sleep: the sleeper's side of the asymmetric Dekker
		 * with the plain-store release (file comment, "Lost
		 * wake-ups"): count this sleep in the park sequence (release:
		 * after our count in the word), membarrier, then decide again
		 * on a word read after it, and sleep on that word at once.
		 * Fenced before the re-check, not between it and the futex
		 * wait: the 5 us of a membarrier there let the word change
		 * under a busy lock, and the futex wait returned at once
		 * (pvspin sim, spawn-dedicated on AMD: 177 522 parks for
		 * 3 765 sleeps, 0.28x the best kernel kind).  An uncounted
		 * waiter is never woken (it polls): it skips both.  Where
		 * releases are RMWs (the sequence's bit 0: no fence, or a big
		 * machine) neither is needed, and the sequence's line is
		 * left alone, so that every unlock finds it in its cache. */
		fenced = true;
		if (!sp_sleeps_fence())
			break;   /* RMW releases: the coherence of the word suffices */
		pvspin_plat_fetch_add32(pvspin_plat_park_seq(), PVSPIN_PARK_SEQ_ONE, PVSPIN_RELEASE);
		fence_ok = pvspin_plat_fence_heavy();
		v = pvspin_plat_load32(&lock->val, PVSPIN_ACQUIRE);
	}
	pvspin_plat_event(PVSPIN_EV_PARK);
	/* The sleep's timeout doubles per timed-out sleep, up to `cap`: an
	 * uncounted poll's to 64 ms, a counted sleep's to 16 ms or 256 us
	 * per counted sleeper if more (sp_counted_timeout_cap; one that
	 * backed off while uncounted is cut back to that once counted).  A
	 * sleep on a handed-off word lasts the shortest timeout, not
	 * doubled: its owner takes it within microseconds, or it is stale
	 * (sp_revoke_handoff).  So does one whose membarrier failed (it
	 * should not, once registered): an unlock may miss it. */
	uint64_t cap = w->counted ? sp_counted_timeout_cap(v) : SP_UNCOUNTED_POLL_MAX_NS;
	bool handoff = sp_locked(v) == _SP_HANDOFF;
	bool poll = w->oldest && w->oldest_contested;
	uint64_t timeout = handoff || !fence_ok || poll ? SP_PARK_TIMEOUT_MIN_NS
			   : w->timeout_ns < cap ? w->timeout_ns : cap;
	uint32_t slept_us = sp_now_us();
	int r = pvspin_plat_park32(&lock->val, v, timeout);
	w->handoff_word = handoff && r == PVSPIN_PARK_TIMEDOUT ? v : 0;
	if (r == PVSPIN_PARK_TIMEDOUT && !handoff && !poll && w->timeout_ns < cap)
		w->timeout_ns *= 2;
	/* only a spin cut short by its budget says anything of the budget */
	w->spin_longer = w->spun_out && sp_spin_longer(lock, slept_us, r == PVSPIN_PARK_TIMEDOUT);
	return false;
}

/*
 * We hold the lock after waiting for it: ask the kernel not to preempt us
 * for a few us while we hold it (the rseq time-slice extension of Linux
 * 7.0; nothing where not offered).  A holder preempted inside its
 * critical section keeps every waiter waiting for a whole time slice;
 * that is the one case the kernel's pvqspinlock premise (a holder never
 * preempted by its own scheduler) does not cover for threads.  If a
 * request was made, set EXTENDED (p, s, 1) -> (p, s, 1) | EXTENDED, so
 * that our unlock goes to its slow path and withdraws it; relaxed: only
 * the holder sets or clears the bit, and its release orders it.  Only
 * after a wait: a lock taken by the inline fast path was not contended
 * at that moment, and the fast path stays one cmpxchg.  Not after a
 * corrupted word (reported, and nothing taken: w->took is false).
 */
static void sp_hold_begin(pvspin_lock_t *lock, const struct sp_waiter *w)
{
	if (w->took && pvspin_plat_slice_ext_begin(lock))
		pvspin_plat_fetch_or32(&lock->val, _SP_EXTENDED, PVSPIN_RELAXED);
}

/*
 * Phase 0, before the waiter writes anything to the word: wait on a held
 * lock for at most SP_UNREG_LOOPS PAUSE loops, unregistered, reading the
 * word after every PAUSE, and take it by the fast path's cmpxchg of the
 * locked byte 0 -> 1 if it is free at a read: (p, s, 0) -> (p, s, 1),
 * acquire, as trylock would.
 * Only where one spinner may spin (2 CPUs: with more, `pvspin sim` lost
 * 3-8 % on AMD, docs/spinpark.md), while none does, the word is sound and
 * no waiter is starving (its hand-off goes first).  The word is read only
 * after the CPU check, so a machine with more CPUs pays nothing for it
 * (the simulator charges that read: 3 % on AMD).  True: taken.
 *
 * Why no write: a waiter's first write to a held lock (joining the
 * spinners) leaves the line dirty in its cache, so the holder's unlock
 * misses on it, and a lock handed back and forth between two CPUs that
 * sit apart then alternates between them, moving the critical section's
 * data too, where the releasing thread would otherwise take it again at
 * once.  Measured on a 2-vCPU AMD guest with its vCPUs apart (ping-pong
 * round trip 270-540 ns), `pvspin bench` at 2 threads, cs 50 ns, 8 rounds
 * of one 300 ms run each, spinpark over tas in the same round: median 0.74
 * (0.70-0.96) without this phase, 1.04 (0.93-1.20) with 16 loops polled
 * at every PAUSE.
 *
 * Why a read at every PAUSE, and 512 loops.  From 2026-12-07 00:00 to
 * 04:00 the reads came after gaps that doubled from 1 to 16 loops
 * (binary exponential backoff, after glibc 2.36's adaptive mutex), which
 * on a 2-vCPU Intel Ice Lake KVM guest (PAUSE 13 ns, line round trip
 * 100-120 ns) measured 1.04-1.10 of the code before, 16 loops polled at
 * every PAUSE; which of the two changes, the gaps or the bound of 512,
 * gained there was not measured.  On a 2-vCPU AMD EPYC KVM guest (PAUSE
 * 25 ns, round trip 63-88 ns) gaps of up to 16 loops (400 ns) let the
 * waiter miss the window in which a thread that released the lock does
 * its non-critical work, and that thread took it back each time: at cs
 * 2000 ns the max/min of per-thread acquisitions reached 3.76, 3.50 and
 * 5.02 at 2, 4 and 8 threads (16 alternated rounds each; medians 1.41,
 * 1.22, 1.89), against 1.20, 1.24 and 1.65 (1.03, 1.15, 1.40) with a read
 * at every PAUSE, whose throughput was 0.98-1.00 of the gaps' there, and
 * 1.08 at 2 threads cs 50 ns (27 of 40 rounds above 1), 1.02 and 1.03 at
 * 4 and 8 threads (20 of 24 each), 0.99-1.02 at cs 10 ns (docs/spinpark.md,
 * "The gaps on an AMD EPYC KVM guest").  Gaps of up to 4 loops did not
 * keep the max/min under 2 either (2.70, 4.55).  512 loops is 7-29 us
 * (PAUSE 13-56 ns), less than a futex sleep and wake-up on these guests
 * (24-42 us): the bound of competitive spinning.
 */
static bool sp_spin_unregistered(pvspin_lock_t *lock)
{
	if (sp_spinner_cap() != 1)
		return false;
	/* by field: the fast path's failed cmpxchg may still be buffered */
	uint32_t v = _pvspin_spinpark_load_fields(lock), left = SP_UNREG_LOOPS;
	while (sp_word_ok(v) && !(v & (_SP_STARVING | _SP_SPINNERS_MASK | _SP_SLICED))) {
		if (sp_locked(v) == 0) {
			if (_pvspin_spinpark_take_free(lock)) {
				pvspin_plat_event(PVSPIN_EV_SPIN_ACQUIRE);
				return true;
			}
			/* another took it: one loop of the bound (by field:
			 * our failed cmpxchg may still be buffered) */
			v = _pvspin_spinpark_load_fields(lock);
			if (!left--)
				break;
			continue;
		}
		if (sp_locked(v) != _SP_LOCKED || !left)
			break;
		/* one PAUSE, then one read (by field, as every read here: the
		 * first may follow a failed cmpxchg of the locked byte, whose
		 * write may still be buffered) */
		pvspin_plat_cpu_relax();
		left--;
		v = _pvspin_spinpark_load_fields(lock);
	}
	return false;
}

/*
 * Slice mode (_SP_SLICED, chosen by the lock's mode controller only while
 * it measures that slices pay: spinpark_slice.h): a waiter that finds the
 * lock held (or handed off) sleeps (sp_mode_slice_sleep) instead of
 * spinning, so that the thread that holds the lock keeps taking it back
 * through the fast path for a turn, a count of acquisitions, whose last
 * unlock passes the turn to the least served sleeper (sp_mode_turn_pass).
 * Woken so, the sleeper is the turn's successor: it waits as a starving
 * waiter (sp_spin), so the holder's next unlock hands it the lock, and
 * the holder, at its next lock(), sleeps here in turn.  The sleep is
 * uncounted (no unlock owes it a wake-up, as a poller past the parked
 * count: "Lost wake-ups" does not apply) and has a timeout, after which
 * the sleeper takes the lock (as trylock) only if no unlock was counted
 * during its sleep (the holder stopped, or does not run), never because
 * the clock says so: turns ended by the clock gave a thread on a CPU
 * that another process shares half the acquisitions of one on a free
 * CPU.  At most SP_SLICE_WAIT_MAX_NS per call, then it waits as in
 * shared mode (where the starvation bound hands it the lock at once: the
 * slices' wait counts, w->sliced).  Also at every sleep the controller
 * may start a probe (sp_mode_waiter_tick).  True: taken.
 */
static bool sp_slice_wait(pvspin_lock_t *lock, struct sp_waiter *w)
{
	uint32_t v = _pvspin_spinpark_load_fields(lock);
	if (!(v & _SP_SLICED))
		return false;
	sp_mode_waiter_tick(lock, true);
	uint64_t t0 = pvspin_plat_now_ns(), now = t0;
	while ((v & _SP_SLICED) && sp_locked(v) != 0 && sp_word_ok(v) &&
	       now - t0 < SP_SLICE_WAIT_MAX_NS) {
		if (!w->sliced) {   /* the wait since t0 counts for starvation */
			w->sliced = true;
			w->t0 = t0;
			w->timeout_ns = SP_PARK_TIMEOUT_MIN_NS;
		}
		int r = sp_mode_slice_sleep(lock);
		if (r == SP_SLEEP_PASSED) {
			/* wait for the hand-off as a starving waiter */
			w->successor = true;
			return false;
		}
		if (r == SP_SLEEP_IDLE && _pvspin_spinpark_try(lock))
			return true;
		sp_mode_waiter_tick(lock, true);
		v = pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
		now = pvspin_plat_now_ns();
	}
	return false;
}

void pvspin_spinpark_lock_slowpath(pvspin_lock_t *lock)
{
	struct sp_waiter w = { .counted = false };
	sp_mode_waiter_tick(lock, false);   /* every SP_WAITER_TICK-th call: a probe due? */
	if (sp_spin_unregistered(lock) || sp_slice_wait(lock, &w)) {
		w.took = true;
		sp_hold_begin(lock, &w);
		return;
	}
	/* Note the lock for a fork child (wait_note.h, fork_repair.c) before
	 * our first write to the word (sp_spin joins the spinners or counts
	 * us parked): the slot is looked up once per call.  Without a slot
	 * nothing is noted, and a fork child keeps our counts (and a
	 * hand-off to us, which its waiters revoke after a 1 ms sleep,
	 * sp_revoke_handoff). */
	int cpu = pvspin_plat_cpu();
	uint32_t note = wait_note_begin(cpu, lock, WAIT_NOTE_SPINPARK);

	/* A corrupted word is reported where it is read (sp_spin,
	 * sp_take_or_count, sp_park), before anything is done to it. */
	for (;;) {
		if (sp_spin(lock, &w))
			break;
		if (!w.t0) {
			w.t0 = pvspin_plat_now_ns();
			w.timeout_ns = SP_PARK_TIMEOUT_MIN_NS;
		}
		if (sp_park(lock, &w))
			break;
		/* Awake (woken, timed out, or the word changed): spin again,
		 * clearing WOKEN on the way (sp_spin / sp_take_or_count). */
	}
	/* Our counts are out of the word (sp_take took them out with the
	 * lock, which a fork child keeps held), or a corrupted word was
	 * reported and is left as it is: the note goes. */
	wait_note_end(cpu, note);
	if (w.successor)
		sp_mode_turn_taken(lock);
	sp_hold_begin(lock, &w);
}

/* ---- unlock ------------------------------------------------------------ */

/*
 * Should an unlock seen as v wake a sleeper, spinners considered?  With
 * no spinner, yes.  Also while fewer than half the allowed spinners
 * spin: a wake-up takes longer than a hold (futex wake and schedule, tens
 * of us), so a sleeper woken only once the last spinner has taken the
 * lock leaves it idle for that long, and a woken one that arrives while
 * others still spin keeps the circulating set filled (after the
 * Malthusian locks' rule, Dice and Kogan 2017: enough threads circulate
 * to saturate the lock, the rest sleep).  With one or two spinners
 * allowed (up to 3 CPUs, this 2-CPU machine's case) that is no spinner
 * at all.  In `pvspin sim` (sim/compare_kinds.sh, seeds 1-5), spinpark
 * over the best kernel kind in spawn-dedicated, 120 vCPUs: 0.960 ->
 * 0.979 (Intel), 0.801 -> 0.829 (AMD); waking at up to cap - 1 spinners
 * gave 0.982 and 0.768 (spinners cost more across AMD's caches).
 */
static inline bool sp_spinners_low(uint32_t v)
{
	uint32_t s = sp_spinners(v);
	return s == 0 || 2 * s < sp_spinner_cap();
}

/*
 * Should the release of the word v wake a parked waiter?  Someone is
 * parked, no woken one is still on its way (WOKEN), and few spinners
 * (sp_spinners_low).  While enough spinners will take the lock, waking a
 * sleeper only adds a thread to the run queues and a system call to this
 * unlock (concurrency restriction); sleepers still wake by their
 * timeouts, and a starving one gets the lock handed off.
 */
static inline bool sp_should_wake(uint32_t v)
{
	return (v & _SP_PARKED_MASK) && !(v & _SP_WOKEN) && sp_spinners_low(v);
}

/* The wake-up, after the release: count it, stamp the lock's side-table
 * entry (not the lock), FUTEX_WAKE one on the address. */
static void sp_wake_one(pvspin_lock_t *lock)
{
	pvspin_plat_event(PVSPIN_EV_UNPARK);
	sp_stamp_wake(lock);
	pvspin_plat_unpark32(&lock->val, 1);
}

bool pvspin_spinpark_trylock_failed(pvspin_lock_t *lock)
{
	uint32_t v = _pvspin_spinpark_load_fields(lock);
	sp_word_corrupt(lock, v);
	return false;
}

void pvspin_spinpark_unlock_released(pvspin_lock_t *lock, uint32_t old)
{
	if (sp_should_wake(old))
		sp_wake_one(lock);
}

void pvspin_spinpark_unlock_raced(pvspin_lock_t *lock)
{
	sp_wake_one(lock);
}

void pvspin_spinpark_unlock_slowpath(pvspin_lock_t *lock, uint32_t v)
{
	/* the unlock of 0.2.0's header read no sequence: read it, then the
	 * word again, in the order the store release needs */
	(void)v;
	uint32_t seq = pvspin_plat_load32(pvspin_plat_park_seq(), PVSPIN_ACQUIRE);
	pvspin_spinpark_unlock_slowpath_seq(lock, pvspin_plat_load32(&lock->val, PVSPIN_RELAXED),
					    seq);
}

void pvspin_spinpark_unlock_slowpath_seq(pvspin_lock_t *lock, uint32_t v, uint32_t seq)
{
	bool wake;

	bool counted = false, pass = false;
	for (;;) {
		/* a word no step writes is corrupted whatever its locked
		 * byte says: bit 31 beside a locked byte of 2 was reported
		 * as a hand-off, beside a 0 as an unlock of a free lock */
		if (sp_word_corrupt(lock, v))
			return;
		if (sp_locked(v) != _SP_LOCKED) {
			pvspin_report_misuse(sp_locked(v) == 0
					     ? "spinpark: unlock of a lock that is not locked"
					     : "spinpark: unlock of a lock handed off to a waiter",
					     lock, v);
			return;
		}
		/* The mode controller measures (METER) or the lock is sliced
		 * (SLICED): count this unlock, while we hold the lock (the
		 * controller may change METER and SLICED in the word, which is
		 * ours until the release; v is then the word now).  The one
		 * that ends a turn passes it after the release (side table
		 * only).  Once per unlock. */
		if ((v & (_SP_METER | _SP_SLICED)) && !counted) {
			counted = true;
			pass = sp_mode_unlock_count(lock, &v);
			continue;
		}
		if (v & _SP_STARVING) {
			/* Hand off to the starving spinner: (p, s, 1) ->
			 * (p, s, 2) with STARVING kept and EXTENDED cleared;
			 * release (our critical section before its acquire of
			 * the 2).  No sleeper is woken: the spinner runs. */
			if (pvspin_plat_cmpxchg32(&lock->val, &v,
						  sp_with_locked(v, _SP_HANDOFF) & ~_SP_EXTENDED,
						  PVSPIN_RELEASE))
				break;
			continue;
		}
		/* Still holding: (p, s, 1) -> (p, s, 1) | WOKEN if we are to
		 * wake.  Relaxed: the woken one re-reads the word, and our
		 * release below orders the critical section. */
		wake = sp_should_wake(v);
		if (wake && !pvspin_plat_cmpxchg32(&lock->val, &v, v | _SP_WOKEN, PVSPIN_RELAXED))
			continue;   /* the word changed: decide again */
		/* The release: (p, s, 1) -> (p, s, 0).  With the asymmetric
		 * fence and no EXTENDED to clear, a plain store of the locked
		 * byte, then the park sequence read again: a sleeper that
		 * came after our read of it may have missed the release (its
		 * membarrier makes sure we see it move), so wake one.  After
		 * the store the lock is not ours to touch. */
		if (!(seq & PVSPIN_PARK_SEQ_RMW_RELEASE) && !(v & _SP_EXTENDED) && !sp_crowd(v)) {
			if (_pvspin_spinpark_store_release(lock, seq) || wake)
				sp_wake_one(lock);
			break;
		}
		/* Else one atomic subtraction (release) that returns the word
		 * it replaced, EXTENDED cleared with the locked byte: the RMW
		 * that parkers' counts are ordered against (file comment).
		 * Only we set or clear EXTENDED, so v's bit is the word's.
		 * After it the lock is not ours to touch. */
		uint32_t old = pvspin_plat_fetch_add32(&lock->val,
						       -(_SP_LOCKED + (v & _SP_EXTENDED)),
						       PVSPIN_RELEASE);
		/* a parker that counted itself since our decision: wake it
		 * (without WOKEN, which we may no longer write) */
		if (wake || sp_should_wake(old))
			sp_wake_one(lock);
		break;
	}
	if (pass)
		sp_mode_turn_pass(lock);
	/* the critical section is over: withdraw sp_hold_begin()'s request
	 * (after the wake-up's system call, which would end a granted
	 * extension anyway; per-thread state, keyed by the lock's address) */
	if (v & _SP_EXTENDED)
		pvspin_plat_slice_ext_end(lock);
}

/*
 * preload_mutex.c - pthread_mutex_* on a pvspin word, in place.
 *
 * A private, non-robust, non-PI/PP mutex keeps glibc's size (40 bytes) and
 * glibc's type field (__kind at offset 16, which the static initializers
 * PTHREAD_MUTEX_INITIALIZER, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
 * PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP and PTHREAD_ADAPTIVE_..._NP set
 * to 0, 1, 2, 3), and reuses the other bytes (all zero after a static
 * initializer) as:
 *
 *   offset  0  uint32_t word         the mutex word (below): locked bit,
 *                                    WOKEN, count of sleepers
 *   offset  4  uint32_t count        recursion depth (recursive type)
 *   offset  8  uintptr_t owner       owning thread (recursive, errorcheck):
 *                                    address of a thread-local variable,
 *                                    unique among live threads; the
 *                                    forking thread keeps it in the child
 *   offset 16  int kind              glibc's type bits: never written
 *                                    except by init and destroy
 *   offset 20  uint16_t spin_avg_ns  moving average of what a successful
 *                                    spin waited, in ns (the budget)
 *   offset 22  uint16_t spin_fail    moving average of how often a spin
 *                                    failed, in 1/1024 (0: never)
 *   offset 24  uint64_t spinq        the spinners: ticket being served
 *                                    (bits 0-15), next ticket (16-31),
 *                                    tickets given up (32-63, bit i:
 *                                    ticket serving + i)
 *
 * Robust, priority-inheritance, priority-protect and process-shared
 * mutexes are initialised by glibc (the attribute decides) and every call
 * on them goes to glibc: their __kind carries the bits 0x10/0x20/0x40/0x80.
 *
 * Locks and unlocks follow glibc's semantics (POSIX plus glibc's choices):
 * normal and adaptive: relock deadlocks, unlock by anyone; recursive:
 * counted, EPERM on unlock by a non-owner, EAGAIN at UINT32_MAX levels;
 * errorcheck: EDEADLK on relock, EPERM on unlock by a non-owner or of an
 * unlocked mutex; trylock EBUSY (also errorcheck relock); timed locks:
 * free mutex -> 0 whatever the time, else EINVAL for a bad tv_nsec,
 * ETIMEDOUT at the deadline on CLOCK_REALTIME (timedlock) or the given
 * clock (clocklock: CLOCK_REALTIME or CLOCK_MONOTONIC, else EINVAL).
 * destroy: EBUSY while locked; afterwards __kind is -1 like glibc's, so a
 * later use is glibc's EINVAL.  As with glibc, a mutex may be destroyed
 * and freed by the thread that unlocked it last, while an earlier
 * unlocker is still inside pthread_mutex_unlock(): the unlock touches
 * nothing of the mutex after its release (below).
 *
 * The word (transitions written (sleepers, WOKEN, locked)):
 *
 *   bit  0     MW_LOCKED   held
 *   bit  1     MW_WOKEN    an unlock woke a sleeper (or meant to) and no
 *                          sleeper has run since (after glibc's
 *                          lowlevellock's "locked, waiters" state and
 *                          spinpark's WOKEN, src/lock/spinpark.c)
 *   bits 2-31  sleepers    waiters counted to sleep on the word
 *
 * Every kind uses this word for mutexes.  A kind's own word has no room
 * for the sleepers, and the unlock must decide its wake-up in the very
 * RMW that releases (a read of a separate count after the release read,
 * and wrote, memory that the next holder may already have freed: a
 * program that destroyed and unmapped a mutex right after its last
 * unlock crashed under `pvspin run` in 4 of 4 runs, a new user's
 * finding).  The kind decides how waiters spin (below).
 *
 * Waiting (docs/preload.md, "Waiting"): a pthread_mutex_t is a sleeping
 * lock to every program that uses one, so under every kind a waiter spins
 * a bounded, measured budget and then sleeps on a futex; an unlock wakes
 * one sleeper.  After the kernel's mutex (kernel/locking/mutex.c:
 * optimistic spinning by a bounded number of spinners, then a sleeping
 * wait list) and glibc's adaptive mutex (nptl/pthread_mutex_lock.c:
 * PTHREAD_MUTEX_ADAPTIVE_NP spins a per-mutex moving average, __spins,
 * of what a spin needed).  What each kind keeps:
 *
 *  - qspinlock and ticket: FIFO order among the waiters that spin (an
 *    abortable ticket queue in `spinq`, below: only the head spinner
 *    tries the word);
 *  - tas, pvqspinlock and spinpark: unfair spinning (every spinner tries
 *    the word, as tas's test-and-test-and-set and pvqspinlock's lock
 *    stealing).
 *
 * The budget: at most spin_cap() spinners at a time (one fewer than the
 * CPUs this process may use, so a holder that needs a CPU keeps one),
 * each for 2 x the moving average of what a successful spin waited (a
 * waiter arrives on average halfway through a hold, so 2 x its wait
 * estimates the hold time), within [SPIN_MIN_NS, SPIN_MAX_NS]
 * (spin_budget_ns()); and only while spins succeed often enough
 * (spin_worth_it(): a mutex whose holders block, yield, or are preempted
 * by the very waiter a condvar signal woke, gains nothing by spinning,
 * only delays its holder).  PVSPIN_MUTEX_SPIN_LIMIT=N
 * (`pvspin run --spin-limit N`) overrides the budget with N PAUSE loops.
 *
 * Sleeping: a waiter counts itself in the word's sleepers (an RMW) and
 * sleeps on the word (FUTEX_WAIT_BITSET, with the deadline of a timed
 * lock on the requested clock) while it holds the value it read.  An
 * unlock releases by one cmpxchg that, if the word it replaces counts a
 * sleeper and no WOKEN, also sets WOKEN, and then FUTEX_WAKEs one: after
 * its release it names the mutex's address only in that system call.
 * No lost wake-up: the sleeper's count and the unlock's release are RMWs
 * on one word, so either the release replaces a word that counts the
 * sleeper (and wakes it, or a WOKEN one is on its way), or the sleeper's
 * next read, after its count, sees the release; and a FUTEX_WAIT on a
 * word that changed since it was read returns at once.  No fence and no
 * membarrier on either side.  A sleeper never sleeps on a word with
 * WOKEN: it clears WOKEN first (it runs, so the next unlock may wake
 * another), since an unlock that found WOKEN woke nobody.  The Promela
 * model test/model/preload_mutex.pml checks the protocol.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include <sys/single_threaded.h>

#include "preload.h"
#include "pvspin/platform.h"
#include "pvspin/spinlock.h"
#include "pvspin/tunables.h"

struct pmutex {
	uint32_t word;
	uint32_t count;
	uintptr_t owner;
	int kind;
	uint16_t spin_avg_ns;
	uint16_t spin_fail;
	uint64_t spinq;
};

_Static_assert(sizeof(struct pmutex) <= sizeof(pthread_mutex_t), "pmutex too big");
_Static_assert(offsetof(struct pmutex, kind) ==
	       offsetof(pthread_mutex_t, __data.__kind), "kind must overlay __kind");
_Static_assert(offsetof(struct pmutex, word) == 0, "word first");
_Static_assert(offsetof(struct pmutex, spinq) % 8 == 0, "spinq is a naturally aligned 64-bit word");

#define TYPE_MASK 3 /* PTHREAD_MUTEX_KIND_MASK_NP */

static _Thread_local char self_tag;
#define SELF ((uintptr_t)&self_tag)

static inline struct pmutex *pm_of(pthread_mutex_t *m) { return (struct pmutex *)m; }

static inline int type_of(struct pmutex *pm)
{
	return __atomic_load_n(&pm->kind, __ATOMIC_RELAXED) & TYPE_MASK;
}

/* ---- the word ---------------------------------------------------------- */

#define MW_LOCKED 1u
#define MW_WOKEN 2u
#define MW_SLEEPER_ONE 4u
#define MW_SLEEPERS(v) ((v) >> 2)

static inline bool word_is_locked(struct pmutex *pm)
{
	return __atomic_load_n(&pm->word, __ATOMIC_RELAXED) & MW_LOCKED;
}

/* Take the word seen as `*v` if it is free: (n, w, 0) -> (n, w, 1), and
 * with `sleeping` (a counted sleeper) (n, w, 0) -> (n - 1, 0, 1): a
 * sleeper runs, so the next unlock may wake another.  Acquire.  False
 * (with *v updated) if the word is held or changed. */
static inline bool word_take(struct pmutex *pm, uint32_t *v, bool sleeping)
{
	if (*v & MW_LOCKED)
		return false;
	uint32_t nv = sleeping ? ((*v - MW_SLEEPER_ONE) & ~MW_WOKEN) | MW_LOCKED : *v | MW_LOCKED;
	return __atomic_compare_exchange_n(&pm->word, v, nv, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/* True while the process has one thread: glibc's __libc_single_threaded
 * (<sys/single_threaded.h>, glibc 2.32), which pthread_create() clears
 * before the second thread starts, so no other thread can touch a word
 * while it reads true.  Then the word's free <-> held transitions need no
 * atomic instruction, as in glibc's own mutex (nptl's
 * lll_mutex_lock_optimized: a single-threaded process takes and drops a
 * private mutex by plain loads and stores).  Measured here
 * (test_preload_helper uncontended, one thread): a lock/unlock pair of a
 * normal mutex 13.0 ns by two atomic instructions against glibc's 3.9.
 * Only the exact words 0 and MW_LOCKED go this way; a word with sleepers
 * or WOKEN (a parent's waiters', in a fork child: glibc 2.36 leaves the
 * flag false there, a later glibc may set it) takes the atomic path as
 * before.  A signal handler that locks a mutex its thread was
 * taking or dropping is undefined behaviour for POSIX (not
 * async-signal-safe) with glibc too. */
static inline bool single_threaded(void)
{
	return __atomic_load_n(&__libc_single_threaded, __ATOMIC_RELAXED) != 0;
}

/* Take a free word, (0, 0, 0) -> (0, 0, 1): a read, and if it saw 0 one
 * cmpxchg (acquire), or a store while single-threaded
 * (single_threaded()).  The read costs an uncontended pair nothing
 * measurable (5.3-6.0 ns with it, 5.9-7.0 without), and keeps a waiter
 * from taking a held word's line exclusively: with a cmpxchg at once, as
 * glibc's lll_lock, `sysbench threads` (8 threads, 4 locks) did 0.83-1.00
 * of the code before in 5 alternated runs.  False if the word was
 * anything but 0 (held, or sleepers counted on a free word).  Not
 * counted.  The first step of word_try(); the inline pthread_mutex_lock()
 * is this alone (its counterpart, word_release_alone()). */
static inline bool word_take_zero(struct pmutex *pm)
{
	uint32_t v = 0;
	if (single_threaded()) {
		if (__atomic_load_n(&pm->word, __ATOMIC_RELAXED) != 0)
			return false;
		__atomic_store_n(&pm->word, MW_LOCKED, __ATOMIC_RELAXED);
		return true;
	}
	return __atomic_load_n(&pm->word, __ATOMIC_RELAXED) == 0 &&
	       __atomic_compare_exchange_n(&pm->word, &v, MW_LOCKED, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/* Take a free word whatever it counts, (n, w, 0) -> (n, w, 1), by
 * cmpxchg (word_take()), after a read: the step after word_take_zero()
 * failed, which also takes a free word that counts sleepers or WOKEN
 * (an unlock woke one that has not run yet).  The word is read again,
 * not handed out of word_take_zero(): that cost the inline
 * pthread_mutex_lock() 0.4 ns a pair, 5.66 against 5.27 ns (15
 * alternated runs, the least of each), by its layout.  True if taken.
 * Not counted. */
static inline bool word_take_free(struct pmutex *pm)
{
	uint32_t v = __atomic_load_n(&pm->word, __ATOMIC_RELAXED);
	while (!(v & MW_LOCKED)) {
		/* a failed cmpxchg on a free word: the sleepers or WOKEN
		 * changed; try again */
		if (word_take(pm, &v, false))
			return true;
	}
	return false;
}

/* Try once: word_take_zero(), then word_take_free().  True if taken.
 * Not counted (word_trylock()). */
static inline bool word_try(struct pmutex *pm)
{
	return word_take_zero(pm) || word_take_free(pm);
}

/* Count an acquisition `taken` says happened, when the counters are on;
 * returns `taken`. */
static inline bool counted(bool taken)
{
	if (taken && preload_stats_wanted())
		preload_count(PRELOAD_EV(PRELOAD_EV_ACQUIRE));
	return taken;
}

/* word_try(), counted. */
static inline bool word_trylock(struct pmutex *pm)
{
	return counted(word_try(pm));
}

/* Release a word nobody sleeps on, (0, 0, 1) -> (0, 0, 0): one cmpxchg
 * (release) with no read before it (the holder's line), as glibc's
 * lll_unlock, or a store
 * while single-threaded (single_threaded()).  False, with nothing
 * written, if the word was anything but MW_LOCKED. */
static inline bool word_release_alone(struct pmutex *pm)
{
	uint32_t v = MW_LOCKED;
	if (single_threaded()) {
		if (__atomic_load_n(&pm->word, __ATOMIC_RELAXED) != MW_LOCKED)
			return false;
		__atomic_store_n(&pm->word, 0, __ATOMIC_RELEASE);
		return true;
	}
	return __atomic_compare_exchange_n(&pm->word, &v, 0, false, __ATOMIC_RELEASE,
					   __ATOMIC_RELAXED);
}

/* Release the word, if held (as glibc, unlocking an unlocked normal mutex
 * is harmless), after word_release_alone() failed (or was not tried):
 * (n, w, 1) -> (n, w | wake, 0) by one cmpxchg (release), where wake =
 * there are sleepers and no WOKEN; then, if it set WOKEN, FUTEX_WAKE one
 * sleeper.  After the cmpxchg nothing of the mutex is read or written
 * (file comment). */
static void word_unlock_contended(struct pmutex *pm)
{
	uint32_t v = __atomic_load_n(&pm->word, __ATOMIC_RELAXED), nv;
	bool wake;
	do {
		if (__builtin_expect(!(v & MW_LOCKED), 0))
			return;
		wake = MW_SLEEPERS(v) && !(v & MW_WOKEN);
		nv = (v & ~MW_LOCKED) | (wake ? MW_WOKEN : 0);
	} while (!__atomic_compare_exchange_n(&pm->word, &v, nv, false, __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	if (__builtin_expect(wake, 0)) {
		preload_futex_wake(&pm->word, 1);
		if (preload_stats_wanted())
			preload_count(PRELOAD_EV(PRELOAD_EV_MUTEX_WAKE));
	}
}

/* Release the word: word_release_alone(), else word_unlock_contended(). */
static inline void word_unlock(struct pmutex *pm)
{
	if (__builtin_expect(!word_release_alone(pm), 0))
		word_unlock_contended(pm);
}

/* Sleep until the word is ours or `abstime` on `clock` passes (NULL: no
 * deadline): count ourselves in the sleepers, then take the word if free,
 * clear WOKEN if set, else FUTEX_WAIT on the word's value (file comment).
 * 0 or ETIMEDOUT. */
static int word_sleep(struct pmutex *pm, clockid_t clock, const struct timespec *abstime)
{
	/* (n, w, 1) -> (n + 1, w, 1), or take a free word on the way.
	 * Relaxed: the Dekker pair with the unlock is two RMWs on this one
	 * word (file comment). */
	uint32_t v = __atomic_load_n(&pm->word, __ATOMIC_RELAXED);
	for (;;) {
		if (word_take(pm, &v, false))
			return 0;
		if (v & MW_LOCKED &&
		    __atomic_compare_exchange_n(&pm->word, &v, v + MW_SLEEPER_ONE, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			v += MW_SLEEPER_ONE;
			break;
		}
	}
	for (;;) {
		if (word_take(pm, &v, true))
			return 0;
		if (v & MW_LOCKED && (v & MW_WOKEN)) {
			/* (n, 1, 1) -> (n, 0, 1): never sleep on WOKEN */
			if (__atomic_compare_exchange_n(&pm->word, &v, v & ~MW_WOKEN, false,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
				v &= ~MW_WOKEN;
			continue;
		}
		if (!(v & MW_LOCKED))
			continue;   /* word_take lost a race: v is fresh */
		if (preload_stats_wanted())
			preload_count(PRELOAD_EV(PRELOAD_EV_MUTEX_SLEEP));
		int r = preload_futex_wait(&pm->word, v, clock, abstime);
		v = __atomic_load_n(&pm->word, __ATOMIC_RELAXED);
		if (r == ETIMEDOUT)
			break;
	}
	/* Timed out: take a free word, else leave the sleepers:
	 * (n, w, 1) -> (n - 1, 0, 1), clearing WOKEN too: it may have been
	 * set for us, and left set it would make the next unlock skip a
	 * wake-up.  Not needed against a lost wake-up (a sleeper that a
	 * FUTEX_WAKE dequeued returns 0, not ETIMEDOUT, and every counted
	 * sleeper clears WOKEN before it sleeps: the Promela model's mutant
	 * (8)), only to keep wake-ups prompt. */
	for (;;) {
		if (word_take(pm, &v, true))
			return 0;
		if (v & MW_LOCKED &&
		    __atomic_compare_exchange_n(&pm->word, &v, (v - MW_SLEEPER_ONE) & ~MW_WOKEN,
						false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return ETIMEDOUT;
	}
}

/* ---- the spinners: bounded in number and in time ------------------------ */

/* Bounds of a spin's time budget, in ns.  The floor covers a hand-over
 * between two running threads (a cache-line transfer and a short critical
 * section, well under 1 us here); the ceiling is a few times what
 * sleeping costs instead (FUTEX_WAIT + FUTEX_WAKE + two context switches:
 * 5-15 us measured on this 2-vCPU KVM guest with the condvar ping-pong of
 * test_preload_helper), beyond which spinning can only lose. */
#define SPIN_MIN_NS 2000u
#define SPIN_MAX_NS 50000u
_Static_assert(SPIN_MAX_NS <= UINT16_MAX, "spin_avg_ns is 16 bits");
/* Clock reads while spinning: one every this many PAUSE loops. */
#define SPIN_CLOCK_EVERY 16u
/* The most spinners the spinq bitmap can follow (32 tickets given up). */
#define SPIN_CAP_MAX 31u

/* PVSPIN_MUTEX_SPIN_LIMIT (the tunable mutex_spin_limit, read and checked
 * with the library's others in src/lock/tunables.c, which reports a bad
 * value once, at load): 0 (default) = the measured budget; N = every
 * waiter spins at most N PAUSE loops (an override), then sleeps.  One
 * acquire load and one relaxed load per contended wait, once the
 * environment has been read. */
static inline uint32_t spin_limit(void)
{
	return pvspin_tunable_get(PVSPIN_TUNE_MUTEX_SPIN_LIMIT);
}

/* How many waiters of one mutex may spin at once: one fewer than the
 * CPUs this thread may run on (0 on one CPU, at most SPIN_CAP_MAX), so
 * that spinners never take every CPU from a holder that needs one (the
 * kernel's mutex lets one spinner at a time spin on the owner, through
 * its OSQ).  The others sleep at once. */
static uint32_t spin_cap(void)
{
	/* the platform's count, as spinpark's own cap: 0 on one CPU, where
	 * a spinner can only keep the holder off it */
	uint32_t n = pvspin_plat_spin_cpus();
	n = n > 1 ? n - 1 : 0;
	return n < SPIN_CAP_MAX ? n : SPIN_CAP_MAX;
}

/* The time budget of one spin, in ns: 2 x the moving average of what a
 * successful spin waited, within [SPIN_MIN_NS, SPIN_MAX_NS]. */
static inline uint64_t spin_budget_ns(const struct pmutex *pm)
{
	uint64_t b = 2u * (uint64_t)__atomic_load_n(&pm->spin_avg_ns, __ATOMIC_RELAXED);
	return b < SPIN_MIN_NS ? SPIN_MIN_NS : b > SPIN_MAX_NS ? SPIN_MAX_NS : b;
}

/* Spin only while at least 1 in 8 spins succeed (spin_fail <= 896 /
 * 1024).  A mutex below that still spins now and then, to notice when
 * spinning pays again: each wait that skips the spin takes
 * SPIN_FAIL_SKIP off spin_fail, so about 1 wait in 8 spins. */
#define SPIN_FAIL_MAX 1024u
#define SPIN_FAIL_LIMIT 896u
#define SPIN_FAIL_SKIP 2u

/* Should a waiter spin at all?  No when recent spins mostly failed
 * (relaxed, unlocked read-modify-write, as spin_learn()). */
static inline bool spin_worth_it(struct pmutex *pm)
{
	uint16_t f = __atomic_load_n(&pm->spin_fail, __ATOMIC_RELAXED);
	if (f <= SPIN_FAIL_LIMIT)
		return true;
	__atomic_store_n(&pm->spin_fail, (uint16_t)(f - SPIN_FAIL_SKIP), __ATOMIC_RELAXED);
	return false;
}

/* Feed one spin's outcome into the averages (relaxed, unlocked read-
 * modify-writes: a lost update among racing waiters only delays the
 * estimate, as with glibc's __spins).  Success: the wait time and the
 * failure rate move 1/8 of the way to `waited_ns` and to 0; a spin that
 * ran out moves the failure rate 1/8 of the way to SPIN_FAIL_MAX and
 * leaves the wait average alone (how long the hold would have lasted is
 * not known; often the holder was waiting for our CPU). */
static inline void spin_learn(struct pmutex *pm, bool taken, uint64_t waited_ns)
{
	int32_t f = __atomic_load_n(&pm->spin_fail, __ATOMIC_RELAXED);
	f += taken ? -f / 8 : (int32_t)(SPIN_FAIL_MAX - (uint32_t)f) / 8;
	__atomic_store_n(&pm->spin_fail, (uint16_t)f, __ATOMIC_RELAXED);
	if (!taken)
		return;
	int32_t avg = __atomic_load_n(&pm->spin_avg_ns, __ATOMIC_RELAXED);
	if (waited_ns > SPIN_MAX_NS)
		waited_ns = SPIN_MAX_NS;
	avg += ((int32_t)waited_ns - avg) / 8;
	__atomic_store_n(&pm->spin_avg_ns, (uint16_t)avg, __ATOMIC_RELAXED);
}

/* spinq fields (see the layout above) */
#define SQ_SERVING(q) ((uint16_t)(q))
#define SQ_NEXT(q) ((uint16_t)((q) >> 16))
#define SQ_GONE(q) ((uint32_t)((q) >> 32))
#define SQ_MAKE(serving, next, gone)                                            \
	((uint64_t)(uint16_t)(serving) | (uint64_t)(uint16_t)(next) << 16 |      \
	 (uint64_t)(uint32_t)(gone) << 32)

/* Take a spinner's ticket, unless `cap` spinners (given-up tickets not
 * yet passed included) are already there.  Relaxed: spinq only orders the
 * spinners among themselves; the word's trylock is the acquisition. */
static bool spinq_enter(struct pmutex *pm, uint32_t cap, uint16_t *ticket)
{
	uint64_t q = __atomic_load_n(&pm->spinq, __ATOMIC_RELAXED);
	do {
		if ((uint16_t)(SQ_NEXT(q) - SQ_SERVING(q)) >= cap)
			return false;
	} while (!__atomic_compare_exchange_n(&pm->spinq, &q,
					      SQ_MAKE(SQ_SERVING(q), SQ_NEXT(q) + 1, SQ_GONE(q)),
					      true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*ticket = SQ_NEXT(q);
	return true;
}

/* Leave the spinners with `ticket` (got the word or ran out): the head
 * passes the turn to the next ticket not given up; any other marks its
 * ticket given up, to be skipped when its turn comes.  Relaxed, as
 * spinq_enter(). */
static void spinq_leave(struct pmutex *pm, uint16_t ticket)
{
	uint64_t q = __atomic_load_n(&pm->spinq, __ATOMIC_RELAXED), nq;
	do {
		uint16_t serving = SQ_SERVING(q);
		uint32_t gone = SQ_GONE(q);
		if (serving == ticket) {
			do {
				serving++;
				gone >>= 1;
			} while (gone & 1u);
		} else {
			gone |= 1u << (uint16_t)(ticket - serving);
		}
		nq = SQ_MAKE(serving, SQ_NEXT(q), gone);
	} while (!__atomic_compare_exchange_n(&pm->spinq, &q, nq, true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
}

/* Spinners of the FIFO kinds take the word in ticket order. */
static inline bool kind_spins_fifo(pvspin_kind_t k)
{
	return k == PVSPIN_KIND_QSPINLOCK || k == PVSPIN_KIND_TICKET;
}

/* The bounded spin: if admitted as a spinner, retry the word (in ticket
 * order for the FIFO kinds) for the budget, or for `limit` PAUSE loops
 * when PVSPIN_MUTEX_SPIN_LIMIT set one.  True if the word is ours. */
static bool word_spin(struct pmutex *pm, pvspin_kind_t k, uint32_t limit)
{
	uint16_t ticket;
	if (!limit && !spin_worth_it(pm))
		return false;
	if (!spinq_enter(pm, spin_cap(), &ticket))
		return false;
	bool fifo = kind_spins_fifo(k), taken = false;
	uint64_t start = limit ? 0 : pvspin_plat_now_ns(), budget = limit ? 0 : spin_budget_ns(pm);
	for (uint32_t i = 1;; i++) {
		if ((!fifo || SQ_SERVING(__atomic_load_n(&pm->spinq, __ATOMIC_RELAXED)) == ticket) &&
		    word_try(pm)) {
			taken = true;
			break;
		}
		pvspin_plat_cpu_relax();
		if (limit ? i >= limit
			  : i % SPIN_CLOCK_EVERY == 0 && pvspin_plat_now_ns() - start >= budget)
			break;
	}
	spinq_leave(pm, ticket);
	if (!limit)
		spin_learn(pm, taken, taken ? pvspin_plat_now_ns() - start : 0);
	return taken;
}

/* How a waiter whose trylock failed waits: spin a bounded budget, then
 * sleep (WAIT_SPIN_THEN_SLEEP), or sleep at once (WAIT_SLEEP). */
enum wait_mode { WAIT_SPIN_THEN_SLEEP, WAIT_SLEEP };

/* A waiter's acquisition (the caller's trylock failed): spin if `mode`
 * says so, then sleep until `abstime` on `clock` (NULL: no deadline).
 * 0 or ETIMEDOUT. */
static int word_wait(struct pmutex *pm, enum wait_mode mode, clockid_t clock,
		     const struct timespec *abstime)
{
	bool spun = mode == WAIT_SPIN_THEN_SLEEP && word_spin(pm, preload_kind(), spin_limit());
	int ret = spun ? 0 : word_sleep(pm, clock, abstime);
	if (ret == 0 && preload_stats_wanted())   /* one call: one slot look-up */
		preload_count(PRELOAD_EV(PRELOAD_EV_ACQUIRE) | PRELOAD_EV(PRELOAD_EV_CONTENDED) |
			      (spun ? PRELOAD_EV(PRELOAD_EV_MUTEX_SPIN_ACQUIRE) : 0));
	return ret;
}

static inline void word_lock(struct pmutex *pm)
{
	if (__builtin_expect(!word_trylock(pm), 0))
		(void)word_wait(pm, WAIT_SPIN_THEN_SLEEP, CLOCK_REALTIME, NULL);
}

/* Timed acquisition: 0, ETIMEDOUT, or EINVAL for a bad abstime when the
 * lock is not free (glibc's order of checks). */
static int word_timedlock(struct pmutex *pm, clockid_t clock, const struct timespec *abstime)
{
	if (word_trylock(pm))
		return 0;
	if (!preload_valid_timespec(abstime))
		return EINVAL;
	if (abstime->tv_sec < 0)
		return ETIMEDOUT;
	return word_wait(pm, WAIT_SPIN_THEN_SLEEP, clock, abstime);
}

/* ---- the wrappers ------------------------------------------------------ */

PVSPIN_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
	int type = PTHREAD_MUTEX_NORMAL, pshared = PTHREAD_PROCESS_PRIVATE;
	int robust = PTHREAD_MUTEX_STALLED, protocol = PTHREAD_PRIO_NONE;
	if (attr) {
		pthread_mutexattr_gettype(attr, &type);
		pthread_mutexattr_getpshared(attr, &pshared);
		pthread_mutexattr_getrobust(attr, &robust);
		pthread_mutexattr_getprotocol(attr, &protocol);
	}
	if (pshared != PTHREAD_PROCESS_PRIVATE || robust != PTHREAD_MUTEX_STALLED ||
	    protocol != PTHREAD_PRIO_NONE) {
		const struct preload_real *r = preload_real();
		return r ? r->mutex_init(m, attr) : EAGAIN;
	}
	memset(m, 0, sizeof(*m));
	pm_of(m)->kind = type & TYPE_MASK;
	return 0;
}

PVSPIN_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
	if (preload_mutex_is_passthrough(m)) {
		const struct preload_real *r = preload_real();
		return r ? r->mutex_destroy(m) : EAGAIN;
	}
	struct pmutex *pm = pm_of(m);
	if (word_is_locked(pm))
		return EBUSY;
	__atomic_store_n(&pm->kind, -1, __ATOMIC_RELAXED);
	return 0;
}

/* How an acquisition waits: not at all (trylock), until it has the lock,
 * or until an absolute deadline. */
enum acquire_mode { ACQUIRE_TRY, ACQUIRE_WAIT, ACQUIRE_TIMED };

/* Take the word: 0, EBUSY (trylock), ETIMEDOUT or EINVAL (timed). */
static int word_acquire(struct pmutex *pm, enum acquire_mode mode, clockid_t clock,
			const struct timespec *abstime)
{
	switch (mode) {
	case ACQUIRE_TRY:
		return word_trylock(pm) ? 0 : EBUSY;
	case ACQUIRE_TIMED:
		return word_timedlock(pm, clock, abstime);
	default:
		word_lock(pm);
		return 0;
	}
}

/*
 * Every acquisition of an interposed mutex, by type, with glibc's results:
 * a recursive mutex already ours counts up (EAGAIN at UINT32_MAX); an
 * error-checking one already ours is EDEADLK (EBUSY for trylock, as glibc);
 * otherwise take the word and, for those two types, record the owner.
 */
static int typed_acquire(struct pmutex *pm, int kind, enum acquire_mode mode,
			 clockid_t clock, const struct timespec *abstime)
{
	int type = kind & TYPE_MASK, ret;
	bool owned = __atomic_load_n(&pm->owner, __ATOMIC_RELAXED) == SELF;

	if (type == PTHREAD_MUTEX_RECURSIVE && owned) {
		if (pm->count == UINT32_MAX)
			return EAGAIN;
		pm->count++;
		return 0;
	}
	if (type == PTHREAD_MUTEX_ERRORCHECK && owned)
		return mode == ACQUIRE_TRY ? EBUSY : EDEADLK;
	ret = word_acquire(pm, mode, clock, abstime);
	if (ret == 0 && (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK)) {
		__atomic_store_n(&pm->owner, SELF, __ATOMIC_RELAXED);
		if (type == PTHREAD_MUTEX_RECURSIVE)
			pm->count = 1;
	}
	return ret;
}

/* pthread_mutex_lock() past its inline first try: a normal mutex whose
 * first try failed, or any other type; `kind` is the type word the
 * caller read.  Out of line, so that the inline path is the type check
 * and word_take_zero() with no stack frame.  As one function (three saved
 * registers) a free normal mutex's lock and unlock took 8.4-8.8 ns with
 * two threads alive, now 5.3-5.5 (glibc 7.2-7.8; test_preload_helper
 * uncontended, 5 alternated runs, AMD EPYC KVM guest, 2026-12-07);
 * single-threaded 7.6-9.4 and now 7.7-8.0 (glibc 7.2-8.1).  The other
 * types take and release a free word the same way (word_lock(),
 * word_unlock()): a recursive mutex's pair, two threads, 11.5-14.2 ->
 * 10.0-10.3 ns (glibc 10.3-11.3). */
static __attribute__((noinline)) int mutex_lock_slow(pthread_mutex_t *m, int kind)
{
	struct pmutex *pm = pm_of(m);
	if (kind == PTHREAD_MUTEX_NORMAL) {
		/* The inline try took a zero word only: a free word that
		 * counts sleepers (or WOKEN) is taken here, before the wait,
		 * whose spin must learn from real spins only.  Waiting at
		 * once (2026-12-07 to 12-07 evening) counted each such take
		 * as a spin that succeeded at once: in `stress-ng --mutex 8`,
		 * whose holders yield, 70 k of 85 k waits per process, which
		 * kept every waiter spinning (14.5 k spins ran out, 2.3 us
		 * each; 1.7 k with the take here, the rest sleeping at once)
		 * at 0.90 of glibc's bogo ops (8 alternated runs).  Not
		 * word_lock(): its word_take_zero() just failed inline. */
		if (!counted(word_take_free(pm)))
			(void)word_wait(pm, WAIT_SPIN_THEN_SLEEP, CLOCK_REALTIME, NULL);
		return 0;
	}
	if (kind & PRELOAD_MUTEX_PASSTHROUGH_BITS) {
		const struct preload_real *r = preload_real();
		return r ? r->mutex_lock(m) : EAGAIN;
	}
	return typed_acquire(pm, kind, ACQUIRE_WAIT, CLOCK_REALTIME, NULL);
}

PVSPIN_EXPORT_HOT int pthread_mutex_lock(pthread_mutex_t *m)
{
	struct pmutex *pm = pm_of(m);
	/* a free normal mutex: word_take_zero(); everything else out of
	 * line */
	int kind = __atomic_load_n(&pm->kind, __ATOMIC_RELAXED);
	if (__builtin_expect(kind == PTHREAD_MUTEX_NORMAL && word_take_zero(pm), 1)) {
		if (preload_stats_wanted())
			preload_count(PRELOAD_EV(PRELOAD_EV_ACQUIRE));
		return 0;
	}
	return mutex_lock_slow(m, kind);
}

PVSPIN_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	struct pmutex *pm = pm_of(m);
	int kind = __atomic_load_n(&pm->kind, __ATOMIC_RELAXED);
	if (kind & PRELOAD_MUTEX_PASSTHROUGH_BITS) {
		const struct preload_real *r = preload_real();
		return r ? r->mutex_trylock(m) : EAGAIN;
	}
	return typed_acquire(pm, kind, ACQUIRE_TRY, CLOCK_REALTIME, NULL);
}

static int clocklock_common(pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime)
{
	struct pmutex *pm = pm_of(m);
	return typed_acquire(pm, __atomic_load_n(&pm->kind, __ATOMIC_RELAXED), ACQUIRE_TIMED,
			     clock, abstime);
}

PVSPIN_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abstime)
{
	if (preload_mutex_is_passthrough(m)) {
		const struct preload_real *r = preload_real();
		return r ? r->mutex_timedlock(m, abstime) : EAGAIN;
	}
	return clocklock_common(m, CLOCK_REALTIME, abstime);
}

PVSPIN_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
					  const struct timespec *abstime)
{
	if (preload_mutex_is_passthrough(m)) {
		const struct preload_real *r = preload_real();
		if (!r)
			return EAGAIN;
		return r->mutex_clocklock ? r->mutex_clocklock(m, clock, abstime) : ENOSYS;
	}
	if (!preload_valid_clock(clock))
		return EINVAL;
	return clocklock_common(m, clock, abstime);
}

/* pthread_mutex_unlock() past its inline release: a normal mutex with
 * sleepers or WOKEN (or unlocked), or any other type (out of line, as
 * mutex_lock_slow()). */
static __attribute__((noinline)) int mutex_unlock_slow(pthread_mutex_t *m, int kind)
{
	struct pmutex *pm = pm_of(m);
	if (kind == PTHREAD_MUTEX_NORMAL) {
		word_unlock_contended(pm);
		return 0;
	}
	if (kind & PRELOAD_MUTEX_PASSTHROUGH_BITS) {
		const struct preload_real *r = preload_real();
		return r ? r->mutex_unlock(m) : EAGAIN;
	}
	switch (kind & TYPE_MASK) {
	case PTHREAD_MUTEX_RECURSIVE:
		if (__atomic_load_n(&pm->owner, __ATOMIC_RELAXED) != SELF)
			return EPERM;
		if (--pm->count != 0)
			return 0;
		__atomic_store_n(&pm->owner, 0, __ATOMIC_RELAXED);
		word_unlock(pm);
		return 0;
	case PTHREAD_MUTEX_ERRORCHECK:
		if (__atomic_load_n(&pm->owner, __ATOMIC_RELAXED) != SELF)
			return EPERM;
		__atomic_store_n(&pm->owner, 0, __ATOMIC_RELAXED);
		word_unlock(pm);
		return 0;
	default:
		word_unlock(pm);
		return 0;
	}
}

PVSPIN_EXPORT_HOT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	struct pmutex *pm = pm_of(m);
	/* a normal mutex nobody sleeps on: word_release_alone(); everything
	 * else out of line */
	int kind = __atomic_load_n(&pm->kind, __ATOMIC_RELAXED);
	if (__builtin_expect(kind == PTHREAD_MUTEX_NORMAL && word_release_alone(pm), 1))
		return 0;
	return mutex_unlock_slow(m, kind);
}

/* ---- for the condition variables --------------------------------------- */

int preload_mutex_release_for_wait(pthread_mutex_t *m)
{
	struct pmutex *pm = pm_of(m);
	int type = type_of(pm);
	int count = 1;
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK) {
		if (__atomic_load_n(&pm->owner, __ATOMIC_RELAXED) != SELF)
			return -EPERM;
		if (type == PTHREAD_MUTEX_RECURSIVE)
			count = (int)pm->count;
		pm->count = 0;
		__atomic_store_n(&pm->owner, 0, __ATOMIC_RELAXED);
	}
	word_unlock(pm);
	return count;
}

/*
 * The retake at the end of a condvar wait does not spin: if the mutex is
 * held, the waiter sleeps on it at once (after glibc, whose condvar
 * retakes a normal mutex with lll_cond_lock: mark it contended and
 * FUTEX_WAIT, nptl/pthread_mutex_cond_lock.c).  A waiter woken from a
 * condvar is often one of many woken at once (a broadcast), and the
 * signaller, which usually holds the mutex, needs a CPU to release it:
 * on this 2-vCPU guest, an 8-thread condvar broadcast barrier
 * (test_preload_helper barrier 8 2000, 20 alternating runs) took 1.25x
 * glibc's wall time with the spin and 0.93x without it; the 2-thread
 * ping-pong, 0.93x and 0.99x (15 runs; its noise is about 5 %).
 * Spinning only while no sleeper was counted on the mutex gave 1.07x
 * and 1.02x.
 */
void preload_mutex_reacquire(pthread_mutex_t *m, int count)
{
	struct pmutex *pm = pm_of(m);
	int type = type_of(pm);
	if (!word_trylock(pm))
		(void)word_wait(pm, WAIT_SLEEP, CLOCK_REALTIME, NULL);
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK) {
		__atomic_store_n(&pm->owner, SELF, __ATOMIC_RELAXED);
		if (type == PTHREAD_MUTEX_RECURSIVE)
			pm->count = (uint32_t)count;
	}
}

/*
 * preload.h - internals of libpvspin-preload.so, the LD_PRELOAD interposer
 * that runs an unmodified program's pthread mutexes, condition variables
 * and spinlocks on pvspin locks (docs/preload.md).  Private to preload/.
 *
 * Design source: the interposition approach of LiTL (Guiroux et al.,
 * "Multicore locks: the case is not closed yet", USENIX ATC 2016) and the
 * glibc object layouts of sysdeps/nptl/bits/struct_mutex.h and
 * thread-shared-types.h (struct __pthread_mutex_s, struct
 * __pthread_cond_s), read to know which bytes a static initializer sets.
 * Every object is used IN PLACE: no side table, no allocation, so an
 * object is valid from its static initializer on, even before this
 * library's constructor ran.
 *
 * Everything here is hidden (-fvisibility=hidden plus the version script
 * preload.map); only the pthread_* wrappers, _exit/_Exit and the marker
 * pvspin_preload_marker (preload_init.c) are exported.
 */
#ifndef PVSPIN_PRELOAD_H
#define PVSPIN_PRELOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "pvspin/lock.h"
#include "pvspin/spinlock.h"

#define PVSPIN_EXPORT __attribute__((visibility("default")))
/** An exported wrapper on the uncontended path of every lock call
 *  (pthread_mutex_lock/unlock, pthread_spin_lock/unlock): its entry on a
 *  64-byte boundary, so that its few instructions sit in one line and
 *  the cost of a call does not move with the code around it (the same
 *  code 16 bytes further measured 5.9-6.2 ns a normal mutex pair against
 *  5.3-5.5, two threads alive). */
#define PVSPIN_EXPORT_HOT PVSPIN_EXPORT __attribute__((aligned(64)))

/* ---- the lock kind ----------------------------------------------------- */

/** The fixed kind; PVSPIN_KIND_NONE until preload_kind_resolve() ran. */
extern pvspin_kind_t preload_kind_fixed;
/** preload_kind()'s slow path, until the kind is fixed: resolve and fix
 *  it (see preload_kind()). */
pvspin_kind_t preload_kind_resolve(void);

/**
 * The kind every interposed mutex and private spinlock uses, fixed at the
 * first call: PVSPIN_LOCK if set (an unknown name is reported with the
 * valid names and the process exits with status 2, as the library does),
 * else the policy's pick (pvspin_default_kind()).  Called re-entrantly
 * while it resolves (a policy that takes an interposed lock), the nested
 * call fixes tas for the whole process, so one kind is used from a lock's
 * first use to its last.  Thread-safe; async-signal-safe once fixed.
 * Inline: every interposed lock, trylock and unlock asks, so once the
 * kind is fixed the answer is one load, without a call.
 */
static inline pvspin_kind_t preload_kind(void)
{
	pvspin_kind_t k = __atomic_load_n(&preload_kind_fixed, __ATOMIC_ACQUIRE);
	if (__builtin_expect(k != PVSPIN_KIND_NONE, 1))
		return k;
	return preload_kind_resolve();
}

/* ---- counters (PVSPIN_STATS=1) ------------------------------------------ */

/** Non-zero when PVSPIN_STATS=1 asked for the counters (read lazily). */
extern int preload_stats_on;
/** Resolve preload_stats_on from the environment (first use). */
int preload_stats_enabled(void);

/** Are the counters on?  Once resolved, one relaxed load: the wrappers
 *  ask on every acquisition. */
static inline bool preload_stats_wanted(void)
{
	return __builtin_expect(__atomic_load_n(&preload_stats_on, __ATOMIC_RELAXED) != 0, 0) &&
	       preload_stats_enabled();
}

/** What the stats line counts, one array per thread slot. */
enum preload_event {
	PRELOAD_EV_ACQUIRE,            /* an acquisition of a mutex or spinlock */
	PRELOAD_EV_CONTENDED,          /* ... whose first try failed */
	PRELOAD_EV_MUTEX_SPIN_ACQUIRE, /* a mutex waiter took it while spinning */
	PRELOAD_EV_MUTEX_SLEEP,        /* a mutex FUTEX_WAIT call (it may return at once) */
	PRELOAD_EV_MUTEX_WAKE,         /* a mutex unlock's FUTEX_WAKE call */
	PRELOAD_NEVENTS
};

/** The bit of event `e` in preload_count()'s mask. */
#define PRELOAD_EV(e) (1u << (e))

/**
 * Count each event whose bit (PRELOAD_EV()) is set in `events`, once:
 * one look-up of this thread's slot for all of them, so that a thread
 * without a slot costs one slots_exhausted per call, not one per event.
 * Only called when preload_stats_wanted().  Per-thread-slot counters, no
 * shared line (slot-less threads share one, atomically).  Thread-safe.
 */
void preload_count(unsigned events);

/** Take `l` with the process's kind and count the acquisition
 *  (contended: the first try failed) when the counters are on.  The
 *  lock path of private spinlocks (mutexes wait in preload_mutex.c). */
static inline void preload_word_lock(pvspin_lock_t *l)
{
	pvspin_kind_t k = preload_kind();
	if (preload_stats_wanted()) {
		bool contended = !pvspin_kind_trylock(k, l);
		if (contended)
			pvspin_kind_lock(k, l);
		preload_count(PRELOAD_EV(PRELOAD_EV_ACQUIRE) |
			      (contended ? PRELOAD_EV(PRELOAD_EV_CONTENDED) : 0));
		return;
	}
	pvspin_kind_lock(k, l);
}

/** Try `l` once with the process's kind; count a success when the
 *  counters are on.  True if taken. */
static inline bool preload_word_trylock(pvspin_lock_t *l)
{
	bool ok = pvspin_kind_trylock(preload_kind(), l);
	if (ok && preload_stats_wanted())
		preload_count(PRELOAD_EV(PRELOAD_EV_ACQUIRE));
	return ok;
}

/* ---- the real (glibc) functions, for objects passed through ----------- */

/** The glibc functions the wrappers forward to.  Resolved with
 *  dlvsym(RTLD_NEXT, name, glibc version) (dlsym as fallback) in the
 *  constructor, or at the first pass-through call if that comes first. */
struct preload_real {
	int (*mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
	int (*mutex_destroy)(pthread_mutex_t *);
	int (*mutex_lock)(pthread_mutex_t *);
	int (*mutex_trylock)(pthread_mutex_t *);
	int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
	int (*mutex_unlock)(pthread_mutex_t *);
	int (*cond_init)(pthread_cond_t *, const pthread_condattr_t *);
	int (*cond_destroy)(pthread_cond_t *);
	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
			      const struct timespec *);
	int (*cond_signal)(pthread_cond_t *);
	int (*cond_broadcast)(pthread_cond_t *);
};

/**
 * The resolved table, or NULL when it cannot be had now: this thread is
 * inside the resolution itself (dlsym calling an interposed malloc that
 * locks a pass-through mutex).  The callers then return EAGAIN for that
 * one call rather than recurse.  Thread-safe.
 */
const struct preload_real *preload_real(void);

/* ---- mutex internals shared with the condvar ---------------------------- */

/** glibc's __kind bits that make a mutex pass-through: robust (0x10),
 *  priority inheritance (0x20), priority protect (0x40), process-shared
 *  (0x80).  A destroyed mutex has __kind -1: passed through as well, so
 *  glibc reports EINVAL exactly as without the interposer. */
#define PRELOAD_MUTEX_PASSTHROUGH_BITS 0xf0

/** Is `m` handled by glibc (see PRELOAD_MUTEX_PASSTHROUGH_BITS)? */
static inline bool preload_mutex_is_passthrough(const pthread_mutex_t *m)
{
	return (__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) &
		PRELOAD_MUTEX_PASSTHROUGH_BITS) != 0;
}

/**
 * For pthread_cond_*wait on an interposed mutex: release it completely
 * (all recursion levels) and return the count to give back to
 * preload_mutex_reacquire(), or -EPERM if this thread may not release it
 * (error-checking or recursive mutex not owned by the caller).
 */
int preload_mutex_release_for_wait(pthread_mutex_t *m);
/** Take `m` again after a condvar wait and restore the recursion count
 *  `count` (from preload_mutex_release_for_wait()).  Does not spin: a
 *  held mutex is slept on at once (preload_mutex.c).  Blocks until taken;
 *  no error. */
void preload_mutex_reacquire(pthread_mutex_t *m, int count);

/* ---- futex helpers ------------------------------------------------------ */

/**
 * FUTEX_WAIT_BITSET_PRIVATE on `word` while it holds `val`, until `abstime`
 * on `clock` (CLOCK_REALTIME or CLOCK_MONOTONIC; NULL: no timeout).
 * Returns 0 (woken, value changed, or spurious), ETIMEDOUT, or EINTR.
 */
int preload_futex_wait(uint32_t *word, uint32_t val, clockid_t clock,
		       const struct timespec *abstime);
/** FUTEX_WAKE_PRIVATE up to `n` waiters on `word`. */
void preload_futex_wake(uint32_t *word, int n);

/** glibc's valid_nanoseconds(): 0 <= tv_nsec < 1e9. */
static inline bool preload_valid_timespec(const struct timespec *ts)
{
	return ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000L;
}

/** Clocks a timed wait accepts (glibc futex_abstimed_supported_clockid). */
static inline bool preload_valid_clock(clockid_t c)
{
	return c == CLOCK_REALTIME || c == CLOCK_MONOTONIC;
}

#endif /* PVSPIN_PRELOAD_H */

/*
 * pvspin/platform_native.h - native backend of the platform interface:
 * real threads on a real (or virtual) machine.
 *
 * Memory operations are GCC/Clang __atomic builtins on plain integers (the
 * C11 memory model; mixed 8/16/32-bit accesses to one lock word are what
 * the Linux qspinlock does and are well defined on every little-endian
 * target GCC supports with native byte and halfword atomics).
 * pvspin_plat_cpu_relax() is PAUSE on x86, YIELD on arm64.
 * Halt and kick are futexes (FUTEX_WAIT_PRIVATE / FUTEX_WAKE_PRIVATE) on a
 * per-slot word, so a kick sent before the halt is never lost
 * (src/platform/native.c).
 *
 * Not a stable API: see pvspin/platform.h.  Thread-safe: every operation.
 */
#ifndef PVSPIN_PLATFORM_NATIVE_H
#define PVSPIN_PLATFORM_NATIVE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PVSPIN_PLAT_INLINE static inline __attribute__((always_inline))

/* ---- memory: loads, stores, read-modify-writes ---------------------- */

#define PVSPIN_PLAT_DEFINE_WIDTH(W, T)                                          \
	PVSPIN_PLAT_INLINE T pvspin_plat_load##W(const T *p, int mo)            \
	{ return __atomic_load_n(p, mo); }                                      \
	PVSPIN_PLAT_INLINE void pvspin_plat_store##W(T *p, T v, int mo)         \
	{ __atomic_store_n(p, v, mo); }                                         \
	PVSPIN_PLAT_INLINE bool pvspin_plat_cmpxchg##W(T *p, T *old, T nv, int mo) \
	{ return __atomic_compare_exchange_n(p, old, nv, false, mo,             \
			mo == __ATOMIC_RELEASE ? __ATOMIC_RELAXED :             \
			mo == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE : mo); }      \
	PVSPIN_PLAT_INLINE T pvspin_plat_xchg##W(T *p, T v, int mo)             \
	{ return __atomic_exchange_n(p, v, mo); }

PVSPIN_PLAT_DEFINE_WIDTH(8, uint8_t)
PVSPIN_PLAT_DEFINE_WIDTH(16, uint16_t)
PVSPIN_PLAT_DEFINE_WIDTH(32, uint32_t)
#undef PVSPIN_PLAT_DEFINE_WIDTH

PVSPIN_PLAT_INLINE void *pvspin_plat_loadptr(void *const *p, int mo)
{ return __atomic_load_n(p, mo); }
PVSPIN_PLAT_INLINE void pvspin_plat_storeptr(void **p, void *v, int mo)
{ __atomic_store_n(p, v, mo); }
PVSPIN_PLAT_INLINE bool pvspin_plat_cmpxchgptr(void **p, void **old, void *nv, int mo)
{
	return __atomic_compare_exchange_n(p, old, nv, false, mo,
			mo == __ATOMIC_RELEASE ? __ATOMIC_RELAXED :
			mo == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE : mo);
}

PVSPIN_PLAT_INLINE uint32_t pvspin_plat_fetch_add32(uint32_t *p, uint32_t v, int mo)
{ return __atomic_fetch_add(p, v, mo); }
PVSPIN_PLAT_INLINE uint32_t pvspin_plat_fetch_or32(uint32_t *p, uint32_t v, int mo)
{ return __atomic_fetch_or(p, v, mo); }
PVSPIN_PLAT_INLINE uint32_t pvspin_plat_fetch_and32(uint32_t *p, uint32_t v, int mo)
{ return __atomic_fetch_and(p, v, mo); }

/** Compiler barrier: orders this thread against its own signal handlers
 *  (the MCS node nesting count, after the kernel's barrier()). */
PVSPIN_PLAT_INLINE void pvspin_plat_barrier(void)
{ __atomic_signal_fence(__ATOMIC_SEQ_CST); }

/* ---- spinning -------------------------------------------------------- */

/** One spin-loop iteration hint (x86 PAUSE: about 10-140 cycles by model). */
PVSPIN_PLAT_INLINE void pvspin_plat_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/**
 * Spin until done(*p, arg) is true, at most max_loops PAUSE iterations
 * (PVSPIN_WAIT_FOREVER: no bound).  *val receives the last word read;
 * *spent (if not NULL) the PAUSE loops used.  Returns true when the
 * condition held (the final load has acquire ordering), false when the loop
 * bound ran out.  The simulator backend parks the caller until the cache
 * line is written instead of stepping the loop, and charges the loops.
 */
PVSPIN_PLAT_INLINE bool pvspin_plat_wait32(const uint32_t *p, pvspin_plat_pred_t done,
					   uint32_t arg, uint32_t max_loops,
					   uint32_t *val, uint32_t *spent)
{
	uint32_t loops = 0;
	bool ok;
	for (;;) {
		uint32_t v = __atomic_load_n(p, __ATOMIC_ACQUIRE);
		if (done(v, arg)) {
			*val = v;
			ok = true;
			break;
		}
		if (max_loops && loops >= max_loops) {
			*val = v;
			ok = false;
			break;
		}
		loops++;
		pvspin_plat_cpu_relax();
	}
	if (spent)
		*spent = loops;
	return ok;
}

/** Spin until *p is not NULL; returns it (acquire).  Used for the short
 *  window between a successor's tail exchange and its link. */
PVSPIN_PLAT_INLINE void *pvspin_plat_waitptr(void *const *p)
{
	void *v;
	while (!(v = __atomic_load_n(p, __ATOMIC_ACQUIRE)))
		pvspin_plat_cpu_relax();
	return v;
}

/* ---- CPUs, halt and kick: out of line, src/platform/native.c --------- */

/**
 * This thread's CPU slot in [0, PVSPIN_MAX_CPUS), allocated on first use and
 * returned to the pool when the thread exits; -1 when every slot is taken
 * (the caller must then lock without an MCS node).  Async-signal-safe once
 * the thread has a slot.
 */
int pvspin_plat_cpu(void);

/**
 * pv_wait: halt the calling thread while *ptr == val.  Returns at once if
 * *ptr != val or if a kick is pending for this slot (a kick sent before the
 * halt is consumed, never lost).  May return spuriously; callers re-check.
 * Needs a slot (pvspin_plat_cpu() >= 0).
 */
void pvspin_plat_pv_wait(uint8_t *ptr, uint8_t val);

/** pv_kick: wake slot `cpu` from pvspin_plat_pv_wait(), or make its next
 *  pv_wait return at once.  Thread-safe; one FUTEX_WAKE at most. */
void pvspin_plat_pv_kick(int cpu);

/** Is slot `cpu`'s thread known to be off-CPU?  Natively pvspin only knows
 *  that of threads halted in pv_wait. */
bool pvspin_plat_vcpu_is_preempted(int cpu);

/** The key a side table hashes a lock by (src/lock/lock_hash.h): natively
 *  its address.  (The simulator's is an address that does not depend on
 *  where the host's ASLR put its memory, so that a seed runs the same in
 *  every process.)  Pure, thread-safe. */
PVSPIN_PLAT_INLINE uintptr_t pvspin_plat_lock_key(const void *lock)
{
	return (uintptr_t)lock;
}

/* ---- parking on an address, time, CPUs: the spin-then-park kind ------- */

/** Monotonic time in ns (CLOCK_MONOTONIC through the vDSO: ~20-50 ns).
 *  Async-signal-safe. */
uint64_t pvspin_plat_now_ns(void);

/**
 * Sleep while *p == val: FUTEX_WAIT_PRIVATE on the 4-byte word p (aligned),
 * at most timeout_ns (relative; 0 = no timeout).  Returns at once if
 * *p != val when the kernel checks it (atomically with queueing, so a
 * change followed by pvspin_plat_unpark32() is never missed).  Returns 0
 * (woken, value changed, signal or spurious) or PVSPIN_PARK_TIMEDOUT.
 * Callers re-check the word.  Needs no thread slot; async-signal-safe.
 */
int pvspin_plat_park32(uint32_t *p, uint32_t val, uint64_t timeout_ns);

/** Wake up to n threads sleeping in pvspin_plat_park32(p, ...)
 *  (FUTEX_WAKE_PRIVATE: the kernel wakes the highest priority first, FIFO
 *  among equals).  Returns the number woken.  Thread-safe. */
uint32_t pvspin_plat_unpark32(uint32_t *p, uint32_t n);

/* A ThreadSanitizer build (gcc's macro, or clang's feature test)? */
#if defined(__SANITIZE_THREAD__)
#define PVSPIN_PLAT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PVSPIN_PLAT_TSAN 1
#endif
#endif

#ifdef PVSPIN_PLAT_TSAN
/** The word pvspin_plat_fence_full() updates in ThreadSanitizer builds
 *  (never read; 0).  Declared and defined (src/platform/native.c) only
 *  in those builds, hidden: one per shared object, exported by none, as
 *  the fences that pair through it are all inside one.  Not for use by
 *  programs. */
extern uint32_t pvspin_plat_fence_word __attribute__((visibility("hidden")));
#endif

/** A full memory fence (StoreLoad included: `mfence`, or a locked RMW,
 *  on x86; some 10-40 cycles): the stores before it are visible to every
 *  CPU before any load after it.  For a slow path that must order a
 *  store against a later load of another word. */
PVSPIN_PLAT_INLINE void pvspin_plat_fence_full(void)
{
#ifdef PVSPIN_PLAT_TSAN
	/* ThreadSanitizer does not model fences (gcc: -Wtsan).  A seq_cst
	 * RMW on one word (one per shared object or program) is a full fence
	 * on x86 too, and TSan sees every pair of such fences synchronize
	 * through the word. */
	(void)__atomic_fetch_add(&pvspin_plat_fence_word, 0, __ATOMIC_SEQ_CST);
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/** The cheap side of an asymmetric StoreLoad fence: a compiler barrier
 *  only, no instruction.  Correct only against a pvspin_plat_fence_heavy()
 *  on the other side that returned true (see there). */
PVSPIN_PLAT_INLINE void pvspin_plat_fence_light(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/**
 * The expensive side of an asymmetric StoreLoad fence, after userspace
 * RCU's use of membarrier(2) (liburcu; Desnoyers et al., "User-Level
 * Implementations of Read-Copy Update", IEEE TPDS 2012):
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED runs a full memory barrier on every
 * CPU that runs a thread of this process (0.4 us alone, 4.6 us with a
 * second thread running, measured on the 2-vCPU development guest: an
 * IPI).  After it returns, every other thread's program is split at one
 * point: its accesses before that point are visible to the caller's
 * accesses after the call, and its accesses after it see the caller's
 * before the call, as if each pvspin_plat_fence_light() of that thread
 * had been a full fence.  Returns false, doing nothing, where
 * pvspin_plat_fence_heavy_available() is false (or the call failed): the
 * caller must then not rely on the pairing.  Async-signal-safe (one
 * system call); thread-safe.
 */
bool pvspin_plat_fence_heavy(void);

/**
 * Does pvspin_plat_fence_heavy() work in this process?  Decided once,
 * while the process has one thread: when the library is loaded (a
 * constructor, before main for a library linked or preloaded) and again in
 * every fork child, the process registers for membarrier's private
 * expedited command (cheap while single-threaded: a few us here).  A
 * library loaded with dlopen() into a process already running threads
 * does not register (registering then waits for an RCU grace period,
 * 12-15 ms here) and answers false for the life of the process, so the
 * answer never changes while other threads run and may act on it; so do
 * a kernel without membarrier (before 4.14), a seccomp filter that
 * refuses it, and PVSPIN_NO_MEMBARRIER=1 in the environment at load (for
 * tests and comparisons).  The locks do not ask: the park sequence's mode
 * (pvspin_plat_park_seq()) says what they need; this is the native
 * platform's own, and its tests'.  Thread-safe; async-signal-safe (a
 * load).
 */
bool pvspin_plat_fence_heavy_available(void);

/** The park sequence word (pvspin_plat_park_seq()); 64-byte aligned,
 *  defined in src/platform/native.c.  Not for use by programs. */
extern uint32_t pvspin_plat_park_seq_word;

/** The park sequence of this process: bit 0 (PVSPIN_PARK_SEQ_RMW_RELEASE)
 *  is set for the life of the process where releases are to be RMWs
 *  (fixed by the library's constructor: no pvspin_plat_fence_heavy(), or
 *  more than PVSPIN_PARK_SEQ_STORE_MAX_CPUS CPUs); else the other bits
 *  count, modulo 2^31, the sleeps of waiters that pair with a plain-store
 *  release (each adds PVSPIN_PARK_SEQ_ONE, then calls
 *  pvspin_plat_fence_heavy(), then sleeps).  An unlock reads it before
 *  its read of the lock word and, in store mode, again after its release:
 *  if it moved, a sleeper may have missed the release (spinpark).
 *  Written only by sleepers in store mode, so the line stays in every
 *  CPU's cache while nobody sleeps, and always in RMW mode.  Thread-safe
 *  (atomics); never write it but by adding PVSPIN_PARK_SEQ_ONE. */
PVSPIN_PLAT_INLINE uint32_t *pvspin_plat_park_seq(void)
{
	return &pvspin_plat_park_seq_word;
}

/** CPUs this process's threads may run on now (>= 1): the count of the
 *  calling thread's affinity mask united with the thread group leader's
 *  (so a thread pinned to one CPU still sees the CPUs a holder may run
 *  on), re-read every 4096 calls.  Thread-safe. */
uint32_t pvspin_plat_spin_cpus(void);

/**
 * Ask the kernel not to preempt the calling thread for a few microseconds
 * while it holds `lock`: the rseq time-slice extension of Linux 7.0
 * (PR_RSEQ_SLICE_EXTENSION; Documentation/userspace-api/rseq.rst).  Sets
 * rseq::slice_ctrl.request (not while a grant is active: the kernel
 * cleared the request when it granted) and remembers `lock` as the one
 * the request is for.  On the thread's first call it enables the
 * extension (prctl); where the kernel or the C library does not offer it
 * (Linux before 7.0: EINVAL; no rseq area) it does nothing, then and ever
 * after (one failed prctl per process).  Returns true if the thread has
 * the extension (a request for `lock` is pending, or a grant is active),
 * so that the caller's unlock must call pvspin_plat_slice_ext_end();
 * false where it is not offered.  Async-signal-safe; thread-local state
 * (src/platform/native_slice_ext.c).
 */
bool pvspin_plat_slice_ext_begin(const void *lock);

/** Nonzero once the kernel has enabled the extension for some thread of
 *  this process (sticky; native_slice_ext.c).  Internal to the library. */
extern int pvspin_plat_slice_ext_used __attribute__((visibility("hidden")));

/** pvspin_plat_slice_ext_end() past its check (native_slice_ext.c). */
void pvspin_plat_slice_ext_end_slow(const void *lock);

/** At the unlock of `lock`: if the request of pvspin_plat_slice_ext_begin()
 *  is for `lock`, withdraw it, and if the kernel granted an extension
 *  meanwhile (it deferred a preemption), give the CPU back with
 *  rseq_slice_yield(2) and count PVSPIN_EV_SLICE_EXT_YIELD.  The unlock
 *  of another lock (nested inside) leaves it.  Where no thread of the
 *  process has the extension (every kernel before 7.0), one load of a
 *  process-wide flag and no call (a call into the shared library plus its
 *  thread-local lookup, __tls_get_addr, costs more than the request is
 *  worth where it cannot be granted).  Async-signal-safe. */
PVSPIN_PLAT_INLINE void pvspin_plat_slice_ext_end(const void *lock)
{
	if (__builtin_expect(__atomic_load_n(&pvspin_plat_slice_ext_used, __ATOMIC_RELAXED), 0))
		pvspin_plat_slice_ext_end_slow(lock);
}

/** Count one lock event (relaxed increment of this slot's counter). */
void pvspin_plat_event(int ev);

/** Count `n` lock events at once (after the kernel's lockevent_add());
 *  relaxed add to this slot's counter.  An unknown `ev` is ignored. */
void pvspin_plat_event_add(int ev, uint64_t n);

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_PLATFORM_NATIVE_H */

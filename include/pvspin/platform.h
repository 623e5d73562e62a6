/*
 * pvspin/platform.h - the platform interface every lock algorithm is written
 * against (docs/design.md section 3).
 *
 * A lock algorithm in pvspin touches shared memory, spins, halts (pv_wait),
 * kicks (pv_kick), finds its CPU slot and asks whether another CPU runs ONLY
 * through the operations declared by the selected backend:
 *
 *   native backend (default):  include/pvspin/platform_native.h
 *       C11-model __atomic builtins, PAUSE, FUTEX_WAIT/WAKE_PRIVATE,
 *       thread slots.  This is what applications link against.
 *   simulator backend:         sim/sim_platform.h (PVSPIN_PLATFORM_SIM)
 *       the same names, implemented by the hypervisor simulator: every
 *       operation is a simulated event with a cost.
 *
 * Both backends provide exactly this set of names (the contract):
 *
 *   memory, one function per width W in {8, 16, 32, ptr}; `mo` is one of
 *   PVSPIN_RELAXED, PVSPIN_ACQUIRE, PVSPIN_RELEASE, PVSPIN_ACQ_REL,
 *   PVSPIN_SEQ_CST:
 *     pvspin_plat_loadW(p, mo)              -> value
 *     pvspin_plat_storeW(p, v, mo)
 *     pvspin_plat_cmpxchgW(p, &old, new, mo) -> bool; on failure *old = seen
 *     pvspin_plat_xchgW(p, v, mo)           -> previous value   (W != ptr)
 *     pvspin_plat_fetch_add32 / fetch_or32 / fetch_and32(p, v, mo) -> previous
 *   spinning:
 *     pvspin_plat_cpu_relax()                one PAUSE
 *     pvspin_plat_barrier()                  compiler barrier (signal handlers)
 *     pvspin_plat_wait32(p, done, arg, max_loops, &val, &spent) -> bool
 *         spin until done(*p, arg), at most max_loops PAUSEs (0 = no
 *         bound); acquire on success; *spent (if not NULL) = loops used.
 *     pvspin_plat_waitptr(pp) -> ptr        spin until *pp != NULL (acquire)
 *   CPUs, halt and kick (out of line):
 *     pvspin_plat_cpu()                      this thread's slot, or -1
 *     pvspin_plat_pv_wait(ptr8, val)         halt while *ptr8 == val
 *     pvspin_plat_pv_kick(cpu)               wake cpu's halt
 *     pvspin_plat_vcpu_is_preempted(cpu)     is that CPU off its pCPU
 *     pvspin_plat_event(ev)                  count one lock event
 *     pvspin_plat_event_add(ev, n)           count n lock events
 *   parking on an address, time and CPUs (the spin-then-park kind):
 *     pvspin_plat_now_ns()                   monotonic time, ns
 *     pvspin_plat_park32(p, val, timeout_ns) -> 0 | PVSPIN_PARK_TIMEDOUT
 *         sleep while *p == val (a futex wait), at most timeout_ns
 *         (0: no timeout); may return spuriously
 *     pvspin_plat_unpark32(p, n)             -> threads woken (<= n)
 *     pvspin_plat_fence_full()               a full (StoreLoad) fence
 *     pvspin_plat_fence_light()              the cheap side of an
 *     pvspin_plat_fence_heavy()  -> bool     asymmetric StoreLoad fence
 *         (compiler barrier / membarrier(2)); false: no heavy side here,
 *         the caller must not rely on the pairing
 *     pvspin_plat_park_seq() -> uint32_t *   the park sequence: bit 0
 *         (PVSPIN_PARK_SEQ_RMW_RELEASE) set where releases are to be
 *         RMWs (no fence_heavy, or more than
 *         PVSPIN_PARK_SEQ_STORE_MAX_CPUS CPUs); else sleepers add
 *         PVSPIN_PARK_SEQ_ONE (one word per process, one per VM in the
 *         simulator)
 *     pvspin_plat_spin_cpus()                CPUs this process may run
 *         on now (>= 1): the bound on useful spinners
 *   the holder's time slice (Linux 7.0 rseq time-slice extension):
 *     pvspin_plat_slice_ext_begin(lock) -> bool  ask not to be
 *         preempted for a few us while holding `lock`; false (nothing
 *         done) where not offered
 *     pvspin_plat_slice_ext_end(lock)        on `lock`'s unlock: withdraw
 *         the request; give the CPU back if the kernel deferred a
 *         preemption for it
 *
 * This header is installed because the inline fast paths of the lock headers
 * need it; it is not part of the stable API.  Applications call the lock
 * functions of pvspin/lock.h and friends, never pvspin_plat_*.
 */
#ifndef PVSPIN_PLATFORM_H
#define PVSPIN_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Memory orders of the platform operations (same meaning as C11's). */
#define PVSPIN_RELAXED __ATOMIC_RELAXED
#define PVSPIN_ACQUIRE __ATOMIC_ACQUIRE
#define PVSPIN_RELEASE __ATOMIC_RELEASE
#define PVSPIN_ACQ_REL __ATOMIC_ACQ_REL

#define PVSPIN_SEQ_CST __ATOMIC_SEQ_CST

/** Condition of pvspin_plat_wait32(): a pure function of the word read and
 *  a caller argument, true when the wait is over.  Written as a small
 *  static function in the algorithm file (inlined by the native backend,
 *  re-evaluated on every write of the line by the simulator). */
typedef bool (*pvspin_plat_pred_t)(uint32_t val, uint32_t arg);

/** Most CPU slots (thread slots natively, vCPUs in the simulator); the tail
 *  CPU field allows up to 16383. */
#ifndef PVSPIN_MAX_CPUS
#define PVSPIN_MAX_CPUS 4096
#endif

/** pvspin_plat_park_seq()'s bit 0, fixed for the life of the process
 *  (decided at load, while it has one thread; a fork child inherits it):
 *  a lock that can pair a plain-store release with its sleepers'
 *  pvspin_plat_fence_heavy() (spinpark) releases by an atomic RMW
 *  instead, and its sleepers neither fence nor add to the sequence.  Set
 *  where the fence does not work, and where the process may run on more
 *  than PVSPIN_PARK_SEQ_STORE_MAX_CPUS CPUs. */
#define PVSPIN_PARK_SEQ_RMW_RELEASE 0x1u
/** What a thread about to sleep on a lock word adds to
 *  *pvspin_plat_park_seq() before its pvspin_plat_fence_heavy(). */
#define PVSPIN_PARK_SEQ_ONE 0x2u
/** Most CPUs (the process's affinity at load; a VM's vCPUs in the
 *  simulator) for plain-store releases.  The pairing's costs grow with
 *  the CPUs: a membarrier sends an IPI to each CPU that runs a thread of
 *  the process (4.6 us here for one), and every unlock reads the park
 *  sequence, whose line each sleep takes away from every CPU.  In
 *  `pvspin sim` (spawn-dedicated, one hot lock, seeds 1-3, both modes
 *  forced) they cost 9 % at 120 vCPUs on the Intel profile (1.30 against
 *  1.43 M ops/s) and 16 % on AMD (0.97 against 1.16 M); at 8 and 32
 *  vCPUs, where that lock is not contended, nothing.  What the store
 *  gains, a release that does not wait for the lock's line, is a line
 *  transfer per contended release, which the simulator, charging a store
 *  as it charges an RMW, cannot weigh.  So the store is kept to the small
 *  machines where it was measured (2 CPUs, docs/spinpark.md). */
#define PVSPIN_PARK_SEQ_STORE_MAX_CPUS 8u

/** The park sequence's release mode for a process that has the
 *  asymmetric fence or not (`fence`) and may run on `cpus` CPUs: 0 (plain
 *  stores) or PVSPIN_PARK_SEQ_RMW_RELEASE.  The one rule, for the native
 *  platform's constructor and the simulator's VMs.  Pure. */
static inline uint32_t pvspin_plat_park_seq_mode(bool fence, uint32_t cpus)
{
	return fence && cpus <= PVSPIN_PARK_SEQ_STORE_MAX_CPUS ? 0 : PVSPIN_PARK_SEQ_RMW_RELEASE;
}

/** Loop bound of pvspin_plat_wait32() meaning "no bound". */
#define PVSPIN_WAIT_FOREVER 0u

/** pvspin_plat_park32() result: the timeout ran out (ETIMEDOUT). */
#define PVSPIN_PARK_TIMEDOUT 110

/** Lock events, after Linux kernel/locking/lock_events_list.h.  Counted by
 *  pvspin_plat_event() / pvspin_plat_event_add(); read with pvspin_events_read() (pvspin/stats.h). */
enum pvspin_event {
	PVSPIN_EV_PV_WAIT_NODE,      /* halts of queued (non-head) waiters */
	PVSPIN_EV_PV_WAIT_HEAD,      /* halts of the queue head */
	PVSPIN_EV_PV_WAIT_AGAIN,     /* head halted again after a wakeup */
	PVSPIN_EV_PV_WAIT_EARLY,     /* non-head halted early: predecessor not running */
	PVSPIN_EV_PV_KICK_UNLOCK,    /* kicks issued by the unlock slow path */
	PVSPIN_EV_PV_KICK_WAKE,      /* halts ended by a kick (wake side) */
	PVSPIN_EV_PV_SPURIOUS_WAKEUP,/* non-head woke without the MCS baton */
	PVSPIN_EV_PV_LOCK_STEALING,  /* acquisitions by the hybrid unfair trylock */
	PVSPIN_EV_PV_HASH_HOPS,      /* extra probe steps in the lock->node hash */
	PVSPIN_EV_LOCK_PENDING,      /* acquisitions through the pending bit */
	PVSPIN_EV_LOCK_SLOWPATH,     /* entries into the MCS queue */
	PVSPIN_EV_LOCK_NO_NODE,      /* acquisitions without an MCS node (nesting > 4 or no slot) */
	PVSPIN_EV_LOCK_NO_NODE_SLEEP,/* timed sleeps of a waiter without an MCS node */
	PVSPIN_EV_SPIN_ACQUIRE,      /* spinpark: acquisitions by a spinning waiter */
	PVSPIN_EV_SPIN_FAIL,         /* spinpark: spins that ran out of budget */
	PVSPIN_EV_PARK,              /* spinpark: sleeps (park32 calls) of waiters */
	PVSPIN_EV_UNPARK,            /* spinpark: wake-ups sent by unlock */
	PVSPIN_EV_HANDOFF,           /* spinpark: locks handed to a waiter (the starving spinner) */
	PVSPIN_EV_STARVING,          /* spinpark: a parked waiter waited past the starvation bound */
	PVSPIN_EV_SLICE_EXT_YIELD,   /* spinpark: rseq time-slice extensions granted to a holder and given back (rseq_slice_yield) */
	PVSPIN_EV_HANDOFF_REVOKE,    /* spinpark: hand-offs that no owner took for a sleep's timeout, taken by a parked waiter */
	PVSPIN_EV_SLICE_PROBE,       /* spinpark: probes of a lock's mode controller (shared, then slices) */
	PVSPIN_EV_SLICE_ON,          /* spinpark: choices of slice mode by a lock's mode controller */
	PVSPIN_EV_SLICE_SLEEP,       /* spinpark: sleeps of waiters that found a lock in slice mode held */
	PVSPIN_EV_SLICE_PASS,        /* spinpark: turns of a sliced lock passed to a sleeper by count */
	PVSPIN_EV_COUNT
};

#if defined(PVSPIN_PLATFORM_SIM)
#include "sim_platform.h"
#else
#include "pvspin/platform_native.h"
#endif

#endif /* PVSPIN_PLATFORM_H */

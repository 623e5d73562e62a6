/*
 * sim_platform.h - simulator backend of the pvspin platform interface
 * (include/pvspin/platform.h, selected by -DPVSPIN_PLATFORM_SIM).
 *
 * Same names and signatures as include/pvspin/platform_native.h, but every
 * operation is an out-of-line call into the hypervisor simulator (memory
 * and spin-waits: sim/sim_memory.c; the rest: sim/sim_kvm.c): the memory
 * operation is performed on real memory (all simulated vCPUs are coroutines on ONE host thread, so plain accesses are
 * exact and the simulated memory model is sequentially consistent), its cost
 * is charged from the coherence model of the active cost profile, and the
 * calling vCPU yields to the scheduler until the operation completes in
 * simulated time.  Memory-order arguments are accepted and ignored.
 *
 * pvspin_plat_wait32()/waitptr() park the vCPU until the watched cache line
 * is written (the predicate is re-evaluated on each write) or until
 * max_loops x PAUSE of RUNNING time have passed: spinning is charged, not
 * stepped.  Pause-loop exiting watches the same spin time.
 *
 * Called outside a simulated vCPU (set-up code on the host thread), the
 * memory operations act on memory at no cost and pvspin_plat_cpu() is -1.
 * Not thread-safe: the simulator is single-threaded by design.
 */
#ifndef PVSPIN_SIM_PLATFORM_H
#define PVSPIN_SIM_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PVSPIN_SIM_DECLARE_WIDTH(W, T)                                        \
	T pvspin_plat_load##W(const T *p, int mo);                            \
	void pvspin_plat_store##W(T *p, T v, int mo);                         \
	bool pvspin_plat_cmpxchg##W(T *p, T *old, T nv, int mo);              \
	T pvspin_plat_xchg##W(T *p, T v, int mo);

PVSPIN_SIM_DECLARE_WIDTH(8, uint8_t)
PVSPIN_SIM_DECLARE_WIDTH(16, uint16_t)
PVSPIN_SIM_DECLARE_WIDTH(32, uint32_t)
#undef PVSPIN_SIM_DECLARE_WIDTH

void *pvspin_plat_loadptr(void *const *p, int mo);
void pvspin_plat_storeptr(void **p, void *v, int mo);
bool pvspin_plat_cmpxchgptr(void **p, void **old, void *nv, int mo);

uint32_t pvspin_plat_fetch_add32(uint32_t *p, uint32_t v, int mo);
uint32_t pvspin_plat_fetch_or32(uint32_t *p, uint32_t v, int mo);
uint32_t pvspin_plat_fetch_and32(uint32_t *p, uint32_t v, int mo);

/** Compiler barrier (no simulated cost; there is no preemption between
 *  platform operations in the simulator). */
static inline void pvspin_plat_barrier(void)
{ __atomic_signal_fence(__ATOMIC_SEQ_CST); }

/** One PAUSE: charges the profile's PAUSE cost (ns) of running time. */
void pvspin_plat_cpu_relax(void);

/** See platform_native.h; here the spinner is parked until its cache line is
 *  written or max_loops x PAUSE of running time have been charged;
 *  *spent = running spin time / PAUSE cost. */
bool pvspin_plat_wait32(const uint32_t *p, bool (*done)(uint32_t, uint32_t),
			uint32_t arg, uint32_t max_loops, uint32_t *val, uint32_t *spent);

/** Park until *p != NULL (or its line is written with a non-NULL value). */
void *pvspin_plat_waitptr(void *const *p);

/** The calling vCPU's globally unique slot (< PVSPIN_MAX_CPUS), -1 outside
 *  a vCPU. */
int pvspin_plat_cpu(void);

/** Halt (a simulated HLT exit) while *ptr == val, unless a kick is pending
 *  (consumed).  Without PV_UNHALT in the VM's features: returns at once. */
void pvspin_plat_pv_wait(uint8_t *ptr, uint8_t val);

/** KVM_HC_KICK_CPU: set the target's pending-kick flag, wake it if halted,
 *  then (kick_yield) yield to it if it is runnable and not running. */
void pvspin_plat_pv_kick(int cpu);

/** The steal-time preempted flag of vCPU slot `cpu`: runnable but not on a
 *  pCPU. */
bool pvspin_plat_vcpu_is_preempted(int cpu);

/** Count one lock event for the calling vCPU's VM. */
void pvspin_plat_event(int ev);

/** Count `n` lock events for the calling vCPU's VM (lockevent_add()). */
void pvspin_plat_event_add(int ev, uint64_t n);

/* ---- a guest thread per vCPU: clock, futex, fences --------------------
 * For lock kinds built on futex-style sleeping (sim_kvm.c).  They model a
 * guest with one thread pinned to each vCPU: a sleeping thread leaves its
 * vCPU idle (HLT), a wake-up is a reschedule IPI.  They work whatever the
 * VM's PV_UNHALT feature (it is the guest kernel's sleep, not a paravirt
 * hypercall). */

/** The calling vCPU's simulated time, ns (0 outside a vCPU).  Charges an
 *  RDTSC (~25 cycles at the profile's clock) of running time. */
/** The key a side table hashes a lock by (src/lock/lock_hash.h; native:
 *  the address): a lock in the run's lock arena (sim_engine.c, every VM's
 *  locks in one block) is keyed by its offset there, so that which side
 *  table entries the run's locks share, and so what the run measures,
 *  does not depend on where the host's ASLR put the arena: natively keyed,
 *  the same seed gave completion times differing by up to 5 % from one
 *  process to the next once spinpark's side table was read at every
 *  starving waiter's decision (kcbench-no-ple, 2 VMs).  Any other
 *  address is its own key.  Pure (sim_memory.c). */
uintptr_t pvspin_plat_lock_key(const void *lock);

uint64_t pvspin_plat_now_ns(void);

/** futex wait: if *p != val, return 0 at once (after a read of *p, charged
 *  as any load).  Else the vCPU halts, freeing its pCPU as pv_wait's halt
 *  does (the HLT exit charged, halt polling applies), until
 *  pvspin_plat_unpark32() on the same address wakes it (returns 0) or
 *  timeout_ns of simulated time have passed since the call (0: no timeout;
 *  returns ETIMEDOUT, 110).  The check of *p and the queueing are one step:
 *  an unpark after a store that made *p != val cannot be missed.  Outside a
 *  vCPU it never sleeps: 0 if *p != val, else ETIMEDOUT. */
int pvspin_plat_park32(uint32_t *p, uint32_t val, uint64_t timeout_ns);

/** futex wake: wake up to n vCPUs parked on p, in the order they parked;
 *  returns how many were woken.  The caller pays the profile's kick cost
 *  (hypercall_ns) per woken vCPU, each woken vCPU the wake-up latency of a
 *  kick's target (ipi_ns if it had left its pCPU).  No cost if none. */
uint32_t pvspin_plat_unpark32(uint32_t *p, uint32_t n);

/** A full fence: a compiler barrier, no simulated cost (memory is
 *  sequentially consistent in the simulator, and the cost model charges
 *  line transfers, not a fence's few cycles). */
static inline void pvspin_plat_fence_full(void)
{ __atomic_signal_fence(__ATOMIC_SEQ_CST); }

/** The cheap side of the asymmetric fence: a compiler barrier, no
 *  simulated cost (memory is sequentially consistent in the simulator). */
static inline void pvspin_plat_fence_light(void)
{ __atomic_signal_fence(__ATOMIC_SEQ_CST); }

/** membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED): charges the caller the
 *  system call and an IPI round to every other non-idle vCPU of its VM (a
 *  few us; the figure and its sources are in sim_kvm.c); returns true. */
bool pvspin_plat_fence_heavy(void);

/** The park sequence of the caller's VM (each VM is its own guest
 *  process; outside a vCPU, one word of the host's).  Starts with
 *  PVSPIN_PARK_SEQ_RMW_RELEASE in a VM of more than
 *  PVSPIN_PARK_SEQ_STORE_MAX_CPUS vCPUs, else at 0 (the simulated guest
 *  has the fence). */
uint32_t *pvspin_plat_park_seq(void);

/** The vCPUs of the caller's VM: the CPUs a guest thread may run on (the
 *  configured vcpus outside a vCPU). */
uint32_t pvspin_plat_spin_cpus(void);

/** The rseq time-slice extension (Linux 7.0) of a thread holding `lock`:
 *  in the machine twin (profile linux-threads, key slice_ext_us > 0) the
 *  request the scheduler honours (sim_sched.c, slice_ext_defer: a
 *  preemption of the thread is deferred once, by slice_ext_us); else
 *  nothing, as natively on a kernel before 7.0 (a hypervisor's vCPUs are
 *  not covered).  A CPU-local store: no cost (sim_kvm.c).  True where
 *  the extension is on (the unlock must then call
 *  pvspin_plat_slice_ext_end()). */
bool pvspin_plat_slice_ext_begin(const void *lock);

/** At the unlock of `lock`: withdraw the request; if a preemption was
 *  deferred, rseq_slice_yield(2): a system call's cost (the twin's
 *  vmexit_ns) and the deferred preemption happens now, counted as
 *  PVSPIN_EV_SLICE_EXT_YIELD.  Nothing where the extension is off. */
void pvspin_plat_slice_ext_end(const void *lock);

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_SIM_PLATFORM_H */

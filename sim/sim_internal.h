/*
 * sim_internal.h - the state the layers of the simulator share, and the
 * functions one layer calls in another (private to sim/).
 *
 * The machine is modelled in layers, one file each (docs/design.md 6):
 *   sim_engine.c    discrete-event engine: event heap, vCPU coroutines and
 *                   their running-time stints, set-up, the main loop
 *   sim_memory.c    cache lines and coherence costs; the memory and
 *                   spin-wait operations of the platform backend
 *   sim_sched.c     the host scheduler: run queues, virtual runtime,
 *                   slices, wake-up placement and preemption, idle pull
 *   sim_kvm.c       KVM: halt and halt polling, kick (KVM_HC_KICK_CPU),
 *                   PLE exits, directed yield, the steal-time preempted
 *                   flag; the halt / kick / CPU / event operations of the
 *                   platform backend
 *   sim_guest.c     the guest plumbing every workload uses (draws, compute,
 *                   lock enter / exit, finish) and the spinlock-loop model
 *   sim_guest_mm.c  the ebizzy-mm model: mmap_sem (a sleeping rwsem), page
 *                   faults, zone lock, TLB shootdowns, the guest idle loop
 *   sim_check.c     periodic sampling (LHP / LWP), the deadlock and
 *                   lost-wake-up checks, lock misuse
 *   sim_report.c    the text reports (deadlock dump) and the results JSON
 *
 * Simulated time is sim_time_t ns.  One instance `S` holds the run; it is
 * zeroed by setup() and teardown().  Single-threaded by design.
 */
#ifndef PVSPIN_SIM_INTERNAL_H
#define PVSPIN_SIM_INTERNAL_H

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "sim.h"
#include "pvspin/spinlock.h"
#include "pvspin/tunables.h"
#include "pvspin/stats.h"
#include "lock/qnode.h"

/** Stack of one vCPU coroutine, bytes. */
#define SIM_STACK_SIZE (64 * 1024)
/* splitmix64's output for state x (Steele, Lea, Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): seeds of the generators,
 * and the wait reservoir's stream (x, x + golden, ...). */
static inline uint64_t sim_mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* Lock waits kept per VM for the percentiles, exactly up to this many,
 * then as a uniform sample of this many (lat_add); 32 MiB of doubles. */
#ifndef SIM_LAT_KEEP
#define SIM_LAT_KEEP ((size_t)1 << 22)
#endif
/** A coroutine for `entry(arg)` on a new SIM_STACK_SIZE stack (mmap; out
 *  of memory ends the run), returning to S.main_ctx when entry returns.
 *  Returns the stack (munmap it with SIM_STACK_SIZE).  sim_engine.c. */
void *coroutine_make(ucontext_t *ctx, void (*entry)(int), int arg);

/* ---- state ------------------------------------------------------------ */

/** A vCPU's host state (who has a pCPU). */
enum vsched { VS_RUNNING, VS_READY, VS_HALTED, VS_POLLING, VS_DONE };
/** What a vCPU's current stint is: executing, spinning (parked on a
 *  line), halted. */
enum vact { VA_EXEC, VA_SPIN, VA_HALT };

struct line;

/** One simulated vCPU: its coroutine, host state, spin-wait and halt
 *  state, accounting (ns) and guest workload state. */
struct vcpu {
	int id;                      /* global slot = index into S.vcpus */
	int vm, idx;                 /* VM and index inside it */
	ucontext_t ctx;
	void *stack;
	enum vsched sched;
	enum vact act;
	int pcpu;                    /* current, or last / home pCPU */
	int pinned;                  /* pCPU or -1 */
	int rq_pos;                  /* index in its pCPU's rq, -1 if none */
	sim_time_t left;             /* running ns until the coroutine resumes */
	sim_time_t stint_start;      /* when `left` started counting down */
	uint64_t gen, ple_gen;       /* event generations (lazy cancellation) */
	sim_time_t wake_extra;       /* extra sched-in delay (wake-up IPI) */
	/* its store buffer (sim_memory.c): the last SIM_STORE_BUFFER
	 * stores, each [addr, addr + len) until its drain time */
	struct { const char *addr; unsigned len; sim_time_t until; } sb[4];
	unsigned sb_next;
	/* spin-wait */
	const void *spin_addr;
	bool spin_ptr;
	bool (*pred)(uint32_t, uint32_t);
	uint32_t arg;
	struct line *spin_line;
	struct vcpu *wnext, *wprev;
	sim_time_t spin_run;         /* running ns of the current park */
	bool spin_hit;               /* the watched line got a satisfying write */
	sim_time_t irq_until;        /* a membarrier IPI's handler runs until
					then (kvm_membarrier_ipi): a spin whose
					line changes sooner resumes only then
					(arm) */
	sim_time_t ple_acc, ple_window;
	/* halt */
	bool pv_unhalted;
	sim_time_t kicked_at;        /* kick received while not running, 0: none */
	const uint8_t *halt_ptr;     /* pv_wait(ptr, val) of the current halt */
	uint8_t halt_val;
	sim_time_t halt_since;
	bool wake_due;               /* lost-wake-up watch: condition false, */
	uint64_t wake_due_ops;       /* ... and its lock's ops at that sample */
	/* host accounting */
	int64_t vruntime;
	sim_time_t run_ns, ready_ns, ready_since, spin_ns;
	/* workload */
	gsl_rng *rng;
	long ops, quota;
	int want_lock, holds, unlocking;
	sim_time_t done_at;
	/* ebizzy-mm guest state (always false / 0 for the other workloads) */
	bool irqs_off;               /* IF=0: waits for or holds an IRQ-safe lock */
	bool in_kernel;              /* in a fault / brk (PLE: kernel mode) */
	bool guest_idle;             /* asleep on mmap_sem: idle loop, lazy TLB */
	bool resched_pending;        /* a reschedule IPI not yet taken */
	bool need_resched;           /* its guest scheduler must switch threads */
	bool steal_preempted;        /* steal-time preempted flag (set by KVM
					only on an involuntary sched-out) */
	bool tlb_pending;            /* a shootdown IPI it has not acked */
	uint32_t mm_not_taken;       /* broken_lock: locks entered without them */
	bool tlb_irqoff;             /* ... and it had IRQs off since it came */
	bool tlb_kicked;             /* ... and it was kicked, not running, then */
	sim_time_t tlb_sent_at;
	sim_time_t woken_at;         /* reschedule IPI woke it from a halt */
	/* pvspin_plat_park32() (futex wait; sim_kvm.c) */
	bool parked;                 /* in park32, queued or just woken */
	bool park_woken;             /* unparked (dequeued) */
	bool park_timed_out;         /* its timeout passed first (dequeued) */
	const uint32_t *park_addr;   /* the futex word ... */
	uint32_t park_val;           /* ... and the value it sleeps on */
	sim_time_t park_deadline;    /* simulated ns of the timeout, 0: none */
	/* rseq time-slice extension (slice_ext_us, the machine twin only) */
	bool slice_req;              /* rseq::slice_ctrl.request */
	bool slice_granted;          /* rseq::slice_ctrl.granted */
	const void *slice_owner;     /* the lock the request is for */
	uint64_t park_gen;           /* generation of its EV_PARK_TIMEOUT */
	struct vcpu *park_next, *park_prev;  /* S.park_head FIFO, in park order */
};

/** One host pCPU: its current vCPU, run queue and slice (times in ns). */
struct pcpu {
	int id, node;
	int ccx;                     /* its CCX (host-wide number), or the
					node's number without a CCX level */
	struct vcpu *curr;
	struct vcpu **rq;
	int nrq, cap;
	sim_time_t curr_since;
	sim_time_t slice_len;        /* slice of the current vCPU */
	int64_t min_vr;
	uint64_t slice_gen;
	bool slice_armed;
	sim_time_t slice_from;       /* start of the current slice */
	sim_time_t slice_jit;        /* its tick-phase draw (see slice_len) */
	sim_time_t slice_at;         /* when the armed EV_SLICE fires */
	sim_time_t tick_phase;       /* its first tick (profile tick_ns) */
	sim_time_t busy_ns;
};

/** One guest lock of a VM (its own cache line) and its bookkeeping. */
struct sim_lock {
	pvspin_lock_t word __attribute__((aligned(64)));
	int holder;                  /* vCPU slot in the critical section, -1 */
	int tmp_preempted;           /* scratch for sampling */
	bool fq_prev;                /* free + queued at the previous sample */
	uint64_t fq_ops;             /* ops at the previous sample */
	uint64_t ops;
} __attribute__((aligned(64)));

/** ebizzy-mm: the process's mm as the guest kernel has it (one per VM).
 * `count` and `tlb_left` are guest memory accessed through the platform
 * operations (so they pay the coherence model); the wait queue is only
 * touched under wait_lock (the VM's lock 0). */
#define MM_WRITER  0x80000000u   /* rwsem held for write */
#define MM_WAITERS 0x40000000u   /* wait queue not empty */
#define MM_READERS 0x3fffffffu
struct sim_mm {
	uint32_t count __attribute__((aligned(64)));
	uint32_t tlb_left __attribute__((aligned(64)));  /* acks outstanding */
	int owner;                   /* writer's slot, -1 (rwsem owner field) */
	sim_time_t write_since;      /* when the writer got it (accounting) */
	int *q;                      /* FIFO of waiting vCPU slots (ring) */
	int qhead, qlen;
};

/** One VM: its vCPUs (slots first .. first+n-1), features, locks,
 *  lock events and lock-wait samples (ns). */
struct vm {
	int id, first, n;
	pvspin_kind_t lock;          /* per-VM features (config + overrides) */
	bool ple, pv_unhalt, steal_time;
	int kick_yield;           /* enum sim_kick_yield */
	struct sim_lock *locks;
	int nlocks;
	int last_boosted;
	uint64_t events[PVSPIN_EV_COUNT];
	double *lat;                 /* lock wait samples, ns: every wait up to
				      * SIM_LAT_KEEP, then a uniform reservoir
				      * of SIM_LAT_KEEP of them (sim_guest.c) */
	size_t nlat, caplat;
	uint64_t lat_seen;           /* waits seen (> nlat once sampled) */
	double lat_sum, lat_max;     /* over every wait seen */
	uint64_t lat_rng;            /* the reservoir's own generator state */
	long ops;
	sim_time_t done_at;
	int ndone;
	struct sim_mm *mm;           /* ebizzy-mm only, else NULL */
	uint32_t *cs_data;           /* the workload's cs_lines lines per lock
					(64-byte lines), else NULL */
	/* the guest's park sequence (pvspin_plat_park_seq; its release
	 * mode set from the vCPUs at setup; only the lock code's accesses to
	 * it are charged, so the fields around it are not its line's other
	 * users) */
	uint32_t park_seq;
};

/** Coherence state of one 64-byte cache line (sim_memory.c). */
struct line {
	uintptr_t tag;               /* address >> 6 */
	uint32_t version;
	int writer;
	bool excl;                   /* only the writer holds it */
	uint64_t nodes_mask;
	int ccx;                     /* the CCX holding every copy, LINE_CCX_MANY
					if copies are in several, LINE_CCX_NONE
					before the first access */
	sim_time_t busy_until;
	struct vcpu *watchers;
	uint32_t seen[];             /* per vCPU: version it holds (0: none) */
};

#define LINE_CCX_MANY (-1)
#define LINE_CCX_NONE (-2)

/** Event kinds of the engine's heap. */
enum ev_type { EV_RESUME, EV_PLE, EV_SLICE, EV_POLL_END, EV_TICK, EV_END, EV_TLB_ACK,
	      EV_PARK_TIMEOUT, EV_MEMBARRIER_IPI };

/** One pending event: at time t (ns), FIFO among equal times (seq);
 *  stale if gen differs from its object's generation. */
struct event {
	sim_time_t t;
	uint64_t seq;
	uint64_t gen;
	uint32_t type, id;
};

/** The key of an overwritten stale EV_SLICE (sim_engine.c, heap_push()). */
struct ghost {
	sim_time_t t;
	uint64_t seq;
};

/** Everything about the run in progress: configuration, machine, event
 *  queue, and the run-wide counters that go into the JSON. */
struct sim {
	const struct sim_config *cfg;
	const struct sim_profile *prof;
	const struct sim_workload *wl;
	sim_time_t now, end, slice, poll, sample;
	bool ple;
	int nv, np;
	struct vcpu *vcpus;
	struct pcpu *pcpus;
	struct vm *vms;
	char *lock_arena;            /* every VM's locks, one block (pvspin_plat_lock_key) */
	size_t lock_arena_size;      /* bytes */
	ucontext_t main_ctx;
	struct vcpu *cur;
	struct event *heap;
	size_t nheap, capheap;
	uint64_t seq;
	uint32_t *slotpos;           /* heap index of each timer slot's entry */
	struct ghost *ghosts;        /* overwritten stale slices not yet counted */
	size_t nghosts, capghosts;
	sim_time_t pos_t;            /* the run's position in (t, seq) order: */
	uint64_t pos_seq;            /* the last event popped or fast step */
	gsl_rng *host_rng;           /* host noise: slice phase and jitter */
	struct line **lines;
	size_t nlines, caplines;
	enum sim_stop stop;
	char *report;
	uint64_t events;
	int ndone;
	/* host totals */
	uint64_t halts, kicks, ple_exits, dyields, kicks_lost;
	uint64_t kick_ready, kick_yields;   /* kicked target runnable-not-running;
					       boosts that ran it */
	sim_time_t lhp_ns, lwp_ns;
	/* evidence for the directed yield on KICK_CPU (sim/README.md):
	 * kicked vCPUs that were not running, and their time until sched-in;
	 * sampled time a queued lock was free, queued, and nobody spun as
	 * its head (the hand-off time a boost of the head could recover) */
	uint64_t kick_waits;
	sim_time_t kick_wait_ns, free_queued_ns;
	sim_time_t fq_kicked_ns, fq_preempted_ns; /* of free_queued_ns: a waiter
						      kicked and not yet running /
						      else a waiter preempted */
	/* ebizzy-mm evidence ("mm" in the JSON) */
	bool mm;
	uint64_t mm_waits, mm_write_waits, idle_halts, resched_ipis;
	sim_time_t mm_wait_ns;               /* time asleep on mmap_sem */
	uint64_t tlb_shootdowns, tlb_ipis, tlb_skip_idle, tlb_skip_preempted;
	uint64_t tlb_irqoff, tlb_halted_irqoff, tlb_not_running, tlb_kicked;
	sim_time_t tlb_wait_ns, tlb_wait_max_ns;     /* sender's wait for acks */
	sim_time_t tlb_ack_ns, tlb_ack_irqoff_ns, tlb_ack_kicked_ns;
	uint64_t tlb_acks_irqoff;            /* acks delayed by IRQs off */
	sim_time_t mm_write_held_ns;         /* mmap_sem held for write */
	uint64_t mm_wakeups;                 /* halted sleepers woken by IPI */
	sim_time_t mm_wakeup_ns;             /* ... their IPI-to-running time */
	sim_time_t mm_owner_off_ns;          /* sampled: write-held, owner not
						on a pCPU */
	sim_time_t mm_granted_off_ns;        /* sampled, per vCPU: granted
						mmap_sem, not yet running it */
	uint64_t gt_switches, gt_preempts;   /* guest thread switches; of them
						preemptions (wake-up or period) */
	uint64_t gt_migrations;              /* woken threads placed on an idle vCPU */
	uint64_t lock_preempts;              /* a spinlock waiter or holder
						preempted (then back on a pCPU) */
	sim_time_t lock_preempt_ns, lock_preempt_max_ns; /* ... for how long */
	/* futex-style parking (pvspin_plat_park32 / unpark32), FIFO of the
	 * queued vCPUs in the order they parked, and its counters (in the
	 * JSON's "host" only when something parked) */
	struct vcpu *park_head, *park_tail;
	uint64_t parks, park_sleeps, park_timeouts, unpark_wakes, fences_heavy;
	uint64_t membarrier_targets;         /* fences' targets (other vCPUs on a CPU) */
	uint64_t membarrier_ipis;            /* ... of them, those that paid the IPI */
	uint64_t store_forward_stalls;   /* sim_memory.c; the JSON's "host" */
	/* rseq time-slice extension (key slice_ext_us; 0: off): its length,
	 * the preemptions it deferred and the grants given back early by
	 * rseq_slice_yield (in the JSON's "host" only when on) */
	sim_time_t slice_ext;
	uint64_t slice_ext_grants, slice_ext_yields;
};

/** The run in progress (sim_engine.c). */
extern struct sim S;

/* ---- sim_engine.c: helpers, events, stints ----------------------------- */

/** Print "out of memory" and exit(1). */
void oom(void);
/** calloc() that never returns NULL (oom()); n = 0 allocates one. */
void *xcalloc(size_t n, size_t sz);
/** Append to the stop report (printf-style). */
void report_add(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** Queue an event of `type` for object `id` (vCPU or pCPU) at time t (ns);
 *  `gen` is checked against the object's generation when it fires. */
void heap_push(sim_time_t t, enum ev_type type, uint32_t id, uint64_t gen);
/** Move v's running-time countdown forward to time t (ns). */
void account_stint(struct vcpu *v, sim_time_t t);
/** Schedule the events of a RUNNING vCPU from its stint. */
void arm(struct vcpu *v);
/** An interrupt (the event `ev` for u) reaches u now.  True if u takes
 *  its handler now: on a pCPU, IRQs on, its current step begun, not
 *  halted.  If its current step has not begun (a switch, or an access
 *  waiting for its line), `ev` is pushed again for when it begins (the
 *  handler runs then; dropping it left a TLB shootdown's sender spinning
 *  for ever on small hosts); off a pCPU or with IRQs off the caller's own
 *  bookkeeping takes it later (a TLB IPI) or it is not modelled.  False
 *  in those cases.  sim_engine.c. */
bool irq_arrives(struct vcpu *u, enum ev_type ev);
/** Running u takes an interrupt handler of `h` ns now: a computation of
 *  known length runs h longer (re-armed).  True if u was computing so.
 *  sim_engine.c. */
bool irq_take_exec(struct vcpu *u, sim_time_t h);
/** The current coroutine gives control back until its stint ends. */
void vcpu_yield(struct vcpu *v);
/** Charge `ns` of running time to the current vCPU. */
void vcpu_delay(struct vcpu *v, sim_time_t ns);
/** Stop the run from inside a coroutine: never returns. */
void vcpu_stop(struct vcpu *v, enum sim_stop why) __attribute__((noreturn));

/* ---- sim_memory.c: cache lines ------------------------------------------ */

/** The coherence state of the 64-byte line holding p (created on first
 *  use). */
struct line *line_of(const void *p);
/** A write took effect on line l: wake the spinners whose wait is over. */
void mem_written(struct line *l);
/** Whether spinner w's wait condition holds now. */
bool watcher_satisfied(const struct vcpu *w);

/* ---- sim_sched.c: host scheduler --------------------------------------- */

/** Append v to p's run queue (v becomes p's vCPU). */
void rq_add(struct pcpu *p, struct vcpu *v);
/** Take p's current vCPU off at time t (ns) into state `to`. */
void sched_out(struct pcpu *p, sim_time_t t, enum vsched to);
/** Put v (READY in a run queue, or waking) on p at time t (ns). */
void sched_in(struct pcpu *p, struct vcpu *v, sim_time_t t);
/** p has no current vCPU: run the next one, if any, at time t (ns). */
void reschedule(struct pcpu *p, sim_time_t t);
/** Arm the end of p's current slice once somebody waits on p. */
void slice_arm(struct pcpu *p, sim_time_t t);
/** Wake a HALTED vCPU at time t; `extra` ns of wake-up latency (IPI). */
void vcpu_wake(struct vcpu *v, sim_time_t t, sim_time_t extra);
/** Whether READY t may be picked on p now (the next-buddy rule). */
bool buddy_eligible(struct vcpu *t, struct pcpu *p, sim_time_t now);
/** yield_to()'s schedule(): y gives its pCPU to an eligible waiter there. */
void yielder_step_aside(struct vcpu *y, sim_time_t now);
/** EV_SLICE on p: the slice ended; preempt its vCPU or start another. */
void sched_slice_end(struct pcpu *p);

/* ---- sim_kvm.c: halt, kick, PLE ------------------------------------------ */

/** The current vCPU executes HLT (its exit already charged); returns when
 *  it runs again, executing, with pv_unhalted cleared. */
void vcpu_halt(struct vcpu *v);
/** EV_PLE on v: a pause-loop exit. */
void kvm_ple_exit(struct vcpu *v);
/** EV_POLL_END on v: halt polling ran out; the vCPU halts for real. */
void kvm_poll_end(struct vcpu *v);
/** Wake t from a halt as an interrupt does: a halted vCPU goes through the
 *  host's wake path (the profile's ipi_ns), a halt-polling one resumes at
 *  once (l1_ns); otherwise nothing. */
void vcpu_kick_wake(struct vcpu *t);
/** EV_PARK_TIMEOUT on v (`gen`: its park's generation). */
void kvm_park_timeout(struct vcpu *v, uint64_t gen);
/** EV_MEMBARRIER_IPI: a membarrier's IPI reaches u; a running u pays the
 *  profile's membarrier_target_ns out of its computation, or, spinning,
 *  sees its line change no sooner than that from now (sim_kvm.c). */
void kvm_membarrier_ipi(struct vcpu *u);

/* ---- sim_guest.c, sim_guest_mm.c: guest workloads ------------------------ */

/** A draw of distribution d with mean `mean` (us), from r. */
double draw_us(gsl_rng *r, enum sim_dist d, double mean);
/** us -> ns, rounded; 0 for us <= 0. */
sim_time_t us_to_ns(double us);
/** Compute (not lock-related) running time, ns: ends any spin for PLE. */
void vcpu_compute(struct vcpu *v, sim_time_t ns);
/** v's workload is over: it leaves its pCPU for good. Never returns. */
void vcpu_finish(struct vcpu *v) __attribute__((noreturn));
/** Take the VM's lock li and enter its critical section (false: not taken,
 *  broken_lock only). */
bool guest_lock_enter(struct vcpu *v, int li);
/** Leave the critical section of lock li and unlock it if `got`. */
void guest_lock_exit(struct vcpu *v, int li, bool got);
/** Whether v did its fixed work. */
bool vcpu_quota_done(const struct vcpu *v);
/** One operation of v's workload done. */
void vcpu_op_done(struct vcpu *v);
/** The coroutine entry of vCPU slot `id`. */
void vcpu_entry(int id);
/** The ebizzy-mm workload of v (sim_guest_mm.c). Never returns. */
void vcpu_mm_main(struct vcpu *v) __attribute__((noreturn));
/** ebizzy-mm: guest threads per vCPU of the run (the `threads` key or the
 *  model's); free them at the end of a run; sample the rwsem evidence. */
int mm_threads_per_vcpu(void);
void mm_threads_free(void);
void mm_sample(sim_time_t period);
/** EV_TLB_ACK: the shootdown IPI reaches u (sim_guest_mm.c). */
void tlb_ack_event(struct vcpu *u);

/* ---- sim_check.c, sim_report.c ------------------------------------------- */

/** Misuse reported by the lock code (pvspin_set_misuse_handler()). */
void sim_misuse(const char *what, const void *lock, uint32_t word);
/** EV_TICK: sample LHP / LWP, check for deadlocks and lost wake-ups. */
void tick(void);
/** Report a deadlock of every vCPU. */
void deadlock_report(void);
/** Report v's lost wake-up; `ops` acquisitions of its lock since. */
void lost_wakeup_report(const struct vcpu *v, uint64_t ops);
/** Close the open accounting intervals at the end of the run. */
void finalize_accounting(void);
/** The results document (new reference); `wall` s of wall time. */
json_t *results_json(double wall);

#endif /* PVSPIN_SIM_INTERNAL_H */

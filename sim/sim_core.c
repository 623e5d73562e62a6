/*
 * sim_core.c - the discrete-event engine of `pvspin sim` (docs/design.md 6).
 *
 * Each simulated vCPU runs the guest workload, and inside it pvspin's own
 * lock code (src/lock, compiled with -DPVSPIN_PLATFORM_SIM), as a ucontext
 * coroutine on one host thread.  Every platform operation of the lock code
 * (sim_platform.h) is a point where the vCPU's simulated time advances and
 * where the engine may switch to another vCPU.  The engine always runs the
 * earliest pending event (a binary heap ordered by time, then by insertion
 * sequence), so causality holds and a run is a pure function of its
 * configuration.
 *
 * Time model.  A RUNNING vCPU has one "stint": it will resume its coroutine
 * after `left` ns of running time (an instruction's cost, a compute burst,
 * or a spin bound).  Preemption stops the clock of the stint (left shrinks
 * by the time run); the next sched-in restarts it.  A vCPU that holds no
 * pCPU does not advance, whatever it is doing: lock-holder and lock-waiter
 * preemption arise by themselves.
 *
 * Memory model.  Each 64-byte line has a version (bumped per write), the
 * last writer, the nodes holding copies and a "busy until" time: writes and
 * RMWs to a line serialise (each takes the line exclusively for its cost),
 * reads of a line written by another CPU pay a transfer (same node / other
 * node).  An operation takes effect when it completes, at its issuer's new
 * time.  Values are sequentially consistent (one host thread).
 *
 * Spinning.  pvspin_plat_wait32() parks the vCPU on the line; a write of
 * the line after which the predicate holds wakes it (it then re-reads the
 * word, paying the transfer); otherwise it resumes after max_loops x PAUSE
 * of running time.  PLE exits fire when a vCPU has spun (running) for the
 * current PLE window.
 *
 * Host scheduler (after Linux CFS/EEVDF as used by KVM hosts): per-pCPU run
 * queues ordered by virtual runtime, a base slice, wake-up placement on an
 * idle pCPU (same node first), wake-up preemption, idle pulling, pinning for
 * dedicated pCPUs, directed yield (kvm_vcpu_yield_to: the target runs on its
 * pCPU now, the yielder gives up its own if anybody waits there), halt with
 * KVM halt polling, kick with the pv_unhalted flag (a kick before the halt is
 * not lost).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "sim.h"
#include "pvspin/spinlock.h"
#include "pvspin/tunables.h"
#include "pvspin/stats.h"
#include "lock/qnode.h"

#define SIM_STACK_SIZE (64 * 1024)

/* ---- state ------------------------------------------------------------ */

enum vsched { VS_RUNNING, VS_READY, VS_HALTED, VS_POLLING, VS_DONE };
enum vact { VA_EXEC, VA_SPIN, VA_HALT };
static const char *const vsched_names[] = { "running", "ready(preempted)", "halted",
					    "halt-polling", "done" };
static const char *const vact_names[] = { "executing", "spinning", "halted" };

struct line;

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
	/* spin-wait */
	const void *spin_addr;
	bool spin_ptr;
	bool (*pred)(uint32_t, uint32_t);
	uint32_t arg;
	struct line *spin_line;
	struct vcpu *wnext, *wprev;
	sim_time_t spin_run;         /* running ns of the current park */
	bool spin_hit;               /* the watched line got a satisfying write */
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
	bool mm_granted;             /* mmap_sem handed to it while asleep */
	bool mm_write;               /* queued on mmap_sem for write */
	bool steal_preempted;        /* steal-time preempted flag (set by KVM
					only on an involuntary sched-out) */
	bool tlb_pending;            /* a shootdown IPI it has not acked */
	uint32_t mm_not_taken;       /* broken_lock: locks entered without them */
	bool tlb_irqoff;             /* ... and it had IRQs off since it came */
	bool tlb_kicked;             /* ... and it was kicked, not running, then */
	sim_time_t tlb_sent_at;
	sim_time_t woken_at;         /* reschedule IPI woke it from a halt */
};

struct pcpu {
	int id, node;
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
	sim_time_t busy_ns;
};

struct sim_lock {
	pvspin_lock_t word __attribute__((aligned(64)));
	int holder;                  /* vCPU slot in the critical section, -1 */
	int tmp_preempted;           /* scratch for sampling */
	bool fq_prev;                /* free + queued at the previous sample */
	uint64_t fq_ops;             /* ops at the previous sample */
	uint64_t ops;
} __attribute__((aligned(64)));

/* ebizzy-mm: the process's mm as the guest kernel has it (one per VM).
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

struct vm {
	int id, first, n;
	pvspin_kind_t lock;          /* per-VM features (config + overrides) */
	bool ple, pv_unhalt, steal_time;
	int kick_yield;           /* enum sim_kick_yield */
	struct sim_lock *locks;
	int nlocks;
	int last_boosted;
	uint64_t events[PVSPIN_EV_COUNT];
	double *lat;                 /* lock wait samples, ns */
	size_t nlat, caplat;
	long ops;
	sim_time_t done_at;
	int ndone;
	struct sim_mm *mm;           /* ebizzy-mm only, else NULL */
};

struct line {
	uintptr_t tag;               /* address >> 6 */
	uint32_t version;
	int writer;
	bool excl;                   /* only the writer holds it */
	uint64_t nodes_mask;
	sim_time_t busy_until;
	struct vcpu *watchers;
	uint32_t seen[];             /* per vCPU: version it holds (0: none) */
};

enum ev_type { EV_RESUME, EV_PLE, EV_SLICE, EV_POLL_END, EV_TICK, EV_END, EV_TLB_ACK };

struct event {
	sim_time_t t;
	uint64_t seq;
	uint64_t gen;
	uint32_t type, id;
};

static struct sim {
	const struct sim_config *cfg;
	const struct sim_profile *prof;
	const struct sim_workload *wl;
	sim_time_t now, end, slice, poll, sample;
	bool ple;
	int nv, np;
	struct vcpu *vcpus;
	struct pcpu *pcpus;
	struct vm *vms;
	ucontext_t main_ctx;
	struct vcpu *cur;
	struct event *heap;
	size_t nheap, capheap;
	uint64_t seq;
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
	uint64_t lock_preempts;              /* a spinlock waiter or holder
						preempted (then back on a pCPU) */
	sim_time_t lock_preempt_ns, lock_preempt_max_ns; /* ... for how long */
} S;

/* ---- helpers ------------------------------------------------------------ */

static void oom(void)
{
	fprintf(stderr, "pvspin-sim: out of memory\n");
	exit(1);
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);
	if (!p)
		oom();
	return p;
}

/* Append to the stop report (printf-style). */
static void report_add(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL, *n = NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		oom();
	va_end(ap);
	if (asprintf(&n, "%s%s", S.report ? S.report : "", s) < 0)
		oom();
	free(S.report);
	free(s);
	S.report = n;
}

/* ---- event heap --------------------------------------------------------- */

static bool ev_less(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void heap_push(sim_time_t t, enum ev_type type, uint32_t id, uint64_t gen)
{
	if (S.nheap == S.capheap) {
		S.capheap = S.capheap ? 2 * S.capheap : 1024;
		S.heap = realloc(S.heap, S.capheap * sizeof(*S.heap));
		if (!S.heap)
			oom();
	}
	struct event e = { t, S.seq++, gen, type, id };
	size_t i = S.nheap++;
	while (i) {
		size_t p = (i - 1) / 2;
		if (!ev_less(&e, &S.heap[p]))
			break;
		S.heap[i] = S.heap[p];
		i = p;
	}
	S.heap[i] = e;
}

static struct event heap_pop(void)
{
	struct event top = S.heap[0], last = S.heap[--S.nheap];
	size_t i = 0, n = S.nheap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ev_less(&S.heap[c + 1], &S.heap[c]))
			c++;
		if (!ev_less(&S.heap[c], &last))
			break;
		S.heap[i] = S.heap[c];
		i = c;
	}
	if (n)
		S.heap[i] = last;
	return top;
}

static sim_time_t heap_min_t(void)
{
	return S.nheap ? S.heap[0].t : SIM_T_INF;
}

/* ---- cache lines -------------------------------------------------------- */

static size_t line_hash(uintptr_t tag, size_t cap)
{
	return (size_t)((tag * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

static struct line *line_of(const void *p)
{
	uintptr_t tag = (uintptr_t)p >> 6;
	if (2 * (S.nlines + 1) > S.caplines) {
		size_t ncap = S.caplines ? 2 * S.caplines : 4096;
		struct line **nl = xcalloc(ncap, sizeof(*nl));
		for (size_t i = 0; i < S.caplines; i++) {
			if (!S.lines[i])
				continue;
			size_t j = line_hash(S.lines[i]->tag, ncap);
			while (nl[j])
				j = (j + 1) & (ncap - 1);
			nl[j] = S.lines[i];
		}
		free(S.lines);
		S.lines = nl;
		S.caplines = ncap;
	}
	size_t j = line_hash(tag, S.caplines);
	while (S.lines[j]) {
		if (S.lines[j]->tag == tag)
			return S.lines[j];
		j = (j + 1) & (S.caplines - 1);
	}
	struct line *l = xcalloc(1, sizeof(*l) + (size_t)S.nv * sizeof(uint32_t));
	l->tag = tag;
	l->writer = -1;
	S.lines[j] = l;
	S.nlines++;
	return l;
}

/* ---- stints and events of one vCPU -------------------------------------- */

/* Move v's running-time countdown forward to t. */
static void account_stint(struct vcpu *v, sim_time_t t)
{
	if (t <= v->stint_start)
		return;
	sim_time_t d = t - v->stint_start;
	if (v->left != SIM_T_INF)
		v->left = d >= v->left ? 0 : v->left - d;
	if (v->act == VA_SPIN) {
		v->spin_run += d;
		v->ple_acc += d;
		v->spin_ns += d;
	}
	v->stint_start = t;
}

/* Schedule the events of a RUNNING vCPU from its stint. */
static void arm(struct vcpu *v)
{
	v->gen++;
	v->ple_gen++;
	switch (v->act) {
	case VA_EXEC:
		heap_push(v->stint_start + v->left, EV_RESUME, (uint32_t)v->id, v->gen);
		break;
	case VA_HALT:
		heap_push(v->stint_start, EV_RESUME, (uint32_t)v->id, v->gen);
		break;
	case VA_SPIN:
		if (v->spin_hit) {
			heap_push(v->stint_start, EV_RESUME, (uint32_t)v->id, v->gen);
			break;
		}
		if (v->left != SIM_T_INF)
			heap_push(v->stint_start + v->left, EV_RESUME, (uint32_t)v->id, v->gen);
		if (S.vms[v->vm].ple) {
			sim_time_t rest = v->ple_acc >= v->ple_window ? 0 : v->ple_window - v->ple_acc;
			heap_push(v->stint_start + rest, EV_PLE, (uint32_t)v->id, v->ple_gen);
		}
		break;
	}
}

/* The current coroutine gives control back until its stint ends (or, if it
 * is not RUNNING, until it is scheduled in and its stint ends). */
static void vcpu_yield(struct vcpu *v)
{
	if (v->sched == VS_RUNNING) {
		if (v->stint_start < S.now)
			v->stint_start = S.now;
		/* Fast path: nothing else happens before our next step. */
		if (v->act == VA_EXEC && !S.stop &&
		    v->stint_start + v->left < heap_min_t()) {
			S.now = v->stint_start + v->left;
			v->stint_start = S.now;
			v->left = 0;
			S.events++;
			return;
		}
		arm(v);
	}
	swapcontext(&v->ctx, &S.main_ctx);
}

/* Charge `ns` of running time to the current vCPU. */
static void vcpu_delay(struct vcpu *v, sim_time_t ns)
{
	v->act = VA_EXEC;
	v->left = ns;
	vcpu_yield(v);
}

/* Stop the run from inside a coroutine: never returns. */
static void vcpu_stop(struct vcpu *v, enum sim_stop why)
{
	S.stop = why;
	v->gen++;
	v->ple_gen++;
	swapcontext(&v->ctx, &S.main_ctx);
	abort(); /* never resumed */
}

/* ---- host scheduler ----------------------------------------------------- */

static int64_t curr_vr(struct pcpu *p, sim_time_t t)
{
	return p->curr->vruntime + (int64_t)(t - p->curr_since);
}

static void update_min_vr(struct pcpu *p, sim_time_t t)
{
	int64_t m = INT64_MAX;
	if (p->curr)
		m = curr_vr(p, t);
	for (int i = 0; i < p->nrq; i++)
		if (p->rq[i]->vruntime < m)
			m = p->rq[i]->vruntime;
	if (m != INT64_MAX && m > p->min_vr)
		p->min_vr = m;
}

static void rq_add(struct pcpu *p, struct vcpu *v)
{
	if (p->nrq == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 4;
		p->rq = realloc(p->rq, (size_t)p->cap * sizeof(*p->rq));
		if (!p->rq)
			oom();
	}
	v->rq_pos = p->nrq;
	p->rq[p->nrq++] = v;
	v->pcpu = p->id;
}

static void rq_del(struct pcpu *p, struct vcpu *v)
{
	int i = v->rq_pos;
	/* keep the order (determinism does not need it, readability does) */
	memmove(&p->rq[i], &p->rq[i + 1], (size_t)(p->nrq - i - 1) * sizeof(*p->rq));
	p->nrq--;
	for (int k = i; k < p->nrq; k++)
		p->rq[k]->rq_pos = k;
	v->rq_pos = -1;
}

/* Smallest vruntime in p's run queue, skipping `skip`; ties: lowest id. */
static struct vcpu *rq_pick(struct pcpu *p, struct vcpu *skip)
{
	struct vcpu *best = NULL;
	for (int i = 0; i < p->nrq; i++) {
		struct vcpu *v = p->rq[i];
		if (v == skip)
			continue;
		if (!best || v->vruntime < best->vruntime ||
		    (v->vruntime == best->vruntime && v->id < best->id))
			best = v;
	}
	return best;
}

/* Length of the next slice on a pCPU: the base slice, ended at a scheduler
 * tick of that pCPU (ticks are not synchronised across pCPUs), i.e. the base
 * slice +- half a tick (HZ=1000), drawn from the host's random stream. */
#define SIM_TICK_NS 1000000

/* CFS (the profile has a sched_latency and the slice is not overridden):
 * the slice is a share of sched_latency that depends on how many tasks are
 * runnable now. */
static bool slice_is_cfs_share(void)
{
	return S.prof->sched_latency_ns && S.cfg->slice_us < 0;
}

/* Base slice with `nr` runnable tasks on the pCPU (current included). */
static sim_time_t slice_base(int nr)
{
	sim_time_t base = S.slice;
	/* CFS: sched_latency shared by the runnable tasks, at least the
	 * minimum granularity (kernel/sched/fair.c sched_slice()) */
	if (slice_is_cfs_share()) {
		sim_time_t share = S.prof->sched_latency_ns / (sim_time_t)(nr > 0 ? nr : 1);
		if (share > base)
			base = share;
	}
	return base;
}

static sim_time_t slice_compose(sim_time_t base, sim_time_t j)
{
	return base > SIM_TICK_NS / 2 ? base - SIM_TICK_NS / 2 + j : base + j / 8;
}

static sim_time_t slice_len(struct pcpu *p)
{
	sim_time_t j = (sim_time_t)gsl_rng_uniform_int(S.host_rng, SIM_TICK_NS);
	p->slice_jit = j;
	return slice_compose(slice_base(p->nrq + 1), j);
}

/* Arm the end of the current slice once somebody waits on p.  Under CFS
 * the ideal slice is recomputed from the tasks runnable now, as
 * check_preempt_tick() does at every tick with sched_slice(): a vCPU
 * that took an empty pCPU got all of sched_latency (24 ms), but once a
 * woken vCPU waits beside it its share is 12 ms (8 ms with three). */
static void slice_arm(struct pcpu *p, sim_time_t t)
{
	if (!p->curr || !p->nrq)
		return;
	if (!slice_is_cfs_share()) {
		if (p->slice_armed)
			return;
		sim_time_t at = p->curr_since + p->slice_len;
		if (at < t)
			at = t;
		p->slice_gen++;
		p->slice_armed = true;
		p->slice_at = at;
		heap_push(at, EV_SLICE, (uint32_t)p->id, p->slice_gen);
		return;
	}
	sim_time_t len = slice_compose(slice_base(p->nrq + 1), p->slice_jit);
	if (len > p->slice_len)
		len = p->slice_len;   /* a join only shortens the slice */
	sim_time_t at = p->slice_from + len;
	if (at < t)
		at = t;
	if (p->slice_armed && at >= p->slice_at)
		return;
	p->slice_gen++;
	p->slice_armed = true;
	p->slice_at = at;
	heap_push(at, EV_SLICE, (uint32_t)p->id, p->slice_gen);
}

/* Take p's current vCPU off at time t into state `to`. */
static void sched_out(struct pcpu *p, sim_time_t t, enum vsched to)
{
	struct vcpu *v = p->curr;
	sim_time_t dt = t - p->curr_since;
	v->run_ns += dt;
	v->vruntime += (int64_t)dt;
	p->busy_ns += dt;
	account_stint(v, t);
	v->gen++;
	v->ple_gen++;
	p->curr = NULL;
	p->slice_armed = false;
	p->slice_gen++;
	v->sched = to;
	v->steal_preempted = to == VS_READY;
	if (to == VS_READY) {
		rq_add(p, v);
		v->ready_since = t;
	}
	update_min_vr(p, t);
}

/* Put v (READY in p's rq, or waking) on p at time t. */
static void sched_in(struct pcpu *p, struct vcpu *v, sim_time_t t)
{
	if (v->rq_pos >= 0)
		rq_del(&S.pcpus[v->pcpu], v);
	if (v->sched == VS_READY) {
		v->ready_ns += t - v->ready_since;
		if (S.mm && (v->holds >= 0 || v->want_lock >= 0)) {
			sim_time_t d = t - v->ready_since;
			S.lock_preempts++;
			S.lock_preempt_ns += d;
			if (d > S.lock_preempt_max_ns)
				S.lock_preempt_max_ns = d;
		}
	}
	if (v->kicked_at) {
		S.kick_waits++;
		S.kick_wait_ns += t - v->kicked_at;
		v->kicked_at = 0;
	}
	v->sched = VS_RUNNING;
	v->steal_preempted = false;
	v->pcpu = p->id;
	p->curr = v;
	p->curr_since = t;
	p->slice_from = t;
	p->slice_len = slice_len(p);
	v->stint_start = t + S.prof->ctx_switch_ns + v->wake_extra;
	v->wake_extra = 0;
	v->ple_window = S.prof->ple_window_ns;   /* KVM: shrink (reset) on sched-in */
	v->ple_acc = 0;
	arm(v);
	slice_arm(p, t);
	/* ebizzy-mm: a pending shootdown IPI is taken on entry if IRQs are on */
	if (v->tlb_pending) {
		if (v->irqs_off)
			v->tlb_irqoff = true;
		else
			heap_push(v->stint_start, EV_TLB_ACK, (uint32_t)v->id, 0);
	}
}

/* Move v's vruntime from pCPU `from`'s timeline to `to`'s. */
static void migrate_vr(struct vcpu *v, struct pcpu *from, struct pcpu *to)
{
	if (from != to)
		v->vruntime = v->vruntime - from->min_vr + to->min_vr;
}

/* Idle pull (CFS newidle balance): a READY, unpinned vCPU from the busiest
 * run queue, same node first. */
static struct vcpu *idle_pull(struct pcpu *p)
{
	struct pcpu *best = NULL;
	for (int pass = 0; pass < 2 && !best; pass++) {
		for (int k = 1; k < S.np; k++) {
			struct pcpu *q = &S.pcpus[(p->id + k) % S.np];
			if ((pass == 0) != (q->node == p->node))
				continue;
			int movable = 0;
			for (int i = 0; i < q->nrq; i++)
				movable += q->rq[i]->pinned < 0;
			if (movable && (!best || q->nrq > best->nrq))
				best = q;
		}
	}
	if (!best)
		return NULL;
	struct vcpu *pick = NULL;
	for (int i = 0; i < best->nrq; i++) {
		struct vcpu *v = best->rq[i];
		if (v->pinned < 0 && (!pick || v->ready_since < pick->ready_since))
			pick = v;
	}
	rq_del(best, pick);
	migrate_vr(pick, best, p);
	return pick;
}

/* p has no current vCPU: run the next one, if any. */
static void reschedule(struct pcpu *p, sim_time_t t)
{
	if (p->curr)
		return;
	struct vcpu *n = rq_pick(p, NULL);
	if (!n)
		n = idle_pull(p);
	if (n)
		sched_in(p, n, t);
}

/* Wake a HALTED vCPU at time t; `extra` ns of wake-up latency (IPI). */
static void vcpu_wake(struct vcpu *v, sim_time_t t, sim_time_t extra)
{
	struct pcpu *from = &S.pcpus[v->pcpu], *p = from;
	if (v->pinned >= 0) {
		p = &S.pcpus[v->pinned];
	} else if (p->curr) {
		/* select an idle pCPU: same node first, then any */
		struct pcpu *idle = NULL;
		for (int pass = 0; pass < 2 && !idle; pass++)
			for (int k = 1; k < S.np && !idle; k++) {
				struct pcpu *q = &S.pcpus[(p->id + k) % S.np];
				if (!q->curr && !q->nrq && (pass == 1 || q->node == p->node))
					idle = q;
			}
		if (idle)
			p = idle;
	}
	migrate_vr(v, from, p);
	/* sleeper credit (place_entity): half of CFS's sched_latency, or half
	 * a base slice under EEVDF */
	int64_t credit = (int64_t)(S.prof->sched_latency_ns ? S.prof->sched_latency_ns
							    : S.slice) / 2;
	if (v->vruntime < p->min_vr - credit)
		v->vruntime = p->min_vr - credit;
	v->wake_extra = extra;
	v->pcpu = p->id;
	if (!p->curr) {
		v->sched = VS_READY;
		v->ready_since = t;
		sched_in(p, v, t);
		return;
	}
	if (p->curr->sched == VS_POLLING) {
		/* the poller sees another runnable task and halts for real */
		sched_out(p, t, VS_HALTED);
		v->sched = VS_READY;
		v->ready_since = t;
		sched_in(p, v, t);
		return;
	}
	v->sched = VS_READY;
	v->ready_since = t;
	rq_add(p, v);
	if (v->vruntime + (int64_t)S.prof->wakeup_gran_ns < curr_vr(p, t)) {
		sched_out(p, t, VS_READY);
		sched_in(p, v, t);
	} else {
		slice_arm(p, t);
	}
}

/* May `t` (READY on p) be picked now although p's current vCPU has not used
 * its slice?  CFS/EEVDF honour a "next buddy" only if it is not ahead of
 * the current one by more than the wake-up granularity (fairness first). */
static bool buddy_eligible(struct vcpu *t, struct pcpu *p, sim_time_t now)
{
	return !p->curr || p->curr->sched == VS_POLLING ||
	       t->vruntime <= curr_vr(p, now) + (int64_t)S.prof->wakeup_gran_ns;
}

/* Directed yield (kvm_vcpu_yield_to -> yield_to): `t` (READY) becomes the
 * next buddy of its pCPU and runs now if that is fair; the yielder gives its
 * own pCPU to another eligible vCPU waiting there.  Returns true if t runs. */
static void yielder_step_aside(struct vcpu *y, sim_time_t now)
{
	struct pcpu *py = &S.pcpus[y->pcpu];
	if (py->curr == y && py->nrq) {
		struct vcpu *n = rq_pick(py, NULL);
		if (buddy_eligible(n, py, now)) {
			sched_out(py, now, VS_READY);
			sched_in(py, n, now);
		}
	}
}

static bool directed_yield(struct vcpu *y, struct vcpu *t, sim_time_t now)
{
	struct pcpu *pt = &S.pcpus[t->pcpu], *py = &S.pcpus[y->pcpu];
	if (!buddy_eligible(t, pt, now))
		return false;
	S.dyields++;
	S.vms[y->vm].last_boosted = t->idx;
	if (pt == py) {
		sched_out(py, now, VS_READY);
		sched_in(py, t, now);
		return true;
	}
	if (pt->curr)
		sched_out(pt, now, pt->curr->sched == VS_POLLING ? VS_HALTED : VS_READY);
	sched_in(pt, t, now);
	yielder_step_aside(y, now);
	return true;
}

/* kvm_vcpu_on_spin: after a PLE exit, yield to a preempted vCPU of the same
 * VM, round robin from the last boosted one.  A PLE exit from guest kernel
 * mode only considers vCPUs preempted in kernel mode (yield_to_kernel_mode);
 * here "kernel mode" is the lock code and the critical section, the
 * non-critical section stands for user mode. */
static void vcpu_on_spin(struct vcpu *v, sim_time_t now)
{
	struct vm *vm = &S.vms[v->vm];
	for (int k = 1; k <= vm->n; k++) {
		int i = (vm->last_boosted + k) % vm->n;
		struct vcpu *t = &S.vcpus[vm->first + i];
		if (t == v || t->sched != VS_READY ||
		    (t->want_lock < 0 && t->holds < 0 && !t->in_kernel))
			continue;
		if (directed_yield(v, t, now))
			return;
	}
}

/* ---- the platform backend (sim_platform.h) ------------------------------ */

enum acc { ACC_READ, ACC_WRITE, ACC_RMW };

static sim_time_t xfer_cost(const struct line *l, int node)
{
	if (!l->version)
		return S.prof->xfer_local_ns;
	return (l->nodes_mask & ~(1ull << node)) ? S.prof->xfer_remote_ns
						 : S.prof->xfer_local_ns;
}

/* Charge a memory access and wait until it completes. */
static struct line *mem_begin(const void *p, enum acc kind)
{
	struct vcpu *v = S.cur;
	if (!v)
		return NULL;
	struct line *l = line_of(p);
	int node = S.pcpus[v->pcpu].node;
	sim_time_t start = S.now, cost;
	if (kind == ACC_READ) {
		cost = (l->version && l->seen[v->id] == l->version) ? S.prof->l1_ns
								     : xfer_cost(l, node);
	} else {
		if (l->busy_until > start)
			start = l->busy_until;
		bool own = l->writer == v->id && l->excl;
		cost = (kind == ACC_RMW ? S.prof->atomic_ns : S.prof->l1_ns) +
		       (own ? 0 : xfer_cost(l, node));
		l->busy_until = start + cost;
	}
	vcpu_delay(v, start + cost - S.now);
	/* completion: the coherence state as of now */
	node = S.pcpus[v->pcpu].node;
	if (kind == ACC_READ) {
		l->seen[v->id] = l->version;
		if (l->writer != v->id)
			l->excl = false;
		l->nodes_mask |= 1ull << node;
	} else {
		l->version++;
		l->writer = v->id;
		l->excl = true;
		l->nodes_mask = 1ull << node;
		l->seen[v->id] = l->version;
	}
	return l;
}

static bool watcher_satisfied(const struct vcpu *w)
{
	if (w->spin_ptr)
		return *(void *const *)w->spin_addr != NULL;
	return w->pred(*(const uint32_t *)w->spin_addr, w->arg);
}

/* A write took effect on line l: wake the spinners whose wait is over. */
static void mem_written(struct line *l)
{
	if (!l)
		return;
	for (struct vcpu *w = l->watchers; w; w = w->wnext) {
		if (w->spin_hit || !watcher_satisfied(w))
			continue;
		if (w->sched == VS_RUNNING) {
			account_stint(w, S.now);
			w->spin_hit = true;
			arm(w);
		} else {
			w->spin_hit = true;
		}
	}
}

#define SIM_DEFINE_WIDTH(W, T)                                                  \
	T pvspin_plat_load##W(const T *p, int mo)                               \
	{ (void)mo; mem_begin(p, ACC_READ); return *p; }                        \
	void pvspin_plat_store##W(T *p, T v, int mo)                            \
	{ (void)mo; struct line *l = mem_begin(p, ACC_WRITE); *p = v;           \
	  mem_written(l); }                                                     \
	bool pvspin_plat_cmpxchg##W(T *p, T *old, T nv, int mo)                 \
	{ (void)mo; struct line *l = mem_begin(p, ACC_RMW);                     \
	  if (*p != *old) { *old = *p; return false; }                          \
	  *p = nv; mem_written(l); return true; }                               \
	T pvspin_plat_xchg##W(T *p, T v, int mo)                                \
	{ (void)mo; struct line *l = mem_begin(p, ACC_RMW); T o = *p; *p = v;   \
	  mem_written(l); return o; }

SIM_DEFINE_WIDTH(8, uint8_t)
SIM_DEFINE_WIDTH(16, uint16_t)
SIM_DEFINE_WIDTH(32, uint32_t)
#undef SIM_DEFINE_WIDTH

void *pvspin_plat_loadptr(void *const *p, int mo)
{
	(void)mo;
	mem_begin(p, ACC_READ);
	return *p;
}

void pvspin_plat_storeptr(void **p, void *v, int mo)
{
	(void)mo;
	struct line *l = mem_begin(p, ACC_WRITE);
	*p = v;
	mem_written(l);
}

bool pvspin_plat_cmpxchgptr(void **p, void **old, void *nv, int mo)
{
	(void)mo;
	struct line *l = mem_begin(p, ACC_RMW);
	if (*p != *old) {
		*old = *p;
		return false;
	}
	*p = nv;
	mem_written(l);
	return true;
}

#define SIM_DEFINE_FETCH(NAME, OP)                                              \
	uint32_t pvspin_plat_fetch_##NAME##32(uint32_t *p, uint32_t v, int mo)  \
	{ (void)mo; struct line *l = mem_begin(p, ACC_RMW); uint32_t o = *p;    \
	  *p = o OP v; mem_written(l); return o; }
SIM_DEFINE_FETCH(add, +)
SIM_DEFINE_FETCH(or, |)
SIM_DEFINE_FETCH(and, &)
#undef SIM_DEFINE_FETCH

void pvspin_plat_cpu_relax(void)
{
	if (S.cur)
		vcpu_delay(S.cur, S.prof->pause_ns);
}

static void watch(struct vcpu *v, struct line *l)
{
	v->spin_line = l;
	v->wprev = NULL;
	v->wnext = l->watchers;
	if (l->watchers)
		l->watchers->wprev = v;
	l->watchers = v;
}

static void unwatch(struct vcpu *v)
{
	struct line *l = v->spin_line;
	if (v->wprev)
		v->wprev->wnext = v->wnext;
	else
		l->watchers = v->wnext;
	if (v->wnext)
		v->wnext->wprev = v->wprev;
	v->spin_line = NULL;
	v->wnext = v->wprev = NULL;
}

/* Park the current vCPU on `addr` for at most `bound` running ns. */
static sim_time_t spin_park(struct vcpu *v, const void *addr, bool is_ptr,
			    bool (*pred)(uint32_t, uint32_t), uint32_t arg, sim_time_t bound)
{
	v->act = VA_SPIN;
	v->left = bound;
	v->spin_run = 0;
	v->spin_hit = false;
	v->spin_addr = addr;
	v->spin_ptr = is_ptr;
	v->pred = pred;
	v->arg = arg;
	watch(v, line_of(addr));
	vcpu_yield(v);
	unwatch(v);
	v->act = VA_EXEC;
	v->left = 0;
	return v->spin_run;
}

bool pvspin_plat_wait32(const uint32_t *p, bool (*done)(uint32_t, uint32_t),
			uint32_t arg, uint32_t max_loops, uint32_t *val, uint32_t *spent)
{
	struct vcpu *v = S.cur;
	sim_time_t pause = S.prof->pause_ns, bound, total = 0;
	if (!v) {
		*val = *p;
		if (spent)
			*spent = 0;
		return done(*val, arg);
	}
	bound = max_loops ? (sim_time_t)max_loops * pause : SIM_T_INF;
	for (;;) {
		uint32_t x = pvspin_plat_load32(p, PVSPIN_ACQUIRE);
		if (done(x, arg)) {
			*val = x;
			if (spent)
				*spent = (uint32_t)(total / pause);
			return true;
		}
		if (max_loops && total >= bound) {
			*val = x;
			if (spent)
				*spent = max_loops;
			return false;
		}
		total += spin_park(v, p, false, done, arg,
				   max_loops ? bound - total : SIM_T_INF);
	}
}

void *pvspin_plat_waitptr(void *const *p)
{
	struct vcpu *v = S.cur;
	for (;;) {
		void *x = pvspin_plat_loadptr(p, PVSPIN_ACQUIRE);
		if (x || !v)
			return x;
		spin_park(v, p, true, NULL, 0, SIM_T_INF);
	}
}

int pvspin_plat_cpu(void)
{
	return S.cur ? S.cur->id : -1;
}

/* The current vCPU executes HLT (after its exit was charged): KVM polls
 * while nobody else wants the pCPU, else the vCPU leaves it; returns when
 * it runs again (woken by a kick or an interrupt), executing, with
 * pv_unhalted cleared. */
static void vcpu_halt(struct vcpu *v)
{
	struct pcpu *p = &S.pcpus[v->pcpu];
	v->act = VA_HALT;
	v->halt_since = S.now;
	if (S.poll && !p->nrq) {
		/* KVM halt polling: keep the pCPU while nobody else wants it */
		v->sched = VS_POLLING;
		v->gen++;
		v->ple_gen++;
		heap_push(S.now + S.poll, EV_POLL_END, (uint32_t)v->id, v->gen);
	} else {
		sched_out(p, S.now, VS_HALTED);
		reschedule(p, S.now);
	}
	swapcontext(&v->ctx, &S.main_ctx);
	/* running again; KVM clears pv_unhalted on the wake */
	v->pv_unhalted = false;
	v->act = VA_EXEC;
	v->left = 0;
}

void pvspin_plat_pv_wait(uint8_t *ptr, uint8_t val)
{
	struct vcpu *v = S.cur;
	if (!v || !S.vms[v->vm].pv_unhalt)
		return;                   /* no PV_UNHALT: pv_wait is a no-op */
	if (pvspin_plat_load8(ptr, PVSPIN_RELAXED) != val)
		return;
	vcpu_delay(v, S.prof->vmexit_ns); /* the HLT exit */
	if (v->pv_unhalted) {             /* the kick came first: not lost */
		v->pv_unhalted = false;
		return;
	}
	S.halts++;
	v->halt_ptr = ptr;
	v->halt_val = val;
	v->wake_due = false;
	vcpu_halt(v);
}

/* kick_yield=oracle / oracle-cross-vm (analysis only, no hypervisor does
 * this): the kicked vCPU t, READY, runs at once on its pCPU, preempting the
 * vCPU running there; the kicker is not descheduled.  With `cross_vm_only`
 * a vCPU of t's own VM is never preempted, so the boost cannot create
 * holder preemption inside the kicked vCPU's VM.  An upper bound on what
 * any boost of the kicked vCPU can gain. */
static void kick_oracle_run(struct vcpu *t, bool cross_vm_only)
{
	struct pcpu *pt = &S.pcpus[t->pcpu];
	if (cross_vm_only && pt->curr && pt->curr->vm == t->vm)
		return;
	S.kick_yields++;
	if (pt->curr)
		sched_out(pt, S.now, pt->curr->sched == VS_POLLING ? VS_HALTED : VS_READY);
	sched_in(pt, t, S.now);
}

void pvspin_plat_pv_kick(int cpu)
{
	struct vcpu *y = S.cur, *t;
	if (!y || !S.vms[y->vm].pv_unhalt || cpu < 0 || cpu >= S.nv)
		return;
	vcpu_delay(y, S.prof->hypercall_ns); /* KVM_HC_KICK_CPU exit */
	S.kicks++;
	if (S.cfg->lose_kicks) {             /* TEST ONLY: a broken kick */
		S.kicks_lost++;
		return;
	}
	t = &S.vcpus[cpu];
	t->pv_unhalted = true;
	if (t->sched != VS_RUNNING && t->sched != VS_POLLING && !t->kicked_at)
		t->kicked_at = S.now;
	if (t->sched == VS_HALTED) {
		vcpu_wake(t, S.now, S.prof->ipi_ns);
	} else if (t->sched == VS_POLLING) {
		t->sched = VS_RUNNING;
		t->stint_start = S.now + S.prof->l1_ns;
		arm(t);
	}
	/* seed 001: kvm_sched_yield() if READ_ONCE(target->ready).  KVM sets
	 * `ready` when the vCPU is preempted or woken and clears it in
	 * kvm_sched_in(), so a kicked vCPU that was just woken onto a pCPU is
	 * still `ready` while the wake-up IPI and the switch are in flight
	 * (here: its stint has not started).  yield_to() then finds it not
	 * yet running, makes it the next buddy (it is coming anyway) and the
	 * yielder still calls schedule(): it gives up its own pCPU if another
	 * task waits there (kernel/sched/core.c yield_to()). */
	bool in_flight = t->sched == VS_RUNNING && t->stint_start > S.now;
	if (t != y && (t->sched == VS_READY || in_flight)) {
		S.kick_ready++;
		int ky = S.vms[y->vm].kick_yield;
		if (ky >= SIM_KY_ORACLE && t->vm == y->vm) {
			if (!in_flight)
				kick_oracle_run(t, ky == SIM_KY_ORACLE_CROSS);
		} else if (ky == SIM_KY_YIELD && t->vm == y->vm) {
			if (in_flight) {
				S.dyields++;
				S.kick_yields++;
				yielder_step_aside(y, S.now);
			} else if (directed_yield(y, t, S.now)) {
				S.kick_yields++;
			}
		}
	}
	vcpu_delay(y, 0);
}

bool pvspin_plat_vcpu_is_preempted(int cpu)
{
	struct vcpu *v = S.cur;
	if (v)
		vcpu_delay(v, S.prof->xfer_local_ns); /* read the steal-time area */
	if (!(v ? S.vms[v->vm].steal_time : S.cfg->steal_time) || cpu < 0 || cpu >= S.nv)
		return false;
	return S.vcpus[cpu].sched == VS_READY;
}

void pvspin_plat_event_add(int ev, uint64_t n)
{
	if (S.cur && ev >= 0 && ev < PVSPIN_EV_COUNT)
		S.vms[S.cur->vm].events[ev] += n;
}

void pvspin_plat_event(int ev)
{
	pvspin_plat_event_add(ev, 1);
}

/* Misuse reported by the lock code stops the run with a report. */
static void sim_misuse(const char *what, const void *lock, uint32_t word)
{
	report_add("MISUSE: %s (lock %p, word 0x%08x) by vCPU %d at %.9f s\n", what, lock,
		   word, S.cur ? S.cur->id : -1, S.now / 1e9);
	if (S.cur)
		vcpu_stop(S.cur, SIM_STOP_MISUSE);
	S.stop = SIM_STOP_MISUSE;
}

/* ---- the guest workload ----------------------------------------------- */

static double draw_us(gsl_rng *r, enum sim_dist d, double mean)
{
	switch (d) {
	case SIM_DIST_EXP:
		return gsl_ran_exponential(r, mean);
	case SIM_DIST_PARETO: {
		/* heavy tail: Pareto, shape 2.5, scaled to the mean */
		const double a = 2.5;
		return gsl_ran_pareto(r, a, mean * (a - 1) / a);
	}
	default:
		return mean;
	}
}

static sim_time_t us_to_ns(double us)
{
	return us <= 0 ? 0 : (sim_time_t)(us * 1000.0 + 0.5);
}

/* Compute (not lock-related) running time: ends any spin for PLE. */
static void vcpu_compute(struct vcpu *v, sim_time_t ns)
{
	v->ple_acc = 0;
	vcpu_delay(v, ns);
}

static void lat_add(struct vm *vm, double ns)
{
	if (vm->nlat == vm->caplat) {
		vm->caplat = vm->caplat ? 2 * vm->caplat : 4096;
		vm->lat = realloc(vm->lat, vm->caplat * sizeof(double));
		if (!vm->lat)
			oom();
	}
	vm->lat[vm->nlat++] = ns;
}

static void vcpu_finish(struct vcpu *v)
{
	struct vm *vm = &S.vms[v->vm];
	struct pcpu *p = &S.pcpus[v->pcpu];
	v->done_at = S.now;
	if (++vm->ndone == vm->n)
		vm->done_at = S.now;
	sched_out(p, S.now, VS_DONE);
	reschedule(p, S.now);
	if (++S.ndone == S.nv)
		S.stop = SIM_STOP_DONE;
	for (;;)
		swapcontext(&v->ctx, &S.main_ctx);
}

/* Take the VM's lock `li` with the VM's lock kind and enter its critical
 * section: the wait goes into the latency samples, a second holder stops
 * the run.  With broken_lock (TEST ONLY) it enters even when its trylock
 * failed; returns whether it holds the lock. */
static bool guest_lock_enter(struct vcpu *v, int li)
{
	struct vm *vm = &S.vms[v->vm];
	struct sim_lock *L = &vm->locks[li];
	sim_time_t t0 = S.now;
	bool got = true;
	v->want_lock = li;
	if (S.cfg->broken_lock)
		got = pvspin_kind_trylock(vm->lock, &L->word);
	else
		pvspin_kind_lock(vm->lock, &L->word);
	v->want_lock = -1;
	lat_add(vm, (double)(S.now - t0));
	if (L->holder >= 0) {
		report_add("INVARIANT BROKEN: two holders of vm%d lock %d: vCPU %d holds it "
			   "and vCPU %d entered at %.9f s\n", v->vm, li, L->holder, v->id,
			   S.now / 1e9);
		vcpu_stop(v, SIM_STOP_TWO_HOLDERS);
	}
	L->holder = v->id;
	v->holds = li;
	return got;
}

/* Leave the critical section of lock `li` and unlock it if held. */
static void guest_lock_exit(struct vcpu *v, int li, bool got)
{
	struct vm *vm = &S.vms[v->vm];
	struct sim_lock *L = &vm->locks[li];
	L->holder = -1;
	v->holds = -1;
	v->unlocking = li;
	if (got)
		pvspin_kind_unlock(vm->lock, &L->word);
	v->unlocking = -1;
	L->ops++;
}

/* Whether v did its fixed work (`work` acquisitions / records). */
static bool vcpu_quota_done(const struct vcpu *v)
{
	return v->quota && v->ops >= v->quota;
}

/* One operation of v's workload done (an acquisition, an ebizzy record). */
static void vcpu_op_done(struct vcpu *v)
{
	v->ops++;
	S.vms[v->vm].ops++;
}

static void vcpu_main(int id)
{
	struct vcpu *v = &S.vcpus[id];
	struct vm *vm = &S.vms[v->vm];
	const struct sim_config *c = S.cfg;

	for (;;) {
		if (vcpu_quota_done(v))
			break;
		vcpu_compute(v, us_to_ns(draw_us(v->rng, c->ncs_dist, c->ncs_us)));
		int li = 0;
		if (vm->nlocks > 1 && gsl_rng_uniform(v->rng) >= c->hot)
			li = 1 + (int)gsl_rng_uniform_int(v->rng, (unsigned long)vm->nlocks - 1);
		bool got = guest_lock_enter(v, li);
		vcpu_compute(v, us_to_ns(draw_us(v->rng, c->cs_dist, c->cs_us)));
		guest_lock_exit(v, li, got);
		vcpu_op_done(v);
	}
	vcpu_finish(v);
}

/* ---- ebizzy-mm: mmap_sem, page faults, TLB shootdown, guest idle ---------
 *
 * The guest kernel pieces of ebizzy -M that the spinlock-only `ebizzy`
 * model lacks (sim/README.md, "ebizzy-mm"):
 *  - IRQ-safe spinlocks (raw_spin_lock_irq): the shipped lock code on the
 *    VM's lock 0 (mmap_sem's wait_lock) and lock 1 (the zone lock); the
 *    vCPU has IRQs off from the call until after the unlock, also while it
 *    is halted in pv_wait (KVM's kvm_wait() uses plain `halt`, not
 *    `safe_halt`, when IRQs are off, so only a kick ends that halt).
 *  - mmap_sem: a minimal sleeping rwsem after kernel/locking/rwsem.c
 *    (v5.x): fast paths are one cmpxchg / fetch_add on `count`; the slow
 *    path queues under wait_lock (FIFO) and the releaser hands the lock to
 *    the head (a writer, or every reader up to the next writer) under
 *    wait_lock, then wakes them (wake_up_q after the unlock).
 *  - Sleeping: a thread with nothing else to run leaves its vCPU idle (the
 *    idle task, lazy TLB): HLT with IRQs on, woken by a reschedule IPI
 *    through the host's wake path (profile ipi_ns).  Seed 001's patch does
 *    not boost these wake-ups (they are not KICK_CPU).
 *  - TLB shootdown (native_flush_tlb_others / kvm_flush_tlb_others): the
 *    sender IPIs every other vCPU of the VM that is not idle, skipping (with
 *    steal_time, KVM_FEATURE_PV_TLB_FLUSH) vCPUs whose steal-time preempted
 *    flag is set, and spins with IRQs on until all have acked.  A target
 *    acks only while it runs with IRQs on.
 */

static void tlb_ack_done(struct vcpu *u)
{
	sim_time_t d = S.now - u->tlb_sent_at;
	u->tlb_pending = false;
	S.tlb_ack_ns += d;
	if (u->tlb_irqoff) {
		S.tlb_acks_irqoff++;
		S.tlb_ack_irqoff_ns += d;
	}
	if (u->tlb_kicked)
		S.tlb_ack_kicked_ns += d;
}

/* The current vCPU (running, IRQs on) takes its pending shootdown IPI. */
static void tlb_ack_self(struct vcpu *v)
{
	struct sim_mm *mm = S.vms[v->vm].mm;
	if (!v->tlb_pending)
		return;
	vcpu_delay(v, us_to_ns(sim_mm_model.flush_us));
	tlb_ack_done(v);
	pvspin_plat_fetch_add32(&mm->tlb_left, (uint32_t)-1, PVSPIN_RELEASE);
}

/* EV_TLB_ACK: the IPI reaches vCPU u; it takes it now if it runs with IRQs
 * on (the handler's time is taken from its running time), else a later
 * sched-in or IRQ enable does. */
static void tlb_ack_event(struct vcpu *u)
{
	if (!u->tlb_pending)
		return;
	/* On a pCPU with IRQs on but its current step not begun (a context
	 * switch, or a memory access waiting for its line): the interrupt is
	 * taken when it begins.  Dropping it here left the sender spinning
	 * for ever on small hosts (a lost IPI of the model, not of a lock). */
	if (u->sched == VS_RUNNING && !u->irqs_off && u->stint_start > S.now) {
		heap_push(u->stint_start, EV_TLB_ACK, (uint32_t)u->id, 0);
		return;
	}
	if (u->sched != VS_RUNNING || u->irqs_off || u->act == VA_HALT)
		return;
	struct sim_mm *mm = S.vms[u->vm].mm;
	sim_time_t h = us_to_ns(sim_mm_model.flush_us);
	account_stint(u, S.now);
	if (u->act == VA_EXEC && u->left != SIM_T_INF) {
		u->left += h;
		arm(u);
	}
	tlb_ack_done(u);
	/* the ack store, as the target's write of the csd line */
	struct line *l = line_of(&mm->tlb_left);
	l->version++;
	l->writer = u->id;
	l->excl = true;
	l->nodes_mask = 1ull << S.pcpus[u->pcpu].node;
	l->seen[u->id] = l->version;
	l->busy_until = S.now;
	mm->tlb_left--;
	mem_written(l);
}

static bool mm_pred_zero(uint32_t x, uint32_t arg)
{
	(void)arg;
	return x == 0;
}

/* Flush the other vCPUs' TLBs for the mm and wait for every ack (called
 * with mmap_sem held for write, IRQs on). */
static void tlb_shootdown(struct vcpu *v)
{
	struct vm *vm = &S.vms[v->vm];
	struct sim_mm *mm = vm->mm;
	sim_time_t t0 = S.now;
	uint32_t n = 0, x;
	/* KVM_FEATURE_PV_SEND_IPI: one hypercall for the whole mask */
	vcpu_delay(v, S.prof->hypercall_ns);
	S.tlb_shootdowns++;
	for (int i = 0; i < vm->n; i++) {
		struct vcpu *u = &S.vcpus[vm->first + i];
		if (u == v || u->sched == VS_DONE)
			continue;
		if (u->guest_idle) {
			S.tlb_skip_idle++;           /* lazy TLB: not flushed */
			continue;
		}
		if (vm->steal_time && u->steal_preempted) {
			S.tlb_skip_preempted++;      /* PV TLB flush: on next entry */
			continue;
		}
		S.tlb_ipis++;
		n++;
		u->tlb_pending = true;
		u->tlb_sent_at = S.now;
		u->tlb_irqoff = u->irqs_off;
		u->tlb_kicked = u->kicked_at != 0;
		S.tlb_irqoff += u->irqs_off;
		S.tlb_kicked += u->tlb_kicked;
		if ((u->sched == VS_HALTED || u->sched == VS_POLLING) && u->act == VA_HALT)
			S.tlb_halted_irqoff += u->irqs_off;
		if (u->sched != VS_RUNNING)
			S.tlb_not_running++;
		else if (!u->irqs_off) {
			sim_time_t at = u->stint_start > S.now ? u->stint_start : S.now;
			heap_push(at + S.prof->vmexit_ns, EV_TLB_ACK, (uint32_t)u->id, 0);
		}
	}
	/* set before anything else runs: no ack can come before this */
	mm->tlb_left = n;
	pvspin_plat_wait32(&mm->tlb_left, mm_pred_zero, 0, 0, &x, NULL);
	sim_time_t d = S.now - t0;
	S.tlb_wait_ns += d;
	if (d > S.tlb_wait_max_ns)
		S.tlb_wait_max_ns = d;
}

/* raw_spin_lock_irq / spin_lock_irqsave on the VM's lock `li`. */
static void mm_spin_lock_irq(struct vcpu *v, int li)
{
	v->irqs_off = true;
	if (!guest_lock_enter(v, li))
		v->mm_not_taken |= 1u << li;   /* broken_lock (TEST ONLY) */
}

static void mm_spin_unlock_irq(struct vcpu *v, int li)
{
	bool got = !(v->mm_not_taken & (1u << li));
	v->mm_not_taken &= ~(1u << li);
	guest_lock_exit(v, li, got);
	v->irqs_off = false;
	tlb_ack_self(v);           /* a pending IPI is taken at IRQ enable */
}

/* The guest idle loop until mmap_sem was handed to v: HLT with IRQs on;
 * a reschedule IPI (or any kick) ends the halt. */
static void mm_sleep(struct vcpu *v)
{
	sim_time_t t0 = S.now;
	S.mm_waits++;
	S.mm_write_waits += v->mm_write;
	v->guest_idle = true;
	v->in_kernel = false;
	while (!v->mm_granted) {
		tlb_ack_self(v);
		if (v->mm_granted)
			break;
		vcpu_delay(v, S.prof->vmexit_ns);        /* the HLT exit */
		if (v->resched_pending || v->pv_unhalted || v->mm_granted) {
			v->resched_pending = false;
			v->pv_unhalted = false;
			continue;
		}
		S.idle_halts++;
		v->halt_ptr = NULL;
		vcpu_halt(v);
		if (v->woken_at) {
			S.mm_wakeups++;
			S.mm_wakeup_ns += S.now - v->woken_at;
			v->woken_at = 0;
		}
		v->resched_pending = false;
	}
	v->guest_idle = false;
	v->in_kernel = true;
	S.mm_wait_ns += S.now - t0;
}

/* Reschedule IPI from the current vCPU to t (ttwu of a thread whose vCPU
 * idles): an x2APIC ICR write (a VM exit) for the sender; a halted target
 * goes through the host's wake path with the profile's IPI latency. */
static void mm_resched_ipi(struct vcpu *v, struct vcpu *t)
{
	vcpu_delay(v, S.prof->vmexit_ns);
	S.resched_ipis++;
	t->resched_pending = true;
	if (t->act != VA_HALT || !t->guest_idle)
		return;                    /* still on its way to the idle loop */
	if (t->sched == VS_HALTED) {
		t->woken_at = S.now;
		vcpu_wake(t, S.now, S.prof->ipi_ns);
	} else if (t->sched == VS_POLLING) {
		t->sched = VS_RUNNING;
		t->stint_start = S.now + S.prof->l1_ns;
		arm(t);
	}
}

/* Under wait_lock: hand mmap_sem to the head of the queue (a writer, or
 * every reader up to the next writer) if it is free.  Returns how many
 * were granted; their slots are in `out`. */
static int mm_grant(struct vcpu *v, struct sim_mm *mm, int nv, int *out)
{
	int k = 0;
	uint32_t c = pvspin_plat_load32(&mm->count, PVSPIN_ACQUIRE);
	if (!mm->qlen || (c & MM_WRITER) || (c & MM_READERS))
		return 0;
	struct vcpu *h = &S.vcpus[mm->q[mm->qhead]];
	if (h->mm_write) {
		out[k++] = h->id;
		mm->qhead = (mm->qhead + 1) % nv;
		mm->qlen--;
		pvspin_plat_fetch_or32(&mm->count, MM_WRITER, PVSPIN_ACQUIRE);
		mm->owner = h->id;
	} else {
		while (mm->qlen && !S.vcpus[mm->q[mm->qhead]].mm_write) {
			out[k++] = mm->q[mm->qhead];
			mm->qhead = (mm->qhead + 1) % nv;
			mm->qlen--;
		}
		pvspin_plat_fetch_add32(&mm->count, (uint32_t)k, PVSPIN_ACQUIRE);
	}
	if (!mm->qlen)
		pvspin_plat_fetch_and32(&mm->count, ~MM_WAITERS, PVSPIN_RELEASE);
	for (int i = 0; i < k; i++)
		S.vcpus[out[i]].mm_granted = true;
	vcpu_compute(v, us_to_ns(sim_mm_model.wake_us * k));
	return k;
}

/* The releaser's slow path: grant under wait_lock, wake after it. */
static void mm_wake(struct vcpu *v, bool clear_writer)
{
	struct vm *vm = &S.vms[v->vm];
	struct sim_mm *mm = vm->mm;
	int out[PVSPIN_MAX_CPUS];
	mm_spin_lock_irq(v, 0);
	if (clear_writer)
		pvspin_plat_fetch_and32(&mm->count, ~MM_WRITER, PVSPIN_RELEASE);
	int k = mm_grant(v, mm, vm->n, out);
	mm_spin_unlock_irq(v, 0);
	for (int i = 0; i < k; i++)
		mm_resched_ipi(v, &S.vcpus[out[i]]);
}

static bool mm_pred_no_writer(uint32_t x, uint32_t arg)
{
	(void)arg;
	return !(x & MM_WRITER);
}

/* The fast path: one cmpxchg when the rwsem is free for us and nobody
 * queues.  Returns whether we got it; *c is the count seen. */
static bool mm_trydown(struct vcpu *v, struct sim_mm *mm, bool write, uint32_t *c)
{
	if (write) {
		*c = 0;
		if (pvspin_plat_cmpxchg32(&mm->count, c, MM_WRITER, PVSPIN_ACQUIRE)) {
			mm->owner = v->id;
			return true;
		}
		return false;
	}
	*c = pvspin_plat_load32(&mm->count, PVSPIN_RELAXED);
	while (!(*c & (MM_WRITER | MM_WAITERS)))
		if (pvspin_plat_cmpxchg32(&mm->count, c, *c + 1, PVSPIN_ACQUIRE))
			return true;
	return false;
}

/* Optimistic spinning (rwsem_optimistic_spin, kernel/locking/rwsem.c,
 * readers too since v5.3): while nobody queues and a writer owns the
 * rwsem and its vCPU is on a CPU (owner_on_cpu(): on_cpu and not
 * vcpu_is_preempted()), spin (IRQs on) instead of sleeping. */
static bool mm_spin_on_owner(struct vcpu *v, struct sim_mm *mm, bool write)
{
	uint32_t c, x;
	for (;;) {
		if (mm_trydown(v, mm, write, &c))
			return true;
		int o = mm->owner;
		if ((c & MM_WAITERS) || !(c & MM_WRITER) || o < 0 ||
		    (S.vcpus[o].sched != VS_RUNNING && S.vcpus[o].sched != VS_READY) ||
		    pvspin_plat_vcpu_is_preempted(o))
			return false;
		/* re-check the owner every 16 PAUSEs, as the kernel's loop
		 * re-reads sem->owner */
		pvspin_plat_wait32(&mm->count, mm_pred_no_writer, 0, 16, &x, NULL);
	}
}

static void mm_down(struct vcpu *v, bool write)
{
	struct vm *vm = &S.vms[v->vm];
	struct sim_mm *mm = vm->mm;
	uint32_t c;
	if (mm_spin_on_owner(v, mm, write))
		return;
	/* slow path: take it under wait_lock if the queue is empty and it is
	 * free for us, else queue (setting WAITERS atomically with the check,
	 * so a fast release cannot slip between them) */
	mm_spin_lock_irq(v, 0);
	vcpu_compute(v, us_to_ns(sim_mm_model.enqueue_us));
	for (;;) {
		c = pvspin_plat_load32(&mm->count, PVSPIN_RELAXED);
		bool free_for_us = !mm->qlen && (write ? c == 0 : !(c & MM_WRITER));
		uint32_t nc = free_for_us ? (write ? MM_WRITER : c + 1) : (c | MM_WAITERS);
		if (pvspin_plat_cmpxchg32(&mm->count, &c, nc, PVSPIN_ACQ_REL)) {
			if (free_for_us && write)
				mm->owner = v->id;
			if (free_for_us) {
				mm_spin_unlock_irq(v, 0);
				return;
			}
			break;
		}
	}
	v->mm_granted = false;
	v->mm_write = write;
	mm->q[(mm->qhead + mm->qlen) % vm->n] = v->id;
	mm->qlen++;
	/* the lock may have been released before WAITERS was set: the
	 * releaser then took its fast path, so grant here */
	int out[PVSPIN_MAX_CPUS];
	int k = mm_grant(v, mm, vm->n, out);
	mm_spin_unlock_irq(v, 0);
	for (int i = 0; i < k; i++)
		if (out[i] != v->id)
			mm_resched_ipi(v, &S.vcpus[out[i]]);
	mm_sleep(v);
	v->mm_granted = false;
}

static void mm_up(struct vcpu *v, bool write)
{
	struct sim_mm *mm = S.vms[v->vm].mm;
	if (write) {
		uint32_t c = MM_WRITER;
		mm->owner = -1;
		if (!pvspin_plat_cmpxchg32(&mm->count, &c, 0, PVSPIN_RELEASE))
			mm_wake(v, true);
		return;
	}
	uint32_t old = pvspin_plat_fetch_add32(&mm->count, (uint32_t)-1, PVSPIN_RELEASE);
	if ((old & MM_READERS) == 1 && (old & MM_WAITERS))
		mm_wake(v, false);
}

/* mmap_sem around a page fault (read) or a brk (write): the vCPU is in
 * the kernel (PLE's kernel mode) from the down until after the up; a
 * write hold's time goes into mm_write_held_ns. */
static void mm_kernel_down(struct vcpu *v, bool write)
{
	v->in_kernel = true;
	mm_down(v, write);
	if (write)
		S.vms[v->vm].mm->write_since = S.now;
}

static void mm_kernel_up(struct vcpu *v, bool write)
{
	if (write)
		S.mm_write_held_ns += S.now - S.vms[v->vm].mm->write_since;
	mm_up(v, write);
	v->in_kernel = false;
}

/* One zone-lock section (rmqueue_bulk / free_pcppages_bulk). */
static void mm_zone_bulk(struct vcpu *v)
{
	int li = S.vms[v->vm].nlocks > 1 ? 1 : 0;
	mm_spin_lock_irq(v, li);
	vcpu_compute(v, us_to_ns(sim_mm_model.zone_hold_us));
	mm_spin_unlock_irq(v, li);
}

/* One ebizzy -M record per iteration (see the model's text). */
static void vcpu_mm_main(struct vcpu *v)
{
	const struct sim_config *c = S.cfg;
	const struct sim_mm_model *m = &sim_mm_model;
	/* pcp pages left on this vCPU's lists before a refill / a drain */
	int pcp_alloc = (int)gsl_rng_uniform_int(v->rng, (unsigned long)m->pcp_batch);
	int pcp_free = (int)gsl_rng_uniform_int(v->rng, (unsigned long)m->pcp_batch);
	sim_time_t memcpy_ns = us_to_ns(c->ncs_us / 2 / m->faults);

	/* which record trims: a random phase per thread */
	int trim = (int)gsl_rng_uniform_int(v->rng, (unsigned long)m->trim_every);
	for (;;) {
		if (vcpu_quota_done(v))
			break;
		if (++trim < m->trim_every) {
			/* the chunk is reused from the heap: mapped already */
			vcpu_compute(v, memcpy_ns * (sim_time_t)m->faults);
			vcpu_compute(v, us_to_ns(draw_us(v->rng, c->ncs_dist, c->ncs_us / 2)));
			vcpu_op_done(v);
			continue;
		}
		trim = 0;
		/* malloc: brk grow */
		mm_kernel_down(v, true);
		vcpu_compute(v, us_to_ns(m->brk_grow_us));
		mm_kernel_up(v, true);
		/* memcpy: half the user time, one page fault per 4 KiB */
		for (int f = 0; f < m->faults; f++) {
			mm_kernel_down(v, false);
			if (pcp_alloc-- <= 0) {
				pcp_alloc = m->pcp_batch - 1;
				mm_zone_bulk(v);
			}
			vcpu_compute(v, us_to_ns(draw_us(v->rng, c->cs_dist, c->cs_us)));
			mm_kernel_up(v, false);
			vcpu_compute(v, memcpy_ns);
		}
		/* search: the other half, drawn */
		vcpu_compute(v, us_to_ns(draw_us(v->rng, c->ncs_dist, c->ncs_us / 2)));
		/* free: heap trim = brk shrink, unmap, shootdown */
		mm_kernel_down(v, true);
		vcpu_compute(v, us_to_ns(m->unmap_us));
		for (int f = 0; f < m->faults; f++)
			if (pcp_free-- <= 0) {
				pcp_free = m->pcp_batch - 1;
				mm_zone_bulk(v);
			}
		tlb_shootdown(v);
		mm_kernel_up(v, true);
		vcpu_op_done(v);
	}
	tlb_ack_self(v);          /* the exiting thread still takes its IPI */
	vcpu_finish(v);
}

static sim_guest_fn guest_fn;

void sim_set_guest(sim_guest_fn fn)
{
	guest_fn = fn;
}

void sim_guest_compute(uint64_t ns)
{
	if (S.cur)
		vcpu_compute(S.cur, ns);
}

uint64_t sim_guest_now(void)
{
	return S.now;
}

static void vcpu_entry(int id)
{
	if (guest_fn) {
		struct vcpu *v = &S.vcpus[id];
		guest_fn(v->vm, v->idx, v->id);
		vcpu_finish(v);
	}
	if (S.mm)
		vcpu_mm_main(&S.vcpus[id]);
	vcpu_main(id);
}

/* ---- periodic sampling: LHP / LWP, deadlock ---------------------------- */

static bool vcpu_stuck(const struct vcpu *v)
{
	switch (v->sched) {
	case VS_DONE:
		return true;
	case VS_HALTED:
	case VS_POLLING:
		return !v->pv_unhalted;
	default:
		return v->act == VA_SPIN && v->left == SIM_T_INF && !v->spin_hit &&
		       !watcher_satisfied(v);
	}
}

static void deadlock_report(void);
static void lost_wakeup_report(const struct vcpu *v, uint64_t ops);

/*
 * Lost wake-up watch (per halted vCPU; a deadlock needs every vCPU stuck,
 * this catches one).  v is halted in pv_wait(ptr, val) with no kick
 * pending although its wait condition is over (*ptr != val: its baton
 * came, or the unlock it waited for happened).  Legitimately that lasts
 * only while the vCPU that owes the kick is on its way: the new holder
 * that hashed v holds the lock until its unlock kicks (no acquisition can
 * complete meanwhile), or an unlocker is between its release store and
 * its KICK_CPU (it is `unlocking`).  So if, with nobody unlocking the
 * lock, its acquisitions advance by more than twice the VM's vCPUs since
 * the condition was first seen over, nobody is left to kick v.  Counted
 * in acquisitions, not time, so no host delay can make it fire falsely.
 * It stops the run as a deadlock (of that vCPU) with its own report.
 */
static bool lost_wakeup_check(void)
{
	for (int i = 0; i < S.nv; i++) {
		struct vcpu *v = &S.vcpus[i];
		bool over = (v->sched == VS_HALTED || v->sched == VS_POLLING) &&
			    v->act == VA_HALT && !v->pv_unhalted && v->want_lock >= 0 &&
			    v->halt_ptr && *v->halt_ptr != v->halt_val;
		if (!over) {
			v->wake_due = false;
			continue;
		}
		struct vm *vm = &S.vms[v->vm];
		struct sim_lock *L = &vm->locks[v->want_lock];
		bool unlocking = false;
		for (int j = 0; j < vm->n && !unlocking; j++)
			unlocking = S.vcpus[vm->first + j].unlocking == v->want_lock;
		if (unlocking || !v->wake_due) {
			v->wake_due = true;
			v->wake_due_ops = L->ops;
			continue;
		}
		if (L->ops - v->wake_due_ops > 2 * (uint64_t)vm->n) {
			S.stop = SIM_STOP_DEADLOCK;   /* of that vCPU */
			lost_wakeup_report(v, L->ops - v->wake_due_ops);
			return true;
		}
	}
	return false;
}

/* One sample of VM vm's queued lock k: a span it stayed free with waiters
 * queued goes into free_queued_ns, and by why nobody took it (a waiter
 * kicked and not yet running, else one preempted) into fq_*_ns. */
static void sample_free_queued(struct vm *vm, int k, sim_time_t period)
{
	struct sim_lock *L = &vm->locks[k];
	uint32_t w = L->word.val;
	if ((vm->lock != PVSPIN_KIND_QSPINLOCK && vm->lock != PVSPIN_KIND_PVQSPINLOCK) ||
	    !(w & _Q_TAIL_MASK) || (w & _Q_LOCKED_PENDING_MASK)) {
		L->fq_prev = false;
		return;
	}
	/* count only idle spans: free and queued at two samples in a row
	 * with no release in between (a hand-off gap is much shorter than
	 * sample_us) */
	bool idle = L->fq_prev && L->fq_ops == L->ops;
	L->fq_prev = true;
	L->fq_ops = L->ops;
	if (!idle)
		return;
	S.free_queued_ns += period;
	bool kicked = false, preempted = false;
	for (int j = 0; j < vm->n; j++) {
		struct vcpu *u = &S.vcpus[vm->first + j];
		if (u->want_lock != k)
			continue;
		kicked |= u->kicked_at != 0;
		preempted |= u->sched == VS_READY;
	}
	if (kicked)
		S.fq_kicked_ns += period;
	else if (preempted)
		S.fq_preempted_ns += period;
}

static void tick(void)
{
	sim_time_t period = S.sample;
	for (int i = 0; i < S.cfg->vms; i++)
		for (int k = 0; k < S.vms[i].nlocks; k++) {
			S.vms[i].locks[k].tmp_preempted = 0;
			sample_free_queued(&S.vms[i], k, period);
		}
	for (int i = 0; i < S.nv; i++) {
		struct vcpu *v = &S.vcpus[i];
		if (v->want_lock >= 0 && v->sched == VS_READY)
			S.vms[v->vm].locks[v->want_lock].tmp_preempted++;
	}
	if (S.mm) {
		for (int i = 0; i < S.cfg->vms; i++) {
			int o = S.vms[i].mm->owner;
			if (o >= 0 && S.vcpus[o].sched != VS_RUNNING)
				S.mm_owner_off_ns += period;
		}
		for (int i = 0; i < S.nv; i++)
			if (S.vcpus[i].mm_granted && S.vcpus[i].guest_idle &&
			    S.vcpus[i].sched != VS_RUNNING)
				S.mm_granted_off_ns += period;
	}
	bool stuck = true;
	for (int i = 0; i < S.nv; i++) {
		struct vcpu *v = &S.vcpus[i];
		if (stuck && !vcpu_stuck(v))
			stuck = false;
		if (v->sched != VS_RUNNING || v->act != VA_SPIN || v->want_lock < 0)
			continue;
		struct sim_lock *L = &S.vms[v->vm].locks[v->want_lock];
		if (L->holder >= 0) {
			if (S.vcpus[L->holder].sched != VS_RUNNING)
				S.lhp_ns += period;
		} else if (L->tmp_preempted) {
			S.lwp_ns += period;
		}
	}
	if (stuck && S.ndone < S.nv) {
		S.stop = SIM_STOP_DEADLOCK;
		deadlock_report();
		return;
	}
	if (lost_wakeup_check())
		return;
	heap_push(S.now + period, EV_TICK, 0, 0);
}

/* ---- reports ------------------------------------------------------------ */

static void lock_report(int vmi, int li)
{
	struct vm *vm = &S.vms[vmi];
	struct sim_lock *L = &vm->locks[li];
	uint32_t w = L->word.val;
	bool queued = vm->lock == PVSPIN_KIND_QSPINLOCK ||
		      vm->lock == PVSPIN_KIND_PVQSPINLOCK;
	report_add("  vm%d lock %d @%p: word 0x%08x", vmi, li, (void *)&L->word, w);
	if (queued) {
		uint32_t tail = w & _Q_TAIL_MASK;
		report_add(" (locked %u, pending %u, tail ", w & _Q_LOCKED_MASK,
			   (w & _Q_PENDING_MASK) >> _Q_PENDING_OFFSET);
		if (tail)
			report_add("cpu %u idx %u)", (tail >> _Q_TAIL_CPU_OFFSET) - 1,
				   (tail & _Q_TAIL_IDX_MASK) >> _Q_TAIL_IDX_OFFSET);
		else
			report_add("none)");
	} else if (vm->lock == PVSPIN_KIND_TICKET) {
		report_add(" (owner %u, next %u)", w & 0xffffu, w >> 16);
	}
	report_add(", holder %d\n", L->holder);
	if (!queued || !(w & _Q_TAIL_MASK))
		return;
	/* Walk the MCS queue: from the tail node back through the nodes whose
	 * next pointer names it (links only go forward), head first. */
	struct pvspin_qnode *chain[PVSPIN_MAX_NODES * 512];
	int n = 0;
	struct pvspin_qnode *node = decode_tail(w & _Q_TAIL_MASK);
	while (node && n < (int)(sizeof(chain) / sizeof(chain[0]))) {
		chain[n++] = node;
		struct pvspin_qnode *prev = NULL;
		for (int i = 0; i < S.nv && !prev; i++)
			for (int k = 0; k < PVSPIN_MAX_NODES; k++)
				if (pvspin_qnodes[S.vcpus[i].id][k].next == node) {
					prev = &pvspin_qnodes[S.vcpus[i].id][k];
					break;
				}
		node = prev;
	}
	report_add("    queue (head first):");
	for (int i = n - 1; i >= 0; i--) {
		struct pvspin_qnode *q = chain[i];
		int cpu = (int)((q - &pvspin_qnodes[0][0]) / PVSPIN_MAX_NODES);
		int idx = (int)((q - &pvspin_qnodes[0][0]) % PVSPIN_MAX_NODES);
		report_add(" [vCPU %d node %d: locked %u state %u]", cpu, idx, q->locked,
			   q->state);
	}
	report_add("\n");
}

static void vcpus_report(void);

static void lost_wakeup_report(const struct vcpu *v, uint64_t ops)
{
	report_add("DEADLOCK (lost wake-up) at %.9f s: vCPU %d (vm%d #%d) is halted in pv_wait since "
		   "%.9f s on byte %p, which no longer reads 0x%02x (0x%02x), with no kick "
		   "pending; lock %d completed %llu acquisitions since with nobody unlocking "
		   "it, so nobody is left to kick it\n", S.now / 1e9, v->id, v->vm, v->idx,
		   v->halt_since / 1e9, (const void *)v->halt_ptr, v->halt_val, *v->halt_ptr,
		   v->want_lock, (unsigned long long)ops);
	report_add("locks:\n");
	lock_report(v->vm, v->want_lock);
	vcpus_report();
}

static void deadlock_report(void)
{
	report_add("DEADLOCK at %.9f s: every vCPU is halted or spinning on a word that "
		   "nothing will change\n", S.now / 1e9);
	report_add("locks:\n");
	for (int i = 0; i < S.cfg->vms; i++)
		for (int k = 0; k < S.vms[i].nlocks; k++) {
			struct sim_lock *L = &S.vms[i].locks[k];
			if (L->word.val || L->holder >= 0)
				lock_report(i, k);
		}
	vcpus_report();
}

/* Every vCPU's host and guest state, one line each. */
static void vcpus_report(void)
{
	report_add("vCPUs:\n");
	for (int i = 0; i < S.nv; i++) {
		struct vcpu *v = &S.vcpus[i];
		report_add("  vCPU %d (vm%d #%d) pcpu %d: %s, %s", v->id, v->vm, v->idx, v->pcpu,
			   vsched_names[v->sched], vact_names[v->act]);
		if (v->act == VA_SPIN && v->spin_addr)
			report_add(" on %p (word 0x%08x)", v->spin_addr,
				   v->spin_ptr ? 0u : *(const uint32_t *)v->spin_addr);
		if (v->want_lock >= 0)
			report_add(", waits for lock %d", v->want_lock);
		if (v->holds >= 0)
			report_add(", holds lock %d", v->holds);
		report_add(", pv_unhalted %d, ops %ld\n", v->pv_unhalted, v->ops);
	}
	if (S.kicks_lost)
		report_add("note: %llu kicks were dropped (lose_kicks=1, test only)\n",
			   (unsigned long long)S.kicks_lost);
}

/* ---- set-up, main loop, results ------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static int setup(const struct sim_config *c)
{
	memset(&S, 0, sizeof(S));
	S.cfg = c;
	S.prof = sim_profile_find(c->profile);
	if (!S.prof) {
		fprintf(stderr, "pvspin-sim: unknown profile '%s'\n", c->profile);
		return -1;
	}
	S.wl = sim_workload_find(c->workload);
	S.slice = c->slice_us >= 0 ? us_to_ns(c->slice_us) : S.prof->slice_ns;
	S.poll = c->halt_poll_us >= 0 ? us_to_ns(c->halt_poll_us) : S.prof->halt_poll_ns;
	S.ple = c->ple < 0 ? S.prof->has_ple : c->ple;
	S.sample = us_to_ns(c->sample_us);
	if (!S.sample)
		S.sample = 10000;
	S.end = (sim_time_t)(c->seconds * 1e9 + 0.5);
	S.nv = c->vms * c->vcpus;
	S.np = c->pcpus;
	S.mm = !strcmp(c->workload, "ebizzy-mm");
	S.vcpus = xcalloc((size_t)S.nv, sizeof(*S.vcpus));
	S.pcpus = xcalloc((size_t)S.np, sizeof(*S.pcpus));
	S.vms = xcalloc((size_t)c->vms, sizeof(*S.vms));

	/* the lock code's tunables are process-wide: set all of them per run */
	pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, c->spin_threshold);
	pvspin_tunable_set(PVSPIN_TUNE_PENDING_LOOPS, c->pending_loops);
	pvspin_tunable_set(PVSPIN_TUNE_TAS_BACKOFF_MAX, c->tas_backoff_max);
	pvspin_tunable_set(PVSPIN_TUNE_EARLY_HALT_PREEMPTED, (uint32_t)c->early_halt_preempted);
	memset(pvspin_qnodes, 0, sizeof(pvspin_qnodes));

	for (int p = 0; p < S.np; p++) {
		S.pcpus[p].id = p;
		S.pcpus[p].node = (int)((long)p * c->nodes / S.np);
	}
	for (int m = 0; m < c->vms; m++) {
		struct vm *vm = &S.vms[m];
		vm->id = m;
		vm->first = m * c->vcpus;
		vm->n = c->vcpus;
		vm->nlocks = c->locks;
		vm->lock = c->vm_lock[m] ? c->vm_lock[m] : c->lock;
		vm->ple = c->vm_ple[m] >= 0 ? c->vm_ple[m] : S.ple;
		vm->kick_yield = c->vm_kick_yield[m] >= 0 ? c->vm_kick_yield[m] : c->kick_yield;
		vm->pv_unhalt = c->vm_pv_unhalt[m] >= 0 ? c->vm_pv_unhalt[m] : c->pv_unhalt;
		vm->steal_time = c->vm_steal_time[m] >= 0 ? c->vm_steal_time[m] : c->steal_time;
		vm->last_boosted = -1 + c->vcpus; /* first boost goes to #0 */
		vm->locks = aligned_alloc(64, (size_t)c->locks * sizeof(struct sim_lock));
		if (!vm->locks)
			oom();
		memset(vm->locks, 0, (size_t)c->locks * sizeof(struct sim_lock));
		for (int k = 0; k < c->locks; k++)
			vm->locks[k].holder = -1;
		if (S.mm) {
			vm->mm = aligned_alloc(64, sizeof(struct sim_mm));
			if (!vm->mm)
				oom();
			memset(vm->mm, 0, sizeof(*vm->mm));
			vm->mm->q = xcalloc((size_t)c->vcpus, sizeof(int));
			vm->mm->owner = -1;
		}
	}
	for (int i = 0; i < S.nv; i++) {
		struct vcpu *v = &S.vcpus[i];
		v->id = i;
		v->vm = i / c->vcpus;
		v->idx = i % c->vcpus;
		v->rq_pos = -1;
		v->want_lock = v->holds = v->unlocking = -1;
		v->quota = c->work;
		v->pinned = -1;
		if (c->dedicated) {
			v->pinned = i;
			v->pcpu = i;
		} else {
			/* VM m's vCPU j starts on pCPU j (mod pCPUs): VMs overlap */
			v->pcpu = v->idx % S.np;
		}
		v->rng = gsl_rng_alloc(gsl_rng_mt19937);
		if (!v->rng)
			oom();
		gsl_rng_set(v->rng, (unsigned long)mix64(c->seed * 1000003ull + (uint64_t)i));
		v->stack = mmap(NULL, SIM_STACK_SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (v->stack == MAP_FAILED)
			oom();
		getcontext(&v->ctx);
		v->ctx.uc_stack.ss_sp = v->stack;
		v->ctx.uc_stack.ss_size = SIM_STACK_SIZE;
		v->ctx.uc_link = &S.main_ctx;
		makecontext(&v->ctx, (void (*)(void))vcpu_entry, 1, i);
		pvspin_qnodes[i][0].count = 0;
		/* every vCPU starts runnable on its pCPU */
		v->act = VA_EXEC;
		v->left = 0;
		v->sched = VS_READY;
		v->ready_since = 0;
		rq_add(&S.pcpus[v->pcpu], v);
	}
	S.host_rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!S.host_rng)
		oom();
	gsl_rng_set(S.host_rng, (unsigned long)mix64(c->seed ^ 0x5EED0F1057ull));
	for (int p = 0; p < S.np; p++) {
		reschedule(&S.pcpus[p], 0);
		/* the VMs did not start in lock-step: a random phase of the
		 * first slice on every pCPU */
		if (S.pcpus[p].curr)
			S.pcpus[p].slice_len = (sim_time_t)gsl_rng_uniform_int(
				S.host_rng, (unsigned long)S.slice) + 1;
		S.pcpus[p].slice_armed = false;
		slice_arm(&S.pcpus[p], 0);
	}
	heap_push(S.sample, EV_TICK, 0, 0);
	heap_push(S.end, EV_END, 0, 0);
	return 0;
}

/* Lock arrays of finished runs, freed only at exit (see teardown()). */
struct retired {
	struct retired *next;
	void *mem;
};
static struct retired *retired_locks;

static void free_retired_locks(void)
{
	while (retired_locks) {
		struct retired *r = retired_locks;
		retired_locks = r->next;
		free(r->mem);
		free(r);
	}
}

static void retire_locks(void *mem)
{
	static bool registered;
	struct retired *r = xcalloc(1, sizeof(*r));
	if (!registered) {
		atexit(free_retired_locks);
		registered = true;
	}
	r->mem = mem;
	r->next = retired_locks;
	retired_locks = r;
}

static void teardown(void)
{
	for (int i = 0; i < S.nv; i++) {
		munmap(S.vcpus[i].stack, SIM_STACK_SIZE);
		gsl_rng_free(S.vcpus[i].rng);
	}
	/* The lock arrays are not freed before exit: the PV lock hash of
	 * src/lock/pvqspinlock.c is static and may still name a lock of a run
	 * that was cut off mid-acquisition; not reusing a lock address keeps a
	 * later run in this process from finding such a stale entry.  They are
	 * freed at exit. */
	for (int m = 0; m < S.cfg->vms; m++) {
		free(S.vms[m].lat);
		retire_locks(S.vms[m].locks);
		if (S.vms[m].mm) {
			free(S.vms[m].mm->q);
			free(S.vms[m].mm);
		}
	}
	for (size_t i = 0; i < S.caplines; i++)
		free(S.lines[i]);
	for (int p = 0; p < S.np; p++)
		free(S.pcpus[p].rq);
	free(S.lines);
	free(S.heap);
	gsl_rng_free(S.host_rng);
	free(S.vcpus);
	free(S.pcpus);
	free(S.vms);
	free(S.report);
	pvspin_set_misuse_handler(NULL);
	memset(&S, 0, sizeof(S));
}

static void run_loop(void)
{
	while (!S.stop && S.nheap) {
		struct event e = heap_pop();
		struct vcpu *v = NULL;
		if (e.type == EV_RESUME || e.type == EV_PLE || e.type == EV_POLL_END) {
			v = &S.vcpus[e.id];
			if ((e.type == EV_PLE ? v->ple_gen : v->gen) != e.gen)
				continue;
		}
		S.now = e.t;
		S.events++;
		switch (e.type) {
		case EV_RESUME:
			account_stint(v, S.now);
			v->gen++;
			v->ple_gen++;
			S.cur = v;
			swapcontext(&S.main_ctx, &v->ctx);
			S.cur = NULL;
			break;
		case EV_PLE:
			/* Pause-loop exit: the window grows x2, the host tries a
			 * directed yield to a preempted vCPU of the VM. */
			account_stint(v, S.now);
			S.ple_exits++;
			v->ple_acc = 0;
			v->ple_window = v->ple_window * 2 > S.prof->ple_window_max_ns
				? S.prof->ple_window_max_ns : v->ple_window * 2;
			v->stint_start = S.now + S.prof->vmexit_ns;
			vcpu_on_spin(v, S.now);
			if (v->sched == VS_RUNNING)
				arm(v);
			break;
		case EV_SLICE: {
			struct pcpu *p = &S.pcpus[e.id];
			if (p->slice_gen != e.gen)
				break;
			p->slice_armed = false;
			if (!p->curr) {
				reschedule(p, S.now);
				break;
			}
			struct vcpu *n = rq_pick(p, NULL);
			if (!n)
				break;
			if (n->vruntime < curr_vr(p, S.now) ||
			    p->curr->sched == VS_POLLING) {
				sched_out(p, S.now, p->curr->sched == VS_POLLING ? VS_HALTED
										: VS_READY);
				sched_in(p, n, S.now);
			} else {
				p->slice_gen++;
				p->slice_armed = true;
				sim_time_t len = slice_len(p);
				if (slice_is_cfs_share())
					p->slice_len = len;
				p->slice_from = S.now;
				p->slice_at = S.now + len;
				heap_push(p->slice_at, EV_SLICE, (uint32_t)p->id, p->slice_gen);
			}
			break;
		}
		case EV_POLL_END: {
			struct pcpu *p = &S.pcpus[v->pcpu];
			if (v->sched != VS_POLLING || p->curr != v)
				break;
			sched_out(p, S.now, VS_HALTED);
			reschedule(p, S.now);
			break;
		}
		case EV_TICK:
			tick();
			break;
		case EV_TLB_ACK:
			tlb_ack_event(&S.vcpus[e.id]);
			break;
		case EV_END:
			S.stop = SIM_STOP_END;
			break;
		}
	}
	if (!S.stop) {
		/* no event left at all: only possible when nothing can run */
		S.stop = SIM_STOP_DEADLOCK;
		deadlock_report();
	}
}

static json_t *latency_json(struct vm *vm)
{
	json_t *o = json_object();
	if (!vm->nlat) {
		json_object_set_new(o, "count", json_integer(0));
		return o;
	}
	gsl_sort(vm->lat, 1, vm->nlat);
	double mean = gsl_stats_mean(vm->lat, 1, vm->nlat);
	json_object_set_new(o, "count", json_integer((json_int_t)vm->nlat));
	json_object_set_new(o, "mean", json_real(round(mean)));
	static const struct { const char *k; double q; } qs[] = {
		{ "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 }, { "p999", 0.999 } };
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		json_object_set_new(o, qs[i].k, json_real(round(
			gsl_stats_quantile_from_sorted_data(vm->lat, 1, vm->nlat, qs[i].q))));
	json_object_set_new(o, "max", json_real(vm->lat[vm->nlat - 1]));
	return o;
}

static const char *stop_name(enum sim_stop s)
{
	switch (s) {
	case SIM_STOP_END: return "end";
	case SIM_STOP_DONE: return "done";
	case SIM_STOP_DEADLOCK: return "deadlock";
	case SIM_STOP_TWO_HOLDERS: return "two_holders";
	case SIM_STOP_MISUSE: return "misuse";
	default: return "none";
	}
}

/* Close the open accounting intervals at the end of the run. */
static void finalize_accounting(void)
{
	for (int p = 0; p < S.np; p++) {
		struct pcpu *pc = &S.pcpus[p];
		if (!pc->curr)
			continue;
		sim_time_t dt = S.now - pc->curr_since;
		pc->curr->run_ns += dt;
		pc->busy_ns += dt;
		pc->curr_since = S.now;
		account_stint(pc->curr, S.now);
	}
	for (int i = 0; i < S.nv; i++)
		if (S.vcpus[i].sched == VS_READY) {
			S.vcpus[i].ready_ns += S.now - S.vcpus[i].ready_since;
			S.vcpus[i].ready_since = S.now;
		}
}

static json_t *results_json(double wall)
{
	const struct sim_config *c = S.cfg;
	json_t *root = json_object(), *vms = json_array(), *host = json_object();
	json_object_set_new(root, "config", sim_config_json(c));
	json_object_set_new(root, "workload_model",
			    json_string(S.wl ? S.wl->approximates : ""));
	json_object_set_new(root, "stop", json_string(stop_name(S.stop)));
	json_object_set_new(root, "sim_seconds", json_real(S.now / 1e9));
	sim_time_t run_tot = 0, ready_tot = 0, spin_tot = 0;
	for (int m = 0; m < c->vms; m++) {
		struct vm *vm = &S.vms[m];
		json_t *o = json_object(), *per = json_array(), *ev = json_object();
		double sum = 0, sq = 0;
		sim_time_t vm_spin = 0, vm_run = 0;
		for (int i = 0; i < vm->n; i++) {
			struct vcpu *v = &S.vcpus[vm->first + i];
			sum += (double)v->ops;
			sq += (double)v->ops * (double)v->ops;
			json_array_append_new(per, json_integer(v->ops));
			vm_spin += v->spin_ns;
			vm_run += v->run_ns;
			run_tot += v->run_ns;
			ready_tot += v->ready_ns;
			spin_tot += v->spin_ns;
		}
		double span = vm->done_at ? vm->done_at / 1e9 : S.now / 1e9;
		json_object_set_new(o, "lock", json_string(pvspin_kind_name(vm->lock)));
		json_object_set_new(o, "ops", json_integer(vm->ops));
		json_object_set_new(o, "ops_per_s", json_real(span > 0 ? round(vm->ops / span) : 0));
		json_object_set_new(o, "completion_s",
				    vm->done_at ? json_real(vm->done_at / 1e9) : json_null());
		json_object_set_new(o, "latency_ns", latency_json(vm));
		json_object_set_new(o, "jain", json_real(sq > 0 ? sum * sum / (vm->n * sq) : 1.0));
		json_object_set_new(o, "spin_pct",
				    json_real(vm_run ? 100.0 * vm_spin / vm_run : 0));
		/* share of the VM's vCPU time on a pCPU (halted, preempted and
		 * idle-after-done time are the rest) */
		json_object_set_new(o, "cpu_pct", json_real(S.now ? 100.0 * vm_run /
							     ((double)S.now * vm->n) : 0));
		for (int e = 0; e < PVSPIN_EV_COUNT; e++)
			json_object_set_new(ev, pvspin_event_name(e), json_integer(vm->events[e]));
		json_object_set_new(o, "lock_events", ev);
		json_object_set_new(o, "vcpu_ops", per);
		json_t *runs = json_array();
		for (int i = 0; i < vm->n; i++)
			json_array_append_new(runs, json_integer(
				(json_int_t)S.vcpus[vm->first + i].run_ns));
		json_object_set_new(o, "vcpu_run_ns", runs);
		json_array_append_new(vms, o);
	}
	json_object_set_new(root, "vms", vms);
	json_object_set_new(host, "halts", json_integer((json_int_t)S.halts));
	json_object_set_new(host, "kicks", json_integer((json_int_t)S.kicks));
	json_object_set_new(host, "ple_exits", json_integer((json_int_t)S.ple_exits));
	json_object_set_new(host, "directed_yields", json_integer((json_int_t)S.dyields));
	json_object_set_new(host, "kicks_to_ready", json_integer((json_int_t)S.kick_ready));
	json_object_set_new(host, "kick_yields", json_integer((json_int_t)S.kick_yields));
	json_object_set_new(host, "kick_waits", json_integer((json_int_t)S.kick_waits));
	json_object_set_new(host, "kick_wait_ns", json_integer((json_int_t)S.kick_wait_ns));
	json_object_set_new(host, "free_queued_ns", json_integer((json_int_t)S.free_queued_ns));
	json_object_set_new(host, "free_queued_kicked_ns", json_integer((json_int_t)S.fq_kicked_ns));
	json_object_set_new(host, "free_queued_preempted_ns",
			    json_integer((json_int_t)S.fq_preempted_ns));
	json_object_set_new(host, "lhp_ns", json_integer((json_int_t)S.lhp_ns));
	json_object_set_new(host, "lwp_ns", json_integer((json_int_t)S.lwp_ns));
	json_object_set_new(host, "steal_pct", json_real(run_tot + ready_tot
		? 100.0 * ready_tot / (run_tot + ready_tot) : 0));
	json_object_set_new(host, "spin_ns", json_integer((json_int_t)spin_tot));
	sim_time_t busy = 0;
	for (int p = 0; p < S.np; p++)
		busy += S.pcpus[p].busy_ns;
	json_object_set_new(host, "pcpu_busy_pct",
			    json_real(S.now ? 100.0 * busy / ((double)S.now * S.np) : 0));
	json_object_set_new(root, "host", host);
	if (S.mm) {
		json_t *mm = json_object();
#define MMJ(k, v) json_object_set_new(mm, k, json_integer((json_int_t)(v)))
		MMJ("mm_waits", S.mm_waits);
		MMJ("mm_write_waits", S.mm_write_waits);
		MMJ("mm_wait_ns", S.mm_wait_ns);
		MMJ("mm_write_held_ns", S.mm_write_held_ns);
		MMJ("idle_halts", S.idle_halts);
		MMJ("lock_preempts", S.lock_preempts);
		MMJ("lock_preempt_ns", S.lock_preempt_ns);
		MMJ("lock_preempt_max_ns", S.lock_preempt_max_ns);
		MMJ("mm_wakeups", S.mm_wakeups);
		MMJ("mm_wakeup_ns", S.mm_wakeup_ns);
		MMJ("mm_owner_off_ns", S.mm_owner_off_ns);
		MMJ("mm_granted_off_ns", S.mm_granted_off_ns);
		MMJ("resched_ipis", S.resched_ipis);
		MMJ("tlb_shootdowns", S.tlb_shootdowns);
		MMJ("tlb_ipis", S.tlb_ipis);
		MMJ("tlb_skip_idle", S.tlb_skip_idle);
		MMJ("tlb_skip_preempted", S.tlb_skip_preempted);
		MMJ("tlb_not_running", S.tlb_not_running);
		MMJ("tlb_irqoff", S.tlb_irqoff);
		MMJ("tlb_halted_irqoff", S.tlb_halted_irqoff);
		MMJ("tlb_kicked", S.tlb_kicked);
		MMJ("tlb_wait_ns", S.tlb_wait_ns);
		MMJ("tlb_wait_max_ns", S.tlb_wait_max_ns);
		MMJ("tlb_ack_ns", S.tlb_ack_ns);
		MMJ("tlb_acks_irqoff", S.tlb_acks_irqoff);
		MMJ("tlb_ack_irqoff_ns", S.tlb_ack_irqoff_ns);
		MMJ("tlb_ack_kicked_ns", S.tlb_ack_kicked_ns);
#undef MMJ
		json_object_set_new(root, "mm", mm);
	}
	json_object_set_new(root, "events", json_integer((json_int_t)S.events));
	json_object_set_new(root, "events_per_s", json_real(wall > 0 ? round(S.events / wall) : 0));
	json_object_set_new(root, "wall_seconds", json_real(wall));
	return root;
}

int sim_run(const struct sim_config *c, struct sim_result *out)
{
	static struct sim_config rc;   /* S.cfg points here during the run */
	struct timespec t0, t1;
	memset(out, 0, sizeof(*out));
	rc = *c;
	sim_config_resolve(&rc);
	c = &rc;
	if (sim_config_check(c, stderr))
		return -1;
	if (setup(c))
		return -1;
	pvspin_set_misuse_handler(sim_misuse);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_loop();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	out->stop = S.stop;
	finalize_accounting();
	out->json = results_json(wall);
	if (S.report) {
		out->report = strdup(S.report);
		json_object_set_new(out->json, "report", json_string(S.report));
	}
	int ret = (S.stop == SIM_STOP_END || S.stop == SIM_STOP_DONE) ? 0 : 1;
	teardown();
	return ret;
}

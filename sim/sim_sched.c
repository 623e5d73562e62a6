/*
 * sim_sched.c - the host scheduler of the simulated machine, after Linux
 * CFS/EEVDF as used by KVM hosts: per-pCPU run queues ordered by virtual
 * runtime, a base slice (or CFS's share of sched_latency), wake-up
 * placement on an idle pCPU (same node first), wake-up preemption, idle
 * pulling, pinning for dedicated pCPUs, and the scheduler's half of a
 * directed yield (yield_to).  KVM's side (halt, kick, PLE) is sim_kvm.c.
 */
#define _GNU_SOURCE
#include "sim_internal.h"

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

void rq_add(struct pcpu *p, struct vcpu *v)
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

/* ---- a periodic tick (profiles with tick_ns: EEVDF, Linux >= 6.6) -------
 *
 * Without HRTICK (a scheduler feature, off by default:
 * kernel/sched/features.h) the fair class notices that the running task
 * used its slice only when update_curr() runs: at the tick of its CPU
 * (task_tick_fair) and when a task is enqueued there (a wake-up).  A slice
 * of the base length therefore lasts until the first tick after it ran
 * out; with CONFIG_HZ=250 and the 1.5 ms base slice of 2 CPUs, a slice
 * that starts at a tick lasts one whole 4 ms tick (sim/twin_costs.c
 * measures the run length on the machine twin).  A task alone on its CPU
 * is not preempted, but its deadline is renewed at the first tick after it
 * passes (update_deadline()): windows of the base slice rounded up to
 * whole ticks follow one another from there. */
static bool tick_mode(void)
{
	return S.prof->tick_ns != 0;
}

/* The first tick of p at or after t. */
static sim_time_t next_tick(const struct pcpu *p, sim_time_t t)
{
	sim_time_t T = S.prof->tick_ns;
	if (t <= p->tick_phase)
		return p->tick_phase;
	return p->tick_phase + (t - p->tick_phase + T - 1) / T * T;
}

/* The slice window of p's current vCPU at time t: returns the tick it
 * ends at, *from its start (slice_from, or the tick that renewed the
 * deadline of a vCPU that ran alone past its slice). */
static sim_time_t tick_window(const struct pcpu *p, sim_time_t t, sim_time_t *from)
{
	sim_time_t end = p->slice_from + p->slice_len;
	*from = p->slice_from;
	if (end < t) {
		sim_time_t T = S.prof->tick_ns, per = (S.slice + T - 1) / T * T;
		end += (t - end + per - 1) / per * per;
		*from = end - per;
	}
	return end;
}

/* How long after its tick a slice that ends there ends (a draw). */
static sim_time_t tick_jitter(void)
{
	sim_time_t j = S.prof->tick_jitter_ns;
	return j ? (sim_time_t)gsl_rng_uniform_int(S.host_rng, (unsigned long)j) : 0;
}

static sim_time_t slice_len(struct pcpu *p)
{
	if (tick_mode())
		return next_tick(p, p->slice_from + S.slice) - p->slice_from;
	sim_time_t j = (sim_time_t)gsl_rng_uniform_int(S.host_rng, SIM_TICK_NS);
	p->slice_jit = j;
	return slice_compose(slice_base(p->nrq + 1), j);
}

/* Arm the end of the current slice once somebody waits on p.  Under CFS
 * the ideal slice is recomputed from the tasks runnable now, as
 * check_preempt_tick() does at every tick with sched_slice(): a vCPU
 * that took an empty pCPU got all of sched_latency (24 ms), but once a
 * woken vCPU waits beside it its share is 12 ms (8 ms with three). */
void slice_arm(struct pcpu *p, sim_time_t t)
{
	if (!p->curr || !p->nrq)
		return;
	if (!slice_is_cfs_share()) {
		if (p->slice_armed)
			return;
		sim_time_t from, at = tick_mode() ? tick_window(p, t, &from) + tick_jitter()
						  : p->curr_since + p->slice_len;
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

/*
 * The rseq time-slice extension of Linux 7.0 (key slice_ext_us; the
 * machine twin only, where a vCPU stands for a thread): p's current thread
 * is about to be preempted, and it asked not to be
 * (pvspin_plat_slice_ext_begin: a spinpark holder) and has no grant yet.
 * The kernel grants instead: it clears the request, sets granted and arms
 * a timer of slice_ext_us; the thread runs on until it gives the CPU back
 * (rseq_slice_yield, pvspin_plat_slice_ext_end in sim_kvm.c) or the timer
 * ends the grant (EV_SLICE: sched_slice_end, which then preempts as it
 * would have).  After Documentation/userspace-api/rseq.rst.  True:
 * deferred.
 */
static bool slice_ext_defer(struct pcpu *p, sim_time_t t)
{
	struct vcpu *v = p->curr;
	/* slice_req is only ever set with slice_ext_us on (sim_kvm.c) */
	if (!v || !v->slice_req || v->slice_granted || v->sched != VS_RUNNING)
		return false;
	v->slice_req = false;
	v->slice_granted = true;
	S.slice_ext_grants++;
	p->slice_gen++;
	p->slice_armed = true;
	p->slice_at = t + S.slice_ext;
	heap_push(p->slice_at, EV_SLICE, (uint32_t)p->id, p->slice_gen);
	return true;
}

/* Take p's current vCPU off at time t into state `to`. */
void sched_out(struct pcpu *p, sim_time_t t, enum vsched to)
{
	struct vcpu *v = p->curr;
	v->slice_granted = false;   /* a reschedule ends a time-slice extension */
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
void sched_in(struct pcpu *p, struct vcpu *v, sim_time_t t)
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
void reschedule(struct pcpu *p, sim_time_t t)
{
	if (p->curr)
		return;
	struct vcpu *n = rq_pick(p, NULL);
	if (!n)
		n = idle_pull(p);
	if (n)
		sched_in(p, n, t);
}

/* A vCPU just joined p's run queue at time t (a wake-up) on a profile with
 * eevdf_wakeup: what check_preempt_wakeup_fair() and the update_curr()
 * before it decide (kernel/sched/fair.c, Linux 6.6 to 6.18).  The current
 * vCPU keeps p while it is eligible (its vruntime not above the average of
 * p's runnable vCPUs) and protected (RUN_TO_PARITY: inside the base slice
 * of its window; every vCPU has the same slice).  Otherwise the pick is
 * made now, as at a slice end: the vCPU with the smallest vruntime (the
 * eligible one with the earliest deadline, equal slices) takes p if it is
 * behind the current one; if not, a current vCPU whose slice ran out starts
 * a new one (update_deadline()). */
static void eevdf_wakeup(struct pcpu *p, sim_time_t t)
{
	int64_t cvr = curr_vr(p, t), sum = cvr;
	for (int i = 0; i < p->nrq; i++)
		sum += p->rq[i]->vruntime;
	bool eligible = cvr * (int64_t)(p->nrq + 1) <= sum;
	sim_time_t from;
	tick_window(p, t, &from);
	bool protect = t < from + S.slice;
	if (eligible && protect) {
		slice_arm(p, t);
		return;
	}
	struct vcpu *n = rq_pick(p, NULL);
	if (n->vruntime < cvr) {
		if (slice_ext_defer(p, t))
			return;
		sched_out(p, t, VS_READY);
		sched_in(p, n, t);
		return;
	}
	if (!protect) {
		p->slice_from = t;
		p->slice_len = slice_len(p);
		p->slice_armed = false;
	}
	slice_arm(p, t);
}

/* Wake a HALTED vCPU at time t; `extra` ns of wake-up latency (IPI). */
void vcpu_wake(struct vcpu *v, sim_time_t t, sim_time_t extra)
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
	if (S.prof->eevdf_wakeup) {
		eevdf_wakeup(p, t);
	} else if (v->vruntime + (int64_t)S.prof->wakeup_gran_ns < curr_vr(p, t)) {
		if (slice_ext_defer(p, t))
			return;
		sched_out(p, t, VS_READY);
		sched_in(p, v, t);
	} else {
		slice_arm(p, t);
	}
}

/* May `t` (READY on p) be picked now although p's current vCPU has not used
 * its slice?  CFS/EEVDF honour a "next buddy" only if it is not ahead of
 * the current one by more than the wake-up granularity (fairness first). */
bool buddy_eligible(struct vcpu *t, struct pcpu *p, sim_time_t now)
{
	return !p->curr || p->curr->sched == VS_POLLING ||
	       t->vruntime <= curr_vr(p, now) + (int64_t)S.prof->wakeup_gran_ns;
}

/* The yielder's side of yield_to(): y calls schedule() and gives its pCPU
 * to the next eligible vCPU waiting there, if any (kernel/sched/core.c). */
void yielder_step_aside(struct vcpu *y, sim_time_t now)
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

/* EV_SLICE (current generation): p's slice is over.  The next vCPU of
 * its run queue takes p if it is behind the current one in virtual
 * runtime (or the current one only halt-polls); else the current one
 * starts another slice. */
void sched_slice_end(struct pcpu *p)
{
	p->slice_armed = false;
	if (!p->curr) {
		reschedule(p, S.now);
		return;
	}
	/* a time-slice extension's timer: the grant is over, no second one */
	bool extended = p->curr->slice_granted;
	p->curr->slice_granted = false;
	struct vcpu *n = rq_pick(p, NULL);
	if (!n)
		return;
	if (n->vruntime < curr_vr(p, S.now) ||
	    p->curr->sched == VS_POLLING) {
		if (!extended && slice_ext_defer(p, S.now))
			return;
		sched_out(p, S.now, p->curr->sched == VS_POLLING ? VS_HALTED
								: VS_READY);
		if (tick_mode() && S.prof->tick_switch_ns > S.prof->ctx_switch_ns)
			n->wake_extra = S.prof->tick_switch_ns - S.prof->ctx_switch_ns;
		sched_in(p, n, S.now);
	} else {
		p->slice_gen++;
		p->slice_armed = true;
		p->slice_from = S.now;
		sim_time_t len = slice_len(p);
		if (slice_is_cfs_share() || tick_mode())
			p->slice_len = len;
		p->slice_at = S.now + len + (tick_mode() ? tick_jitter() : 0);
		heap_push(p->slice_at, EV_SLICE, (uint32_t)p->id, p->slice_gen);
	}
}

/*
 * sim_guest_sched.c - the guest's own scheduler of the `ebizzy-mm` model's
 * threads (sim/README.md, "The overcommit curve"): a minimal CFS per vCPU
 * after the v5.x kernel's kernel/sched/fair.c.  vruntime = time current
 * on the vCPU; place_entity()'s sleeper credit and check_preempt_wakeup()
 * on a wake-up, check_preempt_tick() at user-mode preemption points,
 * select_idle_sibling() for a woken thread whose vCPU is busy,
 * newidle_balance() for a vCPU about to idle, and the idle loop itself
 * (HLT until a reschedule IPI).  No periodic balancing.  The threads' work
 * (mmap_sem, faults, shootdowns) is sim_guest_mm.c's.
 */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "sim_guest_sched.h"

struct gthread *gt_threads;
struct gthread **gt_current;
int gt_tpv;
static int *gt_woken;           /* per vCPU: the threads its grant woke */

int mm_threads_per_vcpu(void)
{
	return S.cfg->threads > 0 ? S.cfg->threads : sim_mm_model.threads;
}

void gt_setup(void)
{
	gt_tpv = mm_threads_per_vcpu();
	gt_threads = xcalloc((size_t)S.nv * (size_t)gt_tpv, sizeof(*gt_threads));
	gt_current = xcalloc((size_t)S.nv, sizeof(*gt_current));
	gt_woken = xcalloc((size_t)S.nv * (size_t)S.cfg->vcpus * (size_t)gt_tpv, sizeof(int));
	for (int i = 0; i < S.nv * gt_tpv; i++) {
		struct gthread *t = &gt_threads[i];
		t->v = &S.vcpus[i / gt_tpv];
		t->g = i;
		t->state = GT_READY;
		if (i % gt_tpv == 0) {
			/* thread 0 runs on its vCPU's coroutine from the start */
			t->state = GT_RUN;
			gt_current[i / gt_tpv] = t;
			continue;
		}
		t->stack = coroutine_make(&t->ctx, gt_entry, i);
	}
}

void mm_threads_free(void)
{
	if (gt_threads)
		for (int i = 0; i < S.nv * gt_tpv; i++)
			if (gt_threads[i].stack)
				munmap(gt_threads[i].stack, SIM_STACK_SIZE);
	free(gt_threads);
	free(gt_current);
	free(gt_woken);
	gt_threads = NULL;
	gt_current = NULL;
	gt_woken = NULL;
}

int *gt_wbuf(const struct vcpu *v)
{
	return gt_woken + (size_t)v->id * (size_t)S.cfg->vcpus * (size_t)gt_tpv;
}

void gt_clock_stop(struct gthread *t)
{
	if (t->on)
		t->vr += (int64_t)(S.now - t->since);
	t->on = false;
}

void gt_clock_start(struct gthread *t)
{
	if (!t->on)
		t->since = S.now;
	t->on = true;
}

static int64_t gt_vr(const struct gthread *t)
{
	return t->on ? t->vr + (int64_t)(S.now - t->since) : t->vr;
}

/* The threads that may be on v: those of its VM (a thread moves only
 * between the vCPUs of its VM), slots [*lo, *hi). */
static void gt_vm_range(const struct vcpu *v, int *lo, int *hi)
{
	const struct vm *vm = &S.vms[v->vm];
	*lo = vm->first * gt_tpv;
	*hi = (vm->first + vm->n) * gt_tpv;
}

/* The READY thread of v with the least vruntime (pick_next_entity), or
 * NULL; *nready counts them. */
static struct gthread *gt_pick(const struct vcpu *v, int *nready)
{
	struct gthread *best = NULL;
	int n = 0, lo, hi;
	gt_vm_range(v, &lo, &hi);
	for (int i = lo; i < hi; i++) {
		struct gthread *t = &gt_threads[i];
		if (t->v != v || t->state != GT_READY)
			continue;
		n++;
		if (!best || t->vr < best->vr)
			best = t;
	}
	if (nready)
		*nready = n;
	return best;
}

/* Whether every thread on v is done. */
static bool gt_all_done(const struct vcpu *v)
{
	int lo, hi;
	gt_vm_range(v, &lo, &hi);
	for (int i = lo; i < hi; i++)
		if (gt_threads[i].v == v && gt_threads[i].state != GT_DONE)
			return false;
	return true;
}

/* newidle_balance() (kernel/sched/fair.c): a vCPU about to idle pulls a
 * READY thread waiting on another vCPU of the VM, searched from its own
 * onwards (the guest taken as one LLC domain; no migration-cost check).
 * Never the thread whose stack a vCPU is still on (its current one). */
static struct gthread *gt_steal(const struct vcpu *v)
{
	struct vm *vm = &S.vms[v->vm];
	for (int j = 1; j < vm->n; j++) {
		struct vcpu *w = &S.vcpus[vm->first + (v->idx + j) % vm->n];
		struct gthread *r = gt_pick(w, NULL);
		if (r && gt_current[w->id] != r)
			return r;
	}
	return NULL;
}

/* context_switch() inside the guest: `from` (its state already set) gives
 * the vCPU to `to`; returns when somebody switches back to `from`.  The
 * switch's cost is charged after the swap, by the thread that comes in
 * (gt_entry() for a new one): until from->ctx is saved nothing may yield,
 * or another vCPU could resume `from` (a woken thread moves) from a stale
 * context. */
static void gt_switch(struct gthread *from, struct gthread *to)
{
	struct vcpu *v = from->v;
	gt_clock_stop(from);
	S.gt_switches++;
	to->state = GT_RUN;
	gt_current[v->id] = to;
	gt_clock_start(to);
	swapcontext(&from->ctx, &to->ctx);
	vcpu_compute(from->v, us_to_ns(sim_mm_model.gswitch_us));
}

/* A preemption point in user mode (IRQs on): switch to a READY thread if
 * a wake-up asked for it (need_resched) or t ran its share of the guest
 * period (check_preempt_tick: sched_latency / nr_running). */
struct vcpu *gt_preempt_point(struct gthread *t)
{
	struct vcpu *v = t->v;
	int n;
	struct gthread *r = gt_pick(v, &n);
	bool want = v->need_resched;
	v->need_resched = false;
	if (!r)
		return v;
	sim_time_t share = us_to_ns(sim_mm_model.glatency_us) / (sim_time_t)(n + 1);
	if (!want && !(t->on && S.now - t->since >= share))
		return v;
	S.gt_preempts++;
	t->state = GT_READY;
	gt_switch(t, r);
	v = t->v;                 /* an idle vCPU may have pulled t */
	v->in_kernel = false;
	return v;
}

/* schedule() of thread t that cannot run (asleep on mmap_sem, or done):
 * the vCPU runs its other READY threads; with none it idles (the idle
 * task, lazy TLB): HLT with IRQs on until a reschedule IPI (or any kick).
 * Returns once t was handed mmap_sem and runs again (never for GT_DONE). */
void gt_schedule(struct gthread *t)
{
	struct vcpu *v = t->v;
	gt_clock_stop(t);
	while (!t->granted) {
		tlb_ack_self(v);
		if (t->granted)
			break;
		if (t->state == GT_DONE && gt_all_done(v)) {
			tlb_ack_self(v);  /* the exiting thread still takes its IPI */
			vcpu_finish(v);
		}
		struct gthread *r = gt_pick(v, NULL);
		if (!r && !vcpu_quota_done(v) && (r = gt_steal(v))) {
			r->v = v;
			S.gt_migrations++;
		}
		if (r) {
			gt_switch(t, r);
			v = t->v;         /* a wake-up may have moved t */
			continue;
		}
		v->guest_idle = true;
		vcpu_delay(v, S.prof->vmexit_ns);        /* the HLT exit */
		if (v->resched_pending || v->pv_unhalted || t->granted ||
		    gt_pick(v, NULL)) {
			v->resched_pending = false;
			v->pv_unhalted = false;
			v->guest_idle = false;
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
		v->guest_idle = false;
	}
	t->state = GT_RUN;
	gt_current[v->id] = t;
	gt_clock_start(t);
}

/* Reschedule IPI from the current vCPU to t: an x2APIC ICR write (a VM
 * exit) for the sender; a halted target goes through the host's wake
 * path with the profile's IPI latency. */
static void mm_resched_ipi(struct vcpu *v, struct vcpu *t)
{
	vcpu_delay(v, S.prof->vmexit_ns);
	S.resched_ipis++;
	t->resched_pending = true;
	if (t->act != VA_HALT || !t->guest_idle)
		return;                    /* still on its way to the idle loop */
	if (t->sched == VS_HALTED)
		t->woken_at = S.now;
	vcpu_kick_wake(t);
}

/* try_to_wake_up() of thread x (granted mmap_sem) by the current vCPU v:
 * place it (sleeper credit), decide wake-up preemption, and IPI its vCPU
 * if that idles or must preempt (a local wake-up needs no IPI). */
void mm_wake_thread(struct vcpu *v, struct gthread *x)
{
	struct vcpu *u = x->v;
	struct gthread *c = gt_current[u->id];
	if (x->state == GT_RUN)
		return;                    /* not asleep yet: it sees `granted` */
	bool idle = c->state != GT_RUN;
	if (!idle && x != c) {
		/* select_task_rq_fair() -> select_idle_sibling(): its vCPU is
		 * busy, so the thread goes to an idle vCPU of the VM if there
		 * is one (the guest taken as one LLC domain), searched from
		 * its own onwards */
		struct vm *vm = &S.vms[u->vm];
		for (int j = 1; j < vm->n; j++) {
			struct vcpu *w = &S.vcpus[vm->first + (u->idx + j) % vm->n];
			if (w->sched != VS_DONE && !vcpu_quota_done(w) &&
			    gt_current[w->id]->state != GT_RUN) {
				x->v = u = w;
				c = gt_current[u->id];
				idle = true;
				S.gt_migrations++;
				break;
			}
		}
	}
	int64_t cvr = gt_vr(c);
	int64_t floor = cvr - (int64_t)us_to_ns(sim_mm_model.glatency_us) / 2;
	if (x->vr < floor)
		x->vr = floor;
	bool preempt = !idle && cvr - x->vr > (int64_t)us_to_ns(sim_mm_model.gwakeup_gran_us);
	if (preempt)
		u->need_resched = true;
	if (u != v && (idle || preempt))
		mm_resched_ipi(v, u);
}


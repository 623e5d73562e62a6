/*
 * sim_guest.c - the guest side every workload model shares (draws from the
 * workload's distributions, compute time, entering and leaving a critical
 * section of a VM lock, finishing), the spinlock-loop model (kcbench,
 * ebizzy, spawn, messaging: non-critical section, lock, critical section,
 * unlock), the test hooks, and the coroutine entry that picks the model.
 */
#define _GNU_SOURCE
#include "sim_internal.h"

/* ---- what every workload model uses ---------------------------------- */

double draw_us(gsl_rng *r, enum sim_dist d, double mean)
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

sim_time_t us_to_ns(double us)
{
	return us <= 0 ? 0 : (sim_time_t)(us * 1000.0 + 0.5);
}

/* Compute (not lock-related) running time: ends any spin for PLE. */
void vcpu_compute(struct vcpu *v, sim_time_t ns)
{
	v->ple_acc = 0;
	vcpu_delay(v, ns);
}

/* Record one lock wait.  Every wait is kept up to SIM_LAT_KEEP (so a run
 * of up to that many waits per VM reports exact percentiles); beyond it a
 * uniform reservoir of SIM_LAT_KEEP waits is kept (Vitter's algorithm R),
 * drawn from the VM's own splitmix64 stream so that the workload's random
 * draws are the same as without it: memory stays bounded however long the
 * run (it grew by 8 bytes per wait, about 7 MB per simulated second of the
 * smoke preset).  Count, mean and max stay over every wait. */
static void lat_add(struct vm *vm, double ns)
{
	vm->lat_seen++;
	vm->lat_sum += ns;
	if (ns > vm->lat_max)
		vm->lat_max = ns;
	if (vm->nlat == SIM_LAT_KEEP) {
		uint64_t j = sim_mix64(vm->lat_rng) % vm->lat_seen;
		vm->lat_rng += 0x9E3779B97F4A7C15ull;
		if (j < SIM_LAT_KEEP)
			vm->lat[j] = ns;
		return;
	}
	if (vm->nlat == vm->caplat) {
		vm->caplat = vm->caplat ? 2 * vm->caplat : 4096;
		if (vm->caplat > SIM_LAT_KEEP)
			vm->caplat = SIM_LAT_KEEP;
		vm->lat = realloc(vm->lat, vm->caplat * sizeof(double));
		if (!vm->lat)
			oom();
	}
	vm->lat[vm->nlat++] = ns;
}

void vcpu_finish(struct vcpu *v)
{
	struct vm *vm = &S.vms[v->vm];
	/* A wake-up this vCPU just sent (an unlock's unpark or kick) may have
	 * preempted it on its own pCPU: it stops there, and finishes when it
	 * runs again.  sched_out() takes the pCPU's current vCPU, which must
	 * be this one. */
	while (v->sched != VS_RUNNING)
		vcpu_yield(v);
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
bool guest_lock_enter(struct vcpu *v, int li)
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
void guest_lock_exit(struct vcpu *v, int li, bool got)
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
bool vcpu_quota_done(const struct vcpu *v)
{
	return v->quota && v->ops >= v->quota;
}

/* One operation of v's workload done (an acquisition, an ebizzy record). */
void vcpu_op_done(struct vcpu *v)
{
	v->ops++;
	S.vms[v->vm].ops++;
}

/* ---- the spinlock loop (kcbench, ebizzy, spawn, messaging) -------------- */

/* The critical section of lock li writes the workload's cs_lines shared
 * lines of that lock, one plain increment each (`pvspin bench`'s
 * lines[i].word++, tools/pvspin/bench/worker_loop.h): a store that pays a
 * transfer when another vCPU wrote the line last. */
static void cs_write_lines(struct vcpu *v, int li)
{
	int n = S.wl->cs_lines;
	uint32_t *base = S.vms[v->vm].cs_data;
	for (int i = 0; i < n; i++) {
		uint32_t *w = base + ((size_t)li * (size_t)n + (size_t)i) * 16;
		pvspin_plat_store32(w, *w + 1, PVSPIN_RELAXED);
	}
}

/* Non-critical section, one of the VM's locks (lock 0 with probability
 * `hot`), critical section, unlock; until the quota (or the end). */
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
		cs_write_lines(v, li);
		vcpu_compute(v, us_to_ns(draw_us(v->rng, c->cs_dist, c->cs_us)));
		guest_lock_exit(v, li, got);
		vcpu_op_done(v);
	}
	vcpu_finish(v);
}

/* ---- test hooks, the coroutine entry ---------------------------------- */

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

void sim_guest_op_done(void)
{
	if (S.cur)
		vcpu_op_done(S.cur);
}

uint64_t sim_guest_now(void)
{
	return S.now;
}

void vcpu_entry(int id)
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

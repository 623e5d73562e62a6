/*
 * sim_kvm.c - the hypervisor (KVM) of the simulated machine: directed yield
 * (kvm_vcpu_yield_to: the target runs on its pCPU now, the yielder gives up
 * its own if anybody waits there), PLE exits and kvm_vcpu_on_spin, halt
 * with KVM halt polling, KVM_HC_KICK_CPU with the pv_unhalted flag (a kick
 * before the halt is not lost) and seed 001's directed yield to the kicked
 * vCPU, the steal-time preempted flag; and the halt / kick / CPU / event
 * operations of the platform backend (sim_platform.h).
 */
#define _GNU_SOURCE
#include "sim_internal.h"

/* Directed yield (kvm_vcpu_yield_to -> yield_to): `t` (READY) becomes the
 * next buddy of its pCPU and runs now if that is fair; the yielder gives its
 * own pCPU to another eligible vCPU waiting there.  Returns true if t runs. */
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

/* EV_PLE: a pause-loop exit of v.  The window grows x2 (up to the
 * profile's cap), the exit costs a VM exit, and the host tries a directed
 * yield to a preempted vCPU of the VM. */
void kvm_ple_exit(struct vcpu *v)
{
	account_stint(v, S.now);
	S.ple_exits++;
	v->ple_acc = 0;
	v->ple_window = v->ple_window * 2 > S.prof->ple_window_max_ns
		? S.prof->ple_window_max_ns : v->ple_window * 2;
	v->stint_start = S.now + S.prof->vmexit_ns;
	vcpu_on_spin(v, S.now);
	if (v->sched == VS_RUNNING)
		arm(v);
}

int pvspin_plat_cpu(void)
{
	return S.cur ? S.cur->id : -1;
}

/* The current vCPU executes HLT (after its exit was charged): KVM polls
 * while nobody else wants the pCPU, else the vCPU leaves it; returns when
 * it runs again (woken by a kick or an interrupt), executing, with
 * pv_unhalted cleared. */
void vcpu_halt(struct vcpu *v)
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

/* EV_POLL_END: halt polling of v ran out with nothing to wake it; it
 * leaves its pCPU (if it is still polling there). */
void kvm_poll_end(struct vcpu *v)
{
	struct pcpu *p = &S.pcpus[v->pcpu];
	if (v->sched != VS_POLLING || p->curr != v)
		return;
	sched_out(p, S.now, VS_HALTED);
	reschedule(p, S.now);
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

void vcpu_kick_wake(struct vcpu *t)
{
	if (t->sched == VS_HALTED) {
		vcpu_wake(t, S.now, S.prof->ipi_ns);
	} else if (t->sched == VS_POLLING) {
		t->sched = VS_RUNNING;
		t->stint_start = S.now + S.prof->l1_ns;
		arm(t);
	}
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
	vcpu_kick_wake(t);
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

/* ---- a guest thread per vCPU: clock, futex, fences (sim_platform.h) ------ */

/* RDTSC: ~25 cycles on Skylake (Agner Fog, "Instruction tables", RDTSC
 * reciprocal throughput 25), which KVM lets the guest execute without an
 * exit (TSC offsetting); the same count at the other profiles' clocks. */
#define SIM_RDTSC_CYCLES 25.0

uint64_t pvspin_plat_now_ns(void)
{
	struct vcpu *v = S.cur;
	if (!v)
		return 0;
	vcpu_delay(v, (sim_time_t)(SIM_RDTSC_CYCLES / S.prof->ghz + 0.5));
	return S.now;
}

uint32_t pvspin_plat_spin_cpus(void)
{
	if (S.prof && S.prof->vcpus_are_threads)
		return (uint32_t)S.np;
	if (S.cur)
		return (uint32_t)S.vms[S.cur->vm].n;
	return S.cfg ? (uint32_t)S.cfg->vcpus : 1;
}

static void park_enqueue(struct vcpu *v)
{
	v->park_prev = S.park_tail;
	v->park_next = NULL;
	if (S.park_tail)
		S.park_tail->park_next = v;
	else
		S.park_head = v;
	S.park_tail = v;
}

static void park_dequeue(struct vcpu *v)
{
	if (v->park_prev)
		v->park_prev->park_next = v->park_next;
	else
		S.park_head = v->park_next;
	if (v->park_next)
		v->park_next->park_prev = v->park_prev;
	else
		S.park_tail = v->park_prev;
	v->park_next = v->park_prev = NULL;
}

/* EV_PARK_TIMEOUT: the guest's timer (an hrtimer of the host's LAPIC timer
 * emulation) ends v's park if it is still queued; a halted v goes through
 * the host's wake path as for a kick. */
void kvm_park_timeout(struct vcpu *v, uint64_t gen)
{
	if (!v->parked || v->park_gen != gen || v->park_woken || v->park_timed_out)
		return;
	park_dequeue(v);
	v->park_timed_out = true;
	S.park_timeouts++;
	if (v->act == VA_HALT)
		vcpu_kick_wake(v);
}

/*
 * futex_wait() of a guest thread that has its vCPU to itself: the value
 * check and the queueing are one step (the futex hash bucket lock), then
 * the vCPU goes idle: HLT with interrupts on (its exit charged, KVM halt
 * polling applies), until unpark32() or the timeout wakes it.  A wake-up
 * for something else (a pv_kick's pv_unhalted, a spurious wake) finds the
 * thread still queued and the idle loop halts again (another exit).
 */
int pvspin_plat_park32(uint32_t *p, uint32_t val, uint64_t timeout_ns)
{
	struct vcpu *v = S.cur;
	if (!v)
		return *p != val ? 0 : PVSPIN_PARK_TIMEDOUT;   /* nobody could wake it */
	if (pvspin_plat_load32(p, PVSPIN_ACQUIRE) != val)
		return 0;
	S.parks++;
	v->parked = true;
	v->park_woken = v->park_timed_out = false;
	v->park_addr = p;
	v->park_val = val;
	v->park_gen++;
	v->park_deadline = 0;
	park_enqueue(v);
	if (timeout_ns) {
		v->park_deadline = S.now + timeout_ns < S.now ? SIM_T_INF - 1 : S.now + timeout_ns;
		heap_push(v->park_deadline, EV_PARK_TIMEOUT, (uint32_t)v->id, v->park_gen);
	}
	vcpu_delay(v, S.prof->vmexit_ns);          /* the HLT exit */
	while (!v->park_woken && !v->park_timed_out) {
		if (v->pv_unhalted) {
			v->pv_unhalted = false;     /* HLT returns at once */
		} else {
			S.park_sleeps++;
			v->halt_ptr = NULL;
			vcpu_halt(v);
			if (v->park_woken || v->park_timed_out)
				break;
		}
		vcpu_delay(v, S.prof->vmexit_ns);  /* still queued: HLT again */
	}
	int ret = v->park_woken ? 0 : PVSPIN_PARK_TIMEDOUT;
	v->parked = false;
	v->park_gen++;                             /* its timeout event is stale */
	return ret;
}

/*
 * futex_wake(): up to n vCPUs queued on p, first parked first, are taken
 * off the queue one by one, each followed by its reschedule IPI: the
 * sender pays the profile's kick cost (hypercall_ns, as KVM_HC_KICK_CPU)
 * per woken vCPU, the woken one the host's wake path (ipi_ns) as a kick's
 * target does.  Nobody queued: no cost.  As after pv_kick, a sender that a
 * wake-up preempted on its own pCPU stops here until it runs again.
 */
uint32_t pvspin_plat_unpark32(uint32_t *p, uint32_t n)
{
	struct vcpu *y = S.cur;
	uint32_t k = 0;
	while (k < n) {
		struct vcpu *t = S.park_head;
		while (t && t->park_addr != p)
			t = t->park_next;
		if (!t)
			break;
		park_dequeue(t);
		t->park_woken = true;
		k++;
		if (y)
			vcpu_delay(y, S.prof->hypercall_ns);
		S.unpark_wakes++;
		if (t->act == VA_HALT)
			vcpu_kick_wake(t);
	}
	if (y && k)
		vcpu_delay(y, 0);
	return k;
}

/* The rseq time-slice extension (sim_platform.h; the scheduler's side is
 * slice_ext_defer in sim_sched.c).  As natively (native_slice_ext.c): the
 * request is for one lock, and none is set during a grant. */
bool pvspin_plat_slice_ext_begin(const void *lock)
{
	struct vcpu *v = S.cur;
	if (!v || !S.slice_ext)
		return false;
	v->slice_owner = lock;
	if (!v->slice_granted)
		v->slice_req = true;
	return true;
}

void pvspin_plat_slice_ext_end(const void *lock)
{
	struct vcpu *v = S.cur;
	if (!v || !S.slice_ext || lock != v->slice_owner)
		return;
	v->slice_owner = NULL;
	v->slice_req = false;
	if (!v->slice_granted)
		return;
	/* rseq_slice_yield(2): a system call (charged as the twin's futex
	 * call that returns at once), then the preemption the grant deferred,
	 * decided as at the end of a slice */
	pvspin_plat_event(PVSPIN_EV_SLICE_EXT_YIELD);
	S.slice_ext_yields++;
	vcpu_delay(v, S.prof->vmexit_ns);
	struct pcpu *p = &S.pcpus[v->pcpu];
	if (p->curr == v && v->slice_granted) {
		p->slice_gen++;   /* the grant's timer event is stale now */
		sched_slice_end(p);
	}
	/* preempted: stop here until it runs again */
	vcpu_delay(v, 0);
}

/*
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) in the guest: the syscall,
 * then an IPI to every other vCPU that runs a thread of the process (one
 * guest thread per vCPU: every vCPU of the VM that is not idle; a vCPU the
 * host preempted still counts, its guest does not know) and a wait for all
 * of them.  Cost: 450 ns for the syscall and the kernel's walk of the CPUs
 * (sys_membarrier measured at 448 ns/call on bare metal, membarrier-rs
 * pull request #12, github.com/jeehoonkang/membarrier-rs/pull/12; 0.42 us
 * alone on the 2-vCPU development guest); with targets, one PV send-IPI
 * hypercall for the mask (hypercall_ns), the slowest IPI's delivery and
 * acknowledgement (ipi_ns, in parallel) and a csd line transfer per target
 * (xfer_local_ns): 5.6 us for 31 targets on the Intel profile (4.6 us for
 * one target measured on the development guest).  A lower bound: the real
 * call also waits for a preempted target to be scheduled again, which this
 * cost does not model.
 *
 * Where the profile measured it (membarrier_ns, membarrier_target_ns: the
 * machine twin's linux-threads, twin_costs.c), the call with targets
 * costs membarrier_ns instead, and each target that runs pays
 * membarrier_target_ns out of its computation, or, spinning, sees its
 * line change no sooner than that after the call (EV_MEMBARRIER_IPI,
 * kvm_membarrier_ipi); where vCPUs are threads, only those on a pCPU are
 * targets (the kernel IPIs the CPUs that run the process's threads; a
 * runnable thread waiting for a CPU is not one).  Without that, sleepers'
 * fences cost the holder on the other CPU nothing, and the twin missed
 * what 10 886 membarriers a second cost `pvspin bench` at 8 threads
 * (docs/spinpark.md, "A crowd of one").
 */
#define SIM_MEMBARRIER_SYSCALL_NS 450

void kvm_membarrier_ipi(struct vcpu *u)
{
	/* taken now or when its current step begins, as a TLB IPI; one with
	 * IRQs off (only a kernel's lock holder: the twin's threads never
	 * are) is not modelled */
	if (!irq_arrives(u, EV_MEMBARRIER_IPI))
		return;
	sim_time_t h = S.prof->membarrier_target_ns;
	/* a target that computes pays the handler out of it */
	if (irq_take_exec(u, h)) {
		S.membarrier_ipis++;
		return;
	}
	if (u->act != VA_SPIN)
		return;   /* a computation of no known length */
	/* one that spins sees its line change no sooner than the handler's
	 * end, and its bound of PAUSE loops waits too */
	u->irq_until = S.now + h;
	if (u->left != SIM_T_INF)
		u->left += h;
	arm(u);
	S.membarrier_ipis++;
}

uint32_t *pvspin_plat_park_seq(void)
{
	static uint32_t host_seq;
	return S.cur ? &S.vms[S.cur->vm].park_seq : &host_seq;
}

bool pvspin_plat_fence_heavy(void)
{
	struct vcpu *v = S.cur;
	if (!v)
		return true;
	struct vm *vm = &S.vms[v->vm];
	sim_time_t cost = SIM_MEMBARRIER_SYSCALL_NS;
	uint32_t targets = 0;
	for (int i = 0; i < vm->n; i++) {
		const struct vcpu *u = &S.vcpus[vm->first + i];
		bool on_cpu = u->sched == VS_RUNNING ||
			      (u->sched == VS_READY && !S.prof->vcpus_are_threads);
		if (u == v || !on_cpu || u->act == VA_HALT)
			continue;
		targets++;
		if (S.prof->membarrier_target_ns)
			heap_push(S.now, EV_MEMBARRIER_IPI, (uint32_t)u->id, 0);
	}
	S.membarrier_targets += targets;
	if (targets)
		cost = S.prof->membarrier_ns ? S.prof->membarrier_ns
		       : cost + S.prof->hypercall_ns + S.prof->ipi_ns +
			 (sim_time_t)targets * S.prof->xfer_local_ns;
	S.fences_heavy++;
	vcpu_delay(v, cost);
	return true;
}

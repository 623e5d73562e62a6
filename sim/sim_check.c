/*
 * sim_check.c - what the simulator watches while a run goes on: periodic
 * sampling of lock-holder and lock-waiter preemption and of idle queued
 * locks, the deadlock check (every vCPU stuck), the lost-wake-up check (one
 * halted vCPU nobody will kick), and misuse reported by the lock code.
 */
#define _GNU_SOURCE
#include "sim_internal.h"

/* Misuse reported by the lock code stops the run with a report. */
void sim_misuse(const char *what, const void *lock, uint32_t word)
{
	report_add("MISUSE: %s (lock %p, word 0x%08x) by vCPU %d at %.9f s\n", what, lock,
		   word, S.cur ? S.cur->id : -1, S.now / 1e9);
	if (S.cur)
		vcpu_stop(S.cur, SIM_STOP_MISUSE);
	S.stop = SIM_STOP_MISUSE;
}

/* ---- periodic sampling: LHP / LWP, deadlock ---------------------------- */

static bool vcpu_stuck(const struct vcpu *v)
{
	switch (v->sched) {
	case VS_DONE:
		return true;
	case VS_HALTED:
	case VS_POLLING:
		/* a park with a timeout ends by itself; a woken one is on its way */
		return !v->pv_unhalted &&
		       !(v->parked && (v->park_deadline || v->park_woken || v->park_timed_out));
	default:
		/* ebizzy-mm: a vCPU with a shootdown IPI to take and IRQs on
		 * takes it when it runs (EV_TLB_ACK or its sched-in), and the
		 * ack is the write a spinning sender waits for: with madvise
		 * every vCPU may be spinning in a shootdown at one sample */
		if (v->tlb_pending && !v->irqs_off)
			return false;
		return v->act == VA_SPIN && v->left == SIM_T_INF && !v->spin_hit &&
		       !watcher_satisfied(v);
	}
}


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
 *
 * The same holds for a vCPU parked (pvspin_plat_park32) with no timeout,
 * not woken, on a word that no longer reads the value it sleeps on: it is
 * legitimately asleep only while *p == val, or while its waker is between
 * the store and the unpark (inside its unlock, `unlocking`).  Parked inside
 * a lock acquisition it is judged by that lock's acquisitions, as above;
 * parked outside one (a test's guest program), by the operations of its
 * VM.  A park with a timeout is never lost: the timeout ends it.
 */
static bool wake_is_due(const struct vcpu *v)
{
	if (v->parked)
		return !v->park_woken && !v->park_timed_out && !v->park_deadline &&
		       *v->park_addr != v->park_val;
	return (v->sched == VS_HALTED || v->sched == VS_POLLING) &&
	       v->act == VA_HALT && !v->pv_unhalted && v->want_lock >= 0 &&
	       v->halt_ptr && *v->halt_ptr != v->halt_val;
}

static bool lost_wakeup_check(void)
{
	for (int i = 0; i < S.nv; i++) {
		struct vcpu *v = &S.vcpus[i];
		if (!wake_is_due(v)) {
			v->wake_due = false;
			continue;
		}
		struct vm *vm = &S.vms[v->vm];
		uint64_t ops = v->want_lock >= 0 ? vm->locks[v->want_lock].ops : (uint64_t)vm->ops;
		bool unlocking = false;
		for (int j = 0; j < vm->n && !unlocking && v->want_lock >= 0; j++)
			unlocking = S.vcpus[vm->first + j].unlocking == v->want_lock;
		if (unlocking || !v->wake_due) {
			v->wake_due = true;
			v->wake_due_ops = ops;
			continue;
		}
		if (ops - v->wake_due_ops > 2 * (uint64_t)vm->n) {
			S.stop = SIM_STOP_DEADLOCK;   /* of that vCPU */
			lost_wakeup_report(v, ops - v->wake_due_ops);
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

void tick(void)
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
	if (S.mm)
		mm_sample(period);
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

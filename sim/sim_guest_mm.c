/*
 * sim_guest_mm.c - the `ebizzy-mm` guest workload model (sim/README.md,
 * "ebizzy-mm"): mmap_sem as a sleeping rwsem, page faults, the zone lock,
 * TLB shootdowns and the guest idle loop.
 */
#define _GNU_SOURCE
#include "sim_internal.h"

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
void tlb_ack_event(struct vcpu *u)
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
	if (t->sched == VS_HALTED)
		t->woken_at = S.now;
	vcpu_kick_wake(t);
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
void vcpu_mm_main(struct vcpu *v)
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

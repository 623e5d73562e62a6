/*
 * sim_guest_mm.c - the `ebizzy-mm` guest workload model (sim/README.md,
 * "ebizzy-mm"): mmap_sem as a sleeping rwsem, page faults, the zone lock,
 * TLB shootdowns and the guest idle loop.
 */

#include "sim_guest_sched.h"

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
 *  - Guest threads (sim_mm_model.threads per vCPU, `threads` key): ebizzy
 *    starts 2 x online CPUs threads by default (ebizzy.c, option -t), so a
 *    vCPU has another thread to run while one sleeps on mmap_sem and only
 *    idles when both sleep.  A minimal guest CFS per vCPU (kernel/sched/
 *    fair.c, v5.x): vruntime = time current on the vCPU; a woken thread
 *    is placed at no less than the current one's vruntime minus half of
 *    sched_latency (place_entity(), GENTLE_FAIR_SLEEPERS) and preempts the
 *    current thread if it is more than wakeup_granularity behind it
 *    (check_preempt_wakeup() / wakeup_preempt_entity()); a remote wake-up
 *    sends the reschedule IPI only when the target idles or must preempt
 *    (resched_curr()); a thread that ran its share of sched_latency
 *    yields to a waiting one (check_preempt_tick()).  Preemption takes
 *    effect only in user mode (a non-preemptible guest kernel,
 *    CONFIG_PREEMPT_VOLUNTARY): at the return from a fault or syscall and
 *    between chunks of user time.  A woken thread whose vCPU is busy goes
 *    to an idle vCPU (select_idle_sibling()), and a vCPU about to idle
 *    pulls a waiting thread (newidle_balance()); no periodic balancing.
 *  - mm_madvise: the free path of a thread's own glibc arena (madvise
 *    under mmap_sem for read, every record; see mm_thread_main()).
 */

/* User time (memcpy, search) of thread t, with preemption points;
 * returns t's vCPU (it may have moved: see gt_steal()). */
static struct vcpu *mm_user(struct gthread *t, sim_time_t ns)
{
	sim_time_t chunk = us_to_ns(sim_mm_model.guser_chunk_us);
	while (ns > 0) {
		sim_time_t d = ns < chunk ? ns : chunk;
		vcpu_compute(t->v, d);
		ns -= d;
		gt_preempt_point(t);
	}
	return t->v;
}

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
void tlb_ack_self(struct vcpu *v)
{
	struct sim_mm *mm = S.vms[v->vm].mm;
	if (!v->tlb_pending)
		return;
	/* taken now: an EV_TLB_ACK firing during the handler must not ack a
	 * second time (the ack's latency still counts the handler) */
	v->tlb_pending = false;
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
	/* taken now, or when its current step begins, or at a later
	 * sched-in or IRQ enable (irq_arrives) */
	if (!irq_arrives(u, EV_TLB_ACK))
		return;
	struct sim_mm *mm = S.vms[u->vm].mm;
	irq_take_exec(u, us_to_ns(sim_mm_model.flush_us));
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
 * with mmap_sem held, for write on the brk path, for read with
 * mm_madvise; IRQs on). */
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

/* The current thread sleeps until mmap_sem was handed to it. */
static void mm_sleep(struct vcpu *v)
{
	struct gthread *t = gt_self(v);
	sim_time_t t0 = S.now;
	S.mm_waits++;
	S.mm_write_waits += t->write;
	v->in_kernel = false;
	if (!t->granted)
		t->state = GT_SLEEP;
	gt_schedule(t);
	t->v->in_kernel = true;
	S.mm_wait_ns += S.now - t0;
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
	struct gthread *h = &gt_threads[mm->q[mm->qhead]];
	if (h->write) {
		out[k++] = h->g;
		mm->qhead = (mm->qhead + 1) % nv;
		mm->qlen--;
		pvspin_plat_fetch_or32(&mm->count, MM_WRITER, PVSPIN_ACQUIRE);
		mm->owner = h->g;
	} else {
		while (mm->qlen && !gt_threads[mm->q[mm->qhead]].write) {
			out[k++] = mm->q[mm->qhead];
			mm->qhead = (mm->qhead + 1) % nv;
			mm->qlen--;
		}
		pvspin_plat_fetch_add32(&mm->count, (uint32_t)k, PVSPIN_ACQUIRE);
	}
	if (!mm->qlen)
		pvspin_plat_fetch_and32(&mm->count, ~MM_WAITERS, PVSPIN_RELEASE);
	for (int i = 0; i < k; i++) {
		struct gthread *x = &gt_threads[out[i]];
		x->granted = true;
		if (x->state == GT_SLEEP)
			x->state = GT_READY;
	}
	vcpu_compute(v, us_to_ns(sim_mm_model.wake_us * k));
	return k;
}

/* The releaser's slow path: grant under wait_lock, wake after it. */
static void mm_wake(struct vcpu *v)
{
	struct vm *vm = &S.vms[v->vm];
	struct sim_mm *mm = vm->mm;
	int *out = gt_wbuf(v);
	mm_spin_lock_irq(v, 0);
	int k = mm_grant(v, mm, vm->n * gt_tpv, out);
	mm_spin_unlock_irq(v, 0);
	for (int i = 0; i < k; i++)
		mm_wake_thread(v, &gt_threads[out[i]]);
}

static bool mm_pred_no_writer(uint32_t x, uint32_t arg)
{
	(void)arg;
	return !(x & MM_WRITER);
}

/* The fast paths.  down_write: one cmpxchg 0 -> WRITER.  down_read: one
 * fetch-add of a reader (x86's xadd rwsem; rwsem_read_trylock() in
 * kernel/locking/rwsem.c v5.3+), backed out at once when a writer holds
 * it or waiters queue (RWSEM_READ_FAILED_MASK): no retry loop, so 80
 * readers cost one RMW each on the count's line, not a cmpxchg storm.  A
 * reader that backed out always goes on to the slow path, whose grant
 * under wait_lock wakes the queue if its back-out left the rwsem free.
 * Returns whether we got it; *c is the count seen. */
static bool mm_trydown(struct vcpu *v, struct sim_mm *mm, bool write, uint32_t *c)
{
	if (write) {
		*c = 0;
		if (pvspin_plat_cmpxchg32(&mm->count, c, MM_WRITER, PVSPIN_ACQUIRE)) {
			mm->owner = gt_self(v)->g;
			return true;
		}
		return false;
	}
	*c = pvspin_plat_fetch_add32(&mm->count, 1, PVSPIN_ACQUIRE);
	if (!(*c & (MM_WRITER | MM_WAITERS)))
		return true;
	pvspin_plat_fetch_add32(&mm->count, (uint32_t)-1, PVSPIN_RELEASE);
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
		if ((c & MM_WAITERS) || !(c & MM_WRITER) || o < 0)
			return false;
		/* owner->on_cpu: current on its vCPU, which is not preempted */
		struct vcpu *ov = gt_threads[o].v;
		if (gt_threads[o].state != GT_RUN || gt_current[ov->id] != &gt_threads[o] ||
		    (ov->sched != VS_RUNNING && ov->sched != VS_READY) ||
		    pvspin_plat_vcpu_is_preempted(ov->id))
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
				mm->owner = gt_self(v)->g;
			if (free_for_us) {
				mm_spin_unlock_irq(v, 0);
				return;
			}
			break;
		}
	}
	struct gthread *self = gt_self(v);
	self->granted = false;
	self->write = write;
	mm->q[(mm->qhead + mm->qlen) % (vm->n * gt_tpv)] = self->g;
	mm->qlen++;
	/* the lock may have been released before WAITERS was set: the
	 * releaser then took its fast path, so grant here */
	int *out = gt_wbuf(v);
	int k = mm_grant(v, mm, vm->n * gt_tpv, out);
	mm_spin_unlock_irq(v, 0);
	for (int i = 0; i < k; i++)
		if (out[i] != self->g)
			mm_wake_thread(v, &gt_threads[out[i]]);
	mm_sleep(v);
	self->granted = false;
}

static void mm_up(struct vcpu *v, bool write)
{
	struct sim_mm *mm = S.vms[v->vm].mm;
	if (write) {
		/* up_write(): clear WRITER with one RMW, wake if waiters
		 * queue (a reader's transient fetch-add does not force the
		 * slow path) */
		mm->owner = -1;
		uint32_t old = pvspin_plat_fetch_and32(&mm->count, ~MM_WRITER, PVSPIN_RELEASE);
		if (old & MM_WAITERS)
			mm_wake(v);
		return;
	}
	uint32_t old = pvspin_plat_fetch_add32(&mm->count, (uint32_t)-1, PVSPIN_RELEASE);
	if ((old & MM_READERS) == 1 && (old & MM_WAITERS))
		mm_wake(v);
}

/* mmap_sem around a page fault (read) or a brk (write): the vCPU is in
 * the kernel (PLE's kernel mode) from the down until after the up; a
 * write hold's time goes into mm_write_held_ns. */
static struct vcpu *mm_kernel_down(struct vcpu *v, bool write)
{
	struct gthread *t = gt_self(v);
	v->in_kernel = true;
	mm_down(v, write);
	v = t->v;                 /* a wake-up may have moved the thread */
	if (write)
		S.vms[v->vm].mm->write_since = S.now;
	return v;
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

/* Thread t has done its part of the vCPU's fixed work: the vCPU runs its
 * other threads; the last one to finish finishes the vCPU. */
static void gt_exit(struct gthread *t)
{
	t->state = GT_DONE;
	t->granted = false;
	for (;;)
		gt_schedule(t);   /* never returns: t is never granted again */
}

/* One ebizzy -M record per iteration (see the model's text), thread t. */
static void mm_thread_main(struct gthread *t)
{
	struct vcpu *v = t->v;
	const struct sim_config *c = S.cfg;
	const struct sim_mm_model *m = &sim_mm_model;
	/* pcp pages left on the lists before a refill / a drain */
	int pcp_alloc = (int)gsl_rng_uniform_int(v->rng, (unsigned long)m->pcp_batch);
	int pcp_free = (int)gsl_rng_uniform_int(v->rng, (unsigned long)m->pcp_batch);
	sim_time_t memcpy_ns = us_to_ns(c->ncs_us / 2 / m->faults);

	/* mm_madvise: the thread's own glibc arena (arena_get2() gives each
	 * new thread a new arena up to 8 x cores): free() of the chunk at the
	 * heap's top trims it every time (top > M_TRIM_THRESHOLD, 128 KiB,
	 * fixed once ebizzy -M set M_MMAP_MAX = 0) with shrink_heap() =
	 * madvise(MADV_DONTNEED), which takes mmap_sem for read
	 * (madvise_need_mmap_write()), zaps the pages and flushes the TLBs
	 * while holding it; the next malloc grows the heap inside its
	 * mprotect'ed size, no syscall (grow_heap()).  No writer at all. */
	bool madv = c->mm_madvise;
	int every = madv ? 1 : m->trim_every;
	/* which record trims: a random phase per thread */
	int trim = (int)gsl_rng_uniform_int(v->rng, (unsigned long)every);
	for (;;) {
		if (vcpu_quota_done(v))
			break;
		if (++trim < every) {
			/* the chunk is reused from the heap: mapped already */
			v = mm_user(t, memcpy_ns * (sim_time_t)m->faults);
			v = mm_user(t, us_to_ns(draw_us(v->rng, c->ncs_dist, c->ncs_us / 2)));
			vcpu_op_done(v);
			continue;
		}
		trim = 0;
		if (!madv) {
			/* malloc: brk grow */
			v = mm_kernel_down(v, true);
			vcpu_compute(v, us_to_ns(m->brk_grow_us));
			mm_kernel_up(v, true);
			v = gt_preempt_point(t);
		}
		/* memcpy: half the user time, one page fault per 4 KiB */
		for (int f = 0; f < m->faults; f++) {
			v = mm_kernel_down(v, false);
			if (pcp_alloc-- <= 0) {
				pcp_alloc = m->pcp_batch - 1;
				mm_zone_bulk(v);
			}
			vcpu_compute(v, us_to_ns(draw_us(v->rng, c->cs_dist, c->cs_us)));
			mm_kernel_up(v, false);
			v = mm_user(t, memcpy_ns);
		}
		/* search: the other half, drawn */
		v = mm_user(t, us_to_ns(draw_us(v->rng, c->ncs_dist, c->ncs_us / 2)));
		/* free: heap trim = brk shrink (or madvise), unmap, shootdown */
		v = mm_kernel_down(v, !madv);
		vcpu_compute(v, us_to_ns(m->unmap_us));
		for (int f = 0; f < m->faults; f++)
			if (pcp_free-- <= 0) {
				pcp_free = m->pcp_batch - 1;
				mm_zone_bulk(v);
			}
		tlb_shootdown(v);
		mm_kernel_up(v, !madv);
		vcpu_op_done(v);
		v = gt_preempt_point(t);
	}
	gt_exit(t);
}

/* The coroutine entry of a vCPU's threads other than thread 0. */
void gt_entry(int g)
{
	vcpu_compute(gt_threads[g].v, us_to_ns(sim_mm_model.gswitch_us));
	mm_thread_main(&gt_threads[g]);
}

/* The coroutine of vCPU v: its thread 0 (the first vCPU to run sets the
 * threads of every vCPU up). */
void vcpu_mm_main(struct vcpu *v)
{
	if (!gt_threads)
		gt_setup();
	struct gthread *t = &gt_threads[v->id * gt_tpv];
	gt_clock_start(t);
	mm_thread_main(t);
	for (;;)                  /* not reached: gt_exit() finishes the vCPU */
		vcpu_finish(v);
}

/* Sampling (sim_check.c): the write owner not running (its vCPU off a
 * pCPU, or the thread not current on it), and granted threads not yet
 * running. */
void mm_sample(sim_time_t period)
{
	if (!gt_threads)
		return;
	for (int i = 0; i < S.cfg->vms; i++) {
		int o = S.vms[i].mm->owner;
		if (o >= 0 && (gt_threads[o].v->sched != VS_RUNNING || gt_current[gt_threads[o].v->id] != &gt_threads[o]))
			S.mm_owner_off_ns += period;
	}
	for (int i = 0; i < S.nv * gt_tpv; i++) {
		struct gthread *t = &gt_threads[i];
		if (t->granted && (t->state == GT_READY || t->state == GT_SLEEP ||
				   t->v->sched != VS_RUNNING))
			S.mm_granted_off_ns += period;
	}
}

/*
 * sim_guest_sched.h - the guest's own scheduler of the `ebizzy-mm` model's
 * threads (sim_guest_sched.c), shared with the workload that runs them
 * (sim_guest_mm.c).  Private to the simulator; single-threaded like it.
 */
#ifndef PVSPIN_SIM_GUEST_SCHED_H
#define PVSPIN_SIM_GUEST_SCHED_H

#include "sim_internal.h"

enum { GT_RUN, GT_READY, GT_SLEEP, GT_DONE };

/** One guest thread of ebizzy -M: its coroutine (thread 0 of a vCPU runs
 *  on the vCPU's own stack), guest-scheduler and rwsem-waiter state. */
struct gthread {
	ucontext_t ctx;
	void *stack;            /* NULL for thread 0 (the vCPU's stack) */
	struct vcpu *v;         /* the vCPU it is on (a wake-up or an idle
				   vCPU's pull may move it) */
	int g;                  /* first vCPU slot * threads + k: mm->q,
				   mm->owner */
	int state;              /* GT_* */
	bool granted, write;    /* mmap_sem handed to it; queued for write */
	bool on;                /* its vruntime clock runs (current, awake) */
	int64_t vr;             /* guest CFS vruntime, ns */
	sim_time_t since;       /* when its clock started */
};

extern struct gthread *gt_threads;  /* S.nv * gt_tpv threads, NULL before the first */
extern struct gthread **gt_current; /* per vCPU slot: the thread it runs */
extern int gt_tpv;                  /* threads per vCPU of the run */

/** Allocate the threads (thread 0 of each vCPU runs on the vCPU's own
 *  coroutine; the others get stacks and start in gt_entry()). */
void gt_setup(void);
/** Per vCPU: room for the slots of the threads its mmap_sem grant woke. */
int *gt_wbuf(const struct vcpu *v);
/** The thread vCPU v runs. */
static inline struct gthread *gt_self(const struct vcpu *v) { return gt_current[v->id]; }
/** Start / stop t's vruntime clock (it is current and awake / it is not). */
void gt_clock_start(struct gthread *t);
void gt_clock_stop(struct gthread *t);
/** A user-mode preemption point of t; returns its vCPU (it may move). */
struct vcpu *gt_preempt_point(struct gthread *t);
/** schedule() of t, which cannot run (asleep on mmap_sem, or done);
 *  returns once t was granted mmap_sem and runs again. */
void gt_schedule(struct gthread *t);
/** try_to_wake_up() of x (granted mmap_sem) by the current vCPU v. */
void mm_wake_thread(struct vcpu *v, struct gthread *x);

/* From sim_guest_mm.c: a new thread's first code, and the TLB-shootdown
 * IPI that a vCPU takes when it enables IRQs or idles. */
void gt_entry(int g);
void tlb_ack_self(struct vcpu *v);

#endif /* PVSPIN_SIM_GUEST_SCHED_H */

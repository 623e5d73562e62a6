/*
 * sim_engine.c - the discrete-event engine of `pvspin sim` (docs/design.md 6):
 * the event heap, the vCPU coroutines and their running time, set-up and
 * tear-down of a run, and the main loop.
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
 * The layers the events go to: sim_sched.c (EV_SLICE), sim_kvm.c (EV_PLE,
 * EV_POLL_END), sim_guest_mm.c (EV_TLB_ACK), sim_check.c (EV_TICK).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#include "sim_internal.h"
#include "lock/lock_state_reset.h"

struct sim S;

/* ---- helpers ------------------------------------------------------------ */

void oom(void)
{
	fprintf(stderr, "pvspin-sim: out of memory\n");
	exit(1);
}

void *coroutine_make(ucontext_t *ctx, void (*entry)(int), int arg)
{
	void *stack = mmap(NULL, SIM_STACK_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		oom();
	getcontext(ctx);
	ctx->uc_stack.ss_sp = stack;
	ctx->uc_stack.ss_size = SIM_STACK_SIZE;
	ctx->uc_link = &S.main_ctx;
	makecontext(ctx, (void (*)(void))entry, 1, arg);
	return stack;
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);
	if (!p)
		oom();
	return p;
}

/* Append to the stop report (printf-style). */
void report_add(const char *fmt, ...)
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

/*
 * A binary heap ordered by (t, seq): time, then insertion order.  (t, seq)
 * is a total order, so the events come out in one order whatever the
 * heap's layout.
 *
 * Cancellation is lazy: an event whose generation is no longer its
 * object's is stale and skipped when it comes up.  A big host re-arms its
 * vCPUs and slices far more often than the events come due (4 x 384 vCPUs:
 * the heap grew to ~700 000 entries, nearly all stale, and popping them
 * was most of the run time), so each object's timers have a slot: an
 * object has at most one live EV_RESUME / EV_POLL_END (they share the
 * vCPU's gen), one live EV_PLE and one live EV_SLICE (the pCPU's), and
 * every new one is pushed after its generation was bumped.  A push whose
 * slot still holds an entry overwrites that stale entry in place (and
 * sifts it) instead of adding one, so the heap holds at most one entry per
 * slot plus the unslotted events (EV_TICK, EV_END, EV_TLB_ACK,
 * EV_PARK_TIMEOUT, EV_MEMBARRIER_IPI).
 *
 * A stale EV_RESUME, EV_PLE or EV_POLL_END had no effect when popped.  A
 * stale EV_SLICE did: it was counted in S.events (the generation check is
 * the handler's).  An overwritten one is kept as a "ghost" (its key only)
 * and counted once the run passes its key -- the last event popped, or a
 * fast-path step of vcpu_yield() -- so "events" stays what it was.  (A
 * stale entry left in the heap could only make vcpu_yield() take its slow
 * path, which arms an EV_RESUME for the very time the fast path jumps to:
 * the same step.)
 */

#define SLOT_NONE UINT32_MAX

static bool ev_less(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* The timer slot of an event kind and object, or -1 if it has none. */
static long ev_slot(uint32_t type, uint32_t id)
{
	switch (type) {
	case EV_RESUME:
	case EV_POLL_END:
		return id;
	case EV_PLE:
		return (long)S.nv + id;
	case EV_SLICE:
		return 2L * S.nv + id;
	default:
		return -1;
	}
}

/* Whether a heap entry is stale (its object's generation moved on). */
static bool ev_stale(const struct event *e)
{
	switch (e->type) {
	case EV_RESUME:
	case EV_POLL_END:
		return S.vcpus[e->id].gen != e->gen;
	case EV_PLE:
		return S.vcpus[e->id].ple_gen != e->gen;
	case EV_SLICE:
		return S.pcpus[e->id].slice_gen != e->gen;
	default:
		return false;
	}
}

static inline void heap_set(size_t i, struct event e)
{
	long s = ev_slot(e.type, e.id);
	S.heap[i] = e;
	if (s >= 0)
		S.slotpos[s] = (uint32_t)i;
}

/* Place e at i or above (the heap is valid elsewhere). */
static void heap_sift_up(size_t i, struct event e)
{
	while (i) {
		size_t p = (i - 1) / 2;
		if (!ev_less(&e, &S.heap[p]))
			break;
		heap_set(i, S.heap[p]);
		i = p;
	}
	heap_set(i, e);
}

/* Place e at i or below (the heap is valid elsewhere). */
static void heap_sift_down(size_t i, struct event e)
{
	size_t n = S.nheap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && ev_less(&S.heap[c + 1], &S.heap[c]))
			c++;
		if (!ev_less(&S.heap[c], &e))
			break;
		heap_set(i, S.heap[c]);
		i = c;
	}
	heap_set(i, e);
}

/* Whether ghost g comes before the run's position. */
static bool ghost_passed(const struct ghost *g)
{
	return g->t < S.pos_t || (g->t == S.pos_t && g->seq < S.pos_seq);
}

/* Count the ghosts the run has passed as events; keep the others. */
static void ghosts_count(void)
{
	size_t k = 0;
	for (size_t i = 0; i < S.nghosts; i++) {
		if (ghost_passed(&S.ghosts[i]))
			S.events++;
		else
			S.ghosts[k++] = S.ghosts[i];
	}
	S.nghosts = k;
}

static void ghost_add(const struct event *e)
{
	if (S.nghosts == S.capghosts) {
		ghosts_count();
		if (2 * S.nghosts >= S.capghosts) {
			S.capghosts = S.capghosts ? 2 * S.capghosts : 1024;
			S.ghosts = realloc(S.ghosts, S.capghosts * sizeof(*S.ghosts));
			if (!S.ghosts)
				oom();
		}
	}
	S.ghosts[S.nghosts++] = (struct ghost){ e->t, e->seq };
}

void heap_push(sim_time_t t, enum ev_type type, uint32_t id, uint64_t gen)
{
	struct event e = { t, S.seq++, gen, type, id };
	long s = ev_slot(type, id);
	if (s >= 0 && S.slotpos[s] != SLOT_NONE) {
		size_t i = S.slotpos[s];
		struct event old = S.heap[i];
		if (!ev_stale(&old)) {
			/* two live timers in one slot: a bug of the caller */
			fprintf(stderr, "pvspin-sim: event %u of object %u armed twice\n",
				type, id);
			abort();
		}
		if (old.type == EV_SLICE)
			ghost_add(&old);
		if (ev_less(&e, &old))
			heap_sift_up(i, e);
		else
			heap_sift_down(i, e);
		return;
	}
	if (S.nheap == S.capheap) {
		S.capheap = S.capheap ? 2 * S.capheap : 1024;
		S.heap = realloc(S.heap, S.capheap * sizeof(*S.heap));
		if (!S.heap)
			oom();
	}
	heap_sift_up(S.nheap++, e);
}

static struct event heap_pop(void)
{
	struct event top = S.heap[0], last = S.heap[--S.nheap];
	long s = ev_slot(top.type, top.id);
	if (s >= 0)
		S.slotpos[s] = SLOT_NONE;
	if (S.nheap)
		heap_sift_down(0, last);
	S.pos_t = top.t;
	S.pos_seq = top.seq;
	return top;
}

static sim_time_t heap_min_t(void)
{
	return S.nheap ? S.heap[0].t : SIM_T_INF;
}

/* ---- stints and events of one vCPU -------------------------------------- */

/* Move v's running-time countdown forward to t. */
void account_stint(struct vcpu *v, sim_time_t t)
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
void arm(struct vcpu *v)
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
			/* not before an IPI's handler is done (kvm_membarrier_ipi) */
			heap_push(v->stint_start > v->irq_until ? v->stint_start : v->irq_until,
				  EV_RESUME, (uint32_t)v->id, v->gen);
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

bool irq_arrives(struct vcpu *u, enum ev_type ev)
{
	if (u->sched != VS_RUNNING || u->irqs_off)
		return false;
	if (u->stint_start > S.now) {
		heap_push(u->stint_start, ev, (uint32_t)u->id, 0);
		return false;
	}
	return u->act != VA_HALT;
}

bool irq_take_exec(struct vcpu *u, sim_time_t h)
{
	account_stint(u, S.now);
	if (u->act != VA_EXEC || u->left == SIM_T_INF)
		return false;
	u->left += h;
	arm(u);
	return true;
}

/* The current coroutine gives control back until its stint ends (or, if it
 * is not RUNNING, until it is scheduled in and its stint ends). */
void vcpu_yield(struct vcpu *v)
{
	if (v->sched == VS_RUNNING) {
		if (v->stint_start < S.now)
			v->stint_start = S.now;
		/* Fast path: nothing else happens before our next step. */
		if (v->act == VA_EXEC && !S.stop &&
		    v->stint_start + v->left < heap_min_t()) {
			S.now = v->stint_start + v->left;
			/* the run's position: where the EV_RESUME of the slow
			 * path would have been popped (ghost counting) */
			S.pos_t = S.now;
			S.pos_seq = S.seq;
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
void vcpu_delay(struct vcpu *v, sim_time_t ns)
{
	v->act = VA_EXEC;
	v->left = ns;
	vcpu_yield(v);
}

/* Stop the run from inside a coroutine: never returns. */
void vcpu_stop(struct vcpu *v, enum sim_stop why)
{
	S.stop = why;
	v->gen++;
	v->ple_gen++;
	swapcontext(&v->ctx, &S.main_ctx);
	abort(); /* never resumed */
}

/* ---- set-up, main loop, the run ------------------------------------------ */

static int setup(const struct sim_config *c)
{
	memset(&S, 0, sizeof(S));
	/* the lock code's tables of the last run (queue nodes, wait notes,
	 * pvqspinlock's hash, spinpark's stamps and modes) */
	pvspin_lock_state_reset();
	S.cfg = c;
	S.prof = sim_profile_find(c->profile);
	if (!S.prof) {
		fprintf(stderr, "pvspin-sim: unknown profile '%s'\n", c->profile);
		return -1;
	}
	S.wl = sim_workload_find(c->workload);
	S.slice = c->slice_us >= 0 ? us_to_ns(c->slice_us) : S.prof->slice_ns;
	S.poll = c->halt_poll_us >= 0 ? us_to_ns(c->halt_poll_us) : S.prof->halt_poll_ns;
	S.slice_ext = S.prof->vcpus_are_threads ? us_to_ns(c->slice_ext_us) : 0;
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
	for (int m = 0; m < c->vms; m++)   /* each VM's own wait-sample stream */
		S.vms[m].lat_rng = sim_mix64(c->seed ^ (0x1A7E5A3ull + (uint64_t)m));
	/* timer slots: RESUME / POLL_END and PLE per vCPU, SLICE per pCPU */
	S.slotpos = xcalloc(2 * (size_t)S.nv + (size_t)S.np, sizeof(*S.slotpos));
	memset(S.slotpos, 0xff, (2 * (size_t)S.nv + (size_t)S.np) * sizeof(*S.slotpos));

	/* the lock code's tunables are process-wide: set all of them per run.
	 * All but PVSPIN_TUNE_MUTEX_SPIN_LIMIT, which only the LD_PRELOAD
	 * interposer's pthread mutexes read: the simulator runs the lock
	 * kinds, not the interposer, so it has no key and keeps its default. */
	pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, c->spin_threshold);
	pvspin_tunable_set(PVSPIN_TUNE_PENDING_LOOPS, c->pending_loops);
	pvspin_tunable_set(PVSPIN_TUNE_TAS_BACKOFF_MAX, c->tas_backoff_max);
	pvspin_tunable_set(PVSPIN_TUNE_EARLY_HALT_PREEMPTED, (uint32_t)c->early_halt_preempted);

	for (int p = 0; p < S.np; p++) {
		int per_node = S.np / c->nodes, cc = S.prof->ccx_cpus;
		S.pcpus[p].id = p;
		S.pcpus[p].node = (int)((long)p * c->nodes / S.np);
		/* CCXs never straddle a node (a socket's last one may be
		 * short when ccx_cpus does not divide its pCPUs) */
		S.pcpus[p].ccx = cc ? S.pcpus[p].node * ((per_node + cc - 1) / cc) +
					      (p - S.pcpus[p].node * per_node) / cc
				    : S.pcpus[p].node;
	}
	/* every VM's locks in one block, whose offsets key them
	 * (pvspin_plat_lock_key) */
	S.lock_arena_size = (size_t)c->vms * (size_t)c->locks * sizeof(struct sim_lock);
	S.lock_arena = aligned_alloc(64, S.lock_arena_size);
	if (!S.lock_arena)
		oom();
	memset(S.lock_arena, 0, S.lock_arena_size);
	for (int m = 0; m < c->vms; m++) {
		struct vm *vm = &S.vms[m];
		vm->id = m;
		vm->first = m * c->vcpus;
		vm->n = c->vcpus;
		/* the guest's release mode, as the native platform's (the
		 * simulated guest has membarrier), from the CPUs its threads
		 * may run on: the VM's vCPUs, or where vCPUs stand for
		 * threads the pCPUs (pvspin_plat_spin_cpus(); with the vCPUs
		 * the twin's 9 threads on 2 CPUs released by RMW and fenced
		 * nothing, and 4 threads on 64 CPUs fenced: helper-58) */
		vm->park_seq = pvspin_plat_park_seq_mode(
			true, S.prof->vcpus_are_threads ? (uint32_t)S.np : (uint32_t)c->vcpus);
		vm->nlocks = c->locks;
		vm->lock = c->vm_lock[m] ? c->vm_lock[m] : c->lock;
		vm->ple = c->vm_ple[m] >= 0 ? c->vm_ple[m] : S.ple;
		vm->kick_yield = c->vm_kick_yield[m] >= 0 ? c->vm_kick_yield[m] : c->kick_yield;
		vm->pv_unhalt = c->vm_pv_unhalt[m] >= 0 ? c->vm_pv_unhalt[m] : c->pv_unhalt;
		vm->steal_time = c->vm_steal_time[m] >= 0 ? c->vm_steal_time[m] : c->steal_time;
		vm->last_boosted = -1 + c->vcpus; /* first boost goes to #0 */
		vm->locks = (struct sim_lock *)S.lock_arena + (size_t)m * (size_t)c->locks;
		for (int k = 0; k < c->locks; k++)
			vm->locks[k].holder = -1;
		if (S.wl->cs_lines) {
			size_t sz = (size_t)c->locks * (size_t)S.wl->cs_lines * 64;
			vm->cs_data = aligned_alloc(64, sz);
			if (!vm->cs_data)
				oom();
			memset(vm->cs_data, 0, sz);
		}
		if (S.mm) {
			vm->mm = aligned_alloc(64, sizeof(struct sim_mm));
			if (!vm->mm)
				oom();
			memset(vm->mm, 0, sizeof(*vm->mm));
			vm->mm->q = xcalloc((size_t)c->vcpus * (size_t)mm_threads_per_vcpu(), sizeof(int));
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
		gsl_rng_set(v->rng, (unsigned long)sim_mix64(c->seed * 1000003ull + (uint64_t)i));
		v->stack = coroutine_make(&v->ctx, vcpu_entry, i);
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
	gsl_rng_set(S.host_rng, (unsigned long)sim_mix64(c->seed ^ 0x5EED0F1057ull));
	/* a profile with a periodic tick: its phase is random; Linux fires
	 * every CPU's tick at the same jiffy boundary (tick_sched.c: no
	 * offset unless the skew_tick boot option is given) */
	if (S.prof->tick_ns) {
		sim_time_t ph = (sim_time_t)gsl_rng_uniform_int(
			S.host_rng, (unsigned long)S.prof->tick_ns);
		for (int p = 0; p < S.np; p++)
			S.pcpus[p].tick_phase = ph;
	}
	for (int p = 0; p < S.np; p++) {
		reschedule(&S.pcpus[p], 0);
		/* the VMs did not start in lock-step: a random phase of the
		 * first slice on every pCPU (with a tick: the tick's phase) */
		if (S.pcpus[p].curr && !S.prof->tick_ns)
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
	if (S.mm)
		mm_threads_free();
	for (int m = 0; m < S.cfg->vms; m++) {
		free(S.vms[m].lat);
		free(S.vms[m].cs_data);
		if (S.vms[m].mm) {
			free(S.vms[m].mm->q);
			free(S.vms[m].mm);
		}
	}
	retire_locks(S.lock_arena);
	S.lock_arena = NULL;
	for (size_t i = 0; i < S.caplines; i++)
		free(S.lines[i]);
	for (int p = 0; p < S.np; p++)
		free(S.pcpus[p].rq);
	free(S.lines);
	free(S.heap);
	free(S.ghosts);
	free(S.slotpos);
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
		if (__builtin_expect(tool_stop_signal() != 0, 0)) {
			S.stop = SIM_STOP_INTERRUPTED;
			break;
		}
		struct event e = heap_pop();
		struct vcpu *v = NULL;
		/* a stale slice still counts as an event (see "event heap") */
		if (e.type != EV_SLICE && ev_stale(&e))
			continue;
		if (e.type == EV_RESUME || e.type == EV_PLE || e.type == EV_POLL_END)
			v = &S.vcpus[e.id];
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
			kvm_ple_exit(v);
			break;
		case EV_SLICE:
			if (!ev_stale(&e))
				sched_slice_end(&S.pcpus[e.id]);
			break;
		case EV_POLL_END:
			kvm_poll_end(v);
			break;
		case EV_TICK:
			tick();
			break;
		case EV_TLB_ACK:
			tlb_ack_event(&S.vcpus[e.id]);
			break;
		case EV_PARK_TIMEOUT:
			kvm_park_timeout(&S.vcpus[e.id], e.gen);
			break;
		case EV_MEMBARRIER_IPI:
			kvm_membarrier_ipi(&S.vcpus[e.id]);
			break;
		case EV_END:
			S.stop = SIM_STOP_END;
			break;
		}
	}
	ghosts_count();   /* the overwritten stale slices the run got past */
	if (!S.stop) {
		/* no event left at all: only possible when nothing can run */
		S.stop = SIM_STOP_DEADLOCK;
		deadlock_report();
	}
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

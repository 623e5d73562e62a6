/*
 * sim_report.c - what a run tells: the text report of a stop (the lock
 * words, the MCS queue and every vCPU) and the results JSON.
 */
#define _GNU_SOURCE
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "sim_internal.h"

static const char *const vsched_names[] = { "running", "ready(preempted)", "halted",
					    "halt-polling", "done" };
static const char *const vact_names[] = { "executing", "spinning", "halted" };

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

void lost_wakeup_report(const struct vcpu *v, uint64_t ops)
{
	if (v->parked) {
		report_add("DEADLOCK (lost wake-up) at %.9f s: vCPU %d (vm%d #%d) is parked "
			   "(futex wait, no timeout) on word %p, which no longer reads 0x%08x "
			   "(0x%08x), and nobody unparked it; ", S.now / 1e9, v->id, v->vm, v->idx,
			   (const void *)v->park_addr, v->park_val, *v->park_addr);
		if (v->want_lock >= 0)
			report_add("lock %d completed %llu acquisitions since with nobody "
				   "unlocking it, so nobody is left to unpark it\nlocks:\n",
				   v->want_lock, (unsigned long long)ops);
		else
			report_add("its VM completed %llu operations since, so nobody is left "
				   "to unpark it\n", (unsigned long long)ops);
		if (v->want_lock >= 0)
			lock_report(v->vm, v->want_lock);
		vcpus_report();
		return;
	}
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

void deadlock_report(void)
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
		if (v->parked)
			report_add(", parked on %p (sleeps while it reads 0x%08x, now 0x%08x%s)",
				   (const void *)v->park_addr, v->park_val, *v->park_addr,
				   v->park_woken ? ", woken" : v->park_deadline ? ", timeout armed" : "");
		report_add(", pv_unhalted %d, ops %ld\n", v->pv_unhalted, v->ops);
	}
	if (S.kicks_lost)
		report_add("note: %llu kicks were dropped (lose_kicks=1, test only)\n",
			   (unsigned long long)S.kicks_lost);
}

static json_t *latency_json(struct vm *vm)
{
	json_t *o = json_object();
	if (!vm->nlat) {
		json_object_set_new(o, "count", json_integer(0));
		return o;
	}
	/* count, mean and max over every wait (lat_add keeps them); the
	 * percentiles from the samples, all of them or a reservoir */
	gsl_sort(vm->lat, 1, vm->nlat);
	json_object_set_new(o, "count", json_integer((json_int_t)vm->lat_seen));
	json_object_set_new(o, "mean", json_real(round(vm->lat_sum / (double)vm->lat_seen)));
	static const struct { const char *k; double q; } qs[] = {
		{ "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 }, { "p999", 0.999 } };
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		json_object_set_new(o, qs[i].k, json_real(round(
			gsl_stats_quantile_from_sorted_data(vm->lat, 1, vm->nlat, qs[i].q))));
	json_object_set_new(o, "max", json_real(vm->lat_max));
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
	case SIM_STOP_INTERRUPTED: return "interrupted";
	default: return "none";
	}
}

/* Close the open accounting intervals at the end of the run. */
void finalize_accounting(void)
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

json_t *results_json(double wall)
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
		/* Jain's index of the per-vCPU ops; undefined (0 / 0) when no
		 * vCPU finished an operation: null, not a perfect 1 */
		json_object_set_new(o, "jain", sq > 0 ? json_real(sum * sum / (vm->n * sq))
						      : json_null());
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
	json_object_set_new(host, "store_forward_stalls",
			    json_integer((json_int_t)S.store_forward_stalls));
	sim_time_t busy = 0;
	for (int p = 0; p < S.np; p++)
		busy += S.pcpus[p].busy_ns;
	json_object_set_new(host, "pcpu_busy_pct",
			    json_real(S.now ? 100.0 * busy / ((double)S.now * S.np) : 0));
	if (S.parks) {
		/* futex-style parking (only when used) */
		json_object_set_new(host, "parks", json_integer((json_int_t)S.parks));
		json_object_set_new(host, "park_sleeps", json_integer((json_int_t)S.park_sleeps));
		json_object_set_new(host, "park_timeouts", json_integer((json_int_t)S.park_timeouts));
		json_object_set_new(host, "unpark_wakes", json_integer((json_int_t)S.unpark_wakes));
	}
	if (S.fences_heavy) {
		/* the membarriers and their IPIs (sim_kvm.c,
		 * pvspin_plat_fence_heavy): a sleeper fences before its park,
		 * which may then not sleep (the word changed), so these do not
		 * go with the parks' keys */
		json_object_set_new(host, "fences_heavy", json_integer((json_int_t)S.fences_heavy));
		json_object_set_new(host, "membarrier_targets",
				    json_integer((json_int_t)S.membarrier_targets));
		json_object_set_new(host, "membarrier_ipis",
				    json_integer((json_int_t)S.membarrier_ipis));
	}
	if (S.slice_ext) {
		json_object_set_new(host, "slice_ext_grants",
				    json_integer((json_int_t)S.slice_ext_grants));
		json_object_set_new(host, "slice_ext_yields",
				    json_integer((json_int_t)S.slice_ext_yields));
	}
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
		MMJ("threads_per_vcpu", mm_threads_per_vcpu());
		MMJ("thread_switches", S.gt_switches);
		MMJ("thread_preempts", S.gt_preempts);
		MMJ("thread_migrations", S.gt_migrations);
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

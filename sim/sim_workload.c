/*
 * sim_workload.c - named guest workload models.
 *
 * A vCPU alternates a non-critical section (guest work outside the hot
 * locks) with a critical section on one of `locks` locks of its VM (lock 0
 * with probability `hot`, else uniformly one of the others).  Each model was
 * calibrated once on its 1-VM, no-overcommit case so that lock wait + hold
 * is a plausible share of CPU time for the benchmark it stands for, then
 * left alone (docs/design.md section 6).  Every parameter can be overridden with
 * --set (ncs_us, cs_us, ncs_dist, cs_dist, locks, hot, work).
 */
#include <string.h>

#include "sim.h"

static const struct sim_workload sim_workloads[] = {
	{
		.name = "kcbench",
		.approximates = "kcbench (parallel kernel build, fixed work): guest time is "
				"mostly compiler user time; kernel entries (page faults, "
				"exec, file lookups) take a few hot locks (zone lock, "
				"dentry/lockref, runqueue).  Only the globally shared, "
				"contended locks are modelled: one every ~1 ms per vCPU, 70% "
				"on one hot lock, ~1.5 us exponential holds (hold time ~0.15% "
				"of CPU, spinning < 0.1% with 1 VM); completion time counts",
		.ncs_dist = SIM_DIST_EXP, .ncs_us = 1000.0,
		.cs_dist = SIM_DIST_EXP, .cs_us = 1.5,
		.locks = 4, .hot = 0.7,
		.work = 300,
	},
	{
		.name = "ebizzy",
		.approximates = "ebizzy -M (allocation-heavy, throughput): every record "
				"search allocates and frees memory, so page faults and "
				"mmap_sem/zone locks dominate; one very hot lock, "
				"heavy-tailed holds; with 1 VM of 80 vCPUs ~12% of CPU "
				"time spins",
		.ncs_dist = SIM_DIST_EXP, .ncs_us = 60.0,
		.cs_dist = SIM_DIST_PARETO, .cs_us = 0.8,
		.locks = 4, .hot = 0.7,
		.work = 0,
	},
	{
		.name = "spawn",
		.approximates = "UnixBench spawn (fork+exit+wait, throughput): every "
				"process creation and exit takes global locks (tasklist_lock, "
				"pidmap, mm accounting): one global hot lock, short constant "
				"holds; with 120 vCPUs the hot lock is near saturation "
				"(qspinlock spins ~13% of CPU time)",
		.ncs_dist = SIM_DIST_EXP, .ncs_us = 80.0,
		.cs_dist = SIM_DIST_CONST, .cs_us = 0.4,
		.locks = 2, .hot = 0.9,
		.work = 0,
	},
	{
		.name = "messaging",
		.approximates = "hackbench-style messaging (throughput): many socket/wait-"
				"queue locks, each shared by few vCPUs; short holds, low "
				"contention per lock",
		.ncs_dist = SIM_DIST_EXP, .ncs_us = 4.0,
		.cs_dist = SIM_DIST_EXP, .cs_us = 0.3,
		.locks = 16, .hot = 0.0625,
		.work = 0,
	},
	{
		.name = "ebizzy-mm",
		.approximates = "ebizzy -M as mmap_sem traffic (throughput; ops = records): "
				"per record a thread mallocs a 512 KiB chunk from the glibc "
				"heap (brk grow: mmap_sem for write), memcpy's into it (128 "
				"page faults, each mmap_sem for read, a zone-lock refill every "
				"31 pages), searches it (user time), frees it (heap trim = brk "
				"shrink: mmap_sem for write, unmap, zone-lock bulk frees, a "
				"TLB shootdown to every non-idle vCPU of the VM, waited for "
				"while mmap_sem is held).  mmap_sem is a sleeping rwsem whose "
				"wait_lock is the VM's lock 0, taken with IRQs off; the zone "
				"lock is lock 1, IRQs off.  Blocked threads idle-halt (HLT with "
				"IRQs on) and are woken by a reschedule IPI.  A shootdown "
				"target acks only while running with IRQs on; idle (lazy TLB) "
				"vCPUs are skipped, and host-preempted ones when steal_time is "
				"on (PV TLB flush).  ncs_us = user time per record (memcpy + "
				"search), cs_us = one page fault's kernel time",
		.ncs_dist = SIM_DIST_EXP, .ncs_us = 150.0,
		.cs_dist = SIM_DIST_CONST, .cs_us = 1.5,
		.locks = 2, .hot = 1.0,
		.work = 0,
	},
	{
		.name = "bench",
		.approximates = "pvspin bench's timed loop with its defaults "
				"(tools/pvspin/bench/worker_loop.h; docs/bench.md): every "
				"thread takes the one lock, increments 2 shared 64-byte "
				"lines (--cs-lines 2), busy-loops 50 ns (--cs-ns), unlocks, "
				"busy-loops 100 ns (--ncs-ns); throughput.  Not modelled: the "
				"two clock reads of every 16th lock() (~25 ns each, ~3 ns "
				"per acquisition) and the stop flag read (an L1 hit)",
		.ncs_dist = SIM_DIST_CONST, .ncs_us = 0.1,
		.cs_dist = SIM_DIST_CONST, .cs_us = 0.05,
		.locks = 1, .hot = 1.0,
		.work = 0,
		.cs_lines = 2,
	},
};

static const int sim_nworkloads = sizeof(sim_workloads) / sizeof(sim_workloads[0]);

const struct sim_workload *sim_workload_find(const char *name)
{
	for (int i = 0; i < sim_nworkloads; i++)
		if (!strcmp(sim_workloads[i].name, name))
			return &sim_workloads[i];
	return NULL;
}

const char *sim_workload_names(void)
{
	return "kcbench, ebizzy, ebizzy-mm, spawn, messaging, bench";
}

static const char *const dist_names[SIM_DIST_COUNT] = { "const", "exp", "pareto" };

const char *sim_dist_name(enum sim_dist d)
{
	return (unsigned)d < SIM_DIST_COUNT ? dist_names[d] : "?";
}

int sim_dist_from_name(const char *s)
{
	for (int i = 0; i < SIM_DIST_COUNT; i++)
		if (!strcmp(s, dist_names[i]))
			return i;
	return -1;
}

/*
 * The fixed costs of the ebizzy-mm model (sim/README.md, "ebizzy-mm").
 * Calibrated once, on the 1-VM case only (seed 001: 23 520 records/s with
 * 80 threads on 80 vCPUs, i.e. ~3.4 ms per record per vCPU, mostly asleep on
 * mmap_sem), then left alone for 2 and 3 VMs.
 */
const struct sim_mm_model sim_mm_model = {
	/* ebizzy -M: a 512 KiB chunk per record (ebizzy's default chunk
	 * size), touched by memcpy: 512 KiB / 4 KiB pages = 128 faults. */
	.faults = 128,
	/* THE calibration knob (1-VM only): one record in `trim_every`
	 * trims the heap and so grows it and faults its pages in again on
	 * the next malloc; the others reuse the mapped chunk.  glibc trims
	 * only when the free top exceeds M_TRIM_THRESHOLD (128 KiB) and, with
	 * 80 threads, several arenas interleave, so not every free trims.
	 * With every record trimming the 1-VM case gives ~7 000 records/s
	 * (each hand-off costs a reschedule IPI exit); 3 gives ~the seed's
	 * 23 520 records/s (sim/README.md, "ebizzy-mm"). */
	.trim_every = 3,
	/* mm/page_alloc.c: zone_batchsize() gives pcp->batch = 31 on zones
	 * over ~1 GiB, so the per-CPU page lists are refilled (rmqueue_bulk)
	 * and drained (free_pcppages_bulk) under zone->lock, IRQs off, once
	 * per 31 pages; a bulk of 31 pages ~ 50 ns per page (list and buddy
	 * work, no zeroing: the fault zeroes outside the lock). */
	.pcp_batch = 31,
	.zone_hold_us = 1.5,
	/* brk grow: vma_merge of the heap VMA, no pages touched: a few us
	 * (syscall entry/exit in a VM + find_vma + vma_adjust). */
	.brk_grow_us = 2.0,
	/* brk shrink: zap 128 PTEs and free 128 pages to the pcp lists,
	 * ~0.1 us per page (unmap_page_range, release_pages). */
	.unmap_us = 13.0,
	/* flush_tlb_func on the target: a full flush plus the IPI entry/exit
	 * and EOI: ~1 us. */
	.flush_us = 1.0,
	/* rwsem slow path inside wait_lock: enqueue (list add, count
	 * adjustment) ~0.2 us; mark_wake ~0.1 us per woken waiter. */
	.enqueue_us = 0.2,
	.wake_us = 0.1,
	/* ebizzy.c: "-t <num> Number of threads (2 * number cpus by
	 * default)" (threads = 2 * sysconf(_SC_NPROCESSORS_ONLN)); the seed
	 * runs `ebizzy -M` without -t, so 160 threads on 80 vCPUs.  The
	 * guest scheduler runs a vCPU's other thread while one sleeps on
	 * mmap_sem instead of idling the vCPU. */
	.threads = 2,
	/* a thread switch inside the guest (no VM exit with EPT: the CR3
	 * write does not exit): lmbench lat_ctx, ~1.5 us on Skylake */
	.gswitch_us = 1.5,
	/* guest CFS on 80 vCPUs (kernel/sched/fair.c, v5.x): sched_latency
	 * 6 ms and wakeup_granularity 1 ms, both scaled by 1 + ilog2(min(
	 * ncpus, 8)) = 4 (SCHED_TUNABLESCALING_LOG) */
	.glatency_us = 24000.0,
	.gwakeup_gran_us = 4000.0,
	/* user time (memcpy, search) runs in chunks of this: an interrupt
	 * that preempts the thread (a reschedule IPI) is taken at the next
	 * chunk boundary, not in the middle of the chunk (model granularity,
	 * not a kernel number) */
	.guser_chunk_us = 20.0,
};

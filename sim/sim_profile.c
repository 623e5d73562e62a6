/*
 * sim_profile.c - cost profiles of the simulator: one per machine type.
 *
 * Every number is an estimate from a public source named beside it; where a
 * source gives cycles, the value is converted at the profile's clock.  The
 * profiles are fixed: presets never tune them (issue 4, "one cost profile
 * per machine").  Host-scheduler numbers are Linux defaults; KVM numbers are
 * the module parameter defaults (docs/design.md section 4).
 */
#include <string.h>

#include "sim.h"

#define CYC(c, ghz) ((sim_time_t)((c) / (ghz) + 0.5))

static const struct sim_profile sim_profiles[] = {
	{
		.name = "intel-xeon",
		.what = "2-socket Intel Xeon Skylake-SP class, 2.5 GHz (seed 001's 80-HT host)",
		.ghz = 2.5,
		/* PAUSE: ~140 cycles since Skylake (Intel 64 and IA-32
		 * Architectures Optimization Reference Manual, 2.5.4 "Pause
		 * Latency in Skylake Microarchitecture"). */
		.pause_ns = CYC(140, 2.5),
		/* L1 hit 4-5 cycles (same manual, Table 2-4). */
		.l1_ns = 2,
		/* LOCK CMPXCHG / XCHG ~18-20 cycles (Agner Fog, instruction
		 * tables, Skylake-X). */
		.atomic_ns = CYC(19, 2.5),
		/* failed store forwarding (a wider load after a narrow
		 * store): 14 cycles against 4-5 for a forwarded load on
		 * Skylake (Travis Downs, uarch-bench "fw_split_write_read",
		 * 2019). */
		.store_forward_ns = CYC(10, 2.5),
		/* core-to-core line transfer on the mesh ~45-55 ns, across UPI
		 * ~120-140 ns (AnandTech Xeon Scalable review, core-to-core
		 * latency; Intel MLC c2c numbers). */
		.xfer_local_ns = 50,
		.xfer_remote_ns = 130,
		/* VM exit + entry with KVM handling ~1-1.5 us (kvm-unit-tests
		 * vmexit "vmcall"/"hlt" ~1200-1500 cycles + handler). */
		.vmexit_ns = 1200,
		.hypercall_ns = 1500,
		/* Wake-up IPI + wake of an idle vCPU thread: a few us
		 * (KVM posted-interrupt / IPI latency measurements, e.g. the
		 * "KVM: X86: Implement PV IPIs" series). */
		.ipi_ns = 2000,
		/* host switch between vCPU threads incl. vcpu_put/load ~2-3 us
		 * (lmbench lat_ctx ~1-2 us + VMCS switch). */
		.ctx_switch_ns = 2500,
		/* The seed-001 host (2019, Linux 5.x) runs CFS:
		 * sched_latency 6 ms, min granularity 0.75 ms, wake-up
		 * granularity 1 ms, each x (1 + ilog2(min(ncpus, 8))) = x4
		 * (kernel/sched/fair.c, SCHED_TUNABLESCALING_LOG): a slice is
		 * max(24 ms / nr_running, 3 ms). */
		.slice_ns = 3000000,
		.sched_latency_ns = 24000000,
		.wakeup_gran_ns = 4000000,
		/* VMX PLE: window 4096 cycles, gap 128, grow x2, shrink to the
		 * base on sched-in (arch/x86/kvm/vmx/vmx.c module defaults);
		 * the window max is effectively unbounded, capped here at 1 ms. */
		.has_ple = true,
		.ple_window_ns = CYC(4096, 2.5),
		.ple_window_max_ns = 1000000,
		/* halt_poll_ns default 200 us on x86 (virt/kvm/kvm_main.c). */
		.halt_poll_ns = 200000,
	},
	{
		.name = "amd-epyc",
		.what = "2-socket AMD EPYC Zen 4 class (8-core CCXs), 2.45 GHz",
		.ghz = 2.45,
		/* PAUSE ~65 cycles on Zen 2 and later (Agner Fog, instruction
		 * tables, Zen 2/3). */
		.pause_ns = CYC(65, 2.45),
		.l1_ns = 2,
		/* LOCK CMPXCHG ~8-20 cycles (Agner Fog, Zen 3). */
		.atomic_ns = CYC(15, 2.45),
		/* failed store forwarding: 21 cycles against about 8 for a
		 * forwarded load on Zen 2 (Travis Downs, uarch-bench
		 * "fw_split_write_read", 2019); 4.6 ns measured on an EPYC KVM
		 * guest (sim_memory.c). */
		.store_forward_ns = CYC(13, 2.45),
		/* Core-to-core cache-line transfer, three levels (one node here
		 * is one socket).  Inside a CCX (the cores sharing one L3):
		 * AnandTech measured 15-19 ns on Zen 4 and Zen 3 desktop parts
		 * ("AMD Zen 4 Ryzen 9 7950X and Ryzen 5 7600X Review",
		 * core-to-core latency, 2022) at ~5.5 GHz; the transfer runs
		 * at core/L3 clock, so at a server's ~3.5 GHz boost that is
		 * ~25 ns.  Between CCXs of a socket the line goes through the
		 * I/O die: up to 79.5 ns on the desktop I/O die (same review)
		 * and ~80-110 ns on the larger server I/O die (AnandTech EPYC
		 * Milan review, 2021; Chips and Cheese "Core to Core Latency
		 * Data on Large Systems", 2023): 90 ns.  Across sockets
		 * ~180-220 ns (same sources): 200 ns. */
		.xfer_ccx_ns = 25,
		.xfer_local_ns = 90,
		.xfer_remote_ns = 200,
		/* Zen 2 (Rome) has 4 cores per CCX; Zen 3 (Milan) and Zen 4
		 * (Genoa, and Bergamo's Zen 4c) have 8 (AnandTech Milan
		 * review, "Topology").  Seed 000's AMD guest is an "EPYC 9Y24":
		 * a 9xx4 part, i.e. 4th-generation EPYC (Zen 4), so 8 cores per
		 * CCX; the model has no SMT, so a pCPU is a core. */
		.ccx_cpus = 8,
		.vmexit_ns = 1000,
		.hypercall_ns = 1300,
		.ipi_ns = 2000,
		.ctx_switch_ns = 2500,
		/* recent host (Linux >= 6.6): EEVDF base slice 0.75 ms x (1 +
		 * ilog2(min(ncpus, 8))) = 3 ms (sysctl_sched_base_slice); wake-up
		 * preemption modelled with a 1 ms granularity. */
		.slice_ns = 3000000,
		.wakeup_gran_ns = 1000000,
		/* SVM pause filter: count 3000 PAUSEs, threshold 128 cycles,
		 * grow x2, shrink on sched-in (arch/x86/kvm/svm/svm.c). */
		.has_ple = true,
		.ple_window_ns = 3000 * CYC(65, 2.45),
		.ple_window_max_ns = 1000000,
		.halt_poll_ns = 200000,
	},
	{
		.name = "loongarch-3c5000",
		.what = "2-socket Loongson 3C5000 (LA464), 2.2 GHz, 32 cores, 2 nodes, no PLE (seed 002)",
		.ghz = 2.2,
		/* LoongArch has no PAUSE: cpu_relax() is a compiler barrier
		 * (arch/loongarch/include/asm/processor.h), so one spin loop is
		 * a load + compare + branch, ~10 cycles. */
		.pause_ns = CYC(10, 2.2),
		.l1_ns = 2,
		/* LL/SC or AM* atomic ~20-30 cycles (Loongson LA464 manual
		 * estimates; Chips and Cheese "Loongson 3A5000" 2023). */
		.atomic_ns = CYC(25, 2.2),
		/* failed store forwarding: no public figure for the LA464;
		 * an estimate of 10 cycles, as on x86 cores. */
		.store_forward_ns = CYC(10, 2.2),
		/* 3C5000: four 4-core clusters per chip on an internal HT
		 * fabric; cross-core ~100-150 ns, cross-socket ~250 ns (Chips
		 * and Cheese 3A5000 core-to-core latency, scaled for the 3C5000
		 * multi-die package: an estimate). */
		.xfer_local_ns = 120,
		.xfer_remote_ns = 250,
		/* LoongArch virtualization (LVZ) exit + entry ~2 us (estimate,
		 * KVM LoongArch port discussions). */
		.vmexit_ns = 2000,
		.hypercall_ns = 2500,
		.ipi_ns = 3000,
		.ctx_switch_ns = 3000,
		/* the seed-002 host (2024, LoongArch KVM needs Linux >= 6.7):
		 * EEVDF, base slice 3 ms as above. */
		.slice_ns = 3000000,
		.wakeup_gran_ns = 1000000,
		/* "there is no hw Pause Loop Exiting (PLE) supported on
		 * LoongArch system" (seed 002). */
		.has_ple = false,
		.ple_window_ns = 0,
		.ple_window_max_ns = 0,
		/* generic halt_poll_ns default 200 us (virt/kvm/kvm_main.c). */
		.halt_poll_ns = 200000,
	},
	{
		.name = "linux-threads",
		/* threads, not vCPUs: a thread may run on both CPUs */
		.vcpus_are_threads = true,
		.what = "threads on this Linux machine (the machine twin, sim/README.md): "
			"2 CPUs of an Intel Xeon (family 6 model 207) KVM guest, 2.3 GHz, "
			"Linux 6.18 EEVDF, HZ=250; halt/kick = futex wait/wake, no PLE",
		/* TSC 2299.998 MHz (dmesg "tsc: Detected"; /proc/cpuinfo). */
		.ghz = 2.3,
		/* Measured here with sim/twin_costs.c (built as
		 * build/sim/twin_costs; the method of each figure is in its
		 * header comment): each run gives the median of 9 batches; the
		 * ranges are over 10 runs on 2026-12-01, while other jobs
		 * shared the machine.  PAUSE 13.0-17 ns (30-39 cycles). */
		.pause_ns = 13,
		/* a dependent load in 4 KiB: 1.7 ns */
		.l1_ns = 2,
		/* LOCK XADD on an owned line, back to back: 6.0-8.2 ns */
		.atomic_ns = 7,
		/* failed store forwarding: a loop of a lock byte's cmpxchg, a
		 * 32-bit load of its word and a byte store, 6.8 ns a round
		 * against 2.2 ns with the load narrowed (2026-12-05, when this
		 * guest ran on an AMD EPYC host; sim_memory.c). */
		.store_forward_ns = 5,
		/* a line handed between the 2 CPUs (spinning ping-pong): 57-71
		 * ns per hand-off (12 ns in a few batches: the host then ran
		 * both vCPUs on one core).  A hand-off is the receiver's read miss and
		 * its store's upgrade, which the memory model (sim_memory.c)
		 * charges as two transfers (a read, then a write of a line it
		 * does not own): one transfer is half a hand-off.  One node, so
		 * the same both ways. */
		.xfer_local_ns = 32,
		.xfer_remote_ns = 32,
		/* pv_wait = FUTEX_WAIT: what the waiter pays before it sleeps
		 * (the sim's "HLT exit"): FUTEX_WAIT finding the value changed
		 * (EAGAIN), 182-226 ns. */
		.vmexit_ns = 200,
		/* pv_kick = FUTEX_WAKE of a sleeper on the other (idle) CPU, as
		 * the waker sees it: 12-16 us in 6 runs of 7 (this machine is
		 * a nested guest: the IPI that wakes the idle vCPU is
		 * expensive); 1-2 us in one, where the other CPU was busy. */
		.hypercall_ns = 14000,
		/* from just before FUTEX_WAKE to the woken thread running on
		 * the other, idle CPU: 24-26 us (42 us in a run while the
		 * machine was busier); the sim's wake-up latency is
		 * hypercall_ns + ctx_switch_ns + ipi_ns, so ipi_ns is that
		 * latency less the other two (26 - 14 - 1.1 us). */
		.ipi_ns = 11000,
		/* a futex hand-off between two threads on one CPU, less the
		 * FUTEX_WAIT and an empty FUTEX_WAKE: 1.06-1.28 us. */
		.ctx_switch_ns = 1100,
		/* EEVDF base slice: sysctl_sched_base_slice = 0.75 ms x (1 +
		 * ilog2(min(ncpus, 8))) with the default
		 * SCHED_TUNABLESCALING_LOG (kernel/sched/fair.c:
		 * normalized_sysctl_sched_base_slice = 750000ULL,
		 * get_update_sysctl_factor()): 1.5 ms on 2 CPUs
		 * (/sys/kernel/debug/sched/base_slice_ns is not readable here:
		 * debugfs is not mounted).  HZ=250 (CONFIG_HZ in
		 * /proc/config.gz) and HRTICK off (kernel/sched/features.h):
		 * the slice ends at the first 4 ms tick after it ran out; the
		 * measured run of a CPU-bound thread sharing a CPU with another
		 * is 3.90-3.97 ms. */
		.slice_ns = 1500000,
		.tick_ns = 4000000,
		/* both CPUs tick in phase (Linux without skew_tick): their
		 * switches at a tick are 0-1 us apart (twin_costs' switch-out
		 * instants modulo the tick; sim_engine.c gives every pCPU one
		 * phase).  The switch-out comes 460-690 ns (5th-95th
		 * percentile) late: tick_jitter_ns. */
		.tick_jitter_ns = 600,
		/* ... and the next thread runs 44-61 us after the tick in the
		 * quieter runs (more while other tasks take turns): the timer
		 * interrupt of this nested guest and schedule() (a lone
		 * CPU-bound thread also loses 20-70 us at most ticks; that
		 * tick cost without a switch is not modelled). */
		.tick_switch_ns = 50000,
		/* wake-up preemption: EEVDF's pick (RUN_TO_PARITY,
		 * sim_sched.c eevdf_wakeup()); no granularity */
		.eevdf_wakeup = true,
		.wakeup_gran_ns = 0,
		/* threads: no PLE, no halt polling (FUTEX_WAIT sleeps at once;
		 * the idle CPU's cpuidle-haltpoll has guest_halt_poll_ns=0 on
		 * this kernel's command line, and its cost is in ipi_ns) */
		.has_ple = false,
		.ple_window_ns = 0,
		.ple_window_max_ns = 0,
		.halt_poll_ns = 0,
		/* membarrier(PRIVATE_EXPEDITED) from one CPU with a thread
		 * running on the other, back to back (twin_costs,
		 * 2026-12-07, this guest on an AMD EPYC host): 11.2 us for
		 * the caller, and 9.0 us (8.5-12.9 per batch) taken from the
		 * other thread: the IPI through the hypervisor and its
		 * handler.  Only threads on a CPU are targets. */
		.membarrier_ns = 11200,
		.membarrier_target_ns = 9000,
	},
};

static const int sim_nprofiles = sizeof(sim_profiles) / sizeof(sim_profiles[0]);

const struct sim_profile *sim_profile_find(const char *name)
{
	for (int i = 0; i < sim_nprofiles; i++)
		if (!strcmp(sim_profiles[i].name, name))
			return &sim_profiles[i];
	return NULL;
}

const char *sim_profile_names(void)
{
	return "intel-xeon, amd-epyc, loongarch-3c5000, linux-threads";
}

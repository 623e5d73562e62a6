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

const struct sim_workload sim_workloads[] = {
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
};

const int sim_nworkloads = sizeof(sim_workloads) / sizeof(sim_workloads[0]);

const struct sim_workload *sim_workload_find(const char *name)
{
	for (int i = 0; i < sim_nworkloads; i++)
		if (!strcmp(sim_workloads[i].name, name))
			return &sim_workloads[i];
	return NULL;
}

const char *sim_workload_names(void)
{
	return "kcbench, ebizzy, spawn, messaging";
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

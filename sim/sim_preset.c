/*
 * sim_preset.c - the presets of `pvspin sim`: named sets of keys that
 * reproduce the seed experiments (and a sanity run), applied on the
 * defaults with sim_config_set_list() (sim_config.c holds the keys).
 */
#include <string.h>

#include "sim.h"

struct sim_preset {
	const char *name;
	const char *summary;
	const char *settings; /* "key=value key=value ..." applied on defaults */
};

static const struct sim_preset presets[] = {
	{ "kcbench-no-ple",
	  "seed 002: kcbench in 1 or 2 VMs (vms=1|2) of 32 vCPUs on a 32-pCPU, 2-node "
	  "LoongArch 3C5000 host without PLE; compare lock=qspinlock|pvqspinlock|tas",
	  "pcpus=32 nodes=2 profile=loongarch-3c5000 vms=1 vcpus=32 lock=qspinlock "
	  "workload=kcbench pv_unhalt=1 kick_yield=0 ple=0 seconds=20" },
	{ "ebizzy-boost",
	  "seed 001: ebizzy in 1-3 VMs (vms=1..3) of 80 vCPUs on an 80-pCPU 2-node Xeon, "
	  "pvqspinlock, directed yield to the kicked vCPU kick_yield=0|1",
	  "pcpus=80 nodes=2 profile=intel-xeon vms=1 vcpus=80 lock=pvqspinlock "
	  "workload=ebizzy pv_unhalt=1 kick_yield=0 seconds=0.2" },
	{ "spawn-dedicated",
	  "seed 000: UnixBench spawn in one 120-vCPU guest on 120 dedicated pCPUs (2 nodes); "
	  "compare lock=qspinlock|tas (profile=intel-xeon|amd-epyc)",
	  "pcpus=120 nodes=2 profile=intel-xeon vms=1 vcpus=120 dedicated=1 lock=qspinlock "
	  "workload=spawn pv_unhalt=0 kick_yield=0 seconds=0.05" },
	{ "twin",
	  "the machine twin: pvspin bench's loop (cs 50 ns + 2 lines, ncs 100 ns) as threads "
	  "(vcpus=1|2|4|8) on this 2-CPU Linux 6.18 machine (EEVDF, futex halt/kick, no PLE); "
	  "compare lock=qspinlock|pvqspinlock|tas|ticket|spinpark with pvspin bench (sim/twin.sh)",
	  "pcpus=2 nodes=1 profile=linux-threads vms=1 vcpus=4 lock=qspinlock workload=bench "
	  "pv_unhalt=1 kick_yield=0 ple=0 steal_time=0 spin_threshold=2048 seconds=0.4" },
	{ "smoke",
	  "a tiny sanity run: 1 VM of 4 vCPUs on 4 pCPUs, messaging, 10 ms",
	  "pcpus=4 nodes=1 vms=1 vcpus=4 lock=qspinlock workload=messaging seconds=0.01" },
};
#define NPRESETS ((int)(sizeof(presets) / sizeof(presets[0])))

int sim_config_preset(struct sim_config *c, const char *name, FILE *err)
{
	for (int i = 0; i < NPRESETS; i++) {
		if (strcmp(presets[i].name, name))
			continue;
		uint64_t seed = c->seed;
		sim_config_defaults(c);
		c->seed = seed;
		snprintf(c->preset, sizeof(c->preset), "%s", name);
		return sim_config_set_list(c, presets[i].settings, err);
	}
	fprintf(err, "pvspin sim: unknown preset '%s'; valid presets: ", name);
	for (int i = 0; i < NPRESETS; i++)
		fprintf(err, "%s%s", i ? ", " : "", presets[i].name);
	fprintf(err, "\n");
	return -1;
}

void sim_presets_list(FILE *f)
{
	for (int i = 0; i < NPRESETS; i++)
		fprintf(f, "%-16s %s\n", presets[i].name, presets[i].summary);
}

/*
 * bench/machine.h - a description of the machine `pvspin bench` ran on,
 * for the report: CPUs, model, kernel, hypervisor, clock source.
 */
#ifndef PVSPIN_BENCH_MACHINE_H
#define PVSPIN_BENCH_MACHINE_H

struct bench_machine {
	unsigned ncpus;          /* CPUs this process may run on (affinity mask) */
	unsigned ncpus_online;   /* online CPUs of the machine */
	char model[128];         /* /proc/cpuinfo "model name", "" if unknown */
	char kernel[160];        /* uname: sysname release */
	char arch[72];            /* uname machine */
	char hypervisor[16];     /* CPUID 0x40000000 signature ("KVMKVMKVM"), "" if none or unknown */
	char clocksource[32];    /* current clocksource, "" if unknown */
};

/** Fill *m from sched_getaffinity, sysconf, /proc/cpuinfo, uname, CPUID
 *  (x86 only: hypervisor bit of leaf 1 ECX, then the leaf 0x40000000
 *  signature) and /sys.  Missing facts are left empty; never fails. */
void bench_machine_probe(struct bench_machine *m);

/** The CPUs this process may run on (its affinity mask), in increasing
 *  order, at most `max` of them into cpus[]; returns how many (>= 1: CPU
 *  0 alone if the mask cannot be read).  The cells' threads are pinned to
 *  them (--pin) and the placement probe runs on the first two.
 *  Thread-safe. */
int bench_allowed_cpus(int *cpus, int max);

#endif /* PVSPIN_BENCH_MACHINE_H */

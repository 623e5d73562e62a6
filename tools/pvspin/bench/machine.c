/*
 * bench/machine.c - probe the machine for the report (see machine.h).
 */
#define _GNU_SOURCE
#include "bench/machine.h"

#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	size_t k = 0;
	while (s[k] && isspace((unsigned char)s[k]))
		k++;
	memmove(s, s + k, n - k + 1);
}

static void read_model(char *out, size_t size)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon || strncmp(line, "model name", 10))
			continue;
		snprintf(out, size, "%s", colon + 1);
		trim(out);
		break;
	}
	fclose(f);
}

static void read_hypervisor(char *out, size_t size)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return;    /* no hypervisor bit: bare metal (or hidden) */
	__cpuid(0x40000000, a, b, c, d);
	char sig[13];
	memcpy(sig + 0, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = 0;
	for (int i = 0; i < 12; i++)
		if (sig[i] && !isprint((unsigned char)sig[i]))
			sig[i] = '?';
	snprintf(out, size, "%s", sig);
	trim(out);
#else
	(void)out;
	(void)size;
#endif
}

int bench_allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (int c = 0; c < CPU_SETSIZE && n < max; c++)
			if (CPU_ISSET(c, &set))
				cpus[n++] = c;
	if (n == 0)
		cpus[n++] = 0;
	return n;
}

void bench_machine_probe(struct bench_machine *m)
{
	memset(m, 0, sizeof(*m));
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		m->ncpus = (unsigned)CPU_COUNT(&set);
	long on = sysconf(_SC_NPROCESSORS_ONLN);
	m->ncpus_online = on > 0 ? (unsigned)on : 1;
	if (!m->ncpus)
		m->ncpus = m->ncpus_online;
	read_model(m->model, sizeof(m->model));
	struct utsname u;
	if (uname(&u) == 0) {
		snprintf(m->kernel, sizeof(m->kernel), "%s %s", u.sysname, u.release);
		snprintf(m->arch, sizeof(m->arch), "%s", u.machine);
	}
	read_hypervisor(m->hypervisor, sizeof(m->hypervisor));
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (f) {
		if (fgets(m->clocksource, sizeof(m->clocksource), f))
			trim(m->clocksource);
		fclose(f);
	}
}

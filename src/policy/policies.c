/*
 * policies.c - the named lock-selection policies (pvspin/policy.h).
 *
 * linux, linux-pre-2025: Linux kvm_spinlock_init(), arch/x86/kernel/kvm.c,
 *   after and before the 2025 change "x86/kvm: Use native qspinlock by
 *   default when realtime hinted" (seed 000_5ceeea6e48288333.txt), with
 *   native_pv_lock_init() (arch/x86/kernel/paravirt.c: virt_spin_lock_key
 *   on whenever X86_FEATURE_HYPERVISOR is set) for the non-KVM cases.
 *   Reasons repeat the kernel's pr_info() lines with its "kvm-guest: "
 *   prefix.
 * numa, threshold=N: the two proposals of the qemu-devel thread "x86:
 *   Rework KVM-defaults compat code, enable kvm_pv_unhalt by default",
 *   October 2017 (seed 003_7cdf49e09b2389c6.txt): Paolo Bonzini's "enable
 *   it when there is >1 NUMA node in the guest" and Waiman Long's
 *   "unfair_pvspinlock_cpu_threshold".  Both only replace the final
 *   "PV spinlocks enabled" decision, so threshold=0 is linux.
 * pvspin: this project's default; rules and evidence in docs/policy.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvspin/policy.h"

static void pick(pvspin_policy_choice_t *c, pvspin_kind_t kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void pick(pvspin_policy_choice_t *c, pvspin_kind_t kind, const char *fmt, ...)
{
	va_list ap;
	c->kind = kind;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

/* One rule's outcome: pick and leave the policy function. */
#define PICK_RETURN(...) do { pick(__VA_ARGS__); return; } while (0)

static bool has_feature(const pvspin_env_t *env, unsigned bit)
{
	return env->kvm && (env->kvm_features >> bit & 1);
}

static bool has_hint(const pvspin_env_t *env, unsigned bit)
{
	return env->kvm && (env->kvm_hints >> bit & 1);
}

/* num_possible_cpus(): possible CPUs, online ones if that is unknown. */
static int possible_cpus(const pvspin_env_t *env)
{
	return env->cpus_possible > 0 ? env->cpus_possible : env->cpus_online;
}

enum final_test { FINAL_PV, FINAL_NUMA, FINAL_THRESHOLD };

/* env->signature (backslash already doubled, other bytes \xNN) with each
 * double quote as \", so that it can stand between double quotes. */
static const char *sig_quotable(const char *sig, char out[2 * PVSPIN_ENV_SIGNATURE_MAX])
{
	char *o = out;
	for (; *sig; sig++) {
		if (*sig == '"')
			*o++ = '\\';
		*o++ = *sig;
	}
	*o = '\0';
	return out;
}

/* kvm_spinlock_init() and what surrounds it; `final` replaces the last
 * "PV spinlocks enabled" step by a proposal. */
static void kvm_spinlock_init_like(const pvspin_env_t *env, pvspin_policy_choice_t *c,
				   bool realtime_first, enum final_test final, int n)
{
	if (!env->hypervisor)
		PICK_RETURN(c, PVSPIN_KIND_QSPINLOCK,
			    "no hypervisor (CPUID.1:ECX.HYPERVISOR clear): native qspinlock");
	char sig[2 * PVSPIN_ENV_SIGNATURE_MAX];
	if (!env->kvm)
		PICK_RETURN(c, PVSPIN_KIND_TAS,
			    "%s hypervisor \"%s\" without a KVM interface: "
			    "virt_spin_lock_key stays on, unfair lock",
			    env->hypervisor_name, sig_quotable(env->signature, sig));
	if (realtime_first && has_hint(env, PVSPIN_KVM_HINTS_REALTIME))
		PICK_RETURN(c, PVSPIN_KIND_QSPINLOCK,
			    "kvm-guest: PV spinlocks disabled with KVM_HINTS_REALTIME hints");
	if (!has_feature(env, PVSPIN_KVM_FEATURE_PV_UNHALT))
		PICK_RETURN(c, PVSPIN_KIND_TAS,
			    "kvm-guest: PV spinlocks disabled, no host support");
	if (!realtime_first && has_hint(env, PVSPIN_KVM_HINTS_REALTIME))
		PICK_RETURN(c, PVSPIN_KIND_QSPINLOCK,
			    "kvm-guest: PV spinlocks disabled with KVM_HINTS_REALTIME hints");
	if (possible_cpus(env) == 1)
		PICK_RETURN(c, PVSPIN_KIND_QSPINLOCK,
			    "kvm-guest: PV spinlocks disabled, single CPU");
	if (env->nopvspin)
		PICK_RETURN(c, PVSPIN_KIND_QSPINLOCK,
			    "kvm-guest: PV spinlocks disabled, forced by \"nopvspin\" parameter");
	if (final == FINAL_NUMA && env->numa_nodes <= 1)
		PICK_RETURN(c, PVSPIN_KIND_TAS,
			    "kvm-guest: PV spinlocks disabled, %s: unfair lock",
			    env->numa_known ? "single NUMA node" : "NUMA nodes unknown, 1 assumed");
	if (final == FINAL_NUMA)
		PICK_RETURN(c, PVSPIN_KIND_PVQSPINLOCK,
			    "kvm-guest: PV spinlocks enabled, guest spans %d NUMA nodes",
			    env->numa_nodes);
	if (final == FINAL_THRESHOLD && possible_cpus(env) > 0 && possible_cpus(env) <= n)
		PICK_RETURN(c, PVSPIN_KIND_TAS,
			    "kvm-guest: PV spinlocks disabled, %d CPUs <= "
			    "unfair_pvspinlock_cpu_threshold=%d: unfair lock",
			    possible_cpus(env), n);
	/* The kernel always knows its CPUs; detection may not: say what the
	 * "single CPU" test above assumed. */
	pick(c, PVSPIN_KIND_PVQSPINLOCK, "kvm-guest: PV spinlocks enabled%s",
	     possible_cpus(env) > 0 ? "" : " (CPU count unknown: more than 1 assumed)");
}

void pvspin_policy_linux(const pvspin_env_t *env, int param, pvspin_policy_choice_t *c)
{
	kvm_spinlock_init_like(env, c, true, FINAL_PV, 0);
}

void pvspin_policy_linux_pre_2025(const pvspin_env_t *env, int param,
				  pvspin_policy_choice_t *c)
{
	kvm_spinlock_init_like(env, c, false, FINAL_PV, 0);
}

void pvspin_policy_numa(const pvspin_env_t *env, int param, pvspin_policy_choice_t *c)
{
	kvm_spinlock_init_like(env, c, true, FINAL_NUMA, 0);
}

void pvspin_policy_threshold(const pvspin_env_t *env, int param,
			     pvspin_policy_choice_t *c)
{
	kvm_spinlock_init_like(env, c, true, FINAL_THRESHOLD, param);
}

/* Steal time from which the host counts as overcommitted, per cent. */
#define PVSPIN_STEAL_PCT_MIN 1.0

/*
 * pvspin's rules, first match wins (docs/policy.md has the evidence).  In
 * userspace a thread is a vCPU and futex wait/wake are halt/kick, so the PV
 * lock never lacks "host support": PV_UNHALT does not matter here.  And a
 * thread, unlike a kernel spinlock holder, can be preempted by its own OS
 * at any instruction, whatever the machine: every row picks spinpark, the
 * kind written for that (docs/spinpark.md); the rows differ in the reason
 * they give, which is what `pvspin detect` shows.
 */
void pvspin_policy_pvspin(const pvspin_env_t *env, int param, pvspin_policy_choice_t *c)
{
	const pvspin_kind_t park = PVSPIN_KIND_SPINPARK;
	int online = env->cpus_online > 0 ? env->cpus_online : possible_cpus(env);
	int cpus = env->cpus_allowed > 0 ? env->cpus_allowed : online;
	/* which count `cpus` is, for the reasons: never "allowed" for one
	 * that stands in for an unknown mask */
	const char *cpus_what = env->cpus_allowed > 0 ? "allowed"
				: env->cpus_online > 0 ? "online" : "possible";

	if (env->cpu_quota > 0 && env->cpu_quota < cpus)
		PICK_RETURN(c, park, "pvspin: CPU quota %.*f CPUs below %d %s CPU%s: "
			    "threads are throttled while holding locks",   /* 2 decimals; 5 below 0.01 CPUs */
			    env->cpu_quota >= 0.01 ? 2 : 5, env->cpu_quota, cpus, cpus_what,
			    cpus == 1 ? "" : "s");
	if (env->steal_pct >= PVSPIN_STEAL_PCT_MIN)
		PICK_RETURN(c, park, "pvspin: steal time %.2f%% >= %.0f%%: the host preempts vCPUs",
			    env->steal_pct, PVSPIN_STEAL_PCT_MIN);
	if (online > 0 && env->runnable > online)
		PICK_RETURN(c, park, "pvspin: %.2f runnable threads on %d CPU%s: overcommitted",
			    env->runnable, online, online == 1 ? "" : "s");
	if (cpus == 1)
		PICK_RETURN(c, park, "pvspin: single %s CPU: a waiter runs only by "
			    "preempting the holder", cpus_what);
	if (env->hypervisor && !has_hint(env, PVSPIN_KVM_HINTS_REALTIME))
		PICK_RETURN(c, park, "pvspin: %s guest without KVM_HINTS_REALTIME: vCPUs may be "
			    "preempted (futex halt/kick needs no PV_UNHALT)", env->hypervisor_name);
	/* An unknown count (0) is said as such, never as "0 CPUs". */
	char ncpus[16] = "unknown";
	if (cpus > 0)
		snprintf(ncpus, sizeof(ncpus), "%d", cpus);
	if (env->hypervisor)
		PICK_RETURN(c, park, "pvspin: dedicated pCPUs (KVM_HINTS_REALTIME), %s CPUs, "
			    "not overcommitted: threads can still outnumber CPUs", ncpus);
	pick(c, park, "pvspin: bare metal, %s CPUs, not overcommitted: threads can still "
	     "outnumber CPUs", ncpus);
}

/* ---- names ----------------------------------------------------------- */

static const pvspin_policy_t policies[] = {
	{ "linux", pvspin_policy_linux, 0 },
	{ "linux-pre-2025", pvspin_policy_linux_pre_2025, 0 },
	{ "numa", pvspin_policy_numa, 0 },
	{ "threshold", pvspin_policy_threshold, PVSPIN_POLICY_THRESHOLD_DEFAULT },
	{ "pvspin", pvspin_policy_pvspin, 0 },
};
#define NPOLICIES (sizeof(policies) / sizeof(policies[0]))

const pvspin_policy_t *pvspin_policy_all(size_t *count)
{
	*count = NPOLICIES;
	return policies;
}

/* The spec list, once, for pvspin_policy_names() and the parse error. */
#define POLICY_NAMES "linux, linux-pre-2025, numa, threshold, threshold=N, pvspin"

const char *pvspin_policy_names(void)
{
	return POLICY_NAMES;
}

#define STR_(x) #x
#define STR(x) STR_(x)
const char *pvspin_policy_parse_error(int err)
{
	if (err == ERANGE)
		return "N of threshold=N is a CPU count from 0 to " STR(PVSPIN_POLICY_THRESHOLD_MAX);
	return "not a policy; valid policies: " POLICY_NAMES;
}

int pvspin_policy_parse(const char *spec, pvspin_policy_t *p)
{
	if (!spec)
		goto bad;
	for (size_t i = 0; i < NPOLICIES; i++) {
		if (!strcmp(spec, policies[i].name)) {
			*p = policies[i];
			return 0;
		}
	}
	if (!strncmp(spec, "threshold=", 10)) {
		/* the policy is known: whatever is wrong is N, so say what N
		 * must be (ERANGE), for "threshold=+3" as for one too large */
		const char *v = spec + 10;
		char *end;
		errno = 0;
		long n = *v >= '0' && *v <= '9' ? strtol(v, &end, 10) : -1;
		if (n < 0 || *end || errno || n > PVSPIN_POLICY_THRESHOLD_MAX) {
			errno = ERANGE;
			return -1;
		}
		*p = policies[3];
		p->param = (int)n;
		return 0;
	}
bad:
	errno = EINVAL;
	return -1;
}

void pvspin_policy_pick(const pvspin_policy_t *p, const pvspin_env_t *env,
			pvspin_policy_choice_t *c)
{
	p->fn(env, p->param, c);
}

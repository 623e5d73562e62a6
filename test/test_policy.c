/*
 * test_policy.c - every branch of every lock-selection policy
 * (pvspin/policy.h), table-driven on hand-made environments, and policy
 * name parsing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pvspin/policy.h"

#define F(x) (1u << PVSPIN_KVM_FEATURE_##x)
#define UNHALT F(PV_UNHALT)
#define RT (1u << PVSPIN_KVM_HINTS_REALTIME)

enum envkind { BARE, KVM, VMWARE, KVM_BEHIND_HYPERV };

/* An environment: hypervisor kind, KVM features and hints, CPUs, nodes,
 * and the pvspin inputs. */
struct envspec {
	enum envkind kind;
	uint32_t features, hints;
	int possible, online, allowed, nodes;
	double quota, steal, runnable;
	bool nopvspin;
	bool numa_unknown;   /* detection could not read the NUMA nodes */
};

static pvspin_env_t make_env(const struct envspec *s)
{
	pvspin_env_t e;
	memset(&e, 0, sizeof(e));
	e.hypervisor_name = "none";
	e.base_leaf = PVSPIN_CPUID_HV_BASE;
	if (s->kind != BARE) {
		e.hypervisor = true;
		switch (s->kind) {
		case VMWARE:
			strcpy(e.signature, "VMwareVMware");
			e.hypervisor_name = "VMware";
			break;
		case KVM_BEHIND_HYPERV:
			strcpy(e.signature, "Microsoft Hv");
			e.hypervisor_name = "Hyper-V";
			e.kvm = true;
			e.base_leaf = 0x40000100;
			break;
		default:
			strcpy(e.signature, "KVMKVMKVM");
			e.hypervisor_name = "KVM";
			e.kvm = true;
		}
		if (e.kvm) {
			e.kvm_features = s->features;
			e.kvm_hints = s->hints;
		}
	}
	e.cpus_possible = s->possible;
	e.cpus_online = s->online;
	e.cpus_allowed = s->allowed;
	e.numa_nodes = s->nodes ? s->nodes : 1;
	e.numa_known = !s->numa_unknown;
	e.cpu_quota = s->quota;
	e.steal_pct = s->steal;
	e.runnable = s->runnable;
	e.nopvspin = s->nopvspin;
	return e;
}

struct policy_case {
	const char *what;
	const char *policy;         /* a spec for pvspin_policy_parse */
	struct envspec env;
	pvspin_kind_t want;
	const char *reason;         /* substring of the reason */
};

/* 8 CPUs, 1 node, no steal, no load: the "else PV" guest. */
#define GUEST8 .possible = 8, .online = 8, .allowed = 8

static const struct policy_case cases[] = {
	/* ---- linux (today's kvm_spinlock_init order) ---- */
	{ "linux: bare metal", "linux", { BARE, GUEST8 }, PVSPIN_KIND_QSPINLOCK, "no hypervisor" },
	{ "linux: VMware keeps the unfair lock", "linux", { VMWARE, GUEST8 },
	  PVSPIN_KIND_TAS, "virt_spin_lock_key stays on" },
	{ "linux: seed case REALTIME without PV_UNHALT", "linux", { KVM, 0, RT, GUEST8 },
	  PVSPIN_KIND_QSPINLOCK, "PV spinlocks disabled with KVM_HINTS_REALTIME hints" },
	{ "linux: REALTIME with PV_UNHALT", "linux", { KVM, UNHALT, RT, GUEST8 },
	  PVSPIN_KIND_QSPINLOCK, "KVM_HINTS_REALTIME" },
	{ "linux: no PV_UNHALT", "linux", { KVM, F(STEAL_TIME), 0, GUEST8 },
	  PVSPIN_KIND_TAS, "PV spinlocks disabled, no host support" },
	{ "linux: single CPU gives native", "linux",
	  { KVM, UNHALT, 0, .possible = 1, .online = 1, .allowed = 1 },
	  PVSPIN_KIND_QSPINLOCK, "PV spinlocks disabled, single CPU" },
	{ "linux: single CPU without PV_UNHALT keeps unfair", "linux",
	  { KVM, 0, 0, .possible = 1, .online = 1, .allowed = 1 },
	  PVSPIN_KIND_TAS, "no host support" },
	{ "linux: possible unknown, one online", "linux",
	  { KVM, UNHALT, 0, .possible = 0, .online = 1, .allowed = 1 },
	  PVSPIN_KIND_QSPINLOCK, "single CPU" },
	{ "linux: nopvspin", "linux", { KVM, UNHALT, 0, GUEST8, .nopvspin = true },
	  PVSPIN_KIND_QSPINLOCK, "forced by \"nopvspin\" parameter" },
	{ "linux: PV", "linux", { KVM, UNHALT, 0, GUEST8 },
	  PVSPIN_KIND_PVQSPINLOCK, "kvm-guest: PV spinlocks enabled" },
	{ "linux: KVM behind Hyper-V, PV", "linux", { KVM_BEHIND_HYPERV, UNHALT, 0, GUEST8 },
	  PVSPIN_KIND_PVQSPINLOCK, "PV spinlocks enabled" },
	/* ---- linux-pre-2025 (PV_UNHALT first) ---- */
	{ "pre-2025: bare metal", "linux-pre-2025", { BARE, GUEST8 },
	  PVSPIN_KIND_QSPINLOCK, "no hypervisor" },
	{ "pre-2025: Xen-like non-KVM", "linux-pre-2025", { VMWARE, GUEST8 },
	  PVSPIN_KIND_TAS, "without a KVM interface" },
	{ "pre-2025: seed case REALTIME without PV_UNHALT", "linux-pre-2025",
	  { KVM, 0, RT, GUEST8 }, PVSPIN_KIND_TAS, "PV spinlocks disabled, no host support" },
	{ "pre-2025: REALTIME with PV_UNHALT", "linux-pre-2025", { KVM, UNHALT, RT, GUEST8 },
	  PVSPIN_KIND_QSPINLOCK, "KVM_HINTS_REALTIME hints" },
	{ "pre-2025: single CPU", "linux-pre-2025",
	  { KVM, UNHALT, 0, .possible = 1, .online = 1, .allowed = 1 },
	  PVSPIN_KIND_QSPINLOCK, "single CPU" },
	{ "pre-2025: nopvspin", "linux-pre-2025", { KVM, UNHALT, 0, GUEST8, .nopvspin = true },
	  PVSPIN_KIND_QSPINLOCK, "nopvspin" },
	{ "pre-2025: PV", "linux-pre-2025", { KVM, UNHALT, 0, GUEST8 },
	  PVSPIN_KIND_PVQSPINLOCK, "PV spinlocks enabled" },
	/* ---- numa ---- */
	{ "numa: bare metal", "numa", { BARE, GUEST8, .nodes = 2 }, PVSPIN_KIND_QSPINLOCK, "no hypervisor" },
	{ "numa: non-KVM", "numa", { VMWARE, GUEST8, .nodes = 2 }, PVSPIN_KIND_TAS, "VMware" },
	{ "numa: REALTIME", "numa", { KVM, 0, RT, GUEST8, .nodes = 2 },
	  PVSPIN_KIND_QSPINLOCK, "KVM_HINTS_REALTIME" },
	{ "numa: no PV_UNHALT", "numa", { KVM, 0, 0, GUEST8, .nodes = 2 },
	  PVSPIN_KIND_TAS, "no host support" },
	{ "numa: single CPU", "numa",
	  { KVM, UNHALT, 0, .possible = 1, .online = 1, .allowed = 1 },
	  PVSPIN_KIND_QSPINLOCK, "single CPU" },
	{ "numa: nopvspin", "numa", { KVM, UNHALT, 0, GUEST8, .nodes = 2, .nopvspin = true },
	  PVSPIN_KIND_QSPINLOCK, "nopvspin" },
	{ "numa: one node keeps the unfair lock", "numa", { KVM, UNHALT, 0, GUEST8, .nodes = 1 },
	  PVSPIN_KIND_TAS, "single NUMA node" },
	{ "numa: unknown nodes are said as assumed", "numa",
	  { KVM, UNHALT, 0, GUEST8, .numa_unknown = true },
	  PVSPIN_KIND_TAS, "NUMA nodes unknown, 1 assumed" },
	{ "linux: unknown CPUs are said as assumed", "linux", { KVM, UNHALT, 0, .possible = 0 },
	  PVSPIN_KIND_PVQSPINLOCK, "enabled (CPU count unknown: more than 1 assumed)" },
	{ "numa: two nodes get PV", "numa", { KVM, UNHALT, 0, GUEST8, .nodes = 2 },
	  PVSPIN_KIND_PVQSPINLOCK, "spans 2 NUMA nodes" },
	/* ---- threshold=N ---- */
	{ "threshold: bare metal", "threshold=16", { BARE, GUEST8 }, PVSPIN_KIND_QSPINLOCK, "no hypervisor" },
	{ "threshold: non-KVM", "threshold=16", { VMWARE, GUEST8 }, PVSPIN_KIND_TAS, "VMware" },
	{ "threshold: REALTIME", "threshold=16", { KVM, UNHALT, RT, GUEST8 },
	  PVSPIN_KIND_QSPINLOCK, "KVM_HINTS_REALTIME" },
	{ "threshold: no PV_UNHALT", "threshold=16", { KVM, 0, 0, GUEST8 },
	  PVSPIN_KIND_TAS, "no host support" },
	{ "threshold: single CPU", "threshold=16",
	  { KVM, UNHALT, 0, .possible = 1, .online = 1, .allowed = 1 },
	  PVSPIN_KIND_QSPINLOCK, "single CPU" },
	{ "threshold: nopvspin", "threshold=16", { KVM, UNHALT, 0, GUEST8, .nopvspin = true },
	  PVSPIN_KIND_QSPINLOCK, "nopvspin" },
	{ "threshold: 8 CPUs <= 8 unfair", "threshold=8", { KVM, UNHALT, 0, GUEST8 },
	  PVSPIN_KIND_TAS, "8 CPUs <= unfair_pvspinlock_cpu_threshold=8" },
	{ "threshold: 8 CPUs > 7 PV", "threshold=7", { KVM, UNHALT, 0, GUEST8 },
	  PVSPIN_KIND_PVQSPINLOCK, "PV spinlocks enabled" },
	{ "threshold: default N=4, 2 CPUs", "threshold",
	  { KVM, UNHALT, 0, .possible = 2, .online = 2, .allowed = 2 },
	  PVSPIN_KIND_TAS, "threshold=4" },
	{ "threshold=0 is linux", "threshold=0",
	  { KVM, UNHALT, 0, .possible = 2, .online = 2, .allowed = 2 },
	  PVSPIN_KIND_PVQSPINLOCK, "PV spinlocks enabled" },
	{ "threshold: unknown CPU count is not small", "threshold=4",
	  { KVM, UNHALT, 0, .possible = 0 }, PVSPIN_KIND_PVQSPINLOCK, "enabled" },
	/* ---- pvspin ---- */
	{ "pvspin: quota below CPUs", "pvspin", { BARE, GUEST8, .quota = 2.5 },
	  PVSPIN_KIND_SPINPARK, "CPU quota 2.50 CPUs below 8 allowed CPUs" },
	/* a count of 1 is singular ("1 allowed CPU", a new user saw "1 CPUs") */
	{ "pvspin: quota below a single CPU", "pvspin",
	  { BARE, .possible = 8, .online = 8, .allowed = 1, .quota = 0.5 },
	  PVSPIN_KIND_SPINPARK, "CPU quota 0.50 CPUs below 1 allowed CPU: " },
	{ "pvspin: quota at CPUs is no limit", "pvspin", { BARE, GUEST8, .quota = 8 },
	  PVSPIN_KIND_SPINPARK, "bare metal, 8 CPUs" },
	{ "pvspin: steal time", "pvspin", { KVM, UNHALT, RT, GUEST8, .steal = 3.0 },
	  PVSPIN_KIND_SPINPARK, "steal time 3.00%" },
	{ "pvspin: steal just below threshold", "pvspin", { KVM, UNHALT, RT, GUEST8, .steal = 0.99 },
	  PVSPIN_KIND_SPINPARK, "dedicated pCPUs" },
	{ "pvspin: more runnable than CPUs", "pvspin", { BARE, GUEST8, .runnable = 8.5 },
	  PVSPIN_KIND_SPINPARK, "8.50 runnable threads on 8 CPUs" },
	{ "pvspin: more runnable than a single CPU", "pvspin",
	  { BARE, .possible = 1, .online = 1, .allowed = 1, .runnable = 1.5 },
	  PVSPIN_KIND_SPINPARK, "1.50 runnable threads on 1 CPU: overcommitted" },
	{ "pvspin: runnable equal to CPUs", "pvspin", { BARE, GUEST8, .runnable = 8.0 },
	  PVSPIN_KIND_SPINPARK, "not overcommitted" },
	{ "pvspin: single allowed CPU", "pvspin",
	  { BARE, .possible = 8, .online = 8, .allowed = 1 },
	  PVSPIN_KIND_SPINPARK, "single allowed CPU" },
	{ "pvspin: guest without REALTIME, even without PV_UNHALT", "pvspin", { KVM, 0, 0, GUEST8 },
	  PVSPIN_KIND_SPINPARK, "without KVM_HINTS_REALTIME" },
	{ "pvspin: non-KVM guest", "pvspin", { VMWARE, GUEST8 },
	  PVSPIN_KIND_SPINPARK, "VMware guest" },
	{ "pvspin: REALTIME guest, quiet", "pvspin", { KVM, 0, RT, GUEST8, .steal = 0, .runnable = 1 },
	  PVSPIN_KIND_SPINPARK, "dedicated pCPUs (KVM_HINTS_REALTIME)" },
	{ "pvspin: bare metal, quiet", "pvspin", { BARE, GUEST8, .steal = 0, .runnable = 2 },
	  PVSPIN_KIND_SPINPARK, "bare metal" },
	{ "pvspin: bare metal, steal and load unknown", "pvspin",
	  { BARE, GUEST8, .steal = -1, .runnable = -1 }, PVSPIN_KIND_SPINPARK, "bare metal, 8 CPUs" },
	{ "pvspin: allowed unknown uses online", "pvspin",
	  { BARE, .possible = 4, .online = 4, .allowed = 0, .quota = 2 },
	  PVSPIN_KIND_SPINPARK, "below 4 online CPUs" },
	{ "pvspin: allowed and online unknown use possible", "pvspin",
	  { BARE, .possible = 1, .online = 0, .allowed = 0 },
	  PVSPIN_KIND_SPINPARK, "single possible CPU" },
};

static void test_policy_cases(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct policy_case *k = &cases[i];
		pvspin_policy_t p;
		pvspin_env_t e = make_env(&k->env);
		pvspin_policy_choice_t c;

		assert_int_equal(pvspin_policy_parse(k->policy, &p), 0);
		memset(&c, 0x55, sizeof(c));
		pvspin_policy_pick(&p, &e, &c);
		if (c.kind != k->want || !strstr(c.reason, k->reason)) {
			print_error("case '%s': got %s \"%s\", want %s \"...%s...\"\n", k->what,
				    pvspin_kind_name(c.kind), c.reason, pvspin_kind_name(k->want),
				    k->reason);
			fail();
		}
		assert_true(strlen(c.reason) < sizeof(c.reason));
		assert_null(strchr(c.reason, '\n'));
	}
}

/* Every policy in the list gives a real kind and a reason everywhere. */
static void test_policy_all_total(void **state)
{
	size_t n;
	const pvspin_policy_t *all = pvspin_policy_all(&n);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pvspin_env_t e = make_env(&cases[i].env);
		for (size_t j = 0; j < n; j++) {
			pvspin_policy_choice_t c;
			pvspin_policy_pick(&all[j], &e, &c);
			assert_true(c.kind > PVSPIN_KIND_NONE && c.kind < PVSPIN_KIND_COUNT);
			assert_true(c.reason[0] != '\0');
		}
	}
}

static void test_policy_parse(void **state)
{
	static const struct { const char *spec; int ok; const char *name; int param; } t[] = {
		{ "linux", 0, "linux", 0 },
		{ "linux-pre-2025", 0, "linux-pre-2025", 0 },
		{ "numa", 0, "numa", 0 },
		{ "pvspin", 0, "pvspin", 0 },
		{ "threshold", 0, "threshold", PVSPIN_POLICY_THRESHOLD_DEFAULT },
		{ "threshold=0", 0, "threshold", 0 },
		{ "threshold=64", 0, "threshold", 64 },
		{ "threshold=1000000", 0, "threshold", 1000000 },
		{ "threshold=1000001", -ERANGE, NULL, 0 },
		{ "threshold=99999999999999999999", -ERANGE, NULL, 0 },
		{ "threshold=+3", -ERANGE, NULL, 0 },
		{ "threshold=0x10", -ERANGE, NULL, 0 },
		{ "threshold=", -ERANGE, NULL, 0 },
		{ "threshold=-1", -ERANGE, NULL, 0 },
		{ "threshold=4x", -ERANGE, NULL, 0 },
		{ "threshold= 4", -ERANGE, NULL, 0 },
		{ "Linux", -1, NULL, 0 },
		{ "", -1, NULL, 0 },
		{ "linux ", -1, NULL, 0 },
		{ NULL, -1, NULL, 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		pvspin_policy_t p = { 0 };
		errno = 0;
		int r = pvspin_policy_parse(t[i].spec, &p);
		/* ok: 0, -1 (errno EINVAL) or -ERANGE (-1, errno ERANGE: a bad
		 * threshold N out of range) */
		if (r != (t[i].ok < 0 ? -1 : 0)) {
			print_error("spec '%s': got %d\n", t[i].spec ? t[i].spec : "(null)", r);
			fail();
		}
		if (r == 0) {
			assert_string_equal(p.name, t[i].name);
			assert_int_equal(p.param, t[i].param);
			assert_non_null(p.fn);
		} else {
			assert_int_equal(errno, t[i].ok == -ERANGE ? ERANGE : EINVAL);
		}
	}
	assert_non_null(strstr(pvspin_policy_names(), "linux-pre-2025"));
	assert_non_null(strstr(pvspin_policy_names(), "threshold=N"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_cases),
		cmocka_unit_test(test_policy_all_total),
		cmocka_unit_test(test_policy_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

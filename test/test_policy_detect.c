/*
 * test_policy_detect.c - environment detection (pvspin/policy.h) from
 * CPUID dumps and fake /proc and /sys trees in test/data/policy, the
 * `cpuid -1 -r` parser and its errors, cpulists, steal arithmetic, and the
 * library's default pick (PVSPIN_POLICY).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pvspin/policy.h"
#include "policy/policy_default.h"
#include "policy/policy_internal.h"

#ifndef PVSPIN_TEST_DATA
#error "PVSPIN_TEST_DATA must name test/data/policy"
#endif

static int parse_string(pvspin_env_cpuid_t *t, const char *text, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(f);
	int r = pvspin_env_cpuid_parse(t, f, "dump", err, errlen);
	fclose(f);
	return r;
}

#define L0 "   0x00000000 0x00: eax=0x0000000d ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n"
#define L1 "   0x00000001 0x00: eax=0x000c06f2 ebx=0x00020800 ecx=0xfffa3203 edx=0x1f8bfbff\n"

/* A dump missing a leaf that detection reads is incomplete, named. */
static void test_cpuid_complete(void **state)
{
	(void)state;
	static const char kvm0[] = "   0x40000000 0x00: eax=0x40000001 ebx=0x4b4d564b ecx=0x564b4d56 edx=0x0000004d\n";
	static const char kvm1[] = "   0x40000001 0x00: eax=0x01007efb ebx=0x0 ecx=0x0 edx=0x0\n";
	static const struct { const char *text; const char *err; } t[] = {
		{ "CPU:\n" L0 L1 "%s%s", NULL },
		{ "CPU:\n" L0 L1 "%s", "leaf 0x40000000 (KVM) goes up to 0x40000001, but there is no leaf 0x40000001" },
		{ "CPU:\n" L0 L1, "leaf 0x00000001 has the hypervisor bit set, but there is no leaf 0x40000000" },
		{ "CPU:\n" L0, "no leaf 0x00000001" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char text[1024], err[256] = "";
		snprintf(text, sizeof(text), t[i].text, kvm0, kvm1);
		pvspin_env_cpuid_t tab = { 0 };
		assert_int_equal(parse_string(&tab, text, err, sizeof(err)), 0);
		int r = pvspin_env_cpuid_complete(&tab, err, sizeof(err));
		if (t[i].err)
			assert_true(r == -1 && !strncmp(err, t[i].err, strlen(t[i].err)));
		else
			assert_int_equal(r, 0);
		pvspin_env_cpuid_free(&tab);
	}
}

static void test_cpuid_parse_errors(void **state)
{
	static const struct { const char *text; int count; const char *err; } t[] = {
		{ "CPU:\n" L0 L1, 2, NULL },
		{ L0, 1, NULL },                                  /* no header */
		{ "CPU 0:\n" L0 "\n# comment\n" L1, 2, NULL },
		{ "CPU 0:\n" L0 "CPU 1:\n" L1, 1, NULL },         /* first CPU only */
		{ "CPU:\r\n" L0, 1, NULL },                       /* CRLF */
		{ "CPU:\n" L0 L0, 0,                             /* which one would be right? */
		  "dump:3: leaf 0x00000000 subleaf 0x00 repeated (first given on line 2)" },
		{ "", 0, "dump: empty file, no CPUID leaves" },
		{ "CPU:\n# nothing\n", 0, "dump:2: no CPUID leaves" },
		{ "hello\n", 0, "dump:1: malformed CPUID line, expected a leaf number" },
		{ "CPU:\n" L0 "   0x00000001 0x00 eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n", 0,
		  "dump:3: malformed CPUID line, expected ':' after the subleaf" },
		{ "CPU:\n\n\n   0x00000001 0x00: eax=0x0 ebx=0x0 ecx=0x0\n", 0,
		  "dump:4: malformed CPUID line, expected edx=0x... after ecx" },
		{ "CPU:\n   0x00000001 0x00: eax=0x123456789 ebx=0x0 ecx=0x0 edx=0x0\n", 0,
		  "dump:2: malformed CPUID line, expected a 32-bit hex value" },
		{ "CPU:\n   0x00000001 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0 extra\n", 0,
		  "dump:2: malformed CPUID line, expected the end of the line" },
		{ "CPU:\n   0x00000001 0x00: ebx=0x0 eax=0x0 ecx=0x0 edx=0x0\n", 0,
		  "dump:2: malformed CPUID line, expected eax=0x..." },
		{ "CPU:\n   0x00000001 0xzz: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n", 0,
		  "dump:2: malformed CPUID line, expected a subleaf" },
		{ "CPU:\n   1 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n", 0,
		  "dump:2: malformed CPUID line, expected a leaf number" },
		{ "CPU: x\n", 0, "dump:1: malformed" },
		/* a bounded line: --cpuid /dev/zero grew a buffer without limit;
		 * 255 characters before the newline still fit */
		{ "CPU:\n   0x00000001 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0"
		  "                                                                "
		  "                                                                "
		  "                                                                "
		  "            \n", 1, NULL },
		{ "CPU:\n   0x00000001 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0"
		  "                                                                "
		  "                                                                "
		  "                                                                "
		  "                                                                \n", 0,
		  "dump:2: line longer than 255 characters" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		pvspin_env_cpuid_t tab = { 0 };
		char err[512] = "";
		int r = parse_string(&tab, t[i].text, err, sizeof(err));
		if (t[i].err) {
			if (r != -1 || strncmp(err, t[i].err, strlen(t[i].err))) {
				print_error("case %zu: r=%d err='%s', want '%s'\n", i, r, err, t[i].err);
				fail();
			}
			assert_int_equal(tab.count, 0);
			assert_null(tab.leaves);
		} else {
			if (r != 0) {
				print_error("case %zu: unexpected error '%s'\n", i, err);
				fail();
			}
			assert_int_equal(tab.count, t[i].count);
		}
		pvspin_env_cpuid_free(&tab);
	}
	/* values land where they belong */
	pvspin_env_cpuid_t tab = { 0 };
	char err[256];
	assert_int_equal(parse_string(&tab, "CPU:\n" L1, err, sizeof(err)), 0);
	uint32_t r[4];
	assert_true(pvspin_env_cpuid_get(&tab, 1, 0, r));
	assert_int_equal(r[0], 0x000c06f2);
	assert_int_equal(r[1], 0x00020800);
	assert_int_equal(r[2], 0xfffa3203);
	assert_int_equal(r[3], 0x1f8bfbff);
	assert_false(pvspin_env_cpuid_get(&tab, 2, 0, r));
	assert_int_equal(r[0] | r[1] | r[2] | r[3], 0);
	pvspin_env_cpuid_free(&tab);
	/* a missing file names itself */
	assert_int_equal(pvspin_env_cpuid_load(&tab, PVSPIN_TEST_DATA "/nonexistent", err,
					       sizeof(err)), -1);
	assert_non_null(strstr(err, "nonexistent: "));
}

struct dump_case {
	const char *file;
	bool hypervisor;
	const char *name, *signature;
	bool kvm;
	uint32_t base_leaf, features, hints;
};

/* A dump is bounded: 4096 leaves and 65536 lines at most, each named at
 * the line past the bound (320 000 leaves took 15 s, blank lines were
 * read for ever: a new user's findings).  4096 leaves still parse. */
static void test_cpuid_bounds(void **state)
{
	(void)state;
	const char *fmt = "   0x%08x 0x00: eax=0x0 ebx=0x0 ecx=0x0 edx=0x0\n";
	size_t cap = 4097 * 64 + 1;
	char *text = malloc(cap);
	assert_non_null(text);
	for (int n = 4096; n <= 4097; n++) {
		size_t len = 0;
		for (int i = 0; i < n; i++)
			len += (size_t)snprintf(text + len, cap - len, fmt, i);
		pvspin_env_cpuid_t tab = { 0 };
		char err[512] = "";
		int r = parse_string(&tab, text, err, sizeof(err));
		if (n == 4096) {
			assert_int_equal(r, 0);
			assert_int_equal(tab.count, 4096);
			pvspin_env_cpuid_free(&tab);
		} else {
			assert_int_equal(r, -1);
			assert_string_equal(err, "dump:4097: more than 4096 CPUID leaves (a `cpuid "
					    "-1 -r` dump of one CPU has a few hundred)");
		}
	}
	free(text);
	/* 65 537 blank lines */
	text = malloc(65537 + 1);
	assert_non_null(text);
	memset(text, '\n', 65537);
	text[65537] = '\0';
	pvspin_env_cpuid_t tab = { 0 };
	char err[512] = "";
	assert_int_equal(parse_string(&tab, text, err, sizeof(err)), -1);
	assert_string_equal(err, "dump:65537: more than 65536 lines (a `cpuid -1 -r` dump of "
			    "one CPU has a few hundred)");
	free(text);
}

static void test_cpuid_dumps(void **state)
{
	static const struct dump_case t[] = {
		{ "this-machine.txt", true, "KVM", "KVMKVMKVM", true, 0x40000000, 0x01007efb, 0 },
		{ "kvm-realtime-nounhalt.txt", true, "KVM", "KVMKVMKVM", true, 0x40000000,
		  0x01007e7b, 1 },
		{ "kvm-nounhalt.txt", true, "KVM", "KVMKVMKVM", true, 0x40000000, 0x01007e7b, 0 },
		{ "hyperv-kvm.txt", true, "Hyper-V", "Microsoft Hv", true, 0x40000100,
		  0x01007efb, 0 },
		{ "vmware.txt", true, "VMware", "VMwareVMware", false, 0x40000000, 0, 0 },
		{ "unknown.txt", true, "unknown", "Pv\\x01spin\"\\\\H\\x7f", false, 0x40000000, 0, 0 },
		{ "baremetal.txt", false, "none", "", false, 0x40000000, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char path[512], err[512];
		pvspin_env_cpuid_t tab = { 0 };
		snprintf(path, sizeof(path), "%s/cpuid/%s", PVSPIN_TEST_DATA, t[i].file);
		if (pvspin_env_cpuid_load(&tab, path, err, sizeof(err))) {
			print_error("%s\n", err);
			fail();
		}
		pvspin_env_source_t src = { PVSPIN_TEST_DATA "/root-empty", &tab };
		pvspin_env_t env;
		assert_int_equal(pvspin_env_detect(&env, &src), 0);
		print_message("%s: %s \"%s\" kvm=%d base=0x%x\n", t[i].file, env.hypervisor_name,
			      env.signature, env.kvm, env.base_leaf);
		assert_int_equal(env.hypervisor, t[i].hypervisor);
		assert_string_equal(env.hypervisor_name, t[i].name);
		assert_string_equal(env.signature, t[i].signature);
		assert_int_equal(env.kvm, t[i].kvm);
		assert_int_equal(env.base_leaf, t[i].base_leaf);
		assert_int_equal(env.kvm_features, t[i].features);
		assert_int_equal(env.kvm_hints, t[i].hints);
		pvspin_env_cpuid_free(&tab);
	}
}

/* The seed case end to end: dump -> detection -> linux and pre-2025. */
static void test_seed_case_from_dump(void **state)
{
	pvspin_env_cpuid_t tab = { 0 };
	char err[512];
	assert_int_equal(pvspin_env_cpuid_load(&tab, PVSPIN_TEST_DATA
					       "/cpuid/kvm-realtime-nounhalt.txt", err,
					       sizeof(err)), 0);
	pvspin_env_source_t src = { PVSPIN_TEST_DATA "/root-v1-quota", &tab };
	pvspin_env_t env;
	pvspin_policy_choice_t c;
	pvspin_env_detect(&env, &src);
	pvspin_policy_linux(&env, 0, &c);
	assert_int_equal(c.kind, PVSPIN_KIND_QSPINLOCK);
	assert_string_equal(c.reason, "kvm-guest: PV spinlocks disabled with KVM_HINTS_REALTIME hints");
	pvspin_policy_linux_pre_2025(&env, 0, &c);
	assert_int_equal(c.kind, PVSPIN_KIND_TAS);
	assert_string_equal(c.reason, "kvm-guest: PV spinlocks disabled, no host support");
	pvspin_env_cpuid_free(&tab);
}

struct root_case {
	const char *root;
	int online, possible, allowed, nodes;
	double quota, steal, runnable;
	bool nopvspin;
};

static void test_roots(void **state)
{
	static const struct root_case t[] = {
		{ "root-v2-quota", 4, 8, 4, 2, 1.5, 2.0, 0.5, true },
		{ "root-v1-quota", 4, 8, 1, 1, 0.5, 0.0, 3.0, false },
		{ "root-empty", 0, 0, 0, 1, 0, -1, -1, false },
		/* a "cpu" line without steal, or with a field that is not a
		 * number: unknown, not 0 */
		{ "root-stat-few-fields", 0, 0, 0, 1, 0, -1, -1, false },
		{ "root-stat-not-number", 0, 0, 0, 1, 0, -1, -1, false },
		{ "root-online-garbage", 0, 8, 0, 1, 0, -1, -1, false },
		/* ticks whose sum wraps 64 bits; a cpulist whose ranges overlap
		 * (would count 9 of 8 CPUs) */
		{ "root-stat-overflow", 0, 0, 0, 1, 0, -1, -1, false },
		{ "root-online-overlap", 0, 16, 0, 1, 0, -1, -1, false },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char root[512];
		snprintf(root, sizeof(root), "%s/%s", PVSPIN_TEST_DATA, t[i].root);
		pvspin_env_cpuid_t none = { 0 };   /* empty table: no hypervisor */
		pvspin_env_source_t src = { root, &none };
		pvspin_env_t env;
		assert_int_equal(pvspin_env_detect(&env, &src), 0);
		print_message("%s: %d/%d/%d cpus, %d nodes, quota %.2f, steal %.2f, run %.2f\n",
			      t[i].root, env.cpus_online, env.cpus_possible, env.cpus_allowed,
			      env.numa_nodes, env.cpu_quota, env.steal_pct, env.runnable);
		assert_false(env.hypervisor);
		assert_int_equal(env.cpus_online, t[i].online);
		assert_int_equal(env.cpus_possible, t[i].possible);
		assert_int_equal(env.cpus_allowed, t[i].allowed);
		assert_int_equal(env.numa_nodes, t[i].nodes);
		assert_float_equal(env.cpu_quota, t[i].quota, 1e-9);
		assert_float_equal(env.steal_pct, t[i].steal, 1e-9);
		assert_float_equal(env.runnable, t[i].runnable, 1e-9);
		assert_int_equal(env.nopvspin, t[i].nopvspin);

		/* a static /proc/stat: sampling keeps the since-boot value */
		double before = env.steal_pct;
		int r = pvspin_env_sample_steal(&env, &src, 0);
		assert_int_equal(r, t[i].steal < 0 ? -1 : 0);
		assert_float_equal(env.steal_pct, before, 1e-9);
		assert_true(env.steal_interval_ms == 0);
	}
}

/* ---- hostile --root trees, built at run time (a FIFO cannot be kept in
 * git) under a fresh temporary directory ---- */

static void put_file(const char *top, const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", top, rel);
	for (char *p = path + strlen(top) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (!text)
		return;
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void remove_tree(const char *top)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
}

/* A FIFO under --root (here proc/cmdline, read last) must not block:
 * read as unknown.  alarm() turns a hang into a failure. */
static void test_root_fifo(void **state)
{
	char top[] = "/tmp/pvspin-test-root-XXXXXX";
	assert_non_null(mkdtemp(top));
	put_file(top, "proc/loadavg", "0.50 0.40 0.30 1/100 42\n");
	char fifo[600];
	snprintf(fifo, sizeof(fifo), "%s/proc/cmdline", top);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	pvspin_env_cpuid_t none = { 0 };
	pvspin_env_source_t src = { top, &none };
	pvspin_env_t env;
	alarm(30);
	assert_int_equal(pvspin_env_detect(&env, &src), 0);
	alarm(0);
	assert_float_equal(env.runnable, 0.5, 1e-9);
	assert_false(env.nopvspin);
	remove_tree(top);
}

/* A cgroup path that climbs out of --root with ".." is malformed: no
 * quota is read from outside the tree (TOP/cpu.max, above ROOT). */
static void test_root_cgroup_escape(void **state)
{
	char top[] = "/tmp/pvspin-test-root-XXXXXX";
	assert_non_null(mkdtemp(top));
	put_file(top, "cpu.max", "50000 100000\n");
	put_file(top, "r/sys/fs/cgroup/", NULL);
	put_file(top, "r/proc/self/cgroup", "0::/../../../..\n");
	char root[600];
	snprintf(root, sizeof(root), "%s/r", top);
	pvspin_env_cpuid_t none = { 0 };
	pvspin_env_source_t src = { root, &none };
	pvspin_env_t env;
	assert_int_equal(pvspin_env_detect(&env, &src), 0);
	assert_float_equal(env.cpu_quota, 0, 1e-9);
	/* a quota inside the tree, for a path that does not climb, is read */
	put_file(top, "r/sys/fs/cgroup/cpu.max", "50000 100000\n");
	put_file(top, "r/proc/self/cgroup", "0::/\n");
	assert_int_equal(pvspin_env_detect(&env, &src), 0);
	assert_float_equal(env.cpu_quota, 0.5, 1e-9);
	remove_tree(top);
}

/* A quota file that exists but does not parse is never read silently as
 * "no quota": quota_known is false and quota_error names the file and its
 * content; the good levels' quota still counts.  Good files stay known. */
static void test_root_bad_quota(void **state)
{
	(void)state;
	static const struct { const char *v1quota, *v1period, *v2; const char *bad; double q; } t[] = {
		{ NULL, NULL, "abc\n", "/sys/fs/cgroup/a/cpu.max: 'abc'", 0 },
		{ NULL, NULL, "100\n", "/sys/fs/cgroup/a/cpu.max: '100'", 0 },
		{ NULL, NULL, "100 0\n", "/sys/fs/cgroup/a/cpu.max: '100 0'", 0 },
		{ NULL, NULL, "", "/sys/fs/cgroup/a/cpu.max: ''", 0 },
		{ NULL, NULL, "max\n", "/sys/fs/cgroup/a/cpu.max: 'max'", 0 },
		{ NULL, NULL, "-5 100000\n", "/sys/fs/cgroup/a/cpu.max: '-5 100000'", 0 },
		{ NULL, NULL, "50000 100000 7\n", "/sys/fs/cgroup/a/cpu.max: '50000 100000 7'", 0 },
		{ NULL, NULL, "max 100000\n", NULL, 0 },
		{ NULL, NULL, "50000 100000\n", NULL, 0.5 },
		{ "abc\n", "100000\n", NULL, "/sys/fs/cgroup/cpu/a/cpu.cfs_quota_us: 'abc'", 0 },
		{ "50000\n", "0\n", NULL, "/sys/fs/cgroup/cpu/a/cpu.cfs_period_us: '0'", 0 },
		{ "-1\n", "100000\n", NULL, NULL, 0 },
		{ "50000\n", "100000\n", NULL, NULL, 0.5 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char top[] = "/tmp/pvspin-test-root-XXXXXX";
		assert_non_null(mkdtemp(top));
		if (t[i].v2) {
			put_file(top, "proc/self/cgroup", "0::/a\n");
			put_file(top, "sys/fs/cgroup/a/cpu.max", t[i].v2);
		} else {
			put_file(top, "proc/self/cgroup", "3:cpu:/a\n");
			put_file(top, "sys/fs/cgroup/cpu/a/cpu.cfs_quota_us", t[i].v1quota);
			put_file(top, "sys/fs/cgroup/cpu/a/cpu.cfs_period_us", t[i].v1period);
		}
		pvspin_env_cpuid_t none = { 0 };
		pvspin_env_source_t src = { top, &none };
		pvspin_env_t env;
		assert_int_equal(pvspin_env_detect(&env, &src), 0);
		print_message("%zu: known %d, quota %.2f, error \"%s\"\n", i, env.quota_known,
			      env.cpu_quota, env.quota_error);
		assert_float_equal(env.cpu_quota, t[i].q, 1e-9);
		if (t[i].bad) {
			char want[600];
			snprintf(want, sizeof(want), "%s%s", top, t[i].bad);
			assert_false(env.quota_known);
			assert_string_equal(env.quota_error, want);
		} else {
			assert_true(env.quota_known);
			assert_string_equal(env.quota_error, "");
		}
		remove_tree(top);
	}

	/* a bad level does not hide a good one above it */
	char top[] = "/tmp/pvspin-test-root-XXXXXX";
	assert_non_null(mkdtemp(top));
	put_file(top, "proc/self/cgroup", "0::/a/b\n");
	put_file(top, "sys/fs/cgroup/a/cpu.max", "150000 100000\n");
	put_file(top, "sys/fs/cgroup/a/b/cpu.max", "15O000 100000\n");
	pvspin_env_cpuid_t none = { 0 };
	pvspin_env_source_t src = { top, &none };
	pvspin_env_t env;
	assert_int_equal(pvspin_env_detect(&env, &src), 0);
	assert_float_equal(env.cpu_quota, 1.5, 1e-9);
	assert_false(env.quota_known);
	assert_non_null(strstr(env.quota_error, "/sys/fs/cgroup/a/b/cpu.max: '15O000 100000'"));
	remove_tree(top);
}

/* CPU counts no kernel can have, or that contradict each other, are
 * unknown (0), and the pvspin policy then says "unknown CPUs". */
static void test_root_absurd_cpus(void **state)
{
	static const struct { const char *online, *possible, *status; int o, p, a; } t[] = {
		{ "0-99999999\n", "0-7\n", "Cpus_allowed_list:\t0-3\n", 0, 8, 4 },
		{ "0-15\n", "0-7\n", "Cpus_allowed_list:\t0-3\n", 0, 0, 4 },
		{ "0-3\n", "0-7\n", "Cpus_allowed_list:\t0-99\n", 4, 8, 0 },
		{ "0-3\n", "0-99999\n", "Cpus_allowed_list:\t0-3\n", 4, 0, 4 },
		{ "0-3\n", "0-7\n", "Cpus_allowed_list:\t0-3\n", 4, 8, 4 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char top[] = "/tmp/pvspin-test-root-XXXXXX";
		assert_non_null(mkdtemp(top));
		put_file(top, "sys/devices/system/cpu/online", t[i].online);
		put_file(top, "sys/devices/system/cpu/possible", t[i].possible);
		put_file(top, "proc/self/status", t[i].status);
		pvspin_env_cpuid_t none = { 0 };
		pvspin_env_source_t src = { top, &none };
		pvspin_env_t env;
		assert_int_equal(pvspin_env_detect(&env, &src), 0);
		print_message("case %zu: %d/%d/%d\n", i, env.cpus_online, env.cpus_possible,
			      env.cpus_allowed);
		assert_int_equal(env.cpus_online, t[i].o);
		assert_int_equal(env.cpus_possible, t[i].p);
		assert_int_equal(env.cpus_allowed, t[i].a);
		remove_tree(top);
	}
	/* nothing known: the reason says so instead of "0 CPUs" */
	pvspin_env_t env;
	pvspin_env_cpuid_t none = { 0 };
	pvspin_env_source_t empty = { PVSPIN_TEST_DATA "/root-empty", &none };
	assert_int_equal(pvspin_env_detect(&env, &empty), 0);
	pvspin_policy_t pol;
	assert_int_equal(pvspin_policy_parse("pvspin", &pol), 0);
	pvspin_policy_choice_t c;
	pvspin_policy_pick(&pol, &env, &c);
	assert_string_equal(c.reason,
			    "pvspin: bare metal, unknown CPUs, not overcommitted: threads can still outnumber CPUs");
}

static void test_cpulist(void **state)
{
	static const struct { const char *s; int n; } t[] = {
		{ "0\n", 1 }, { "0-1\n", 2 }, { "0-3,8,10-11\n", 7 }, { "", 0 }, { "\n", 0 },
		{ "5", 1 }, { "0-", -1 }, { "3-1", -1 }, { "a", -1 }, { "0,,1", -1 },
		{ "0-1 x", -1 }, { "-1", -1 }, { "0-1,", -1 },
		/* overlapping, repeated or descending ranges; impossible ids */
		{ "0-7,5", -1 }, { "0,0", -1 }, { "4,2", -1 }, { "0-3,3-4", -1 },
		{ "100000", -1 }, { "65535", 1 }, { "65536", -1 }, { "0-3,4294967296", -1 },
		{ "4294967297-4294967298", -1 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int n = pvspin_env_cpulist_count(t[i].s);
		if (n != t[i].n) {
			print_error("'%s': got %d want %d\n", t[i].s, n, t[i].n);
			fail();
		}
	}
}

static void test_steal_pct(void **state)
{
	static const struct { pvspin_env_cputime_t a, b; double want; } t[] = {
		{ { 0, 0 }, { 5, 100 }, 5.0 },
		{ { 10, 1000 }, { 10, 1000 }, 0.0 },     /* no time passed */
		{ { 10, 1000 }, { 30, 1400 }, 5.0 },
		{ { 10, 1000 }, { 5, 1400 }, -1 },       /* went backwards */
		{ { 10, 1000 }, { 10, 900 }, -1 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_float_equal(pvspin_env_steal_pct(&t[i].a, &t[i].b), t[i].want, 1e-9);

	pvspin_env_source_t empty = { PVSPIN_TEST_DATA "/root-empty", NULL };
	pvspin_env_cputime_t c;
	assert_int_equal(pvspin_env_read_cputime(&empty, &c), -1);
	pvspin_env_source_t v1 = { PVSPIN_TEST_DATA "/root-v1-quota", NULL };
	assert_int_equal(pvspin_env_read_cputime(&v1, &c), 0);
	assert_int_equal(c.total, 1000);
	assert_int_equal(c.steal, 0);
}

static void test_names(void **state)
{
	assert_string_equal(pvspin_env_kvm_feature_name(PVSPIN_KVM_FEATURE_PV_UNHALT), "PV_UNHALT");
	assert_string_equal(pvspin_env_kvm_feature_name(5), "STEAL_TIME");
	assert_string_equal(pvspin_env_kvm_feature_name(13), "PV_SCHED_YIELD");
	assert_string_equal(pvspin_env_kvm_feature_name(17), "MIGRATION_CONTROL");
	assert_null(pvspin_env_kvm_feature_name(8));
	assert_null(pvspin_env_kvm_feature_name(32));
	assert_string_equal(pvspin_env_kvm_hint_name(0), "REALTIME");
	assert_null(pvspin_env_kvm_hint_name(1));
}

/* Live: sane values on whatever machine runs the tests. */
static void test_live(void **state)
{
	pvspin_env_t env;
	assert_int_equal(pvspin_env_detect(&env, NULL), 0);
	assert_true(env.cpus_online >= 1);
	assert_true(env.cpus_possible >= env.cpus_online);
	assert_true(env.cpus_allowed >= 1);
	assert_true(env.numa_nodes >= 1);
	assert_non_null(env.hypervisor_name);
	assert_true(env.kvm ? env.hypervisor : true);
	/* agrees with the kernel's view of this machine */
	assert_int_equal(env.cpus_online, (int)sysconf(_SC_NPROCESSORS_ONLN));
#if defined(__x86_64__) || defined(__i386__)
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[8192];
		bool flag = false;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "flags", 5)) {
				flag = strstr(line, " hypervisor") != NULL;
				break;
			}
		fclose(f);
		assert_int_equal(env.hypervisor, flag);
	}
#endif
}

static void test_pick_default(void **state)
{
	static const char *const policies[] = { "linux", "linux-pre-2025", "numa", "threshold=3",
						"pvspin" };
	pvspin_env_t env;
	pvspin_env_detect(&env, NULL);
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		pvspin_policy_t p;
		pvspin_policy_choice_t c;
		assert_int_equal(pvspin_policy_parse(policies[i], &p), 0);
		pvspin_policy_pick(&p, &env, &c);
		setenv("PVSPIN_POLICY", policies[i], 1);
		pvspin_kind_t k = pvspin_policy_pick_default();
		assert_true(k > PVSPIN_KIND_NONE && k < PVSPIN_KIND_COUNT);
		/* pvspin reads the load average, which may move between calls */
		if (strcmp(policies[i], "pvspin"))
			assert_int_equal(k, c.kind);
	}
	unsetenv("PVSPIN_POLICY");
	pvspin_kind_t k = pvspin_policy_pick_default();
	assert_true(k > PVSPIN_KIND_NONE && k < PVSPIN_KIND_COUNT);

	/* an unknown policy exits with status 2 */
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("PVSPIN_POLICY", "fastest", 1);
		pvspin_policy_pick_default();
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpuid_parse_errors),
		cmocka_unit_test(test_cpuid_complete),
		cmocka_unit_test(test_cpuid_bounds),
		cmocka_unit_test(test_cpuid_dumps),
		cmocka_unit_test(test_seed_case_from_dump),
		cmocka_unit_test(test_roots),
		cmocka_unit_test(test_root_fifo),
		cmocka_unit_test(test_root_cgroup_escape),
		cmocka_unit_test(test_root_bad_quota),
		cmocka_unit_test(test_root_absurd_cpus),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_steal_pct),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_pick_default),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

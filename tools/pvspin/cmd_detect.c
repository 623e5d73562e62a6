/*
 * cmd_detect.c - `pvspin detect`: show the environment (hypervisor CPUID
 * leaves, CPUs, NUMA nodes, CPU quota, steal time, load) and what each
 * lock-selection policy picks here, and why.  Text, or JSON (jansson).
 *
 *   pvspin detect [--json] [--cpuid FILE|-] [--root DIR] [--policy NAME]
 *                 [--interval-ms N]
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "pvspin/policy.h"
#include "lock/tunables_report.h"
#include "platform/env_switch.h"
#include "policy/policy_default.h"
#include "cmd.h"
#include "option_error.h"

#define DEFAULT_INTERVAL_MS 200
#define MAX_INTERVAL_MS 60000

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pvspin detect [--json] [--cpuid FILE] [--root DIR] [--policy NAME]\n"
		"                     [--interval-ms N]\n"
		"\n"
		"Show the environment a lock runs in and the lock kind each selection\n"
		"policy picks for it, with the reason.\n"
		"\n"
		"  --json            print JSON instead of text\n"
		"  --cpuid FILE      read CPUID from FILE, a dump of `cpuid -1 -r` holding\n"
		"                    at least leaf 0x00000001 (the hypervisor bit), or\n"
		"                    - for standard input (./- for a file named -)\n"
		"                    (default: the CPUID instruction)\n"
		"  --root DIR        read /proc and /sys under DIR instead of /; the\n"
		"                    allowed CPUs then come from DIR/proc/self/status\n"
		"                    (exit 1 if DIR holds none of the files detect reads)\n"
		"  --policy NAME     show only this policy: %s\n"
		"  --interval-ms N   also sample steal time over N ms (0..%d, default %d;\n"
		"                    0: no sample); the picks use the average since boot,\n"
		"                    as the library's own pick does\n"
		"  -h, --help        this help\n"
		"\n"
		"Exit status: 0 success (a PVSPIN_LOCK or PVSPIN_POLICY with a bad value\n"
		"is said and ignored: detect takes no kind from the environment); 1 a\n"
		"--cpuid dump or --root directory that cannot be read or used (missing,\n"
		"empty, malformed, incomplete), or a report that cannot be written;\n"
		"2 bad usage (an unknown option, a bad value, a stray operand).\n",
		pvspin_policy_names(), MAX_INTERVAL_MS, DEFAULT_INTERVAL_MS);
}

static json_t *json_count(int n)
{
	return n > 0 ? json_integer(n) : json_null();
}

/* The steal time sampled over --interval-ms, shown beside the since-boot
 * average that the picks use (as the library's own pick does, which never
 * sleeps).  pct < 0: no sample (--interval-ms 0, or /proc/stat did not
 * change: a copied tree). */
struct steal_sample {
	double pct;
	long interval_ms;
};

static json_t *env_json(const pvspin_env_t *env, const struct steal_sample *sample)
{
	json_t *features = json_object(), *hints = json_object();
	for (unsigned b = 0; b < 32; b++) {
		const char *n = pvspin_env_kvm_feature_name(b);
		if (n)
			json_object_set_new(features, n, json_boolean(env->kvm_features >> b & 1));
		n = pvspin_env_kvm_hint_name(b);
		if (n)
			json_object_set_new(hints, n, json_boolean(env->kvm_hints >> b & 1));
	}
	char base[16], max[16], fraw[16], hraw[16];
	snprintf(base, sizeof(base), "0x%08x", env->base_leaf);
	snprintf(max, sizeof(max), "0x%08x", env->hv_max_leaf);
	snprintf(fraw, sizeof(fraw), "0x%08x", env->kvm_features);
	snprintf(hraw, sizeof(hraw), "0x%08x", env->kvm_hints);
	json_t *hv = json_pack("{s:b, s:s, s:s, s:s, s:s, s:b, s:o, s:s, s:o, s:s}",
			       "present", env->hypervisor,
			       "signature", env->signature,
			       "name", env->hypervisor_name,
			       "base_leaf", base,
			       "max_leaf", max,
			       "kvm", env->kvm,
			       "features", features,
			       "features_raw", fraw,
			       "hints", hints,
			       "hints_raw", hraw);
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:b, s:b, s:b, s:b, s:b, s:o}",
			 "hypervisor", hv,
			 "cpus_online", json_count(env->cpus_online),
			 "cpus_possible", json_count(env->cpus_possible),
			 "cpus_allowed", json_count(env->cpus_allowed),
			 "numa_nodes", json_count(env->numa_nodes),
			 "steal_pct", env->steal_pct >= 0 ? json_real(env->steal_pct) : json_null(),
			 "steal_sampled_pct", sample->pct >= 0 ? json_real(sample->pct) : json_null(),
			 "steal_interval_ms", (json_int_t)sample->interval_ms,
			 "cpu_quota", env->cpu_quota > 0 ? json_real(env->cpu_quota) : json_null(),
			 "runnable", env->runnable >= 0 ? json_real(env->runnable) : json_null(),
			 "nopvspin", env->nopvspin,
			 "rseq_slice_ext", env->rseq_slice_ext > 0,
			 "numa_nodes_known", env->numa_known,
			 "cpu_quota_known", env->quota_known,
			 "nopvspin_known", env->cmdline_known,
			 "cpu_quota_error", env->quota_error[0] ? json_string(env->quota_error)
								: json_null());
}

static void print_count(const char *label, int n, const char *unit)
{
	if (n > 0)
		printf("%s%d %s", label, n, unit);
	else
		printf("%sunknown %s", label, unit);
}

/* The signature between double quotes: the library already doubles a
 * backslash and writes other bytes as \xNN; a quote becomes \" so that
 * the quoted string is unambiguous. */
static void print_quoted(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

/* Where the facts come from, when a --cpuid dump is read without --root:
 * CPUID describes the dump's machine, everything else this one. */
static const char MIXED_SOURCES[] =
	"CPUs, NUMA, steal, quota and load: this machine (use --root DIR for the guest's)";

static void env_text(const pvspin_env_t *env, const struct steal_sample *sample,
		     const char *cpuid_file, const char *root)
{
	if (cpuid_file && !root)
		printf("sources        CPUID from %s; %s\n", cpuid_file, MIXED_SOURCES);
	else if (root)
		printf("sources        CPUID from %s%s; CPUs, NUMA, steal, quota and load from "
		       "--root %s\n", cpuid_file ? cpuid_file : "this machine",
		       cpuid_file ? "" : " (use --cpuid FILE for the guest's)", root);
	if (!env->hypervisor) {
		printf("hypervisor     none (CPUID.1:ECX bit 31 clear: bare metal)\n");
	} else {
		printf("hypervisor     %s, signature ", env->hypervisor_name);
		print_quoted(env->signature);
		printf(" at 0x%08x (max leaf 0x%08x)\n", PVSPIN_CPUID_HV_BASE, env->hv_max_leaf);
	}
	if (env->kvm) {
		printf("kvm interface  at 0x%08x\n", env->base_leaf);
		printf("kvm features   0x%08x:", env->kvm_features);
		for (unsigned b = 0; b < 32; b++)
			if (env->kvm_features >> b & 1) {
				const char *n = pvspin_env_kvm_feature_name(b);
				if (n)
					printf(" %s", n);
				else
					printf(" bit%u", b);
			}
		printf("\nkvm hints      0x%08x:%s\n", env->kvm_hints,
		       env->kvm_hints & 1 ? " REALTIME" : " none");
	} else if (env->hypervisor) {
		printf("kvm interface  none found\n");
	}
	print_count("cpus           ", env->cpus_online, "online, ");
	print_count("", env->cpus_possible, "possible, ");
	print_count("", env->cpus_allowed, "allowed");
	/* an unknown count names where it was to come from, as the lines
	 * below do (a list that does not parse, or online > possible, is
	 * not read either: docs/policy.md) */
	const char *from[3];
	int nfrom = 0;
	if (env->cpus_online <= 0)
		from[nfrom++] = "/sys/devices/system/cpu/online";
	if (env->cpus_possible <= 0)
		from[nfrom++] = "/sys/devices/system/cpu/possible";
	if (env->cpus_allowed <= 0)
		from[nfrom++] = root ? "the Cpus_allowed_list line of /proc/self/status"
				     : "the affinity mask";
	for (int i = 0; i < nfrom; i++)
		printf("%s%s", i ? ", " : " (missing or malformed: ", from[i]);
	printf("%s\n", nfrom ? ")" : "");
	if (env->numa_known)
		printf("numa nodes     %d\n", env->numa_nodes);
	else
		printf("numa nodes     unknown (cannot read /sys/devices/system/node/online; 1 assumed)\n");
	if (env->cpu_quota > 0)
		printf("cpu quota      %.*f CPUs (cgroup)%s\n", env->cpu_quota >= 0.01 ? 2 : 5,
		       env->cpu_quota, env->quota_error[0]
		       ? ", or less: a quota file does not parse (see the warning)" : "");
	else if (env->quota_error[0])
		printf("cpu quota      unknown (a quota file does not parse, see the warning; "
		       "none assumed)\n");
	else if (env->quota_known)
		printf("cpu quota      none\n");
	else
		printf("cpu quota      unknown (cannot read /proc/self/cgroup; none assumed)\n");
	if (env->steal_pct < 0)
		printf("steal time     unknown (the \"cpu\" line of /proc/stat is missing or malformed; none "
		       "assumed)\n");
	else
		printf("steal time     %.2f%% since boot (what the picks below use, as the library "
		       "does)\n", env->steal_pct);
	if (sample->pct >= 0)
		printf("               %.2f%% over the last %ld ms (--interval-ms; not used by the "
		       "picks)\n", sample->pct, sample->interval_ms);
	else if (sample->interval_ms > 0 && env->steal_pct >= 0)
		printf("               no sample: /proc/stat did not change over %ld ms\n",
		       sample->interval_ms);
	if (env->runnable >= 0)
		printf("runnable       %.2f (1-minute load average)\n", env->runnable);
	else
		printf("runnable       unknown (missing or malformed: /proc/loadavg)\n");
	if (env->cmdline_known)
		printf("nopvspin       %s\n", env->nopvspin ? "yes" : "no");
	else
		printf("nopvspin       unknown (cannot read /proc/cmdline; \"no\" assumed)\n");
	printf("rseq slice ext %s\n", env->rseq_slice_ext > 0 ? "yes (PR_RSEQ_SLICE_EXTENSION)"
	       : "no (PR_RSEQ_SLICE_EXTENSION not offered: Linux < 7.0, disabled or no rseq area)");
}

/* Can `dir` stand in for "/": a directory we may list and search?
 * Returns 0, or -1 with errno (ENOENT, ENOTDIR, EACCES, ...). */
static int root_check(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	closedir(d);
	return access(dir, X_OK);
}

/* The files detect reads under a root (docs/policy.md, "What is detected,
 * and from where"); the cgroup quota files are reached from
 * /proc/self/cgroup. */
static const char *const root_files[] = {
	"/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible",
	"/proc/self/status", "/sys/devices/system/node/online", "/proc/self/cgroup",
	"/proc/stat", "/proc/loadavg", "/proc/cmdline",
};
#define NROOT_FILES (sizeof(root_files) / sizeof(root_files[0]))

/* Is any of root_files there under `dir` (of any type: a FIFO or a
 * malformed file is read as missing, and the report says which)?  A root
 * with none of them is no copy of a machine's /proc and /sys: every fact
 * would be assumed. */
static bool root_has_files(const char *dir)
{
	for (size_t i = 0; i < NROOT_FILES; i++) {
		char path[PATH_MAX];
		struct stat st;
		if (snprintf(path, sizeof(path), "%s%s", dir, root_files[i]) < (int)sizeof(path) &&
		    !stat(path, &st))
			return true;
	}
	return false;
}

/* A bad PVSPIN_LOCK, PVSPIN_POLICY or PVSPIN_STATS: detect takes no value
 * from them (its picks are every policy's, or --policy's, and it counts
 * no stats), so it goes on (exit 0), but says each one it ignores, one
 * line each, after the tunables and before PVSPIN_NO_MEMBARRIER (the
 * order of run, bench and torture, which refuse them: env_check.h), as
 * `pvspin sim` says them.  It said nothing of these three, only of a bad
 * tunable and PVSPIN_NO_MEMBARRIER.  Each is checked whatever the others
 * say; which one a program started from here follows is the note under
 * the table. */
static void say_kind_stats_env_ignored(void)
{
	pvspin_kind_t kind;
	pvspin_policy_t policy;
	const char *s, *bad;
	/* the bad value quoted as the library's line quotes it ('tas ') */
	if (pvspin_default_lock_env(NULL, NULL, &kind) < 0) {
		bad = getenv("PVSPIN_LOCK");
		fprintf(stderr, "pvspin detect: ignoring PVSPIN_LOCK=" PVSPIN_QUOTED ": "
			PVSPIN_LOCK_NOT_A_KIND "%s; pvspin detect takes no lock kind from the "
			"environment\n", PVSPIN_QUOTED_ARGS(bad), pvspin_kind_names());
	}
	/* errno: the parse's reason (nothing is written with err NULL) */
	if (pvspin_default_policy_env(NULL, NULL, &policy) < 0) {
		const char *why = pvspin_policy_parse_error(errno);
		bad = getenv("PVSPIN_POLICY");
		fprintf(stderr, "pvspin detect: ignoring PVSPIN_POLICY=" PVSPIN_QUOTED ": %s; pvspin "
			"detect takes no policy from the environment (--policy NAME)\n",
			PVSPIN_QUOTED_ARGS(bad), why);
	}
	if (pvspin_env_switch("PVSPIN_STATS", &s) < 0)
		tool_value_line(stderr, "pvspin detect", "ignoring PVSPIN_STATS", '=', s,
				PVSPIN_STATS_EXPECTED "; pvspin detect counts no stats", NULL);
}

int pvspin_cmd_detect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "cpuid", required_argument, NULL, 'c' },
		{ "root", required_argument, NULL, 'r' },
		{ "policy", required_argument, NULL, 'p' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	const char *cpuid_file = NULL, *root = NULL, *policy_name = NULL, *interval_s = NULL;
	long interval = DEFAULT_INTERVAL_MS;
	pvspin_policy_t one;
	int opt;

	/* -h / --help anywhere: the help, whatever the other values */
	int h = tool_help_scan("pvspin detect", argc, argv, ":h", opts);
	if (h == 1)
		usage(stdout);
	if (h)
		return h == 1 ? 0 : h;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = true; break;
		/* an empty name: a value of the command line (--cpuid "$F"
		 * with F unset), exit 2 as bench's and sim's empty --json;
		 * one value each: a second, different one is refused, the
		 * same one again accepted (tool_option_once()) */
		case 'c':
			if (!*optarg)
				return tool_empty_name_error("pvspin detect", "--cpuid",
							     "a FILE, or - for standard input");
			if (tool_option_once("pvspin detect", "CPUID dumps", "--cpuid", &cpuid_file,
					     optarg))
				return 2;
			break;
		case 'r':
			if (!*optarg)
				return tool_empty_name_error("pvspin detect", "--root",
							     "a DIR, / for this machine");
			if (tool_option_once("pvspin detect", "roots", "--root", &root, optarg))
				return 2;
			break;
		case 'p':
			if (tool_option_once("pvspin detect", "policies", "--policy", &policy_name,
					     optarg))
				return 2;
			if (pvspin_policy_parse(optarg, &one)) {
				return tool_value_error("pvspin detect", "--policy", optarg,
							pvspin_policy_parse_error(errno), NULL);
			}
			break;
		case 'i': {
			uint64_t ms;
			if (tool_option_number_once("pvspin detect", "intervals", "--interval-ms",
						    &interval_s, optarg, 0, MAX_INTERVAL_MS, &ms))
				return 2;
			interval = (long)ms;
			break;
		}
		default:
			return tool_option_error("pvspin detect", opt, argv);
		}
	}
	if (optind < argc)
		return tool_operand_error("pvspin detect", argv[optind]);
	/* A bad PVSPIN_* tunable: detect takes no lock that reads it, so it
	 * goes on, but says what every program started from here says of it
	 * ("ignoring ..."), as run, bench and torture say it (and refuse):
	 * the tool's own copy of the library is silent at load (main.c). */
	pvspin_tunables_report_ignored(stderr, "pvspin detect", NULL);
	say_kind_stats_env_ignored();
	pvspin_plat_no_membarrier_report_ignored(stderr, "pvspin detect", NULL);
	/* A root that is missing or unreadable is bad input, not bad usage:
	 * exit 1 with the reason, as an unreadable --cpuid file does. */
	if (root && root_check(root)) {
		fprintf(stderr, "pvspin detect: --root " PVSPIN_QUOTED ": %s\n",
			PVSPIN_QUOTED_ARGS(root), strerror(errno));
		return 1;
	}
	/* So is a root with none of the files (an empty directory, a wrong
	 * one): its report would be every fact unknown and the picks made
	 * on assumed values, with exit 0. */
	if (root && !root_has_files(root)) {
		fprintf(stderr, "pvspin detect: --root " PVSPIN_QUOTED ": none of the files detect "
			"reads is there (", PVSPIN_QUOTED_ARGS(root));
		for (size_t i = 0; i < NROOT_FILES; i++)
			fprintf(stderr, "%s%s", i ? ", " : "", root_files[i] + 1);
		fprintf(stderr, "): not a copy of a machine's /proc and /sys (docs/policy.md)\n");
		return 1;
	}

	pvspin_env_cpuid_t table = { 0 };
	char err[512];
	/* "-": the dump on stdin (cpuid -1 -r | pvspin detect --cpuid -),
	 * named <stdin> from here on, in the messages and the report */
	int unread = 0;
	if (cpuid_file && !strcmp(cpuid_file, "-")) {
		cpuid_file = "<stdin>";
		unread = pvspin_env_cpuid_parse(&table, stdin, cpuid_file, err, sizeof(err));
	} else if (cpuid_file) {
		unread = pvspin_env_cpuid_load(&table, cpuid_file, err, sizeof(err));
	}
	if (unread) {
		/* "--cpuid PATH: reason", as --root's (an empty PATH, now
		 * refused above, said ": No such file or directory" alone);
		 * err starts with PATH, quoted here as --root's (a blank) */
		size_t n = strlen(cpuid_file);
		const char *q = strncmp(err, cpuid_file, n) ? "" : tool_value_quote(cpuid_file);
		fprintf(stderr, "pvspin detect: --cpuid %s%.*s%s%s\n", q, *q ? (int)n : 0, err, q,
			*q ? err + n : err);
		return 1;
	}
	if (cpuid_file && pvspin_env_cpuid_complete(&table, err, sizeof(err))) {
		/* Every pick would rest on a guessed zero (no hypervisor, no
		 * signature, no features): refuse, as for a malformed dump
		 * (stdout stays empty, with --json too). */
		fprintf(stderr, "pvspin detect: --cpuid " PVSPIN_QUOTED ": %s; give a full dump of "
			"`cpuid -1 -r`\n", PVSPIN_QUOTED_ARGS(cpuid_file), err);
		pvspin_env_cpuid_free(&table);
		return 1;
	}
	pvspin_env_source_t src = { root, cpuid_file ? &table : NULL };
	pvspin_env_t env;
	pvspin_env_detect(&env, &src);
	/* on stderr whatever the output (--json, --policy), so that a
	 * mistyped or corrupt quota file is never taken for "no quota" */
	if (env.quota_error[0])
		fprintf(stderr, "pvspin detect: warning: %s is not a cgroup CPU quota (cpu.max: "
			"\"QUOTA PERIOD\" or \"max PERIOD\"; v1: cpu.cfs_quota_us -1 or a positive "
			"number, cpu.cfs_period_us a positive number); read as no quota\n",
			env.quota_error);
	struct steal_sample sample = { -1, interval };
	if (interval > 0) {
		pvspin_env_t sampled = env;
		if (!pvspin_env_sample_steal(&sampled, &src, (unsigned)interval) &&
		    sampled.steal_interval_ms > 0)
			sample.pct = sampled.steal_pct;
	}

	size_t n;
	const pvspin_policy_t *all = pvspin_policy_all(&n);
	if (policy_name) {
		all = &one;
		n = 1;
	}
	int ret = 0;
	if (json) {
		json_t *root_obj = env_json(&env, &sample), *choices = json_object();
		if (!root_obj || !choices) {
			/* (a non-finite number, which the readers already
			 * refuse, or no memory): said, not a silent exit 1 */
			fprintf(stderr, "pvspin detect: cannot build the JSON report "
					"(out of memory or a fact not representable in JSON)\n");
			json_decref(root_obj);
			json_decref(choices);
			pvspin_env_cpuid_free(&table);
			return 1;
		}
		for (size_t i = 0; i < n; i++) {
			pvspin_policy_choice_t c;
			pvspin_policy_pick(&all[i], &env, &c);
			json_t *o = json_pack("{s:s, s:s}", "lock", pvspin_kind_name(c.kind),
					      "reason", c.reason);
			if (all[i].fn == pvspin_policy_threshold)
				json_object_set_new(o, "param", json_integer(all[i].param));
			json_object_set_new(choices, all[i].name, o);
		}
		/* where the facts come from (null: this machine) */
		json_object_set_new(root_obj, "sources",
				    json_pack("{s:s?, s:s?}", "cpuid", cpuid_file, "root", root));
		json_object_set_new(root_obj, "choices", choices);
		if (json_dumpf(root_obj, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)))
			ret = 1;
		fputc('\n', stdout);
		json_decref(root_obj);
	} else {
		if (!policy_name) {
			env_text(&env, &sample, cpuid_file, root);
			printf("\n%-15s %-12s %s\n", "policy", "lock", "reason");
		}
		for (size_t i = 0; i < n; i++) {
			pvspin_policy_choice_t c;
			char name[32];
			pvspin_policy_pick(&all[i], &env, &c);
			if (all[i].fn == pvspin_policy_threshold)
				snprintf(name, sizeof(name), "%s=%d", all[i].name, all[i].param);
			else
				snprintf(name, sizeof(name), "%s", all[i].name);
			printf("%-15s %-12s %s\n", name, pvspin_kind_name(c.kind), c.reason);
		}
		/* The library of a program started from here reads these
		 * first: say so, or the table reads as what it will use.
		 * Decided by the library's own tests, in its order
		 * (pvspin_default_kind(): PVSPIN_LOCK wins, PVSPIN_POLICY is
		 * read only while it is unset).  Not
		 * pvspin_default_kind_check_env(): it checks both whatever
		 * the other says (for run, bench and torture, which refuse
		 * either), so it would call a valid PVSPIN_LOCK beside a
		 * bad PVSPIN_POLICY bad, where a program uses the kind. */
		pvspin_kind_t env_kind;
		pvspin_policy_t env_policy;
		int lock_r = pvspin_default_lock_env(NULL, NULL, &env_kind), policy_r;
		const char *env_lock = getenv("PVSPIN_LOCK"), *env_policy_s = getenv("PVSPIN_POLICY");
		/* (one policy asked for: no note) */
		if (!policy_name && lock_r) {
			if (lock_r > 0)
				printf("\nPVSPIN_LOCK=%s is set: programs started from here use that "
				       "kind, whatever the policies pick\n", env_lock);
			else   /* quoted as the library's line quotes it */
				printf("\nPVSPIN_LOCK=" PVSPIN_QUOTED " is set and is not a lock kind: "
				       "programs started from here exit 2\n", PVSPIN_QUOTED_ARGS(env_lock));
		} else if (!policy_name &&
			   (policy_r = pvspin_default_policy_env(NULL, NULL, &env_policy))) {
			if (policy_r > 0)
				printf("\nPVSPIN_POLICY=%s is set: programs started from here use "
				       "that policy's pick, not pvspin's\n", env_policy_s);
			else
				printf("\nPVSPIN_POLICY=" PVSPIN_QUOTED " is set and is not a policy: "
				       "programs started from here exit 2\n",
				       PVSPIN_QUOTED_ARGS(env_policy_s));
		}
	}
	pvspin_env_cpuid_free(&table);
	/* a write to a full or closed stdout: main()'s exit_status() says so
	 * and exits 1 */
	return ret;
}

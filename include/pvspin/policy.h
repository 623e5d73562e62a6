/*
 * pvspin/policy.h - what machine are we on, and which lock kind should it
 * use?  Environment detection (CPUID hypervisor leaves, CPUs, NUMA nodes,
 * cgroup CPU quota, steal time, load) and the named lock-selection
 * policies that turn it into a kind and a one-line reason.
 *
 * Every read goes through an injectable source (pvspin_env_source_t): a
 * directory standing in for "/" and a CPUID table, so that each branch can
 * be tested from fake /proc and /sys trees and from CPUID dumps of real
 * guests (`cpuid -1 -r`, Debian package "cpuid").
 *
 * The policies follow Linux's guest choice, kvm_spinlock_init() in
 * arch/x86/kernel/kvm.c (before and after the 2025 change that tests
 * KVM_HINTS_REALTIME first), the alternatives proposed on qemu-devel in
 * October 2017 (NUMA nodes, unfair_pvspinlock_cpu_threshold), and pvspin's
 * own rules; docs/policy.md gives the rules and the evidence.
 *
 * Thread-safety: the functions here keep no global state; each is safe to
 * call from several threads on distinct output objects.  Nothing here takes
 * a pvspin lock.
 */
#ifndef PVSPIN_POLICY_H
#define PVSPIN_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pvspin/lock.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- CPUID ---------------------------------------------------------- */

/** Base of the hypervisor CPUID range; its EBX,ECX,EDX hold the 12-byte
 *  signature, EAX the highest leaf of that interface. */
#define PVSPIN_CPUID_HV_BASE        0x40000000u
/** Linux scans for KVM's interface every 0x100 leaves up to this leaf
 *  (hypervisor_cpuid_base(), arch/x86/include/asm/processor.h). */
#define PVSPIN_CPUID_HV_SCAN_END    0x40010000u

/** KVM feature bits in EAX of leaf base+1 (Linux
 *  arch/x86/include/uapi/asm/kvm_para.h, KVM_FEATURE_*). */
enum pvspin_kvm_feature {
	PVSPIN_KVM_FEATURE_CLOCKSOURCE        = 0,
	PVSPIN_KVM_FEATURE_NOP_IO_DELAY       = 1,
	PVSPIN_KVM_FEATURE_MMU_OP             = 2,
	PVSPIN_KVM_FEATURE_CLOCKSOURCE2       = 3,
	PVSPIN_KVM_FEATURE_ASYNC_PF           = 4,
	PVSPIN_KVM_FEATURE_STEAL_TIME         = 5,
	PVSPIN_KVM_FEATURE_PV_EOI             = 6,
	PVSPIN_KVM_FEATURE_PV_UNHALT          = 7,
	PVSPIN_KVM_FEATURE_PV_TLB_FLUSH       = 9,
	PVSPIN_KVM_FEATURE_ASYNC_PF_VMEXIT    = 10,
	PVSPIN_KVM_FEATURE_PV_SEND_IPI        = 11,
	PVSPIN_KVM_FEATURE_POLL_CONTROL       = 12,
	PVSPIN_KVM_FEATURE_PV_SCHED_YIELD     = 13,
	PVSPIN_KVM_FEATURE_ASYNC_PF_INT       = 14,
	PVSPIN_KVM_FEATURE_MSI_EXT_DEST_ID    = 15,
	PVSPIN_KVM_FEATURE_HC_MAP_GPA_RANGE   = 16,
	PVSPIN_KVM_FEATURE_MIGRATION_CONTROL  = 17,
	PVSPIN_KVM_FEATURE_CLOCKSOURCE_STABLE_BIT = 24,
};

/** KVM hint bits in EDX of leaf base+1 (KVM_HINTS_*). */
enum pvspin_kvm_hint {
	PVSPIN_KVM_HINTS_REALTIME = 0,   /* vCPUs run on dedicated pCPUs */
};

/** Name of KVM feature bit `bit` without the KVM_FEATURE_ prefix
 *  ("PV_UNHALT"), or NULL for a bit without a name. */
const char *pvspin_env_kvm_feature_name(unsigned bit);

/** Name of KVM hint bit `bit` without the KVM_HINTS_ prefix ("REALTIME"),
 *  or NULL. */
const char *pvspin_env_kvm_hint_name(unsigned bit);

/** One CPUID result: leaf (EAX in), subleaf (ECX in), registers out. */
typedef struct pvspin_env_cpuid_leaf {
	uint32_t leaf, subleaf;
	uint32_t eax, ebx, ecx, edx;
} pvspin_env_cpuid_leaf_t;

/** A CPUID table read from a dump.  Zero-initialise, fill with
 *  pvspin_env_cpuid_parse() or _load(), release with _free(). */
typedef struct pvspin_env_cpuid {
	size_t count;                      /* leaves in use */
	size_t capacity;                   /* leaves allocated */
	pvspin_env_cpuid_leaf_t *leaves;   /* in file order */
} pvspin_env_cpuid_t;

/**
 * Parse a CPUID dump in the raw format of Debian's `cpuid -1 -r`:
 *
 *     CPU:
 *        0x40000000 0x00: eax=0x40000001 ebx=0x4b4d564b ecx=0x564b4d56 edx=0x0000004d
 *
 * A "CPU:" or "CPU N:" line starts a CPU; only the first CPU of a dump is
 * read (the hypervisor leaves are the same on every vCPU).  Blank lines and
 * lines starting with '#' are ignored.  Any other line is an error, and
 * so is a leaf + subleaf given twice within the CPU.
 *
 * `name` names the input in error messages.  Returns 0, or -1 with a
 * message "NAME:LINE: what is wrong" in `err` (at most `errlen` bytes,
 * always terminated when errlen > 0) and the table left empty.  Allocates
 * (free with pvspin_env_cpuid_free).
 */
int pvspin_env_cpuid_parse(pvspin_env_cpuid_t *t, FILE *f, const char *name,
			   char *err, size_t errlen);

/** pvspin_env_cpuid_parse() on the file `path`; an unreadable file is an
 *  error "PATH: strerror".  Returns 0 or -1. */
int pvspin_env_cpuid_load(pvspin_env_cpuid_t *t, const char *path,
			  char *err, size_t errlen);

/**
 * Does the table hold every leaf detection reads from it, so that no fact
 * would be a guessed zero?  Leaf 1 (the hypervisor bit); with that bit
 * set, leaf 0x40000000 (the signature); and for a KVM interface at base B
 * (0x40000000, 0x40000100, ... as detection scans them) whose highest
 * leaf is at least B + 1, leaf B + 1 (the features and hints).  Returns 0,
 * or -1 with what is missing in `err` (at most `errlen` bytes, always
 * terminated when errlen > 0).  Thread-safe (reads only).
 */
int pvspin_env_cpuid_complete(const pvspin_env_cpuid_t *t, char *err, size_t errlen);

/** Release a table filled by parse/load; leaves it empty.  NULL is fine. */
void pvspin_env_cpuid_free(pvspin_env_cpuid_t *t);

/* ---- where to read from --------------------------------------------- */

/**
 * The injectable environment.  All-NULL (PVSPIN_ENV_SOURCE_LIVE) is this
 * machine: files under "/", the CPUID instruction (x86 only; elsewhere no
 * hypervisor is seen) and sched_getaffinity() for the allowed CPUs.
 *
 * With `root` set, every file is read under that directory and the allowed
 * CPUs come from the "Cpus_allowed_list:" line of ROOT/proc/self/status
 * (the kernel's own file, so a copied /proc works unchanged).
 */
typedef struct pvspin_env_source {
	const char *root;                /* NULL: "/" and sched_getaffinity */
	const pvspin_env_cpuid_t *cpuid; /* NULL: the CPUID instruction */
} pvspin_env_source_t;

#define PVSPIN_ENV_SOURCE_LIVE ((pvspin_env_source_t){ NULL, NULL })

/* ---- the environment ------------------------------------------------ */

/** Longest escaped signature: 12 bytes, each at most "\xNN", plus NUL. */
#define PVSPIN_ENV_SIGNATURE_MAX (12 * 4 + 1)
/** Size of pvspin_env_t.quota_error, its terminating NUL included. */
#define PVSPIN_ENV_QUOTA_ERROR_MAX 512

/**
 * What detection found.  A count of 0 means "unknown" (file missing or
 * unreadable), a negative steal_pct or runnable likewise.
 */
typedef struct pvspin_env {
	/* CPUID */
	bool hypervisor;        /* CPUID.1:ECX bit 31 (X86_FEATURE_HYPERVISOR) */
	/** Signature at leaf 0x40000000, trailing NULs dropped, printable
	 *  ASCII kept, other bytes as "\xNN"; "" if none. */
	char signature[PVSPIN_ENV_SIGNATURE_MAX];
	/** Recognised name of that signature ("KVM", "Hyper-V", "VMware",
	 *  "Xen", "bhyve", "TCG", "ACRN", "QNX", "VirtualBox", "Parallels"),
	 *  "unknown" for another, "none" without a hypervisor. */
	const char *hypervisor_name;
	uint32_t hv_max_leaf;   /* EAX of 0x40000000 */
	bool kvm;               /* a KVM interface was found */
	/** Leaf of the KVM interface (0x40000000, or 0x40000100 behind
	 *  Hyper-V enlightenments, ...); 0x40000000 when there is no KVM. */
	uint32_t base_leaf;
	uint32_t kvm_features;  /* EAX of base_leaf+1, 0 without KVM */
	uint32_t kvm_hints;     /* EDX of base_leaf+1, 0 without KVM */
	/* CPUs and memory */
	int cpus_online;        /* /sys/devices/system/cpu/online */
	int cpus_possible;      /* /sys/devices/system/cpu/possible */
	int cpus_allowed;       /* this process's affinity mask */
	int numa_nodes;         /* /sys/devices/system/node/online; 1 if absent */
	/** cgroup CPU quota in CPUs (quota / period; the smallest along the
	 *  process's cgroup path); 0 = no quota. */
	double cpu_quota;
	/** Steal time in per cent of all CPU time, from /proc/stat: since
	 *  boot after pvspin_env_detect(), over an interval after
	 *  pvspin_env_sample_steal(); negative if unknown. */
	double steal_pct;
	double steal_interval_ms;  /* 0: since boot */
	/** Runnable threads: 1-minute load average (/proc/loadavg);
	 *  negative if unknown. */
	double runnable;
	bool nopvspin;          /* "nopvspin" on /proc/cmdline */
	/** rseq time-slice extension (prctl PR_RSEQ_SLICE_EXTENSION, Linux
	 *  7.0): 1 offered to this thread, 0 not (older kernel, disabled, or
	 *  no rseq area).  Always this machine's, even with a root dir. */
	int rseq_slice_ext;
	/** Which facts were read rather than assumed: numa_nodes (false: no
	 *  /sys/devices/system/node/online, 1 assumed), cpu_quota (false: no
	 *  readable /proc/self/cgroup, no quota assumed; or a quota file along
	 *  the cgroup path that does not parse, see quota_error: its level
	 *  counts as no quota) and nopvspin (false: no readable /proc/cmdline,
	 *  "no" assumed).  The policies use the assumed values; `pvspin
	 *  detect` says they are assumed. */
	bool numa_known, quota_known, cmdline_known;
	/** The first cgroup quota file that exists but does not parse (cpu.max
	 *  not "QUOTA PERIOD" or "max PERIOD" with positive integers; v1
	 *  cpu.cfs_quota_us not -1 or a positive integer, cpu.cfs_period_us
	 *  not a positive integer), as "PATH: 'CONTENT'" (the path under the
	 *  root, the content's first line, other bytes than printable ASCII as
	 *  '?', truncated to fit); "" when every quota file read parses. */
	char quota_error[PVSPIN_ENV_QUOTA_ERROR_MAX];
} pvspin_env_t;

/**
 * Detect the environment from `src` (NULL: live) into `env`, without
 * sleeping: steal time is the average since boot.  Missing files give
 * "unknown" fields, never an error.  Does not allocate from the heap; reads
 * at most about ten small files.  Returns 0.
 */
int pvspin_env_detect(pvspin_env_t *env, const pvspin_env_source_t *src);

/** Aggregate CPU time from the "cpu" line of /proc/stat, in USER_HZ
 *  ticks: steal, and the total of user..steal (guest time is already in
 *  user and nice). */
/** Probe the rseq time-slice extension (Linux 7.0,
 *  PR_RSEQ_SLICE_EXTENSION): 1 if the kernel offers it to the calling
 *  thread, 0 if not (EINVAL before 7.0; disabled; no rseq area).  One
 *  prctl(); thread-safe. */
int pvspin_env_rseq_slice_ext(void);

typedef struct pvspin_env_cputime {
	uint64_t steal;
	uint64_t total;
} pvspin_env_cputime_t;

/** Read ROOT/proc/stat into `t`.  Returns 0, or -1 (errno set: ENOENT,
 *  EINVAL for a file without a well-formed "cpu" line: "cpu " and at least
 *  the eight numbers up to steal, then only numbers to the end of the
 *  line). */
int pvspin_env_read_cputime(const pvspin_env_source_t *src,
			    pvspin_env_cputime_t *t);

/** Steal in per cent of the CPU time between two samples (b after a);
 *  0 when no time passed; negative if b is before a. */
double pvspin_env_steal_pct(const pvspin_env_cputime_t *a,
			    const pvspin_env_cputime_t *b);

/**
 * Measure steal time over `interval_ms` milliseconds (sleeps that long)
 * and store it in env->steal_pct / steal_interval_ms.  /proc/stat counts
 * in USER_HZ ticks (10 ms), so the resolution is 100 / (interval_ms / 10 *
 * CPUs) per cent: 2.5% for 200 ms on 2 CPUs.  If no CPU time passed
 * between the two reads (a static copy of /proc/stat) env is left with
 * the since-boot value.  Returns 0, or -1 (errno) if /proc/stat cannot be
 * read, leaving env unchanged.
 */
int pvspin_env_sample_steal(pvspin_env_t *env, const pvspin_env_source_t *src,
			    unsigned interval_ms);

/* ---- policies ------------------------------------------------------- */

/** Longest reason, with its NUL. */
#define PVSPIN_POLICY_REASON_MAX 160

/** A policy's pick: the kind and a one-line reason in the style of the
 *  kernel's messages ("kvm-guest: PV spinlocks disabled with
 *  KVM_HINTS_REALTIME hints"). */
typedef struct pvspin_policy_choice {
	pvspin_kind_t kind;
	char reason[PVSPIN_POLICY_REASON_MAX];
} pvspin_policy_choice_t;

/** A policy function: fills `c` from `env`; `param` is the policy's
 *  parameter (threshold=N: N; others ignore it). */
typedef void (*pvspin_policy_fn)(const pvspin_env_t *env, int param,
				 pvspin_policy_choice_t *c);

/** Linux today (kvm_spinlock_init() after the 2025 change): bare metal:
 *  native; a non-KVM hypervisor: unfair lock (virt_spin_lock_key stays
 *  on); KVM: REALTIME hint -> native; no PV_UNHALT -> unfair; one possible
 *  CPU -> native; nopvspin -> native; else PV. */
void pvspin_policy_linux(const pvspin_env_t *env, int param,
			 pvspin_policy_choice_t *c);

/** Linux before 2025: as pvspin_policy_linux() but no PV_UNHALT is tested
 *  first, so a REALTIME guest without PV_UNHALT keeps the unfair lock. */
void pvspin_policy_linux_pre_2025(const pvspin_env_t *env, int param,
				  pvspin_policy_choice_t *c);

/** Paolo Bonzini's proposal (qemu-devel, October 2017): as Linux today,
 *  but the PV lock only when the guest spans more than one NUMA node;
 *  a single-node guest keeps the unfair lock. */
void pvspin_policy_numa(const pvspin_env_t *env, int param,
			pvspin_policy_choice_t *c);

/** Waiman Long's proposal (unfair_pvspinlock_cpu_threshold, same thread):
 *  as Linux today, but the unfair lock when the guest has `param` possible
 *  CPUs or fewer.  param 0 is Linux today. */
void pvspin_policy_threshold(const pvspin_env_t *env, int param,
			     pvspin_policy_choice_t *c);

/** pvspin's own default for userspace threads: spinpark on every machine
 *  (a thread, unlike a kernel spinlock holder, can be preempted by its own
 *  OS at any instruction), with the reason that applies first: a CPU
 *  quota below the CPUs, steal time, more runnable threads than CPUs, one
 *  CPU, a hypervisor without the REALTIME hint, dedicated pCPUs, bare
 *  metal.  The reasons are what `pvspin detect` shows.  Rules and
 *  evidence: docs/policy.md.  (Until 2026-12 it picked pvqspinlock where
 *  threads may be preempted and qspinlock otherwise.) */
void pvspin_policy_pvspin(const pvspin_env_t *env, int param,
			  pvspin_policy_choice_t *c);

/** Default N of "threshold" (Waiman Long's example: 4 CPUs or fewer). */
#define PVSPIN_POLICY_THRESHOLD_DEFAULT 4

/** A named policy with its parameter. */
typedef struct pvspin_policy {
	const char *name;       /* "linux", "linux-pre-2025", "numa",
				   "threshold", "pvspin" */
	pvspin_policy_fn fn;
	int param;
} pvspin_policy_t;

/**
 * Parse a policy spec: "linux", "linux-pre-2025", "numa", "pvspin",
 * "threshold" (N = PVSPIN_POLICY_THRESHOLD_DEFAULT) or "threshold=N"
 * (0 <= N <= PVSPIN_POLICY_THRESHOLD_MAX).  Returns 0, or -1 with errno
 * = ERANGE for "threshold=" followed by anything but a decimal N from 0
 * to the maximum (a sign, a blank, 0x, too large), EINVAL for anything
 * else (an unknown name).
 */
#define PVSPIN_POLICY_THRESHOLD_MAX 1000000
int pvspin_policy_parse(const char *spec, pvspin_policy_t *p);

/** Why pvspin_policy_parse() refused a spec, from the errno it set, for
 *  an error message "WHO: PVSPIN_POLICY=SPEC: REASON" (or, for an option,
 *  "WHO: --policy SPEC: REASON"): ERANGE "N of
 *  threshold=N is a CPU count from 0 to 1000000", anything else "not a
 *  policy; valid policies: ..." (pvspin_policy_names()).  A static
 *  string; thread-safe. */
const char *pvspin_policy_parse_error(int err);

/** The valid policy specs joined by ", " (for error messages). */
const char *pvspin_policy_names(void);

/** The policies in display order, each with its default parameter;
 *  `*count` receives their number. */
const pvspin_policy_t *pvspin_policy_all(size_t *count);

/** Run policy `p` on `env`. */
void pvspin_policy_pick(const pvspin_policy_t *p, const pvspin_env_t *env,
			pvspin_policy_choice_t *c);

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_POLICY_H */

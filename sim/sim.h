/*
 * sim.h - internal interface of the pvspin hypervisor simulator
 * (`pvspin sim`, docs/design.md sections 3 and 6).
 *
 * Parts:
 *   sim_profile.c   cost profiles (one per machine type), each number sourced
 *   sim_workload.c  guest workload models (kcbench, ebizzy, ebizzy-mm, spawn,
 *                   messaging)
 *   sim_config.c    configuration keys, --set / INI, validation
 *   sim_preset.c    the presets
 *   sim_engine.c    the discrete-event engine: event heap, vCPU coroutines,
 *                   time, set-up, the main loop
 *   sim_memory.c    cache lines, coherence costs, memory / spin platform ops
 *   sim_sched.c     the host scheduler
 *   sim_kvm.c       KVM: halt, polling, kick, PLE, directed yield, steal time
 *   sim_guest.c     guest plumbing and the spinlock-loop workload model
 *   sim_guest_mm.c  the ebizzy-mm workload model (rwsem, faults, TLB)
 *   sim_check.c     sampling, deadlock / lost-wake-up / misuse checks
 *   sim_report.c    metrics -> JSON (jansson), deadlock / invariant reports
 *   (sim_internal.h: the state and functions these layers share)
 *   sim_seeds.c     --seeds N: parallel runs over seeds, median / min-max
 *   sim_main.c      the `pvspin-sim` command line, --list, --fuzz
 *
 * Simulated time is an integer count of nanoseconds (sim_time_t) and never
 * depends on the wall clock.  Everything runs on one host thread; nothing
 * here is thread-safe.
 */
#ifndef PVSPIN_SIM_H
#define PVSPIN_SIM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <ucontext.h>

#include <gsl/gsl_rng.h>
#include <jansson.h>

#include "pvspin/lock.h"
#include "pvspin/platform.h"
#include "../tools/pvspin/stop_signal.h"

typedef uint64_t sim_time_t;               /* ns */
#define SIM_T_INF UINT64_MAX

/* ---- cost profiles (sim_profile.c) ----------------------------------- */

/** Costs of one machine type, all in ns unless named otherwise. */
struct sim_profile {
	const char *name;
	const char *what;            /* the machine it stands for */
	double ghz;                  /* core clock, for cycle-based numbers */
	sim_time_t pause_ns;         /* one spin-loop iteration (PAUSE) */
	sim_time_t l1_ns;            /* load/store hitting the own cache */
	sim_time_t atomic_ns;        /* locked RMW on an owned line */
	sim_time_t store_forward_ns; /* added to a load or RMW that overlaps a
					  store of the same vCPU still in its
					  store buffer without lying inside
					  it: store-to-load forwarding fails
					  and the access waits for the store
					  (sim_memory.c) */
	sim_time_t xfer_local_ns;    /* cache-line transfer, same NUMA node
					  (with a CCX level: another CCX of
					  the node) */
	sim_time_t xfer_remote_ns;   /* cache-line transfer, other node */
	int ccx_cpus;                /* pCPUs per CCX (AMD core complex: the
					  cores sharing one L3), counted from
					  each node's first pCPU; 0: no CCX
					  level */
	sim_time_t xfer_ccx_ns;      /* cache-line transfer inside one CCX */
	sim_time_t vmexit_ns;        /* VM exit + entry round trip (HLT, PLE) */
	sim_time_t hypercall_ns;     /* KVM_HC_KICK_CPU round trip */
	sim_time_t ipi_ns;           /* wake-up IPI to another pCPU */
	sim_time_t ctx_switch_ns;    /* host context switch between vCPUs */
	sim_time_t slice_ns;         /* host scheduler base slice (EEVDF) or
					  minimum granularity (CFS) */
	sim_time_t sched_latency_ns; /* CFS period shared by the runnable
					  tasks of a CPU (0: EEVDF, fixed slice) */
	sim_time_t wakeup_gran_ns;   /* wake-up preemption granularity */
	sim_time_t tick_ns;          /* host scheduler tick (1 / CONFIG_HZ):
					a slice ends at the first tick of its
					pCPU at least slice_ns after it began
					(EEVDF without HRTICK); 0: the slice
					is slice_ns +- half a 1 ms tick */
	sim_time_t tick_jitter_ns;   /* a slice that ends at a tick ends a
					uniform draw of [0, this) after it
					(the timer interrupt's entry) */
	sim_time_t tick_switch_ns;   /* a switch at a tick costs this instead
					of ctx_switch_ns (the timer
					interrupt and schedule()); 0: as any */
	bool eevdf_wakeup;           /* wake-up preemption by EEVDF's pick
					(sim_sched.c) instead of
					wakeup_gran_ns; needs tick_ns */
	bool has_ple;                /* Pause-Loop Exiting hardware */
	sim_time_t ple_window_ns;    /* initial PLE window (converted) */
	sim_time_t ple_window_max_ns;/* cap of the growing window */
	sim_time_t halt_poll_ns;     /* KVM halt polling */
	sim_time_t membarrier_ns;    /* a membarrier with a target, as its
					caller sees it (0: 450 ns plus
					hypercall_ns, ipi_ns and a transfer
					per target, sim_kvm.c) */
	sim_time_t membarrier_target_ns; /* what a membarrier's IPI takes from
					each target that runs (0: nothing) */
	bool vcpus_are_threads;      /* the machine twin: a "vCPU" stands for a
					thread of one process and the pCPUs
					for the CPUs it may run on, so
					pvspin_plat_spin_cpus() counts the
					pCPUs (as sched_getaffinity does
					natively), not the VM's vCPUs */
};

const struct sim_profile *sim_profile_find(const char *name);
const char *sim_profile_names(void);           /* "a, b, c" */

/* ---- workload models (sim_workload.c) -------------------------------- */

enum sim_dist { SIM_DIST_CONST, SIM_DIST_EXP, SIM_DIST_PARETO, SIM_DIST_COUNT };
const char *sim_dist_name(enum sim_dist d);
int sim_dist_from_name(const char *s);         /* -1 if unknown */

/** A named guest workload: what a vCPU does between and inside critical
 *  sections.  `work` > 0: completion mode (each vCPU does `work`
 *  acquisitions); 0: throughput mode for `seconds`. */
struct sim_workload {
	const char *name;
	const char *approximates;   /* what it stands for and how */
	enum sim_dist ncs_dist;
	double ncs_us;              /* mean non-critical section, us */
	enum sim_dist cs_dist;
	double cs_us;               /* mean critical section, us */
	int locks;                  /* locks per VM */
	double hot;                 /* probability of taking lock 0 */
	long work;                  /* acquisitions per vCPU, 0 = throughput */
	int cs_lines;               /* shared 64-byte lines of its lock that a
				       critical section writes (0: none) */
};

/** Fixed costs of the `ebizzy-mm` model (mmap_sem, page faults, TLB
 *  shootdown; sim_workload.c gives each number's source).  Times in us. */
struct sim_mm_model {
	int faults;          /* page faults per record (chunk / 4 KiB) */
	int trim_every;      /* one record in trim_every grows, faults, trims
				(the calibration knob, see sim_workload.c) */
	int pcp_batch;       /* pages per zone-lock acquisition (pcp->batch) */
	double zone_hold_us; /* zone lock hold per bulk refill / free */
	double brk_grow_us;  /* mmap_sem write hold of a brk grow */
	double unmap_us;     /* mmap_sem write hold of a brk shrink, before the
				shootdown (zap PTEs, free pages) */
	double flush_us;     /* a shootdown target's handler (flush + EOI) */
	double enqueue_us;   /* rwsem slow path under wait_lock */
	double wake_us;      /* per woken waiter, under wait_lock */
	int threads;         /* guest threads per vCPU (ebizzy's default) */
	double gswitch_us;   /* guest context switch between two threads */
	double glatency_us;  /* guest CFS sched_latency (the period) */
	double gwakeup_gran_us; /* guest CFS wake-up preemption granularity */
	double guser_chunk_us;  /* user time between preemption points */
};
extern const struct sim_mm_model sim_mm_model;

const struct sim_workload *sim_workload_find(const char *name);
const char *sim_workload_names(void);

/* ---- configuration (sim_config.c) ------------------------------------ */

/** What the host does for the kicked vCPU on KICK_CPU (key `kick_yield`).
 *  SIM_KY_OFF and SIM_KY_YIELD are the two kernels of seed 001; the two
 *  oracles are analysis modes no hypervisor implements: they bound what any
 *  boost of the kicked vCPU could gain (sim/README.md, "ebizzy"). */
enum sim_kick_yield {
	SIM_KY_OFF = 0,          /* vanilla KVM: the kick only wakes */
	SIM_KY_YIELD = 1,        /* seed 001: the kicker directed-yields to it */
	SIM_KY_ORACLE = 2,       /* it runs at once, preempting whatever runs on
				  * its pCPU; the kicker keeps its own pCPU */
	SIM_KY_ORACLE_CROSS = 3, /* as ORACLE, but never preempts a vCPU of its
				  * own VM (no holder preemption in its VM) */
};

/** Most VMs in one run. */
#define SIM_MAX_VMS 64

/** A complete run configuration.  Every field is a key of --set / INI /
 *  JSON "config" (see sim_config_keys in sim_config.c). */
struct sim_config {
	char preset[32];
	int vms, vcpus, pcpus, nodes;
	pvspin_kind_t lock;
	int ple;                    /* 0/1; -1 = profile default */
	int kick_yield;             /* enum sim_kick_yield */
	int pv_unhalt, dedicated, steal_time;
	char profile[32];
	char workload[32];
	double seconds;             /* throughput duration or completion cap */
	uint64_t seed;
	/* workload overrides (initialised from the model) */
	enum sim_dist ncs_dist, cs_dist;
	double ncs_us, cs_us, hot;
	int locks;
	long work;
	/* guest/host knobs */
	uint32_t spin_threshold;    /* pvqspinlock SPIN_THRESHOLD, loops */
	uint32_t pending_loops;     /* qspinlock _Q_PENDING_LOOPS */
	uint32_t tas_backoff_max;   /* tas backoff cap, loops (0 = none) */
	int early_halt_preempted;   /* pvqspinlock: halt early if prev preempted */
	double halt_poll_us;        /* -1 = profile default */
	double slice_us;            /* -1 = profile default */
	double slice_ext_us;        /* rseq time-slice extension, us (0: off) */
	int lose_kicks;             /* TEST ONLY: drop every pv_kick */
	int broken_lock;            /* TEST ONLY: enter the CS even if trylock failed */
	double sample_us;           /* LHP/LWP sampling period */
	int mm_madvise;             /* ebizzy-mm: free = MADV_DONTNEED of a
				       thread's arena (mmap_sem read) */
	int threads;                /* ebizzy-mm: guest threads per vCPU (0:
				       the model's, ebizzy's 2 x CPUs) */
	/* per-VM overrides, keys vmN.lock, vmN.ple, vmN.kick_yield,
	 * vmN.pv_unhalt, vmN.steal_time (N from 0); NONE / -1 = as above */
	pvspin_kind_t vm_lock[SIM_MAX_VMS];
	int vm_ple[SIM_MAX_VMS], vm_kick_yield[SIM_MAX_VMS];
	int vm_pv_unhalt[SIM_MAX_VMS], vm_steal_time[SIM_MAX_VMS];
};

/** Defaults (no preset): 1 VM x 4 vCPUs on 4 pCPUs, qspinlock, kcbench. */
void sim_config_defaults(struct sim_config *c);
/** Apply one key=value.  Returns 0, or -1 after printing an error that
 *  names the key and its valid values to `err`. */
int sim_config_set(struct sim_config *c, const char *key, const char *value, FILE *err);
/** sim_config_set() of one "KEY=VALUE" string (as --set takes it).  Same
 *  returns; -1 + message also without '=' (or out of memory). */
int sim_config_set_pair(struct sim_config *c, const char *pair, FILE *err);
/** sim_config_set_pair() of each blank-separated "KEY=VALUE" in `list`
 *  (up to 511 characters), in order; stops at the first error (-1). */
int sim_config_set_list(struct sim_config *c, const char *list, FILE *err);
/** Apply a preset by name (defaults first).  -1 + message if unknown. */
int sim_config_preset(struct sim_config *c, const char *name, FILE *err);
/** Parse an INI scenario file (keys of --set; optional [scenario] or [sim]
 *  section).  `preset = NAME`, wherever it is, is applied first, then the
 *  other keys in file order.  Checks the
 *  whole file before applying anything (on an error `c` is unchanged).
 *  Stops at the first error and reports only it, naming the file and line.
 *  Returns 0; -1 +
 *  message on a bad key or value (a usage error, as with --set); -2 +
 *  message when the file is missing, a directory, unreadable or malformed:
 *  a line that is not INI, a line over inih's 199 characters, an unknown
 *  section, a key given twice (preset included; the message names it and
 *  both lines), no key at all (an empty scenario: the file failed), a file
 *  of more than SIM_SCENARIO_MAX bytes.  '#' and
 *  ';' start comments, at the start of a line or after a value. */
int sim_config_load_ini(struct sim_config *c, const char *path, FILE *err);
/** sim_config_load_ini() of an open stream `f` (not closed), named `name`
 *  in the messages (e.g. "<stdin>"), from its current position.  Same
 *  returns; also -2 after sim_scenario_too_big()'s message once more than
 *  SIM_SCENARIO_MAX bytes were read without an error (a regular file: by
 *  its size, before it is read).  Reads no further than the line of the
 *  first error of a line (not INI, too long, a NUL byte, an unknown
 *  section), so an endless stream stops there; SIM_SCENARIO_STOPPED once a
 *  stop signal has come (checked before every line). */
int sim_config_load_ini_stream(struct sim_config *c, FILE *f, const char *name, FILE *err);
/** Whether `name` is a configuration key (of --set: a key, "preset" or
 *  vmN.KEY with a per-VM KEY and N in plain decimal without a leading zero;
 *  the VM number is not range-checked). */
bool sim_config_key_exists(const char *name);
/** Whether configuration key `name` is read by workload `workload`: true
 *  for a key every workload reads, false for an unknown key and for one
 *  workload's own key (ebizzy-mm's `threads`, `mm_madvise`), which
 *  sim_config_check() refuses elsewhere. */
bool sim_config_key_applies(const char *name, const char *workload);
/**
 * The most bytes of a scenario, INI or JSON, file or stdin, that pvspin sim
 * reads: 1 GiB.  A JSON scenario is parsed whole (jansson), so it is held
 * whole; an INI one is read line by line (src/util/line_read.h), so the
 * bound is its time, not its memory.  The largest report `pvspin sim --json`
 * writes, which `pvspin sim FILE` and `pvspin sim -` take back (its
 * "config"), is one of --seeds 1000 (the most) with 4096 vCPUs (vms x
 * vcpus, the most): each run repeats vcpu_ops and vcpu_run_ns, about 50
 * bytes a vCPU with 3600-s figures, so 1000 x 4096 x 50 B ~ 205 MB, plus
 * the summary (~1 MB) and 1000 x ~5 KB of the rest: ~220 MB, a fifth of the
 * bound (one run of 4096 vCPUs: ~0.2 MB).  The reports of runs that stop
 * on a deadlock also hold a line per vCPU, twice per seed with --seeds:
 * only --seeds reports of thousands of vCPUs that deadlock in most seeds
 * come near the bound.
 */
#define SIM_SCENARIO_MAX ((size_t)1 << 30)
/** What a scenario loader (sim_config_load_ini(), ..._stream(), and
 *  sim_main.c's JSON and stdin readers) returns when a stop signal
 *  (tool_stop_signal()) has come: they look before every line or chunk
 *  they read and after a read that failed (a read blocked on a pipe or a
 *  terminal ends with EINTR), so an endless or stalled input ends there.
 *  Nothing is said (the read error is the signal's doing) and nothing
 *  applied; the caller says it and ends by the signal. */
#define SIM_SCENARIO_STOPPED (-3)
/** Say on `err` that the scenario `name` (the file, or "<stdin>") has more
 *  than SIM_SCENARIO_MAX bytes, naming the bound: "pvspin sim: NAME: larger
 *  than 1 GiB (1073741824 bytes), the most pvspin sim reads of a scenario".
 *  Returns -2, what the scenario loaders return for it: the input failed
 *  (exit 1), as for a line too long or a NUL byte, not a bad key or value
 *  (-1, exit 2). */
int sim_scenario_too_big(const char *name, FILE *err);
/** Is the descriptor `fd` a regular file with more than `room` bytes left
 *  from its position?  Then a loader refuses it by its size, before
 *  reading it (sim_scenario_too_big()).  False for a pipe, a terminal or
 *  a stream without a descriptor (fd -1: fileno() of a cookie stream);
 *  those are refused as they are read. */
bool sim_scenario_file_over(int fd, size_t room);
/**
 * Read what the descriptor `fd` has, up to `n` bytes, into `buf`: one
 * read(2) once ppoll(2) said there is input, the way every scenario
 * reader reads, so that an endless input is read a line or chunk at a
 * time and a stop signal (tool_stop_signal()) ends the wait of a stalled
 * one at once, whenever it comes, also between the test of the flag and
 * the wait (the stop signals are blocked there; ppoll() unblocks them).
 * Returns the bytes read (fewer than `n` when fewer are there), 0 at the
 * end of the input, or -1 with errno: EINTR once a stop signal has come
 * (nothing read), else read()'s or ppoll()'s error.  Not thread-safe
 * (sigprocmask(); the simulator is one thread).
 */
ssize_t sim_scenario_read(int fd, void *buf, size_t n);
/** A stream (fopencookie()) that reads the descriptor `fd` with
 *  sim_scenario_read(), for the line reader of an INI scenario; fclose()
 *  leaves `fd` open (the caller's to close); fileno() of it is -1.
 *  NULL with errno if it cannot be made. */
FILE *sim_scenario_stream(int fd);
/** Check that scenario file `path` exists, is not a directory and is
 *  readable.  Returns 0, or -1 after a message naming the reason to `err`. */
int sim_scenario_check_file(const char *path, FILE *err);
/** Fill the workload parameters left at "model default" (negative) from
 *  the named workload model. */
void sim_config_resolve(struct sim_config *c);
/** Cross-key validation (dedicated fits, slots < PVSPIN_MAX_CPUS, ...). */
int sim_config_check(const struct sim_config *c, FILE *err);
/** The configuration as a JSON object (new reference).  `seed` is a JSON
 *  integer up to INT64_MAX, above it a decimal string (a JSON integer is
 *  int64 in jansson): either form reads back as the same seed. */
json_t *sim_config_json(const struct sim_config *c);
/** A uint64_t for JSON: an integer up to INT64_MAX, else its decimal
 *  string (new reference). */
json_t *sim_u64_json(uint64_t v);
/** Print the presets, one line each. */
void sim_presets_list(FILE *f);
/** Print the keys with their meaning. */
void sim_keys_help(FILE *f);

/* ---- results --------------------------------------------------------- */

enum sim_stop {
	SIM_STOP_NONE, SIM_STOP_END, SIM_STOP_DONE,
	SIM_STOP_DEADLOCK,          /* all vCPUs stuck, or one lost wake-up */
	SIM_STOP_TWO_HOLDERS, SIM_STOP_MISUSE,
	/* a stop signal came (SIGINT, SIGTERM, SIGHUP, caught by main() with
	 * tool_stop_signals_catch()): the run stopped at its next event with
	 * what it had measured; sim_run_seeds() then starts no more seeds and
	 * passes the signal on to the running ones */
	SIM_STOP_INTERRUPTED,
};

/** Outcome of one run: the JSON document and how it stopped. */
struct sim_result {
	enum sim_stop stop;
	json_t *json;               /* owned by the caller */
	char *report;               /* malloc'd deadlock/invariant report or NULL */
};

/** Run one configuration to the end.  Deterministic for a given config
 *  (apart from "wall_seconds").  Returns 0 on a clean run, 1 when the run
 *  stopped on a deadlock / broken invariant / misuse (report set), -1 on a
 *  set-up failure (message on stderr). */
int sim_run(const struct sim_config *c, struct sim_result *out);

/* ---- several seeds (sim_seeds.c) ----------------------------------------- */

/** CPUs this process may run on (its affinity mask), at least 1. */
unsigned sim_usable_cpus(void);
/** Run `c` with the seeds c->seed, c->seed + 1, ..., c->seed + n - 1
 *  (modulo 2^64), each in a child process (fork), at most `jobs` at once
 *  (0: sim_usable_cpus()).  On success *out is the document (new
 *  reference; shape in sim/README.md, "Several seeds"): "config" (the
 *  first seed's), "seeds", "summary" (sim_seeds_summary() of the runs) and
 *  "runs" (each seed's results, as sim_run() gives them).  Returns 0 when
 *  every seed ran clean, 1 when some stopped on a deadlock / broken
 *  invariant / misuse (their "report" is in "runs"), -1 after a message to
 *  `err` when a run could not be made (set-up, fork, a child killed). */
int sim_run_seeds(const struct sim_config *c, unsigned n, unsigned jobs, json_t **out,
		  FILE *err);
/** The spread of n result documents (new reference), without their
 *  "config": the shape of one document in which every number becomes
 *  {"median", "min", "max"} over the n (arrays element by element); any
 *  other value that is the same in all n stays as it is, one that differs
 *  or is missing in some becomes {"values": [one per document, null if
 *  missing]}.  Integers give integer min / max (and median for odd n); the
 *  median of an even n is the mean of the middle two. */
json_t *sim_seeds_summary(json_t *const *runs, size_t n);
/** The text report of a sim_run_seeds() document: one line with the
 *  configuration, the seeds and how each stopped, then one line per
 *  numeric figure (its JSON path, median [min .. max]); per-vCPU arrays
 *  and figures that are 0 in every seed are left out. */
void sim_seeds_print(FILE *f, json_t *doc);
/** The host shape of a configuration's JSON (sim_config_json()), as both
 *  summaries print it: "N VM(s) x N vCPU(s) on N pCPU(s)", each count in
 *  the singular when it is 1, into buf (size n, NUL-terminated,
 *  truncated if short).  Thread-safe. */
void sim_shape_text(json_t *cfg, char *buf, size_t n);

/* ---- test hooks (test/test_sim.c) -------------------------------------- */

/** A guest program replacing the workload model on every vCPU (tests):
 *  called on the vCPU's coroutine with its VM, index in the VM and global
 *  slot; may call pvspin_plat_* and sim_guest_compute().  When it returns
 *  the vCPU is done.  NULL restores the workload model. */
typedef void (*sim_guest_fn)(int vm, int idx, int slot);
void sim_set_guest(sim_guest_fn fn);
/** Inside a guest program: run for `ns` of simulated running time. */
void sim_guest_compute(uint64_t ns);
/** Inside a guest program: the current simulated time, ns. */
uint64_t sim_guest_now(void);
/** Inside a guest program: one operation of the workload done (counts in
 *  the VM's "ops"; the lost-wake-up check of a park outside a lock counts
 *  these). */
void sim_guest_op_done(void);

#endif /* PVSPIN_SIM_H */

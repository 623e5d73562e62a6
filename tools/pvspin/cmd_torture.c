/*
 * cmd_torture.c - `pvspin torture`: torture-test one lock kind, after Linux
 * kernel/locking/locktorture.c (docs/design.md section 4).
 *
 *   pvspin torture [--lock KIND] [--threads N] [--seconds S]
 *                  [--long-hold-ms M] [--seed N] [--stats-interval S]
 *                  [--stall-ms MS] [--spin-threshold LOOPS] [--no-inject]
 *
 * Writers (default 2x the CPUs the process may run on) take the one lock in a loop.  Inside
 * the critical section a writer bumps a holder counter (two holders at once
 * is a failure), writes its id into a plain variable and checks it after a
 * random short hold (a few PAUSEs, sometimes 2 us, rarely a long hold of
 * --long-hold-ms ms with locktorture's odds 1 in nthreads*2000*M), and
 * sometimes calls sched_yield() while holding.  An injector thread stops
 * and continues random writers and changes their affinity
 * (torture/torture_inject.c); the main thread prints statistics and runs
 * the stall watchdog (torture/torture_watchdog.c).  Per-writer acquisition
 * counts are reported; "???" marks starvation (max/2 > min), "!!!" any
 * failure.  The last line is SUCCESS (exit 0) or FAILURE (exit 1); a run
 * cut short by SIGINT/SIGTERM/SIGHUP without a failure ends with
 * "INTERRUPTED after X s of Y s: no failure seen" (or, when the signal
 * came while the writers left after the time, "INTERRUPTED while the
 * writers were leaving the lock after the Y s run: ...") and exits 128 + the
 * signal (130, 143, 129), like a shell reports a process killed by it;
 * bad usage exits 2.
 * Documentation: docs/torture.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "env_check.h"
#include "pvspin/platform.h"
#include "pvspin/stats.h"
#include "pvspin/tunables.h"
#include "torture/torture.h"
#include "option_error.h"
#include "policy/policy_default.h"
#include "stop_signal.h"

/* Spin threshold forced on lost_kick unless given: small, so that waiters
 * reach the halt path (and the dropped kicks) quickly. */
#define LOST_KICK_SPIN_THRESHOLD 64

static void spin_ns(uint64_t ns)
{
	uint64_t end = tool_now_ns() + ns;
	while (tool_now_ns() < end)
		pvspin_plat_cpu_relax();
}

static void relax_loops(uint32_t n)
{
	while (n--)
		pvspin_plat_cpu_relax();
}

/* Failures shown one per line; the later ones are only counted. */
#define FAILURES_SHOWN 5

static void report_failure(struct torture *t, struct torture_writer *w, const char *what)
{
	static uint32_t shown;   /* lines printed, under stdout's lock */
	__atomic_fetch_add(&t->failures, 1, __ATOMIC_RELAXED);
	if (__atomic_load_n(&shown, __ATOMIC_RELAXED) > FAILURES_SHOWN)
		return;
	/* numbered and printed under one lock: no shown failure can come
	 * after the line that says the rest are not shown */
	flockfile(stdout);
	if (shown < FAILURES_SHOWN)
		printf("!!! writer %d, acquisition %" PRIu64 ": %s\n", w->id,
		       __atomic_load_n(&w->acquisitions, __ATOMIC_RELAXED) + 1, what);
	else if (shown == FAILURES_SHOWN)
		printf("!!! (further failures in the critical section are counted in Fail, "
		       "not shown)\n");
	if (shown <= FAILURES_SHOWN)
		__atomic_store_n(&shown, shown + 1, __ATOMIC_RELAXED);
	funlockfile(stdout);
}

/* The critical section: checks mutual exclusion and holds for a while. */
static void critical_section(struct torture *t, struct torture_writer *w)
{
	uint64_t r = tool_random(&w->rng);
	uint32_t n = (uint32_t)t->nthreads;

	if (__atomic_fetch_add(&t->cs_holders, 1, __ATOMIC_ACQ_REL) != 0)
		report_failure(t, w, "two holders at once");
	t->cs_owner = w->id;                      /* plain: protected by the lock */

	/* Short hold: 0-63 PAUSEs; 1 in 4n also 2 us; rarely a long hold
	 * (locktorture: 1 in nwriters * 2000 * longdelay_ms). */
	relax_loops((uint32_t)(r & 63));
	if ((r >> 8) % (4u * n) == 0)
		spin_ns(2000);
	if (t->long_hold_ms &&
	    tool_random(&w->rng) % (2000ull * n * t->long_hold_ms) == 0) {
		__atomic_fetch_add(&t->long_holds, 1, __ATOMIC_RELAXED);
		spin_ns((uint64_t)t->long_hold_ms * 1000000u);
	}
	/* Preempt the holder: 1 in 256 acquisitions. */
	if (((r >> 24) & 255) == 0) {
		__atomic_fetch_add(&t->yields, 1, __ATOMIC_RELAXED);
		sched_yield();
	}

	if (t->cs_owner != w->id)
		report_failure(t, w, "critical section overwritten by another holder");
	t->cs_counter++;                          /* plain: protected by the lock */
	__atomic_fetch_sub(&t->cs_holders, 1, __ATOMIC_ACQ_REL);
}

static struct torture *the_torture;

static void *writer_main(void *arg)
{
	struct torture_writer *w = arg;
	struct torture *t = the_torture;
	const struct torture_kind *k = t->kind;

	w->tid = (pid_t)syscall(SYS_gettid);
	w->slot = pvspin_plat_cpu();
	w->has_cpu_clock = !pthread_getcpuclockid(pthread_self(), &w->cpu_clock);
	torture_inject_register_writer(w);
	/* Publish tid, slot and the CPU clock: the watchdog, the injector and
	 * the dump read them from other threads once start_writers() has seen
	 * every writer ready (release here, acquire there). */
	__atomic_add_fetch(&t->ready, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &t->ready, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);

	/* Start together: a writer started early would otherwise collect
	 * hundreds of uncontended acquisitions before the others exist. */
	while (!__atomic_load_n(&t->go, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &t->go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);

	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
		uint64_t start = tool_now_ns();
		__atomic_store_n(&w->wait_start_ns, start, __ATOMIC_RELAXED);
		__atomic_store_n(&w->phase, TW_WAITING, __ATOMIC_RELEASE);
		k->lock();
		uint64_t waited = tool_now_ns() - start;
		__atomic_store_n(&w->phase, TW_HOLDING, __ATOMIC_RELEASE);
		if (waited > w->max_wait_ns)
			__atomic_store_n(&w->max_wait_ns, waited, __ATOMIC_RELAXED);
		critical_section(t, w);
		__atomic_store_n(&w->unlock_start_ns, tool_now_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&w->phase, TW_UNLOCKING, __ATOMIC_RELEASE);
		k->unlock();
		__atomic_store_n(&w->phase, TW_IDLE, __ATOMIC_RELEASE);
		__atomic_store_n(&w->acquisitions, w->acquisitions + 1, __ATOMIC_RELAXED);

		/* Non-critical work: 0-127 PAUSEs, 1 in 64 a yield. */
		uint64_t r = tool_random(&w->rng);
		relax_loops((uint32_t)(r & 127));
		if (((r >> 16) & 63) == 0)
			sched_yield();
	}
	__atomic_store_n(&w->phase, TW_DONE, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- statistics ------------------------------------------------------ */

struct torture_snapshot {
	uint64_t total, max, min;
	struct pvspin_events ev;
};

static void snapshot(struct torture *t, struct torture_snapshot *s)
{
	s->total = 0;
	s->max = 0;
	s->min = UINT64_MAX;
	for (int i = 0; i < t->nthreads; i++) {
		uint64_t a = __atomic_load_n(&t->writers[i].acquisitions, __ATOMIC_RELAXED);
		s->total += a;
		if (a > s->max)
			s->max = a;
		if (a < s->min)
			s->min = a;
	}
	pvspin_events_read(&s->ev);
}

/* One locktorture-style line: Writes: Total, its rate over interval_s
 * (said which: `rate_of`, "last interval" or "whole run"), Max/Min (??? if
 * max/2 > min), Fail (!!! if any); then the injections and, for pv kinds,
 * the halt/kick events since `prev`. */
static void print_stats(struct torture *t, const struct torture_snapshot *prev,
			const struct torture_snapshot *cur, double elapsed_s, double interval_s,
			const char *rate_of)
{
	uint64_t fails = __atomic_load_n(&t->failures, __ATOMIC_RELAXED);

	printf("[%7.1fs] Writes: Total: %" PRIu64 " (%.0f/s %s)  Max/Min: %" PRIu64 "/%" PRIu64
	       " %s  Fail: %" PRIu64 " %s  stops %" PRIu64 " pins %" PRIu64 " yields %" PRIu64
	       " long %" PRIu64, elapsed_s, cur->total,
	       interval_s > 0 ? (double)(cur->total - prev->total) / interval_s : 0.0, rate_of,
	       cur->max, cur->min, cur->max / 2 > cur->min ? "???" : "", fails,
	       fails ? "!!!" : "", __atomic_load_n(&t->stops, __ATOMIC_RELAXED),
	       __atomic_load_n(&t->pins, __ATOMIC_RELAXED),
	       __atomic_load_n(&t->yields, __ATOMIC_RELAXED),
	       __atomic_load_n(&t->long_holds, __ATOMIC_RELAXED));
	if (t->kind->pv) {
		static const int evs[] = { PVSPIN_EV_PV_WAIT_NODE, PVSPIN_EV_PV_WAIT_HEAD,
					   PVSPIN_EV_PV_KICK_UNLOCK, PVSPIN_EV_PV_KICK_WAKE,
					   PVSPIN_EV_PV_LOCK_STEALING };
		printf(" |");
		for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
			printf(" %s %" PRIu64, pvspin_event_name(evs[i]),
			       cur->ev.count[evs[i]] - prev->ev.count[evs[i]]);
		if (!strcmp(t->kind->name, "lost_kick"))
			printf(" dropped_kicks %" PRIu64, torture_lost_kicks());
	}
	if (!strcmp(t->kind->name, "lost_handoff"))
		printf(" | batons_taken_back %" PRIu64, torture_lost_handoffs());
	printf("\n");
	pvspin_stdout_flush();
}

/* ---- options --------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pvspin torture [--lock KIND] [--threads N] [--seconds S]\n"
		"                      [--long-hold-ms M] [--seed N] [--stats-interval S]\n"
		"                      [--stall-ms MS] [--spin-threshold LOOPS] [--no-inject]\n\n"
		"Torture-test one lock (after the kernel's locktorture).\n\n"
		"  --lock KIND          lock to torture (default: the process default kind):\n");
	for (const struct torture_kind *k = torture_kinds; k->name; k++)
		fprintf(f, "                         %-14s %s\n", k->name, k->what);
	fprintf(f,
		"  --threads N          writer threads, 1..1024 (default 2x the CPUs allowed, at most 1024)\n"
		"  --seconds S          run time, 1..604800 s (default 10)\n"
		"  --long-hold-ms M     rare long hold, 1 in threads*2000*M acquisitions\n"
		"                       (0..10000, default 100, 0 = never)\n"
		"  --seed N             random seed (default from the clock; printed)\n"
		"  --stats-interval S   statistics line every S s, 0..604800 (default 5, 0 = none)\n"
		"  --stall-ms MS        stall watchdog threshold, 10..3600000 ms (default 1000)\n"
		"  --spin-threshold L   pvqspinlock/lost_kick SPIN_THRESHOLD in PAUSE loops\n"
		"                       (default: the library's; lost_kick: %u; other\n"
		"                       kinds: a usage error)\n"
		"  --no-inject          no stops and affinity changes (yields stay)\n\n"
		"Output: statistics lines, \"???\" when max/2 > min acquisitions (starvation),\n"
		"\"!!!\" on failures; the last line is SUCCESS (exit 0) or FAILURE (exit 1),\n"
		"or, when SIGINT/SIGTERM/SIGHUP cut the run short without a failure,\n"
		"INTERRUPTED (exit 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP;\n"
		"a SIGHUP ignored from the start, as under nohup, stays ignored), also\n"
		"while the writers leave the lock after the time is up.  After a signal\n"
		"the writers get 1 s to leave, then are left running.  Exit 1 also when\n"
		"the report could not be written (standard output full or closed).\n"
		"Bad usage exits 2, a PVSPIN_* variable in the environment (PVSPIN_LOCK,\n"
		"PVSPIN_POLICY, PVSPIN_STATS, PVSPIN_SPIN_THRESHOLD, ...) with a bad value\n"
		"included, also where --lock or --spin-threshold would replace it.\n",
		LOST_KICK_SPIN_THRESHOLD);
}

/* The options that take one value: the value each was given, for
 * tool_option_once() (a second, different value is refused, the same
 * one again accepted). */
struct torture_given {
	const char *threads, *seconds, *long_hold, *seed, *stats_interval, *stall, *spin;
};

/* Parse `s`, the value of the one-value option `opt` (kept in *given;
 * `what`: its values in the plural), a whole decimal number from `min`
 * to `max`, into *out.  Returns 0, or 2 after the line that says why
 * (tool_option_number_once(), the words of every subcommand). */
static int parse_u64(const char *what, const char *opt, const char **given, const char *s,
		     uint64_t min, uint64_t max, uint64_t *out)
{
	return tool_option_number_once("pvspin torture", what, opt, given, s, min, max, out);
}

/*
 * The longest time without progress in the drain after the time is up
 * while every writer left is runnable, ns.  A hand-off of a fair lock that
 * never sleeps waits for the scheduler to run the one next owner among all
 * the spinning writers, up to about a round of the run queue.  --threads
 * is at most 1024, and 1024 ticket writers on 2 CPUs went at most 2.3 s
 * without progress (979 left in 519 s, docs/torture.md); one CPU doubles a
 * round and other load stretches it, and 60 s leaves a factor of 25 for
 * that.  The cap bounds the wait for a waiter that spins on a baton
 * nobody will pass: a lost hand-off is runnable for ever.
 */
#define DRAIN_SLOW_CAP_NS (60 * 1000000000ull)

/* Writers per CPU of a fair kind that never sleeps (ticket, qspinlock)
 * from which the run says, before it starts, that leaving the lock after
 * the time will take minutes: 128 per CPU (256 ticket writers on 2 CPUs)
 * took 37 s; 32 per CPU leave within a second. */
#define FAIR_DRAIN_NOTE_PER_CPU 128

/* Writers not yet joined that the kernel reports runnable (R), or that
 * have left their loop (only the join is pending).  One read of /proc per
 * writer left. */
static int drain_runnable(struct torture *t, const bool *joined)
{
	int n = 0;

	for (int i = 0; i < t->nthreads; i++) {
		struct torture_writer *w = &t->writers[i];
		if (joined[i])
			continue;
		/* the letter before the phase: a writer whose /proc entry is
		 * gone has exited, and said TW_DONE before */
		char st = torture_os_state(w->tid);
		if (st == 'R' || __atomic_load_n(&w->phase, __ATOMIC_ACQUIRE) == TW_DONE)
			n++;
	}
	return n;
}

/* Wait until the first `created` writers have published their setup
 * (t->ready), then let them go: they sleep on t->go, not polling it (1024
 * writers polling every 100 us kept 2 CPUs from creating the rest for
 * 20 s). */
static void start_writers(struct torture *t, int created)
{
	for (;;) {
		uint32_t r = __atomic_load_n(&t->ready, __ATOMIC_ACQUIRE);
		if (r >= (uint32_t)created)
			break;
		syscall(SYS_futex, &t->ready, FUTEX_WAIT_PRIVATE, r, NULL, NULL, 0);
	}
	__atomic_store_n(&t->go, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &t->go, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
}

static int online_cpus(void)
{
	cpu_set_t set;
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

int pvspin_cmd_torture(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lock", required_argument, NULL, 'l' },
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "long-hold-ms", required_argument, NULL, 'L' },
		{ "seed", required_argument, NULL, 'S' },
		{ "stats-interval", required_argument, NULL, 'i' },
		{ "stall-ms", required_argument, NULL, 'w' },
		{ "spin-threshold", required_argument, NULL, 'T' },
		{ "no-inject", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct torture t;
	const char *kind_name = NULL;
	struct torture_given given = { 0 };
	uint64_t v;
	bool seeded = false;
	int c;

	uint64_t cmd_start = tool_now_ns();
	memset(&t, 0, sizeof(t));
	t.nthreads = 2 * online_cpus() < 1024 ? 2 * online_cpus() : 1024;
	t.seconds = 10;
	t.long_hold_ms = 100;
	t.stats_interval = 5;
	t.stall_ms = 1000;
	t.inject = true;

	/* -h / --help anywhere: the help, whatever the other values */
	c = tool_help_scan("pvspin torture", argc, argv, ":h", opts);
	if (c == 1)
		usage(stdout);
	if (c)
		return c == 1 ? 0 : c;
	optind = 1;
	opterr = 0;   /* tool_option_error() says it */
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (tool_option_once("pvspin torture", "lock kinds", "--lock", &kind_name,
					     optarg))
				return 2;
			break;
		case 't':
			if (parse_u64("writer counts", "--threads", &given.threads, optarg, 1, 1024,
				      &v))
				return 2;
			t.nthreads = (int)v;
			break;
		case 's':
			if (parse_u64("run times", "--seconds", &given.seconds, optarg, 1,
				      7 * 24 * 3600, &v))
				return 2;
			t.seconds = (uint32_t)v;
			break;
		case 'L':
			if (parse_u64("long holds", "--long-hold-ms", &given.long_hold, optarg, 0,
				      10000, &v))
				return 2;
			t.long_hold_ms = (uint32_t)v;
			break;
		case 'S':
			if (parse_u64("seeds", "--seed", &given.seed, optarg, 0, UINT64_MAX, &v))
				return 2;
			t.seed = v;
			seeded = true;
			break;
		case 'i':
			if (parse_u64("statistics intervals", "--stats-interval",
				      &given.stats_interval, optarg, 0, 7 * 24 * 3600, &v))
				return 2;
			t.stats_interval = (uint32_t)v;
			break;
		case 'w':
			if (parse_u64("stall thresholds", "--stall-ms", &given.stall, optarg, 10,
				      3600 * 1000, &v))
				return 2;
			t.stall_ms = (uint32_t)v;
			break;
		case 'T':
			if (parse_u64("spin thresholds", "--spin-threshold", &given.spin, optarg, 1,
				      UINT32_MAX, &v))
				return 2;
			t.spin_threshold = (uint32_t)v;
			break;
		case 'n': t.inject = false; break;
		default: return tool_option_error("pvspin torture", c, argv);
		}
	}
	if (optind < argc)
		return tool_operand_error("pvspin torture", argv[optind]);
	/* a bad PVSPIN_* variable fails here (exit 2, named), as in `pvspin
	 * run` (env_check.h): the tunables, which the kinds tortured read,
	 * PVSPIN_LOCK and PVSPIN_POLICY, also with --lock given, and
	 * PVSPIN_STATS */
	if (tool_env_check("pvspin torture"))
		return 2;
	if (!kind_name)
		kind_name = pvspin_kind_name(pvspin_default_kind());
	t.kind = torture_kind_find(kind_name);
	if (!t.kind) {
		return tool_value_error("pvspin torture", "--lock", kind_name,
					PVSPIN_LOCK_NOT_A_KIND, torture_kind_names());
	}
	if (t.spin_threshold && !t.kind->pv) {
		/* Only the kinds with pvqspinlock's halt path read it; a value
		 * the run silently ignores would mislead. */
		char pv_names[128] = "";
		size_t off = 0;
		for (const struct torture_kind *k = torture_kinds; k->name; k++)
			if (k->pv && off < sizeof(pv_names))
				off += (size_t)snprintf(pv_names + off, sizeof(pv_names) - off,
							"%s%s", off ? ", " : "", k->name);
		fprintf(stderr, "pvspin torture: --spin-threshold applies only to the kinds "
			"that halt, not to lock '%s' (valid: --lock %s)\n", t.kind->name,
			pv_names);
		return 2;
	}
	if (!seeded)
		t.seed = tool_now_ns() ^ ((uint64_t)getpid() << 32);
	if (!t.spin_threshold && !strcmp(t.kind->name, "lost_kick"))
		t.spin_threshold = LOST_KICK_SPIN_THRESHOLD;
	if (t.spin_threshold && t.kind->pv &&
	    pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, t.spin_threshold)) {
		fprintf(stderr, "pvspin torture: cannot set the spin threshold: %s\n",
			strerror(errno));
		return 2;
	}

	t.writers = aligned_alloc(64, sizeof(*t.writers) * (size_t)t.nthreads);
	if (!t.writers) {
		fprintf(stderr, "pvspin torture: out of memory\n");
		return 1;
	}
	memset(t.writers, 0, sizeof(*t.writers) * (size_t)t.nthreads);
	the_torture = &t;

	if (torture_inject_install()) {
		fprintf(stderr, "pvspin torture: cannot install signal handlers: %s\n",
			strerror(errno));
		return 1;
	}
	/* SIGINT / SIGTERM / SIGHUP: the run ends at the next watchdog tick,
	 * checks what it has and says INTERRUPTED (exit 128 + the signal) */
	tool_stop_signals_catch();

	int ncpus = online_cpus();
	printf("pvspin torture: lock %s%s, %d writer%s on %d CPU%s, %u s, long hold %u ms, "
	       "seed %" PRIu64 ", stall %u ms, injection %s",
	       t.kind->name, t.kind->broken ? " (BROKEN ON PURPOSE)" : "", t.nthreads,
	       t.nthreads == 1 ? "" : "s", ncpus, ncpus == 1 ? "" : "s", t.seconds, t.long_hold_ms, t.seed, t.stall_ms,
	       t.inject ? "on" : "off");
	if (t.kind->pv)
		printf(", spin threshold %u", pvspin_tunable_get(PVSPIN_TUNE_SPIN_THRESHOLD));
	if (torture_lock_provider(t.kind))
		printf(", %s from %s", t.kind->name, torture_lock_provider(t.kind));
	printf("\n");
	/* Hundreds of writers per CPU of a fair lock that never sleeps: each
	 * hand-off waits until the scheduler runs the one next owner among
	 * them all, and after the time every writer takes the lock once more
	 * to leave.  Said before the run, not after minutes of waiting (ticket
	 * on 2 CPUs: 256 writers 37 s to leave, 512: 134 s, 1024: 521 s). */
	if (t.kind->fair_spin && t.nthreads >= FAIR_DRAIN_NOTE_PER_CPU * ncpus)
		printf("pvspin torture: %d writers of %s (fair, never sleeps) on %d CPU%s: each "
		       "hand-off waits for the scheduler, so leaving the lock after the time "
		       "takes minutes (ticket on 2 CPUs: 512 writers 134 s, 1024: 521 s); "
		       "Ctrl-C then leaves them running\n",
		       t.nthreads, t.kind->name, ncpus, ncpus == 1 ? "" : "s");
	pvspin_stdout_flush();

	for (int i = 0; i < t.nthreads; i++) {
		struct torture_writer *w = &t.writers[i];
		w->id = i;
		w->slot = -1;
		w->rng = t.seed + 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
		if (!w->rng)
			w->rng = 1;
		int err = pthread_create(&w->thread, NULL, writer_main, w);
		if (err) {
			fprintf(stderr, "pvspin torture: cannot start writer %d: %s\n", i,
				strerror(err));
			__atomic_store_n(&t.stop, 1, __ATOMIC_RELEASE);
			start_writers(&t, i);
			for (int j = 0; j < i; j++)
				pthread_join(t.writers[j].thread, NULL);
			return 1;
		}
	}
	start_writers(&t, t.nthreads);
	pthread_t injector;
	bool injecting = t.inject && !pthread_create(&injector, NULL, torture_inject_main, &t);

	/* Main loop: watchdog sample about every ms, statistics every interval. */
	struct torture_watchdog wd = { 0 };
	struct torture_snapshot prev, cur;
	uint64_t start = tool_now_ns(), end = start + (uint64_t)t.seconds * 1000000000u;
	uint64_t next_stats = start + (uint64_t)t.stats_interval * 1000000000u, last_stats = start;
	bool stalled = false;
	int cut_short = 0; /* the signal that ended the run before its time */

	snapshot(&t, &prev);
	for (;;) {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
		uint64_t now = tool_now_ns();
		if (torture_watchdog_sample(&t, &wd, now)) {
			stalled = true;
			break;
		}
		if (t.stats_interval && now >= next_stats) {
			snapshot(&t, &cur);
			print_stats(&t, &prev, &cur, (double)(now - start) / 1e9,
				    (double)(now - last_stats) / 1e9, "last interval");
			prev = cur;
			last_stats = now;
			next_stats += (uint64_t)t.stats_interval * 1000000000u;
			if (next_stats <= now)   /* fell behind: no burst of lines */
				next_stats = now + (uint64_t)t.stats_interval * 1000000000u;
		}
		if (now >= end)
			break;
		if (tool_stop_signal()) {
			cut_short = tool_stop_signal();
			break;
		}
	}
	double ran_s = (double)(tool_now_ns() - start) / 1e9;
	if (cut_short)
		printf("pvspin torture: interrupted by %s after %.1f s of %u s\n",
		       tool_stop_signal_name(cut_short), ran_s, t.seconds);

	/* Stop everyone; a writer stuck in a lost wakeup never returns. */
	__atomic_store_n(&t.stop, 1, __ATOMIC_RELEASE);
	if (injecting)
		pthread_join(injector, NULL);
	/* Each queued writer takes the lock once more to leave: 1024 of them
	 * on 2 CPUs take seconds.  Stuck means no writer left and no lock
	 * was taken for a while, not a fixed time for all of them. */
	int stuck = 0, left = 0;
	bool *joined = calloc((size_t)t.nthreads, sizeof(*joined));
	uint64_t patience = (2 + (uint64_t)(t.long_hold_ms / 1000u) * 2) * 1000000000u;
	/* ... and a while may be longer than the patience when every writer
	 * left is runnable: a fair lock that never sleeps waits for the
	 * scheduler to run the one next owner among them all (docs/torture.md,
	 * "The drain").  A stall the watchdog saw has failed the run already:
	 * no grace for its queue. */
	uint64_t cap = stalled ? patience : DRAIN_SLOW_CAP_NS;
	uint64_t last_progress = tool_now_ns(), last_total = 0, drain_start = last_progress;
	uint64_t longest_quiet = 0;  /* the longest time without progress */
	uint32_t last_word = torture_lock_word();
	enum torture_drain_verdict verdict = TORTURE_DRAIN_WAIT;
	int runnable = 0;
	bool left_running = false;   /* cut short: writers still draining, not waited for */
	bool said_waiting = false, said_slow = false;
	bool cut_in_drain = false;   /* the signal came after the run's time */
	while (joined && left < t.nthreads) {
		/* a signal while the writers leave after the time is up
		 * (256 writers of ticket on 2 CPUs take a minute) cuts the
		 * wait short as one during the run does (below) */
		if (!cut_short && tool_stop_signal()) {
			cut_short = tool_stop_signal();
			cut_in_drain = true;
			drain_start = tool_now_ns();
			printf("pvspin torture: interrupted by %s while %d of %d writers were "
			       "leaving the lock\n", tool_stop_signal_name(cut_short),
			       t.nthreads - left, t.nthreads);
		}
		if (!cut_short && !said_waiting && tool_now_ns() - drain_start > 2000000000u) {
			said_waiting = true;
			/* a stall stopped the run before its time: say so, not
			 * that the time is up (a new user read it as a time-out) */
			printf("pvspin torture: %s; waiting for %d of %d writers to leave the "
			       "lock, each taking it once more (Ctrl-C leaves them)\n",
			       stalled ? "stopped by the stall above" : "time is up",
			       t.nthreads - left, t.nthreads);
			pvspin_stdout_flush();
		}
		struct torture_snapshot now_s;
		for (int i = 0; i < t.nthreads; i++)
			if (!joined[i] && !pthread_tryjoin_np(t.writers[i].thread, NULL)) {
				joined[i] = true;
				left++;
				last_progress = tool_now_ns();
			}
		snapshot(&t, &now_s);
		uint32_t word = torture_lock_word();
		if (now_s.total != last_total ||
		    torture_word_progress(t.kind->layout, last_word, word)) {
			last_total = now_s.total;
			last_progress = tool_now_ns();
		}
		last_word = word;
		if (left == t.nthreads)
			break;
		uint64_t quiet = tool_now_ns() - last_progress;
		if (quiet > longest_quiet)
			longest_quiet = quiet;
		/* the kernel's view of 1024 writers is 1024 reads of /proc:
		 * only once the patience is out */
		runnable = quiet > patience ? drain_runnable(&t, joined) : 0;
		verdict = torture_drain_verdict(quiet, patience, cap, t.nthreads - left, runnable);
		if (verdict == TORTURE_DRAIN_STUCK)
			break;
		if (verdict == TORTURE_DRAIN_SLOW_WAIT && !said_slow && !cut_short) {
			said_slow = true;
			printf("pvspin torture: no writer left and no lock taken for %.1f s, but all "
			       "%d remaining writers are runnable (a slow queue, not a lost "
			       "wakeup); waiting up to %.1f s more\n", (double)quiet / 1e9, t.nthreads - left,
			       (double)(cap - quiet) / 1e9);
			pvspin_stdout_flush();
		}
		/* Cut short by a signal: hundreds of writers of a fair lock
		 * take the lock in turn to leave, each behind preempted ones
		 * (ticket, 512 writers on 2 CPUs: 134 s, a new user's Ctrl-C).
		 * If they still make progress after TOOL_STOP_GRACE_NS, or
		 * are a slow queue of runnable writers, they are left running;
		 * otherwise the verdict above decides, as for a run that ran
		 * its time. */
		if (cut_short && tool_now_ns() - drain_start > TOOL_STOP_GRACE_NS &&
		    (last_progress > drain_start || verdict == TORTURE_DRAIN_SLOW_WAIT)) {
			left_running = true;
			break;
		}
		/* a slow queue: each look reads /proc for every writer left */
		struct timespec ms = { 0, verdict == TORTURE_DRAIN_SLOW_WAIT ? 100000000 : 1000000 };
		nanosleep(&ms, NULL);
	}
	if (left_running)
		printf("pvspin torture: %d of %d writers still leaving the lock %.1f s after the "
		       "signal, left running (each waits its turn to take it once more)\n",
		       t.nthreads - left, t.nthreads,
		       (double)(tool_now_ns() - drain_start) / 1e9);
	else if (verdict == TORTURE_DRAIN_STUCK)
		printf("!!! no writer left and no lock taken for %.1f s; %d of the %d remaining "
		       "writers runnable (patience %.1f s; %.1f s when all are runnable)\n",
		       (double)(tool_now_ns() - last_progress) / 1e9, runnable, t.nthreads - left,
		       (double)patience / 1e9, (double)cap / 1e9);
	else if (said_slow)
		printf("pvspin torture: the slow queue drained; the longest time without "
		       "progress was %.1f s (cap %.1f s)\n", (double)longest_quiet / 1e9,
		       (double)cap / 1e9);
	for (int i = 0; i < t.nthreads && !left_running; i++) {
		if (joined ? !joined[i] : pthread_join(t.writers[i].thread, NULL)) {
			if (!stuck++)
				printf("!!! writers that did not finish (stuck in the lock):");
			printf(" %d", i);
		}
	}
	free(joined);
	if (stuck) {
		printf("\n");
		if (!stalled)
			torture_dump(&t, "!!! ");
	}
	uint64_t stopped = tool_now_ns();

	/* Final report, as locktorture's at the end of the test: every
	 * acquisition, those the writers finish after the time is up and
	 * before they see the stop flag included (usually one each), so Total,
	 * Max and Min are those of the per-writer line; the rate is over the
	 * writers' whole run, from the start gate until the last one left
	 * (starting 1024 writers can take seconds: said below).  The checks
	 * below use the same counts. */
	snapshot(&t, &cur);
	struct torture_snapshot zero;
	memset(&zero, 0, sizeof(zero));
	double whole_s = (double)(stopped - start) / 1e9;
	print_stats(&t, &zero, &cur, whole_s, whole_s, "whole run");
	printf("per-writer acquisitions:");
	uint64_t max_wait = 0;
	int max_wait_id = 0;
	for (int i = 0; i < t.nthreads; i++) {
		printf(" %" PRIu64, __atomic_load_n(&t.writers[i].acquisitions, __ATOMIC_RELAXED));
		uint64_t mw = __atomic_load_n(&t.writers[i].max_wait_ns, __ATOMIC_RELAXED);
		if (mw > max_wait) {
			max_wait = mw;
			max_wait_id = i;
		}
	}
	printf("\nlongest completed wait: %.3f ms (writer %d)\n", (double)max_wait / 1e6,
	       max_wait_id);
	if (wd.os_delays)
		printf("lock free for %u ms or more while a waiter was runnable and not run, or "
		       "stopped by the injector, for most of it: %" PRIu64 " time%s (excused: not "
		       "a lost wakeup)\n", t.stall_ms,
		       wd.os_delays, wd.os_delays == 1 ? "" : "s");
	if (left_running)
		printf("the protected counter is not checked: writers still run\n");
	else if (!stuck && cur.total != t.cs_counter) {
		printf("!!! at the end: %" PRIu64 " acquisitions but the protected counter reads %"
		       PRIu64 ": updates lost to a concurrent holder\n", cur.total, t.cs_counter);
		__atomic_fetch_add(&t.failures, 1, __ATOMIC_RELAXED);
	}
	/* a run cut short before a second, or whose writers were left
	 * running, says nothing of fairness: many never started or finished */
	if (!(cut_short && (left_running || ran_s < 1.0)) && cur.max / 2 > cur.min)
		printf("??? starvation: max/2 > min (%" PRIu64 "/%" PRIu64 ")\n", cur.max, cur.min);

	/* A run ends within a second of its time, or says where the rest went. */
	double wall_s = (double)(tool_now_ns() - cmd_start) / 1e9;
	if (wall_s > ran_s + 1.0)
		printf("pvspin torture: the run took %.1f s for %.1f s of torture: %.1f s to start "
		       "the %d writer%s on %d CPU%s, %.1f s to stop them\n", wall_s, ran_s,
		       (double)(start - cmd_start) / 1e9, t.nthreads, t.nthreads == 1 ? "" : "s",
		       ncpus, ncpus == 1 ? "" : "s", (double)(stopped - start) / 1e9 - ran_s);

	bool failed = stalled || stuck || __atomic_load_n(&t.failures, __ATOMIC_RELAXED);
	/* A failure is a failure however the run ended; a run cut short
	 * without one has not passed: it did not run its time. */
	if (failed)
		printf("FAILURE\n");
	else if (cut_in_drain)   /* the time had run: not "after X s of X s" */
		printf("INTERRUPTED while the writers were leaving the lock after the %u s run: "
		       "no failure seen\n", t.seconds);
	else if (cut_short)
		printf("INTERRUPTED after %.1f s of %u s: no failure seen\n", ran_s, t.seconds);
	else
		printf("SUCCESS\n");
	pvspin_stdout_flush();
	if (stuck)
		_exit(1);   /* stuck writers cannot be joined */
	if (left_running)   /* they still use it; the signal ends the process */
		return failed ? 1 : 128 + cut_short;
	free(t.writers);
	return failed ? 1 : cut_short ? 128 + cut_short : 0;
}

/*
 * cmd_bench.c - `pvspin bench`: measure the pvspin lock kinds and their
 * peers with real threads on this machine (issue 2, "The main job").
 *
 * For every lock (--locks) and thread count (--threads) it runs a cell of
 * --duration-ms, --repeat times, and reports the repeat with the median
 * ops/s: acquisitions per second, fairness (Jain's index, max/min of
 * per-thread acquisitions), sampled lock() latency percentiles, the
 * pvspin lock events and the placement (a cache-line round trip between
 * two CPUs, probed before every repeat: bench/placement.h).  A plain
 * counter in the critical section checks mutual exclusion in every repeat
 * (exit 1 if broken).  docs/bench.md describes the method and every
 * output field.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "env_check.h"
#include "pvspin/tunables.h"
#include "bench/config.h"
#include "bench/hog.h"
#include "bench/output.h"
#include "bench/peers.h"
#include "bench/placement.h"
#include "bench/runner.h"
#include "bench/stats.h"
#include "bench/workload.h"
#include "option_error.h"
#include "output_check.h"
#include "stop_signal.h"

#define USAGE_EXIT 2

static void usage(FILE *f, unsigned ncpus)
{
	size_t n;
	const struct bench_lock *locks = bench_locks(&n);
	fprintf(f,
"usage: pvspin bench [OPTIONS]\n"
"Measure lock kinds with real threads on this machine: acquisitions/s, fairness,\n"
"lock() latency and pvspin lock events, one cell per lock and thread count.\n"
"\n"
"  --locks LIST         comma-separated locks (default: all below)\n"
"  --threads LIST       comma-separated thread counts, 1..%d\n"
"                       (default: 1,ncpus,2*ncpus,4*ncpus = 1,%u,%u,%u here);\n"
"                       in both lists an item given twice is measured once\n"
"  --cs-ns N            busy work inside the critical section, ns (default %d)\n"
"  --ncs-ns N           busy work outside it, ns (default %d)\n"
"  --cs-lines N         shared cache lines written per critical section,\n"
"                       1..1024, the first holds the check counter (default %d)\n"
"  --duration-ms N      length of one cell, ms (default %d; under %d warned: too\n"
"                       short to measure contention)\n"
"  --repeat N           repeats per cell; the median by ops/s is reported, the lower\n"
"                       of the two middle ones for an even N, a repeat during which\n"
"                       the bench was stopped (SIGSTOP) only if all were (default %d)\n"
"  --sample-every N     time every Nth lock() call for the latency (default %d)\n"
"  --spin-threshold N   pvqspinlock SPIN_THRESHOLD in PAUSE loops for this run\n"
"                       (default %u)\n"
"  --pin                pin thread i to CPU i mod ncpus (default: not pinned)\n"
"  --hog N              the noisy-neighbour case: N processes, 0..%d, keep a CPU\n"
"                       busy each beside every cell (default 0)\n"
"  --control            measure the default kind a second time in every round, as\n"
"                       the row KIND_control (the same code): the comparison then\n"
"                       gives the default kind over its control, how far two\n"
"                       measurements of one lock differ in this run (its noise)\n"
"  --no-placement       do not measure the cache-line round trip between two CPUs\n"
"                       before each repeat (the rtt column; default: measured;\n"
"                       '-' also where no probe of the cell finished in 5 ms)\n"
"  --json FILE          write the JSON report to FILE ('-' = stdout)\n"
"  --csv FILE           write one CSV row per cell to FILE ('-' = stdout)\n"
"  --plot FILE          draw ops/s against threads (FILE.png or FILE.svg, gnuplot;\n"
"                       a gnuplot not done in %u s is killed: no plot, exit 1)\n"
"  -h, --help           this text\n"
"\n"
"The table goes to stdout (to stderr when --json or --csv writes to stdout);\n"
"progress goes to stderr when it is a terminal.  After the table, the default\n"
"kind is compared with the best other lock at each thread count.  Exit status:\n"
"0 success, 1 a lock broke mutual exclusion or a report could not be written,\n"
"2 bad usage, a PVSPIN_* variable in the environment (PVSPIN_LOCK,\n"
"PVSPIN_POLICY, PVSPIN_STATS, PVSPIN_SPIN_THRESHOLD, ...) with a bad value\n"
"included, also where an option would replace it.  SIGINT, SIGTERM or SIGHUP\n"
"stops the run within 0.1 s, cutting the current cell short (its threads get at\n"
"most 1 s to finish their lock calls, then are left: with a thousand threads\n"
"spinning on 2 CPUs the process ends within about 2 s): the thread counts that\n"
"completed are reported, then the signal ends the process.\n"
"\nlocks:\n",
		BENCH_MAX_THREADS, ncpus, 2 * ncpus, 4 * ncpus, BENCH_DEFAULT_CS_NS,
		BENCH_DEFAULT_NCS_NS, BENCH_DEFAULT_CS_LINES, BENCH_DEFAULT_DURATION_MS,
		BENCH_MIN_USEFUL_DURATION_MS, BENCH_DEFAULT_REPEAT, BENCH_DEFAULT_SAMPLE_EVERY, PVSPIN_DEFAULT_SPIN_THRESHOLD,
		BENCH_MAX_HOGS, BENCH_PLOT_WAIT_MS / 1000);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-23s %s\n", locks[i].name, locks[i].what);
}

/* A usage error about an option's value or a combination of them: one
 * line, which says what to give instead (no "--help lists the options"
 * line: that follows an unknown option or a stray operand only, in every
 * subcommand, option_error.h).  Returns USAGE_EXIT. */
__attribute__((format(printf, 1, 2)))
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("pvspin bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	return USAGE_EXIT;
}

/* One file per report: a second, different --json / --csv / --plot is a
 * mistake, not the one to keep (tool_option_once(), as every option that
 * takes one value); so is an empty file name (a value of the command
 * line, such as --json "$OUT" with OUT unset, not a file that cannot be
 * written: exit 2, not 1).  Returns 0 or USAGE_EXIT. */
static int set_report(const char **path, const char *what, const char *opt, const char *arg)
{
	if (!*arg)
		return tool_empty_name_error("pvspin bench", opt,
					     strcmp(opt, "--plot") ? "a FILE, or - for standard output"
								   : "FILE.png or FILE.svg");
	return tool_option_once("pvspin bench", what, opt, path, arg);
}

/* The options that take one value: the value each was given, for
 * tool_option_once() (a second, different value is refused, the same
 * one again accepted).  The report files are the config's own paths. */
struct bench_given {
	const char *locks, *threads, *cs_ns, *ncs_ns, *cs_lines, *duration, *repeat, *sample,
		*spin, *hog;
};

/* Parse `s`, the value of the one-value option `opt` (kept in *given),
 * a whole decimal number in [lo, hi].  Returns 0, or prints an error
 * naming the option, the value and the valid range, or the two values
 * given (`what`), and returns USAGE_EXIT (tool_option_number_once(), the
 * words of every subcommand). */
static int parse_num(const char *what, const char *opt, const char **given, const char *s,
		     uint64_t lo, uint64_t hi, uint64_t *out)
{
	return tool_option_number_once("pvspin bench", what, opt, given, s, lo, hi, out);
}

/* The lists split by strsep(), not strtok_r(): an empty item ("1,,2",
 * "1,2,", ",1", "") is an item, refused as any other in the words of
 * every value ("--threads '': not an integer from 1 to 1024"), where
 * strtok_r() would skip it. */
static int parse_locks(const char *arg, struct bench_config *c)
{
	size_t n;
	bench_locks(&n);
	char *copy = strdup(arg), *rest = copy;
	free(c->locks);   /* the same --locks given again */
	c->locks = calloc(n, sizeof(*c->locks));
	c->nlocks = 0;
	int ret = 0;
	if (!copy || !c->locks) {
		fprintf(stderr, "pvspin bench: out of memory\n");
		ret = 1;
		goto out;
	}
	for (char *t; (t = strsep(&rest, ","));) {
		const struct bench_lock *l = bench_lock_find(t);
		if (!l) {
			ret = tool_value_error("pvspin bench", "--locks", t,
					       bench_lock_is_unavailable(t) ? BENCH_LOCK_NOT_BUILT
									    : BENCH_NOT_A_LOCK,
					       bench_lock_names());
			goto out;
		}
		int dup = 0;
		for (size_t i = 0; i < c->nlocks; i++)
			dup |= c->locks[i] == l;
		if (!dup)
			c->locks[c->nlocks++] = l;
	}
out:
	free(copy);
	return ret;
}

static int add_threads(struct bench_config *c, unsigned t)
{
	for (size_t i = 0; i < c->nthreads; i++)
		if (c->threads[i] == t)
			return 0;
	unsigned *p = realloc(c->threads, (c->nthreads + 1) * sizeof(*p));
	if (!p)
		return -1;
	c->threads = p;
	c->threads[c->nthreads++] = t;
	return 0;
}

static int parse_threads(const char *arg, struct bench_config *c)
{
	char *copy = strdup(arg), *rest = copy;
	int ret = 0;
	free(c->threads);
	c->threads = NULL;
	c->nthreads = 0;
	if (!copy)
		return 1;
	for (char *t; !ret && (t = strsep(&rest, ","));) {
		uint64_t v;
		ret = tool_option_number("pvspin bench", "--threads", t, 1, BENCH_MAX_THREADS, &v);
		if (!ret && add_threads(c, (unsigned)v))
			ret = 1;
	}
	free(copy);
	return ret;
}

enum {
	OPT_LOCKS = 256, OPT_THREADS, OPT_CS_NS, OPT_NCS_NS, OPT_CS_LINES, OPT_DURATION,
	OPT_REPEAT, OPT_SAMPLE, OPT_SPIN, OPT_PIN, OPT_HOG, OPT_CONTROL, OPT_NO_PLACEMENT,
	OPT_JSON, OPT_CSV, OPT_PLOT,
};

static const struct option options[] = {
	{ "locks", required_argument, NULL, OPT_LOCKS },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "cs-ns", required_argument, NULL, OPT_CS_NS },
	{ "ncs-ns", required_argument, NULL, OPT_NCS_NS },
	{ "cs-lines", required_argument, NULL, OPT_CS_LINES },
	{ "duration-ms", required_argument, NULL, OPT_DURATION },
	{ "repeat", required_argument, NULL, OPT_REPEAT },
	{ "sample-every", required_argument, NULL, OPT_SAMPLE },
	{ "spin-threshold", required_argument, NULL, OPT_SPIN },
	{ "pin", no_argument, NULL, OPT_PIN },
	{ "hog", required_argument, NULL, OPT_HOG },
	{ "control", no_argument, NULL, OPT_CONTROL },
	{ "no-placement", no_argument, NULL, OPT_NO_PLACEMENT },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Does the run measure pvqspinlock, the one lock that reads
 * PVSPIN_TUNE_SPIN_THRESHOLD? */
static bool has_pv_lock(const struct bench_config *c)
{
	for (size_t i = 0; i < c->nlocks; i++)
		if (c->locks[i]->kind == PVSPIN_KIND_PVQSPINLOCK)
			return true;
	return false;
}

/* --control: the default kind (PVSPIN_LOCK / PVSPIN_POLICY, checked
 * before) again, as c->control_lock named KIND_control, last in c->locks,
 * so that each round measures it twice (an A/A comparison: the same code,
 * another place in the round).  Returns 0, or -1 where c->locks does not
 * hold the default kind, or ENOMEM. */
static int add_control(struct bench_config *c)
{
	const char *kind = pvspin_kind_name(pvspin_default_kind());
	const struct bench_lock *of = NULL;
	for (size_t i = 0; i < c->nlocks && !of; i++)
		if (!strcmp(c->locks[i]->name, kind)) {
			of = c->locks[i];
			c->control_of_index = i;
		}
	if (!of)
		return -1;
	const struct bench_lock **more = realloc(c->locks, (c->nlocks + 1) * sizeof(*more));
	if (!more)
		return ENOMEM;
	snprintf(c->control_name, sizeof(c->control_name), "%s_control", kind);
	c->control_lock = *of;
	c->control_lock.name = c->control_name;
	c->control_lock.what = "the default kind again (--control)";
	c->control_lock.control_of = of;
	c->locks = more;
	c->locks[c->nlocks++] = &c->control_lock;
	return 0;
}

/* Fill *c from argv.  Returns -1 to go on, else an exit status. */
static int parse_options(int argc, char **argv, struct bench_config *c)
{
	uint64_t v;
	int ret, opt;
	struct bench_given given = { 0 };   /* given.locks: --locks as given */

	c->cs_ns = BENCH_DEFAULT_CS_NS;
	c->ncs_ns = BENCH_DEFAULT_NCS_NS;
	c->cs_lines = BENCH_DEFAULT_CS_LINES;
	c->duration_ms = BENCH_DEFAULT_DURATION_MS;
	c->repeat = BENCH_DEFAULT_REPEAT;
	c->sample_every = BENCH_DEFAULT_SAMPLE_EVERY;

	/* -h / --help anywhere: the help, whatever the other values */
	ret = tool_help_scan("pvspin bench", argc, argv, ":h", options);
	if (ret == 1)
		usage(stdout, c->machine.ncpus);
	if (ret)
		return ret == 1 ? 0 : ret;
	while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		ret = 0;
		switch (opt) {
		case OPT_LOCKS:
			ret = tool_option_once("pvspin bench", "lock lists", "--locks", &given.locks,
					       optarg);
			if (!ret)
				ret = parse_locks(optarg, c);
			break;
		case OPT_THREADS:
			ret = tool_option_once("pvspin bench", "thread-count lists", "--threads",
					       &given.threads, optarg);
			if (!ret)
				ret = parse_threads(optarg, c);
			break;
		case OPT_CS_NS:
			ret = parse_num("critical-section times", "--cs-ns", &given.cs_ns, optarg, 0,
					1000000000, &c->cs_ns);
			break;
		case OPT_NCS_NS:
			ret = parse_num("times outside the critical section", "--ncs-ns",
					&given.ncs_ns, optarg, 0, 1000000000, &c->ncs_ns);
			break;
		case OPT_CS_LINES:
			if (!(ret = parse_num("shared-line counts", "--cs-lines", &given.cs_lines,
					      optarg, 1, 1024, &v)))
				c->cs_lines = (unsigned)v;
			break;
		case OPT_DURATION:
			if (!(ret = parse_num("cell lengths", "--duration-ms", &given.duration,
					      optarg, 1, 3600000, &v)))
				c->duration_ms = (unsigned)v;
			break;
		case OPT_REPEAT:
			if (!(ret = parse_num("repeat counts", "--repeat", &given.repeat, optarg, 1,
					      1000, &v)))
				c->repeat = (unsigned)v;
			break;
		case OPT_SAMPLE:
			if (!(ret = parse_num("sampling intervals", "--sample-every", &given.sample,
					      optarg, 1, 1u << 30, &v)))
				c->sample_every = (uint32_t)v;
			break;
		case OPT_SPIN:
			if (!(ret = parse_num("spin thresholds", "--spin-threshold", &given.spin,
					      optarg, 1, UINT32_MAX, &v))) {
				c->spin_threshold = (uint32_t)v;
				c->spin_threshold_set = true;
			}
			break;
		case OPT_PIN:
			c->pin = true;
			break;
		case OPT_HOG:
			if (!(ret = parse_num("hog counts", "--hog", &given.hog, optarg, 0,
					      BENCH_MAX_HOGS, &v)))
				c->hogs = (unsigned)v;
			break;
		case OPT_CONTROL:
			c->control = true;
			break;
		case OPT_NO_PLACEMENT:
			c->no_placement = true;
			break;
		case OPT_JSON:
			ret = set_report(&c->json_path, "JSON reports", "--json", optarg);
			break;
		case OPT_CSV:
			ret = set_report(&c->csv_path, "CSV reports", "--csv", optarg);
			break;
		case OPT_PLOT: {
			ret = set_report(&c->plot_path, "plots", "--plot", optarg);
			/* what gnuplot cannot take, refused before the run */
			const char *problem = ret ? NULL : bench_plot_name_problem(optarg);
			if (problem)
				ret = tool_value_error("pvspin bench", "--plot", optarg, problem, NULL);
			break;
		}
		default:
			ret = tool_option_error("pvspin bench", opt, argv);
			break;
		}
		if (ret)
			return ret;
	}
	if (optind < argc)
		return tool_operand_error("pvspin bench", argv[optind]);
	/* The locks measured here read the PVSPIN_* tunables, and
	 * PVSPIN_LOCK / PVSPIN_POLICY pick the footer's default kind: a bad
	 * one fails now (exit 2, named by this command), as in `pvspin run`,
	 * instead of a run on the default that the library would only say it
	 * ignored; so does a bad PVSPIN_STATS, as in run (env_check.h). */
	if (tool_env_check("pvspin bench"))
		return USAGE_EXIT;
	if (c->plot_path && bench_plot_wait_ms(&c->plot_wait_ms))
		return USAGE_EXIT;
	/* a path naming stdout's file (/dev/stdout, ...) is "-": the table
	 * then goes to stderr, and two reports there are refused below */
	if (c->json_path && tool_output_is_stdout(c->json_path))
		c->json_path = "-";
	if (c->csv_path && tool_output_is_stdout(c->csv_path))
		c->csv_path = "-";
	if (c->json_path && c->csv_path && !strcmp(c->json_path, "-") && !strcmp(c->csv_path, "-"))
		return usage_error("--json and --csv cannot both write to stdout");
	if (bench_output_same(c->json_path, c->csv_path))
		return usage_error("--json and --csv name the same file '%s'", c->csv_path);
	if (bench_output_same(c->json_path, c->plot_path))
		return usage_error("--json and --plot name the same file '%s'", c->plot_path);
	if (bench_output_same(c->csv_path, c->plot_path))
		return usage_error("--csv and --plot name the same file '%s'", c->plot_path);

	if (c->spin_threshold_set && c->locks && !has_pv_lock(c)) {
		/* Only pvqspinlock's halt path reads it; a value the run
		 * silently ignores would mislead (the header would claim it). */
		return usage_error("--spin-threshold applies only to the lock that halts, "
				   "pvqspinlock, not to --locks %s (valid: --locks with "
				   "pvqspinlock in it)", given.locks);
	}
	if (!c->locks) {
		size_t n;
		const struct bench_lock *all = bench_locks(&n);
		c->locks = calloc(n, sizeof(*c->locks));
		if (!c->locks)
			return 1;
		for (size_t i = 0; i < n; i++)
			c->locks[i] = &all[i];
		c->nlocks = n;
	}
	ret = c->control ? add_control(c) : 0;
	if (ret == ENOMEM) {
		fprintf(stderr, "pvspin bench: out of memory\n");
		return 1;
	}
	if (ret) {
		/* where the default kind came from (pvspin_default_kind():
		 * PVSPIN_LOCK, else PVSPIN_POLICY, else the machine's policy),
		 * as a user who set one may have forgotten it */
		const char *lock = getenv("PVSPIN_LOCK"), *policy = getenv("PVSPIN_POLICY");
		const char *from = lock && *lock ? " (PVSPIN_LOCK)"
				   : policy && *policy ? " (PVSPIN_POLICY)" : "";
		const char *kind = pvspin_kind_name(pvspin_default_kind());
		return usage_error("--control measures the default kind, %s%s, a second time: "
				   "--locks %s does not include it (valid: --locks with %s in it)",
				   kind, from, given.locks ? given.locks : "", kind);
	}
	if (!c->threads) {
		unsigned n = c->machine.ncpus;
		if (add_threads(c, 1) || add_threads(c, n) || add_threads(c, 2 * n) ||
		    add_threads(c, 4 * n))
			return 1;
	}
	if (c->spin_threshold_set) {
		if (pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, c->spin_threshold)) {
			return usage_error("--spin-threshold: %u is out of range (the lock "
					   "library refused it)", c->spin_threshold);
		}
	}
	c->spin_threshold = pvspin_tunable_get(PVSPIN_TUNE_SPIN_THRESHOLD);
	return -1;
}

static size_t samples_per_thread(unsigned threads)
{
	size_t s = BENCH_SAMPLES_PER_CELL / threads;
	if (s > BENCH_SAMPLES_PER_THREAD_MAX)
		s = BENCH_SAMPLES_PER_THREAD_MAX;
	if (s < BENCH_SAMPLES_PER_THREAD_MIN)
		s = BENCH_SAMPLES_PER_THREAD_MIN;
	return s;
}

/* The cell spec of one row. */
static struct bench_cell_spec row_spec(const struct bench_config *c, const struct bench_row *row)
{
	struct bench_cell_spec spec = {
		.lock = row->lock,
		.threads = row->threads,
		.cs_ns = c->cs_ns,
		.ncs_ns = c->ncs_ns,
		.cs_loops = bench_workload_loops(&c->workload, c->cs_ns),
		.ncs_loops = bench_workload_loops(&c->workload, c->ncs_ns),
		.cs_lines = c->cs_lines,
		.duration_ms = c->duration_ms,
		.sample_every = c->sample_every,
		.samples_per_thread = samples_per_thread(row->threads),
		.pin = c->pin,
	};
	return spec;
}

/* SIGCONT's count: a repeat during which it moved had the bench stopped
 * (SIGSTOP, Ctrl-Z), and its ops/s count the stopped time (helper-61:
 * 34.48 k ops/s for a cell that does 5-11 M, said by no line). */
static volatile sig_atomic_t bench_continued;

static void on_sigcont(int sig)
{
	(void)sig;
	bench_continued++;
}

/* Run repeat k of one row into res[k] (row->stopped[k] says whether the
 * bench was stopped meanwhile).  Returns 0, or 1 if the cell could
 * not run.  A cell cut short by a stop signal is discarded by the caller
 * (tool_stop_signal()), also one whose threads were left running. */
static int run_repeat(const struct bench_config *c, struct bench_row *row,
		      struct bench_cell_result *res, unsigned k, unsigned cell,
		      unsigned ncells, int progress)
{
	struct bench_cell_spec spec = row_spec(c, row);
	if (progress) {
		fprintf(stderr, "\r\033[K[%u/%u] %s x%u, repeat %u/%u", cell + 1, ncells,
			row->lock->name, row->threads, k + 1, c->repeat);
		fflush(stderr);
	}
	row->samples_per_thread = spec.samples_per_thread;
	/* the placement right then: ~1 ms, while no cell thread runs */
	row->rtt_repeats[k] = c->no_placement ? NAN : bench_placement_probe();
	spec.seed = (uint64_t)cell * 1000 + k;
	sig_atomic_t continued = bench_continued;
	int r = bench_run_cell(&spec, &res[k]);
	if (r)
		return r < 0;   /* 1: its threads left to the stop signal */
	row->stopped[k] = bench_continued != continued;
	if (!res[k].exclusion_ok) {
		fprintf(stderr, "%spvspin bench: MUTUAL EXCLUSION FAILED: %s x%u repeat %u: "
			"counter %" PRIu64 " != %" PRIu64 " acquisitions\n",
			progress ? "\r\033[K" : "", row->lock->name, row->threads, k + 1,
			res[k].counter, res[k].acquisitions);
		row->exclusion_ok = false;
	}
	row->ops_repeats[k] = res[k].ops_per_s;
	return 0;
}

int pvspin_cmd_bench(int argc, char **argv)
{
	struct bench_config c = { 0 };
	bench_machine_probe(&c.machine);
	int ret = parse_options(argc, argv, &c);
	if (ret >= 0)
		goto out;
	ret = 0;
	/* The default kind (the footer's) from PVSPIN_LOCK / PVSPIN_POLICY,
	 * resolved before minutes of measuring; parse_options() refused a
	 * bad value (tool_env_check()). */
	const char *default_kind = pvspin_kind_name(pvspin_default_kind());
	if (c.plot_path && !bench_plot_have_gnuplot()) {
		fprintf(stderr, "pvspin bench: --plot needs gnuplot, which is not installed "
			"(apt-get install gnuplot-nox)\n");
		ret = 1;
		goto out;
	}
	/* the reports must be writable before minutes of measuring, not after */
	if ((c.json_path && bench_output_check("--json", c.json_path)) ||
	    (c.csv_path && bench_output_check("--csv", c.csv_path)) ||
	    (c.plot_path && (bench_output_check("--plot", c.plot_path) ||
			     bench_plot_script_check()))) {
		ret = 1;
		goto out;
	}
	/* run as asked, but say what the figures will be worth, once, before
	 * measuring: the table's header does not show the cell length */
	if (c.duration_ms < BENCH_MIN_USEFUL_DURATION_MS)
		fprintf(stderr, "pvspin bench: warning: --duration-ms %u is under %d ms: a cell that "
			"short can end before all its threads run, so it measures next to no "
			"contention or preemption\n", c.duration_ms, BENCH_MIN_USEFUL_DURATION_MS);

	/* A table reader that goes away (`| head`) must not take a report
	 * file with it: without SIGPIPE the table's writes fail (EPIPE),
	 * the run and its files complete, and main() reports the pipe. */
	bool report_files = (c.json_path && strcmp(c.json_path, "-")) ||
			    (c.csv_path && strcmp(c.csv_path, "-")) || c.plot_path;
	if (report_files)
		signal(SIGPIPE, SIG_IGN);
	/* SIGINT / SIGTERM / SIGHUP: the run stops, cutting the cell in
	 * progress short (bench_run_cell looks every 0.1 s and waits 1 s at
	 * most for the cell's threads), reports what completed, then ends by
	 * the signal */
	tool_stop_signals_catch();

	FILE *table = (c.json_path && !strcmp(c.json_path, "-")) ||
		      (c.csv_path && !strcmp(c.csv_path, "-")) ? stderr : stdout;
	int progress = isatty(STDERR_FILENO);
	if (progress) {
		fprintf(stderr, "calibrating the busy loop...");
		fflush(stderr);
	}
	bench_workload_calibrate(&c.workload);
	if (progress)
		fputs("\r\033[K", stderr);

	/*
	 * Rows are lock-major (the table's order), but cells run in rounds:
	 * for each thread count, repeat k of every lock, then repeat k+1.  A
	 * drift of the machine (a noisy neighbour, steal time) then hits every
	 * lock alike, so the ratios between locks in one run stay meaningful.
	 * Round k starts at the k-th lock (bench_round_lock()), so that no
	 * lock holds the same place in every round.
	 */
	size_t nrows = c.nlocks * c.nthreads;
	struct bench_row *rows = calloc(nrows, sizeof(*rows));
	struct bench_row *report = calloc(nrows, sizeof(*report));   /* shallow copies */
	struct bench_cell_result **res = calloc(nrows, sizeof(*res));
	c.round_loops_per_ns = calloc(c.nthreads * c.repeat, sizeof(double));
	struct bench_hogs hogs = { 0 };
	size_t threads_done = 0;   /* thread counts whose every cell ran */
	if (!rows || !report || !res || !c.round_loops_per_ns) {
		fprintf(stderr, "pvspin bench: out of memory\n");
		free(rows);
		free(report);
		free(res);
		free(c.round_loops_per_ns);
		ret = 1;
		goto out;
	}
	for (size_t l = 0; l < c.nlocks; l++) {
		for (size_t t = 0; t < c.nthreads; t++) {
			struct bench_row *row = &rows[l * c.nthreads + t];
			row->lock = c.locks[l];
			row->threads = c.threads[t];
			row->exclusion_ok = true;
			row->nrepeats = c.repeat;
			row->ops_repeats = calloc(c.repeat, sizeof(double));
			row->rtt_repeats = calloc(c.repeat, sizeof(double));
			row->stopped = calloc(c.repeat, sizeof(bool));
			res[l * c.nthreads + t] = calloc(c.repeat, sizeof(**res));
			if (!row->ops_repeats || !row->rtt_repeats || !row->stopped ||
			    !res[l * c.nthreads + t]) {
				fprintf(stderr, "pvspin bench: out of memory\n");
				ret = 1;
				goto free_rows;
			}
		}
	}
	int broken = 0;
	unsigned cell = 0, ncells = (unsigned)(nrows * c.repeat);
	struct sigaction cont = { .sa_handler = on_sigcont, .sa_flags = SA_RESTART };
	sigemptyset(&cont.sa_mask);
	sigaction(SIGCONT, &cont, NULL);
	if (bench_hogs_start(&hogs, c.hogs)) {
		ret = 1;
		goto free_rows;
	}
	/* a cell that could not run (threads, memory: said by run_repeat)
	 * ends the run as a signal does: the thread counts already complete
	 * are reported, and the exit status is 1 */
	bool cell_failed = false;
	/* --control: the default kind and its control (last) trade places
	 * in every other round; without it nothing is paired */
	size_t pair_a = c.control ? c.control_of_index : c.nlocks;
	size_t pair_b = c.control ? c.nlocks - 1 : c.nlocks;
	for (size_t t = 0; t < c.nthreads && !tool_stop_signal() && !cell_failed; t++) {
		bool complete = true;
		for (unsigned k = 0; k < c.repeat && complete; k++) {
			/* the host's speed moves within minutes: keep the
			 * fastest rate seen (bench/workload.h) */
			bench_workload_recheck(&c.workload);
			c.round_loops_per_ns[t * c.repeat + k] = c.workload.loops_per_ns;
			for (size_t j = 0; j < c.nlocks && complete; j++, cell++) {
				size_t i = bench_round_lock_pair(k, j, c.nlocks, pair_a, pair_b) *
						   c.nthreads + t;
				if (tool_stop_signal())
					complete = false;
				else if (run_repeat(&c, &rows[i], res[i], k, cell, ncells, progress)) {
					ret = 1;
					cell_failed = true;
					complete = false;
				} else if (tool_stop_signal()) {
					complete = false;   /* the cell was cut short */
				}
			}
		}
		threads_done += complete;
	}
	/* the calibration note names reported rounds only */
	for (size_t i = threads_done * c.repeat; i < c.nthreads * c.repeat; i++)
		c.round_loops_per_ns[i] = 0;
	bench_hogs_stop(&hogs);
	c.interrupted = tool_stop_signal() != 0 || cell_failed;
	if (progress)
		fputs("\r\033[K", stderr);
	/* The table, header and rows, only now: what the run said on stderr
	 * (a cell that could not run, a broken mutual exclusion) then comes
	 * before it, where on one terminal it came between the header and
	 * the rows.  The first failed write to it: its errno, said at the
	 * end. */
	int table_errno = 0;
	bench_table_header(table, &c);
	if (ferror(table))
		table_errno = errno;
	/* The complete rows, in table order (lock-major): all of them, or
	 * after a signal those of the thread counts that completed. */
	size_t done = 0;
	for (size_t i = 0; i < nrows; i++) {
		if (i % c.nthreads >= threads_done)
			continue;
		/* a stopped repeat's ops/s count the stopped time: it is not
		 * the one reported while another ran (with two repeats the
		 * lower median was that one) */
		rows[i].r = res[i][bench_median_index_except(rows[i].ops_repeats, rows[i].stopped,
							     c.repeat)];
		rows[i].line_rtt_ns = bench_median_finite(rows[i].rtt_repeats, c.repeat);
		report[done++] = rows[i];
	}
	for (size_t i = 0; i < done; i++) {
		bench_table_row(table, &report[i]);
		broken |= !report[i].exclusion_ok;
	}
	bench_table_calibration_note(table, &c);
	bench_table_stopped_note(table, &report[0], done);
	bench_table_versus(table, &report[0], done, default_kind);
	bench_table_control(table, &report[0], done);
	bench_table_versus_by_placement(table, &report[0], done, default_kind);
	if (ferror(table) && !table_errno)
		table_errno = errno;
	if (c.json_path && bench_write_json(c.json_path, &c, report, done))
		ret = 1;
	if (c.csv_path && bench_write_csv(c.csv_path, &c, report, done))
		ret = 1;
	if (c.plot_path && done && bench_write_plot(c.plot_path, &c, report, done))
		ret = 1;
	else if (c.plot_path && !done)   /* said: a file there is an older run's */
		fprintf(stderr, "pvspin bench: no plot written (--plot '%s': no thread count "
			"completed)\n", c.plot_path);
	if (cell_failed && threads_done)
		fprintf(stderr, "pvspin bench: stopped after %zu of %zu thread counts: a cell could "
			"not run (above); the thread counts before it are reported\n",
			threads_done, c.nthreads);
	else if (cell_failed)
		fprintf(stderr, "pvspin bench: a cell of the first thread count could not run "
			"(above): nothing was measured\n");
	if (broken) {
		fprintf(stderr, "pvspin bench: FAILURE: a lock broke mutual exclusion (see above)\n");
		ret = 1;
	}
	if (ferror(table)) {
		fprintf(stderr, "pvspin bench: cannot write the table to standard %s: %s%s\n",
			table == stdout ? "output" : "error",
			table_errno ? strerror(table_errno) : "a write failed",
			report_files && !ret ? " (the report files were written)" : "");
		/* said here, once: main() need not say it again */
		__fpurge(table);
		clearerr(table);
		ret = 1;
	}
free_rows:
	bench_hogs_stop(&hogs);
	for (size_t i = 0; i < nrows; i++) {
		free(rows[i].ops_repeats);
		free(rows[i].rtt_repeats);
		free(rows[i].stopped);
		free(res[i]);
	}
	free(rows);
	free(report);
	free(res);
	free(c.round_loops_per_ns);
	if (tool_stop_signal()) {
		/* the reports are out: end by the signal, as the caller asked */
		fprintf(stderr, "pvspin bench: interrupted by %s after %zu of %zu thread counts\n",
			tool_stop_signal_name(tool_stop_signal()), threads_done, c.nthreads);
		tool_stop_signal_reraise();
	}
out:
	free(c.locks);
	free(c.threads);
	return ret;
}

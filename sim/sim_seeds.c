/*
 * sim_seeds.c - `pvspin sim --seeds N`: one configuration over N seeds
 * (seed, seed+1, ..., seed+N-1, modulo 2^64), run in parallel child
 * processes (fork, at most as many at once as the process may use CPUs),
 * and the median and min-max of every numeric figure of the results, in
 * JSON and text.  A simulator figure from one seed is an anecdote; its
 * spread over seeds says how far to trust it.
 *
 * Each child runs sim_run() for its seed and writes the result document to
 * an unlinked temporary file the parent opened before the fork; the parent
 * reads it after the child has exited.  Nothing is shared otherwise, so a
 * seed's document is byte-identical to a run of that seed alone (apart
 * from the wall-clock fields), however many run at once.
 *
 * A stop signal (tool_stop_signal()) must reach the parent wherever it is:
 * it stays blocked except inside sigsuspend(), which the parent enters
 * only when it has no child to reap and has seen no signal, so one that
 * comes between that check and the wait is pending and ends the wait at
 * once (a plain wait() could sleep through it until every seed finished).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "sim.h"

/* ---- the summary: median / min / max of every number ------------------ */

static json_t *summarize(json_t *const *v, size_t n);

static int cmp_int(const void *a, const void *b)
{
	json_int_t x = *(const json_int_t *)a, y = *(const json_int_t *)b;
	return (x > y) - (x < y);
}

/* Median / min / max of n JSON numbers.  When all are integers, min and
 * max are integers, and so is the median of an odd count; the median of an
 * even count is the mean of the middle two (a real). */
static json_t *number_summary(json_t *const *v, size_t n)
{
	json_t *o = json_object();
	bool ints = true;
	for (size_t i = 0; i < n; i++)
		ints &= json_is_integer(v[i]);
	if (ints) {
		json_int_t *k = malloc(n * sizeof(*k));
		if (!k)
			return NULL;
		for (size_t i = 0; i < n; i++)
			k[i] = json_integer_value(v[i]);
		qsort(k, n, sizeof(*k), cmp_int);
		json_object_set_new(o, "median", n % 2 ? json_integer(k[n / 2])
			: json_real(((double)k[n / 2 - 1] + (double)k[n / 2]) / 2));
		json_object_set_new(o, "min", json_integer(k[0]));
		json_object_set_new(o, "max", json_integer(k[n - 1]));
		free(k);
		return o;
	}
	double *x = malloc(n * sizeof(*x));
	if (!x)
		return NULL;
	for (size_t i = 0; i < n; i++)
		x[i] = json_number_value(v[i]);
	gsl_sort(x, 1, n);
	json_object_set_new(o, "median", json_real(gsl_stats_median_from_sorted_data(x, 1, n)));
	json_object_set_new(o, "min", json_real(x[0]));
	json_object_set_new(o, "max", json_real(x[n - 1]));
	free(x);
	return o;
}

/* Whether all n values are objects / arrays of one size / numbers. */
static bool all_of(json_t *const *v, size_t n, int (*is)(const json_t *))
{
	for (size_t i = 0; i < n; i++)
		if (!is(v[i]))
			return false;
	return true;
}

static int is_object(const json_t *j) { return json_is_object(j); }
static int is_array(const json_t *j) { return json_is_array(j); }
static int is_number(const json_t *j) { return json_is_number(j); }

/* {"values": [...]}: a leaf whose seeds disagree and that is not a number
 * in each of them (a "stop", a null completion in some seeds). */
static json_t *values_of(json_t *const *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append(a, v[i] ? v[i] : json_null());
	json_t *o = json_object();
	json_object_set_new(o, "values", a);
	return o;
}

/* The same member (or element) of n documents, summarised. */
static json_t *summarize(json_t *const *v, size_t n)
{
	json_t **sub = calloc(n ? n : 1, sizeof(*sub));
	json_t *out = NULL;
	if (!sub)
		return NULL;
	if (all_of(v, n, is_number)) {
		out = number_summary(v, n);
	} else if (all_of(v, n, is_object)) {
		/* the members of the first document, in its order */
		const char *k;
		json_t *x;
		out = json_object();
		json_object_foreach(v[0], k, x) {
			for (size_t i = 0; i < n; i++)
				sub[i] = json_object_get(v[i], k);
			bool missing = false;
			for (size_t i = 0; i < n; i++)
				missing |= !sub[i];
			json_object_set_new(out, k, missing ? values_of(sub, n) : summarize(sub, n));
		}
	} else if (all_of(v, n, is_array)) {
		size_t len = json_array_size(v[0]);
		bool same = true;
		for (size_t i = 1; i < n; i++)
			same &= json_array_size(v[i]) == len;
		if (same) {
			out = json_array();
			for (size_t e = 0; e < len; e++) {
				for (size_t i = 0; i < n; i++)
					sub[i] = json_array_get(v[i], e);
				json_array_append_new(out, summarize(sub, n));
			}
		} else {
			out = values_of(v, n);
		}
	} else {
		bool same = true;
		for (size_t i = 1; i < n; i++)
			same &= json_equal(v[i], v[0]);
		out = same ? json_incref(v[0]) : values_of(v, n);
	}
	free(sub);
	return out;
}

json_t *sim_seeds_summary(json_t *const *runs, size_t n)
{
	if (!n)
		return json_object();
	json_t **body = calloc(n, sizeof(*body));
	if (!body)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		/* everything but the configuration, which differs only in "seed" */
		body[i] = json_copy(runs[i]);
		json_object_del(body[i], "config");
	}
	json_t *s = summarize(body, n);
	for (size_t i = 0; i < n; i++)
		json_decref(body[i]);
	free(body);
	return s;
}

/* ---- running the seeds ------------------------------------------------ */

unsigned sim_usable_cpus(void)
{
	cpu_set_t set;
	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/* SIGCHLD's handler: nothing to do but end the parent's sigsuspend() (a
 * SIGCHLD ignored or left at SIG_DFL would not). */
static void on_child(int sig)
{
	(void)sig;
}

/* What the parent changed for its wait, to give back: its signal mask and
 * SIGCHLD's disposition. */
struct seeds_signals {
	sigset_t mask;
	struct sigaction chld;
};

/* Block the stop signals and SIGCHLD (and catch SIGCHLD) for the wait;
 * the original mask and SIGCHLD's disposition go to *orig, the mask to
 * wait in (the original one, with SIGCHLD taken out) to *wait_mask. */
static void seeds_signals_take(struct seeds_signals *orig, sigset_t *wait_mask)
{
	struct sigaction chld = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };
	sigset_t block;
	sigemptyset(&chld.sa_mask);
	tool_stop_signals(&block);
	sigaddset(&block, SIGCHLD);
	sigaction(SIGCHLD, &chld, &orig->chld);
	sigprocmask(SIG_BLOCK, &block, &orig->mask);
	*wait_mask = orig->mask;
	sigdelset(wait_mask, SIGCHLD);
}

/* Undo seeds_signals_take(), in the parent or in a child.  A stop signal
 * that came meanwhile is pending and is taken now, by its handler. */
static void seeds_signals_give_back(const struct seeds_signals *orig)
{
	sigaction(SIGCHLD, &orig->chld, NULL);
	sigprocmask(SIG_SETMASK, &orig->mask, NULL);
}

/* The child for seed `seed`: run, write the document to f, exit with
 * sim_run()'s status (0 clean, 1 stopped; 2 set-up failure, 3 the document
 * could not be written).  Never returns. */
static void seed_child(const struct sim_config *c, uint64_t seed, FILE *f, pid_t parent,
		       const struct seeds_signals *orig)
{
	/* A parent that dies (SIGTERM, SIGKILL: anything but a signal to the
	 * whole process group) takes its runs with it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)   /* it died before the prctl */
		_exit(4);
	/* The parent's signals as they were before its wait: the stop
	 * signals keep their handler (a forwarded one stops this run at its
	 * next event, with its results) and are unblocked again. */
	seeds_signals_give_back(orig);
	struct sim_config cc = *c;
	struct sim_result r;
	cc.seed = seed;
	int rc = sim_run(&cc, &r);
	if (rc < 0)
		_exit(2);
	/* 17 digits: the parent reads back exactly the doubles of the run */
	if (json_dumpf(r.json, f, JSON_COMPACT | JSON_REAL_PRECISION(17)) || fflush(f))
		_exit(3);
	_exit(rc ? 1 : 0);
}

int sim_run_seeds(const struct sim_config *c, unsigned n, unsigned jobs, json_t **out, FILE *err)
{
	FILE **f = calloc(n, sizeof(*f));
	pid_t *pid = calloc(n, sizeof(*pid));
	int *status = calloc(n, sizeof(*status));
	int ret = 0;
	unsigned running = 0, next = 0, done = 0, asked = n;
	bool passed_on = false;   /* the stop signal sent to the running seeds */
	struct seeds_signals orig;
	sigset_t wait_mask;
	bool taken = false;       /* orig is to be given back */
	*out = NULL;
	if (!f || !pid || !status) {
		fprintf(err, "pvspin sim: --seeds: out of memory\n");
		ret = -1;
		goto out;
	}
	if (!jobs)
		jobs = sim_usable_cpus();
	seeds_signals_take(&orig, &wait_mask);
	taken = true;
	while (done < n) {
		if (tool_stop_signal() && !passed_on) {
			/* start no more seeds; the running ones stop at their
			 * next event and write what they have */
			n = next;
			for (unsigned i = 0; i < next; i++)
				if (pid[i] > 0)
					kill(pid[i], tool_stop_signal());
			passed_on = true;
			if (done >= n)
				break;
		}
		/* no seed starts once the signal came (it would report ~0 s) */
		while (!tool_stop_signal() && running < jobs && next < n) {
			f[next] = tmpfile();
			if (!f[next]) {
				fprintf(err, "pvspin sim: --seeds: cannot create a temporary file: %s\n",
					strerror(errno));
				ret = -1;
				break;
			}
			fflush(NULL);   /* a child must not write the parent's buffers again */
			pid_t self = getpid();
			pid[next] = fork();
			if (pid[next] < 0) {
				fprintf(err, "pvspin sim: --seeds: fork: %s\n", strerror(errno));
				ret = -1;
				break;
			}
			if (!pid[next])
				seed_child(c, c->seed + next, f[next], self, &orig);
			running++;
			next++;
		}
		if (ret < 0 && !running)
			goto out;
		if (ret < 0)
			next = n;      /* start no more; collect the running ones */
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			fprintf(err, "pvspin sim: --seeds: wait: %s\n", strerror(errno));
			ret = -1;
			goto out;
		}
		if (!p) {
			/* nothing to reap: sleep until a child ends or a stop
			 * signal comes, unless one came that is not passed on */
			if (!tool_stop_signal() || passed_on)
				sigsuspend(&wait_mask);
			continue;
		}
		for (unsigned i = 0; i < n; i++)
			if (pid[i] == p) {
				status[i] = st;
				pid[i] = 0;
				running--;
				done++;
			}
		if (ret < 0 && !running)
			goto out;
	}
	seeds_signals_give_back(&orig);
	taken = false;

	if (!n) {
		fprintf(err, "pvspin sim: --seeds: interrupted before any seed ran\n");
		ret = -1;
		goto out;
	}
	if (n < asked)
		fprintf(err, "pvspin sim: --seeds: interrupted: %u of the %u seeds started "
			"(%llu .. %llu), the others did not run\n", n, asked,
			(unsigned long long)c->seed, (unsigned long long)(c->seed + n - 1));
	json_t **runs = calloc(n, sizeof(*runs));
	if (!runs) {
		fprintf(err, "pvspin sim: --seeds: out of memory\n");
		ret = -1;
		goto out;
	}
	json_t *seeds = json_array(), *arr = json_array();
	for (unsigned i = 0; i < n && ret >= 0; i++) {
		uint64_t s = c->seed + i;
		int st = status[i];
		json_error_t e;
		if (!WIFEXITED(st) || WEXITSTATUS(st) > 1) {
			if (WIFSIGNALED(st))
				fprintf(err, "pvspin sim: --seeds: the run of seed %llu was killed by "
					     "signal %d\n", (unsigned long long)s, WTERMSIG(st));
			else
				fprintf(err, "pvspin sim: --seeds: the run of seed %llu failed (%s)\n",
					(unsigned long long)s, WEXITSTATUS(st) == 2
					? "set-up" : "writing its results");
			ret = -1;
			break;
		}
		rewind(f[i]);
		runs[i] = json_loadf(f[i], 0, &e);
		if (!runs[i]) {
			fprintf(err, "pvspin sim: --seeds: cannot read the results of seed %llu: %s\n",
				(unsigned long long)s, e.text);
			ret = -1;
			break;
		}
		if (WEXITSTATUS(st))
			ret = 1;
		const char *stop = json_string_value(json_object_get(runs[i], "stop"));
		if (!passed_on && stop && !strcmp(stop, "interrupted"))
			fprintf(err, "pvspin sim: --seeds: the run of seed %llu was interrupted "
				"(a signal to that worker); its results cover the time until then\n",
				(unsigned long long)s);
		json_array_append_new(seeds, sim_u64_json(s));
		json_array_append(arr, runs[i]);
	}
	if (ret >= 0) {
		*out = json_object();
		json_object_set(*out, "config", json_object_get(runs[0], "config"));
		json_object_set_new(*out, "seeds", seeds);
		json_object_set_new(*out, "summary", sim_seeds_summary(runs, n));
		json_object_set_new(*out, "runs", arr);
		json_object_set_new(*out, "seeds_asked", json_integer(asked));
	} else {
		json_decref(seeds);
		json_decref(arr);
	}
	for (unsigned i = 0; i < n; i++)
		json_decref(runs[i]);
	free(runs);
out:
	if (taken)
		seeds_signals_give_back(&orig);
	for (unsigned i = 0; f && i < n; i++)
		if (f[i])
			fclose(f[i]);
	free(f);
	free(pid);
	free(status);
	return ret;
}

/* ---- text --------------------------------------------------------------- */

static void print_number(FILE *f, const json_t *v)
{
	if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (fabs(json_real_value(v)) >= 1000)
		fprintf(f, "%.0f", json_real_value(v));
	else
		fprintf(f, "%.4g", json_real_value(v));
}

static bool is_spread(const json_t *o)
{
	return json_is_object(o) && json_object_size(o) == 3 &&
	       json_is_number(json_object_get(o, "median")) &&
	       json_is_number(json_object_get(o, "min")) && json_is_number(json_object_get(o, "max"));
}

/* One line per numeric figure of summary node `o` at `path`; arrays of
 * numbers (per vCPU) and figures that are 0 in every seed are left out;
 * a figure that is null in some seeds is given seed by seed, a VM's jain
 * that is null in every seed as '-'. */
static void print_figures(FILE *f, const char *path, const json_t *o)
{
	char sub[256];
	/* jain null in every seed: no vCPU of the VM finished an operation
	 * in any seed, the one line that says so (its ops, 0 in every seed,
	 * are left out: the VM vanished from the summary, helper-62).  Other
	 * nulls (completion_s of a run stopped by time) say nothing. */
	if (json_is_null(o)) {
		size_t len = strlen(path);
		if (len >= 5 && !strcmp(path + len - 5, ".jain"))
			fprintf(f, "  %-40s -  (no operation finished in any seed)\n", path);
		return;
	}
	if (is_spread(o)) {
		const json_t *lo = json_object_get(o, "min"), *hi = json_object_get(o, "max");
		if (json_number_value(lo) == 0 && json_number_value(hi) == 0)
			return;
		fprintf(f, "  %-40s ", path);
		print_number(f, json_object_get(o, "median"));
		fprintf(f, "  [");
		print_number(f, lo);
		fprintf(f, " .. ");
		print_number(f, hi);
		fprintf(f, "]\n");
		return;
	}
	/* a figure that is a number in some seeds and null in others (a
	 * VM's jain or wait percentiles where it finished no operation in
	 * some seeds): one value per seed, '-' for null (it was left out
	 * without a word: helper-61) */
	const json_t *values = json_object_get(o, "values");
	if (json_is_object(o) && json_object_size(o) == 1 && json_is_array(values)) {
		size_t i, numbers = 0;
		json_t *v;
		json_array_foreach((json_t *)values, i, v)
			numbers += json_is_number(v);
		if (!numbers)
			return;   /* strings (stop, report): said elsewhere or in the JSON */
		fprintf(f, "  %-40s per seed: ", path);
		json_array_foreach((json_t *)values, i, v) {
			fprintf(f, "%s", i ? ", " : "");
			if (json_is_number(v))
				print_number(f, v);
			else
				fprintf(f, "-");
		}
		fprintf(f, "\n");
		return;
	}
	if (json_is_object(o)) {
		const char *k;
		json_t *v;
		json_object_foreach((json_t *)o, k, v) {
			snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", k);
			print_figures(f, sub, v);
		}
	} else if (json_is_array(o)) {
		size_t i;
		json_t *v;
		json_array_foreach(o, i, v) {
			if (!json_is_object(v) || is_spread(v))
				return;   /* per-vCPU numbers: in the JSON */
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			print_figures(f, sub, v);
		}
	}
}

/* A seed of the "seeds" array (an integer, or a string above INT64_MAX). */
static void seed_text(const json_t *s, char *buf, size_t n)
{
	if (json_is_integer(s))
		snprintf(buf, n, "%lld", (long long)json_integer_value(s));
	else
		snprintf(buf, n, "%s", json_is_string(s) ? json_string_value(s) : "?");
}

void sim_shape_text(json_t *cfg, char *buf, size_t n)
{
	long long vms = json_integer_value(json_object_get(cfg, "vms"));
	long long vcpus = json_integer_value(json_object_get(cfg, "vcpus"));
	long long pcpus = json_integer_value(json_object_get(cfg, "pcpus"));
	snprintf(buf, n, "%lld VM%s x %lld vCPU%s on %lld pCPU%s", vms, vms == 1 ? "" : "s",
		 vcpus, vcpus == 1 ? "" : "s", pcpus, pcpus == 1 ? "" : "s");
}

void sim_seeds_print(FILE *f, json_t *doc)
{
	json_t *cfg = json_object_get(doc, "config"), *seeds = json_object_get(doc, "seeds");
	json_t *sum = json_object_get(doc, "summary"), *stop = json_object_get(sum, "stop");
	size_t n = json_array_size(seeds);
	const char *preset = json_string_value(json_object_get(cfg, "preset"));
	char first[24], last[24];
	seed_text(json_array_get(seeds, 0), first, sizeof(first));
	seed_text(json_array_get(seeds, n ? n - 1 : 0), last, sizeof(last));
	char shape[96];
	sim_shape_text(cfg, shape, sizeof(shape));
	fprintf(f, "pvspin sim: preset %s, lock %s, %s, "
		   "profile %s, workload %s, %zu seeds (%s .. %s), stop ",
		preset && preset[0] ? preset : "-",
		json_string_value(json_object_get(cfg, "lock")), shape,
		json_string_value(json_object_get(cfg, "profile")),
		json_string_value(json_object_get(cfg, "workload")), n, first, last);
	if (json_is_string(stop)) {
		fprintf(f, "%s in every seed\n", json_string_value(stop));
	} else {
		size_t i;
		json_t *v;
		json_array_foreach(json_object_get(stop, "values"), i, v)
			fprintf(f, "%s%s", i ? ", " : "", json_string_value(v));
		fprintf(f, "\n");
	}
	fprintf(f, "  %-40s median  [min .. max] over the seeds (0 in every seed: left out)\n",
		"figure");
	print_figures(f, "", sum);
}

/*
 * bench/output.c - table, JSON (jansson) and CSV reports of `pvspin bench`
 * (see output.h).
 */
#define _GNU_SOURCE
#include "bench/output.h"
#include "output_check.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>

#include "pvspin/stats.h"

/* ---- table ------------------------------------------------------------ */

/* 12345678 -> "12.35M"; keeps 4 significant digits in 7 characters. */
static const char *fmt_si(char *buf, size_t size, double v)
{
	static const char suffix[] = " kMGT";
	int i = 0;
	if (isnan(v))
		return "-";
	while (fabs(v) >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	if (i == 0)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.*f%c", v < 10 ? 3 : v < 100 ? 2 : 1, v, suffix[i]);
	return buf;
}

/* ns -> "850ns", "1.25us", "3.40ms", "1.20s" */
static const char *fmt_ns(char *buf, size_t size, double ns)
{
	if (isnan(ns))
		return "-";
	if (ns < 1e3)
		snprintf(buf, size, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.*fus", ns < 1e4 ? 2 : ns < 1e5 ? 1 : 0, ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.*fms", ns < 1e7 ? 2 : ns < 1e8 ? 1 : 0, ns / 1e6);
	else
		snprintf(buf, size, "%.2fs", ns / 1e9);
	return buf;
}

void bench_table_header(FILE *f, const struct bench_config *c)
{
	const struct bench_machine *m = &c->machine;
	fprintf(f, "# pvspin bench: %u CPU%s (%s), %s%s%s\n", m->ncpus,
		m->ncpus == 1 ? "" : "s",
		m->model[0] ? m->model : "unknown model", m->kernel,
		m->hypervisor[0] ? ", hypervisor " : "", m->hypervisor);
	fprintf(f, "# cs %llu ns + %u shared lines, ncs %llu ns (%.3f loops/ns); "
		"%u ms x %u repeat%s (median by ops/s); lock() timed every %u%s call "
		"(clock read %.0f ns); pvqspinlock spin threshold %u%s\n",
		(unsigned long long)c->cs_ns, c->cs_lines, (unsigned long long)c->ncs_ns,
		c->workload.loops_per_ns_start, c->duration_ms, c->repeat,
		c->repeat == 1 ? "" : "s",
		c->sample_every, c->sample_every == 1 ? "st" : "th",
		c->workload.clock_cost_ns, c->spin_threshold, c->pin ? "; pinned" : "");
	if (c->hogs)
		fprintf(f, "# noisy neighbour: %u CPU hog process%s beside every cell (--hog)\n",
			c->hogs, c->hogs == 1 ? "" : "es");
	fprintf(f, "%-22s %7s %9s %6s %8s %8s %8s %8s %8s %7s\n", "lock", "threads", "ops/s",
		"jain", "max/min", "p50", "p99", "p99.9", "max", "rtt");
	fflush(f);
}

void bench_table_row(FILE *f, const struct bench_row *row)
{
	const struct bench_cell_result *r = &row->r;
	char ops[16], mm[16], p50[16], p99[16], p999[16], mx[16], jain[16], rtt[16];
	if (isinf(r->max_min))
		snprintf(mm, sizeof(mm), "inf");
	else if (isnan(r->max_min))
		snprintf(mm, sizeof(mm), "-");
	else
		snprintf(mm, sizeof(mm), "%.2f", r->max_min);
	if (isnan(r->jain))
		snprintf(jain, sizeof(jain), "-");
	else
		snprintf(jain, sizeof(jain), "%.3f", r->jain);
	fprintf(f, "%-22s %7u %9s %6s %8s %8s %8s %8s %8s %7s%s\n", row->lock->name,
		row->threads, fmt_si(ops, sizeof(ops), r->ops_per_s), jain, mm,
		fmt_ns(p50, sizeof(p50), r->lat.p50), fmt_ns(p99, sizeof(p99), r->lat.p99),
		fmt_ns(p999, sizeof(p999), r->lat.p999), fmt_ns(mx, sizeof(mx), r->lat.max),
		fmt_ns(rtt, sizeof(rtt), row->line_rtt_ns),
		row->exclusion_ok ? "" : "  MUTUAL EXCLUSION FAILED");
	fflush(f);
}

/* Whether a round run at `rate` loops/ns (0: not run) ran its sections
 * more than BENCH_CALIBRATION_NOTE_PCT % shorter than asked, the busy
 * loop's real rate being `final` (the fastest seen). */
static bool round_short(double rate, double final)
{
	return rate > 0 && rate * 100.0 < final * (100.0 - BENCH_CALIBRATION_NOTE_PCT);
}

/* Print the rounds (1-based) among rate[0..n) that round_short() picks,
 * as ranges: "1-2, 4". */
static void print_round_ranges(FILE *f, const double *rate, unsigned n, double final)
{
	const char *sep = "";
	for (unsigned k = 0; k < n; k++) {
		if (!round_short(rate[k], final))
			continue;
		unsigned last = k;
		while (last + 1 < n && round_short(rate[last + 1], final))
			last++;
		if (last > k)
			fprintf(f, "%s%u-%u", sep, k + 1, last + 1);
		else
			fprintf(f, "%s%u", sep, k + 1);
		sep = ", ";
		k = last;
	}
}

/* How many rounds of rate[0..n) round_short() picks. */
static unsigned count_short(const double *rate, unsigned n, double final)
{
	unsigned count = 0;
	for (unsigned k = 0; k < n; k++)
		count += round_short(rate[k], final);
	return count;
}

void bench_table_calibration_note(FILE *f, const struct bench_config *c)
{
	const double *rate = c->round_loops_per_ns, end = c->workload.loops_per_ns;
	double slowest = INFINITY;
	for (size_t i = 0; rate && i < c->nthreads * c->repeat; i++)
		if (round_short(rate[i], end) && rate[i] < slowest)
			slowest = rate[i];
	if (!isfinite(slowest))
		return;
	fprintf(f, "# the busy loop ran faster later in the run: %.3f loops/ns, against %.3f "
		"when calibrated (this CPU ran slowly then: a busy host, or another task on "
		"it); each round uses the fastest rate seen before it, so the rounds below ran "
		"their critical and non-critical sections up to %.0f %% shorter than asked\n",
		end, c->workload.loops_per_ns_start, 100.0 * (1.0 - slowest / end));
	fprintf(f, "# the rounds whose sections were more than %d %% short (rate under %.3f "
		"loops/ns):",
		BENCH_CALIBRATION_NOTE_PCT, end * (100.0 - BENCH_CALIBRATION_NOTE_PCT) / 100.0);
	const char *sep = " ";
	for (size_t t = 0; t < c->nthreads; t++) {
		const double *r = &rate[t * c->repeat];
		unsigned n = count_short(r, c->repeat, end);
		if (!n)
			continue;
		fprintf(f, "%s%u thread%s", sep, c->threads[t], c->threads[t] == 1 ? "" : "s");
		sep = ", ";
		if (n == c->repeat) {
			if (n > 1)
				fprintf(f, " (all %u)", n);
			continue;
		}
		fprintf(f, " (round%s ", n == 1 ? "" : "s");
		print_round_ranges(f, r, c->repeat, end);
		fprintf(f, " of %u)", c->repeat);
	}
	fprintf(f, "\n");
	fflush(f);
}

/* Was repeat k of `row` stopped (the bench stopped during it)? */
static bool repeat_stopped(const struct bench_row *row, unsigned k)
{
	return row->stopped && row->stopped[k];
}

/* How many repeats of `row` were stopped. */
static unsigned stopped_count(const struct bench_row *row)
{
	unsigned m = 0;
	for (unsigned k = 0; k < row->nrepeats; k++)
		m += repeat_stopped(row, k);
	return m;
}

void bench_table_stopped_note(FILE *f, const struct bench_row *rows, size_t n)
{
	unsigned total = 0;
	for (size_t i = 0; i < n; i++)
		total += stopped_count(&rows[i]);
	if (!total)
		return;
	fprintf(f, "# the bench was stopped (SIGSTOP or Ctrl-Z) during %u repeat%s, whose ops/s "
		"count the stopped time: ", total, total == 1 ? "" : "s");
	const char *sep = "";
	for (size_t i = 0; i < n; i++) {
		unsigned m = stopped_count(&rows[i]);
		if (!m)
			continue;
		fprintf(f, "%s%s x%u (%u of %u repeat%s)", sep, rows[i].lock->name, rows[i].threads,
			m, rows[i].nrepeats, rows[i].nrepeats == 1 ? "" : "s");
		sep = ", ";
	}
	fprintf(f, "; run those cells again\n");
	fflush(f);
}

/* The median of the paired ratios a->ops_repeats[k] / b->ops_repeats[k]
 * (repeat k of two locks ran in one round), and their range, over the
 * rounds in which neither was stopped (all rounds if every one had a
 * stopped repeat: as the table's repeat, bench_median_index_except);
 * GSL sorts (as the latency percentiles). */
static double paired_median(const struct bench_row *a, const struct bench_row *b, double *lo,
			    double *hi)
{
	unsigned n = a->nrepeats, m = 0;
	double *r = malloc(sizeof(*r) * (n ? n : 1));
	if (!r) {
		*lo = *hi = NAN;
		return NAN;
	}
	for (int pass = 0; pass < 2 && !m; pass++)
		for (unsigned k = 0; k < n; k++)
			if (pass || (!repeat_stopped(a, k) && !repeat_stopped(b, k)))
				r[m++] = a->ops_repeats[k] / b->ops_repeats[k];
	n = m;
	gsl_sort(r, 1, n);
	*lo = n ? r[0] : NAN;
	*hi = n ? r[n - 1] : NAN;
	double med = n ? gsl_stats_median_from_sorted_data(r, 1, n) : NAN;
	free(r);
	return med;
}

/* The best and the next best other lock (by median ops/s) at the thread
 * count of rows[i]; *best is NULL where rows[i] is alone there. */
static void versus_pick(const struct bench_row *rows, size_t n, size_t i,
			const struct bench_row **best, const struct bench_row **next)
{
	*best = *next = NULL;
	for (size_t j = 0; j < n; j++) {
		/* a control row (--control) is not another lock */
		if (j == i || rows[j].threads != rows[i].threads || rows[j].lock->control_of)
			continue;
		if (!*best || rows[j].r.ops_per_s > (*best)->r.ops_per_s) {
			*next = *best;
			*best = &rows[j];
		} else if (!*next || rows[j].r.ops_per_s > (*next)->r.ops_per_s) {
			*next = &rows[j];
		}
	}
}

/* One comparison line of bench_table_versus(): `me` over the best other
 * lock at its thread count and the best over the next (NULL: none), and
 * the texts of the ratio ("21.32"), per-repeat range ("[20.10-22.40]")
 * and paired median ("21.30"), made once and printed when the column
 * widths are known. */
struct versus_line {
	const struct bench_row *me, *best, *next;
	char ratio[32], range[72], paired[32];
};

/* Fill `l` for `me` over `best`. */
static void versus_format(struct versus_line *l, const struct bench_row *me,
			  const struct bench_row *best, const struct bench_row *next)
{
	double lo, hi, paired = paired_median(me, best, &lo, &hi);
	*l = (struct versus_line){ .me = me, .best = best, .next = next };
	snprintf(l->ratio, sizeof(l->ratio), "%.2f", me->r.ops_per_s / best->r.ops_per_s);
	snprintf(l->range, sizeof(l->range), "[%.2f-%.2f]", lo, hi);
	snprintf(l->paired, sizeof(l->paired), "%.2f", paired);
}

/* Widen column width *w to hold `s`. */
static void widen(int *w, const char *s)
{
	int len = (int)strlen(s);
	if (len > *w)
		*w = len;
}

void bench_table_versus(FILE *f, const struct bench_row *rows, size_t n, const char *name)
{
	/* The columns line up: at least the widths of 999.99x and its range,
	 * wider where a ratio is larger (1234.56x slipped the range and
	 * "paired" one column): every line is made first, then printed. */
	struct versus_line *lines = calloc(n ? n : 1, sizeof(*lines));
	if (!lines)
		return;   /* out of memory: the comparison is left out */
	int wratio = 6, wrange = 15, wpaired = 6;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct bench_row *best, *next;
		if (strcmp(rows[i].lock->name, name))
			continue;
		versus_pick(rows, n, i, &best, &next);
		if (!best)
			continue;
		versus_format(&lines[m], &rows[i], best, next);
		widen(&wratio, lines[m].ratio);
		widen(&wrange, lines[m].range);
		widen(&wpaired, lines[m].paired);
		m++;
	}
	if (m)
		fprintf(f, "# %s (the default kind) over the best other lock, median ops/s; "
			"per-repeat ratios [min-max] and their median; the best other over "
			"the next:\n", name);
	for (size_t k = 0; k < m; k++) {
		const struct versus_line *l = &lines[k];
		fprintf(f, "#   %4u thread%s  %*sx %-22s %-*s paired %*sx", l->me->threads,
			l->me->threads == 1 ? " " : "s", wratio, l->ratio, l->best->lock->name,
			wrange, l->range, wpaired, l->paired);
		if (l->next)
			fprintf(f, "; %s %.2fx %s", l->best->lock->name,
				l->best->r.ops_per_s / l->next->r.ops_per_s, l->next->lock->name);
		fprintf(f, "\n");
	}
	free(lines);
	fflush(f);
}

void bench_table_control(FILE *f, const struct bench_row *rows, size_t n)
{
	bool header = false;
	for (size_t i = 0; i < n; i++) {
		const struct bench_row *ctl = &rows[i], *me = NULL;
		if (!ctl->lock->control_of)
			continue;
		for (size_t j = 0; j < n && !me; j++)
			if (rows[j].lock == ctl->lock->control_of && rows[j].threads == ctl->threads)
				me = &rows[j];
		if (!me)
			continue;
		if (!header) {
			fprintf(f, "# %s over %s, the same lock measured again in each round (--control): "
				"how far two measurements of one lock differ in this run, median ops/s; "
				"per-repeat ratios [min-max] and their median:\n", me->lock->name,
				ctl->lock->name);
			header = true;
		}
		struct versus_line l;
		versus_format(&l, me, ctl, NULL);
		fprintf(f, "#   %4u thread%s  %6sx %-15s paired %6sx\n", me->threads,
			me->threads == 1 ? " " : "s", l.ratio, l.range, l.paired);
	}
	fflush(f);
}

/* One placement class's comparison of bench_table_versus_by_placement():
 * the median ops/s of `me`'s repeats in the class over the best such
 * median among the other locks at its thread count, that lock, the two
 * repeat counts, and how many other locks there are and ran so. */
struct class_versus {
	bool apart;                      /* the class */
	const struct bench_row *best;    /* NULL: no comparison */
	double ratio;                    /* with best: the ratio */
	unsigned m, bm;                  /* repeats of `me`, of best, in the class */
	unsigned others, ran;            /* other locks with probes; ran so */
};

/* Fill `v` for `me` in class `apart` (threshold `thr`).  v->best is NULL
 * where `me` ran no repeat so, or no other lock did (or none did
 * anything). */
static void versus_in_class(struct class_versus *v, const struct bench_row *rows, size_t n,
			    const struct bench_row *me, double thr, bool apart)
{
	*v = (struct class_versus){ .apart = apart };
	double mine = bench_median_in_class(me->ops_repeats, me->rtt_repeats, me->stopped,
					    me->nrepeats, thr, apart, &v->m);
	double top = NAN;
	for (size_t j = 0; v->m && j < n; j++) {
		const struct bench_row *o = &rows[j];
		if (o == me || o->threads != me->threads || !o->rtt_repeats ||
		    o->lock->control_of)
			continue;
		unsigned c;
		double x = bench_median_in_class(o->ops_repeats, o->rtt_repeats, o->stopped,
						 o->nrepeats, thr, apart, &c);
		v->others++;
		v->ran += c > 0;
		if (c && (!v->best || x > top)) {
			v->best = o;
			top = x;
			v->bm = c;
		}
	}
	if (!(top > 0))
		v->best = NULL;
	if (v->best)
		v->ratio = mine / top;
}

/* Print `v`: "close 0.92x ck_ticket (3, 3 repeats)", or "close -" where
 * there is no comparison.  Where some other locks ran no repeat in the
 * class, their count is said, "(2, 2 repeats; 3 of 10 other locks ran
 * so)": the best of those that did may be a weak one (a new user's
 * reading, 2026-12-07: "close 3.54x pthread_spin", where the stronger
 * locks had run apart only). */
static void print_class_versus(FILE *f, const struct class_versus *v)
{
	const char *cls = v->apart ? "apart" : "close";
	if (!v->best) {
		fprintf(f, "%s -", cls);
		return;
	}
	fprintf(f, "%s %.2fx %s (%u, %u repeat%s", cls, v->ratio, v->best->lock->name, v->m,
		v->bm, v->m == 1 && v->bm == 1 ? "" : "s");
	if (v->ran < v->others)
		fprintf(f, "; %u of %u other locks ran so", v->ran, v->others);
	fprintf(f, ")");
}

void bench_table_versus_by_placement(FILE *f, const struct bench_row *rows, size_t n,
				     const char *name)
{
	size_t nrtt = 0;
	for (size_t i = 0; i < n; i++)
		nrtt += rows[i].nrepeats;
	double *rtt = calloc(nrtt ? nrtt : 1, sizeof(*rtt)), thr;
	if (!rtt)
		return;
	nrtt = 0;
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < rows[i].nrepeats; k++)
			rtt[nrtt++] = rows[i].rtt_repeats ? rows[i].rtt_repeats[k] : NAN;
	bool split = bench_placement_split(rtt, nrtt, &thr);
	free(rtt);
	if (!split)
		return;
	bool header = false;
	for (size_t i = 0; i < n; i++) {
		const struct bench_row *me = &rows[i];
		if (strcmp(me->lock->name, name) || !me->rtt_repeats)
			continue;
		struct class_versus close, apart;
		versus_in_class(&close, rows, n, me, thr, false);
		versus_in_class(&apart, rows, n, me, thr, true);
		/* neither class compares anything ("close -; apart -": `me`
		 * and the others ran in different classes, or `me`'s probes
		 * all failed): no line */
		if (!close.best && !apart.best)
			continue;
		if (!header) {
			fprintf(f, "# the same by placement (the line round trip probed before each "
				"repeat: close < %.0f ns <= apart), median ops/s of the repeats run so, "
				"over the best other lock among them (repeats of each):\n", thr);
			header = true;
		}
		fprintf(f, "#   %4u thread%s  ", me->threads, me->threads == 1 ? " " : "s");
		print_class_versus(f, &close);
		fprintf(f, "; ");
		print_class_versus(f, &apart);
		fprintf(f, "\n");
	}
	fflush(f);
}

/* ---- JSON --------------------------------------------------------------- */

/* a real, or null for NaN / infinity (JSON has neither) */
static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

static json_t *json_machine(const struct bench_machine *m)
{
	return json_pack("{s:i, s:i, s:o, s:o, s:o, s:o, s:o}",
			 "ncpus", (int)m->ncpus,
			 "ncpus_online", (int)m->ncpus_online,
			 "model_name", jstr_or_null(m->model),
			 "kernel", jstr_or_null(m->kernel),
			 "arch", jstr_or_null(m->arch),
			 "hypervisor", jstr_or_null(m->hypervisor),
			 "clocksource", jstr_or_null(m->clocksource));
}

/* config.loops_per_ns_rounds: per thread count (config.threads' order),
 * the busy loop's rate of each of its --repeat rounds, null for a round
 * not run or not reported (c->round_loops_per_ns: 0); [] without it. */
static json_t *json_round_rates(const struct bench_config *c)
{
	json_t *all = json_array();
	for (size_t t = 0; c->round_loops_per_ns && t < c->nthreads; t++) {
		json_t *rounds = json_array();
		for (unsigned k = 0; k < c->repeat; k++) {
			double r = c->round_loops_per_ns[t * c->repeat + k];
			json_array_append_new(rounds, r > 0 ? json_real(r) : json_null());
		}
		json_array_append_new(all, rounds);
	}
	return all;
}

static json_t *json_config(const struct bench_config *c)
{
	json_t *locks = json_array(), *threads = json_array();
	for (size_t i = 0; i < c->nlocks; i++)
		json_array_append_new(locks, json_string(c->locks[i]->name));
	for (size_t i = 0; i < c->nthreads; i++)
		json_array_append_new(threads, json_integer(c->threads[i]));
	return json_pack("{s:o, s:b, s:o, s:I, s:I, s:i, s:i, s:i, s:i, s:b, s:i, s:i, s:b, s:b, s:f, "
			 "s:f, s:o, s:f}",
			 "locks", locks, "control", (int)c->control, "threads", threads,
			 "cs_ns", (json_int_t)c->cs_ns, "ncs_ns", (json_int_t)c->ncs_ns,
			 "cs_lines", (int)c->cs_lines, "duration_ms", (int)c->duration_ms,
			 "repeat", (int)c->repeat, "sample_every", (int)c->sample_every,
			 "pin", (int)c->pin, "spin_threshold", (int)c->spin_threshold,
			 "hogs", (int)c->hogs, "placement", (int)!c->no_placement,
			 "interrupted", (int)c->interrupted,
			 "loops_per_ns", c->workload.loops_per_ns,
			 "loops_per_ns_start", c->workload.loops_per_ns_start,
			 "loops_per_ns_rounds", json_round_rates(c),
			 "clock_cost_ns", c->workload.clock_cost_ns);
}

static json_t *json_events(const struct bench_row *row)
{
	json_t *ev = json_object();
	if (row->lock->kind == PVSPIN_KIND_NONE)
		return ev;   /* a peer: no pvspin events */
	for (int e = 0; e < PVSPIN_EV_COUNT; e++)
		json_object_set_new(ev, pvspin_event_name(e),
				    json_integer((json_int_t)row->r.events.count[e]));
	json_object_set_new(ev, "slot_exhausted",
			    json_integer((json_int_t)(row->r.slots_after.exhausted -
						      row->r.slots_before.exhausted)));
	return ev;
}

static json_t *json_row(const struct bench_config *c, const struct bench_row *row)
{
	const struct bench_cell_result *r = &row->r;
	json_t *reps = json_array(), *rtts = json_array(), *stops = json_array();
	for (unsigned i = 0; i < row->nrepeats; i++) {
		json_array_append_new(reps, json_real(row->ops_repeats[i]));
		json_array_append_new(rtts, jreal(row->rtt_repeats[i]));
		json_array_append_new(stops, json_boolean(repeat_stopped(row, i)));
	}
	json_t *lat = json_pack("{s:o, s:o, s:o, s:o}", "p50", jreal(r->lat.p50),
				"p99", jreal(r->lat.p99), "p999", jreal(r->lat.p999),
				"max", jreal(r->lat.max));
	const struct bench_lock *of = row->lock->control_of;
	return json_pack("{s:s, s:o, s:i, s:I, s:I, s:f, s:o, s:o, s:o, s:o,"
			 " s:I, s:I, s:I, s:I, s:b, s:o, s:f, s:f, s:f, s:o, s:o, s:i, s:o}",
			 "lock", row->lock->name,
			 "control_of", of ? json_string(of->name) : json_null(),
			 "threads", (int)row->threads,
			 "cs_ns", (json_int_t)c->cs_ns, "ncs_ns", (json_int_t)c->ncs_ns,
			 "ops_per_s", r->ops_per_s, "jain", jreal(r->jain),
			 "max_min", jreal(r->max_min), "latency_ns", lat,
			 "events", json_events(row),
			 "acquisitions", (json_int_t)r->acquisitions,
			 "acq_min", (json_int_t)r->acq_min, "acq_max", (json_int_t)r->acq_max,
			 "latency_samples", (json_int_t)r->lat.samples,
			 "mutual_exclusion_ok", (int)row->exclusion_ok,
			 "ops_per_s_repeats", reps,
			 "elapsed_ms", r->elapsed_s * 1e3, "setup_ms", r->setup_s * 1e3,
			 "drain_ms", r->drain_s * 1e3, "line_rtt_ns", jreal(row->line_rtt_ns),
			 "line_rtt_ns_repeats", rtts,
			 "stopped_repeats", (int)stopped_count(row), "repeat_stopped", stops);
}

/* Say that the `what` report ("JSON", "CSV") could not be written to
 * `path` for `reason`.  To "-" it is said as main() says a failed stdout
 * ("pvspin bench: cannot write to standard output: REASON", as pvspin sim
 * says it), once: what is left of the report is dropped and stdout's
 * error flag cleared, so main() does not say it again. */
static void report_write_error(const char *what, const char *path, const char *reason)
{
	if (strcmp(path, "-")) {
		fprintf(stderr, "pvspin bench: cannot write %s to '%s': %s\n", what, path, reason);
		return;
	}
	fprintf(stderr, "pvspin bench: cannot write to standard output: %s\n", reason);
	__fpurge(stdout);
	clearerr(stdout);
}

int bench_write_json(const char *path, const struct bench_config *c,
		     const struct bench_row *rows, size_t nrows)
{
	json_t *results = json_array();
	for (size_t i = 0; i < nrows; i++)
		json_array_append_new(results, json_row(c, &rows[i]));
	json_t *root = json_pack("{s:o, s:o, s:o}", "machine", json_machine(&c->machine),
				 "config", json_config(c), "results", results);
	if (!root) {
		fprintf(stderr, "pvspin bench: cannot build the JSON report (out of memory)\n");
		return -1;
	}
	int err;
	const size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER;
	errno = 0;
	if (!strcmp(path, "-")) {
		err = json_dumpf(root, stdout, flags);
		if (!err)
			err = fputc('\n', stdout) == EOF || fflush(stdout);
	} else {
		err = json_dump_file(root, path, flags);
	}
	json_decref(root);
	if (err) {
		report_write_error("JSON", path, errno ? strerror(errno) : "a write failed");
		return -1;
	}
	return 0;
}

/* ---- checks before measuring ---------------------------------------------- */

int bench_output_check(const char *opt, const char *path)
{
	return tool_output_check("pvspin bench", opt, path);
}

/* realpath() of the directory of `path` + "/" + its last component, for
 * a path that may not exist yet; a last component that is a symbolic link
 * to a file not there yet (the report would create it) is followed, up to
 * 40 links as the kernel does (a new user's --json same --csv same2, same2
 * a link to the missing same: the CSV overwrote the JSON).  0, or -1. */
static int canonical(const char *path, char *out, size_t size)
{
	char dir[PATH_MAX], real[PATH_MAX], target[PATH_MAX], next[2 * PATH_MAX + 2];
	for (int links = 0; ; links++) {
		const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
		if (slash == path)
			snprintf(dir, sizeof(dir), "/");
		else
			snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
				 slash ? path : ".");
		if (!realpath(dir, real) ||
		    snprintf(out, size, "%s/%s", real, base) >= (int)size)
			return -1;
		ssize_t n = links < 40 ? readlink(out, target, sizeof(target) - 1) : -1;
		if (n <= 0)
			return 0;   /* not a link (or too many): this is the name */
		target[n] = '\0';
		snprintf(next, sizeof(next), "%s%s%s", target[0] == '/' ? "" : real,
			 target[0] == '/' ? "" : "/", target);
		path = next;
	}
}

int bench_output_same(const char *a, const char *b)
{
	struct stat sa, sb;
	char ca[PATH_MAX + 1], cb[PATH_MAX + 1];
	if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-"))
		return 0;
	if (!strcmp(a, b))
		return 1;
	if (!stat(a, &sa) && !stat(b, &sb))
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	return !canonical(a, ca, sizeof(ca)) && !canonical(b, cb, sizeof(cb)) && !strcmp(ca, cb);
}

/* ---- CSV ---------------------------------------------------------------- */

/* a number for CSV: "inf", "" for NaN, else %.6g / integer */
static void csv_num(FILE *f, double v)
{
	if (isnan(v))
		fputs(",", f);
	else if (isinf(v))
		fputs(",inf", f);
	else
		fprintf(f, ",%.10g", v);
}

/* Write all of buf[0..len) to `path` ("-": stdout).  Returns 0, or -1
 * with errno. */
static int write_whole(const char *path, const char *buf, size_t len)
{
	if (!strcmp(path, "-"))
		return fwrite(buf, 1, len, stdout) == len && !fflush(stdout) ? 0 : -1;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	while (len) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return close(fd);
}

int bench_write_csv(const char *path, const struct bench_config *c,
		    const struct bench_row *rows, size_t nrows)
{
	/* formatted in memory, then written with write(): a failure then
	 * has its errno, whichever write it hit */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		fprintf(stderr, "pvspin bench: cannot write CSV to '%s': %s\n", path,
			strerror(errno));
		return -1;
	}
	/* hogs: --hog's CPU hogs beside every cell (a noisy-neighbour run
	 * must not read as a quiet one) */
	fputs("lock,threads,cs_ns,ncs_ns,hogs,ops_per_s,jain,max_min,p50_ns,p99_ns,p999_ns,max_ns,"
	      "acquisitions,mutual_exclusion_ok", f);
	for (int e = 0; e < PVSPIN_EV_COUNT; e++)
		fprintf(f, ",%s", pvspin_event_name(e));
	/* as in the JSON: its events' slot_exhausted, the placement */
	fputs(",slot_exhausted,line_rtt_ns\n", f);
	for (size_t i = 0; i < nrows; i++) {
		const struct bench_row *row = &rows[i];
		const struct bench_cell_result *r = &row->r;
		fprintf(f, "%s,%u,%llu,%llu,%u,%.1f", row->lock->name, row->threads,
			(unsigned long long)c->cs_ns, (unsigned long long)c->ncs_ns, c->hogs,
			r->ops_per_s);
		csv_num(f, r->jain);
		csv_num(f, r->max_min);
		csv_num(f, r->lat.p50);
		csv_num(f, r->lat.p99);
		csv_num(f, r->lat.p999);
		csv_num(f, r->lat.max);
		fprintf(f, ",%llu,%d", (unsigned long long)r->acquisitions, row->exclusion_ok);
		bool peer = row->lock->kind == PVSPIN_KIND_NONE;   /* no pvspin events */
		for (int e = 0; e < PVSPIN_EV_COUNT; e++) {
			if (peer)
				fputc(',', f);
			else
				fprintf(f, ",%llu", (unsigned long long)r->events.count[e]);
		}
		if (peer)
			fputc(',', f);
		else
			fprintf(f, ",%llu", (unsigned long long)(r->slots_after.exhausted -
								r->slots_before.exhausted));
		csv_num(f, row->line_rtt_ns);
		fputc('\n', f);
	}
	int err = ferror(f);
	err |= fclose(f);
	if (err || write_whole(path, buf, len)) {
		report_write_error("CSV", path, err ? "out of memory" : strerror(errno));
		free(buf);
		return -1;
	}
	free(buf);
	return 0;
}

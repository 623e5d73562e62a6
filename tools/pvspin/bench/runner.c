/*
 * bench/runner.c - run one cell of `pvspin bench` (see runner.h).
 */
#define _GNU_SOURCE
#include "bench/runner.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/machine.h"
#include "bench/peers.h"
#include "bench/workload.h"
#include "stop_signal.h"

/* A cell's main thread looks at the stop signal this often, ns. */
#define BENCH_STOP_POLL_NS 100000000u

/** Memory shared by the threads of a cell: the lock alone on its lines,
 *  the stop flag alone on its lines (read by every thread every
 *  iteration, written once), then the critical-section lines. */
struct bench_shared {
	unsigned char lock[BENCH_LOCK_SIZE] __attribute__((aligned(128)));
	int stop __attribute__((aligned(128)));
	struct bench_line lines[] __attribute__((aligned(128)));
};

/** The start gate: threads check in, then wait until the main thread
 *  opens it (a condition variable, so a failed thread creation can still
 *  release the threads already made).  On the heap, with a copy of the
 *  spec: a cell cut short by a stop signal may leave its threads running
 *  when bench_run_cell() returns. */
struct bench_cell_run {
	struct bench_cell_spec spec;
	pthread_mutex_t m;
	pthread_cond_t cv;
	unsigned ready;
	int go;
};

static void *worker_main(void *arg)
{
	struct bench_worker *w = arg;
	struct bench_cell_run *run = w->run;

	if (w->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		/* best effort: an unpinned thread still measures correctly */
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	pthread_mutex_lock(&run->m);
	run->ready++;
	pthread_cond_broadcast(&run->cv);
	while (!run->go)
		pthread_cond_wait(&run->cv, &run->m);
	pthread_mutex_unlock(&run->m);

	run->spec.lock->run(w);
	return NULL;
}

/** A time of a clock in ns (tool_now_ns()'s CLOCK_MONOTONIC, or
 *  CLOCK_REALTIME) as a timespec, for the waits that take one. */
static struct timespec ns_timespec(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u),
				  .tv_nsec = (long)(ns % 1000000000u) };
}

/**
 * Join the `n` threads of w[], looking at the stop signal every
 * BENCH_STOP_POLL_NS.  Once one has come (before the wait or during it),
 * wait at most TOOL_STOP_GRACE_NS more.  True if every thread was
 * joined, false if some were left running (a stop signal came and they
 * had not finished in time).
 */
static bool join_workers(struct bench_worker *w, unsigned n)
{
	uint64_t give_up = UINT64_MAX;
	for (unsigned i = 0; i < n;) {
		uint64_t now = tool_now_ns();
		if (give_up == UINT64_MAX && tool_stop_signal())
			give_up = now + TOOL_STOP_GRACE_NS;
		if (now >= give_up)
			return false;
		/* pthread_timedjoin_np() and its CLOCK_REALTIME, not
		 * pthread_clockjoin_np(): ThreadSanitizer intercepts the one
		 * only (a join it does not see orders nothing) */
		struct timespec rt;
		clock_gettime(CLOCK_REALTIME, &rt);
		uint64_t wait = give_up - now > BENCH_STOP_POLL_NS ? BENCH_STOP_POLL_NS
								    : give_up - now;
		struct timespec ts = ns_timespec((uint64_t)rt.tv_sec * 1000000000u +
						 (uint64_t)rt.tv_nsec + wait);
		if (!pthread_timedjoin_np(w[i].tid, NULL, &ts))
			i++;   /* else ETIMEDOUT: look again */
	}
	return true;
}

int bench_run_cell(const struct bench_cell_spec *spec, struct bench_cell_result *out)
{
	const unsigned nt = spec->threads;
	const char *name = spec->lock->name;
	size_t shared_size = sizeof(struct bench_shared) +
			     (size_t)spec->cs_lines * sizeof(struct bench_line);
	shared_size = (shared_size + 127) & ~(size_t)127;
	struct bench_shared *sh = aligned_alloc(128, shared_size);
	struct bench_worker *w = aligned_alloc(128, (size_t)nt * sizeof(*w));
	uint64_t *acq = calloc(nt, sizeof(uint64_t));
	struct bench_reservoir **res = calloc(nt, sizeof(*res));
	int *cpus = malloc(CPU_SETSIZE * sizeof(int));
	int ret = -1, err;
	unsigned created = 0, reservoirs = 0;
	struct bench_cell_run *run = calloc(1, sizeof(*run));

	memset(out, 0, sizeof(*out));
	if (!sh || !w || !acq || !res || !cpus || !run) {
		fprintf(stderr, "pvspin bench: %s x%u: out of memory\n", name, nt);
		goto out_free;
	}
	memset(sh, 0, shared_size);
	memset(w, 0, (size_t)nt * sizeof(*w));
	run->spec = *spec;
	int ncpus = bench_allowed_cpus(cpus, CPU_SETSIZE);

	err = spec->lock->init(sh->lock);
	if (err) {
		fprintf(stderr, "pvspin bench: %s: cannot initialise the lock: %s\n",
			name, strerror(err));
		goto out_free;
	}
	for (; reservoirs < nt; reservoirs++) {
		struct bench_worker *wi = &w[reservoirs];
		if (bench_reservoir_init(&wi->lat, spec->samples_per_thread,
					 spec->seed * 1000003u + reservoirs)) {
			fprintf(stderr, "pvspin bench: %s x%u: out of memory for latency samples\n",
				name, nt);
			goto out_lock;
		}
		wi->lock = sh->lock;
		wi->ctx = wi->ctx_mem;
		wi->lines = sh->lines;
		wi->cs_lines = spec->cs_lines;
		wi->stop = &sh->stop;
		wi->cs_loops = spec->cs_loops;
		wi->ncs_loops = spec->ncs_loops;
		wi->sample_every = spec->sample_every;
		wi->run = run;
		wi->cpu = spec->pin ? cpus[reservoirs % (unsigned)ncpus] : -1;
		res[reservoirs] = &wi->lat;
	}

	pthread_mutex_init(&run->m, NULL);
	pthread_cond_init(&run->cv, NULL);
	pvspin_slots_read(&out->slots_before);
	struct pvspin_events ev0, ev1;
	pvspin_events_read(&ev0);

	uint64_t t_setup = tool_now_ns();
	for (; created < nt; created++) {
		err = pthread_create(&w[created].tid, NULL, worker_main, &w[created]);
		if (err) {
			fprintf(stderr, "pvspin bench: %s: cannot create thread %u of %u: %s\n",
				name, created + 1, nt, strerror(err));
			break;
		}
	}
	pthread_mutex_lock(&run->m);
	while (run->ready < created)
		pthread_cond_wait(&run->cv, &run->m);
	if (created < nt)
		__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	uint64_t t0 = tool_now_ns();
	run->go = 1;
	pthread_cond_broadcast(&run->cv);
	pthread_mutex_unlock(&run->m);

	uint64_t t1 = t0;
	if (created == nt) {
		/* To the cell's end, in sleeps of at most BENCH_STOP_POLL_NS,
		 * so that a stop signal, which any of the cell's threads may
		 * take, cuts the cell short within one (the caller discards a
		 * cut cell): a cell may last an hour (--duration-ms), and
		 * SIGINT used to wait for its end */
		uint64_t end = t0 + (uint64_t)spec->duration_ms * 1000000u;
		for (uint64_t now = t0; now < end && !tool_stop_signal(); now = tool_now_ns()) {
			uint64_t until = end - now > BENCH_STOP_POLL_NS ? now + BENCH_STOP_POLL_NS : end;
			struct timespec ts = ns_timespec(until);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);   /* EINTR: look again */
		}
		__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
		t1 = tool_now_ns();
	}
	if (!join_workers(w, created))
		/* they still use the lock, the gate and the cell's memory: all
		 * of it is left to the end of the process, which the stop
		 * signal brings once the completed thread counts are out */
		return 1;
	uint64_t t_joined = tool_now_ns();
	pvspin_events_read(&ev1);
	pvspin_slots_read(&out->slots_after);
	pthread_cond_destroy(&run->cv);
	pthread_mutex_destroy(&run->m);
	if (created < nt)
		goto out_lock;

	/* the results */
	for (int e = 0; e < PVSPIN_EV_COUNT; e++)
		out->events.count[e] = ev1.count[e] - ev0.count[e];
	out->acq_min = UINT64_MAX;
	for (unsigned i = 0; i < nt; i++) {
		acq[i] = w[i].acquisitions;
		out->acquisitions += acq[i];
		if (acq[i] < out->acq_min)
			out->acq_min = acq[i];
		if (acq[i] > out->acq_max)
			out->acq_max = acq[i];
	}
	out->counter = sh->lines[0].word;
	out->exclusion_ok = out->counter == out->acquisitions;
	out->elapsed_s = (double)(t1 - t0) / 1e9;
	out->setup_s = (double)(t0 - t_setup) / 1e9;
	out->drain_s = (double)(t_joined - t1) / 1e9;
	/* Acquisitions in flight at the stop flag complete during the drain
	 * and are counted, so the rate is over start to last join: a critical
	 * section longer than the cell cannot inflate it. */
	double counted_s = (double)(t_joined - t0) / 1e9;
	out->ops_per_s = counted_s > 0 ? (double)out->acquisitions / counted_s : 0;
	out->jain = bench_jain(acq, nt);
	out->max_min = bench_max_min(acq, nt);
	if (bench_latency_merge(res, nt, &out->lat)) {
		fprintf(stderr, "pvspin bench: %s x%u: out of memory for percentiles\n", name, nt);
		goto out_lock;
	}
	ret = 0;

out_lock:
	spec->lock->destroy(sh->lock);
out_free:
	for (unsigned i = 0; i < reservoirs; i++)
		bench_reservoir_free(&w[i].lat);
	free(run);
	free(cpus);
	free(res);
	free(acq);
	free(w);
	free(sh);
	return ret;
}

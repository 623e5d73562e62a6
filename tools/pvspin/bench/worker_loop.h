/*
 * bench/worker_loop.h - the timed loop of `pvspin bench`, one copy per
 * lock kind so that each lock's fast path is inlined into it (no indirect
 * call on the measured path).
 *
 * Per iteration: maybe time the lock() call (every sample_every-th call,
 * two CLOCK_MONOTONIC reads), take the lock, increment the plain check
 * counter on line 0 and write lines 1..cs_lines-1, spin cs_loops, unlock,
 * count, spin ncs_loops.  The stop flag is read (relaxed) once per
 * iteration, after it: every thread completes at least one acquisition,
 * even when the OS starts it only after a short cell has ended (a loaded
 * machine can delay a woken thread by more than a 20 ms cell), so a cell's
 * counts, fairness and latency samples are never empty.
 */
#ifndef PVSPIN_BENCH_WORKER_LOOP_H
#define PVSPIN_BENCH_WORKER_LOOP_H

#include "bench/runner.h"
#include "bench/stats.h"
#include "bench/workload.h"

typedef void (*bench_lock_fn)(void *lock, void *ctx);

/** Run the loop for worker `w` with lock operations `lock_op` and
 *  `unlock_op`.  Always inlined: call it with constant function
 *  addresses and the compiler inlines them in turn. */
static inline __attribute__((always_inline)) void
bench_worker_loop(struct bench_worker *w, bench_lock_fn lock_op, bench_lock_fn unlock_op)
{
	void *lock = w->lock, *ctx = w->ctx;
	struct bench_line *lines = w->lines;
	const unsigned cs_lines = w->cs_lines;
	const uint64_t cs_loops = w->cs_loops, ncs_loops = w->ncs_loops;
	const uint32_t every = w->sample_every;
	uint32_t until_sample = 1;   /* the first call is timed */
	uint64_t n = 0;

	do {
		if (--until_sample == 0) {
			until_sample = every;
			uint64_t t0 = tool_now_ns();
			lock_op(lock, ctx);
			uint64_t t1 = tool_now_ns();
			bench_reservoir_add(&w->lat, (double)(t1 - t0));
		} else {
			lock_op(lock, ctx);
		}
		/* the critical section: plain accesses on purpose */
		lines[0].word++;
		for (unsigned i = 1; i < cs_lines; i++)
			lines[i].word++;
		bench_busy(cs_loops);
		unlock_op(lock, ctx);
		n++;
		bench_busy(ncs_loops);
	} while (!__atomic_load_n(w->stop, __ATOMIC_RELAXED));
	w->acquisitions = n;
}

/** For a lock without per-thread context: (lock, ctx) adapters
 *  name##_lock_op and name##_unlock_op around `lock_fn`/`unlock_fn` (any
 *  result ignored), and name##_run, the lock's own instance of the timed
 *  loop, static, starting on a 64-byte boundary (so that where the linker
 *  puts one lock's loop does not move another's by a few per cent). */
#define BENCH_PEER_LOOP(name, lock_fn, unlock_fn)                             \
	static inline void name##_lock_op(void *l, void *c)                  \
	{ (void)c; lock_fn(l); }                                              \
	static inline void name##_unlock_op(void *l, void *c)                \
	{ (void)c; unlock_fn(l); }                                            \
	__attribute__((aligned(64))) static void                              \
	name##_run(struct bench_worker *w)                                    \
	{ bench_worker_loop(w, name##_lock_op, name##_unlock_op); }

#endif /* PVSPIN_BENCH_WORKER_LOOP_H */

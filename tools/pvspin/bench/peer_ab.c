/*
 * bench/peer_ab.c - the A/B lock of `pvspin bench`: another revision's
 * spinpark, renamed (pvspin_spinpark_base_*) by tools/pvspin/bench/
 * ab_build.sh and compiled into the bench beside the working tree's, so
 * that both are measured in the same run, in alternating cells, on the same
 * machine state (this 2-vCPU guest's noise is about +-10 % between runs,
 * more than most changes to the lock make).  Built only when CMake's
 * PVSPIN_BENCH_AB_DIR names the directory of the renamed sources; a normal
 * build has no such lock.
 */
#include "bench/peers.h"
#include "bench/runner.h"
#include "bench/worker_loop.h"
#include "spinpark_base.h"   /* in PVSPIN_BENCH_AB_DIR */

static inline void ab_lock_op(void *l, void *c) { (void)c; pvspin_spinpark_base_lock(l); }
static inline void ab_unlock_op(void *l, void *c) { (void)c; pvspin_spinpark_base_unlock(l); }

/* Aligned as every other lock's loop (BENCH_PEER_LOOP): the loops'
 * placement in the text must not decide a few per cent. */
__attribute__((aligned(64))) void bench_ab_run(struct bench_worker *w)
{
	bench_worker_loop(w, ab_lock_op, ab_unlock_op);
}

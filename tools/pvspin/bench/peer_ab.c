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

BENCH_PEER_LOOP(spinpark_base, pvspin_spinpark_base_lock, pvspin_spinpark_base_unlock)

/* The table's entry (bench/peers.c) */
void bench_ab_run(struct bench_worker *w)
{
	spinpark_base_run(w);
}

/*
 * bench/placement.h - the placement of `pvspin bench`'s CPUs at one moment:
 * how long a cache line takes to go from one CPU to another and back.
 *
 * In a guest the host may move two vCPUs between "close" placements (SMT
 * siblings or a shared cache: a round trip of ~50-65 ns on this project's
 * 2-vCPU KVM guest) and "apart" ones (~270-540 ns) within minutes, and
 * every contended figure follows (docs/bench.md, "Placement").  The probe
 * measures it in about a millisecond, before each repeat of each cell.
 */
#ifndef PVSPIN_BENCH_PLACEMENT_H
#define PVSPIN_BENCH_PLACEMENT_H

#include <stddef.h>

/** Round trips per probe, timed in batches of BENCH_PLACEMENT_BATCH. */
#define BENCH_PLACEMENT_ROUND_TRIPS 2000
#define BENCH_PLACEMENT_BATCH       50
/** Time cap of one probe, ns, thread creation included: a descheduled
 *  thread ends the probe early instead of hanging it. */
#define BENCH_PLACEMENT_CAP_NS      5000000u

/**
 * Measure the cache-line round trip between the first two CPUs of the
 * process's affinity mask: two threads, each pinned to one of them,
 * bounce one 64-byte-aligned word (A writes 2k+1, B waits for it and
 * writes 2k+2, A waits for that) BENCH_PLACEMENT_ROUND_TRIPS times after
 * one untimed hand-shake.  Every wait spins with PAUSE and checks the
 * BENCH_PLACEMENT_CAP_NS deadline.
 *
 * Returns the median batch time / BENCH_PLACEMENT_BATCH, in ns (> 0); or
 * NAN ("not measured") when fewer than 2 CPUs are allowed, the shared
 * block (512 bytes, heap) cannot be allocated, a thread cannot be created
 * or pinned (pthread_create's error), or fewer than half the batches
 * completed before the deadline (a thread descheduled for most of it).
 * Prints nothing.  Takes about 1 ms (2000 x 0.05-0.5 us plus two thread
 * starts), at most the cap + 1 ms: a thread that has not ended by then
 * (its CPU held by a real-time task) is detached, ends at its next
 * deadline check and frees the block if it is the last user.
 *
 * Thread-safe, but two probes, or a probe beside other busy threads of
 * the process, measure each other: call it while nothing else runs.
 */
double bench_placement_probe(void);


#endif /* PVSPIN_BENCH_PLACEMENT_H */

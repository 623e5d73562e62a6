/*
 * qnode.h - MCS queue nodes shared by qspinlock and pvqspinlock, and the
 * tail encoding of the lock word.  After Linux kernel/locking/qspinlock.c
 * (struct qnode, encode_tail/decode_tail) and qspinlock_paravirt.h
 * (struct pv_node).  Private to src/lock.
 *
 * Each CPU slot owns PVSPIN_MAX_NODES nodes, one per nesting level (a lock
 * taken in a signal handler that interrupted a waiter uses the next one).
 * node[0].count is the slot's nesting depth; only the owning thread (and
 * its signal handlers) touches it, ordered by compiler barriers.
 */
#ifndef PVSPIN_SRC_LOCK_QNODE_H
#define PVSPIN_SRC_LOCK_QNODE_H

#include "pvspin/lock.h"
#include "pvspin/platform.h"

/** Nodes per slot (kernel _Q_MAX_NODES). */
#define PVSPIN_MAX_NODES 4

/** vCPU states of a PV node (kernel enum vcpu_state). */
enum pv_vcpu_state {
	VCPU_RUNNING = 0,
	VCPU_HALTED = 1,  /* only in pv_wait_node */
	VCPU_HASHED = 2,  /* hashed by the lock owner (or itself) + halted */
};

/** One MCS node, 32 bytes; 4 per slot share 2 cache lines. */
struct pvspin_qnode {
	struct pvspin_qnode *next; /* MCS successor, written by the successor */
	uint32_t locked;           /* MCS baton: 1 when this node is queue head */
	uint32_t count;            /* nesting depth (node[0] of a slot only) */
	uint32_t cpu;              /* owning slot (PV: whom to kick) */
	uint8_t state;             /* enum pv_vcpu_state (PV only) */
	uint8_t pad[11];
} __attribute__((aligned(32)));

/** The node array, [slot][nesting level]. */
extern struct pvspin_qnode pvspin_qnodes[PVSPIN_MAX_CPUS][PVSPIN_MAX_NODES]
	__attribute__((visibility("hidden")));

/** Tail of (cpu, idx): ((cpu + 1) << 18) | (idx << 16); 0 means no tail. */
static inline uint32_t encode_tail(int cpu, int idx)
{
	return ((uint32_t)(cpu + 1) << _Q_TAIL_CPU_OFFSET) |
	       ((uint32_t)idx << _Q_TAIL_IDX_OFFSET);
}

/** True if a non-zero tail names a node of the array: its CPU field
 *  (slot + 1) is 1 .. PVSPIN_MAX_CPUS.  The 14-bit field can say up to
 *  16383, and 0 with index bits set would name slot -1. */
static inline bool tail_in_range(uint32_t tail)
{
	uint32_t cpu_plus1 = tail >> _Q_TAIL_CPU_OFFSET;
	return cpu_plus1 >= 1 && cpu_plus1 <= PVSPIN_MAX_CPUS;
}

/** Node named by a non-zero tail in range (tail_in_range). */
static inline struct pvspin_qnode *decode_tail(uint32_t tail)
{
	uint32_t cpu = (tail >> _Q_TAIL_CPU_OFFSET) - 1;
	uint32_t idx = (tail & _Q_TAIL_IDX_MASK) >> _Q_TAIL_IDX_OFFSET;
	return &pvspin_qnodes[cpu][idx];
}

#endif /* PVSPIN_SRC_LOCK_QNODE_H */

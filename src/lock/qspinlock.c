/*
 * qspinlock.c - native queued spinlock slow path (pvspin/qspinlock.h).
 * After Linux kernel/locking/qspinlock.c: the slow path in
 * qspinlock_slowpath.h built with empty paravirt hooks.
 */
#include "pvspin/qspinlock.h"
#include "qnode.h"

#define QSPIN_PV 0
#define QSPIN_SLOWPATH pvspin_qspinlock_lock_slowpath
#define QSPIN_NAME "qspinlock"
#define QSPIN_TRYLOCK_FAILED pvspin_qspinlock_trylock_failed
#define queued_trylock pvspin_word_trylock
#define pv_init_node(node, cpu) ((void)(node), (void)(cpu))
#define pv_wait_node(node, prev) ((void)(node), (void)(prev))
#define pv_kick_node(lock, node) ((void)(lock), (void)(node))
#define pv_wait_head_or_lock(lock, node) ((void)(lock), (void)(node), 0u)

#include "qspinlock_slowpath.h"

/*
 * pvqspinlock.c - paravirtual queued spinlock slow paths
 * (pvspin/pvqspinlock.h).  After Linux kernel/locking/qspinlock_paravirt.h:
 *
 *  - hybrid unfair trylock: a waiter entering the slow path may steal the
 *    lock while no queue head spins on it (pending clear);
 *  - a queued waiter spins SPIN_THRESHOLD loops on its MCS baton, checking
 *    every PV_PREV_CHECK_LOOPS whether its predecessor still runs (halted
 *    predecessor: halt early), then sets HALTED and pv_wait()s;
 *  - deferred kick: the new owner does not kick a halted successor; it marks
 *    it HASHED, stores lock -> node in the hash table and sets the locked
 *    byte to _Q_SLOW_VAL; the unlock slow path unhashes and kicks;
 *  - the queue head sets pending while it spins (no stealing), and after
 *    SPIN_THRESHOLD hashes itself (once per acquisition), sets _Q_SLOW_VAL
 *    and halts on the locked byte.
 *
 * The lock -> node hash never overflows: a lock is hashed only while one of
 * its waiters is halted, and at most one node per lock is hashed, so the
 * entries in use never exceed the number of MCS nodes (PVSPIN_MAX_CPUS *
 * PVSPIN_MAX_NODES); the table has twice that many entries.
 */
#include "pvspin/pvqspinlock.h"
#include "pvspin/tunables.h"
#include "fork_repair.h"
#include "lock_hash.h"
#include "lock_state_reset.h"
#include "lock_steps.h"
#include "qnode.h"

#include <string.h>

/* Loops between two checks of the predecessor's state (kernel
 * PV_PREV_CHECK_MASK + 1). */
#define PV_PREV_CHECK_LOOPS 256u

/* ---- lock -> node hash (kernel pv_hash / pv_unhash) ---------------- */

#define PV_HASH_ENTRIES (2u * PVSPIN_MAX_CPUS * PVSPIN_MAX_NODES)

struct pv_hash_entry {
	pvspin_lock_t *lock;
	struct pvspin_qnode *node;
};

static struct pv_hash_entry pv_lock_hash[PV_HASH_ENTRIES];

static inline uint32_t pv_hash_index(const pvspin_lock_t *lock)
{
	return lock_hash(lock) % PV_HASH_ENTRIES;
}

/* Store lock -> node in the first free entry from the lock's home slot.
 * Returns the entry (its lock field is cleared to unhash). */
static struct pv_hash_entry *pv_hash(pvspin_lock_t *lock, struct pvspin_qnode *node)
{
	uint32_t i = pv_hash_index(lock), hops;

	for (hops = 0; hops < PV_HASH_ENTRIES; hops++, i = (i + 1) % PV_HASH_ENTRIES) {
		struct pv_hash_entry *he = &pv_lock_hash[i];
		void *empty = NULL;
		/* relaxed: the entry is published by the _Q_SLOW_VAL store after */
		if (pvspin_plat_cmpxchgptr((void **)&he->lock, &empty, lock, PVSPIN_RELAXED)) {
			pvspin_plat_storeptr((void **)&he->node, node, PVSPIN_RELAXED);
			if (hops)
				pvspin_plat_event_add(PVSPIN_EV_PV_HASH_HOPS, hops);
			return he;
		}
	}
	/* Unreachable by the sizing argument above. */
	pvspin_report_misuse("pvqspinlock: lock hash table full", lock,
			     pvspin_plat_load32(&lock->val, PVSPIN_RELAXED));
	return NULL;
}

void pvspin_pv_hash_reset(void)
{
	memset(pv_lock_hash, 0, sizeof(pv_lock_hash));
}

/* Find and remove lock's entry; NULL if absent (a corrupted lock). */
static struct pvspin_qnode *pv_unhash(pvspin_lock_t *lock)
{
	uint32_t i = pv_hash_index(lock), hops;

	for (hops = 0; hops < PV_HASH_ENTRIES; hops++, i = (i + 1) % PV_HASH_ENTRIES) {
		struct pv_hash_entry *he = &pv_lock_hash[i];
		if (pvspin_plat_loadptr((void *const *)&he->lock, PVSPIN_RELAXED) == lock) {
			struct pvspin_qnode *node =
				pvspin_plat_loadptr((void *const *)&he->node, PVSPIN_RELAXED);
			/* release: our reads of the entry happen before its reuse */
			pvspin_plat_storeptr((void **)&he->lock, NULL, PVSPIN_RELEASE);
			return node;
		}
	}
	return NULL;
}

/*
 * Remove every entry whose lock is not in keep[0 .. nkeep-1], for a
 * process in which the waiters of those locks no longer exist (a fork
 * child: fork_repair.c, which calls this only when a gone thread's wait
 * note names a pvqspinlock word, so an ordinary child does not read the
 * table).  Every entry belongs to a waiter inside lock(): the head that
 * hashed itself, or the halted successor the owner hashed, until the
 * owner's unlock takes it out; in the child the only such waiter can be
 * the forking thread, inside the lock() of a keep[] lock that a signal
 * handler interrupted.  The lock of an entry that goes is held with
 * _Q_SLOW_VAL (its unlocker would kick the hashed node's slot); with
 * nobody left to kick, (*,*,3) -> (*,*,1), so its unlock is the plain
 * one.  Not thread-safe: the caller is the only thread.
 */
void pvspin_pv_hash_drop(pvspin_lock_t *const *keep, uint32_t nkeep)
{
	for (uint32_t i = 0; i < PV_HASH_ENTRIES; i++) {
		struct pv_hash_entry *he = &pv_lock_hash[i];
		pvspin_lock_t *lock = pvspin_plat_loadptr((void *const *)&he->lock, PVSPIN_RELAXED);
		if (!lock || fork_repair_kept(keep, nkeep, lock))
			continue;
		if (pvspin_plat_load8(&lock->locked, PVSPIN_RELAXED) == _Q_SLOW_VAL)
			pvspin_plat_store8(&lock->locked, _Q_LOCKED_VAL, PVSPIN_RELAXED);
		pvspin_plat_storeptr((void **)&he->lock, NULL, PVSPIN_RELAXED);
	}
}

/* ---- hybrid unfair trylock (kernel pv_hybrid_queued_unfair_trylock) -- */

/* Stop waiting to steal: lock free, queue empty, or a head spins. */
static inline bool steal_wait_over(uint32_t v, uint32_t arg)
{
	(void)arg;
	return !(v & _Q_LOCKED_PENDING_MASK) || !(v & _Q_TAIL_MASK) ||
	       (v & _Q_PENDING_MASK);
}

/*
 * Steal the lock while no queue head spins on it, or return false to
 * queue.  The kernel's loop waits to steal for as long as the head is
 * halted: there the holder of a spinlock runs with preemption disabled
 * and never sleeps, so it is running on another (v)CPU and frees the lock
 * within one short critical section, and the stealer cannot be what keeps
 * it off a CPU.  A thread has none of that: the holder can be preempted
 * by any thread (by this very stealer, when it is SCHED_FIFO/SCHED_RR and
 * the holder is not), or block while holding (a pthread_spin holder that
 * sleeps), so the same loop can spin for the whole hold or for ever.  It
 * is therefore bounded by SPIN_THRESHOLD loops, the queued waiters'
 * budget; then the stealer queues, where it halts like any waiter.
 */
static bool pv_hybrid_trylock(pvspin_lock_t *lock)
{
	uint32_t val = pvspin_plat_load32(&lock->val, PVSPIN_RELAXED);
	uint32_t left = pvspin_tunable_get(PVSPIN_TUNE_SPIN_THRESHOLD), spent;

	for (;;) {
		/* (*,0,0) -> (*,0,1): steal, acquire */
		if (!(val & _Q_LOCKED_PENDING_MASK)) {
			uint8_t free_byte = 0;
			if (pvspin_plat_cmpxchg8(&lock->locked, &free_byte, _Q_LOCKED_VAL,
						 PVSPIN_ACQUIRE)) {
				pvspin_plat_event(PVSPIN_EV_PV_LOCK_STEALING);
				return true;
			}
		}
		/* No queue, or a spinning head: queue up instead. */
		if (!(val & _Q_TAIL_MASK) || (val & _Q_PENDING_MASK))
			return false;
		/* Queue exists but its head does not spin: keep trying to steal,
		 * for at most `left` more loops in all. */
		if (!left)
			return false;
		if (!pvspin_plat_wait32(&lock->val, steal_wait_over, 0, left, &val, &spent))
			return false;
		left -= spent < left ? spent : left;
	}
}

/* ---- PV hooks of the queued slow path ------------------------------ */

static void pv_init_node(struct pvspin_qnode *node, int cpu)
{
	pvspin_plat_store32(&node->cpu, (uint32_t)cpu, PVSPIN_RELAXED);
	pvspin_plat_store8(&node->state, VCPU_RUNNING, PVSPIN_RELAXED);
}

/* Halt early when the predecessor is not running (kernel pv_wait_early):
 * it cannot hand us the baton soon. */
static bool pv_wait_early(struct pvspin_qnode *prev, bool check_preempted)
{
	if (pvspin_plat_load8(&prev->state, PVSPIN_RELAXED) != VCPU_RUNNING)
		return true;
	return check_preempted &&
	       pvspin_plat_vcpu_is_preempted(
		       (int)pvspin_plat_load32(&prev->cpu, PVSPIN_RELAXED));
}

/*
 * Wait for the MCS baton: spin, then halt.  Returns when node->locked is
 * set (the caller's wait then provides acquire ordering).
 */
static void pv_wait_node(struct pvspin_qnode *node, struct pvspin_qnode *prev)
{
	uint32_t threshold = pvspin_tunable_get(PVSPIN_TUNE_SPIN_THRESHOLD), val;
	bool check_preempted = pvspin_tunable_get(PVSPIN_TUNE_EARLY_HALT_PREEMPTED);

	for (;;) {
		bool early = false;
		uint32_t left = threshold;

		while (left) {
			uint32_t chunk = left < PV_PREV_CHECK_LOOPS ? left : PV_PREV_CHECK_LOOPS;
			if (pvspin_plat_wait32(&node->locked, word_nonzero, 0, chunk, &val, NULL))
				return;
			left -= chunk;
			if (pv_wait_early(prev, check_preempted)) {
				early = true;
				break;
			}
		}

		/*
		 * RUNNING -> HALTED, then re-read the baton: seq_cst on both,
		 * pairing with the owner's baton store + cmpxchg in
		 * pv_kick_node (store-buffering: one of us sees the other).
		 */
		pvspin_plat_xchg8(&node->state, VCPU_HALTED, PVSPIN_SEQ_CST);
		if (!pvspin_plat_load32(&node->locked, PVSPIN_SEQ_CST)) {
			pvspin_plat_event(PVSPIN_EV_PV_WAIT_NODE);
			if (early)
				pvspin_plat_event(PVSPIN_EV_PV_WAIT_EARLY);
			pvspin_plat_pv_wait(&node->state, VCPU_HALTED);
		}

		/* HALTED -> RUNNING; if pv_kick_node() made us HASHED, keep it:
		 * the owner's unlock will kick us. */
		uint8_t halted = VCPU_HALTED;
		pvspin_plat_cmpxchg8(&node->state, &halted, VCPU_RUNNING, PVSPIN_RELAXED);

		if (pvspin_plat_load32(&node->locked, PVSPIN_RELAXED))
			return;
		pvspin_plat_event(PVSPIN_EV_PV_SPURIOUS_WAKEUP);
	}
}

/*
 * We hold the lock and passed the baton to `node`.  If it halted, do not
 * kick it now (it could not take the lock anyway): HALTED -> HASHED, set
 * _Q_SLOW_VAL and hash it, so our unlock kicks it (deferred kick).
 */
static void pv_kick_node(pvspin_lock_t *lock, struct pvspin_qnode *node)
{
	uint8_t halted = VCPU_HALTED;

	/* seq_cst: pairs with pv_wait_node's HALTED store + baton read */
	if (!pvspin_plat_cmpxchg8(&node->state, &halted, VCPU_HASHED, PVSPIN_SEQ_CST))
		return;
	/* (*,*,1) -> (*,*,3): only we (the owner) unlock, so program order
	 * suffices between this store, the hash and our unlock. */
	pvspin_plat_store8(&lock->locked, _Q_SLOW_VAL, PVSPIN_RELAXED);
	pv_hash(lock, node);
}

/* The head took the lock: (*,1,0) -> (*,0,1) (acquire). */
static inline bool trylock_clear_pending(pvspin_lock_t *lock)
{
	uint16_t pending_only = _Q_PENDING_VAL;
	return !pvspin_plat_load8(&lock->locked, PVSPIN_RELAXED) &&
	       pvspin_plat_cmpxchg16(&lock->locked_pending, &pending_only,
				     _Q_LOCKED_VAL, PVSPIN_ACQUIRE);
}

/*
 * Queue head: spin with pending set, then hash ourselves once, set
 * _Q_SLOW_VAL and halt until the unlocker kicks.  Returns the lock word
 * with the locked byte set: we hold the lock.
 */
static uint32_t pv_wait_head_or_lock(pvspin_lock_t *lock, struct pvspin_qnode *node)
{
	uint32_t threshold = pvspin_tunable_get(PVSPIN_TUNE_SPIN_THRESHOLD);
	/* Already hashed by the previous owner (pv_kick_node)? Then never
	 * hash again in this acquisition. */
	bool hashed = pvspin_plat_load8(&node->state, PVSPIN_RELAXED) == VCPU_HASHED;
	uint32_t waitcnt, val, spent;

	for (waitcnt = 0;; waitcnt++) {
		uint32_t left = threshold;

		pvspin_plat_store8(&node->state, VCPU_RUNNING, PVSPIN_RELAXED);
		/* (*,0,*) -> (*,1,*): stealers back off while we spin */
		set_pending(lock);
		while (left) {
			pvspin_plat_wait32(&lock->val, word_unlocked, 0, left, &val, &spent);
			if (trylock_clear_pending(lock))
				goto gotlock;
			left -= spent < left ? (spent ? spent : 1) : left;
		}
		/* (*,1,*) -> (*,0,*) */
		clear_pending(lock);

		if (!hashed) {
			struct pv_hash_entry *he = pv_hash(lock, node);
			hashed = true;
			/* (*,*,x) -> (*,*,3), acq_rel: publishes the entry to the
			 * unlocker; if the lock was free (x == 0), it is ours. */
			if (pvspin_plat_xchg8(&lock->locked, _Q_SLOW_VAL, PVSPIN_ACQ_REL) == 0) {
				/* (*,*,3) -> (*,*,1) and unhash ourselves */
				pvspin_plat_store8(&lock->locked, _Q_LOCKED_VAL, PVSPIN_RELAXED);
				if (he)
					pvspin_plat_storeptr((void **)&he->lock, NULL, PVSPIN_RELEASE);
				goto gotlock;
			}
		}
		pvspin_plat_store8(&node->state, VCPU_HASHED, PVSPIN_RELAXED);
		pvspin_plat_event(PVSPIN_EV_PV_WAIT_HEAD);
		if (waitcnt)
			pvspin_plat_event(PVSPIN_EV_PV_WAIT_AGAIN);
		/* halt while the locked byte is _Q_SLOW_VAL */
		pvspin_plat_pv_wait(&lock->locked, _Q_SLOW_VAL);
	}

gotlock:
	return pvspin_plat_load32(&lock->val, PVSPIN_RELAXED) | _Q_LOCKED_VAL;
}

/* ---- the generated lock slow path ---------------------------------- */

#define QSPIN_PV 1
#define QSPIN_SLOWPATH pvspin_pvqspinlock_lock_slowpath
#define QSPIN_NAME "pvqspinlock"
#define QSPIN_TRYLOCK_FAILED pvspin_pvqspinlock_trylock_failed
#define queued_trylock pv_hybrid_trylock
#include "qspinlock_slowpath.h"

/* ---- unlock slow path (kernel __pv_queued_spin_unlock_slowpath) ---- */

void pvspin_pvqspinlock_unlock_slowpath(pvspin_lock_t *lock, uint8_t locked)
{
	struct pvspin_qnode *node;

	if (locked != _Q_SLOW_VAL) {
		pvspin_report_misuse(locked == 0
				     ? "pvqspinlock: unlock of a lock that is not locked"
				     : "pvqspinlock: corrupted locked byte",
				     lock, pvspin_plat_load32(&lock->val, PVSPIN_RELAXED));
		return;
	}

	/* acquire: see the hash entry published before _Q_SLOW_VAL */
	(void)pvspin_plat_load8(&lock->locked, PVSPIN_ACQUIRE);
	node = pv_unhash(lock);
	if (!node) {
		pvspin_report_misuse("pvqspinlock: _Q_SLOW_VAL lock missing from the hash",
				     lock, pvspin_plat_load32(&lock->val, PVSPIN_RELAXED));
		return;
	}

	/* (*,*,3) -> (*,*,0), release; then kick the halted waiter.  The
	 * node's cpu never changes (a node belongs to one slot). */
	pvspin_plat_store8(&lock->locked, 0, PVSPIN_RELEASE);
	pvspin_plat_event(PVSPIN_EV_PV_KICK_UNLOCK);
	pvspin_plat_pv_kick((int)pvspin_plat_load32(&node->cpu, PVSPIN_RELAXED));
}

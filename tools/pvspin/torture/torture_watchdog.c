/*
 * torture_watchdog.c - the stall watchdog of `pvspin torture` and its dump
 * of the lock word, the MCS queue and each writer's pv state.
 *
 * A lost wakeup shows as a waiter that is not served although the lock is
 * free for it.  Two rules, sampled by the main thread about every ms:
 *
 *  1. free lock, waiting writer, no progress: in every sample for
 *     stall_ms no writer held the lock or was releasing it, the kind's
 *     word (if it has a pvspin word) read unlocked, and no writer completed
 *     an acquisition, while some writer has been inside its lock call for
 *     at least stall_ms.  Catches a queue that nobody serves (a lost MCS
 *     hand-over, a lost wakeup of a FIFO lock).  The progress condition
 *     matters for the fair kinds under overcommit: their holds are a few
 *     us, so ~1 kHz samples almost never see them held, and a hand-off to
 *     a preempted queue head can take tens of ms; without it a slow but
 *     moving queue (8 writers on 2 CPUs: ~100 acquisitions/s) read "free in
 *     every sample" for seconds and fired (two 10-minute qspinlock runs).
 *  2. orphaned halt (pv kinds): a waiting writer is halted in pv_wait (its
 *     slot's futex word reads SLEEPING), its MCS node is HASHED, and the
 *     locked byte is not _Q_SLOW_VAL, in every sample for stall_ms.  A
 *     HASHED halted node is woken only by the unlock slow path that
 *     _Q_SLOW_VAL triggers; without it nobody is left to kick the waiter
 *     (pvqspinlock lets other threads steal the lock meanwhile, so the lock
 *     word alone never stays free).
 *
 * Injected stops last at most 20 ms and real preemption a few ms, so a
 * correct lock never meets either rule for a stall_ms of hundreds of ms.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "pvspin/platform.h"
#include "pvspin/spinpark.h"
#include "lock/qnode.h"
#include "torture.h"
#include "cmd.h"

static const char *const phase_names[] = {
	[TW_IDLE] = "idle", [TW_WAITING] = "waiting", [TW_HOLDING] = "holding",
	[TW_UNLOCKING] = "unlocking", [TW_DONE] = "done",
};

static const char *const state_names[] = {
	[VCPU_RUNNING] = "RUNNING", [VCPU_HALTED] = "HALTED", [VCPU_HASHED] = "HASHED",
};

static const char *phase_name(uint32_t p)
{
	return p <= TW_DONE ? phase_names[p] : "?";
}

static const char *state_name(uint8_t s)
{
	return s <= VCPU_HASHED ? state_names[s] : "?";
}

static bool word_reads_free(enum torture_word_layout layout, uint32_t w)
{
	switch (layout) {
	case TORTURE_WORD_QSPIN:
	case TORTURE_WORD_BYTE:
	case TORTURE_WORD_SPINPARK:
		return !(w & _Q_LOCKED_MASK);
	case TORTURE_WORD_TICKET:
		return (w & 0xffffu) == (w >> 16);
	default:
		return true;
	}
}

/* CPU time a writer has used, ns (0 if unknown). */
static uint64_t writer_cpu_ns(const struct torture_writer *w)
{
	struct timespec ts;
	if (!w->has_cpu_clock || clock_gettime(w->cpu_clock, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Thread tid's state letter (R, S, D, T, ...) in *state and, if cpu is
 * not NULL, the CPU it last ran on (field 39) in *cpu, from
 * /proc/self/task/TID/stat.  False if it cannot be read (the thread has
 * exited). */
static bool os_stat(pid_t tid, char *state, int *cpu)
{
	char path[64], line[512];
	bool ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(line, sizeof(line), f)) {
		char *p = strrchr(line, ')');   /* the name may contain spaces */
		if (p && p[1] == ' ' && p[2]) {
			*state = p[2];
			ok = true;
			int field = 3;
			for (char *q = p + 2; cpu && *q && field < 39; q++)
				if (*q == ' ' && ++field == 39)
					*cpu = atoi(q + 1);
		}
	}
	fclose(f);
	return ok;
}

char torture_os_state(pid_t tid)
{
	char state = 0;
	return os_stat(tid, &state, NULL) ? state : 0;
}

/* CPU time a waiter must have used while the lock was free to count as
 * "it ran and was not served". */
#define RAN_CPU_NS 10000000u

/* The time a thread has spent runnable but not running (waiting on a run
 * queue), ns: the second field of /proc/self/task/TID/schedstat
 * (CONFIG_SCHED_INFO).  False if it cannot be read. */
static bool rq_wait_ns(pid_t tid, uint64_t *ns)
{
	char path[64];
	unsigned long long run, wait;
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	bool ok = fscanf(f, "%llu %llu", &run, &wait) == 2;
	fclose(f);
	*ns = wait;
	return ok;
}

/* The time the injector has kept writer w stopped, ns, the current stop
 * included. */
static uint64_t torture_stopped_ns(const struct torture_writer *w, uint64_t now)
{
	uint64_t begin = __atomic_load_n(&w->stop_begin_ns, __ATOMIC_RELAXED);
	return __atomic_load_n(&w->stop_total_ns, __ATOMIC_RELAXED) +
	       (begin && begin < now ? now - begin : 0);
}

/* Start a rule-1 period at `now`: each writer's CPU time, run-queue wait
 * and injected stop time from here on are what the period is judged by. */
static void free_period_start(struct torture *t, struct torture_watchdog *wd, uint64_t now)
{
	wd->free_since_ns = now;
	for (int i = 0; i < t->nthreads; i++) {
		struct torture_writer *w = &t->writers[i];
		w->cpu_at_free_ns = writer_cpu_ns(w);
		if (!rq_wait_ns(w->tid, &w->rq_at_free_ns))
			w->rq_at_free_ns = UINT64_MAX;
		w->stop_at_free_ns = torture_stopped_ns(w, now);
	}
}

/* Has some writer been inside its unlock call since `since`?  Then the
 * kick may still come (it was descheduled between its store of 0 and its
 * kick): excuse the period, note it, and return true. */
static bool unlocker_since(struct torture *t, uint64_t since, struct torture_watchdog *wd,
			   uint64_t now)
{
	for (int i = 0; i < t->nthreads; i++) {
		struct torture_writer *u = &t->writers[i];
		if (__atomic_load_n(&u->phase, __ATOMIC_ACQUIRE) == TW_UNLOCKING &&
		    __atomic_load_n(&u->unlock_start_ns, __ATOMIC_RELAXED) <= since) {
			wd->os_delays++;
			printf("note: a waiter is halted without a kick for %.0f ms, but writer %d "
			       "has been inside its unlock call as long: scheduler delay, not a "
			       "lost wakeup; watching on\n", (double)(now - since) / 1e6, u->id);
			pvspin_stdout_flush();
			for (int j = 0; j < t->nthreads; j++)
				t->writers[j].orphan_since_ns = 0;
			return true;
		}
	}
	return false;
}

/* The writer's node at nesting level 0 (the torture never nests). */
static struct pvspin_qnode *writer_node(const struct torture_writer *w)
{
	return w->slot >= 0 ? &pvspin_qnodes[w->slot][0] : NULL;
}

bool torture_watchdog_sample(struct torture *t, struct torture_watchdog *wd, uint64_t now)
{
	const struct torture_kind *k = t->kind;
	uint64_t stall_ns = (uint64_t)t->stall_ms * 1000000u;
	uint32_t word = torture_lock_word();
	bool free_now = word_reads_free(k->layout, word);
	struct torture_writer *longest = NULL;
	uint64_t longest_ns = 0;

	if (wd->fired)
		return false;
	for (int i = 0; i < t->nthreads; i++) {
		struct torture_writer *w = &t->writers[i];
		uint32_t phase = __atomic_load_n(&w->phase, __ATOMIC_ACQUIRE);
		if (phase == TW_HOLDING || phase == TW_UNLOCKING)
			free_now = false;
		if (phase != TW_WAITING) {
			w->orphan_since_ns = 0;
			continue;
		}
		uint64_t start = __atomic_load_n(&w->wait_start_ns, __ATOMIC_RELAXED);
		if (start && now > start && now - start > longest_ns) {
			longest_ns = now - start;
			longest = w;
		}
		/* rule 2 */
		struct pvspin_qnode *node = writer_node(w);
		bool orphan = k->pv && node &&
			pvspin_plat_vcpu_is_preempted(w->slot) &&
			__atomic_load_n(&node->state, __ATOMIC_RELAXED) == VCPU_HASHED &&
			(word & _Q_LOCKED_MASK) != _Q_SLOW_VAL;
		if (!orphan) {
			w->orphan_since_ns = 0;
		} else if (!w->orphan_since_ns) {
			w->orphan_since_ns = now;
		} else if (now - w->orphan_since_ns >= stall_ns &&
			   !unlocker_since(t, w->orphan_since_ns, wd, now)) {
			printf("!!! stall: writer %d (tid %d) is halted in pv_wait with its node "
			       "HASHED while the locked byte is not _Q_SLOW_VAL, for %.0f ms: "
			       "nobody is left to kick it (lost wakeup)\n",
			       w->id, (int)w->tid, (double)(now - w->orphan_since_ns) / 1e6);
			wd->fired = true;
		}
	}

	/* rule 1: a completed acquisition since the last sample is progress */
	uint64_t acq = 0;
	for (int i = 0; i < t->nthreads; i++)
		acq += __atomic_load_n(&t->writers[i].acquisitions, __ATOMIC_RELAXED);
	if (acq != wd->acquisitions)
		free_now = false;
	wd->acquisitions = acq;
	if (!free_now) {
		wd->free_since_ns = 0;
	} else if (!wd->free_since_ns) {
		free_period_start(t, wd, now);
	}
	if (!wd->fired && wd->free_since_ns && now - wd->free_since_ns >= stall_ns &&
	    longest && longest_ns >= stall_ns) {
		/* Did every waiter have its chance?  One that ran (used CPU time)
		 * did; one that spent at least half the period runnable but not
		 * run (its run-queue wait, schedstat), or stopped by the
		 * injector, did not: the scheduler's or the injector's delay,
		 * not a lost wakeup.  One that did neither slept in the lock,
		 * and had its chance.  The injector's stops last 20 ms at most,
		 * so a waiter it happens to hold now was free for most of the
		 * period: an injected stop excused every such period (a new
		 * user's `lost_handoff` runs: 3 of 3 were never caught by this
		 * rule).  Without schedstat, the thread's state letter stands
		 * in: runnable (not S or D) and not run is excused. */
		uint64_t period = now - wd->free_since_ns;
		for (int i = 0; i < t->nthreads; i++) {
			struct torture_writer *w = &t->writers[i];
			if (__atomic_load_n(&w->phase, __ATOMIC_ACQUIRE) != TW_WAITING)
				continue;
			if (writer_cpu_ns(w) >= w->cpu_at_free_ns + RAN_CPU_NS)
				continue;   /* it ran */
			uint64_t rq, stopped = torture_stopped_ns(w, now) - w->stop_at_free_ns;
			bool os_delay;
			if (w->rq_at_free_ns != UINT64_MAX && rq_wait_ns(w->tid, &rq)) {
				os_delay = rq >= w->rq_at_free_ns && 2 * (rq - w->rq_at_free_ns) >= period;
			} else {
				char st = torture_os_state(w->tid);
				os_delay = st != 'S' && st != 'D' && !__atomic_load_n(&w->stopped,
										       __ATOMIC_RELAXED);
			}
			bool injected = 2 * stopped >= period;
			if (os_delay || injected) {
				wd->os_delays++;
				printf("note: lock free for %.0f ms but writer %d (tid %d) %s; "
				       "watching on\n", (double)period / 1e6, w->id, (int)w->tid,
				       injected ? "was stopped by the injector for most of it: an "
						  "injected delay, not a lost wakeup"
						: "was runnable and not run by the OS for most of it: "
						  "scheduler delay, not a lost wakeup");
				pvspin_stdout_flush();
				free_period_start(t, wd, now);   /* start a new period */
				return false;
			}
		}
		printf("!!! stall: writer %d (tid %d) has waited %.0f ms while the lock read "
		       "free in every sample for %.0f ms (waiter not served)\n",
		       longest->id, (int)longest->tid, (double)longest_ns / 1e6,
		       (double)(now - wd->free_since_ns) / 1e6);
		wd->fired = true;
	}
	if (wd->fired)
		torture_dump(t, "!!! ");
	return wd->fired;
}

static struct torture_writer *writer_of_slot(struct torture *t, uint32_t slot)
{
	for (int i = 0; i < t->nthreads; i++)
		if (t->writers[i].slot >= 0 && (uint32_t)t->writers[i].slot == slot)
			return &t->writers[i];
	return NULL;
}

static void dump_queue(struct torture *t, uint32_t word, const char *prefix)
{
	struct pvspin_qnode *chain[64];
	int n = 0;

	if (!(word & _Q_TAIL_MASK)) {
		printf("%squeue: empty\n", prefix);
		return;
	}
	/* Walk back from the tail: the predecessor of a node is the writer
	 * node whose next points to it (the MCS links go forward only). */
	chain[n++] = decode_tail(word & _Q_TAIL_MASK);
	while (n < 64) {
		struct pvspin_qnode *prev = NULL;
		for (int i = 0; i < t->nthreads && !prev; i++) {
			/* only a waiting writer's node can be queued (others
			 * keep stale next pointers) */
			if (__atomic_load_n(&t->writers[i].phase, __ATOMIC_RELAXED) != TW_WAITING)
				continue;
			struct pvspin_qnode *cand = writer_node(&t->writers[i]);
			if (cand && __atomic_load_n(&cand->next, __ATOMIC_RELAXED) == chain[n - 1])
				prev = cand;
		}
		bool seen = false;
		for (int j = 0; j < n; j++)
			seen |= chain[j] == prev;
		if (!prev || seen)
			break;
		chain[n++] = prev;
	}
	printf("%squeue (head first, %d node%s reached from the tail):\n", prefix, n,
	       n == 1 ? "" : "s");
	for (int j = n - 1; j >= 0; j--) {
		struct pvspin_qnode *q = chain[j];
		uint32_t cpu = (uint32_t)((q - &pvspin_qnodes[0][0]) / PVSPIN_MAX_NODES);
		struct torture_writer *w = writer_of_slot(t, cpu);
		printf("%s  node slot %u idx %d: writer %d, baton(locked)=%u, ", prefix, cpu,
		       (int)((q - &pvspin_qnodes[0][0]) % PVSPIN_MAX_NODES), w ? w->id : -1,
		       __atomic_load_n(&q->locked, __ATOMIC_RELAXED));
		if (t->kind->pv)
			printf("state=%s, ", state_name(__atomic_load_n(&q->state, __ATOMIC_RELAXED)));
		printf("next=%s%s\n", __atomic_load_n(&q->next, __ATOMIC_RELAXED) ? "linked" : "none",
		       !t->kind->pv ? "" : pvspin_plat_vcpu_is_preempted((int)cpu)
		       ? ", vCPU halted (futex SLEEPING)" : ", vCPU running");
	}
}

/* The kernel's view of a thread: state letter (R running or runnable, S
 * sleeping, T stopped...) and the CPU it last ran on ("R/1"); "?" if
 * unreadable. */
static void os_state(pid_t tid, char *buf, size_t len)
{
	char state;
	int cpu = -1;
	if (os_stat(tid, &state, &cpu))
		snprintf(buf, len, "%c/%d", state, cpu);
	else
		snprintf(buf, len, "?");
}

/* Print where a PC is: the object that contains it and the offset that
 * `addr2line -e OBJECT OFFSET` takes. */
static void print_pc(const char *prefix, uint64_t pc, uint32_t count)
{
	Dl_info info;
	if (dladdr((void *)(uintptr_t)pc, &info) && info.dli_fname)
		printf("%s        at pc 0x%llx (addr2line -e %s 0x%llx), nesting count %u\n",
		       prefix, (unsigned long long)pc, info.dli_fname,
		       (unsigned long long)(pc - (uintptr_t)info.dli_fbase), count);
	else
		printf("%s        at pc 0x%llx (no object found), nesting count %u\n",
		       prefix, (unsigned long long)pc, count);
}

/* Ask every waiting writer where it is (its signal handler records the
 * interrupted PC and its MCS nesting count); wait up to 50 ms for the
 * answers.  A writer parked by the injector answers later, or not. */
static void diag_request(struct torture *t, uint32_t *seq0)
{
	for (int i = 0; i < t->nthreads; i++) {
		struct torture_writer *w = &t->writers[i];
		seq0[i] = __atomic_load_n(&w->diag_seq, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&w->phase, __ATOMIC_ACQUIRE) == TW_WAITING)
			pthread_kill(w->thread, TORTURE_SIG_DIAG);
	}
	for (int ms = 0; ms < 50; ms++) {
		int missing = 0;
		for (int i = 0; i < t->nthreads; i++)
			missing += __atomic_load_n(&t->writers[i].phase, __ATOMIC_ACQUIRE) == TW_WAITING &&
				   __atomic_load_n(&t->writers[i].diag_seq, __ATOMIC_ACQUIRE) == seq0[i];
		if (!missing)
			break;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

void torture_dump(struct torture *t, const char *prefix)
{
	const struct torture_kind *k = t->kind;
	uint32_t word = torture_lock_word();
	uint64_t now = tool_now_ns();

	switch (k->layout) {
	case TORTURE_WORD_QSPIN: {
		uint32_t tail = word & _Q_TAIL_MASK, locked = word & _Q_LOCKED_MASK;
		printf("%slock word 0x%08x: tail %s", prefix, word, tail ? "" : "none");
		if (tail)
			printf("cpu %u idx %u", (tail >> _Q_TAIL_CPU_OFFSET) - 1,
			       (tail & _Q_TAIL_IDX_MASK) >> _Q_TAIL_IDX_OFFSET);
		printf(", pending %u, locked %u%s\n", (word & _Q_PENDING_MASK) >> _Q_PENDING_OFFSET,
		       locked, locked == _Q_SLOW_VAL ? " (_Q_SLOW_VAL)" : "");
		dump_queue(t, word, prefix);
		break;
	}
	case TORTURE_WORD_TICKET:
		printf("%slock word 0x%08x: owner %u, next %u (%u waiting)\n", prefix, word,
		       word & 0xffffu, word >> 16, (uint16_t)((word >> 16) - (word & 0xffffu)));
		break;
	case TORTURE_WORD_BYTE:
		printf("%slock word 0x%08x: locked %u\n", prefix, word, word & _Q_LOCKED_MASK);
		break;
	case TORTURE_WORD_SPINPARK:
		printf("%slock word 0x%08x: parked %u, budget %u, %s%sspinners %u, locked %u%s\n",
		       prefix, word, word >> _SP_PARKED_OFFSET,
		       (word & _SP_BUDGET_MASK) >> _SP_BUDGET_OFFSET,
		       word & _SP_WOKEN ? "WOKEN, " : "", word & _SP_STARVING ? "STARVING, " : "",
		       (word & _SP_SPINNERS_MASK) >> _SP_SPINNER_OFFSET, word & _SP_LOCKED_MASK,
		       (word & _SP_LOCKED_MASK) == _SP_HANDOFF ? " (handed off)" : "");
		break;
	default:
		printf("%slock: %s (no pvspin word to show)\n", prefix, k->name);
		break;
	}
	uint32_t seq0[t->nthreads];
	diag_request(t, seq0);
	printf("%swriter   tid     phase      waited_ms  acquisitions  stopped  os   slot  node\n",
	       prefix);
	for (int i = 0; i < t->nthreads; i++) {
		struct torture_writer *w = &t->writers[i];
		uint32_t phase = __atomic_load_n(&w->phase, __ATOMIC_ACQUIRE);
		uint64_t start = __atomic_load_n(&w->wait_start_ns, __ATOMIC_RELAXED);
		struct pvspin_qnode *node = writer_node(w);
		char nodebuf[96] = "-";

		char os[16];

		if (k->pv && node)
			snprintf(nodebuf, sizeof(nodebuf), "state=%s baton=%u vCPU %s",
				 state_name(__atomic_load_n(&node->state, __ATOMIC_RELAXED)),
				 __atomic_load_n(&node->locked, __ATOMIC_RELAXED),
				 pvspin_plat_vcpu_is_preempted(w->slot) ? "halted" : "running");
		else if (k->layout == TORTURE_WORD_QSPIN && node)
			snprintf(nodebuf, sizeof(nodebuf), "baton=%u",
				 __atomic_load_n(&node->locked, __ATOMIC_RELAXED));
		os_state(w->tid, os, sizeof(os));
		printf("%s%6d  %6d  %-9s  %9.1f  %12llu  %-7s  %-4s %4d  %s\n", prefix, w->id,
		       (int)w->tid, phase_name(phase),
		       phase == TW_WAITING && start && now > start ? (double)(now - start) / 1e6 : 0.0,
		       (unsigned long long)__atomic_load_n(&w->acquisitions, __ATOMIC_RELAXED),
		       __atomic_load_n(&w->stopped, __ATOMIC_RELAXED) ? "yes" :
		       __atomic_load_n(&w->stop_req, __ATOMIC_RELAXED) ? "req" : "no",
		       os, w->slot, nodebuf);
		if (__atomic_load_n(&w->diag_seq, __ATOMIC_ACQUIRE) != seq0[i])
			print_pc(prefix, w->diag_pc, w->diag_count);
	}
	pvspin_stdout_flush();
}

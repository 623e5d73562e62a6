/*
 * torture.h - shared state of `pvspin torture` (tools/pvspin/cmd_torture.c):
 * the writers, the lock kinds under test, preemption injection and the
 * stall watchdog.  After Linux kernel/locking/locktorture.c (writers, random
 * short and rare long holds, a deliberately broken lock, per-writer counts,
 * "???" for starvation, "!!!" for failures, final SUCCESS or FAILURE); the
 * code is our own.
 *
 * Threads: the writers (one per --threads), one injector thread
 * (torture_inject.c) and the main thread (statistics and watchdog).  All
 * fields shared between them are read and written with __atomic builtins.
 */
#ifndef PVSPIN_TOOLS_TORTURE_H
#define PVSPIN_TOOLS_TORTURE_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "pvspin/lock.h"
#include "clock_random.h"

/** Real-time signal asking a writer where it is (stall diagnosis). */
#define TORTURE_SIG_DIAG (SIGRTMIN + 4)

/* ---- the lock kinds under test (torture_locks.c) -------------------- */

/** How a kind's 4-byte word reads, for the watchdog and the dump. */
enum torture_word_layout {
	TORTURE_WORD_NONE,    /* no pvspin word (pthread kinds) */
	TORTURE_WORD_QSPIN,   /* tail / pending / locked byte (pvspin/lock.h) */
	TORTURE_WORD_TICKET,  /* owner (bits 0-15) / next (bits 16-31) */
	TORTURE_WORD_BYTE,    /* locked byte only (tas, busted) */
	TORTURE_WORD_SPINPARK,/* parked / budget / flags / spinners / locked (pvspin/spinpark.h) */
};

/** One kind `pvspin torture --lock` accepts. */
struct torture_kind {
	const char *name;         /* "qspinlock", ..., "busted", "lost_kick" */
	const char *what;         /* one-line description for --help */
	bool broken;              /* deliberately broken: torture must fail */
	bool pv;                  /* has pvqspinlock nodes and halt state */
	bool fair_spin;           /* hands the lock to one given waiter and never
				   * sleeps (qspinlock, ticket): with hundreds of
				   * writers per CPU each hand-off waits for the
				   * scheduler */
	enum torture_word_layout layout;
	void (*lock)(void);       /* take the one tortured lock */
	void (*unlock)(void);     /* release it */
};

/** The kinds, NULL-name terminated. */
extern const struct torture_kind torture_kinds[];

/** Kind named `name`, or NULL. */
const struct torture_kind *torture_kind_find(const char *name);

/** Valid names joined by ", " (for error messages). */
const char *torture_kind_names(void);

/** For the pthread kinds: the file name of the shared object whose
 *  pthread_mutex_lock / pthread_spin_lock the torture calls (glibc, or
 *  the interposer under `pvspin run`), "?" if unknown; NULL for other
 *  kinds. */
const char *torture_lock_provider(const struct torture_kind *kind);

/** Current value of the tortured pvspin lock word (relaxed snapshot; 0
 *  for the pthread kinds). */
uint32_t torture_lock_word(void);

/** Kicks the lost_kick kind has dropped so far. */
uint64_t torture_lost_kicks(void);

/* lost_kick: pvqspinlock compiled again with pv_kick dropping every kick
 * (torture_lost_kick.c).  Lock / unlock `lock`; thread-safe, broken. */
void torture_lost_kick_lock(pvspin_lock_t *lock);
void torture_lost_kick_unlock(pvspin_lock_t *lock);

/* lost_handoff: the native qspinlock slow path compiled again with the new
 * owner taking back the MCS baton in 1 of 16 hand-overs
 * (torture_lost_handoff.c).  Lock / unlock `lock`; broken. */
void torture_lost_handoff_lock(pvspin_lock_t *lock);
void torture_lost_handoff_unlock(pvspin_lock_t *lock);

/** Batons lost_handoff took back before the successor saw them. */
uint64_t torture_lost_handoffs(void);

/* ---- writers ------------------------------------------------------- */

/** Where a writer is in its loop (struct torture_writer.phase). */
enum torture_phase {
	TW_IDLE = 0,      /* outside the lock: non-critical work */
	TW_WAITING,       /* inside the lock call */
	TW_HOLDING,       /* in the critical section */
	TW_UNLOCKING,     /* inside the unlock call */
	TW_DONE,          /* left its loop */
};

/** One writer thread.  Cache-line aligned: the writer updates its own
 *  counters on every acquisition. */
struct torture_writer {
	int id;                   /* 0 .. nthreads-1 */
	pthread_t thread;
	pid_t tid;                /* kernel thread id (for the dump) */
	int slot;                 /* pvspin_plat_cpu() of the writer, -1 if none */
	uint64_t rng;             /* writer-private random state */
	/* written by the writer, read by the main thread (atomics) */
	uint32_t phase;           /* enum torture_phase */
	uint64_t acquisitions;    /* completed lock/unlock pairs */
	uint64_t wait_start_ns;   /* start of the current lock call */
	uint64_t unlock_start_ns; /* start of the current unlock call */
	uint64_t max_wait_ns;     /* longest completed lock call */
	/* preemption injection (torture_inject.c) */
	uint32_t stop_req;        /* 1: park in the stop handler until 0 */
	uint32_t stopped;         /* 1 while parked (written by the writer) */
	uint64_t resume_at_ns;    /* injector-private: when to continue it */
	uint64_t unpin_at_ns;     /* injector-private: when to restore affinity */
	uint64_t stop_begin_ns;   /* atomic: start of the current injected stop, 0: none */
	uint64_t stop_total_ns;   /* atomic: injected stops ended so far, ns */
	clockid_t cpu_clock;      /* the writer's CPU-time clock */
	bool has_cpu_clock;
	/* watchdog bookkeeping (main thread only) */
	uint64_t orphan_since_ns; /* halted with nobody left to kick it, since */
	uint64_t cpu_at_free_ns;  /* its CPU time when the lock was last seen taken */
	uint64_t rq_at_free_ns;   /* its run-queue wait (schedstat) then */
	uint64_t stop_at_free_ns; /* its injected stop time (torture_stopped_ns) then */
	/* stall diagnosis (torture_dump): written by the writer's signal handler */
	uint64_t diag_pc;         /* interrupted program counter */
	uint32_t diag_count;      /* its node[0] nesting count at that moment */
	uint32_t diag_seq;        /* bumped by each answer */
} __attribute__((aligned(64)));

/** The run's parameters and shared state. */
struct torture {
	const struct torture_kind *kind;
	int nthreads;
	uint32_t seconds;
	uint32_t long_hold_ms;
	uint64_t seed;
	uint32_t stats_interval;  /* seconds, 0 = final report only */
	uint32_t stall_ms;
	uint32_t spin_threshold;  /* 0 = library default */
	bool inject;              /* preemption injection on */
	struct torture_writer *writers;
	/* shared */
	uint32_t ready;           /* writers that have filled in tid, slot and clock; a futex */
	uint32_t go;              /* writers start when set (all created); a futex */
	uint32_t stop;            /* writers and injector leave their loops */
	uint32_t cs_holders;      /* holders inside the critical section */
	uint64_t cs_counter;      /* plain counter, incremented under the lock */
	int cs_owner;             /* plain, written under the lock */
	uint64_t failures;        /* mutual-exclusion failures seen */
	uint64_t yields;          /* sched_yield()s inside the critical section */
	uint64_t long_holds;
	uint64_t stops, pins;     /* injected stops and affinity changes */
};

/* ---- preemption injection (torture_inject.c) ----------------------- */

/** Install the stop/continue signal handlers (process-wide).  Returns 0 or
 *  -1 with errno. */
int torture_inject_install(void);

/** Called by each writer at its start: lets the stop handler find it. */
void torture_inject_register_writer(struct torture_writer *w);

/** The injector thread's body (arg: struct torture *): until t->stop,
 *  every 1-5 ms either stops a random writer for 1-20 ms (a real-time
 *  signal whose handler parks in sigsuspend) or pins one to a random CPU
 *  for 10-100 ms (pthread_setaffinity_np); at the end continues and
 *  unpins everyone. */
void *torture_inject_main(void *arg);

/* ---- stall watchdog and dump (torture_watchdog.c) ------------------ */

/** Watchdog state of the main thread. */
struct torture_watchdog {
	uint64_t free_since_ns;   /* lock read free in every sample since, or 0 */
	uint64_t acquisitions;    /* all writers' acquisitions at the last sample */
	bool fired;
	uint64_t os_delays;       /* rule-1 periods excused: a waiter was not run */
};

/**
 * Take one sample and apply the stall rules (docs/torture.md):
 *  1. the lock reads free (no writer holds or is unlocking it and, where
 *     the kind has a pvspin word, the word reads unlocked) in every sample
 *     for stall_ms, no writer completed an acquisition in that time (a
 *     hold shorter than the sampling period is still progress), a writer
 *     has waited at least stall_ms, and every
 *     waiting writer had its chance: it ran (>= 10 ms of CPU time in that
 *     period) or it sleeps in the kernel - a waiter that is runnable but
 *     not run is the OS scheduler's delay (lock waiter preemption), not a
 *     lost wakeup;
 *  2. (pv kinds) a waiter is halted in pv_wait with its node HASHED while
 *     the locked byte is not _Q_SLOW_VAL - nobody is left to kick it -
 *     in every sample for stall_ms, and no writer has been inside its
 *     unlock call all that time (an unlocker descheduled between its
 *     store of 0 and its kick is excused).
 * On the first stall prints "!!!" lines with the dump and returns true.
 */
bool torture_watchdog_sample(struct torture *t, struct torture_watchdog *wd, uint64_t now);

/** Print the lock word (decoded), the MCS queue walked from the tail and
 *  every writer's state, each line prefixed with `prefix`. */
void torture_dump(struct torture *t, const char *prefix);

/** The kernel's state letter of thread `tid` of this process (R running
 *  or runnable, S sleeping, D uninterruptible, T stopped, ...), from
 *  /proc/self/task/TID/stat; 0 if it cannot be read (the thread has
 *  exited).  Thread-safe. */
char torture_os_state(pid_t tid);

/* ---- the drain after the time is up (torture_drain.c) -------------- */

/** What to do with the writers still leaving the lock after the time is
 *  up (torture_drain_verdict()). */
enum torture_drain_verdict {
	TORTURE_DRAIN_WAIT,       /* progress within the patience: wait on */
	TORTURE_DRAIN_SLOW_WAIT,  /* none for the patience, but every writer
				   * left is runnable: a slow queue, wait on
				   * up to the cap */
	TORTURE_DRAIN_STUCK,      /* give up: the writers left are stuck */
};

/**
 * torture_drain_verdict - is the drain after the time is up stuck?
 * @quiet_ns:    ns since the last progress (a writer left, an acquisition
 *               was completed, or torture_word_progress())
 * @patience_ns: the longest quiet time that is always fine, ns
 * @cap_ns:      the longest quiet time while every writer left is
 *               runnable, ns; at most @patience_ns: no such grace
 * @remaining:   writers that have not finished (not joined)
 * @runnable:    those of them the kernel reports runnable (state R) or
 *               that have left their loop; the caller need only count
 *               them once @quiet_ns exceeds @patience_ns
 *
 * Return: TORTURE_DRAIN_WAIT when @quiet_ns <= @patience_ns or no writer
 * remains; otherwise TORTURE_DRAIN_STUCK when a writer left is not
 * runnable (asleep with no progress: a lost wakeup) or @quiet_ns exceeds
 * @cap_ns, else TORTURE_DRAIN_SLOW_WAIT.  Pure; thread-safe.
 */
enum torture_drain_verdict torture_drain_verdict(uint64_t quiet_ns, uint64_t patience_ns,
						 uint64_t cap_ns, int remaining, int runnable);

/** True if the tortured lock word going from `before` to `after` (two
 *  samples of torture_lock_word() with layout `layout`) shows a hand-off
 *  of the lock: the ticket owner half moved.  False for every other
 *  layout, whose words waiters write too.  Pure; thread-safe. */
bool torture_word_progress(enum torture_word_layout layout, uint32_t before, uint32_t after);

#endif /* PVSPIN_TOOLS_TORTURE_H */

/*
 * pvspin/lock.h - the lock word shared by every pvspin lock kind, the kind
 * names, and the process-wide default kind.
 *
 * Word layout (Linux include/asm-generic/qspinlock_types.h, fewer than 16K
 * CPUs), 4 bytes, little endian:
 *
 *   bits  0- 7  locked byte   (0 free, 1 locked, 3 = _Q_SLOW_VAL: locked and
 *                              a halted waiter is hashed; pvqspinlock only)
 *   bits  8-15  pending byte  (only bit 8 used)
 *   bits 16-17  tail index    (which of the tail CPU's 4 MCS nodes)
 *   bits 18-31  tail CPU + 1  (0: no queue)
 *
 * The ticket lock uses the same 4 bytes as two 16-bit halves: owner (bits
 * 0-15) and next ticket (bits 16-31).  The tas lock uses the locked byte.
 * The spinpark lock keeps the locked byte and puts its spinner and
 * parked counts in the other bits (pvspin/spinpark.h).
 * A lock is always used with one kind between initialisation and last use.
 *
 * Thread-safety: every function of every kind is thread-safe on a shared
 * lock; the lock word must be 4-byte aligned.
 */
#ifndef PVSPIN_LOCK_H
#define PVSPIN_LOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The 4-byte lock word of every kind.  Zero is "unlocked"
 *  (PVSPIN_LOCK_INIT); no destructor is needed. */
typedef union pvspin_lock {
	uint32_t val;                     /* the whole word */
	struct {
		uint8_t locked;           /* bits 0-7 */
		uint8_t pending;          /* bits 8-15 */
	};
	struct {
		uint16_t locked_pending;  /* bits 0-15 */
		uint16_t tail;            /* bits 16-31 */
	};
} pvspin_lock_t;

/** Static initializer: an unlocked lock of any kind. */
#define PVSPIN_LOCK_INIT { .val = 0 }

/* Word fields, after Linux qspinlock_types.h. */
#define _Q_LOCKED_OFFSET     0
#define _Q_LOCKED_BITS       8
#define _Q_LOCKED_MASK       0x000000ffu
#define _Q_PENDING_OFFSET    8
#define _Q_PENDING_BITS      8
#define _Q_PENDING_MASK      0x0000ff00u
#define _Q_TAIL_IDX_OFFSET   16
#define _Q_TAIL_IDX_BITS     2
#define _Q_TAIL_IDX_MASK     0x00030000u
#define _Q_TAIL_CPU_OFFSET   18
#define _Q_TAIL_CPU_BITS     14
#define _Q_TAIL_CPU_MASK     0xfffc0000u
#define _Q_TAIL_MASK         (_Q_TAIL_IDX_MASK | _Q_TAIL_CPU_MASK)
#define _Q_LOCKED_PENDING_MASK (_Q_LOCKED_MASK | _Q_PENDING_MASK)
#define _Q_LOCKED_VAL        (1u << _Q_LOCKED_OFFSET)
#define _Q_PENDING_VAL       (1u << _Q_PENDING_OFFSET)
/** Locked byte value meaning "locked, and the unlocker must unhash and kick
 *  a halted waiter" (pvqspinlock only). */
#define _Q_SLOW_VAL          (3u << _Q_LOCKED_OFFSET)

/** Lock kinds.  Names (pvspin_kind_name) are the ones used everywhere in
 *  the project: "qspinlock", "pvqspinlock", "tas", "ticket", "spinpark". */
typedef enum pvspin_kind {
	PVSPIN_KIND_NONE = 0,        /* not chosen yet / invalid */
	PVSPIN_KIND_QSPINLOCK,       /* native queued spinlock */
	PVSPIN_KIND_PVQSPINLOCK,     /* paravirtual queued spinlock */
	PVSPIN_KIND_TAS,             /* unfair test-and-test-and-set (virt_spin_lock) */
	PVSPIN_KIND_TICKET,          /* FIFO ticket lock */
	PVSPIN_KIND_SPINPARK,        /* spin-then-park lock for preemptible threads */
	PVSPIN_KIND_COUNT
} pvspin_kind_t;

/** Name of a kind ("qspinlock", ...); "none" for PVSPIN_KIND_NONE and
 *  anything out of range.  Thread-safe, never NULL. */
const char *pvspin_kind_name(pvspin_kind_t kind);

/** Kind named `name` (exact match), or PVSPIN_KIND_NONE if unknown. */
pvspin_kind_t pvspin_kind_from_name(const char *name);

/** The valid kind names joined by ", " (for error messages). */
const char *pvspin_kind_names(void);

/**
 * The process-wide default kind used by pvspin_lock() and friends.
 * Fixed at the first call of any default-kind operation (or of this
 * function): from the environment variable PVSPIN_LOCK if set, else from
 * the selection policy (PVSPIN_POLICY, default "pvspin").  An unknown name
 * in PVSPIN_LOCK, or in PVSPIN_POLICY when PVSPIN_LOCK is unset, is
 * reported on stderr with the valid names (the line
 * pvspin_default_kind_check_env(stderr, NULL) writes) and the process
 * exits with status 2 (it cannot run with an undefined lock), once
 * however many threads find it.  Thread-safe.
 */
pvspin_kind_t pvspin_default_kind(void);

/**
 * Check the default kind's environment variables as they are now
 * (getenv(), not what the default kind was fixed from): PVSPIN_LOCK, then
 * PVSPIN_POLICY, each unset when absent or empty.  For the first one set
 * to a bad value (a name that is not a kind, or not a policy), write one
 * line to `err`:
 *
 *   WHO: PVSPIN_LOCK=lcok: not a lock kind; valid kinds: qspinlock, ...
 *   WHO: PVSPIN_POLICY=fast: not a policy; valid policies: linux, ...
 *
 * (PVSPIN_POLICY's reason is pvspin_policy_parse_error()'s; a value
 * holding a blank is written in quotes, PVSPIN_LOCK='tas ').  Only the
 * first: a program can run on neither.  Both are checked whatever the
 * other says, so a bad PVSPIN_POLICY is found also beside a valid
 * PVSPIN_LOCK, although pvspin_default_kind(), which reads PVSPIN_POLICY
 * only when PVSPIN_LOCK is unset, would not exit on it (the tool refuses
 * such an environment: a typo the user should hear of).
 * `who` names the caller ("pvspin run"; NULL: "pvspin", the library's
 * own prefix); `err` NULL: check only.  Changes nothing (the default
 * kind is not fixed).  Returns 0 when both are unset, empty or valid,
 * else 1 (one line written); no other error is reported (errno may
 * change; a failed write to `err` is not detected).  For a program that refuses to start on a
 * bad value in its own words (the `pvspin` tool's run, bench and
 * torture: exit 2) before anything asks for the default kind.
 * Thread-safe as getenv() is: not against a concurrent setenv().
 */
int pvspin_default_kind_check_env(FILE *err, const char *who);

/**
 * Fix the default kind before any lock operation.  Returns 0, or -1 with
 * errno = EBUSY if the default is already fixed to another kind, or EINVAL
 * for an invalid kind.  Thread-safe.
 */
int pvspin_set_default_kind(pvspin_kind_t kind);

/** Handler called on lock misuse (unlock of an unlocked lock, a corrupted
 *  word): `what` says which, `lock` and `word` show the state.  The default
 *  handler prints one line on stderr and calls abort(). */
typedef void (*pvspin_misuse_handler_t)(const char *what, const void *lock,
					uint32_t word);

/** Install a misuse handler (NULL restores the default); returns the
 *  previous one.  Thread-safe. */
pvspin_misuse_handler_t pvspin_set_misuse_handler(pvspin_misuse_handler_t h);

/** Report a misuse through the installed handler (used by the lock code). */
void pvspin_report_misuse(const char *what, const void *lock, uint32_t word);

#ifdef __cplusplus
}
#endif

#endif /* PVSPIN_LOCK_H */

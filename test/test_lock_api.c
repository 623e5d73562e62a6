/*
 * test_lock_api.c - single-thread semantics of every kind: size and zero
 * initializer, trylock, is_locked / is_contended, misuse reporting, kind
 * names, the default kind being fixed once, the check of its environment
 * variables, tunables.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pvspin.h"

static const pvspin_kind_t kinds[] = {
	PVSPIN_KIND_QSPINLOCK, PVSPIN_KIND_PVQSPINLOCK, PVSPIN_KIND_TAS, PVSPIN_KIND_TICKET,
	PVSPIN_KIND_SPINPARK,
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static void test_size_and_initializer(void **state)
{
	(void)state;
	pvspin_lock_t l = PVSPIN_LOCK_INIT;
	assert_int_equal(sizeof(pvspin_lock_t), 4);
	assert_int_equal(_Alignof(pvspin_lock_t), 4);
	assert_int_equal(l.val, 0);
	for (size_t i = 0; i < NKINDS; i++) {
		assert_false(pvspin_kind_is_locked(kinds[i], &l));
		assert_false(pvspin_kind_is_contended(kinds[i], &l));
	}
}

static void test_trylock(void **state)
{
	(void)state;
	for (size_t i = 0; i < NKINDS; i++) {
		pvspin_lock_t l = PVSPIN_LOCK_INIT;
		assert_true(pvspin_kind_trylock(kinds[i], &l));
		assert_true(pvspin_kind_is_locked(kinds[i], &l));
		assert_false(pvspin_kind_trylock(kinds[i], &l));
		assert_true(pvspin_kind_is_locked(kinds[i], &l));
		pvspin_kind_unlock(kinds[i], &l);
		assert_false(pvspin_kind_is_locked(kinds[i], &l));
		pvspin_kind_lock(kinds[i], &l);
		assert_true(pvspin_kind_is_locked(kinds[i], &l));
		assert_false(pvspin_kind_trylock(kinds[i], &l));
		pvspin_kind_unlock(kinds[i], &l);
		assert_true(pvspin_kind_trylock(kinds[i], &l));
		pvspin_kind_unlock(kinds[i], &l);
		if (kinds[i] != PVSPIN_KIND_TICKET)
			assert_int_equal(l.val, 0);
	}
}

static void test_word_layout(void **state)
{
	(void)state;
	pvspin_lock_t l = PVSPIN_LOCK_INIT;
	l.val = _Q_LOCKED_VAL | _Q_PENDING_VAL | (5u << _Q_TAIL_CPU_OFFSET) | (2u << _Q_TAIL_IDX_OFFSET);
	assert_int_equal(l.locked, 1);
	assert_int_equal(l.pending, 1);
	assert_int_equal(l.locked_pending, 0x0101);
	assert_int_equal(l.tail, (5u << 2) | 2u);
	assert_true(pvspin_qspinlock_is_locked(&l));
	assert_true(pvspin_qspinlock_is_contended(&l));
	l.val = _Q_PENDING_VAL;
	assert_false(pvspin_qspinlock_is_locked(&l));
	assert_true(pvspin_qspinlock_is_contended(&l));
	/* ticket: owner 7, next 9: held, one waiter */
	l.val = 7u | (9u << 16);
	assert_true(pvspin_ticket_is_locked(&l));
	assert_true(pvspin_ticket_is_contended(&l));
	l.val = 7u | (8u << 16);
	assert_true(pvspin_ticket_is_locked(&l));
	assert_false(pvspin_ticket_is_contended(&l));
	/* every ticket word is a real state (pvspin/ticket.h): next == owner
	 * is free at any count, and both halves wrap (0xffffffff: free after
	 * 65535 acquisitions), so trylock takes it and no word is reported
	 * as corrupted */
	static const uint32_t ticket_free[] = { 0x12341234u, 0xffffffffu, 0x80008000u };
	for (size_t i = 0; i < sizeof(ticket_free) / sizeof(ticket_free[0]); i++) {
		uint32_t owner = ticket_free[i] & 0xffffu;
		l.val = ticket_free[i];
		assert_false(pvspin_ticket_is_locked(&l));
		assert_true(pvspin_ticket_trylock(&l));
		assert_int_equal(l.val, owner | (((owner + 1) & 0xffffu) << 16));
		assert_true(pvspin_ticket_is_locked(&l));
		assert_false(pvspin_ticket_is_contended(&l));
		pvspin_ticket_unlock(&l);
		assert_false(pvspin_ticket_is_locked(&l));
		assert_int_equal(l.val, ((owner + 1) & 0xffffu) * 0x10001u);
		pvspin_ticket_lock(&l);
		assert_true(pvspin_ticket_is_locked(&l));
		pvspin_ticket_unlock(&l);
		assert_int_equal(l.val, ((owner + 2) & 0xffffu) * 0x10001u);
	}
	/* owner 0xfffe, next 0x0001: a holder and 2 waiters across the wrap */
	l.val = 0xfffeu | (0x0001u << 16);
	assert_true(pvspin_ticket_is_locked(&l));
	assert_true(pvspin_ticket_is_contended(&l));
	assert_false(pvspin_ticket_trylock(&l));
}

static int misuse_count;
static char misuse_what[128];
static void count_misuse(const char *what, const void *lock, uint32_t word)
{
	(void)lock; (void)word;
	misuse_count++;
	snprintf(misuse_what, sizeof(misuse_what), "%s", what);
}

/* What lock_in_child() saw. */
struct child_lock {
	int misuse;       /* misuse reports during the lock() */
	char what[128];   /* the last report's text */
	uint32_t after;   /* the word after lock() returned */
	bool locked;      /* pvspin_kind_is_locked() after lock() */
};

/*
 * lock() of a word `word` with `kind` in a forked child under a 10 s
 * alarm, so a lock() that never returns (the old behaviour on some
 * corrupted words) fails the test instead of hanging it.  The child
 * counts misuse reports with count_misuse and sends the result back
 * through a pipe.  Returns false if the child did not report (killed by
 * the alarm).
 */
static bool lock_in_child(pvspin_kind_t kind, uint32_t word, struct child_lock *out)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct child_lock r = { 0 };
		pvspin_lock_t c = { .val = word };
		close(fd[0]);
		alarm(10);
		pvspin_set_misuse_handler(count_misuse);
		misuse_count = 0;
		misuse_what[0] = 0;
		pvspin_kind_lock(kind, &c);
		r.misuse = misuse_count;
		snprintf(r.what, sizeof(r.what), "%s", misuse_what);
		r.after = c.val;
		r.locked = pvspin_kind_is_locked(kind, &c);
		ssize_t n = write(fd[1], &r, sizeof(r));
		_exit(n == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(fd[1]);
	ssize_t n = read(fd[0], out, sizeof(*out));
	close(fd[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return n == (ssize_t)sizeof(*out) && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void test_misuse_is_reported(void **state)
{
	(void)state;
	pvspin_misuse_handler_t old = pvspin_set_misuse_handler(count_misuse);
	for (size_t i = 0; i < NKINDS; i++) {
		pvspin_lock_t l = PVSPIN_LOCK_INIT;
		misuse_count = 0;
		pvspin_kind_unlock(kinds[i], &l);
		assert_int_equal(misuse_count, 1);
		assert_non_null(strstr(misuse_what, "not locked"));
		assert_int_equal(l.val, 0); /* left as it was */
	}
	/* a corrupted word under qspinlock and tas: named as such, not as an
	 * unlock of a free lock, and left as it was */
	pvspin_lock_t w = { .val = 0xdeadbeef };
	misuse_count = 0;
	pvspin_qspinlock_unlock(&w);
	pvspin_tas_unlock(&w);
	assert_int_equal(misuse_count, 2);
	assert_non_null(strstr(misuse_what, "tas: corrupted"));
	assert_int_equal(w.val, 0xdeadbeef);
	/* a corrupted locked byte under pvqspinlock */
	pvspin_lock_t l = { .val = 0x7 };
	misuse_count = 0;
	pvspin_pvqspinlock_unlock(&l);
	assert_int_equal(misuse_count, 1);
	assert_non_null(strstr(misuse_what, "corrupted"));
	/* _Q_SLOW_VAL with nothing hashed */
	l.val = _Q_SLOW_VAL;
	misuse_count = 0;
	pvspin_pvqspinlock_unlock(&l);
	assert_int_equal(misuse_count, 1);
	assert_non_null(strstr(misuse_what, "hash"));
	/* lock() of a corrupted word under the queued kinds: reported, and
	 * the call returns without the lock (word unchanged) instead of
	 * following a tail outside the node array (0xfffc0000 names slot
	 * 16382, 0x00010000 slot -1) or waiting for ever on a byte no
	 * unlock clears */
	static const uint32_t corrupt[] = { 0xffffffffu, 0xfffc0000u, 0x00000201u, 0x000000ffu,
					    /* index bits without a CPU: slot -1 */
					    0x00010000u, 0x00030000u, 0x00030101u };
	static const pvspin_kind_t queued[] = { PVSPIN_KIND_QSPINLOCK, PVSPIN_KIND_PVQSPINLOCK };
	for (size_t k = 0; k < 2; k++) {
		for (size_t i = 0; i < sizeof(corrupt) / sizeof(corrupt[0]); i++) {
			pvspin_lock_t c = { .val = corrupt[i] };
			misuse_count = 0;
			pvspin_kind_lock(queued[k], &c);
			assert_int_equal(misuse_count, 1);
			assert_non_null(strstr(misuse_what, "corrupted lock word"));
			assert_int_equal(c.val, corrupt[i]);
		}
	}
	/* tas: a word is 0 or 1, anything else is corrupted (a locked byte
	 * other than 0/1, or a bit outside it, such as a queued kind's tail
	 * or pending bit, or the interposer's process-shared values, which
	 * never reach the tas functions); lock() reports it and returns
	 * without the lock instead of spinning for ever, unlock() reports it
	 * instead of clearing the byte */
	static const uint32_t tas_corrupt[] = { 0x000000ffu, 0xfffc0000u, 0x00000100u,
						0x00000101u, 0x00000002u, 0x00000003u,
						0x00010001u, 0x80000000u, 0x80000001u,
						0xffffffffu };
	for (size_t i = 0; i < sizeof(tas_corrupt) / sizeof(tas_corrupt[0]); i++) {
		pvspin_lock_t c = { .val = tas_corrupt[i] };
		struct child_lock r;
		assert_true(lock_in_child(PVSPIN_KIND_TAS, tas_corrupt[i], &r));
		assert_int_equal(r.misuse, 1);
		assert_string_equal(r.what, "tas: corrupted lock word");
		assert_int_equal(r.after, tas_corrupt[i]);
		misuse_count = 0;
		assert_false(pvspin_tas_trylock(&c));   /* reported: test_trylock_corrupted */
		misuse_count = 0;
		pvspin_tas_unlock(&c);
		assert_int_equal(misuse_count, 1);
		assert_string_equal(misuse_what, "tas: corrupted lock word");
		assert_int_equal(c.val, tas_corrupt[i]);
	}
	/* spinpark: a locked byte other than 0,
	 * 1 and 2 (handed off), 6-15 spinners
	 * (at most the cap, 4, and a starving owner), or bit 31 (parked
	 * above 2047): lock()'s slow path reports it at its first
	 * read and returns without the lock, the word unchanged (it counted
	 * itself as a spinner or parker first, then reported in sp_park, or
	 * took a free word with bit 31).  The inline fast path, one cmpxchg
	 * of the locked byte, still takes a word whose locked byte is free
	 * (0x80000000); its unlock then reports it.  Bits 14 and 15 (METER,
	 * SLICED: reserved until 2026-12-05) are valid. */
	static const uint32_t sp_corrupt[] = { 0x00008004u, 0x80004001u, 0x8000c002u, 0x00000003u,
					       0x000000ffu, 0x000880ffu, 0x00088004u,
					       0xffffffffu, 0x00070601u, 0x00000601u,
					       0x00000f01u, 0x80000001u, 0x80100001u };
	for (size_t i = 0; i < sizeof(sp_corrupt) / sizeof(sp_corrupt[0]); i++) {
		struct child_lock r;
		assert_true(lock_in_child(PVSPIN_KIND_SPINPARK, sp_corrupt[i], &r));
		assert_int_equal(r.misuse, 1);
		assert_string_equal(r.what, "spinpark: corrupted lock word");
		assert_int_equal(r.after, sp_corrupt[i]);
	}
	static const uint32_t sp_corrupt_free[] = { 0x80008000u, 0x80004000u, 0x80088000u,
						    0xfff8f000u, 0x80000000u };
	for (size_t i = 0; i < sizeof(sp_corrupt_free) / sizeof(sp_corrupt_free[0]); i++) {
		pvspin_lock_t c = { .val = sp_corrupt_free[i] };
		misuse_count = 0;
		pvspin_spinpark_lock_slowpath(&c);   /* as after a lost fast path */
		assert_int_equal(misuse_count, 1);
		assert_string_equal(misuse_what, "spinpark: corrupted lock word");
		assert_int_equal(c.val, sp_corrupt_free[i]);
		pvspin_spinpark_lock(&c);            /* the fast path takes it */
		assert_int_equal(misuse_count, 1);
		assert_int_equal(c.val, sp_corrupt_free[i] | 1u);
		pvspin_spinpark_unlock(&c);          /* and the unlock reports it */
		assert_int_equal(misuse_count, 2);
		assert_string_equal(misuse_what, "spinpark: corrupted lock word");
		assert_int_equal(c.val, sp_corrupt_free[i] | 1u);
	}
	/* 7 spinners on a free word, with any budget exponent (0-7 are all
	 * valid since 2026-12-05): the slow path reports it; the fast paths
	 * take and release it, since the field does not send an unlock out
	 * of line (the header's mask) */
	static const uint32_t sp_corrupt_fields[] = { 0x00070700u, 0x00000700u };
	for (size_t i = 0; i < sizeof(sp_corrupt_fields) / sizeof(sp_corrupt_fields[0]); i++) {
		pvspin_lock_t c = { .val = sp_corrupt_fields[i] };
		misuse_count = 0;
		pvspin_spinpark_lock_slowpath(&c);
		assert_int_equal(misuse_count, 1);
		assert_int_equal(c.val, sp_corrupt_fields[i]);
		pvspin_spinpark_lock(&c);
		pvspin_spinpark_unlock(&c);
		assert_int_equal(misuse_count, 1);
		assert_int_equal(c.val, sp_corrupt_fields[i]);
	}
	/* budget exponents 6 and 7 (1024 and 2048 PAUSE loops) are learned
	 * budgets since 2026-12-05, not corruption: the slow path takes such
	 * a free word without a report, keeping the budget, and the unlock
	 * releases it */
	static const uint32_t sp_long_budget[] = { 0x00060000u, 0x00070000u };
	for (size_t i = 0; i < sizeof(sp_long_budget) / sizeof(sp_long_budget[0]); i++) {
		pvspin_lock_t c = { .val = sp_long_budget[i] };
		misuse_count = 0;
		pvspin_spinpark_lock_slowpath(&c);
		assert_int_equal(misuse_count, 0);
		assert_int_equal(c.val, sp_long_budget[i] | 1u);
		pvspin_spinpark_unlock(&c);
		assert_int_equal(misuse_count, 0);
		assert_int_equal(c.val, sp_long_budget[i]);
	}
	/* _Q_SLOW_VAL is a held pvqspinlock, not a corrupted one; for
	 * qspinlock it is corrupted */
	pvspin_lock_t slow = { .val = _Q_SLOW_VAL };
	misuse_count = 0;
	pvspin_kind_lock(PVSPIN_KIND_QSPINLOCK, &slow);
	assert_int_equal(misuse_count, 1);
	assert_false(pvspin_kind_trylock(PVSPIN_KIND_PVQSPINLOCK, &slow));
	/* invalid kind */
	misuse_count = 0;
	pvspin_kind_lock((pvspin_kind_t)99, &l);
	assert_int_equal(misuse_count, 1);
	pvspin_set_misuse_handler(old);
}

/* A word, what the misuse handler is to be told of it (NULL: nothing),
 * for check_reports(). */
struct report_case {
	pvspin_kind_t kind;
	uint32_t word;
	const char *what;
};

/* Unlock (trylock false) or trylock (true) each case's word with its
 * kind under count_misuse: one report of `what`, or none, the word left
 * as it was and, for trylock, not taken. */
static void check_reports(bool trylock, const struct report_case *cases, size_t n)
{
	pvspin_misuse_handler_t old = pvspin_set_misuse_handler(count_misuse);
	for (size_t i = 0; i < n; i++) {
		pvspin_lock_t c = { .val = cases[i].word };
		misuse_count = 0;
		misuse_what[0] = 0;
		if (trylock)
			assert_false(pvspin_kind_trylock(cases[i].kind, &c));
		else
			pvspin_kind_unlock(cases[i].kind, &c);
		assert_int_equal(misuse_count, cases[i].what ? 1 : 0);
		if (cases[i].what)
			assert_string_equal(misuse_what, cases[i].what);
		assert_int_equal(c.val, cases[i].word);
	}
	pvspin_set_misuse_handler(old);
}

/*
 * spinpark's unlock names a corrupted word as such whatever its locked
 * byte: bit 31 beside a locked byte of 2 was "unlock of a lock handed
 * off to a waiter", beside a 0 "unlock of a lock that is not locked".
 * The word is left as it was.
 */
static void test_spinpark_unlock_corrupted(void **state)
{
	(void)state;
	static const char corrupted[] = "spinpark: corrupted lock word",
		handed[] = "spinpark: unlock of a lock handed off to a waiter",
		free_lock[] = "spinpark: unlock of a lock that is not locked";
	static const struct report_case cases[] = {
		{ PVSPIN_KIND_SPINPARK, 0x80000002u, corrupted },
		{ PVSPIN_KIND_SPINPARK, 0x80001002u, corrupted },
		{ PVSPIN_KIND_SPINPARK, 0x80000000u, corrupted },
		{ PVSPIN_KIND_SPINPARK, 0x00000702u, corrupted },   /* 7 spinners */
		{ PVSPIN_KIND_SPINPARK, 0x00000003u, corrupted },
		/* the words a step writes keep their own reports */
		{ PVSPIN_KIND_SPINPARK, 0x00001002u, handed },
		{ PVSPIN_KIND_SPINPARK, 0x00101002u, handed },
		{ PVSPIN_KIND_SPINPARK, 0x00000000u, free_lock },
		{ PVSPIN_KIND_SPINPARK, 0x00100500u, free_lock },
	};
	check_reports(false, cases, sizeof(cases) / sizeof(cases[0]));
}

/*
 * A trylock that fails on a corrupted word reports it with the misuse
 * handler, in the words of the kind's lock() and unlock(), and returns
 * false with the word as it was (it returned false without a word, so a
 * program that only ever tries never heard of it).  A busy word that a
 * step writes is no report.  A free word whose other bits are corrupted
 * is taken, as by the uncontended lock(): the one cmpxchg of the taking
 * path checks nothing more (its unlock reports it, test_misuse_is_reported).
 */
static void test_trylock_corrupted(void **state)
{
	(void)state;
	static const struct report_case cases[] = {
		{ PVSPIN_KIND_SPINPARK, 0x80000001u, "spinpark: corrupted lock word" },
		{ PVSPIN_KIND_SPINPARK, 0x80000002u, "spinpark: corrupted lock word" },
		{ PVSPIN_KIND_SPINPARK, 0xffffffffu, "spinpark: corrupted lock word" },
		{ PVSPIN_KIND_SPINPARK, 0x000000ffu, "spinpark: corrupted lock word" },
		{ PVSPIN_KIND_SPINPARK, 0x00000601u, "spinpark: corrupted lock word" },
		{ PVSPIN_KIND_SPINPARK, 0x00000001u, NULL },
		{ PVSPIN_KIND_SPINPARK, 0x00001002u, NULL },
		/* 2047 parked, 5 spinners, every flag */
		{ PVSPIN_KIND_SPINPARK, 0x7ffff501u, NULL },
		{ PVSPIN_KIND_TAS, 0x00000002u, "tas: corrupted lock word" },
		{ PVSPIN_KIND_TAS, 0x80000001u, "tas: corrupted lock word" },
		{ PVSPIN_KIND_TAS, 0x00000100u, "tas: corrupted lock word" },
		{ PVSPIN_KIND_TAS, 0x00000001u, NULL },
		{ PVSPIN_KIND_QSPINLOCK, 0xffffffffu, "qspinlock: corrupted lock word" },
		{ PVSPIN_KIND_QSPINLOCK, 0x00000201u, "qspinlock: corrupted lock word" },
		{ PVSPIN_KIND_QSPINLOCK, 0x00010000u, "qspinlock: corrupted lock word" },
		{ PVSPIN_KIND_QSPINLOCK, _Q_SLOW_VAL, "qspinlock: corrupted lock word" },
		{ PVSPIN_KIND_QSPINLOCK, 0x00000101u, NULL },
		{ PVSPIN_KIND_QSPINLOCK, (2u << _Q_TAIL_CPU_OFFSET) | 0x101u, NULL },
		{ PVSPIN_KIND_PVQSPINLOCK, 0x000000ffu, "pvqspinlock: corrupted lock word" },
		{ PVSPIN_KIND_PVQSPINLOCK, 0xfffc0000u, "pvqspinlock: corrupted lock word" },
		{ PVSPIN_KIND_PVQSPINLOCK, _Q_SLOW_VAL, NULL },
		{ PVSPIN_KIND_PVQSPINLOCK, (2u << _Q_TAIL_CPU_OFFSET) | 0x1u, NULL },
		/* every ticket word is a state (pvspin/ticket.h): never a report */
		{ PVSPIN_KIND_TICKET, 0x00010000u, NULL },
		{ PVSPIN_KIND_TICKET, 0x80000000u, NULL },
	};
	check_reports(true, cases, sizeof(cases) / sizeof(cases[0]));
	/* a free spinpark word with bit 31 is taken, as lock()'s fast path
	 * takes it: nothing to report on the taking path */
	pvspin_misuse_handler_t old = pvspin_set_misuse_handler(count_misuse);
	pvspin_lock_t f = { .val = 0x80000000u };
	misuse_count = 0;
	assert_true(pvspin_spinpark_trylock(&f));
	assert_int_equal(misuse_count, 0);
	assert_int_equal(f.val, 0x80000001u);
	pvspin_set_misuse_handler(old);
}

static void test_kind_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < NKINDS; i++)
		assert_int_equal(pvspin_kind_from_name(pvspin_kind_name(kinds[i])), kinds[i]);
	assert_int_equal(pvspin_kind_from_name("mcs"), PVSPIN_KIND_NONE);
	assert_int_equal(pvspin_kind_from_name(NULL), PVSPIN_KIND_NONE);
	assert_string_equal(pvspin_kind_name((pvspin_kind_t)42), "none");
	assert_non_null(strstr(pvspin_kind_names(), "pvqspinlock"));
}

static void test_default_kind_fixed_once(void **state)
{
	(void)state;
	assert_int_equal(pvspin_set_default_kind((pvspin_kind_t)0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pvspin_set_default_kind(PVSPIN_KIND_TICKET), 0);
	pvspin_lock_t l = PVSPIN_LOCK_INIT;
	pvspin_lock(&l);
	assert_int_equal(l.val, 1u << 16); /* a ticket lock: next = 1, owner = 0 */
	assert_true(pvspin_is_locked(&l));
	assert_false(pvspin_is_contended(&l));
	assert_false(pvspin_trylock(&l));
	pvspin_unlock(&l);
	assert_false(pvspin_is_locked(&l));
	assert_int_equal(pvspin_default_kind(), PVSPIN_KIND_TICKET);
	assert_int_equal(pvspin_set_default_kind(PVSPIN_KIND_TICKET), 0);
	assert_int_equal(pvspin_set_default_kind(PVSPIN_KIND_TAS), -1);
	assert_int_equal(errno, EBUSY);
	assert_int_equal(pvspin_default_kind(), PVSPIN_KIND_TICKET);
}

/* pvspin_default_kind_check_env(err, who) with PVSPIN_LOCK = lock and
 * PVSPIN_POLICY = policy (NULL: unset); returns its result, and what it
 * wrote in `out` (freed by the caller). */
static int check_env(const char *lock, const char *policy, const char *who, char **out)
{
	size_t len;
	FILE *f = open_memstream(out, &len);
	assert_non_null(f);
	if (lock)
		setenv("PVSPIN_LOCK", lock, 1);
	else
		unsetenv("PVSPIN_LOCK");
	if (policy)
		setenv("PVSPIN_POLICY", policy, 1);
	else
		unsetenv("PVSPIN_POLICY");
	int r = pvspin_default_kind_check_env(f, who);
	assert_int_equal(fclose(f), 0);
	unsetenv("PVSPIN_LOCK");
	unsetenv("PVSPIN_POLICY");
	return r;
}

static void test_default_kind_check_env(void **state)
{
	(void)state;
	char *out, want[512];
	/* unset, empty or valid: 0, nothing said */
	static const char *const fine[][2] = {
		{ NULL, NULL }, { "", "" }, { "tas", NULL }, { NULL, "linux" },
		{ "spinpark", "threshold=4" }, { "", "numa" },
	};
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		assert_int_equal(check_env(fine[i][0], fine[i][1], "t", &out), 0);
		assert_string_equal(out, "");
		free(out);
	}
	/* PVSPIN_LOCK: the library's line, with the caller's prefix */
	assert_int_equal(check_env("lcok", NULL, "pvspin run", &out), 1);
	snprintf(want, sizeof(want), "pvspin run: PVSPIN_LOCK=lcok: not a lock kind; "
		 "valid kinds: %s\n", pvspin_kind_names());
	assert_string_equal(out, want);
	free(out);
	/* the library's own line (NULL who: "pvspin"), in the shape of
	 * PVSPIN_POLICY's below: VAR=VALUE: what is wrong; what it takes */
	assert_int_equal(check_env("lcok", NULL, NULL, &out), 1);
	snprintf(want, sizeof(want), "pvspin: PVSPIN_LOCK=lcok: not a lock kind; "
		 "valid kinds: %s\n", pvspin_kind_names());
	assert_string_equal(out, want);
	free(out);
	/* PVSPIN_POLICY, also beside a valid PVSPIN_LOCK; NULL who: "pvspin" */
	assert_int_equal(check_env(NULL, "fast", NULL, &out), 1);
	snprintf(want, sizeof(want), "pvspin: PVSPIN_POLICY=fast: %s\n",
		 pvspin_policy_parse_error(EINVAL));
	assert_string_equal(out, want);
	free(out);
	assert_int_equal(check_env("tas", "threshold=-1", "x", &out), 1);
	snprintf(want, sizeof(want), "x: PVSPIN_POLICY=threshold=-1: %s\n",
		 pvspin_policy_parse_error(ERANGE));
	assert_string_equal(out, want);
	free(out);
	/* both bad: one line, PVSPIN_LOCK's (the one the library exits on) */
	assert_int_equal(check_env("lcok", "fast", "x", &out), 1);
	snprintf(want, sizeof(want), "x: PVSPIN_LOCK=lcok: not a lock kind; "
		 "valid kinds: %s\n", pvspin_kind_names());
	assert_string_equal(out, want);
	free(out);
	/* a value with a blank is quoted, as the tools' options quote one
	 * (pvspin_value_quote()): "PVSPIN_LOCK=tas : not a lock kind" hid
	 * the blank that made it one */
	assert_int_equal(check_env("tas ", NULL, "x", &out), 1);
	snprintf(want, sizeof(want), "x: PVSPIN_LOCK='tas ': not a lock kind; "
		 "valid kinds: %s\n", pvspin_kind_names());
	assert_string_equal(out, want);
	free(out);
	assert_int_equal(check_env(NULL, " linux", "x", &out), 1);
	snprintf(want, sizeof(want), "x: PVSPIN_POLICY=' linux': %s\n",
		 pvspin_policy_parse_error(EINVAL));
	assert_string_equal(out, want);
	free(out);
	/* no stream: the verdict only */
	setenv("PVSPIN_LOCK", "lcok", 1);
	assert_int_equal(pvspin_default_kind_check_env(NULL, "x"), 1);
	unsetenv("PVSPIN_LOCK");
	/* and it fixes nothing: the default kind is the one set before */
	assert_int_equal(pvspin_default_kind(), PVSPIN_KIND_TICKET);
}

static void test_tunables(void **state)
{
	(void)state;
	assert_int_equal(pvspin_tunable_get(PVSPIN_TUNE_SPIN_THRESHOLD), PVSPIN_DEFAULT_SPIN_THRESHOLD);
	assert_int_equal(pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, 100), 0);
	assert_int_equal(pvspin_tunable_get(PVSPIN_TUNE_SPIN_THRESHOLD), 100);
	assert_int_equal(pvspin_tunable_set((pvspin_tunable_t)77, 1), -1);
	assert_string_equal(pvspin_tunable_name(PVSPIN_TUNE_PENDING_LOOPS), "pending_loops");
	/* the interposer's mutex spin limit: 0 (the measured budget) by
	 * default, any 32-bit value accepted */
	assert_string_equal(pvspin_tunable_name(PVSPIN_TUNE_MUTEX_SPIN_LIMIT), "mutex_spin_limit");
	assert_int_equal(pvspin_tunable_get(PVSPIN_TUNE_MUTEX_SPIN_LIMIT), 0);
	assert_int_equal(pvspin_tunable_set(PVSPIN_TUNE_MUTEX_SPIN_LIMIT, UINT32_MAX), 0);
	assert_int_equal(pvspin_tunable_get(PVSPIN_TUNE_MUTEX_SPIN_LIMIT), UINT32_MAX);
	assert_int_equal(pvspin_tunable_set(PVSPIN_TUNE_MUTEX_SPIN_LIMIT, 0), 0);
	assert_string_equal(pvspin_tunable_name(PVSPIN_TUNE_COUNT), "?");
	pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, PVSPIN_DEFAULT_SPIN_THRESHOLD);
}

static void test_event_names(void **state)
{
	(void)state;
	assert_string_equal(pvspin_event_name(PVSPIN_EV_PV_WAIT_NODE), "pv_wait_node");
	assert_string_equal(pvspin_event_name(PVSPIN_EV_LOCK_NO_NODE), "lock_no_node");
	assert_string_equal(pvspin_event_name(PVSPIN_EV_COUNT), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_and_initializer),
		cmocka_unit_test(test_trylock),
		cmocka_unit_test(test_word_layout),
		cmocka_unit_test(test_misuse_is_reported),
		cmocka_unit_test(test_spinpark_unlock_corrupted),
		cmocka_unit_test(test_trylock_corrupted),
		cmocka_unit_test(test_kind_names),
		cmocka_unit_test(test_default_kind_fixed_once),
		cmocka_unit_test(test_default_kind_check_env),
		cmocka_unit_test(test_tunables),
		cmocka_unit_test(test_event_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

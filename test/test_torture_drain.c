/*
 * test_torture_drain.c - the verdict on the writers of `pvspin torture`
 * leaving the lock after the time is up (tools/pvspin/torture/torture_drain.c).
 *
 * Until 2026-12-06 no progress for the patience (2 s) was "stuck" whatever
 * the writers were doing; 1024 ticket writers on 2 CPUs, all runnable and
 * still moving, ended in FAILURE.  The slow-queue cases below fail under
 * that rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "torture/torture.h"

#define S 1000000000ull   /* ns per s */

/* One case: quiet ns, patience, cap, writers left, runnable -> verdict. */
struct drain_case {
	uint64_t quiet, patience, cap;
	int remaining, runnable;
	enum torture_drain_verdict want;
};

static void check_cases(const struct drain_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		enum torture_drain_verdict v = torture_drain_verdict(c[i].quiet, c[i].patience,
								     c[i].cap, c[i].remaining,
								     c[i].runnable);
		if (v != c[i].want)
			fail_msg("case %zu: verdict %d, want %d", i, (int)v, (int)c[i].want);
	}
}

/* All writers left runnable, no progress for longer than the patience:
 * a slow queue, not a lost wakeup. */
static void test_all_runnable_is_slow(void **state)
{
	static const struct drain_case c[] = {
		{ 3 * S, 2 * S, 60 * S, 5, 5, TORTURE_DRAIN_SLOW_WAIT },
		/* the reproducer's queue: owner 637, next 1657 */
		{ 2 * S + 1, 2 * S, 60 * S, 1020, 1020, TORTURE_DRAIN_SLOW_WAIT },
		{ 60 * S, 2 * S, 60 * S, 1020, 1020, TORTURE_DRAIN_SLOW_WAIT },
	};
	(void)state;
	check_cases(c, sizeof(c) / sizeof(c[0]));
}

/* One writer asleep with no progress for the patience: nobody runs who
 * could wake it. */
static void test_one_asleep_is_stuck(void **state)
{
	static const struct drain_case c[] = {
		{ 3 * S, 2 * S, 60 * S, 5, 4, TORTURE_DRAIN_STUCK },
		{ 2 * S + 1, 2 * S, 60 * S, 1, 0, TORTURE_DRAIN_STUCK },
		/* ... but not before the patience has passed */
		{ 2 * S, 2 * S, 60 * S, 5, 0, TORTURE_DRAIN_WAIT },
		{ 1 * S, 2 * S, 60 * S, 5, 0, TORTURE_DRAIN_WAIT },
	};
	(void)state;
	check_cases(c, sizeof(c) / sizeof(c[0]));
}

/* Runnable is not enough for ever: a waiter spinning on a lost hand-off is
 * runnable too. */
static void test_past_cap_is_stuck(void **state)
{
	static const struct drain_case c[] = {
		{ 60 * S + 1, 2 * S, 60 * S, 5, 5, TORTURE_DRAIN_STUCK },
		{ UINT64_MAX, 2 * S, 60 * S, 5, 5, TORTURE_DRAIN_STUCK },
		/* no grace (a stall was seen): the patience alone */
		{ 3 * S, 2 * S, 2 * S, 5, 5, TORTURE_DRAIN_STUCK },
	};
	(void)state;
	check_cases(c, sizeof(c) / sizeof(c[0]));
}

/* Nobody left: nothing can be stuck. */
static void test_none_left(void **state)
{
	static const struct drain_case c[] = {
		{ 100 * S, 2 * S, 60 * S, 0, 0, TORTURE_DRAIN_WAIT },
	};
	(void)state;
	check_cases(c, sizeof(c) / sizeof(c[0]));
}

/* Only the ticket owner half moving is a hand-off. */
static void test_word_progress(void **state)
{
	(void)state;
	assert_true(torture_word_progress(TORTURE_WORD_TICKET, 0x0669027d, 0x0669027e));
	assert_true(torture_word_progress(TORTURE_WORD_TICKET, 0x0005ffff, 0x00050000));
	/* a newcomer took a ticket: not progress */
	assert_false(torture_word_progress(TORTURE_WORD_TICKET, 0x0669027d, 0x066a027d));
	assert_false(torture_word_progress(TORTURE_WORD_TICKET, 0x0669027d, 0x0669027d));
	/* words that waiters write too */
	assert_false(torture_word_progress(TORTURE_WORD_QSPIN, 0x00040001, 0x00080000));
	assert_false(torture_word_progress(TORTURE_WORD_SPINPARK, 0x00000101, 0x00000201));
	assert_false(torture_word_progress(TORTURE_WORD_BYTE, 1, 0));
	assert_false(torture_word_progress(TORTURE_WORD_NONE, 0, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_runnable_is_slow),
		cmocka_unit_test(test_one_asleep_is_stuck),
		cmocka_unit_test(test_past_cap_is_stuck),
		cmocka_unit_test(test_none_left),
		cmocka_unit_test(test_word_progress),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

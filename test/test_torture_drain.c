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

static const uint64_t patience = 2 * S, cap = 60 * S;

/* All writers left runnable, no progress for longer than the patience:
 * a slow queue, not a lost wakeup. */
static void test_all_runnable_is_slow(void **state)
{
	(void)state;
	assert_int_equal(torture_drain_verdict(3 * S, patience, cap, 5, 5),
			 TORTURE_DRAIN_SLOW_WAIT);
	/* the reproducer's queue: owner 637, next 1657 */
	assert_int_equal(torture_drain_verdict(2 * S + 1, patience, cap, 1020, 1020),
			 TORTURE_DRAIN_SLOW_WAIT);
	assert_int_equal(torture_drain_verdict(cap, patience, cap, 1020, 1020),
			 TORTURE_DRAIN_SLOW_WAIT);
}

/* One writer asleep with no progress for the patience: nobody runs who
 * could wake it. */
static void test_one_asleep_is_stuck(void **state)
{
	(void)state;
	assert_int_equal(torture_drain_verdict(3 * S, patience, cap, 5, 4),
			 TORTURE_DRAIN_STUCK);
	assert_int_equal(torture_drain_verdict(2 * S + 1, patience, cap, 1, 0),
			 TORTURE_DRAIN_STUCK);
	/* ... but not before the patience has passed */
	assert_int_equal(torture_drain_verdict(patience, patience, cap, 5, 0),
			 TORTURE_DRAIN_WAIT);
	assert_int_equal(torture_drain_verdict(1 * S, patience, cap, 5, 0),
			 TORTURE_DRAIN_WAIT);
}

/* Runnable is not enough for ever: a waiter spinning on a lost hand-off is
 * runnable too. */
static void test_past_cap_is_stuck(void **state)
{
	(void)state;
	assert_int_equal(torture_drain_verdict(cap + 1, patience, cap, 5, 5),
			 TORTURE_DRAIN_STUCK);
	assert_int_equal(torture_drain_verdict(UINT64_MAX, patience, cap, 5, 5),
			 TORTURE_DRAIN_STUCK);
	/* no grace (a stall was seen): the patience alone */
	assert_int_equal(torture_drain_verdict(3 * S, patience, patience, 5, 5),
			 TORTURE_DRAIN_STUCK);
}

/* Nobody left: nothing can be stuck. */
static void test_none_left(void **state)
{
	(void)state;
	assert_int_equal(torture_drain_verdict(100 * S, patience, cap, 0, 0),
			 TORTURE_DRAIN_WAIT);
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

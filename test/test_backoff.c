/*
 * test_backoff.c - the backoff step (src/lock/backoff.h) of tas: from 1
 * loop, doubled up to the max (tas_backoff_max) and never 0, for every max the
 * tunable takes (1 to 4294967295).  Before, the step was `b * 2 > max ?
 * max : b * 2` in 32 bits: with a max above 2^31, a backoff of 2^31
 * doubled to 0, and a wait of 0 loops is PVSPIN_WAIT_FOREVER, so the
 * waiter's next backoff never ended (a hang on a free lock); this test
 * fails on that step.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lock/backoff.h"

/* The steps from 1 under `max`: each at least the one before and at
 * most max, never 0, doubling while below max / 2, and max reached
 * within 33 steps, then kept. */
static void check_max(uint32_t max)
{
	uint32_t b = 1;
	int steps = 0;
	while (b < max) {
		uint32_t n = pvspin_backoff_next(b, max);
		assert_true(n > b);
		assert_true(n <= max);
		if (b <= max / 2)
			assert_int_equal(n, b * 2);
		else
			assert_int_equal(n, max);
		b = n;
		assert_true(++steps <= 33);
	}
	assert_int_equal(b, max);
	assert_int_equal(pvspin_backoff_next(b, max), max);
}

static void test_every_range(void **state)
{
	(void)state;
	static const uint32_t maxes[] = {
		1, 2, 3, 512, 1u << 30, (1u << 30) + 1, 1u << 31, (1u << 31) + 1,
		3000000000u, UINT32_MAX - 1, UINT32_MAX,
	};
	for (size_t i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++)
		check_max(maxes[i]);
}

/* the case that hung: 2^31 loops under the largest max */
static void test_no_wrap_to_forever(void **state)
{
	(void)state;
	assert_int_equal(pvspin_backoff_next(1u << 31, UINT32_MAX), UINT32_MAX);
	assert_int_equal(pvspin_backoff_next(1u << 31, (1u << 31) + 1), (1u << 31) + 1);
	assert_int_equal(pvspin_backoff_next(3000000000u, UINT32_MAX), UINT32_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_range),
		cmocka_unit_test(test_no_wrap_to_forever),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_membarrier.c - the library registers the process for
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED when it is loaded, not at the first
 * heavy fence (src/platform/native.c, "Register early"), and a fork child
 * is registered too.  Registering with threads running waits for an RCU
 * grace period (12-15 ms on the development guest), which fell on the
 * first waiter to park.
 *
 * Checked with MEMBARRIER_CMD_GET_REGISTRATIONS (Linux 6.3+; the tests are
 * skipped where the kernel cannot say), before this program calls anything
 * of the platform layer: the lazy registration would make the check pass
 * otherwise.  Also checked under the LD_PRELOAD interposer
 * (test_preload_helper membarrier, test/preload.cmake).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "pvspin.h"
#include "test_membarrier.h"

/* Taken (not called) so that the static link keeps src/platform/native.c,
 * whose constructor registers; calling it would register lazily. */
bool (*volatile keep_native)(void) = pvspin_plat_fence_heavy_available;

static void test_registered_at_load(void **state)
{
	(void)state;
	int r = test_membarrier_private_registered();
	if (r < 0)
		skip();
	assert_int_equal(r, 1);
	assert_true(keep_native());
}

static void test_registered_in_fork_child(void **state)
{
	(void)state;
	if (test_membarrier_private_registered() < 0)
		skip();
	assert_int_equal(test_membarrier_fork_child_registered(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registered_at_load),
		cmocka_unit_test(test_registered_in_fork_child),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

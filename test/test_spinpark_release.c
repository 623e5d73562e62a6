/*
 * test_spinpark_release.c - spinpark's unlock touches nothing of the lock
 * after its release, so the next thread to take the lock may free it
 * right after its own unlock (test_free_after_unlock.h has the check).
 *
 *   test_spinpark_release [ATTEMPTS]     (default 3000)
 *
 * Every lock starts with one parked waiter counted that is not there, so
 * each unlock takes the slow path (the wake decision, WOKEN set before
 * the release, the wake-up after it): the path that read and wrote the
 * word after the release until 2026-12-03.  On that code 9 209 of 10 806 windows changed
 * the reused word and the unmapped case crashed.
 *
 * Exit 0: passed; 1: a window touched the freed lock; 2: usage; 77
 * (ctest's skip): no SCHED_FIFO here, or too few windows.
 */
#include "test_free_after_unlock.h"

#include "pvspin.h"

static void sp_init(void *l)
{
	/* a parked waiter counted: every unlock takes the slow path */
	__atomic_store_n(&((pvspin_lock_t *)l)->val, _SP_PARKED_ONE, __ATOMIC_RELAXED);
}
static void sp_lock(void *l) { pvspin_spinpark_lock(l); }
static void sp_unlock(void *l) { pvspin_spinpark_unlock(l); }
static bool sp_trylock(void *l) { return pvspin_spinpark_trylock(l); }
static void sp_destroy(void *l) { (void)l; }

int main(int argc, char **argv)
{
	static const struct fau_ops ops = {
		.what = "spinpark lock", .size = sizeof(pvspin_lock_t), .contend = false,
		.init = sp_init, .lock = sp_lock, .unlock = sp_unlock, .trylock = sp_trylock,
		.destroy = sp_destroy,
	};
	int attempts = argc > 1 ? atoi(argv[1]) : 3000;
	if (attempts <= 0) {
		fprintf(stderr, "usage: test_spinpark_release [ATTEMPTS > 0]\n");
		return 2;
	}
	return fau_run(&ops, attempts);
}

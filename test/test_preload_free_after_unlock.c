/*
 * test_preload_free_after_unlock.c - a plain POSIX program, run under
 * `pvspin run`: an interposed pthread mutex or spinlock may be destroyed
 * and freed by the thread that unlocks it last while an earlier unlocker
 * is still inside its unlock call (test_free_after_unlock.h has the
 * check).  Each lock is contended once first, so that the unlock takes
 * the path that wakes sleepers: the interposer's mutex unlock read (and
 * wrote) the mutex's sleeper count after its release, and spinpark's
 * unlock the word, until 2026-12-03.
 *
 *   test_preload_free_after_unlock mutex|spin [ATTEMPTS]   (default 3000)
 *
 * Exit 0: passed; 1: a window touched the freed lock; 2: usage; 77
 * (ctest's skip): no SCHED_FIFO here, or too few windows.
 */
#include "test_free_after_unlock.h"

#include <string.h>

static void m_init(void *l) { pthread_mutex_init(l, NULL); }
static void m_lock(void *l) { pthread_mutex_lock(l); }
static void m_unlock(void *l) { pthread_mutex_unlock(l); }
static bool m_trylock(void *l) { return pthread_mutex_trylock(l) == 0; }
static void m_destroy(void *l) { pthread_mutex_destroy(l); }

static void s_init(void *l) { pthread_spin_init(l, PTHREAD_PROCESS_PRIVATE); }
static void s_lock(void *l) { pthread_spin_lock(l); }
static void s_unlock(void *l) { pthread_spin_unlock(l); }
static bool s_trylock(void *l) { return pthread_spin_trylock(l) == 0; }
static void s_destroy(void *l) { pthread_spin_destroy(l); }

int main(int argc, char **argv)
{
	static const struct fau_ops mutex = {
		.what = "mutex", .size = sizeof(pthread_mutex_t), .contend = true,
		.init = m_init, .lock = m_lock, .unlock = m_unlock, .trylock = m_trylock,
		.destroy = m_destroy,
	};
	static const struct fau_ops spin = {
		.what = "spinlock", .size = sizeof(pthread_spinlock_t), .contend = true,
		.init = s_init, .lock = s_lock, .unlock = s_unlock, .trylock = s_trylock,
		.destroy = s_destroy,
	};
	if (argc < 2 || (strcmp(argv[1], "mutex") && strcmp(argv[1], "spin")) ||
	    (argc > 2 && atoi(argv[2]) <= 0)) {
		fprintf(stderr, "usage: test_preload_free_after_unlock mutex|spin [ATTEMPTS > 0]\n");
		return 2;
	}
	return fau_run(!strcmp(argv[1], "mutex") ? &mutex : &spin, argc > 2 ? atoi(argv[2]) : 3000);
}

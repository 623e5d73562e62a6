/*
 * test_preload_ctor.c - libtest_preload_ctor.so: a library whose
 * constructor uses pthread locks.  Linked into test_preload_helper, it is
 * initialised BEFORE the preloaded interposer (ld.so runs the constructors
 * of a program's dependencies before those of LD_PRELOAD libraries loaded
 * ahead of them), so this is "a lock call before the interposer's
 * constructor", for interposed objects and for pass-through ones (whose
 * glibc functions are looked up right then).  The checks' result is read by `test_preload_helper ctor`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>

#define CTOR_LOCKS 1000

static int result = -1;
static pthread_mutex_t plain = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t errchk = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

__attribute__((constructor)) static void ctor(void)
{
	int bad = 0;
	pthread_mutex_t dyn;
	bad |= pthread_mutex_init(&dyn, NULL) != 0;
	for (int i = 0; i < CTOR_LOCKS; i++) {
		bad |= pthread_mutex_lock(&plain) != 0;
		bad |= pthread_mutex_unlock(&plain) != 0;
	}
	bad |= pthread_mutex_lock(&dyn) != 0;
	bad |= pthread_mutex_trylock(&dyn) != EBUSY;
	bad |= pthread_mutex_unlock(&dyn) != 0;
	bad |= pthread_mutex_destroy(&dyn) != 0;
	bad |= pthread_mutex_lock(&rec) != 0;
	bad |= pthread_mutex_lock(&rec) != 0;
	bad |= pthread_mutex_unlock(&rec) != 0;
	bad |= pthread_mutex_unlock(&rec) != 0;
	bad |= pthread_mutex_unlock(&rec) != EPERM;
	bad |= pthread_mutex_lock(&errchk) != 0;
	bad |= pthread_mutex_lock(&errchk) != EDEADLK;
	bad |= pthread_mutex_unlock(&errchk) != 0;
	bad |= pthread_cond_signal(&cond) != 0;
	/* pass-through objects: glibc's functions are looked up now, from
	 * inside this constructor, before the interposer's own */
	pthread_mutexattr_t ra;
	pthread_mutex_t robust;
	pthread_mutexattr_init(&ra);
	pthread_mutexattr_setrobust(&ra, PTHREAD_MUTEX_ROBUST);
	bad |= pthread_mutex_init(&robust, &ra) != 0;
	bad |= pthread_mutex_lock(&robust) != 0;
	bad |= pthread_mutex_trylock(&robust) != EBUSY;
	bad |= pthread_mutex_unlock(&robust) != 0;
	bad |= pthread_mutex_destroy(&robust) != 0;
	pthread_condattr_t ca;
	pthread_cond_t shared;
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	bad |= pthread_cond_init(&shared, &ca) != 0;
	bad |= pthread_cond_broadcast(&shared) != 0;
	bad |= pthread_cond_destroy(&shared) != 0;
	bad |= pthread_cond_broadcast(&cond) != 0;
	result = bad ? 1 : 0;
}

int test_preload_ctor_result(void)
{
	return result;
}

/*
 * test_preload_semantics.c - glibc's pthread semantics under the
 * interposer (run with LD_PRELOAD=libpvspin-preload.so and PVSPIN_LOCK set
 * by ctest, once per kind): static initializers, recursion, error checks,
 * trylock, timed locks and their clocks, destroy, the pass-through of
 * robust / PI / process-shared mutexes and condvars, condition variables
 * with every mutex type, spinlocks.  Fails at once if the interposer is
 * not the one the calls reach.  No timing assertions: a timed wait is only
 * checked not to return before its deadline.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

static struct timespec deadline_in(clockid_t clock, long ms)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

static int reached(clockid_t clock, const struct timespec *dl)
{
	struct timespec now;
	clock_gettime(clock, &now);
	return now.tv_sec > dl->tv_sec || (now.tv_sec == dl->tv_sec && now.tv_nsec >= dl->tv_nsec);
}

/* Run fn(arg) in another thread and return its int result. */
struct call { int (*fn)(void *); void *arg; int ret; };
static void *call_thread(void *p) { struct call *c = p; c->ret = c->fn(c->arg); return NULL; }
static int in_thread(int (*fn)(void *), void *arg)
{
	struct call c = { fn, arg, -1 };
	pthread_t t;
	pthread_create(&t, NULL, call_thread, &c);
	pthread_join(t, NULL);
	return c.ret;
}
static int do_lock(void *m) { return pthread_mutex_lock(m); }
static int do_unlock(void *m) { return pthread_mutex_unlock(m); }
static int do_trylock(void *m) { return pthread_mutex_trylock(m); }

static void interposer_active(void **state)
{
	(void)state;
	Dl_info info;
	void *p = dlsym(RTLD_DEFAULT, "pthread_mutex_lock");
	assert_non_null(p);
	assert_true(dladdr(p, &info));
	assert_non_null(strstr(info.dli_fname, "pvspin-preload"));
}

static void normal_static(void **state)
{
	(void)state;
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	assert_int_equal(pthread_mutex_lock(&m), 0);
	assert_int_equal(pthread_mutex_trylock(&m), EBUSY);
	assert_int_equal(in_thread(do_trylock, &m), EBUSY);
	assert_int_equal(pthread_mutex_unlock(&m), 0);
	assert_int_equal(in_thread(do_trylock, &m), 0);
	assert_int_equal(pthread_mutex_unlock(&m), 0); /* normal: anyone may unlock */
	assert_int_equal(pthread_mutex_unlock(&m), 0); /* unlocked: harmless, as glibc */
	assert_int_equal(pthread_mutex_trylock(&m), 0);
	assert_int_equal(pthread_mutex_unlock(&m), 0);
}

static void recursive_checks(pthread_mutex_t *m)
{
	assert_int_equal(pthread_mutex_lock(m), 0);
	assert_int_equal(pthread_mutex_lock(m), 0);
	assert_int_equal(pthread_mutex_trylock(m), 0);
	assert_int_equal(in_thread(do_trylock, m), EBUSY);
	assert_int_equal(in_thread(do_unlock, m), EPERM);
	assert_int_equal(pthread_mutex_unlock(m), 0);
	assert_int_equal(pthread_mutex_unlock(m), 0);
	assert_int_equal(in_thread(do_trylock, m), EBUSY); /* still held once */
	assert_int_equal(pthread_mutex_unlock(m), 0);
	assert_int_equal(pthread_mutex_unlock(m), EPERM);
	assert_int_equal(in_thread(do_lock, m), 0); /* the thread exits holding it */
	assert_int_equal(pthread_mutex_trylock(m), EBUSY);
	assert_int_equal(pthread_mutex_unlock(m), EPERM);
}

static void recursive_static(void **state)
{
	(void)state;
	static pthread_mutex_t m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	recursive_checks(&m);
}

static void recursive_attr(void **state)
{
	(void)state;
	pthread_mutex_t m;
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	assert_int_equal(pthread_mutex_init(&m, &a), 0);
	recursive_checks(&m);
}

static void errorcheck_checks(pthread_mutex_t *m)
{
	assert_int_equal(pthread_mutex_unlock(m), EPERM); /* not locked */
	assert_int_equal(pthread_mutex_lock(m), 0);
	assert_int_equal(pthread_mutex_lock(m), EDEADLK);
	assert_int_equal(pthread_mutex_trylock(m), EBUSY);
	struct timespec dl = deadline_in(CLOCK_REALTIME, 10);
	assert_int_equal(pthread_mutex_timedlock(m, &dl), EDEADLK);
	assert_int_equal(in_thread(do_unlock, m), EPERM);
	assert_int_equal(pthread_mutex_unlock(m), 0);
	assert_int_equal(pthread_mutex_unlock(m), EPERM);
}

static void errorcheck_static(void **state)
{
	(void)state;
	static pthread_mutex_t m = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	errorcheck_checks(&m);
}

static void errorcheck_attr(void **state)
{
	(void)state;
	pthread_mutex_t m;
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	assert_int_equal(pthread_mutex_init(&m, &a), 0);
	errorcheck_checks(&m);
}

static void timed_locks(void **state)
{
	(void)state;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec bad = { .tv_sec = 0, .tv_nsec = 1000000000L };
	assert_int_equal(pthread_mutex_timedlock(&m, &bad), 0); /* free: glibc takes it */
	assert_int_equal(pthread_mutex_unlock(&m), 0);
	assert_int_equal(in_thread(do_lock, &m), 0); /* held by an exited thread */
	assert_int_equal(pthread_mutex_timedlock(&m, &bad), EINVAL);
	bad.tv_nsec = -1;
	assert_int_equal(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &bad), EINVAL);
	struct timespec dl = deadline_in(CLOCK_REALTIME, 30);
	assert_int_equal(pthread_mutex_timedlock(&m, &dl), ETIMEDOUT);
	assert_true(reached(CLOCK_REALTIME, &dl));
	dl = deadline_in(CLOCK_MONOTONIC, 30);
	assert_int_equal(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &dl), ETIMEDOUT);
	assert_true(reached(CLOCK_MONOTONIC, &dl));
	dl = deadline_in(CLOCK_REALTIME, 30);
	assert_int_equal(pthread_mutex_clocklock(&m, CLOCK_REALTIME, &dl), ETIMEDOUT);
	assert_int_equal(pthread_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID, &dl), EINVAL);
	struct timespec past = { .tv_sec = -1, .tv_nsec = 0 };
	assert_int_equal(pthread_mutex_timedlock(&m, &past), ETIMEDOUT);
	assert_int_equal(pthread_mutex_unlock(&m), 0);
}

static pthread_mutex_t hand_m = PTHREAD_MUTEX_INITIALIZER;
static void *release_later(void *arg)
{
	(void)arg;
	usleep(20000);
	pthread_mutex_unlock(&hand_m);
	return NULL;
}

static void timedlock_gets_lock(void **state)
{
	(void)state;
	pthread_t t;
	assert_int_equal(pthread_mutex_lock(&hand_m), 0);
	pthread_create(&t, NULL, release_later, NULL);
	struct timespec dl = deadline_in(CLOCK_MONOTONIC, 60000);
	assert_int_equal(pthread_mutex_clocklock(&hand_m, CLOCK_MONOTONIC, &dl), 0);
	pthread_join(t, NULL);
	assert_int_equal(pthread_mutex_unlock(&hand_m), 0);
}

static void destroy(void **state)
{
	(void)state;
	pthread_mutex_t m;
	assert_int_equal(pthread_mutex_init(&m, NULL), 0);
	assert_int_equal(pthread_mutex_lock(&m), 0);
	assert_int_equal(pthread_mutex_destroy(&m), EBUSY);
	assert_int_equal(pthread_mutex_unlock(&m), 0);
	assert_int_equal(pthread_mutex_destroy(&m), 0);
	assert_int_equal(pthread_mutex_lock(&m), EINVAL); /* as glibc */
}

static void robust_passthrough(void **state)
{
	(void)state;
	pthread_mutex_t m;
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	assert_int_equal(pthread_mutex_init(&m, &a), 0);
	assert_true(m.__data.__kind & 0x10); /* glibc's robust bit: glibc's object */
	assert_int_equal(in_thread(do_lock, &m), 0); /* owner dies */
	assert_int_equal(pthread_mutex_lock(&m), EOWNERDEAD);
	assert_int_equal(pthread_mutex_consistent(&m), 0);
	assert_int_equal(pthread_mutex_unlock(&m), 0);
	assert_int_equal(pthread_mutex_destroy(&m), 0);
}

static void pi_passthrough(void **state)
{
	(void)state;
	pthread_mutex_t m;
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	assert_int_equal(pthread_mutex_init(&m, &a), 0);
	assert_true(m.__data.__kind & 0x20);
	assert_int_equal(pthread_mutex_lock(&m), 0);
	assert_int_equal(pthread_mutex_lock(&m), EDEADLK);
	assert_int_equal(in_thread(do_trylock, &m), EBUSY);
	assert_int_equal(pthread_mutex_unlock(&m), 0);
	assert_int_equal(pthread_mutex_destroy(&m), 0);
}

static void pshared_mutex_between_processes(void **state)
{
	(void)state;
	struct shm { pthread_mutex_t m; long v; } *sh =
		mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(sh != MAP_FAILED);
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	assert_int_equal(pthread_mutex_init(&sh->m, &a), 0);
	assert_true(sh->m.__data.__kind & 0x80);
	sh->v = 0;
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 20000; i++) {
			pthread_mutex_lock(&sh->m);
			sh->v++;
			pthread_mutex_unlock(&sh->m);
		}
		_exit(0);
	}
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&sh->m);
		sh->v++;
		pthread_mutex_unlock(&sh->m);
	}
	int st;
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(sh->v, 40000);
	munmap(sh, sizeof(*sh));
}

/* ---- condition variables --------------------------------------------- */

struct cv { pthread_mutex_t *m; pthread_cond_t *c; int flag; int depth; int ret; };

static void *cv_waiter(void *p)
{
	struct cv *cv = p;
	for (int i = 0; i < cv->depth; i++)
		pthread_mutex_lock(cv->m);
	while (!cv->flag) {
		int r = pthread_cond_wait(cv->c, cv->m);
		if (r) {
			cv->ret = r;
			break;
		}
	}
	/* the recursion depth came back: depth unlocks succeed, one more fails */
	int bad = 0;
	for (int i = 0; i < cv->depth; i++)
		bad |= pthread_mutex_unlock(cv->m) != 0;
	if (cv->depth > 1)
		bad |= pthread_mutex_unlock(cv->m) != EPERM;
	if (bad && !cv->ret)
		cv->ret = -1;
	return NULL;
}

static void cond_signal_with(pthread_mutex_t *m, int depth)
{
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct cv cv = { m, &c, 0, depth, 0 };
	pthread_t t;
	pthread_create(&t, NULL, cv_waiter, &cv);
	/* the waiter must release the mutex (all levels) while it waits */
	pthread_mutex_lock(m);
	cv.flag = 1;
	pthread_cond_signal(&c);
	pthread_mutex_unlock(m);
	pthread_join(t, NULL);
	assert_int_equal(cv.ret, 0);
	assert_int_equal(pthread_cond_destroy(&c), 0);
}

static void cond_normal(void **state)
{
	(void)state;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	cond_signal_with(&m, 1);
}

static void cond_recursive(void **state)
{
	(void)state;
	pthread_mutex_t m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	cond_signal_with(&m, 3);
}

static void cond_robust_mutex(void **state)
{
	(void)state;
	pthread_mutex_t m;
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&m, &a);
	cond_signal_with(&m, 1);
}

static void cond_errors(void **state)
{
	(void)state;
	pthread_mutex_t e = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	assert_int_equal(pthread_cond_wait(&c, &e), EPERM); /* not the owner */
	struct timespec bad = { .tv_sec = 0, .tv_nsec = 2000000000L };
	pthread_mutex_lock(&m);
	assert_int_equal(pthread_cond_timedwait(&c, &m, &bad), EINVAL);
	struct timespec dl = deadline_in(CLOCK_MONOTONIC, 20);
	assert_int_equal(pthread_cond_clockwait(&c, &m, CLOCK_PROCESS_CPUTIME_ID, &dl), EINVAL);
	assert_int_equal(pthread_cond_clockwait(&c, &m, CLOCK_MONOTONIC, &dl), ETIMEDOUT);
	assert_true(reached(CLOCK_MONOTONIC, &dl));
	dl = deadline_in(CLOCK_REALTIME, 20);
	assert_int_equal(pthread_cond_timedwait(&c, &m, &dl), ETIMEDOUT);
	assert_true(reached(CLOCK_REALTIME, &dl));
	assert_int_equal(pthread_mutex_trylock(&m), EBUSY); /* held again after the wait */
	pthread_mutex_unlock(&m);
}

static void cond_monotonic_attr(void **state)
{
	(void)state;
	pthread_condattr_t a;
	pthread_cond_t c;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	assert_int_equal(pthread_cond_init(&c, &a), 0);
	pthread_mutex_lock(&m);
	struct timespec dl = deadline_in(CLOCK_MONOTONIC, 20);
	assert_int_equal(pthread_cond_timedwait(&c, &m, &dl), ETIMEDOUT);
	assert_true(reached(CLOCK_MONOTONIC, &dl));
	pthread_mutex_unlock(&m);
	assert_int_equal(pthread_cond_destroy(&c), 0);
}

static void cond_pshared_passthrough(void **state)
{
	(void)state;
	pthread_condattr_t ca;
	pthread_mutexattr_t ma;
	pthread_cond_t c;
	pthread_mutex_t m;
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	assert_int_equal(pthread_cond_init(&c, &ca), 0);
	assert_int_equal(pthread_mutex_init(&m, &ma), 0);
	struct cv cv = { &m, &c, 0, 1, 0 };
	pthread_t t;
	pthread_create(&t, NULL, cv_waiter, &cv);
	pthread_mutex_lock(&m);
	cv.flag = 1;
	pthread_cond_broadcast(&c);
	pthread_mutex_unlock(&m);
	pthread_join(t, NULL);
	assert_int_equal(cv.ret, 0);
	pthread_mutex_t priv = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&priv);
	assert_int_equal(pthread_cond_wait(&c, &priv), EINVAL); /* documented limit */
	pthread_mutex_unlock(&priv);
}

static pthread_mutex_t cancel_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cancel_c = PTHREAD_COND_INITIALIZER;
static int cancel_waiting;

static void unlock_cleanup(void *m) { pthread_mutex_unlock(m); }

static void *cancel_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&cancel_m);
	pthread_cleanup_push(unlock_cleanup, &cancel_m);
	cancel_waiting = 1;
	for (;;)
		pthread_cond_wait(&cancel_c, &cancel_m);
	pthread_cleanup_pop(1);
	return NULL;
}

/* pthread_cond_wait is a cancellation point; the cleanup runs with the
 * mutex held again (it unlocks it here, so main can take it after). */
static void cond_cancel(void **state)
{
	(void)state;
	pthread_t t;
	void *ret;
	pthread_create(&t, NULL, cancel_waiter, NULL);
	for (;;) {
		pthread_mutex_lock(&cancel_m);
		int w = cancel_waiting;
		pthread_mutex_unlock(&cancel_m);
		if (w)
			break;
		usleep(1000);
	}
	assert_int_equal(pthread_cancel(t), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_ptr_equal(ret, PTHREAD_CANCELED);
	assert_int_equal(pthread_mutex_trylock(&cancel_m), 0);
	assert_int_equal(pthread_mutex_unlock(&cancel_m), 0);
	assert_int_equal(pthread_cond_destroy(&cancel_c), 0);
}

static void spinlocks(void **state)
{
	(void)state;
	pthread_spinlock_t s, sh;
	assert_int_equal(pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE), 0);
	assert_int_equal(pthread_spin_lock(&s), 0);
	assert_int_equal(pthread_spin_trylock(&s), EBUSY);
	assert_int_equal(pthread_spin_unlock(&s), 0);
	assert_int_equal(pthread_spin_trylock(&s), 0);
	assert_int_equal(pthread_spin_unlock(&s), 0);
	assert_int_equal(pthread_spin_destroy(&s), 0);
	assert_int_equal(pthread_spin_init(&sh, PTHREAD_PROCESS_SHARED), 0);
	assert_int_equal(pthread_spin_lock(&sh), 0);
	assert_int_equal(pthread_spin_trylock(&sh), EBUSY);
	assert_int_equal(pthread_spin_unlock(&sh), 0);
	assert_int_equal(pthread_spin_trylock(&sh), 0);
	assert_int_equal(pthread_spin_unlock(&sh), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interposer_active),
		cmocka_unit_test(normal_static),
		cmocka_unit_test(recursive_static),
		cmocka_unit_test(recursive_attr),
		cmocka_unit_test(errorcheck_static),
		cmocka_unit_test(errorcheck_attr),
		cmocka_unit_test(timed_locks),
		cmocka_unit_test(timedlock_gets_lock),
		cmocka_unit_test(destroy),
		cmocka_unit_test(robust_passthrough),
		cmocka_unit_test(pi_passthrough),
		cmocka_unit_test(pshared_mutex_between_processes),
		cmocka_unit_test(cond_normal),
		cmocka_unit_test(cond_recursive),
		cmocka_unit_test(cond_robust_mutex),
		cmocka_unit_test(cond_errors),
		cmocka_unit_test(cond_monotonic_attr),
		cmocka_unit_test(cond_pshared_passthrough),
		cmocka_unit_test(cond_cancel),
		cmocka_unit_test(spinlocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

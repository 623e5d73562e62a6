/*
 * test_preload_helper.c - a normally linked pthread program that the
 * preload tests run under `pvspin run` (test/preload.cmake).  Each
 * subcommand checks its own results and exits 0 on success, 1 on a wrong
 * result; the driver (test_preload_check) checks the exit status and the
 * PVSPIN_STATS line.
 *
 *   count N          N lock/unlock of a static mutex, N trylock/unlock
 *                    (pthread_mutex_trylock@GLIBC_2.34), N spin lock/unlock
 *   ctor             report the checks done by libtest_preload_ctor.so's
 *                    constructor (which ran before the interposer's)
 *   fork             fork while other threads hold and wait for locks; the
 *                    child's threads use their own locks
 *   threads N        N threads one after another, each taking a lock
 *   prodcons P C N   P producers, C consumers, N items per producer through
 *                    a 4-slot buffer with a mutex and two condvars
 *   spinshared K N   K processes, N increments each, of a counter in shared
 *                    memory under a PTHREAD_PROCESS_SHARED spinlock
 *   counter T N      T threads, N increments each, under one mutex
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FAIL(...) do { fprintf(stderr, "helper: FAIL: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

/* ---- count ------------------------------------------------------------ */
static pthread_mutex_t count_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t count_s;

static int cmd_count(long n)
{
	pthread_spin_init(&count_s, PTHREAD_PROCESS_PRIVATE);
	for (long i = 0; i < n; i++) {
		if (pthread_mutex_lock(&count_m) || pthread_mutex_unlock(&count_m))
			FAIL("mutex lock/unlock");
		if (pthread_mutex_trylock(&count_m) || pthread_mutex_unlock(&count_m))
			FAIL("mutex trylock/unlock");
		if (pthread_spin_lock(&count_s) || pthread_spin_unlock(&count_s))
			FAIL("spin lock/unlock");
	}
	return 0;
}

/* ---- ctor ------------------------------------------------------------- */
int test_preload_ctor_result(void); /* libtest_preload_ctor.so */

/* ---- counter ---------------------------------------------------------- */
static pthread_mutex_t ctr_m = PTHREAD_MUTEX_INITIALIZER;
static long ctr_value, ctr_n;

static void *ctr_thread(void *arg)
{
	(void)arg;
	for (long i = 0; i < ctr_n; i++) {
		pthread_mutex_lock(&ctr_m);
		long v = ctr_value;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		ctr_value = v + 1;
		pthread_mutex_unlock(&ctr_m);
	}
	return NULL;
}

static int run_counter(int t, long n)
{
	pthread_t th[64];
	ctr_value = 0;
	ctr_n = n;
	for (int i = 0; i < t; i++)
		if (pthread_create(&th[i], NULL, ctr_thread, NULL))
			FAIL("pthread_create");
	for (int i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	if (ctr_value != t * n)
		FAIL("counter %ld, expected %ld", ctr_value, t * n);
	return 0;
}

/* ---- fork ------------------------------------------------------------- */
static pthread_mutex_t fork_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t fork_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t fork_s;
static int fork_release, holders_ready, waiters_started;

static void *fork_holder(void *arg)
{
	pthread_mutex_t *m = arg;
	pthread_mutex_lock(m);
	__atomic_fetch_add(&holders_ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&fork_release, __ATOMIC_ACQUIRE))
		usleep(1000);
	pthread_mutex_unlock(m);
	return NULL;
}

static void *fork_waiter(void *arg)
{
	pthread_mutex_t *m = arg;
	__atomic_fetch_add(&waiters_started, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(m); /* queued (maybe halted) while main forks */
	pthread_mutex_unlock(m);
	return NULL;
}

static int cmd_fork(void)
{
	pthread_t h[2], w[4];
	pthread_spin_init(&fork_s, PTHREAD_PROCESS_PRIVATE);
	pthread_create(&h[0], NULL, fork_holder, &fork_a);
	pthread_create(&h[1], NULL, fork_holder, &fork_b);
	while (__atomic_load_n(&holders_ready, __ATOMIC_SEQ_CST) < 2)
		usleep(1000);
	for (int i = 0; i < 4; i++)
		pthread_create(&w[i], NULL, fork_waiter, i % 2 ? &fork_a : &fork_b);
	while (__atomic_load_n(&waiters_started, __ATOMIC_SEQ_CST) < 4)
		usleep(1000);
	usleep(20000); /* let the waiters queue */
	pthread_spin_lock(&fork_s); /* held by the forking thread */

	pid_t pid = fork();
	if (pid < 0)
		FAIL("fork: %s", strerror(errno));
	if (pid == 0) {
		/* the child: its own locks, its own threads */
		pthread_spin_unlock(&fork_s); /* the forking thread's lock is ours */
		pthread_mutex_t mine = PTHREAD_MUTEX_INITIALIZER;
		pthread_mutex_lock(&mine);
		pthread_mutex_unlock(&mine);
		run_counter(2, 500); /* small: the parent's waiters spin meanwhile */
		if (pthread_mutex_trylock(&fork_a) != EBUSY)
			FAIL("child: a lock held by another thread at fork must stay held");
		_exit(0);
	}
	pthread_spin_unlock(&fork_s);
	int st;
	if (waitpid(pid, &st, 0) != pid)
		FAIL("waitpid");
	__atomic_store_n(&fork_release, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		pthread_join(h[i], NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(w[i], NULL);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		FAIL("child failed (status 0x%x)", st);
	return 0;
}

/* ---- threads ---------------------------------------------------------- */
static pthread_mutex_t thr_m = PTHREAD_MUTEX_INITIALIZER;
static long thr_count;

static void *thr_one(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&thr_m);
	thr_count++;
	pthread_mutex_unlock(&thr_m);
	return NULL;
}

static int cmd_threads(long n)
{
	for (long i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, thr_one, NULL))
			FAIL("pthread_create %ld", i);
		pthread_join(t, NULL);
	}
	if (thr_count != n)
		FAIL("threads counted %ld, expected %ld", thr_count, n);
	return 0;
}

/* ---- prodcons --------------------------------------------------------- */
#define QSIZE 4
static pthread_mutex_t pc_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pc_notfull = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pc_notempty = PTHREAD_COND_INITIALIZER;
static long pc_buf[QSIZE];
static int pc_head, pc_len, pc_producers_left;
static long pc_items;
static long pc_consumed_sum, pc_consumed_n;

static void *producer(void *arg)
{
	long base = (long)arg * pc_items;
	for (long i = 0; i < pc_items; i++) {
		pthread_mutex_lock(&pc_m);
		while (pc_len == QSIZE)
			pthread_cond_wait(&pc_notfull, &pc_m);
		pc_buf[(pc_head + pc_len) % QSIZE] = base + i + 1;
		pc_len++;
		pthread_cond_signal(&pc_notempty);
		pthread_mutex_unlock(&pc_m);
	}
	pthread_mutex_lock(&pc_m);
	if (--pc_producers_left == 0)
		pthread_cond_broadcast(&pc_notempty);
	pthread_mutex_unlock(&pc_m);
	return NULL;
}

static void *consumer(void *arg)
{
	(void)arg;
	long sum = 0, n = 0;
	for (;;) {
		pthread_mutex_lock(&pc_m);
		while (pc_len == 0 && pc_producers_left > 0) {
			/* half the waits timed (far deadline): both paths */
			if (n % 2) {
				struct timespec ts;
				clock_gettime(CLOCK_REALTIME, &ts);
				ts.tv_sec += 60;
				int r = pthread_cond_timedwait(&pc_notempty, &pc_m, &ts);
				if (r && r != ETIMEDOUT)
					FAIL("timedwait %d", r);
			} else {
				pthread_cond_wait(&pc_notempty, &pc_m);
			}
		}
		if (pc_len == 0) {
			pthread_mutex_unlock(&pc_m);
			break;
		}
		sum += pc_buf[pc_head];
		pc_head = (pc_head + 1) % QSIZE;
		pc_len--;
		n++;
		pthread_cond_signal(&pc_notfull);
		pthread_mutex_unlock(&pc_m);
	}
	pthread_mutex_lock(&pc_m);
	pc_consumed_sum += sum;
	pc_consumed_n += n;
	pthread_mutex_unlock(&pc_m);
	return NULL;
}

static int cmd_prodcons(int p, int c, long n)
{
	pthread_t th[64];
	pc_items = n;
	pc_producers_left = p;
	for (int i = 0; i < c; i++)
		pthread_create(&th[i], NULL, consumer, NULL);
	for (int i = 0; i < p; i++)
		pthread_create(&th[c + i], NULL, producer, (void *)(long)i);
	for (int i = 0; i < p + c; i++)
		pthread_join(th[i], NULL);
	long total = (long)p * n;
	if (pc_consumed_n != total || pc_consumed_sum != total * (total + 1) / 2)
		FAIL("consumed %ld items, sum %ld; expected %ld, %ld", pc_consumed_n,
		     pc_consumed_sum, total, total * (total + 1) / 2);
	if (pthread_cond_destroy(&pc_notempty) || pthread_cond_destroy(&pc_notfull))
		FAIL("cond_destroy");
	return 0;
}

/* ---- spinshared ------------------------------------------------------- */
static int cmd_spinshared(int k, long n)
{
	struct shm { pthread_spinlock_t s; long value; } *sh;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		FAIL("mmap");
	if (pthread_spin_init(&sh->s, PTHREAD_PROCESS_SHARED))
		FAIL("spin_init shared");
	sh->value = 0;
	for (int i = 0; i < k; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			for (long j = 0; j < n; j++) {
				pthread_spin_lock(&sh->s);
				long v = sh->value;
				__atomic_signal_fence(__ATOMIC_SEQ_CST);
				sh->value = v + 1;
				pthread_spin_unlock(&sh->s);
			}
			_exit(0);
		}
	}
	for (int i = 0; i < k; i++) {
		int st;
		wait(&st);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			FAIL("child failed");
	}
	if (sh->value != k * n)
		FAIL("shared counter %ld, expected %ld", sh->value, k * n);
	if (pthread_spin_trylock(&sh->s) || pthread_spin_trylock(&sh->s) != EBUSY)
		FAIL("shared trylock");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		FAIL("usage: test_preload_helper SUBCOMMAND ARGS");
	const char *c = argv[1];
	long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;
	long d = argc > 4 ? atol(argv[4]) : 0;
	if (!strcmp(c, "count"))
		return cmd_count(a);
	if (!strcmp(c, "ctor"))
		return test_preload_ctor_result();
	if (!strcmp(c, "fork"))
		return cmd_fork();
	if (!strcmp(c, "threads"))
		return cmd_threads(a);
	if (!strcmp(c, "prodcons"))
		return cmd_prodcons((int)a, (int)b, d);
	if (!strcmp(c, "spinshared"))
		return cmd_spinshared((int)a, b);
	if (!strcmp(c, "counter"))
		return run_counter((int)a, b);
	FAIL("unknown subcommand %s", c);
}

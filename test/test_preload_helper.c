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
 *   forkspin         the pthread_atfork idiom on a pthread spinlock with
 *                    waiters: main holds it while two threads wait on it
 *                    (queued, pending, tickets out), forks; the child
 *                    unlocks it and takes it 1000 times (a 10 s alarm
 *                    turns a child that waits for ever into a failure)
 *   forkspin spinpark  the same, and the child checks the word first: a
 *                    spinpark word with the waiters' counts taken out,
 *                    (0,0,1) plus the learned budget, then (0,0,0) plus
 *                    budget after its unlock (src/lock/fork_repair.c)
 *   threads N        N threads one after another, each taking a lock
 *   prodcons P C N   P producers, C consumers, N items per producer through
 *                    a 4-slot buffer with a mutex and two condvars
 *   spinshared K N   K processes, N increments each, of a counter in shared
 *                    memory under a PTHREAD_PROCESS_SHARED spinlock
 *   counter T N      T threads, N increments each, under one mutex
 *   barrier T R      T threads meet R times at a barrier made of a mutex
 *                    and a condvar (the last one broadcasts)
 *   pingpong R       2 threads hand a turn back and forth R times through
 *                    one mutex and one condvar (signal)
 *   condretake R MS  R times a waiter waits on a condvar; main takes the
 *                    mutex (by trylock only: it never spins), broadcasts
 *                    and keeps the mutex MS ms more, so the woken waiter
 *                    retakes a held mutex
 *   relock R         R times, a second thread alive (asleep), lock and
 *                    unlock a normal mutex whose word reads free but
 *                    counting a sleeper that an unlock woke (the word of
 *                    preload/preload_mutex.c: WOKEN | one sleeper, 0x6,
 *                    written by the test: only under `pvspin run`), as
 *                    a lock finds it between an unlock and the woken
 *                    sleeper's return; such a lock takes the word
 *                    without spinning (mutex_spin_acquire stays 0)
 *   spinsleep T MS   50 times a holder keeps a pthread spinlock for MS ms
 *                    (nanosleep) while T threads wait for it; prints the
 *                    waiters' CPU time per wall second ("waiter_cpu=X")
 *                    and the part of it spent inside pthread_spin_lock
 *                    ("lock_cpu=Y": the lock's waiting, without this
 *                    test's own 100 us polls between rounds); with a
 *                    third argument L, fails if Y is above L/1000
 *   forkstats N      N lock/unlock of a mutex, then a fork child that
 *                    leaves by _exit(0) without taking a lock (its own
 *                    stats line must say so)
 *   firstthread      mutexes taken while the process has one thread
 *                    (the interposer's plain-store path) stay held when
 *                    a second thread starts: it waits for them (a
 *                    normal, a recursive held twice and an errorcheck
 *                    mutex) until main, now one of two threads, unlocks
 *                    them 50 ms later; then the same after a fork, in
 *                    the child, on a mutex whose word counts a waiter of
 *                    the parent (main holds it, a thread waits, main
 *                    forks: the child, one thread, unlocks it, takes
 *                    and drops it again; glibc 2.36 leaves
 *                    __libc_single_threaded false in a fork child, a
 *                    glibc that sets it sends the child the plain way)
 *   corruptspin      unlock a pthread spinlock whose word holds 0x7: the
 *                    interposer reports the misuse and aborts
 *   destroywait      pthread_cond_destroy() under a waiter that nobody
 *                    wakes (undefined behaviour; glibc sleeps for ever):
 *                    the destroy must wait without burning a CPU (under
 *                    0.2 s of the process's CPU time in a second)
 *   uncontended N    the cost of uncontended calls: N lock/unlock pairs
 *                    of a pthread spinlock, a normal and a recursive
 *                    mutex, first with the main thread alone, then with
 *                    a second thread alive (asleep), printing ns per
 *                    pair ("spin_ns=X mutex_ns=Y recursive_ns=Z" per
 *                    line, "threads=1" and "threads=2"); checks each
 *                    lock is free after
 *   slotless N       the main thread and N-1 others hold a thread slot
 *                    each (a counted lock; N = the pool's 4096 leaves
 *                    none), then one more thread, slot-less, waits for a
 *                    mutex main holds for 50 ms (with a large
 *                    PVSPIN_MUTEX_SPIN_LIMIT: while spinning)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_barrier.h"

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

/* ---- forkspin --------------------------------------------------------- */
static pthread_spinlock_t forkspin_s;
static int forkspin_started;

/* spinpark's budget bits (pvspin/spinpark.h, _SP_BUDGET_MASK): the only
 * field a repaired word keeps besides the locked byte */
#define FORKSPIN_SP_BUDGET_MASK 0x00070000u

/* The spinlock's word, relaxed. */
static uint32_t forkspin_word(void)
{
	return __atomic_load_n((uint32_t *)(void *)&forkspin_s, __ATOMIC_RELAXED);
}

static void *forkspin_waiter(void *arg)
{
	__atomic_fetch_add(&forkspin_started, 1, __ATOMIC_SEQ_CST);
	pthread_spin_lock(&forkspin_s); /* waits while main forks */
	pthread_spin_unlock(&forkspin_s);
	return arg;
}

/* forkspin: the pthread_atfork idiom with two waiters (file comment);
 * `spinpark_word`: the child first checks its spinpark word. */
static int cmd_forkspin(bool spinpark_word)
{
	pthread_t w[2];
	pthread_spin_init(&forkspin_s, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_lock(&forkspin_s);
	for (int i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, forkspin_waiter, NULL);
	while (__atomic_load_n(&forkspin_started, __ATOMIC_SEQ_CST) < 2)
		usleep(1000);
	usleep(50000); /* let both reach the lock word */

	pid_t pid = fork();
	if (pid < 0)
		FAIL("fork: %s", strerror(errno));
	if (pid == 0) {
		alarm(10);
		uint32_t v = forkspin_word();
		if (spinpark_word && (v & ~FORKSPIN_SP_BUDGET_MASK) != 1) {
			fprintf(stderr, "forkspin: child's word 0x%08x, not (0,0,1) + budget\n", v);
			_exit(2);
		}
		pthread_spin_unlock(&forkspin_s);
		v = forkspin_word();
		if (spinpark_word && (v & ~FORKSPIN_SP_BUDGET_MASK) != 0) {
			fprintf(stderr, "forkspin: child's word 0x%08x after unlock, not budget only\n",
				v);
			_exit(2);
		}
		for (int i = 0; i < 1000; i++) {
			pthread_spin_lock(&forkspin_s);
			pthread_spin_unlock(&forkspin_s);
		}
		_exit(0);
	}
	pthread_spin_unlock(&forkspin_s);
	int st;
	if (waitpid(pid, &st, 0) != pid)
		FAIL("waitpid");
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		FAIL("child %s %d", WIFSIGNALED(st) ? "killed by signal" : "exited with",
		     WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
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

/* ---- barrier, pingpong ------------------------------------------------ */

static struct test_barrier bar = TEST_BARRIER_INIT(0);
static long bar_rounds;

static void *bar_thread(void *arg)
{
	(void)arg;
	for (long r = 0; r < bar_rounds; r++)
		test_barrier_wait(&bar);
	return NULL;
}

static int cmd_barrier(int t, long r)
{
	pthread_t th[64];
	if (t < 1 || t > 64)
		FAIL("barrier: 1..64 threads");
	bar.n = t;
	bar_rounds = r;
	for (int i = 0; i < t; i++)
		pthread_create(&th[i], NULL, bar_thread, NULL);
	for (int i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	if (bar.gen != (unsigned long)r)
		FAIL("barrier: %lu generations, want %ld", bar.gen, r);
	return 0;
}

static pthread_mutex_t cr_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cr_c = PTHREAD_COND_INITIALIZER;
static int cr_ready, cr_go;   /* written under cr_m; cr_ready also read without */
static long cr_rounds, cr_done;

static void *cr_waiter(void *arg)
{
	(void)arg;
	for (long r = 0; r < cr_rounds; r++) {
		pthread_mutex_lock(&cr_m);
		__atomic_store_n(&cr_ready, 1, __ATOMIC_RELAXED);
		while (!cr_go)
			pthread_cond_wait(&cr_c, &cr_m);
		cr_go = 0;
		__atomic_store_n(&cr_ready, 0, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&cr_m);
		/* release: main's next round starts after this round's unlock */
		__atomic_store_n(&cr_done, r + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Each round: take the mutex by trylock once the waiter is inside its
 * wait (cr_ready, set under the mutex just before it, cleared under it
 * after), wake it, keep the
 * mutex `ms` ms (asleep), release it, wait for the round's end. */
static int cmd_condretake(long rounds, long ms)
{
	pthread_t w;
	if (rounds < 1 || ms < 0)
		FAIL("condretake: ROUNDS >= 1, MS >= 0");
	cr_rounds = rounds;
	if (pthread_create(&w, NULL, cr_waiter, NULL))
		FAIL("condretake: pthread_create");
	for (long r = 0; r < rounds; r++) {
		/* trylock only once the waiter has set cr_ready, so that the
		 * waiter's own lock() never finds main holding the mutex: its
		 * retake is the only contended acquisition */
		while (!__atomic_load_n(&cr_ready, __ATOMIC_RELAXED) || pthread_mutex_trylock(&cr_m))
			sched_yield();
		cr_go = 1;
		pthread_cond_broadcast(&cr_c);
		usleep((useconds_t)(ms * 1000));
		pthread_mutex_unlock(&cr_m);
		/* acquire: pairs with the waiter's store after its unlock */
		while (__atomic_load_n(&cr_done, __ATOMIC_ACQUIRE) != r + 1)
			sched_yield();
	}
	pthread_join(w, NULL);
	return 0;
}

static long pp_rounds, pp_turn;

static void *pp_thread(void *arg)
{
	long me = (long)(size_t)arg;
	pthread_mutex_lock(&bar.m);
	while (pp_turn < 2 * pp_rounds) {
		while (pp_turn % 2 != me && pp_turn < 2 * pp_rounds)
			pthread_cond_wait(&bar.c, &bar.m);
		if (pp_turn < 2 * pp_rounds)
			pp_turn++;
		pthread_cond_signal(&bar.c);
	}
	pthread_mutex_unlock(&bar.m);
	return NULL;
}

static int cmd_pingpong(long r)
{
	pthread_t a, b;
	pp_rounds = r;
	pthread_create(&a, NULL, pp_thread, (void *)0);
	pthread_create(&b, NULL, pp_thread, (void *)1);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	if (pp_turn != 2 * r)
		FAIL("pingpong: %ld turns, want %ld", pp_turn, 2 * r);
	return 0;
}

/* ---- spinsleep -------------------------------------------------------- */

static pthread_spinlock_t ss_lock;
static int ss_round, ss_done, ss_passes;

/* Wait (sleeping, 100 us polls) until *p != v; returns the new value. */
static int ss_poll_change(int *p, int v)
{
	int n;
	while ((n = __atomic_load_n(p, __ATOMIC_ACQUIRE)) == v)
		usleep(100);
	return n;
}

/* One waiter's CPU time (s): all of it, and the part inside
 * pthread_spin_lock (the lock's own waiting, without this test's polls). */
struct ss_cpu {
	double all, in_lock;
};

static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *ss_waiter(void *arg)
{
	struct ss_cpu *cpu = arg;
	for (int last = 0;;) {
		last = ss_poll_change(&ss_round, last);
		if (__atomic_load_n(&ss_done, __ATOMIC_ACQUIRE))
			break;
		double c0 = thread_cpu_s();
		pthread_spin_lock(&ss_lock);
		cpu->in_lock += thread_cpu_s() - c0;
		pthread_spin_unlock(&ss_lock);
		__atomic_fetch_add(&ss_passes, 1, __ATOMIC_RELEASE);
	}
	cpu->all = thread_cpu_s();
	return NULL;
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 50 rounds: the holder takes the spinlock, lets the T waiters go for
 * it, sleeps MS ms, unlocks, and waits (sleeping) until each waiter got
 * it once.  The waiters' CPU time is nearly all spent waiting. */
static int cmd_spinsleep(int t, long ms, long max_mcpu)
{
	pthread_t th[64];
	struct ss_cpu cpu[64] = { 0 };
	double sum = 0, in_lock = 0;
	if (t < 1 || t > 64)
		FAIL("spinsleep: 1..64 threads");
	pthread_spin_init(&ss_lock, PTHREAD_PROCESS_PRIVATE);
	for (int i = 0; i < t; i++)
		pthread_create(&th[i], NULL, ss_waiter, &cpu[i]);
	struct timespec hold = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	double t0 = mono_s();
	for (int r = 1; r <= 50; r++) {
		pthread_spin_lock(&ss_lock);
		__atomic_store_n(&ss_round, r, __ATOMIC_RELEASE);
		nanosleep(&hold, NULL);
		pthread_spin_unlock(&ss_lock);
		while (__atomic_load_n(&ss_passes, __ATOMIC_ACQUIRE) < r * t)
			usleep(100);
	}
	double wall = mono_s() - t0;
	__atomic_store_n(&ss_done, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&ss_round, -1, __ATOMIC_RELEASE);
	for (int i = 0; i < t; i++) {
		pthread_join(th[i], NULL);
		sum += cpu[i].all;
		in_lock += cpu[i].in_lock;
	}
	printf("spinsleep: threads=%d hold_ms=%ld wall_s=%.3f waiter_cpu=%.3f lock_cpu=%.3f\n", t,
	       ms, wall, sum / wall, in_lock / wall);
	if (max_mcpu > 0 && in_lock / wall > max_mcpu / 1000.0)
		FAIL("spinsleep: waiters burnt %.3f CPU per wall second inside pthread_spin_lock "
		     "(limit %.3f)",
		     in_lock / wall, max_mcpu / 1000.0);
	return 0;
}

static int cmd_forkstats(long n)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	pid_t pid = fork();
	if (pid < 0)
		FAIL("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(0);
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		FAIL("forkstats: the child failed");
	return 0;
}

/* ---- slotless ---------------------------------------------------------- */
static pthread_barrier_t slotless_ready, slotless_done;
static pthread_mutex_t slotless_m = PTHREAD_MUTEX_INITIALIZER;
static int slotless_go;

/* A filler: takes a slot (a counted trylock) and keeps it until the end. */
static void *slotless_fill(void *arg)
{
	pthread_mutex_t own = PTHREAD_MUTEX_INITIALIZER;
	(void)arg;
	if (pthread_mutex_trylock(&own))
		FAIL("slotless: trylock of a free mutex failed");
	pthread_mutex_unlock(&own);
	pthread_barrier_wait(&slotless_ready);
	pthread_barrier_wait(&slotless_done);
	return NULL;
}

/* The waiter, created when no slot is left: one contended acquisition. */
static void *slotless_wait(void *arg)
{
	(void)arg;
	/* release: main's sleep-then-unlock starts after this store */
	__atomic_store_n(&slotless_go, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&slotless_m);
	pthread_mutex_unlock(&slotless_m);
	return NULL;
}

static int cmd_slotless(long n)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t)), w;
	pthread_attr_t attr;
	if (!t || n < 1 || pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, 65536))
		FAIL("slotless: setup");
	pthread_mutex_lock(&slotless_m);   /* counted: main has a slot (if not already) */
	/* glibc's barriers: not interposed, so they take no slot */
	pthread_barrier_init(&slotless_ready, NULL, (unsigned)n);
	pthread_barrier_init(&slotless_done, NULL, (unsigned)n);
	for (long i = 0; i < n - 1; i++)   /* main's slot and these: n */
		if (pthread_create(&t[i], &attr, slotless_fill, NULL))
			FAIL("slotless: pthread_create %ld of %ld", i + 1, n - 1);
	pthread_barrier_wait(&slotless_ready);
	if (pthread_create(&w, &attr, slotless_wait, NULL))
		FAIL("slotless: pthread_create of the waiter");
	/* acquire: pairs with the waiter's release, just before its lock */
	while (!__atomic_load_n(&slotless_go, __ATOMIC_ACQUIRE))
		sched_yield();
	usleep(50000);
	pthread_mutex_unlock(&slotless_m);
	pthread_join(w, NULL);
	pthread_barrier_wait(&slotless_done);
	for (long i = 0; i < n - 1; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}

/* ---- firstthread ------------------------------------------------------- */

static pthread_mutex_t ft_normal = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ft_recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t ft_errorcheck = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static int ft_released, ft_seen_early, ft_ready;

static void *ft_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_t *ms[] = { &ft_normal, &ft_recursive, &ft_errorcheck };
	for (int i = 0; i < 3; i++)   /* main holds all three until ft_ready */
		if (pthread_mutex_trylock(ms[i]) != EBUSY)
			__atomic_store_n(&ft_seen_early, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&ft_ready, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 3; i++) {
		pthread_mutex_lock(ms[i]);
		if (!__atomic_load_n(&ft_released, __ATOMIC_ACQUIRE))
			__atomic_store_n(&ft_seen_early, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(ms[i]);
	}
	return NULL;
}

static void *ft_fork_waiter(void *arg)
{
	pthread_mutex_lock(arg);   /* waits: main holds it across the fork */
	pthread_mutex_unlock(arg);
	return NULL;
}

static int cmd_firstthread(void)
{
	/* one thread: taken by the single-threaded path */
	if (pthread_mutex_lock(&ft_normal) || pthread_mutex_lock(&ft_recursive) ||
	    pthread_mutex_lock(&ft_recursive) || pthread_mutex_lock(&ft_errorcheck))
		FAIL("firstthread: lock with one thread");
	if (pthread_mutex_lock(&ft_errorcheck) != EDEADLK)
		FAIL("firstthread: errorcheck relock is not EDEADLK");
	pthread_t t;
	if (pthread_create(&t, NULL, ft_waiter, NULL))
		FAIL("firstthread: pthread_create");
	while (!__atomic_load_n(&ft_ready, __ATOMIC_ACQUIRE))
		usleep(1000);
	usleep(50000);   /* the waiter spins, then sleeps */
	__atomic_store_n(&ft_released, 1, __ATOMIC_RELEASE);
	if (pthread_mutex_unlock(&ft_normal) || pthread_mutex_unlock(&ft_recursive) ||
	    pthread_mutex_unlock(&ft_recursive) || pthread_mutex_unlock(&ft_errorcheck))
		FAIL("firstthread: unlock with two threads");
	pthread_join(t, NULL);
	if (__atomic_load_n(&ft_seen_early, __ATOMIC_RELAXED))
		FAIL("firstthread: the second thread took a mutex main held");

	/* a fork child, single-threaded, on a word that counts a waiter */
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&m);
	pthread_t w;
	if (pthread_create(&w, NULL, ft_fork_waiter, &m))
		FAIL("firstthread: pthread_create");
	usleep(100000);   /* the waiter spins, then sleeps counted */
	pid_t pid = fork();
	if (pid < 0)
		FAIL("firstthread: fork");
	if (pid == 0) {
		alarm(10);
		int bad = pthread_mutex_unlock(&m) || pthread_mutex_trylock(&m) ||
			  pthread_mutex_trylock(&m) != EBUSY || pthread_mutex_unlock(&m) ||
			  pthread_mutex_lock(&m) || pthread_mutex_unlock(&m);
		_exit(bad ? 3 : 0);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		FAIL("firstthread: fork child failed (status %d)", st);
	pthread_mutex_unlock(&m);
	pthread_join(w, NULL);
	return 0;
}

/* ---- uncontended ------------------------------------------------------ */

/* ns per lock/unlock pair of each lock, N pairs, one line (clock: mono_s) */
static int uc_line(int threads, long n)
{
	pthread_spinlock_t s;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_t r = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE);
	double t0 = mono_s();
	for (long i = 0; i < n; i++) {
		pthread_spin_lock(&s);
		pthread_spin_unlock(&s);
	}
	double t1 = mono_s();
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&m);
		pthread_mutex_unlock(&m);
	}
	double t2 = mono_s();
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&r);
		pthread_mutex_unlock(&r);
	}
	double t3 = mono_s();
	if (pthread_spin_trylock(&s) || pthread_mutex_trylock(&m) || pthread_mutex_trylock(&r))
		FAIL("uncontended: a lock is held after its last unlock");
	printf("threads=%d spin_ns=%.2f mutex_ns=%.2f recursive_ns=%.2f\n", threads,
	       (t1 - t0) * 1e9 / n, (t2 - t1) * 1e9 / n, (t3 - t2) * 1e9 / n);
	return 0;
}

static void *uc_sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* relock: see the usage above.  The word is the mutex's first 4 bytes
 * (glibc's __lock, which the interposer uses as its word). */
static int cmd_relock(long rounds)
{
	pthread_t t;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	uint32_t *word = (uint32_t *)(void *)&m;
	if (rounds < 1)
		FAIL("relock: ROUNDS >= 1");
	if (pthread_create(&t, NULL, uc_sleeper, NULL))
		FAIL("relock: pthread_create failed");
	for (long r = 0; r < rounds; r++) {
		__atomic_store_n(word, 0x6u, __ATOMIC_RELAXED);   /* free, WOKEN, a sleeper */
		if (pthread_mutex_lock(&m))
			FAIL("relock: pthread_mutex_lock failed");
		if (!(__atomic_load_n(word, __ATOMIC_RELAXED) & 1u))
			FAIL("relock: the word is %#x after the lock", *word);
		pthread_mutex_unlock(&m);
	}
	__atomic_store_n(word, 0u, __ATOMIC_RELAXED);   /* no sleeper, in fact */
	return pthread_mutex_destroy(&m) ? 1 : 0;   /* the sleeper ends with the process */
}

/* destroywait: a waiter blocked on a condvar that nobody signals, and a
 * thread that destroys the condvar under it (undefined behaviour: glibc
 * blocks for ever in the destroy, asleep).  The destroy must wait without
 * burning a CPU: the process's CPU time over the next second, printed as
 * "destroy_cpu=X" (s), must stay under 0.2 s.  Leaves by _exit(), both
 * threads still blocked. */
static pthread_mutex_t dw_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dw_c = PTHREAD_COND_INITIALIZER;

static void *dw_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&dw_m);
	for (;;)
		pthread_cond_wait(&dw_c, &dw_m);
	return NULL;
}

static void *dw_destroyer(void *arg)
{
	(void)arg;
	pthread_cond_destroy(&dw_c);
	return NULL;
}

static double process_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmd_destroywait(void)
{
	pthread_t w, d;
	if (pthread_create(&w, NULL, dw_waiter, NULL))
		FAIL("pthread_create");
	struct timespec gap = { 0, 100000000 };
	nanosleep(&gap, NULL);   /* the waiter is blocked by now */
	if (pthread_create(&d, NULL, dw_destroyer, NULL))
		FAIL("pthread_create");
	nanosleep(&gap, NULL);
	double t0 = process_cpu_s();
	struct timespec second = { 1, 0 };
	nanosleep(&second, NULL);
	double cpu = process_cpu_s() - t0;
	printf("destroy_cpu=%.3f\n", cpu);
	fflush(stdout);
	if (cpu > 0.2) {
		fprintf(stderr, "FAIL: the destroy burned %.3f s of CPU in 1 s\n", cpu);
		_exit(1);
	}
	_exit(0);
}

/* corruptspin: write 0x7 over a free pthread spinlock and unlock it
 * (undefined behaviour: glibc stores 0).  Under `pvspin run` the process
 * must abort with the interposer's misuse line; returning is a failure. */
static int cmd_corruptspin(void)
{
	pthread_spinlock_t s;
	if (pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE))
		FAIL("spin_init");
	*(volatile int *)&s = 7;
	pthread_spin_unlock(&s);
	FAIL("the unlock of a corrupted word returned");
}

static int cmd_uncontended(long n)
{
	if (n < 1)
		FAIL("uncontended: N must be at least 1");
	if (uc_line(1, n))
		return 1;
	pthread_t t;
	if (pthread_create(&t, NULL, uc_sleeper, NULL))
		FAIL("uncontended: pthread_create failed");
	return uc_line(2, n);   /* the sleeper ends with the process */
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
	if (!strcmp(c, "forkspin"))
		return cmd_forkspin(argc > 2 && !strcmp(argv[2], "spinpark"));
	if (!strcmp(c, "threads"))
		return cmd_threads(a);
	if (!strcmp(c, "prodcons"))
		return cmd_prodcons((int)a, (int)b, d);
	if (!strcmp(c, "spinshared"))
		return cmd_spinshared((int)a, b);
	if (!strcmp(c, "counter"))
		return run_counter((int)a, b);
	if (!strcmp(c, "barrier"))
		return cmd_barrier((int)a, b);
	if (!strcmp(c, "pingpong"))
		return cmd_pingpong(a);
	if (!strcmp(c, "condretake"))
		return cmd_condretake(a, b);
	if (!strcmp(c, "relock"))
		return cmd_relock(a);
	if (!strcmp(c, "spinsleep"))
		return cmd_spinsleep((int)a, b, d);
	if (!strcmp(c, "forkstats"))
		return cmd_forkstats(a);
	if (!strcmp(c, "slotless"))
		return cmd_slotless(a);
	if (!strcmp(c, "firstthread"))
		return cmd_firstthread();
	if (!strcmp(c, "uncontended"))
		return cmd_uncontended(a);
	if (!strcmp(c, "destroywait"))
		return cmd_destroywait();
	if (!strcmp(c, "corruptspin"))
		return cmd_corruptspin();
	FAIL("unknown subcommand %s", c);
}

/*
 * test_fork.c - the child of fork() can take a lock that other threads of
 * the parent were waiting on (src/lock/fork_repair.c).
 *
 * The pthread_atfork() pattern (prepare: lock; parent, child: unlock) with
 * other threads queued on the lock: the child's word kept the parent's
 * queue (a tail naming nodes of threads the child does not have, a pending
 * bit, tickets handed out to them), so the child's next lock() waited for
 * ever (qspinlock and ticket every time, pvqspinlock when its queue head
 * was spinning with the pending bit set).  Each child runs under a 10 s
 * alarm: a hang fails the test instead of blocking it.
 *
 * Scenarios, for qspinlock, pvqspinlock and ticket:
 *   queued      main holds the lock, two threads wait (the first pending or
 *               queue head, the second queued behind it); main forks; the
 *               child unlocks and locks again, 1000 times.
 *   halted      pvqspinlock only: the same, with a SPIN_THRESHOLD so small
 *               that the waiters halt and the head hashes itself
 *               (_Q_SLOW_VAL): the child's unlock must not kick nor report.
 *   held        another thread holds the lock and two wait; the child
 *               finds it still held (a lock held by another thread stays
 *               held in a child, as a glibc mutex does) but without the
 *               waiter's state in the word.
 *   hammer      three threads take and release the lock in a loop while
 *               main takes it and forks, 10 times (the new user's
 *               reproducer).
 *   pending     qspinlock only: main holds the lock and ONE thread waits,
 *               as the pending waiter (the word is (0,1,1) = 0x101, no
 *               queue); main forks; the child unlocks, leaving (0,1,0)
 *               = 0x100 without the repair, and locks again 1000 times.
 *               Then the same with another thread holding: the child
 *               finds the word 0x1 (held, the pending bit gone).
 *   cheap       the repair runs in every fork child: a child of a process
 *               whose threads wait on nothing must not read the PV hash
 *               table (512 KiB, 128 pages: a version that always did,
 *               branch kernel-kinds f63c09e, made a fork + wait take 217
 *               us instead of 108) nor copy pages of notes - counted as
 *               the child's minor page faults at its start (18-21 on
 *               main before the repair; 147 with the whole-table scan).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "pvspin.h"
#include "test_util.h"

static const pvspin_kind_t fork_kinds[] = {
	PVSPIN_KIND_QSPINLOCK, PVSPIN_KIND_PVQSPINLOCK, PVSPIN_KIND_TICKET,
};
#define NFORK_KINDS (sizeof(fork_kinds) / sizeof(fork_kinds[0]))

struct shared {
	pvspin_kind_t kind;
	pvspin_lock_t lock;
	int started;      /* waiters about to lock */
	int stop;         /* hammer: stop looping */
};

static int misuse_reports;
static void count_misuse(const char *what, const void *lock, uint32_t word)
{
	(void)what; (void)lock; (void)word;
	__atomic_fetch_add(&misuse_reports, 1, __ATOMIC_RELAXED);
}

static void *waiter(void *arg)
{
	struct shared *s = arg;
	__atomic_fetch_add(&s->started, 1, __ATOMIC_SEQ_CST);
	pvspin_kind_lock(s->kind, &s->lock);
	pvspin_kind_unlock(s->kind, &s->lock);
	return NULL;
}

static void *holder(void *arg)
{
	struct shared *s = arg;
	pvspin_kind_lock(s->kind, &s->lock);
	__atomic_fetch_add(&s->started, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
		usleep(1000);
	pvspin_kind_unlock(s->kind, &s->lock);
	return NULL;
}

static void *hammer(void *arg)
{
	struct shared *s = arg;
	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		pvspin_kind_lock(s->kind, &s->lock);
		for (volatile int i = 0; i < 300; i++)
			;
		pvspin_kind_unlock(s->kind, &s->lock);
	}
	return NULL;
}

/* How many threads wait in the word (a snapshot): queued kinds count
 * the pending bit and a tail as one each; ticket the tickets out beyond
 * the holder's. */
static int waiting_in_word(pvspin_kind_t kind, uint32_t v)
{
	if (kind == PVSPIN_KIND_TICKET)
		return (int)(uint16_t)((v >> 16) - (v & 0xffffu)) - 1;
	return !!(v & _Q_PENDING_MASK) + !!(v & _Q_TAIL_MASK);
}

/* Wait (at most 10 s) until `n` threads show in the word. */
static void wait_for_waiters(struct shared *s, int n)
{
	for (int ms = 0; ms < 10000; ms++) {
		uint32_t v = __atomic_load_n(&s->lock.val, __ATOMIC_RELAXED);
		if (waiting_in_word(s->kind, v) >= n)
			return;
		usleep(1000);
	}
	fail_msg("%s: waiters did not show in the word (0x%08x)", pvspin_kind_name(s->kind),
		 __atomic_load_n(&s->lock.val, __ATOMIC_RELAXED));
}

/* The child's part of the queued scenarios: unlock the lock the forking
 * thread held, then take and release it 1000 times.  Exit 0 if no misuse
 * was reported; killed by SIGALRM if lock() waits for ever. */
static void child_unlock_and_relock(struct shared *s)
{
	alarm(10);
	pvspin_set_misuse_handler(count_misuse);
	pvspin_kind_unlock(s->kind, &s->lock);
	for (int i = 0; i < 1000; i++) {
		pvspin_kind_lock(s->kind, &s->lock);
		pvspin_kind_unlock(s->kind, &s->lock);
	}
	_exit(misuse_reports == 0 && !pvspin_kind_is_locked(s->kind, &s->lock) ? 0 : 3);
}

/* Children that failed in the current test: each scenario tries every
 * kind and reports each failure, then fails once (check_children). */
static int child_failures;

/* Wait for the child; report (without failing yet) unless it exited 0.
 * Returns true if it did. */
static bool expect_child_ok(pid_t pid, const char *what, pvspin_kind_t kind)
{
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return true;
	print_error("%s, %s: child %s %d\n", what, pvspin_kind_name(kind),
		    WIFSIGNALED(st) ? "killed by signal" : "exited with",
		    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	child_failures++;
	return false;
}

/* Fail the test if a child failed in it. */
static void check_children(void)
{
	int n = child_failures;
	child_failures = 0;
	if (n)
		fail_msg("%d child(ren) failed", n);
}

/* main holds, two threads wait, main forks */
static void run_queued(pvspin_kind_t kind, const char *what)
{
	struct shared s = { .kind = kind };
	pthread_t t[2];

	pvspin_kind_lock(kind, &s.lock);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, waiter, &s), 0);
	if (strcmp(what, "halted")) {
		wait_for_waiters(&s, 2);
	} else {
		/* the head hashes itself, sets _Q_SLOW_VAL and halts once its
		 * (small) spin threshold runs out */
		uint32_t v = 0;
		for (int ms = 0; ms < 10000; ms++) {
			v = __atomic_load_n(&s.lock.val, __ATOMIC_RELAXED);
			if ((v & _Q_LOCKED_MASK) == _Q_SLOW_VAL && (v & _Q_TAIL_MASK))
				break;
			usleep(1000);
		}
		assert_int_equal(v & _Q_LOCKED_MASK, _Q_SLOW_VAL);
	}
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		child_unlock_and_relock(&s);
	pvspin_kind_unlock(kind, &s.lock);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	expect_child_ok(pid, what, kind);
}

static void test_fork_queued(void **state)
{
	(void)state;
	/* a pvqspinlock queue head spins with the pending bit set until its
	 * threshold runs out: make that long enough to fork meanwhile */
	uint32_t old = pvspin_tunable_get(PVSPIN_TUNE_SPIN_THRESHOLD);
	assert_int_equal(pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, 1u << 30), 0);
	for (size_t k = 0; k < NFORK_KINDS; k++)
		run_queued(fork_kinds[k], "queued");
	assert_int_equal(pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, old), 0);
	check_children();
}

static void test_fork_halted(void **state)
{
	(void)state;
	uint32_t old = pvspin_tunable_get(PVSPIN_TUNE_SPIN_THRESHOLD);
	assert_int_equal(pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, 64), 0);
	run_queued(PVSPIN_KIND_PVQSPINLOCK, "halted");
	assert_int_equal(pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, old), 0);
	check_children();
}

/* another thread holds, two wait; the child sees it held, the waiters'
 * state gone */
static void test_fork_held_by_other(void **state)
{
	(void)state;
	uint32_t old = pvspin_tunable_get(PVSPIN_TUNE_SPIN_THRESHOLD);
	assert_int_equal(pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, 1u << 30), 0);
	for (size_t k = 0; k < NFORK_KINDS; k++) {
		pvspin_kind_t kind = fork_kinds[k];
		struct shared s = { .kind = kind };
		pthread_t h, w[2];
		assert_int_equal(pthread_create(&h, NULL, holder, &s), 0);
		while (!__atomic_load_n(&s.started, __ATOMIC_SEQ_CST))
			usleep(1000);
		for (int i = 0; i < 2; i++)
			assert_int_equal(pthread_create(&w[i], NULL, waiter, &s), 0);
		/* two: the pending waiter (qspinlock) or the queue head
		 * spinning with the pending bit (pvqspinlock), and one
		 * queued behind it (test_fork_pending has the pending
		 * waiter alone) */
		wait_for_waiters(&s, 2);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			uint32_t v = __atomic_load_n(&s.lock.val, __ATOMIC_RELAXED);
			int ok = pvspin_kind_is_locked(kind, &s.lock) &&
				 !pvspin_kind_trylock(kind, &s.lock) &&
				 waiting_in_word(kind, v) == 0 &&
				 (kind == PVSPIN_KIND_TICKET || v == _Q_LOCKED_VAL);
			_exit(ok ? 0 : 4);
		}
		__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
		pthread_join(h, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(w[i], NULL);
		expect_child_ok(pid, "held", kind);
	}
	assert_int_equal(pvspin_tunable_set(PVSPIN_TUNE_SPIN_THRESHOLD, old), 0);
	check_children();
}

/* three threads hammer the lock; main takes it and forks, 10 times (per
 * kind, up to the first child that fails: each hang costs its alarm) */
static void test_fork_hammer(void **state)
{
	(void)state;
	int rounds = (int)scaled(10, 2);
	for (size_t k = 0; k < NFORK_KINDS; k++) {
		pvspin_kind_t kind = fork_kinds[k];
		struct shared s = { .kind = kind };
		pthread_t t[3];
		for (int i = 0; i < 3; i++)
			assert_int_equal(pthread_create(&t[i], NULL, hammer, &s), 0);
		for (int r = 0; r < rounds; r++) {
			usleep(20000);
			pvspin_kind_lock(kind, &s.lock);
			pid_t pid = fork();
			assert_true(pid >= 0);
			if (pid == 0)
				child_unlock_and_relock(&s);
			pvspin_kind_unlock(kind, &s.lock);
			if (!expect_child_ok(pid, "hammer", kind)) {
				print_error("hammer, %s: round %d of %d\n",
					    pvspin_kind_name(kind), r + 1, rounds);
				break;
			}
		}
		__atomic_store_n(&s.stop, 1, __ATOMIC_RELAXED);
		for (int i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
	}
	check_children();
}

/* Wait (at most 10 s) until the word is exactly `want`. */
static void wait_for_word(struct shared *s, uint32_t want)
{
	for (int ms = 0; ms < 10000; ms++) {
		if (__atomic_load_n(&s->lock.val, __ATOMIC_RELAXED) == want)
			return;
		usleep(1000);
	}
	fail_msg("%s: the word did not become 0x%08x (0x%08x)", pvspin_kind_name(s->kind), want,
		 __atomic_load_n(&s->lock.val, __ATOMIC_RELAXED));
}

/* qspinlock's pending waiter: one thread waits on a held lock with the
 * pending bit, (0,1,1), and no queue; the fork child must not keep that
 * bit (its unlock would leave (0,1,0), which nobody ever clears) */
static void test_fork_pending(void **state)
{
	(void)state;
	/* main holds */
	struct shared s = { .kind = PVSPIN_KIND_QSPINLOCK };
	pthread_t t;
	pvspin_kind_lock(s.kind, &s.lock);
	assert_int_equal(pthread_create(&t, NULL, waiter, &s), 0);
	wait_for_word(&s, _Q_PENDING_VAL | _Q_LOCKED_VAL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		child_unlock_and_relock(&s);
	pvspin_kind_unlock(s.kind, &s.lock);
	pthread_join(t, NULL);
	expect_child_ok(pid, "pending", s.kind);

	/* another thread holds: the child sees it held, without the bit */
	struct shared o = { .kind = PVSPIN_KIND_QSPINLOCK };
	pthread_t h, w;
	assert_int_equal(pthread_create(&h, NULL, holder, &o), 0);
	while (!__atomic_load_n(&o.started, __ATOMIC_SEQ_CST))
		usleep(1000);
	assert_int_equal(pthread_create(&w, NULL, waiter, &o), 0);
	wait_for_word(&o, _Q_PENDING_VAL | _Q_LOCKED_VAL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(__atomic_load_n(&o.lock.val, __ATOMIC_RELAXED) == _Q_LOCKED_VAL ? 0 : 4);
	__atomic_store_n(&o.stop, 1, __ATOMIC_RELEASE);
	pthread_join(h, NULL);
	pthread_join(w, NULL);
	expect_child_ok(pid, "pending, held by another", o.kind);
	check_children();
}

static void test_fork_child_touches_little(void **state)
{
	(void)state;
	/* this thread has a slot and has been through the slow paths that
	 * note (a free word: the pending path takes it at once; a ticket
	 * already served), so its notes line has been written */
	pvspin_lock_t l = PVSPIN_LOCK_INIT;
	pvspin_qspinlock_lock_slowpath(&l, 0);
	pvspin_qspinlock_unlock(&l);
	assert_int_equal(l.val, 0);
	pvspin_ticket_lock_slowpath(&l, 0);
	assert_int_equal(l.val, 0);
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		long f = ru.ru_minflt;
		_exit(write(fd[1], &f, sizeof(f)) == (ssize_t)sizeof(f) ? 0 : 1);
	}
	long faults = -1;
	assert_int_equal(read(fd[0], &faults, sizeof(faults)), (ssize_t)sizeof(faults));
	close(fd[0]);
	close(fd[1]);
	expect_child_ok(pid, "cheap", PVSPIN_KIND_QSPINLOCK);
	check_children();
	print_message("fork child: %ld minor page faults at its start\n", faults);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	/* the sanitizers' own fork handlers touch memory of their own */
	assert_true(faults < 64);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* first: before the other tests' threads leave glibc state
		 * (malloc arenas) that a child's own fork handlers touch */
		cmocka_unit_test(test_fork_child_touches_little),
		cmocka_unit_test(test_fork_queued),
		cmocka_unit_test(test_fork_halted),
		cmocka_unit_test(test_fork_held_by_other),
		cmocka_unit_test(test_fork_hammer),
		cmocka_unit_test(test_fork_pending),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

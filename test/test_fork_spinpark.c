/*
 * test_fork_spinpark.c - in the child of fork(), a spinpark lock word no
 * longer carries the waiter state of the parent's other threads
 * (src/lock/fork_repair.c, WAIT_NOTE_SPINPARK).
 *
 * Before the repair the child's copy of the word kept their spinner and
 * parked counts, STARVING and WOKEN, and a locked byte 2 (_SP_HANDOFF)
 * reserved for a starving owner that the child does not have: its waiters
 * then spun less, were woken only by their timeouts (a stale spinner
 * count stops every wake-up on up to 3 CPUs), and the handed-off lock was
 * free only after a waiter's 1 ms sleep revoked it.  Each check reads the
 * word itself, not a time.  Each child runs under a 10 s alarm.
 *
 *   waiters   main holds the lock, three threads wait on it (spinning,
 *             parked, now and then starving); main forks, 20 times at
 *             different moments of their waits; each child must find
 *             (0,0,1) plus the learned budget, unlock it to (0,0,0) plus
 *             budget, and lock/unlock it 1000 times without a park.
 *   handoff   a waiter waits past 1 ms and spins as the starving owner
 *             (STARVING); a signal handler holds it there while main's
 *             unlock hands the lock off to it, (p,s,2) | STARVING; main
 *             forks; the child must find the lock free (budget only) at
 *             once and take it by the inline fast path, without a park
 *             or a hand-off revocation.
 *   own wait  a thread parked on lock L forks from a signal handler (the
 *             forking thread's own wait), while another thread waits on
 *             lock M: the child finds M repaired and L as it was in the
 *             parent, its own parked count included (fork_repair.c keeps
 *             the words the forking thread's own notes name).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "pvspin.h"
#include "pvspin/platform.h"
#include "pvspin/spinpark.h"
#include "pvspin/stats.h"
#include "test_util.h"

struct shared {
	pvspin_lock_t lock;
	int started;      /* threads about to lock */
};

static int misuse_reports;
/* Count misuse reports instead of aborting (the child checks them). */
static void count_misuse(const char *what, const void *lock, uint32_t word)
{
	(void)what; (void)lock; (void)word;
	__atomic_fetch_add(&misuse_reports, 1, __ATOMIC_RELAXED);
}

/* The word, relaxed. */
static uint32_t word(pvspin_lock_t *l)
{
	return __atomic_load_n(&l->val, __ATOMIC_RELAXED);
}

/* Take and release the lock once. */
static void *waiter(void *arg)
{
	struct shared *s = arg;
	__atomic_fetch_add(&s->started, 1, __ATOMIC_SEQ_CST);
	pvspin_spinpark_lock(&s->lock);
	pvspin_spinpark_unlock(&s->lock);
	return NULL;
}

/* Start `n` waiters on s->lock and wait until each is inside lock() and
 * all of them show in the word (spinners + parked >= n), 10 s at most.
 * Waiting for the threads to have started also keeps the fork away from
 * a thread's start (ASan's own lock, taken there, hung a child rarely). */
static void start_waiters(struct shared *s, pthread_t *t, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(pthread_create(&t[i], NULL, waiter, s), 0);
	for (int ms = 0; ms < 10000; ms++) {
		uint32_t v = word(&s->lock);
		uint32_t in = ((v & _SP_SPINNERS_MASK) >> _SP_SPINNER_OFFSET) +
			      (v >> _SP_PARKED_OFFSET);
		if (__atomic_load_n(&s->started, __ATOMIC_SEQ_CST) == n && in >= (uint32_t)n)
			return;
		usleep(1000);
	}
	fail_msg("waiters did not show in the word (0x%08x)", word(&s->lock));
}

/* Wait for the child; true if it exited 0, else print why. */
static bool child_ok(pid_t pid, const char *what, uint32_t parent_word)
{
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return true;
	print_error("%s: child %s %d (the parent's word at the fork: 0x%08x)\n", what,
		    WIFSIGNALED(st) ? "killed by signal" : "exited with",
		    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), parent_word);
	return false;
}

/* In the child: lock/unlock `n` times by the fast path; exit status 0 if
 * no park, no revocation and no misuse happened and the lock ends free
 * with only the budget in the word (the child's counters start at 0). */
static int child_relock(pvspin_lock_t *l, int n)
{
	for (int i = 0; i < n; i++) {
		pvspin_spinpark_lock(l);
		pvspin_spinpark_unlock(l);
	}
	struct pvspin_events ev;
	pvspin_events_read(&ev);
	if (ev.count[PVSPIN_EV_PARK] || ev.count[PVSPIN_EV_HANDOFF_REVOKE])
		return 20;
	if (misuse_reports)
		return 21;
	return (word(l) & ~_SP_BUDGET_MASK) == 0 ? 0 : 22;
}

/* waiters: three threads wait on a lock main holds; each of main's fork
 * children finds (0,0,1) + budget, and the lock works in it. */
static void test_fork_spinpark_waiters(void **state)
{
	(void)state;
	struct shared s = { .started = 0 };
	pthread_t t[3];
	int rounds = (int)scaled(20, 5), failed = 0;

	pvspin_spinpark_lock(&s.lock);
	start_waiters(&s, t, 3);
	for (int r = 0; r < rounds && !failed; r++) {
		usleep(300 + 700 * (r % 5));   /* different moments of their waits */
		uint32_t before = word(&s.lock);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			alarm(10);
			pvspin_set_misuse_handler(count_misuse);
			/* (0,0,1) + budget: no spinner, no parked count,
			 * neither STARVING nor WOKEN */
			if ((word(&s.lock) & ~_SP_BUDGET_MASK) != _SP_LOCKED)
				_exit(10);
			pvspin_spinpark_unlock(&s.lock);
			if ((word(&s.lock) & ~_SP_BUDGET_MASK) != 0)
				_exit(11);
			_exit(child_relock(&s.lock, 1000));
		}
		failed = !child_ok(pid, "waiters", before);
	}
	pvspin_spinpark_unlock(&s.lock);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	if (failed)
		fail_msg("a child found the parent's waiters in the word");
}

/* ---- a hand-off to an owner held in a signal handler ------------------ */

static int in_handler;       /* the handler runs (and holds its thread) */
static int leave_handler;    /* main lets it return */

/* In a signal handler: sleep 100 us at a time until *flag is set
 * (nanosleep is async-signal-safe). */
static void sleep_until_set(const int *flag)
{
	while (!__atomic_load_n(flag, __ATOMIC_SEQ_CST)) {
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
}

static pvspin_lock_t *starving_lock; /* hold_handler's lock */

/* SIGUSR1: if the interrupted thread is the starving owner of
 * starving_lock (STARVING in the word: it spins for the hand-off), hold
 * it here until main lets it go; else return at once.  The check is the
 * thread's own, where the signal lands: a poll by main could see the
 * owner's ~50 us spins only while both threads ran at once (under a
 * concurrent make check: 0 windows seen in 10 s, 2 failures in 10 runs
 * of the ASan build). */
static void hold_handler(int sig)
{
	(void)sig;
	int saved = errno;   /* nanosleep may set it; the interrupted code's stays */
	pvspin_lock_t *l = __atomic_load_n(&starving_lock, __ATOMIC_SEQ_CST);
	if (l && (pvspin_plat_load32(&l->val, PVSPIN_SEQ_CST) & _SP_STARVING)) {
		__atomic_store_n(&in_handler, 1, __ATOMIC_SEQ_CST);
		sleep_until_set(&leave_handler);
		__atomic_store_n(&in_handler, 0, __ATOMIC_SEQ_CST);
	}
	errno = saved;
}

/* Let a held handler return, for good, and wait until it has.  The
 * lock is withdrawn first, so that a SIGUSR1 still pending returns at
 * once: under TSan a signal is delivered late, at the thread's next
 * synchronisation point, and one delivered right after the released
 * handler (the owner still spinning, STARVING in the word) held its
 * thread again after leave_handler had been cleared, and the test hung
 * in pthread_join (a new user's run: 1 in 25). */
static void release_handler(void)
{
	__atomic_store_n(&starving_lock, NULL, __ATOMIC_SEQ_CST);
	__atomic_store_n(&leave_handler, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&in_handler, __ATOMIC_SEQ_CST))
		usleep(100);
}

/* handoff: the lock handed off to a starving owner held in a signal
 * handler; the fork child finds it free and takes it by the fast path. */
static void test_fork_spinpark_handoff(void **state)
{
	(void)state;
	struct shared s = { .started = 0 };
	pthread_t t;
	struct sigaction sa = { .sa_handler = hold_handler };
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);

	__atomic_store_n(&leave_handler, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&starving_lock, &s.lock, __ATOMIC_SEQ_CST);
	pvspin_spinpark_lock(&s.lock);
	start_waiters(&s, &t, 1);
	/* The waiter spins as the starving owner (STARVING) for about 50
	 * us every 1-16 ms once it has waited past 1 ms: signal it every
	 * ~20 us until a signal lands in such a spin and its handler holds
	 * it there, STARVING still in the word (a signal that lands in a
	 * sleep only ends the sleep early). */
	uint64_t start = pvspin_plat_now_ns();
	int tries = 0;
	while (!__atomic_load_n(&in_handler, __ATOMIC_SEQ_CST) &&
	       pvspin_plat_now_ns() - start < 10000000000ull) {
		tries++;
		assert_int_equal(pthread_kill(t, SIGUSR1), 0);
		usleep(20);
	}
	bool held = __atomic_load_n(&in_handler, __ATOMIC_SEQ_CST) &&
		    (word(&s.lock) & _SP_STARVING);
	print_message("starving owner held in its handler after %d signals\n", tries);
	assert_true(held);

	/* The unlock hands the lock off to it: (p,s,1) -> (p,s,2). */
	pvspin_spinpark_unlock(&s.lock);
	uint32_t before = word(&s.lock);
	assert_int_equal(before & _SP_LOCKED_MASK, _SP_HANDOFF);
	assert_true(before & _SP_STARVING);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(10);
		pvspin_set_misuse_handler(count_misuse);
		/* free at once: the owner it was handed to is not here */
		if ((word(&s.lock) & ~_SP_BUDGET_MASK) != 0)
			_exit(10);
		/* the inline fast path takes it: (0,0,0) -> (0,0,1) */
		pvspin_spinpark_lock(&s.lock);
		if ((word(&s.lock) & ~_SP_BUDGET_MASK) != _SP_LOCKED)
			_exit(11);
		pvspin_spinpark_unlock(&s.lock);
		_exit(child_relock(&s.lock, 1000));
	}
	bool ok = child_ok(pid, "handoff", before);
	release_handler();          /* the owner takes its hand-off */
	pthread_join(t, NULL);
	assert_int_equal(word(&s.lock) & ~_SP_BUDGET_MASK, 0);
	signal(SIGUSR1, SIG_DFL);
	if (!ok)
		fail_msg("the child's copy of the handed-off lock was not free");
}

/* ---- the forking thread's own wait ------------------------------------ */

static struct shared own_l, own_m;
static int do_fork;               /* main tells the handler to fork */
static uint32_t own_l_expect;     /* L's word when the handler forks */
static int own_child_status = -1; /* the child's exit status, from the handler */

/* SIGUSR2 in a thread parked on own_l: wait for main, fork; the child
 * checks the words and leaves, the parent waits for it. */
static void fork_handler(int sig)
{
	(void)sig;
	__atomic_store_n(&in_handler, 1, __ATOMIC_SEQ_CST);
	sleep_until_set(&do_fork);
	pid_t pid = fork();
	if (pid == 0) {
		/* L: this thread's own wait, kept as it was (its parked
		 * count is its own, and its sp_waiter, still on this stack,
		 * says it is counted); M: another thread's, repaired */
		if (word(&own_l.lock) != own_l_expect)
			_exit(10);
		if ((word(&own_m.lock) & ~_SP_BUDGET_MASK) != _SP_LOCKED)
			_exit(11);
		_exit(0);
	}
	int st = -1;
	if (pid > 0 && waitpid(pid, &st, 0) != pid)
		st = -1;
	__atomic_store_n(&own_child_status, st, __ATOMIC_SEQ_CST);
	__atomic_store_n(&in_handler, 0, __ATOMIC_SEQ_CST);
}

/* own wait: a thread parked on L forks from a signal handler; its child
 * finds L as it was and M (another thread's wait) repaired. */
static void test_fork_spinpark_own_wait(void **state)
{
	(void)state;
	pthread_t tl, tm;
	struct sigaction sa = { .sa_handler = fork_handler };
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR2, &sa, NULL), 0);

	pvspin_spinpark_lock(&own_l.lock);
	pvspin_spinpark_lock(&own_m.lock);
	start_waiters(&own_m, &tm, 1);
	start_waiters(&own_l, &tl, 1);
	/* interrupt L's waiter while it is counted as parked */
	for (int ms = 0; ms < 10000 && !(word(&own_l.lock) >> _SP_PARKED_OFFSET); ms++)
		usleep(1000);
	assert_true(word(&own_l.lock) >> _SP_PARKED_OFFSET);
	assert_int_equal(pthread_kill(tl, SIGUSR2), 0);
	while (!__atomic_load_n(&in_handler, __ATOMIC_SEQ_CST))
		usleep(100);
	/* nothing else changes L now: its holder is this thread, its only
	 * waiter is held in the handler */
	own_l_expect = word(&own_l.lock);
	__atomic_store_n(&do_fork, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&in_handler, __ATOMIC_SEQ_CST))
		usleep(100);
	int st = __atomic_load_n(&own_child_status, __ATOMIC_SEQ_CST);
	print_message("own wait: L 0x%08x, M 0x%08x at the fork; child status 0x%x\n",
		      own_l_expect, word(&own_m.lock), st);
	pvspin_spinpark_unlock(&own_l.lock);
	pvspin_spinpark_unlock(&own_m.lock);
	pthread_join(tl, NULL);
	pthread_join(tm, NULL);
	signal(SIGUSR2, SIG_DFL);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* The three scenarios, in one cmocka group. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fork_spinpark_waiters),
		cmocka_unit_test(test_fork_spinpark_handoff),
		cmocka_unit_test(test_fork_spinpark_own_wait),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

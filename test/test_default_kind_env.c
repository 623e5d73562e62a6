/*
 * test_default_kind_env.c - a bad PVSPIN_LOCK or PVSPIN_POLICY found by
 * several threads at once, in their first default-kind call, is reported
 * once and the process exits with status 2 (src/lock/default_kind.c).
 * Each round forks a child that sets the variable, starts 8 threads that
 * meet at a barrier and then call pvspin_lock(); the parent reads the
 * child's stderr.  Before the fix, 4 of 100 such runs printed the line
 * two or three times (a new user's finding).  And a program whose exit
 * handler takes a default-kind lock exits 2 too, its output flushed: it
 * hung after the message before (another new user's finding).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "pvspin.h"

enum { THREADS = 8, ROUNDS = 200 };

static pthread_barrier_t start;
static pvspin_lock_t lock = PVSPIN_LOCK_INIT;

static void *first_call(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	pvspin_lock(&lock);
	pvspin_unlock(&lock);
	return NULL;
}

/* Fork a child that sets VAR=bogus and runs body(), with its file
 * descriptor `out` (1 or 2) on a pipe (and stderr on /dev/null when `out`
 * is stdout); its output into buf (at most len - 1 bytes kept, the rest
 * read and dropped; NUL-terminated) and its wait status into *status. */
static void run_child(const char *var, void (*body)(void), int out, char *buf, size_t len,
		      int *status)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], out);
		close(fd[0]);
		close(fd[1]);
		int devnull = out == 2 ? -1 : open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, 2);
		setenv(var, "bogus", 1);
		body();
		_exit(0);   /* not reached: the bad value exits */
	}
	close(fd[1]);
	size_t got = 0;
	char chunk[512];
	ssize_t n;
	while ((n = read(fd[0], chunk, sizeof(chunk))) > 0) {
		size_t keep = len - 1 - got < (size_t)n ? len - 1 - got : (size_t)n;
		memcpy(buf + got, chunk, keep);
		got += keep;
	}
	buf[got] = 0;
	close(fd[0]);
	assert_int_equal(waitpid(pid, status, 0), pid);
}

/* The child of one_round(): THREADS threads make their first
 * default-kind call at once. */
static void threads_first_call(void)
{
	pthread_t t[THREADS];
	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, first_call, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
}

/* Run one child with VAR=bogus; returns its stderr's line count, and
 * its exit status in *status. */
static int one_round(const char *var, int *status)
{
	char buf[4096];
	run_child(var, threads_first_call, 2, buf, sizeof(buf), status);
	int lines = 0;
	for (const char *p = buf; *p; p++)
		lines += *p == '\n';
	return lines;
}

static void check(const char *var)
{
	int more = 0;
	for (int r = 0; r < ROUNDS; r++) {
		int status;
		int lines = one_round(var, &status);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 2);
		assert_true(lines >= 1);
		more += lines > 1;
	}
	printf("  %s=bogus, %d threads: %d of %d runs printed more than one line\n", var,
	       THREADS, more, ROUNDS);
	assert_int_equal(more, 0);
}

static void test_bad_lock_reported_once(void **state) { (void)state; check("PVSPIN_LOCK"); }

static void locking_exit_handler(void)
{
	pvspin_lock(&lock);
	fputs("handler ran\n", stdout);   /* buffered: exit must flush it */
	pvspin_unlock(&lock);
}

/* The child of exit_handler_round(): an atexit handler that takes the
 * lock, some buffered output, then its first default-kind call (which
 * exits 2: the bad value), under a 10 s alarm that kills a hang. */
static void exit_with_locking_handler(void)
{
	alarm(10);
	atexit(locking_exit_handler);
	fputs("main ran\n", stdout);
	pvspin_lock(&lock);
}

/* A child with VAR=bogus whose atexit handler takes the lock: exit status
 * 2 within 10 s, its stdout flushed; returns that stdout's bytes in
 * buf. */
static void exit_handler_round(const char *var, char *buf, size_t len)
{
	int status;
	run_child(var, exit_with_locking_handler, 1, buf, len, &status);
	assert_true(WIFEXITED(status));   /* not killed by the alarm */
	assert_int_equal(WEXITSTATUS(status), 2);
}

static void test_bad_value_with_locking_exit_handler(void **state)
{
	(void)state;
	const char *vars[] = { "PVSPIN_LOCK", "PVSPIN_POLICY" };
	for (int i = 0; i < 2; i++) {
		char out[256];
		unsetenv("PVSPIN_LOCK");
		exit_handler_round(vars[i], out, sizeof(out));
		assert_non_null(strstr(out, "main ran\n"));
	}
}
static void test_bad_policy_reported_once(void **state)
{
	(void)state;
	unsetenv("PVSPIN_LOCK");
	check("PVSPIN_POLICY");
}

int main(void)
{
	unsetenv("PVSPIN_LOCK");
	unsetenv("PVSPIN_POLICY");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_lock_reported_once),
		cmocka_unit_test(test_bad_policy_reported_once),
		cmocka_unit_test(test_bad_value_with_locking_exit_handler),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

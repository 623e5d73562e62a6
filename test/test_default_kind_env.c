/*
 * test_default_kind_env.c - a bad PVSPIN_LOCK or PVSPIN_POLICY found by
 * several threads at once, in their first default-kind call, is reported
 * once and the process exits with status 2 (src/lock/default_kind.c).
 * Each round forks a child that sets the variable, starts 8 threads that
 * meet at a barrier and then call pvspin_lock(); the parent reads the
 * child's stderr.  Before the fix, 4 of 100 such runs printed the line
 * two or three times (a new user's finding).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Run one child with VAR=bogus; returns its stderr's line count, and
 * its exit status in *status. */
static int one_round(const char *var, int *status)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		setenv(var, "bogus", 1);
		pthread_t t[THREADS];
		pthread_barrier_init(&start, NULL, THREADS);
		for (int i = 0; i < THREADS; i++)
			pthread_create(&t[i], NULL, first_call, NULL);
		for (int i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
		_exit(0);   /* not reached: the first call exits */
	}
	close(fd[1]);
	char buf[4096];
	int lines = 0;
	ssize_t n;
	while ((n = read(fd[0], buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd[0]);
	assert_int_equal(waitpid(pid, status, 0), pid);
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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_spin_cpus.c - pvspin_plat_spin_cpus(), the count of CPUs that bounds
 * spinpark's and the interposer's spinners: a thread pinned to one CPU
 * still counts the CPUs its process may run on (the thread group
 * leader's mask), and a process confined to one CPU counts 1.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "pvspin.h"

static cpu_set_t leader_set;

static int first_cpu(const cpu_set_t *set)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set))
			return c;
	return -1;
}

/* Pin the calling thread to CPU `cpu` and return its count (the first call
 * in a new thread reads the masks). */
static void *pinned_count(void *arg)
{
	int cpu = (int)(intptr_t)arg;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0)
		return (void *)(intptr_t)-1;
	return (void *)(uintptr_t)pvspin_plat_spin_cpus();
}

static uint32_t count_in_pinned_thread(int cpu)
{
	pthread_t t;
	void *ret;
	assert_int_equal(pthread_create(&t, NULL, pinned_count, (void *)(intptr_t)cpu), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_true((intptr_t)ret > 0);
	return (uint32_t)(uintptr_t)ret;
}

/* Pinned to one CPU, a thread of a process that may use several counts
 * them all: the holder may run on another.  The old count (the thread's
 * own mask) said 1 and spinpark never spun for a pinned thread. */
static void test_pinned_thread_counts_process_cpus(void **state)
{
	(void)state;
	if (CPU_COUNT(&leader_set) < 2)
		skip();
	uint32_t n = (uint32_t)CPU_COUNT(&leader_set);
	assert_int_equal(count_in_pinned_thread(first_cpu(&leader_set)), n);
	/* an unpinned thread counts the same */
	assert_true(pvspin_plat_spin_cpus() >= 1);
}

/* A process confined to one CPU (as by `taskset -c N`): its threads
 * inherit the mask, and the count is 1 in the leader and in a thread
 * (checked in a fork child, which may change its own leader's mask). */
static void test_confined_process_counts_one(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(first_cpu(&leader_set), &one);
		if (sched_setaffinity(0, sizeof(one), &one) != 0)
			_exit(2);
		int cpu = first_cpu(&leader_set);
		pthread_t t;
		void *ret;
		if (pthread_create(&t, NULL, pinned_count, (void *)(intptr_t)cpu) != 0 ||
		    pthread_join(t, &ret) != 0)
			_exit(3);
		_exit((uintptr_t)ret == 1 ? 0 : 1);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	if (sched_getaffinity(0, sizeof(leader_set), &leader_set) != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pinned_thread_counts_process_cpus),
		cmocka_unit_test(test_confined_process_counts_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

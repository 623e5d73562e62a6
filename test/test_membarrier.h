/*
 * test_membarrier.h - is this process registered for
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED?  For the tests that check that pvspin
 * registers when it is loaded (src/platform/native.c: registering later,
 * with threads running, costs an RCU grace period, 12-15 ms here).
 */
#ifndef PVSPIN_TEST_MEMBARRIER_H
#define PVSPIN_TEST_MEMBARRIER_H

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Linux 6.3; Debian 12's headers are 6.1 */
#ifndef MEMBARRIER_CMD_GET_REGISTRATIONS
#define MEMBARRIER_CMD_GET_REGISTRATIONS (1 << 9)
#endif

/** 1 if registered for MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0 if not, -1 if
 *  the kernel cannot say (MEMBARRIER_CMD_GET_REGISTRATIONS is Linux 6.3+,
 *  or membarrier is absent). */
static inline int test_membarrier_private_registered(void)
{
	long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	if (q < 0 || !(q & MEMBARRIER_CMD_GET_REGISTRATIONS))
		return -1;
	long r = syscall(SYS_membarrier, MEMBARRIER_CMD_GET_REGISTRATIONS, 0, 0);
	if (r < 0)
		return -1;
	return (r & MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) != 0;
}

/** Fork a child that reports test_membarrier_private_registered() == 1
 *  by its exit status, and wait for it: 1 registered, 0 not, -1 if the
 *  fork or the wait failed. */
static inline int test_membarrier_fork_child_registered(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(test_membarrier_private_registered() == 1 ? 0 : 1);
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st) == 0;
}

#endif

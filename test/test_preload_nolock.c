/*
 * test_preload_nolock.c - a program that never touches a pthread lock,
 * for the PVSPIN_STATS tests (test/preload.cmake): the interposer must
 * still print its stats line at exit, with zero counters, and leave the
 * exit status alone.
 *
 *   test_preload_nolock exit N      leave with exit(N)
 *   test_preload_nolock return N    return N from main
 *   test_preload_nolock closeerr N  exit(N) with an atexit() handler that
 *                                   closes stderr first (gnulib's
 *                                   close_stdout, in every GNU coreutils)
 *   test_preload_nolock _exit N     leave with _exit(N) (dash does)
 *   test_preload_nolock _Exit N     leave with _Exit(N)
 *   test_preload_nolock vfork N     a vfork() child leaves with _exit(0),
 *                                   then exit(N): two lines, the parent's
 *                                   not silenced by the child's
 *
 * Exit status: N; 2 for bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void close_stderr(void)
{
	close(STDERR_FILENO);
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "exit", "return", "closeerr", "_exit", "_Exit",
					     "vfork" };
	int mode = -1;
	for (int i = 0; argc == 3 && i < (int)(sizeof(modes) / sizeof(modes[0])); i++)
		if (!strcmp(argv[1], modes[i]))
			mode = i;
	if (mode < 0) {
		fprintf(stderr, "usage: test_preload_nolock exit|return|closeerr|_exit|_Exit|vfork N\n");
		return 2;
	}
	int status = atoi(argv[2]);
	switch (mode) {
	case 1:
		return status;
	case 2:
		atexit(close_stderr);
		exit(status);
	case 3:
		_exit(status);
	case 4:
		_Exit(status);
	case 5: {
		pid_t pid = vfork();
		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			return 2;
		exit(status);
	}
	default:
		exit(status);
	}
}

/*
 * test_preload_nolock.c - a program that never touches a pthread lock,
 * for the PVSPIN_STATS tests (test/preload.cmake): the interposer must
 * still print its stats line at exit, with zero counters, and leave the
 * exit status alone.
 *
 *   test_preload_nolock exit N     leave with exit(N)
 *   test_preload_nolock return N   return N from main
 *
 * Exit status: N; 2 for bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "exit") && strcmp(argv[1], "return"))) {
		fprintf(stderr, "usage: test_preload_nolock exit|return N\n");
		return 2;
	}
	int status = atoi(argv[2]);
	if (!strcmp(argv[1], "exit"))
		exit(status);
	return status;
}

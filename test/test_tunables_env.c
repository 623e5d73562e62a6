/*
 * test_tunables_env.c - a program that takes one lock once, uncontended,
 * so no slow path runs (test/tunables.cmake).  The environment tunables
 * are read and checked all the same: a bad value is reported on stderr
 * once, whatever path the locks take.  Prints "locked" on stdout.
 */
#include <stdio.h>

#include <pvspin.h>

int main(void)
{
	static pvspin_lock_t lock = PVSPIN_LOCK_INIT;
	pvspin_lock(&lock);
	pvspin_unlock(&lock);
	printf("locked\n");
	return 0;
}

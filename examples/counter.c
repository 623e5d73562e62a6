/*
 * counter.c - the README's example: four threads increment a shared
 * counter under a pvspin lock of the process-wide default kind.
 *
 *   cc counter.c $(pkg-config --cflags --libs pvspin) -o counter
 */
#include <pthread.h>
#include <stdio.h>
#include <pvspin.h>

static pvspin_lock_t lock = PVSPIN_LOCK_INIT;  /* 4 bytes, zero = unlocked */
static long counter;

static void *work(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100000; i++) {
		pvspin_lock(&lock);        /* default kind: PVSPIN_LOCK or the policy's pick */
		counter++;
		pvspin_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	printf("counter = %ld with %s\n", counter, pvspin_kind_name(pvspin_default_kind()));
	return counter == 400000 ? 0 : 1;
}

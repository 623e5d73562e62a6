/*
 * test_barrier.h - a condition-variable barrier for the interposer's test
 * programs (test_preload_helper's `barrier`, test_preload_rt): the last of
 * `n` threads to arrive starts a new generation and broadcasts; the others
 * wait on the condvar until the generation changes.  Header-only.
 */
#ifndef PVSPIN_TEST_BARRIER_H
#define PVSPIN_TEST_BARRIER_H

#include <pthread.h>

struct test_barrier {
	pthread_mutex_t m;
	pthread_cond_t c;
	int n, arrived;            /* threads that take part; arrived so far */
	unsigned long gen;         /* generation, bumped by the last arrival */
};

#define TEST_BARRIER_INIT(threads) \
	{ PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, (threads), 0, 0 }

/** Wait until all b->n threads have arrived.  Thread-safe. */
static inline void test_barrier_wait(struct test_barrier *b)
{
	pthread_mutex_lock(&b->m);
	unsigned long gen = b->gen;
	if (++b->arrived == b->n) {
		b->arrived = 0;
		b->gen++;
		pthread_cond_broadcast(&b->c);
	} else {
		while (gen == b->gen)
			pthread_cond_wait(&b->c, &b->m);
	}
	pthread_mutex_unlock(&b->m);
}

#endif /* PVSPIN_TEST_BARRIER_H */

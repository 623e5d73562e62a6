/*
 * test_spinpark_release.c - spinpark's unlock touches nothing of the lock
 * after its release, so the next thread to take the lock may free it
 * right after its own unlock (POSIX: a lock that is unlocked may be
 * destroyed), as with glibc's locks.
 *
 *   test_spinpark_release [ATTEMPTS]     (default 3000)
 *
 * Both threads run on CPU 0.  The unlocker U (SCHED_OTHER) loops: take
 * `cur`, set phase 1, unlock it, set phase 2.  The checker C (SCHED_FIFO)
 * sleeps 50-150 us, which preempts U at some instruction; if U is in
 * phase 1 and the lock is already free (trylock works), U has released
 * it and is still inside unlock().  C then gives U a fresh lock, unlocks
 * the old one (the last unlock: nobody else holds or waits for it) and
 * either writes a pattern into it (freed memory reused) or unmaps its
 * page, and sleeps 2 ms so that U finishes its unlock().  A later change
 * of the pattern, or SIGSEGV, is the defect.  Every lock starts ARMED,
 * so each unlock takes the slow path (metering, wake decision), the one
 * that read and wrote the word after the release until 2026-12: on that
 * code 9 209 of 10 806 windows changed the pattern and the unmapped case
 * crashed.
 *
 * Exit 0: at least MIN_WINDOWS windows, none touched; 1: a window
 * touched the memory; 77 (ctest's skip): no SCHED_FIFO here, or too few
 * windows to say anything.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pvspin.h"

#define MIN_WINDOWS 20
#define PAGE 4096
/* what an allocator might leave in freed memory: no valid spinpark word
 * (parked count 4095 with bit 31 set) */
#define PATTERN 0xfff0a5a5u

/* relaxed atomics: the lock itself orders what matters */
static pvspin_lock_t *cur;
static int phase, stop;
#define GET(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static void pin_cpu0(void)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void nap_ns(long ns)
{
	struct timespec ts = { 0, ns };
	nanosleep(&ts, NULL);
}

/* A lock on a page of its own, so that unmapping it takes nothing else. */
static pvspin_lock_t *fresh_lock(void)
{
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("test_spinpark_release: mmap");
		exit(1);
	}
	pvspin_lock_t *l = p;
	/* contended before: every unlock is metered */
	__atomic_store_n(&l->val, _SP_ARMED, __ATOMIC_RELAXED);
	return l;
}

static void *unlocker(void *arg)
{
	pin_cpu0();
	while (!GET(stop)) {
		pvspin_lock_t *l = __atomic_load_n(&cur, __ATOMIC_ACQUIRE);
		pvspin_spinpark_lock(l);
		SET(phase, 1);
		pvspin_spinpark_unlock(l);
		SET(phase, 2);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int attempts = argc > 1 ? atoi(argv[1]) : 3000, windows = 0, touched = 0;
	if (attempts <= 0) {
		fprintf(stderr, "usage: test_spinpark_release [ATTEMPTS > 0]\n");
		return 2;
	}
	pin_cpu0();
	__atomic_store_n(&cur, fresh_lock(), __ATOMIC_RELEASE);
	pthread_t u;
	if (pthread_create(&u, NULL, unlocker, NULL)) {
		perror("test_spinpark_release: pthread_create");
		return 1;
	}
	struct sched_param sp = { .sched_priority = 10 };
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) {
		SET(stop, 1);
		pthread_join(u, NULL);
		printf("test_spinpark_release: SKIP: SCHED_FIFO not permitted here\n");
		return 77;
	}
	for (int i = 0; i < attempts; i++) {
		nap_ns(50000 + (i * 7919L) % 100000);
		pvspin_lock_t *l = GET(cur);
		if (GET(phase) != 1 || !pvspin_spinpark_trylock(l))
			continue;
		if (GET(phase) != 1) {   /* U left unlock() meanwhile */
			pvspin_spinpark_unlock(l);
			continue;
		}
		/* U is inside unlock(l) and has released l: after our unlock
		 * nobody holds or waits for l, so it may be freed */
		windows++;
		__atomic_store_n(&cur, fresh_lock(), __ATOMIC_RELEASE);
		pvspin_spinpark_unlock(l);
		if (windows % 2) {
			munmap(l, PAGE);     /* U's touch would be SIGSEGV */
			nap_ns(2000000);
			continue;
		}
		__atomic_store_n(&l->val, PATTERN, __ATOMIC_SEQ_CST);   /* reused */
		nap_ns(2000000);     /* U finishes unlock(l) */
		uint32_t now = __atomic_load_n(&l->val, __ATOMIC_SEQ_CST);
		if (now != PATTERN && ++touched <= 3)
			printf("test_spinpark_release: FAIL: the freed lock's memory, reused as "
			       "0x%08x, became 0x%08x after the last unlock\n", PATTERN, now);
		munmap(l, PAGE);
	}
	SET(stop, 1);
	pthread_join(u, NULL);
	printf("test_spinpark_release: %d of %d attempts preempted the unlocker inside unlock() "
	       "after its release; %d of them touched the freed lock\n", windows, attempts, touched);
	if (touched)
		return 1;
	if (windows < MIN_WINDOWS) {
		printf("test_spinpark_release: SKIP: fewer than %d windows\n", MIN_WINDOWS);
		return 77;
	}
	return 0;
}

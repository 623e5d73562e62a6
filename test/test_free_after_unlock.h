/*
 * test_free_after_unlock.h - the check behind test_spinpark_release.c
 * and test_preload_free_after_unlock.c: a lock may be freed by the thread
 * that unlocks it last while an earlier unlocker is still inside its
 * unlock call (POSIX: an unlocked lock may be destroyed at once; glibc's
 * unlocks touch nothing of the lock after their release).
 *
 * Both threads run on CPU 0.  Each lock is on a page of its own.  The
 * unlocker U (SCHED_OTHER) loops: lock `cur`, set phase 1, unlock, set
 * phase 2.  The checker C (SCHED_FIFO) sleeps 50-150 us, which preempts U
 * at some instruction; if U is in phase 1 and trylock works, U has
 * released the lock and is still inside its unlock.  C then gives U a
 * fresh lock, unlocks and destroys the old one at once and either writes
 * a pattern over it (freed memory reused) or unmaps its page, and sleeps
 * 2 ms so that U finishes its unlock.  A changed pattern, or SIGSEGV, is
 * the defect.  With `contend`, each lock is first contended once (C holds
 * it 1 ms while U waits), as a real lock is before it is freed, so that
 * the unlock takes the path that wakes waiters.
 *
 * fau_run() returns the exit status: 0 at least FAU_MIN_WINDOWS windows
 * and none touched, 1 touched, 77 (ctest's skip) no SCHED_FIFO or too
 * few windows.  One run per process.
 */
#ifndef TEST_FREE_AFTER_UNLOCK_H
#define TEST_FREE_AFTER_UNLOCK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* first include of its test: CPU_SET, pthread_setaffinity_np */
#endif
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define FAU_MIN_WINDOWS 20
#define FAU_PAGE 4096
/* what an allocator might leave in freed memory */
#define FAU_PATTERN 0xfff0a5a5u

/** The lock under test: `init` prepares a zeroed page-aligned object of
 *  `size` bytes; `what` names it in messages. */
struct fau_ops {
	const char *what;
	size_t size;
	bool contend;
	void (*init)(void *l);
	void (*lock)(void *l);
	void (*unlock)(void *l);
	bool (*trylock)(void *l);
	void (*destroy)(void *l);
};

static const struct fau_ops *fau;
/* relaxed atomics: the lock itself orders what matters */
static void *fau_cur;
static int fau_phase, fau_stop;
#define FAU_GET(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define FAU_SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static void fau_pin_cpu0(void)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void fau_nap_ns(long ns)
{
	struct timespec ts = { 0, ns };
	nanosleep(&ts, NULL);
}

static void *fau_make(void)
{
	void *l = mmap(NULL, FAU_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (l == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	fau->init(l);
	return l;
}

/* Contend U's lock once: hold it 1 ms while U waits (C never waits in
 * lock(): a SCHED_FIFO waiter on U's CPU would keep U from its unlock). */
static void fau_contend(void *l)
{
	if (!fau->contend)
		return;
	while (!fau->trylock(l))
		fau_nap_ns(10000);
	fau_nap_ns(1000000);
	fau->unlock(l);
}

static void *fau_unlocker(void *arg)
{
	fau_pin_cpu0();
	while (!FAU_GET(fau_stop)) {
		void *l = __atomic_load_n(&fau_cur, __ATOMIC_ACQUIRE);
		fau->lock(l);
		FAU_SET(fau_phase, 1);
		fau->unlock(l);
		FAU_SET(fau_phase, 2);
	}
	return arg;
}

static int fau_run(const struct fau_ops *ops, int attempts)
{
	int windows = 0, touched = 0;
	pthread_t u;
	fau = ops;
	fau_pin_cpu0();
	__atomic_store_n(&fau_cur, fau_make(), __ATOMIC_RELEASE);
	/* U first: a thread created by a SCHED_FIFO one inherits its policy */
	if (pthread_create(&u, NULL, fau_unlocker, NULL)) {
		perror("pthread_create");
		return 1;
	}
	struct sched_param sp = { .sched_priority = 10 };
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) {
		FAU_SET(fau_stop, 1);
		pthread_join(u, NULL);
		printf("SKIP: SCHED_FIFO not permitted here\n");
		return 77;
	}
	fau_contend(FAU_GET(fau_cur));
	for (int i = 0; i < attempts; i++) {
		fau_nap_ns(50000 + (i * 7919L) % 100000);
		void *l = FAU_GET(fau_cur);
		if (FAU_GET(fau_phase) != 1 || !fau->trylock(l))
			continue;
		if (FAU_GET(fau_phase) != 1) {   /* U left its unlock meanwhile */
			fau->unlock(l);
			continue;
		}
		/* U is inside its unlock of l and has released it: after our
		 * unlock nobody holds or waits for l */
		windows++;
		void *next = fau_make();
		__atomic_store_n(&fau_cur, next, __ATOMIC_RELEASE);   /* U's next lock */
		fau->unlock(l);
		fau->destroy(l);
		if (windows % 2) {
			munmap(l, FAU_PAGE);   /* U's touch would be SIGSEGV */
			fau_nap_ns(2000000);
			fau_contend(next);
			continue;
		}
		uint32_t *w = l;
		for (size_t k = 0; k < fau->size / 4; k++)
			__atomic_store_n(&w[k], FAU_PATTERN, __ATOMIC_RELAXED);   /* reused */
		fau_nap_ns(2000000);   /* U finishes its unlock */
		for (size_t k = 0; k < fau->size / 4; k++) {
			uint32_t now = __atomic_load_n(&w[k], __ATOMIC_RELAXED);
			if (now != FAU_PATTERN) {
				if (++touched <= 3)
					printf("FAIL: the freed %s's memory, reused as 0x%08x, became "
					       "0x%08x at byte %zu after its last unlock\n",
					       fau->what, FAU_PATTERN, now, 4 * k);
				break;
			}
		}
		munmap(l, FAU_PAGE);
		fau_contend(next);
	}
	FAU_SET(fau_stop, 1);
	pthread_join(u, NULL);
	printf("%d of %d attempts preempted the unlocker inside the %s unlock after its release; "
	       "%d of them touched the freed lock\n", windows, attempts, fau->what, touched);
	if (touched)
		return 1;
	if (windows < FAU_MIN_WINDOWS) {
		printf("SKIP: fewer than %d windows\n", FAU_MIN_WINDOWS);
		return 77;
	}
	return 0;
}

#endif /* TEST_FREE_AFTER_UNLOCK_H */

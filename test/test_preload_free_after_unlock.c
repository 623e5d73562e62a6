/*
 * test_preload_free_after_unlock.c - a plain POSIX program, run under
 * `pvspin run`: an interposed pthread mutex or spinlock may be destroyed
 * and freed by the thread that unlocks it last while an earlier unlocker
 * is still inside its unlock call (POSIX: an unlocked lock may be
 * destroyed; glibc's unlocks touch nothing after the release).
 *
 *   test_preload_free_after_unlock mutex|spin [ATTEMPTS]   (default 3000)
 *
 * Both threads run on CPU 0.  Each lock, on a page of its own, is
 * contended once (the checker C holds it 1 ms while the unlocker U
 * waits), as a real lock is before it is freed.  U loops: lock, set
 * phase 1, unlock, set phase 2.  C (SCHED_FIFO) sleeps 50-150 us, which
 * preempts U at some instruction; if U is in phase 1 and trylock works, U
 * has released the lock and is still inside unlock().  C gives U a fresh
 * lock, unlocks and destroys the old one at once, and either writes a pattern
 * into its memory (reused) or unmaps its page, then sleeps 2 ms so that U
 * finishes its unlock.  A changed pattern, or SIGSEGV, is the defect: the
 * interposer's mutex unlock read (and wrote) the mutex's sleeper count
 * after its release, and spinpark's unlock read the word, until 2026-12.
 *
 * Exit 0: at least MIN_WINDOWS windows, none touched; 1: touched; 2:
 * usage; 77 (ctest's skip): no SCHED_FIFO, or too few windows.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MIN_WINDOWS 20
#define PAGE 4096
#define PATTERN 0xfff0a5a5u

union lock {
	pthread_mutex_t m;
	pthread_spinlock_t s;
};

static bool use_mutex;
static union lock *cur;
static int phase, stop;
#define GET(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static void lk(union lock *l) { use_mutex ? pthread_mutex_lock(&l->m) : pthread_spin_lock(&l->s); }
static void ul(union lock *l) { use_mutex ? pthread_mutex_unlock(&l->m) : pthread_spin_unlock(&l->s); }
static bool tl(union lock *l)
{
	return (use_mutex ? pthread_mutex_trylock(&l->m) : pthread_spin_trylock(&l->s)) == 0;
}
static void destroy(union lock *l)
{
	use_mutex ? pthread_mutex_destroy(&l->m) : pthread_spin_destroy(&l->s);
}

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

/* A fresh lock on a page of its own. */
static union lock *make_lock(void)
{
	union lock *l = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (l == MAP_FAILED) {
		perror("test_preload_free_after_unlock: mmap");
		exit(1);
	}
	use_mutex ? pthread_mutex_init(&l->m, NULL) : pthread_spin_init(&l->s, 0);
	return l;
}

/* Contend U's lock once, as a real lock is before it is freed: hold it
 * 1 ms while U waits for it (C never waits in lock(): a SCHED_FIFO
 * waiter on U's CPU would keep U from the unlock). */
static void contend(union lock *l)
{
	while (!tl(l))
		nap_ns(10000);
	nap_ns(1000000);
	ul(l);
}

static void *unlocker(void *arg)
{
	pin_cpu0();
	while (!GET(stop)) {
		union lock *l = __atomic_load_n(&cur, __ATOMIC_ACQUIRE);
		lk(l);
		SET(phase, 1);
		ul(l);
		SET(phase, 2);
	}
	return arg;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "mutex") && strcmp(argv[1], "spin")) ||
	    (argc > 2 && atoi(argv[2]) <= 0)) {
		fprintf(stderr, "usage: test_preload_free_after_unlock mutex|spin [ATTEMPTS > 0]\n");
		return 2;
	}
	use_mutex = !strcmp(argv[1], "mutex");
	int attempts = argc > 2 ? atoi(argv[2]) : 3000, windows = 0, touched = 0;
	pin_cpu0();
	pthread_t u;
	__atomic_store_n(&cur, make_lock(), __ATOMIC_RELEASE);
	/* U first: a thread created by a SCHED_FIFO one inherits its policy */
	if (pthread_create(&u, NULL, unlocker, NULL)) {
		perror("test_preload_free_after_unlock: pthread_create");
		return 1;
	}
	struct sched_param sp = { .sched_priority = 10 };
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp)) {
		SET(stop, 1);
		pthread_join(u, NULL);
		printf("SKIP: SCHED_FIFO not permitted here\n");
		return 77;
	}
	contend(GET(cur));
	for (int i = 0; i < attempts; i++) {
		nap_ns(50000 + (i * 7919L) % 100000);
		union lock *l = GET(cur);
		if (GET(phase) != 1 || !tl(l))
			continue;
		if (GET(phase) != 1) {   /* U left unlock() meanwhile */
			ul(l);
			continue;
		}
		/* U is inside unlock(l) and has released l: after our unlock
		 * nobody holds or waits for l */
		windows++;
		union lock *next = make_lock();
		__atomic_store_n(&cur, next, __ATOMIC_RELEASE);   /* U's next lock */
		ul(l);
		destroy(l);
		if (windows % 2) {
			munmap(l, PAGE);     /* U's touch would be SIGSEGV */
			nap_ns(2000000);
			contend(next);
			continue;
		}
		uint32_t *w = (uint32_t *)l;
		for (size_t k = 0; k < sizeof(*l) / 4; k++)
			__atomic_store_n(&w[k], PATTERN, __ATOMIC_RELAXED);   /* reused */
		nap_ns(2000000);     /* U finishes its unlock */
		for (size_t k = 0; k < sizeof(*l) / 4; k++) {
			uint32_t now = __atomic_load_n(&w[k], __ATOMIC_RELAXED);
			if (now != PATTERN) {
				if (++touched <= 3)
					printf("FAIL: the destroyed %s's memory, reused as 0x%08x, "
					       "became 0x%08x at byte %zu after its last unlock\n",
					       argv[1], PATTERN, now, 4 * k);
				break;
			}
		}
		munmap(l, PAGE);
		contend(next);
	}
	SET(stop, 1);
	pthread_join(u, NULL);
	printf("%d of %d attempts preempted the unlocker inside the %s unlock after its release; "
	       "%d of them touched the freed lock\n", windows, attempts, argv[1], touched);
	if (touched)
		return 1;
	if (windows < MIN_WINDOWS) {
		printf("SKIP: fewer than %d windows\n", MIN_WINDOWS);
		return 77;
	}
	return 0;
}

/*
 * test_preload_malloc.c - a program with its own malloc family that locks
 * pthread mutexes (as many allocators do), including a ROBUST one, which
 * the interposer passes to glibc and therefore needs glibc's functions
 * (dlsym, which may allocate: the recursion trap).  Run under the
 * interposer it must start, allocate from several threads and exit 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define ARENA (64u << 20)
static _Alignas(64) unsigned char arena[ARENA];
static size_t arena_used;
static pthread_mutex_t arena_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t robust_lock;
static int robust_state; /* 0 none, 1 initialising, 2 ready */
static long robust_eagain, allocs;

static void robust_enter(void)
{
	int expect = 0;
	if (__atomic_compare_exchange_n(&robust_state, &expect, 1, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		pthread_mutexattr_t a;
		pthread_mutexattr_init(&a);
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
		pthread_mutex_init(&robust_lock, &a);
		__atomic_store_n(&robust_state, 2, __ATOMIC_RELEASE);
	}
	if (__atomic_load_n(&robust_state, __ATOMIC_ACQUIRE) != 2)
		return;
	int r = pthread_mutex_lock(&robust_lock);
	if (r == EAGAIN) { /* inside the interposer's own dlsym */
		__atomic_fetch_add(&robust_eagain, 1, __ATOMIC_RELAXED);
		return;
	}
	pthread_mutex_unlock(&robust_lock);
}

static void *bump(size_t n, size_t align)
{
	robust_enter();
	pthread_mutex_lock(&arena_lock);
	size_t off = (arena_used + align - 1) & ~(align - 1);
	void *p = NULL;
	if (off + n + 16 <= ARENA) {
		*(size_t *)(arena + off) = n;
		p = arena + off + 16;
		arena_used = off + n + 16;
		allocs++;
	}
	pthread_mutex_unlock(&arena_lock);
	if (!p)
		errno = ENOMEM;
	return p;
}

void *malloc(size_t n) { return bump(n, 16); }
void free(void *p) { (void)p; }
void *calloc(size_t a, size_t b)
{
	void *p = bump(a * b, 16);
	if (p)
		memset(p, 0, a * b); /* the arena is static: zero already, but be safe */
	return p;
}
void *realloc(void *p, size_t n)
{
	void *q = bump(n, 16);
	if (p && q) {
		size_t old = *(size_t *)((unsigned char *)p - 16);
		memcpy(q, p, old < n ? old : n);
	}
	return q;
}
int posix_memalign(void **out, size_t align, size_t n)
{
	void *p = bump(n + align, 16);
	if (!p)
		return ENOMEM;
	*out = (void *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	return 0;
}
void *aligned_alloc(size_t align, size_t n)
{
	void *p;
	return posix_memalign(&p, align, n) ? NULL : p;
}
void *memalign(size_t align, size_t n) { return aligned_alloc(align, n); }

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++) {
		char *p = malloc(32);
		if (!p)
			return (void *)1;
		p[0] = 1;
		free(p);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		if (r)
			return 1;
	}
	return allocs >= 8000 ? 0 : 1;
}

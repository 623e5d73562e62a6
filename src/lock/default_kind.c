/*
 * default_kind.c - the process-wide default kind (pvspin/lock.h): fixed
 * once, from PVSPIN_LOCK, else from the selection policy
 * (pvspin_policy_pick_default(), src/policy).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pvspin/lock.h"
#include "pvspin/spinlock.h"
#include "../policy/policy_default.h"

static pvspin_kind_t default_kind = PVSPIN_KIND_NONE;

void pvspin_default_kind_exit(const char *fmt, ...)
{
	static int reported;
	va_list ap;
	/* Threads that make their first default-kind call together all find
	 * the bad value: the first prints the line and exits; the others
	 * wait for that exit instead of printing it again and racing it in
	 * exit(), which is not safe to call concurrently. */
	if (__atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL)) {
		for (;;)
			pause();
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	exit(2);
}

static pvspin_kind_t resolve(void)
{
	const char *name = getenv("PVSPIN_LOCK");
	if (name && *name) {
		pvspin_kind_t k = pvspin_kind_from_name(name);
		if (k == PVSPIN_KIND_NONE) {
			pvspin_default_kind_exit("pvspin: PVSPIN_LOCK=%s is not a lock kind; "
						 "valid kinds: %s\n", name, pvspin_kind_names());
		}
		return k;
	}
	return pvspin_policy_pick_default();
}

pvspin_kind_t pvspin_default_kind(void)
{
	pvspin_kind_t k = __atomic_load_n(&default_kind, __ATOMIC_ACQUIRE);
	if (__builtin_expect(k != PVSPIN_KIND_NONE, 1))
		return k;
	k = resolve();
	pvspin_kind_t none = PVSPIN_KIND_NONE;
	/* first resolver wins; others adopt its choice */
	if (!__atomic_compare_exchange_n(&default_kind, &none, k, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		k = none;
	return k;
}

int pvspin_set_default_kind(pvspin_kind_t kind)
{
	if (kind <= PVSPIN_KIND_NONE || kind >= PVSPIN_KIND_COUNT) {
		errno = EINVAL;
		return -1;
	}
	pvspin_kind_t none = PVSPIN_KIND_NONE;
	if (__atomic_compare_exchange_n(&default_kind, &none, kind, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return 0;
	if (none == kind)
		return 0;
	errno = EBUSY;
	return -1;
}

/* ---- default-kind operations --------------------------------------- */

void pvspin_lock(pvspin_lock_t *lock) { pvspin_kind_lock(pvspin_default_kind(), lock); }
bool pvspin_trylock(pvspin_lock_t *lock) { return pvspin_kind_trylock(pvspin_default_kind(), lock); }
void pvspin_unlock(pvspin_lock_t *lock) { pvspin_kind_unlock(pvspin_default_kind(), lock); }
bool pvspin_is_locked(pvspin_lock_t *lock) { return pvspin_kind_is_locked(pvspin_default_kind(), lock); }
bool pvspin_is_contended(pvspin_lock_t *lock) { return pvspin_kind_is_contended(pvspin_default_kind(), lock); }

/*
 * default_kind.c - the process-wide default kind (pvspin/lock.h): fixed
 * once, from PVSPIN_LOCK, else from the selection policy
 * (pvspin_policy_pick_default(), src/policy).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pvspin/lock.h"
#include "pvspin/spinlock.h"
#include "../policy/policy_default.h"
#include "../util/value_quote.h"

static pvspin_kind_t default_kind = PVSPIN_KIND_NONE;

/* PVSPIN_LOCK as it is now (policy_default.h). */
int pvspin_default_lock_env(FILE *err, const char *who, pvspin_kind_t *kind)
{
	const char *name = getenv("PVSPIN_LOCK");
	if (!name || !*name)
		return 0;
	*kind = pvspin_kind_from_name(name);
	if (*kind != PVSPIN_KIND_NONE)
		return 1;
	if (err)   /* 'tas ': the blank shows */
		fprintf(err, "%s: PVSPIN_LOCK=" PVSPIN_QUOTED ": " PVSPIN_LOCK_NOT_A_KIND "%s\n",
			who ? who : "pvspin", PVSPIN_QUOTED_ARGS(name), pvspin_kind_names());
	return -1;
}

int pvspin_default_kind_check_env(FILE *err, const char *who)
{
	pvspin_kind_t k;
	pvspin_policy_t p;
	/* the first bad one only: see pvspin/lock.h */
	if (pvspin_default_lock_env(err, who, &k) < 0 || pvspin_default_policy_env(err, who, &p) < 0)
		return 1;
	return 0;
}

void pvspin_default_kind_exit(void)
{
	static int reported;
	/* set in the thread that calls exit(): its exit handlers run on it */
	static _Thread_local bool exiting;
	/* An atexit handler, a C++ static destructor or a library destructor
	 * of the exiting thread that takes a default-kind lock comes back
	 * here: the kind is still unresolved.  Waiting below would wait for
	 * its own exit for ever (a new user's finding: a program whose atexit
	 * handler flushed a log under a lock hung after the message).  End
	 * the process now, with the status exit() was given, after flushing
	 * what exit() would have. */
	if (exiting) {
		fflush(NULL);
		_exit(2);
	}
	/* Threads that make their first default-kind call together all find
	 * the bad value: the first prints the line and exits; the others
	 * wait for that exit instead of printing it again and racing it in
	 * exit(), which is not safe to call concurrently. */
	if (__atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL)) {
		for (;;)
			pause();
	}
	/* The line of the variable the caller failed on: PVSPIN_LOCK's when
	 * it is bad, PVSPIN_POLICY's otherwise (the library reads it only
	 * when PVSPIN_LOCK is unset). */
	pvspin_default_kind_check_env(stderr, NULL);
	exiting = true;
	exit(2);
}

static pvspin_kind_t resolve(void)
{
	pvspin_kind_t k;
	int r = pvspin_default_lock_env(NULL, NULL, &k);
	if (r < 0)
		pvspin_default_kind_exit();
	if (r > 0)
		return k;
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

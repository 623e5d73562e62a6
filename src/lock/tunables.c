/*
 * tunables.c - the slow-path knobs of pvspin/tunables.h, with environment
 * overrides read and checked once, when the library is loaded (a
 * constructor), so that a bad value is reported whether or not a slow path
 * ever runs.  A lock taken before that (another library's constructor)
 * reads them at its first slow path instead; either way they are read
 * once, and a bad value is reported once per process (`pvspin run`, which
 * reports them itself, tells the program it execs not to say it again).
 * The inline fast paths never look at them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pvspin/tunables.h"

static const char *const tunable_names[PVSPIN_TUNE_COUNT] = {
	[PVSPIN_TUNE_SPIN_THRESHOLD] = "spin_threshold",
	[PVSPIN_TUNE_PENDING_LOOPS] = "pending_loops",
	[PVSPIN_TUNE_TAS_BACKOFF_MAX] = "tas_backoff_max",
	[PVSPIN_TUNE_EARLY_HALT_PREEMPTED] = "early_halt_preempted",
	[PVSPIN_TUNE_MUTEX_SPIN_LIMIT] = "mutex_spin_limit",
};

#ifndef PVSPIN_PLATFORM_SIM   /* the simulator reads no environment */
static const char *const tunable_env[PVSPIN_TUNE_COUNT] = {
	[PVSPIN_TUNE_SPIN_THRESHOLD] = "PVSPIN_SPIN_THRESHOLD",
	[PVSPIN_TUNE_PENDING_LOOPS] = "PVSPIN_PENDING_LOOPS",
	[PVSPIN_TUNE_TAS_BACKOFF_MAX] = "PVSPIN_TAS_BACKOFF_MAX",
	[PVSPIN_TUNE_EARLY_HALT_PREEMPTED] = "PVSPIN_EARLY_HALT_PREEMPTED",
	[PVSPIN_TUNE_MUTEX_SPIN_LIMIT] = "PVSPIN_MUTEX_SPIN_LIMIT",
};
#endif

static uint32_t tunables[PVSPIN_TUNE_COUNT] = {
	[PVSPIN_TUNE_SPIN_THRESHOLD] = PVSPIN_DEFAULT_SPIN_THRESHOLD,
	[PVSPIN_TUNE_PENDING_LOOPS] = 512,
	[PVSPIN_TUNE_TAS_BACKOFF_MAX] = 0,
	[PVSPIN_TUNE_EARLY_HALT_PREEMPTED] = 0,
	[PVSPIN_TUNE_MUTEX_SPIN_LIMIT] = 0,
};

static int env_state; /* 0 unread, 1 reading, 2 read */

/* The values each tunable accepts: what pvspin_tunable_set() checks and
 * what the message refusing an environment value says. */
static const struct { uint32_t min, max; } tunable_range[PVSPIN_TUNE_COUNT] = {
	[PVSPIN_TUNE_SPIN_THRESHOLD] = { 1, UINT32_MAX },
	[PVSPIN_TUNE_PENDING_LOOPS] = { 1, UINT32_MAX },
	[PVSPIN_TUNE_TAS_BACKOFF_MAX] = { 0, UINT32_MAX },
	[PVSPIN_TUNE_EARLY_HALT_PREEMPTED] = { 0, 1 },
	[PVSPIN_TUNE_MUTEX_SPIN_LIMIT] = { 0, UINT32_MAX },
};

static bool valid(pvspin_tunable_t t, uint32_t v)
{
	return v >= tunable_range[t].min && v <= tunable_range[t].max;
}

#ifndef PVSPIN_PLATFORM_SIM
/* A decimal number of 1 to 10 digits and nothing else (no sign, no
 * blanks, no 0x or octal), at most UINT32_MAX, as every number pvspin's
 * command lines take.  False for anything else. */
static bool parse_decimal_u32(const char *s, uint32_t *out)
{
	uint64_t v = 0;
	int n = 0;
	for (; *s >= '0' && *s <= '9'; s++, n++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (n >= 10 || v > UINT32_MAX)
			return false;
	}
	if (*s || !n)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* `pvspin run` has read (and reported) the same environment in this very
 * process before its exec: the program's copy of the library reports
 * nothing again (PVSPIN_TUNABLES_REPORTED=PID; its children, other
 * processes, do report). */
static bool reported_here(void)
{
	const char *s = getenv("PVSPIN_TUNABLES_REPORTED");
	char *end;
	long pid = s && *s ? strtol(s, &end, 10) : 0;
	return pid > 0 && !*end && pid == (long)getpid();
}
#endif

static void read_env(void)
{
	int unread = 0;
	if (!__atomic_compare_exchange_n(&env_state, &unread, 1, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&env_state, __ATOMIC_ACQUIRE) != 2)
			;
		return;
	}
	/* The simulator sets them from its configuration (spin_threshold and
	 * the others are keys of `pvspin sim`), never from the environment. */
#ifndef PVSPIN_PLATFORM_SIM
	for (int t = 0; t < PVSPIN_TUNE_COUNT; t++) {
		const char *s = getenv(tunable_env[t]);
		uint32_t v;
		if (!s || !*s)
			continue;   /* empty: unset */
		if (!parse_decimal_u32(s, &v) || !valid((pvspin_tunable_t)t, v)) {
			if (!reported_here())
				fprintf(stderr, "pvspin: ignoring %s=%s: not a valid value for %s "
					"(expected a decimal integer from %u to %u; the default %u is used)\n",
					tunable_env[t], s, tunable_names[t], tunable_range[t].min,
					tunable_range[t].max, tunables[t]);
			continue;
		}
		__atomic_store_n(&tunables[t], v, __ATOMIC_RELAXED);
	}
#endif
	__atomic_store_n(&env_state, 2, __ATOMIC_RELEASE);
}

/* At load: read and check the environment now, not at the first slow path. */
__attribute__((constructor)) static void tunables_load(void)
{
	if (__atomic_load_n(&env_state, __ATOMIC_ACQUIRE) != 2)
		read_env();
}

uint32_t pvspin_tunable_get(pvspin_tunable_t t)
{
	if ((unsigned)t >= PVSPIN_TUNE_COUNT)
		return 0;
	if (__builtin_expect(__atomic_load_n(&env_state, __ATOMIC_ACQUIRE) != 2, 0))
		read_env();
	return __atomic_load_n(&tunables[t], __ATOMIC_RELAXED);
}

int pvspin_tunable_set(pvspin_tunable_t t, uint32_t value)
{
	if ((unsigned)t >= PVSPIN_TUNE_COUNT || !valid(t, value)) {
		errno = EINVAL;
		return -1;
	}
	if (__atomic_load_n(&env_state, __ATOMIC_ACQUIRE) != 2)
		read_env();
	__atomic_store_n(&tunables[t], value, __ATOMIC_RELAXED);
	return 0;
}

const char *pvspin_tunable_name(pvspin_tunable_t t)
{
	if ((unsigned)t >= PVSPIN_TUNE_COUNT)
		return "?";
	return tunable_names[t];
}

/*
 * tunables.c - the slow-path knobs of pvspin/tunables.h, with environment
 * overrides read and checked once, when the library is loaded (a
 * constructor), so that a bad value is reported whether or not a slow path
 * ever runs.  A lock taken before that (another library's constructor)
 * reads them at its first slow path instead; either way they are read
 * once, and a bad value is reported once per process: "pvspin: ignoring
 * VAR=VALUE: ...", the default kept.  A program that would rather refuse
 * a bad value (the `pvspin` tool's subcommands, exit 2) checks with
 * pvspin_tunables_check_env() and turns the load-time report off
 * (pvspin_tunables_report_at_load(), below).
 * The inline fast paths never look at them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pvspin/tunables.h"
#include "tunables_report.h"
#include "../util/value_quote.h"

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

/* Each tunable's default: its value until set (from the environment or
 * pvspin_tunable_set()), and the one a report of an ignored value names. */
#define TUNABLE_DEFAULTS {                                              \
	[PVSPIN_TUNE_SPIN_THRESHOLD] = PVSPIN_DEFAULT_SPIN_THRESHOLD,   \
	[PVSPIN_TUNE_PENDING_LOOPS] = 512,                              \
	[PVSPIN_TUNE_TAS_BACKOFF_MAX] = 0,                              \
	[PVSPIN_TUNE_EARLY_HALT_PREEMPTED] = 0,                         \
	[PVSPIN_TUNE_MUTEX_SPIN_LIMIT] = 0,                             \
}
static uint32_t tunables[PVSPIN_TUNE_COUNT] = TUNABLE_DEFAULTS;
#ifndef PVSPIN_PLATFORM_SIM
static const uint32_t tunable_default[PVSPIN_TUNE_COUNT] = TUNABLE_DEFAULTS;
#endif

static int env_state; /* 0 unread, 1 reading, 2 read */

/* The values each tunable accepts: what pvspin_tunable_set() checks and
 * what the message refusing an environment value says.  A boolean is a
 * range of 0 (off) to 1 (on), in the environment exactly "0" or "1", as
 * PVSPIN_STATS; the words off/on, no/yes, false/true are spellings of
 * `pvspin sim`'s keys (its configuration language), not of the
 * environment (docs/tuning.md, "Values"). */
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

/* What tunable t's variable says now: 0 unset (absent or empty), 1 a
 * valid value (*v), -1 a value the tunable refuses (its text: *text). */
static int env_value(int t, const char **text, uint32_t *v)
{
	const char *s = getenv(tunable_env[t]);
	*text = s;
	if (!s || !*s)
		return 0;
	return parse_decimal_u32(s, v) && valid((pvspin_tunable_t)t, *v) ? 1 : -1;
}

/* The one wording of a refused value, on `f`: "WHO: WHAT VAR=VALUE: not
 * a valid value for NAME (expected a decimal integer from MIN to MAX`tail`)",
 * for a boolean "(expected 0 (off) or 1 (on)`tail`)". */
static void say_bad(FILE *f, const char *who, const char *what, int t, const char *s,
		    const char *tail)
{
	/* a boolean: the range 0 .. 1; the value quoted where a blank in it
	 * would not show */
	if (tunable_range[t].min == 0 && tunable_range[t].max == 1) {
		fprintf(f, "%s: %s %s=" PVSPIN_QUOTED ": not a valid value for %s (expected 0 (off) "
			"or 1 (on)%s)\n", who, what, tunable_env[t], PVSPIN_QUOTED_ARGS(s),
			tunable_names[t], tail);
		return;
	}
	fprintf(f, "%s: %s %s=" PVSPIN_QUOTED ": not a valid value for %s (expected a decimal "
		"integer from %u to %u%s)\n", who, what, tunable_env[t], PVSPIN_QUOTED_ARGS(s),
		tunable_names[t], tunable_range[t].min, tunable_range[t].max, tail);
}

/* The one wording of an ignored value: say_bad()'s "ignoring", ending
 * in `tail`, or (NULL) in "; the default N is used". */
static void say_ignored(FILE *f, const char *who, int t, const char *s, const char *tail)
{
	char def[48];
	if (!tail) {
		snprintf(def, sizeof(def), "; the default %u is used", tunable_default[t]);
		tail = def;
	}
	say_bad(f, who, "ignoring", t, s, tail);
}

/* Each PVSPIN_* variable with a bad value, said on `err` (NULL: counted
 * only) as ignored (say_ignored, ending in `tail`) or, with `tail` NULL
 * and !ignoring, as "bad"; the count.  The one scan behind
 * pvspin_tunables_report_ignored() and pvspin_tunables_check_env(). */
static int scan_env(FILE *err, const char *who, bool ignoring, const char *tail)
{
	int bad = 0;
	for (int t = 0; t < PVSPIN_TUNE_COUNT; t++) {
		const char *s;
		uint32_t v;
		if (env_value(t, &s, &v) >= 0)
			continue;
		bad++;
		if (!err)
			continue;
		if (ignoring)
			say_ignored(err, who ? who : "pvspin", t, s, tail);
		else
			say_bad(err, who ? who : "pvspin", "bad", t, s, "");
	}
	return bad;
}

int pvspin_tunables_report_ignored(FILE *err, const char *who, const char *tail)
{
	return scan_env(err, who, true, tail);
}

int pvspin_tunable_env(pvspin_tunable_t t, const char **var, const char **text)
{
	uint32_t v;
	if ((unsigned)t >= PVSPIN_TUNE_COUNT)
		return 0;
	*var = tunable_env[t];
	return env_value(t, text, &v);
}

/* Does the load-time read report a bad value ("pvspin: ignoring ...")?
 * (tunables_report.h) Yes, unless the program links a strong definition that says no: the
 * `pvspin` tool does (tools/pvspin/main.c), because its subcommands that
 * take locks check the environment with pvspin_tunables_check_env() and
 * refuse a bad value (exit 2); an "ignoring" line from the library first
 * would say the opposite.  A link-time symbol, not an environment
 * variable, so that the choice is the program's and is not inherited:
 * the program `pvspin run` execs into loads its own copy (the
 * interposer), which reports as any program does, and never sees a bad
 * value (run refused it).  Weak, so that the program's definition wins;
 * hidden, so that in libpvspin.so and libpvspin-preload.so this one is
 * the only one (a program linked with libpvspin.a can override it, one
 * linked with the shared library cannot). */
__attribute__((weak)) bool pvspin_tunables_report_at_load(void)
{
	return true;
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
	bool report = pvspin_tunables_report_at_load();
	for (int t = 0; t < PVSPIN_TUNE_COUNT; t++) {
		const char *s;
		uint32_t v;
		int r = env_value(t, &s, &v);
		if (r > 0) {
			/* relaxed: published by env_state's release below */
			__atomic_store_n(&tunables[t], v, __ATOMIC_RELAXED);
		} else if (r < 0 && report) {
			say_ignored(stderr, "pvspin", t, s, NULL);
		}
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

int pvspin_tunables_check_env(FILE *err, const char *who)
{
#ifndef PVSPIN_PLATFORM_SIM
	return scan_env(err, who, false, NULL);
#else
	(void)err;
	(void)who;   /* the simulator reads no environment: nothing is bad */
	return 0;
#endif
}

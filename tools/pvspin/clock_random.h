/*
 * clock_random.h - the clock and the pseudo-random generator shared by the
 * subcommands of the `pvspin` command (bench and torture).
 */
#ifndef PVSPIN_TOOLS_CLOCK_RANDOM_H
#define PVSPIN_TOOLS_CLOCK_RANDOM_H

#include <stdint.h>
#include <time.h>

/** CLOCK_MONOTONIC in ns (vDSO, no syscall on x86 with a TSC
 *  clocksource).  Thread-safe. */
static inline uint64_t tool_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/** xorshift64* (Vigna 2016, "An experimental exploration of Marsaglia's
 *  xorshift generators, scrambled"): advance *state and return the next
 *  pseudo-random 64-bit value.  *state must be non-zero (it then never
 *  becomes zero).  Not thread-safe on a shared state: one state per
 *  thread. */
static inline uint64_t tool_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

#endif /* PVSPIN_TOOLS_CLOCK_RANDOM_H */

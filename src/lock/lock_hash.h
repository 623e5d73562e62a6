/*
 * lock_hash.h - the hash of a lock's address that the lock layer's side
 * tables index by (pvqspinlock's lock -> node hash, spinpark's wake
 * stamps).  Private to src/lock.
 */
#ifndef PVSPIN_SRC_LOCK_HASH_H
#define PVSPIN_SRC_LOCK_HASH_H

#include <stdint.h>

#include "pvspin/lock.h"
#include "pvspin/platform.h"

/** Fibonacci hashing of the lock's key (pvspin_plat_lock_key(): natively
 *  its address): the top 24 bits of the 64-bit product with 2^64 / phi
 *  (Knuth, TAOCP vol. 3, 6.4).  Reduce it to a table's size with % or,
 *  for a power of two, &.  Pure, thread-safe. */
static inline uint32_t lock_hash(const pvspin_lock_t *lock)
{
	return (uint32_t)(((uint64_t)pvspin_plat_lock_key(lock) * 0x9E3779B97F4A7C15ull) >> 40);
}

#endif /* PVSPIN_SRC_LOCK_HASH_H */

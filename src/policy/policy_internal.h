/*
 * policy_internal.h - helpers shared by the files of src/policy (private
 * to the library).
 */
#ifndef PVSPIN_SRC_POLICY_INTERNAL_H
#define PVSPIN_SRC_POLICY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "pvspin/policy.h"

/** CPUID leaf/subleaf into r[0..3] = eax, ebx, ecx, edx: from table `t`
 *  (an absent leaf reads as zeros and returns false), or with t == NULL
 *  from the CPUID instruction (false where there is none).  No heap use. */
bool pvspin_env_cpuid_get(const pvspin_env_cpuid_t *t, uint32_t leaf,
			  uint32_t subleaf, uint32_t r[4]);

/** Number of CPUs in a kernel cpulist ("0-3,8,10-11\n"); -1 if malformed.
 *  An empty list is 0. */
int pvspin_env_cpulist_count(const char *s);

#endif

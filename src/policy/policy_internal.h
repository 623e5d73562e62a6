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

/** The CPUID leaves detection reads, and which of them a table lacks. */
struct pvspin_env_cpuid_scan {
	bool hypervisor;        /* CPUID.1:ECX bit 31 */
	uint32_t hv[4];         /* leaf 0x40000000: EAX its highest leaf, then
				 * the signature; zeros without the bit */
	uint32_t kvm_base;      /* leaf of the KVM signature, 0: none found */
	uint32_t kvm_max;       /* EAX at kvm_base: that interface's highest leaf */
	uint32_t kvm[4];        /* leaf kvm_base + 1 (features, hints); zeros
				 * without KVM */
	/* absent from the table (always false for the CPUID instruction):
	 * leaf 1, leaf 0x40000000 (with the bit set), leaf kvm_base + 1 */
	bool no_leaf1, no_hv_leaf, no_kvm_leaf;
};

/**
 * Read what detection uses from table `t` (NULL: the CPUID instruction)
 * into `s`: leaf 1; with the hypervisor bit, leaf 0x40000000; then the
 * KVM interface as Linux finds it (hypervisor_cpuid_base(): every 0x100
 * leaves from 0x40000000 up to PVSPIN_CPUID_HV_SCAN_END), stopping at the
 * first range that is not a hypervisor interface (its EAX outside the
 * range, as an absent leaf's zeros are), and its leaf base + 1.  One
 * scan for pvspin_env_detect() and pvspin_env_cpuid_complete(), so that
 * the completeness check asks for exactly the leaves detection reads.
 * No heap use; thread-safe (reads only).
 */
void pvspin_env_cpuid_scan(const pvspin_env_cpuid_t *t, struct pvspin_env_cpuid_scan *s);

/** Number of CPUs in a kernel cpulist ("0-3,8,10-11\n"); -1 if malformed:
 *  not numbers and ranges, ranges not ascending and apart (an overlap
 *  such as "0-7,5" would count CPUs twice), or an id of 65536 or more.
 *  An empty list is 0. */
int pvspin_env_cpulist_count(const char *s);

#endif

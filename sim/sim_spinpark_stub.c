/*
 * sim_spinpark_stub.c - placeholders for the platform operations of the
 * spinpark kind (park/unpark on an address, the asymmetric fence, time,
 * CPUs) until the simulator models them.  The simulator does not offer
 * lock=spinpark, so none of these is reached; each aborts if it is.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pvspin/platform.h"

static void not_modelled(const char *op)
{
	fprintf(stderr, "pvspin-sim: %s is not modelled by the simulator yet\n", op);
	abort();
}

uint64_t pvspin_plat_now_ns(void) { not_modelled("now_ns"); return 0; }
int pvspin_plat_park32(uint32_t *p, uint32_t val, uint64_t timeout_ns)
{ (void)p; (void)val; (void)timeout_ns; not_modelled("park32"); return 0; }
uint32_t pvspin_plat_unpark32(uint32_t *p, uint32_t n)
{ (void)p; (void)n; not_modelled("unpark32"); return 0; }
bool pvspin_plat_fence_heavy(void) { not_modelled("fence_heavy"); return false; }
uint32_t pvspin_plat_spin_cpus(void) { not_modelled("spin_cpus"); return 1; }

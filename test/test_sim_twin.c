/*
 * test_sim_twin.c - tests of the machine twin (sim/README.md, "The machine
 * twin"): the scheduler of the profile linux-threads (a slice lasts until
 * the 4 ms tick, both pCPUs switch in phase) and the preset twin's
 * collapse of a fair lock when threads outnumber CPUs, which must come
 * from the host scheduler preempting a waiter whose turn comes (LWP): it
 * is gone when every thread has its own pCPU, and the unfair lock does not
 * collapse.  A membarrier's IPI takes the profile's membarrier_target_ns
 * from a thread computing on the other pCPU, delays a spinning one's
 * sight of its line by as much, and skips a thread that waits for a pCPU.
 * Runs of 1-100 simulated ms, about 8 s of wall time.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim.h"
#include "sim_platform.h"

static void result_free(struct sim_result *r)
{
	json_decref(r->json);
	free(r->report);
}

/* The preset twin with the blank-separated KEY=VALUEs of `list` on top. */
static void twin(struct sim_config *c, const char *list)
{
	sim_config_defaults(c);
	assert_int_equal(sim_config_preset(c, "twin", stderr), 0);
	assert_int_equal(sim_config_set_list(c, list, stderr), 0);
}

static json_t *vm0(const struct sim_result *r)
{
	return json_array_get(json_object_get(r->json, "vms"), 0);
}

static double host(const struct sim_result *r, const char *key)
{
	return json_number_value(json_object_get(json_object_get(r->json, "host"), key));
}

/* ops/s of the twin with `list`, a clean run to the end */
static double twin_ops(const char *list)
{
	struct sim_config c;
	struct sim_result r;
	twin(&c, list);
	assert_int_equal(sim_run(&c, &r), 0);
	assert_int_equal(r.stop, SIM_STOP_END);
	double ops = json_number_value(json_object_get(vm0(&r), "ops_per_s"));
	result_free(&r);
	return ops;
}

/* ---- slices on the tick ------------------------------------------------- */

#define STEP_NS 1000
#define MAX_OUTS 64
static uint64_t outs[4][MAX_OUTS];   /* per vCPU: when it was switched out */
static int nouts[4];

/* Compute in 1 us steps for 40 ms; a step that took longer was cut by a
 * switch: note when it began. */
static void guest_steps(int vm, int idx, int slot)
{
	(void)vm;
	(void)slot;
	while (sim_guest_now() < 40000000) {
		uint64_t t0 = sim_guest_now();
		sim_guest_compute(STEP_NS);
		if (sim_guest_now() - t0 > 2 * STEP_NS && nouts[idx] < MAX_OUTS)
			outs[idx][nouts[idx]++] = t0;
	}
}

/* 4 CPU-bound vCPUs on 2 pCPUs (0 and 2 on pCPU 0, 1 and 3 on pCPU 1):
 * each is switched out at a 4 ms tick (the 1.5 ms base slice rounded up
 * to it), and the two pCPUs' ticks are in phase; a run lasts a tick less
 * the switch at its start. */
static void test_twin_slices_on_tick(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	const struct sim_profile *p = sim_profile_find("linux-threads");
	assert_non_null(p);
	assert_int_equal(p->tick_ns, 4000000);
	assert_int_equal(p->slice_ns, 1500000);
	twin(&c, "vcpus=4 seconds=0.05");
	memset(nouts, 0, sizeof(nouts));
	sim_set_guest(guest_steps);
	int rc = sim_run(&c, &r);
	sim_set_guest(NULL);
	assert_int_equal(rc, 0);
	int64_t phase = -1;
	for (int v = 0; v < 4; v++) {
		/* 40 ms, about every other tick its pCPU's turn */
		assert_true(nouts[v] >= 3 && nouts[v] <= 6);
		for (int k = 0; k < nouts[v]; k++) {
			int64_t ph = (int64_t)(outs[v][k] % p->tick_ns);
			if (phase < 0)
				phase = ph;
			/* the same phase on both pCPUs, up to the jitter and
			 * a step */
			int64_t d = ph - phase;
			assert_true(d > -(int64_t)(p->tick_jitter_ns + 2 * STEP_NS) &&
				    d < (int64_t)(p->tick_jitter_ns + 2 * STEP_NS));
			/* never before the base slice ran out */
			assert_true(outs[v][k] >= p->slice_ns);
			/* its own turn and another vCPU's: 2 ticks or more */
			if (k)
				assert_true(outs[v][k] - outs[v][k - 1] >
					    2 * p->tick_ns - 2 * p->tick_jitter_ns - 3 * STEP_NS);
		}
	}
	result_free(&r);
}

/* ---- the fair locks' collapse --------------------------------------------- */

/* ticket with 4 threads on 2 CPUs: below 1/20 of its 2-thread rate (here
 * ~1/45 in 0.2 s: the first tick's burst, then a few acquisitions per
 * switch), while its spinning is on a free lock whose next waiter is
 * preempted (LWP), not on a preempted holder. */
static void test_twin_ticket_collapses(void **state)
{
	(void)state;
	double two = twin_ops("lock=ticket vcpus=2 seconds=0.1");
	struct sim_config c;
	struct sim_result r;
	twin(&c, "lock=ticket vcpus=4 seconds=0.2");
	assert_int_equal(sim_run(&c, &r), 0);
	double four = json_number_value(json_object_get(vm0(&r), "ops_per_s"));
	print_message("ticket ops/s: 2 threads %.0f, 4 threads %.0f; lwp %.0f lhp %.0f of %.0f "
		      "spin ns\n", two, four, host(&r, "lwp_ns"), host(&r, "lhp_ns"),
		      host(&r, "spin_ns"));
	assert_true(four * 20 < two);
	assert_true(host(&r, "lwp_ns") > 0.8 * host(&r, "spin_ns"));
	assert_true(host(&r, "lhp_ns") < 0.2 * host(&r, "spin_ns"));
	/* the same 4 threads on 4 CPUs: no preempted waiter, no collapse */
	double own = twin_ops("lock=ticket vcpus=4 pcpus=4 seconds=0.05");
	print_message("ticket, 4 threads on 4 pCPUs: %.0f ops/s\n", own);
	assert_true(own > two / 2);
	result_free(&r);
}

/* tas with 4 threads on 2 CPUs: any running waiter takes a free lock, so
 * it keeps a good share of its 2-thread rate (~0.55 here: it loses only
 * the slices whose holder was preempted). */
static void test_twin_tas_holds_up(void **state)
{
	(void)state;
	double two = twin_ops("lock=tas vcpus=2 seconds=0.05");
	double four = twin_ops("lock=tas vcpus=4 seconds=0.05");
	print_message("tas ops/s: 2 threads %.0f, 4 threads %.0f\n", two, four);
	assert_true(four > two / 4);
}

/* ---- membarrier's IPIs ---------------------------------------------------- */

#define MB_STEP_NS 1000
#define MB_UNTIL_NS 5000000
#define MB_EVERY_NS 100000
static int mb_fences, mb_stretched[3];
static uint64_t mb_shortest[3];

/* vCPU 0 calls a membarrier every 100 us; the others compute in 1 us steps
 * and note the steps stretched by 5 us or more (the profile's target cost
 * is 9 us) and the shortest such stretch. */
static void guest_membarrier(int vm, int idx, int slot)
{
	(void)vm;
	(void)slot;
	while (sim_guest_now() < MB_UNTIL_NS) {
		if (idx == 0) {
			sim_guest_compute(MB_EVERY_NS);
			pvspin_plat_fence_heavy();
			mb_fences++;
			continue;
		}
		uint64_t t0 = sim_guest_now();
		sim_guest_compute(MB_STEP_NS);
		uint64_t d = sim_guest_now() - t0 - MB_STEP_NS;
		if (d >= 5000 && idx < 3) {
			mb_stretched[idx]++;
			if (!mb_shortest[idx] || d < mb_shortest[idx])
				mb_shortest[idx] = d;
		}
	}
}

/* The twin with `list` on top, guest_membarrier's counts reset, run to
 * the end into *r. */
static void mb_run(const char *list, struct sim_result *r)
{
	struct sim_config c;
	twin(&c, list);
	mb_fences = 0;
	memset(mb_stretched, 0, sizeof(mb_stretched));
	memset(mb_shortest, 0, sizeof(mb_shortest));
	sim_set_guest(guest_membarrier);
	int rc = sim_run(&c, r);
	sim_set_guest(NULL);
	assert_int_equal(rc, 0);
}

/* 2 threads on 2 CPUs: each of vCPU 0's membarriers stretches one of
 * vCPU 1's steps by membarrier_target_ns, and the host counts the IPIs.
 * Before 2026-12-07 the target paid nothing (the twin could not see what
 * sleepers' fences cost a lock's holder). */
static void test_twin_membarrier_ipi_costs_target(void **state)
{
	(void)state;
	const struct sim_profile *p = sim_profile_find("linux-threads");
	assert_non_null(p);
	assert_true(p->membarrier_target_ns >= 5000);
	struct sim_result r;
	mb_run("vcpus=2 seconds=0.006", &r);
	print_message("%d membarriers; vCPU 1: %d steps stretched, the shortest by %llu ns; "
		      "host membarrier_ipis %.0f\n", mb_fences, mb_stretched[1],
		      (unsigned long long)mb_shortest[1], host(&r, "membarrier_ipis"));
	assert_true(mb_fences >= 40);
	/* a step may take two IPIs, or one may fall between steps */
	assert_true(mb_stretched[1] >= mb_fences * 3 / 4 && mb_stretched[1] <= mb_fences);
	assert_true(mb_shortest[1] >= p->membarrier_target_ns);
	assert_true(host(&r, "membarrier_ipis") >= mb_stretched[1]);
	result_free(&r);
}

/* 3 threads on 2 CPUs: vCPU 2 shares pCPU 0 with vCPU 0, so it waits for
 * the pCPU whenever vCPU 0 calls, and is no target: one target per call
 * (vCPU 1, on pCPU 1), which pays it.  Counting a thread that waits for a
 * CPU as a target (as a guest counts a vCPU its host preempted) made it
 * two. */
static void test_twin_membarrier_no_ipi_off_cpu(void **state)
{
	(void)state;
	struct sim_result r;
	mb_run("vcpus=3 seconds=0.006", &r);
	print_message("%d membarriers; stretched steps %d and %d; host membarrier_targets "
		      "%.0f\n", mb_fences, mb_stretched[1], mb_stretched[2],
		      host(&r, "membarrier_targets"));
	assert_true(mb_fences >= 10);
	assert_true(host(&r, "membarrier_targets") == mb_fences);
	assert_true(mb_stretched[1] >= mb_fences * 3 / 4 && mb_stretched[2] == 0);
	result_free(&r);
}

static bool mb_word_set(uint32_t v, uint32_t arg)
{
	(void)arg;
	return v != 0;
}

/* vCPU 0 makes a membarrier 100 us after it starts; 3 us later a thread of
 * another process (a second VM: no target of the call) writes a word that
 * vCPU 1 spins on, while vCPU 1 is still in the IPI's handler: vCPU 1
 * sees the write only once the handler is done (membarrier_target_ns
 * after the call began), not a line transfer after it. */
static uint32_t mb_word;
static uint64_t mb_start0, mb_fence_at, mb_written_at, mb_seen_at;
static void guest_membarrier_spin(int vm, int idx, int slot)
{
	(void)slot;
	if (vm == 0 && idx == 0) {
		mb_start0 = sim_guest_now();
		sim_guest_compute(100000);   /* vCPU 1 is spinning by then */
		mb_fence_at = sim_guest_now();
		pvspin_plat_fence_heavy();
	} else if (vm == 1 && idx == 0) {
		/* the first VM's vCPU 0 started first (or the test says so) */
		uint64_t at = mb_start0 + 103000, now = sim_guest_now();
		if (mb_start0 && at > now)
			sim_guest_compute(at - now);
		mb_written_at = sim_guest_now();
		pvspin_plat_store32(&mb_word, 1, PVSPIN_RELEASE);
	} else if (vm == 0 && idx == 1) {
		uint32_t v;
		while (!pvspin_plat_wait32(&mb_word, mb_word_set, 0, PVSPIN_WAIT_FOREVER, &v, NULL))
			;
		mb_seen_at = sim_guest_now();
	}
}

static void test_twin_membarrier_ipi_delays_spinner(void **state)
{
	(void)state;
	const struct sim_profile *p = sim_profile_find("linux-threads");
	struct sim_config c;
	struct sim_result r;
	twin(&c, "vms=2 vcpus=2 pcpus=4 seconds=0.001");
	mb_word = 0;
	mb_start0 = mb_fence_at = mb_written_at = mb_seen_at = 0;
	sim_set_guest(guest_membarrier_spin);
	int rc = sim_run(&c, &r);
	sim_set_guest(NULL);
	assert_int_equal(rc, 0);
	print_message("membarrier at %llu ns, word written at %llu, seen at %llu (the IPI's "
		      "handler: %llu ns)\n", (unsigned long long)mb_fence_at,
		      (unsigned long long)mb_written_at, (unsigned long long)mb_seen_at,
		      (unsigned long long)p->membarrier_target_ns);
	/* the write came while the spinner was in the handler ... */
	assert_true(mb_fence_at > 0 && mb_written_at > mb_fence_at &&
		    mb_written_at < mb_fence_at + p->membarrier_target_ns);
	/* ... which it left first */
	assert_true(mb_seen_at >= mb_fence_at + p->membarrier_target_ns);
	assert_true(mb_seen_at < mb_fence_at + p->membarrier_target_ns + 1000);
	result_free(&r);
}

/* The release mode follows the CPUs the threads may run on (the pCPUs),
 * as the native platform's does, not the thread count: 9 threads on 2
 * CPUs release by the plain store, so spinpark's first sleepers fence;
 * 4 threads on 16 CPUs (more than PVSPIN_PARK_SEQ_STORE_MAX_CPUS) release
 * by RMW and nobody fences.  It followed the vCPUs until 2026-12-07, the
 * other way round in both (helper-58). */
static void test_twin_release_mode_follows_pcpus(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	twin(&c, "lock=spinpark vcpus=9 seconds=0.05");
	assert_int_equal(sim_run(&c, &r), 0);
	double nine = host(&r, "fences_heavy"), parks9 = host(&r, "parks");
	result_free(&r);
	twin(&c, "lock=spinpark vcpus=4 pcpus=16 seconds=0.05");
	assert_int_equal(sim_run(&c, &r), 0);
	double wide = host(&r, "fences_heavy"), parks16 = host(&r, "parks");
	result_free(&r);
	print_message("fences: 9 threads on 2 CPUs %.0f (%.0f parks), 4 on 16 CPUs %.0f (%.0f "
		      "parks)\n", nine, parks9, wide, parks16);
	assert_true(parks9 > 0 && parks16 > 0);
	assert_true(nine >= 1);
	assert_true(wide == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_twin_slices_on_tick),
		cmocka_unit_test(test_twin_ticket_collapses),
		cmocka_unit_test(test_twin_tas_holds_up),
		cmocka_unit_test(test_twin_membarrier_ipi_costs_target),
		cmocka_unit_test(test_twin_membarrier_no_ipi_off_cpu),
		cmocka_unit_test(test_twin_membarrier_ipi_delays_spinner),
		cmocka_unit_test(test_twin_release_mode_follows_pcpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

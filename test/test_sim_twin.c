/*
 * test_sim_twin.c - tests of the machine twin (sim/README.md, "The machine
 * twin"): the scheduler of the profile linux-threads (a slice lasts until
 * the 4 ms tick, both pCPUs switch in phase) and the preset twin's
 * collapse of a fair lock when threads outnumber CPUs, which must come
 * from the host scheduler preempting a waiter whose turn comes (LWP): it
 * is gone when every thread has its own pCPU, and the unfair lock does not
 * collapse.  Runs of 40-100 simulated ms, about 8 s of wall time.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_twin_slices_on_tick),
		cmocka_unit_test(test_twin_ticket_collapses),
		cmocka_unit_test(test_twin_tas_holds_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

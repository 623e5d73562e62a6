/*
 * test_sim.c - tests of the hypervisor simulator (sim/): determinism, the
 * host scheduler's accounting, kick-before-halt, the deadlock report on a
 * lock that loses kicks, and the two-holders check on a broken lock.
 * Each run is a few simulated milliseconds (well under a second of wall
 * time); no assertion depends on wall time.
 */
#define _GNU_SOURCE   /* asprintf, mkstemps, open_memstream */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim.h"
#ifdef PVSPIN_INIH_RUNTIME_OPTIONS
#include <ini.h>
#endif
#include "pvspin/spinlock.h"
#include "lock/wait_note.h"

/* Free what sim_run() left in *r. */
static void result_free(struct sim_result *r)
{
	json_decref(r->json);
	free(r->report);
}

static void set(struct sim_config *c, const char *k, const char *v)
{
	assert_int_equal(sim_config_set(c, k, v, stderr), 0);
}

/* set() of each blank-separated KEY=VALUE in `list`, in order. */
static void set_all(struct sim_config *c, const char *list)
{
	char buf[512];
	assert_true(strlen(list) < sizeof(buf));
	strcpy(buf, list);
	for (char *save = NULL, *kv = strtok_r(buf, " ", &save); kv;
	     kv = strtok_r(NULL, " ", &save))
		assert_int_equal(sim_config_set_pair(c, kv, stderr), 0);
}

/* A run from the defaults with set_all(list) that must finish (sim_run()
 * returns 0); its result in *r (result_free() it). */
static void run_ok(struct sim_config *c, struct sim_result *r, const char *list)
{
	sim_config_defaults(c);
	set_all(c, list);
	assert_int_equal(sim_run(c, r), 0);
}

/* JSON of a run without the wall-clock-dependent members. */
static char *run_json(const struct sim_config *c, int *rc, enum sim_stop *stop)
{
	struct sim_result r;
	*rc = sim_run(c, &r);
	assert_non_null(r.json);
	json_object_del(r.json, "wall_seconds");
	json_object_del(r.json, "events_per_s");
	char *s = json_dumps(r.json, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	if (stop)
		*stop = r.stop;
	result_free(&r);
	return s;
}

/* Two runs of `c` give byte-identical JSON (wall-clock members aside);
 * returns the first one's (free it). */
static char *assert_deterministic(const struct sim_config *c)
{
	int rc;
	char *a = run_json(c, &rc, NULL);
	assert_int_equal(rc, 0);
	char *b = run_json(c, &rc, NULL);
	assert_int_equal(rc, 0);
	assert_string_equal(a, b);
	free(b);
	return a;
}

/* Same configuration and seed: identical JSON; another seed: different. */
static void test_determinism(void **state)
{
	(void)state;
	struct sim_config c;
	int rc;
	sim_config_defaults(&c);
	set_all(&c, "vms=2 vcpus=6 pcpus=4 nodes=2 lock=pvqspinlock workload=ebizzy "
	            "spin_threshold=256 kick_yield=1 seconds=0.01");
	char *a = assert_deterministic(&c);
	set(&c, "seed", "2");
	char *d = run_json(&c, &rc, NULL);
	assert_string_not_equal(a, d);
	free(a);
	free(d);
}

/* Where the host put the locks does not change a run: the side tables
 * of src/lock hash a lock by pvspin_plat_lock_key(), its offset in the
 * run's lock arena, not its address.  Two runs in one process have their
 * arenas at different addresses (a run's is retired, not freed: see
 * sim_engine.c, teardown), as two processes have under ASLR.  Keyed by
 * address, spinpark in kcbench-no-ple with 2 VMs (its side table read at
 * every starving waiter's decision) gave completion times that differed
 * from run to run (0.6271 and 0.6292 s for vm0 and vm1 in one process,
 * 0.6269 and 0.6289 in the next: 4 processes, 3 different figures). */
static void test_determinism_lock_addresses(void **state)
{
	(void)state;
	struct sim_config c;
	sim_config_defaults(&c);
	set_all(&c, "pcpus=32 nodes=2 profile=loongarch-3c5000 vms=2 vcpus=32 lock=spinpark "
	            "workload=kcbench pv_unhalt=1 kick_yield=0 ple=0 seconds=0.2 seed=2");
	free(assert_deterministic(&c));
}

/* A run leaves nothing behind for the next one in the same process.  The
 * lock code's wait notes (src/lock/wait_note.h: per vCPU slot, what its
 * slow paths wait on, for a fork child's repair) were never cleared
 * between runs: a run that stopped with waiters in their slow paths left
 * their notes, the next run's waiters noted at other depths and wrote
 * other lines, and two runs of one configuration could differ (after a
 * spinpark run with 5 us holds, test_ebizzy_mm's determinism check
 * failed; with other orders of the tests, others).  A run on one vCPU,
 * which never waits, must start and end with no notes. */
static void test_wait_notes_cleared_between_runs(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	run_ok(&c, &r, "vms=1 vcpus=2 pcpus=2 workload=spawn locks=1 ncs_us=0.02 cs_us=5 "
		       "seconds=0.2 lock=spinpark");
	result_free(&r);
	run_ok(&c, &r, "vms=1 vcpus=1 pcpus=1 workload=spawn locks=1 seconds=0.001 lock=spinpark");
	result_free(&r);
	int left = 0;
	for (int i = 0; i < PVSPIN_MAX_CPUS; i++)
		left += pvspin_wait_notes[i].depth != 0;
	printf("  slots with notes after a 1-vCPU run: %d\n", left);
	assert_int_equal(left, 0);
}

/* Engine regression: an overcommitted host with PLE exits and directed
 * yields re-arms slices and vCPU timers far more often than they come due,
 * so the engine overwrites stale timers in place (sim_engine.c, "event
 * heap") and counts the overwritten stale slices as the events they were.
 * These figures are those of the engine before that change (one heap entry
 * per push, every stale one popped): the run, "events" included, must stay
 * exactly what it was.  (An intended model change that moves them updates
 * them.  So does a change of the lock code the run executes: the wait
 * notes of the queued slow path (src/lock/wait_note.h, two line-local
 * stores per queued acquisition of the run's default kind, qspinlock)
 * moved them from 34066 events, ops 751/2295/2023, 1029 PLE exits, 637
 * directed yields (ops -2.1% in all) to 32722, 751/2189/2022, 587, 207;
 * the pending waiter's notes to these (ops +3.1%, +1.0% over the first
 * figures; the store buffer's model, sim_memory.c, to 33704 events,
 * ops 751/2281/2085, 547 PLE exits, 205 directed yields).  The run is
 * chaotic: three overcommitted VMs whose PLE exits and directed yields
 * move with any shift of a few ns; the same run with
 * seeds 2 and 3 moved by +0.15% and 0 in ops both times.) */
static void test_engine_events_unchanged(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	run_ok(&c, &r, "vms=3 vcpus=8 pcpus=8 workload=ebizzy seconds=0.05");
	json_t *vms = json_object_get(r.json, "vms"), *host = json_object_get(r.json, "host");
	assert_int_equal(json_integer_value(json_object_get(r.json, "events")), 33704);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(vms, 0), "ops")), 751);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(vms, 1), "ops")), 2281);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(vms, 2), "ops")), 2085);
	assert_int_equal(json_integer_value(json_object_get(host, "ple_exits")), 547);
	assert_int_equal(json_integer_value(json_object_get(host, "directed_yields")), 205);
	result_free(&r);
}

/* host counter `name` of a run's JSON */
static json_int_t host_counter(const struct sim_config *c, const char *name)
{
	struct sim_result r;
	assert_int_equal(sim_run(c, &r), 0);
	json_int_t v = json_integer_value(json_object_get(json_object_get(r.json, "host"), name));
	result_free(&r);
	return v;
}

/* kick_yield=oracle: every kicked vCPU runs the moment it is kicked, so no
 * kicked vCPU ever waits for a pCPU; oracle-cross-vm never preempts a vCPU
 * of the kicked one's own VM, so with a single VM it never boosts. */
static void test_kick_oracles(void **state)
{
	(void)state;
	struct sim_config c;
	sim_config_defaults(&c);
	set_all(&c, "vcpus=8 pcpus=2 lock=pvqspinlock workload=ebizzy ncs_us=5 "
	            "cs_us=2 spin_threshold=256 seconds=0.02 kick_yield=0");
	json_int_t vanilla_wait = host_counter(&c, "kick_wait_ns");
	json_int_t kicked_ready = host_counter(&c, "kicks_to_ready");
	print_message("vanilla: kicks to a waiting vCPU %lld, their wait %lld ns\n",
		      (long long)kicked_ready, (long long)vanilla_wait);
	assert_true(kicked_ready > 0 && vanilla_wait > 0);

	set(&c, "kick_yield", "oracle");
	assert_true(host_counter(&c, "kick_yields") > 0);
	assert_int_equal(host_counter(&c, "kick_wait_ns"), 0);

	set(&c, "kick_yield", "oracle-cross-vm");
	assert_true(host_counter(&c, "kicks_to_ready") > 0);
	assert_int_equal(host_counter(&c, "kick_yields"), 0);
	set_all(&c, "vms=2 pcpus=4");
	assert_true(host_counter(&c, "kick_yields") > 0);
}

/* ebizzy-mm on a small host with one pCPU per vCPU keeps going: a
 * shootdown IPI that reached a vCPU between two steps used to be dropped,
 * and the sender then spun for ever (8 records in 0.2 s instead of ~2 500). */
static void test_ebizzy_mm_small_host_progresses(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	run_ok(&c, &r, "preset=ebizzy-boost workload=ebizzy-mm vms=1 vcpus=4 pcpus=4 "
		       "nodes=1 seconds=0.05");
	json_int_t ops = json_integer_value(json_object_get(
		json_array_get(json_object_get(r.json, "vms"), 0), "ops"));
	print_message("records in 0.05 s: %lld\n", (long long)ops);
	assert_true(ops > 100);
	result_free(&r);
}

/* Two always-runnable vCPUs on one pCPU each get half the time (1%). */
static void test_scheduler_fair_share(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	run_ok(&c, &r, "vcpus=2 pcpus=1 "
		       "ncs_us=10000000 "   /* never reaches a lock */
		       "ncs_dist=const work=0 seconds=0.5");
	json_t *runs = json_object_get(json_array_get(json_object_get(r.json, "vms"), 0),
				       "vcpu_run_ns");
	double a = (double)json_integer_value(json_array_get(runs, 0));
	double b = (double)json_integer_value(json_array_get(runs, 1));
	print_message("run ns: %.0f %.0f\n", a, b);
	assert_true(a + b > 0.99 * 0.5e9);
	assert_true(a / (a + b) > 0.49 && a / (a + b) < 0.51);
	result_free(&r);
}

/* ---- a kick sent before the halt is not lost ---------------------------- */

static uint8_t halt_word;      /* pv_wait(&halt_word, 0): never changes */
static int woke;

static void guest_kick_first(int vm, int idx, int slot)
{
	(void)vm;
	if (idx == 0) {
		pvspin_plat_pv_kick(slot + 1);          /* kick vCPU 1 first ... */
	} else {
		sim_guest_compute(50000);               /* ... it halts 50 us later */
		pvspin_plat_pv_wait(&halt_word, 0);
		woke = 1;
	}
}

static void test_kick_before_halt(void **state)
{
	(void)state;
	struct sim_config c;
	enum sim_stop stop;
	int rc;
	sim_config_defaults(&c);
	set_all(&c, "vcpus=2 pcpus=2 seconds=0.01");
	woke = 0;
	sim_set_guest(guest_kick_first);
	free(run_json(&c, &rc, &stop));
	sim_set_guest(NULL);
	assert_int_equal(rc, 0);
	assert_int_equal(stop, SIM_STOP_DONE);
	assert_int_equal(woke, 1);

	/* and a halt nobody kicks is reported as a deadlock */
	set(&c, "lose_kicks", "1");
	woke = 0;
	sim_set_guest(guest_kick_first);
	free(run_json(&c, &rc, &stop));
	sim_set_guest(NULL);
	assert_int_equal(rc, 1);
	assert_int_equal(stop, SIM_STOP_DEADLOCK);
	assert_int_equal(woke, 0);
}

/* pvqspinlock built to lose its kicks: the run stops with a deadlock
 * report naming the lock word, the queue and the vCPUs. */
static void test_deadlock_report_lost_kicks(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	sim_config_defaults(&c);
	set_all(&c, "vcpus=4 pcpus=4 lock=pvqspinlock workload=spawn cs_us=5 "
	            "work=200 "   /* fixed work: the last vCPU finishes */
	            "spin_threshold=64 lose_kicks=1 seconds=0.05");
	assert_int_equal(sim_run(&c, &r), 1);
	assert_int_equal(r.stop, SIM_STOP_DEADLOCK);
	assert_non_null(r.report);
	assert_non_null(strstr(r.report, "DEADLOCK"));
	assert_non_null(strstr(r.report, "word 0x"));
	assert_non_null(strstr(r.report, "vCPU 0 (vm0 #0)"));
	assert_non_null(strstr(r.report, "halted"));
	assert_string_equal(json_string_value(json_object_get(r.json, "stop")), "deadlock");
	result_free(&r);

	/* the same lock with working kicks completes */
	set(&c, "lose_kicks", "0");
	assert_int_equal(sim_run(&c, &r), 0);
	result_free(&r);

	/* Throughput (the other vCPUs never finish): the first vCPU left
	 * halted with nobody to kick it stops the run (lost wake-up). */
	set_all(&c, "lose_kicks=1 work=0");
	assert_int_equal(sim_run(&c, &r), 1);
	assert_int_equal(r.stop, SIM_STOP_DEADLOCK);
	assert_non_null(strstr(r.report, "DEADLOCK (lost wake-up)"));
	assert_non_null(strstr(r.report, "no kick pending"));
	assert_non_null(strstr(r.report, "word 0x"));
	result_free(&r);
	/* and with working kicks the same throughput run is clean */
	set(&c, "lose_kicks", "0");
	assert_int_equal(sim_run(&c, &r), 0);
	result_free(&r);
}

/* A lock that lets a second vCPU in: the two-holders check fires. */
static void test_two_holders(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	sim_config_defaults(&c);
	set_all(&c, "vcpus=4 pcpus=4 workload=spawn broken_lock=1 seconds=0.05");
	assert_int_equal(sim_run(&c, &r), 1);
	assert_int_equal(r.stop, SIM_STOP_TWO_HOLDERS);
	assert_non_null(strstr(r.report, "two holders"));
	result_free(&r);

	/* the ebizzy-mm workload takes its spinlocks through its own path:
	 * the broken lock must be caught there too */
	set_all(&c, "workload=ebizzy-mm vcpus=8");
	assert_int_equal(sim_run(&c, &r), 1);
	assert_int_equal(r.stop, SIM_STOP_TWO_HOLDERS);
	result_free(&r);
}

/* Lock misuse reported by the lock code stops the run with a report. */
static pvspin_lock_t misused = PVSPIN_LOCK_INIT;

static void guest_misuse(int vm, int idx, int slot)
{
	(void)vm;
	(void)slot;
	if (idx == 0)
		pvspin_kind_unlock(PVSPIN_KIND_QSPINLOCK, &misused); /* never locked */
}

static void test_misuse_stops_run(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	sim_config_defaults(&c);
	set_all(&c, "vcpus=2 pcpus=2 seconds=0.01");
	sim_set_guest(guest_misuse);
	int rc = sim_run(&c, &r);
	sim_set_guest(NULL);
	assert_int_equal(rc, 1);
	assert_int_equal(r.stop, SIM_STOP_MISUSE);
	assert_non_null(strstr(r.report, "unlock of a lock that is not locked"));
	result_free(&r);
}

/* Every lock kind runs a contended small configuration cleanly. */
static void test_all_kinds_clean(void **state)
{
	(void)state;
	for (int k = PVSPIN_KIND_NONE + 1; k < PVSPIN_KIND_COUNT; k++) {
		struct sim_config c;
		struct sim_result r;
		sim_config_defaults(&c);
		set_all(&c, "vms=2 vcpus=4 pcpus=3");
		set(&c, "lock", pvspin_kind_name((pvspin_kind_t)k));
		set_all(&c, "workload=spawn spin_threshold=128 seconds=0.01");
		assert_int_equal(sim_run(&c, &r), 0);
		json_t *vm0 = json_array_get(json_object_get(r.json, "vms"), 0);
		assert_true(json_integer_value(json_object_get(vm0, "ops")) > 0);
		result_free(&r);
	}
}

/* vm0's count of lock event `name` in a finished run. */
static long long vm0_event(const struct sim_result *r, const char *name)
{
	json_t *vm0 = json_array_get(json_object_get(r->json, "vms"), 0);
	json_t *ev = json_object_get(json_object_get(vm0, "lock_events"), name);
	assert_true(json_is_integer(ev));
	return json_integer_value(ev);
}

/* vm0's max/min of per-vCPU operations (inf if a vCPU did none). */
static double vm0_max_min(const struct sim_result *r)
{
	json_t *vm0 = json_array_get(json_object_get(r->json, "vms"), 0);
	json_t *ops = json_object_get(vm0, "vcpu_ops");
	assert_true(json_is_array(ops) && json_array_size(ops) > 0);
	double lo = 0, hi = 0;
	for (size_t i = 0; i < json_array_size(ops); i++) {
		double x = (double)json_integer_value(json_array_get(ops, i));
		lo = i == 0 || x < lo ? x : lo;
		hi = i == 0 || x > hi ? x : hi;
	}
	return lo > 0 ? hi / lo : INFINITY;
}

/* spinpark's slice mode is chosen by measurement (src/lock/spinpark_slice.c):
 * with 2 vCPUs on one lock, in two nodes (every hand-off a remote line
 * transfer, as this project's AMD guest with its vCPUs apart), and
 * non-critical sections shorter than the critical ones (20 ns against
 * 50 ns), one vCPU running alone does more than hand-offs, so the probe
 * keeps slices and waiters sleep through them; with non-critical sections
 * 6 times the critical ones (one node) the two interleave (4.3 M ops/s,
 * 227 000 spin acquisitions in 0.2 s), the controller probes slices and
 * drops them each time.  Either choice made the other way fails here, and
 * so does a controller that never probes.  (Until 2026-12-07 the first
 * case ran in one node; since the unregistered spin reads the word after
 * gaps (spinpark.c), shared mode there does 9.98 M ops/s against the
 * slices' 10.28 M, inside the 10 % margin, and stays shared.) */
#define SLICE_WINS_CONFIG \
	"vms=1 vcpus=2 pcpus=2 nodes=2 workload=spawn locks=1 ncs_us=0.02 cs_us=0.05 seconds=0.2 " \
	"lock=spinpark"
#define SLICE_LOSES_CONFIG \
	"vms=1 vcpus=2 pcpus=2 workload=spawn locks=1 ncs_us=0.3 cs_us=0.05 seconds=0.2 lock=spinpark"
static void test_spinpark_slice_mode(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	run_ok(&c, &r, SLICE_WINS_CONFIG);
	long long on = vm0_event(&r, "slice_on"), sleeps = vm0_event(&r, "slice_sleep");
	printf("  slices win: slice_on %lld, slice_sleep %lld\n", on, sleeps);
	assert_true(on >= 2);   /* chosen again after its exploit period */
	assert_true(sleeps >= 100);   /* 0.2 s of 250 us slices, most of it sliced */
	result_free(&r);

	run_ok(&c, &r, SLICE_LOSES_CONFIG);
	long long probes = vm0_event(&r, "slice_probe");
	on = vm0_event(&r, "slice_on");
	sleeps = vm0_event(&r, "slice_sleep");
	printf("  slices lose: slice_probe %lld, slice_on %lld, slice_sleep %lld\n", probes, on,
	       sleeps);
	assert_true(probes >= 2);
	assert_int_equal(on, 0);
	result_free(&r);

	/* 32 vCPUs on the sliced lock: the sleepers' slices stretch with
	 * their number (SP_SLICE_SLEEPERS a slice), so 0.2 s has about 3 100
	 * slice sleeps, not the 24 000 of every sleeper waking every slice */
	run_ok(&c, &r, "vms=1 vcpus=32 pcpus=32 workload=spawn locks=1 ncs_us=0.02 cs_us=0.05 "
		       "seconds=0.2 lock=spinpark");
	on = vm0_event(&r, "slice_on");
	sleeps = vm0_event(&r, "slice_sleep");
	double max_min32 = vm0_max_min(&r);
	printf("  32 vCPUs: slice_on %lld, slice_sleep %lld, max/min %.3f\n", on, sleeps, max_min32);
	assert_true(on >= 1);
	assert_true(sleeps > 0 && sleeps < 6000);
	/* 31 sleepers, all in the entry's cells (64), so each pass chooses
	 * by count: 1.08 (with 16 cells, half of them slept FIFO: 1.16) */
	assert_true(max_min32 <= 1.12);
	result_free(&r);

	/* 8 vCPUs on the sliced lock: turns end by count and pass to the
	 * least served sleeper, which takes the lock by a hand-off, so the
	 * vCPUs' acquisitions come out nearly equal (max/min 1.01 here;
	 * 1.21 when turns ended by the clock, 1.12-2.31 when passed FIFO) */
	run_ok(&c, &r, "vms=1 vcpus=8 pcpus=8 workload=spawn locks=1 ncs_us=0.02 cs_us=0.05 "
		       "seconds=0.2 lock=spinpark");
	long long handoffs = vm0_event(&r, "handoff"), passes = vm0_event(&r, "slice_pass");
	double max_min = vm0_max_min(&r);
	printf("  8 vCPUs: slice_on %lld, slice_pass %lld, handoff %lld, max/min %.3f\n",
	       vm0_event(&r, "slice_on"), passes, handoffs, max_min);
	assert_true(vm0_event(&r, "slice_on") >= 1);
	assert_true(passes >= 100);
	assert_true(handoffs >= 50);
	assert_true(max_min <= 1.10);
	result_free(&r);
}

/* A shared probe of spinpark's controller that counts fewer than 256
 * unlocks (2 vCPUs, 5 us holds: about 200 a ms) chooses nothing: the
 * lock stays shared and probes again after 16 ms, not after an exploit
 * period of 128-512 ms, so that a lock whose first probe fell short (a
 * new lock's, or one at the edge of 256 a ms) is measured again soon.
 * 11 probes in 0.2 s; the code before, which took a short probe for a
 * choice of shared mode, 2. */
static void test_spinpark_short_probe_again(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	run_ok(&c, &r, "vms=1 vcpus=2 pcpus=2 workload=spawn locks=1 ncs_us=0.02 cs_us=5 "
		       "seconds=0.2 lock=spinpark");
	long long probes = vm0_event(&r, "slice_probe");
	printf("  5 us holds: slice_probe %lld, slice_on %lld\n", probes, vm0_event(&r, "slice_on"));
	assert_true(probes >= 8);
	result_free(&r);
}

/* spinpark's spin budget learns from evidence on the holds, not from a
 * waiter's wait for its turn: in spawn-dedicated (120 vCPUs, one hot lock,
 * 0.4 us holds) most waiters find the spinners full and park, and wait
 * long for their turn.  When their long waits lowered the budget, it fell
 * to 16 loops and 7 786 of 16 447 spins in 0.02 s ran out (spinpark 0.800
 * of the ticket lock on this profile, sim/compare_kinds.sh); counted only
 * after a spin that ran out on a lock held all along, 8 of 11 339 do
 * (0.884). */
static void test_spinpark_budget_not_lowered_by_turns(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	run_ok(&c, &r, "preset=spawn-dedicated profile=amd-epyc lock=spinpark seconds=0.02");
	long long ok = vm0_event(&r, "spin_acquire"), out = vm0_event(&r, "spin_fail");
	printf("  spawn-dedicated: spin_acquire %lld, spin_fail %lld\n", ok, out);
	assert_true(ok > 1000);
	assert_true(out * 20 < ok + out);   /* fewer than 5 % of the spins run out */
	result_free(&r);
}

/* A vCPU whose last unlock wakes a parked vCPU onto its own pCPU is
 * preempted there, and finishes only when it runs again: before the fix
 * vcpu_finish() marked the pCPU's new vCPU done instead (this seed left
 * vm1 one vCPU short, parked for ever with 281 of its 300 operations). */
static void test_finish_after_waking_onto_own_pcpu(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	run_ok(&c, &r, "preset=kcbench-no-ple vms=2 lock=spinpark seed=3");
	assert_int_equal(r.stop, SIM_STOP_DONE);
	json_t *vms = json_object_get(r.json, "vms");
	for (size_t i = 0; i < json_array_size(vms); i++)
		assert_true(json_is_number(json_object_get(json_array_get(vms, i), "completion_s")));
	result_free(&r);
}

static void test_config_errors(void **state)
{
	(void)state;
	struct sim_config c;
	FILE *null = fopen("/dev/null", "w");
	sim_config_defaults(&c);
	assert_int_equal(sim_config_set(&c, "nope", "1", null), -1);
	assert_int_equal(sim_config_set(&c, "vms", "0", null), -1);
	assert_int_equal(sim_config_set(&c, "vms", "2x", null), -1);
	assert_int_equal(sim_config_set(&c, "profile", "vax", null), -1);
	/* every numeric key is range-checked: no value reaches the core to crash it */
	assert_int_equal(sim_config_set(&c, "slice_us", "0", null), -1);
	assert_int_equal(sim_config_set(&c, "slice_us", "0.0001", null), -1);
	assert_int_equal(sim_config_set(&c, "slice_us", "-0.5", null), -1);
	assert_int_equal(sim_config_set(&c, "slice_us", "nan", null), -1);
	assert_int_equal(sim_config_set(&c, "slice_us", "-1", null), 0);
	assert_int_equal(sim_config_set(&c, "slice_us", "1", null), 0);
	assert_int_equal(sim_config_set(&c, "halt_poll_us", "-2", null), -1);
	assert_int_equal(sim_config_set(&c, "halt_poll_us", "0", null), 0);
	assert_int_equal(sim_config_set(&c, "sample_us", "0", null), -1);
	assert_int_equal(sim_config_set(&c, "hot", "1.5", null), -1);
	assert_int_equal(sim_config_set(&c, "seconds", "1e400", null), -1);
	assert_int_equal(sim_config_set(&c, "seed", "-1", null), -1);
	/* a scenario path that is a directory is a file failure (-2) */
	assert_int_equal(sim_config_load_ini(&c, "/", null), -2);
	assert_int_equal(sim_config_load_ini(&c, "/nonexistent/x.ini", null), -2);
	assert_int_equal(sim_config_preset(&c, "nope", null), -1);
	assert_int_equal(sim_config_preset(&c, "spawn-dedicated", null), 0);
	assert_int_equal(sim_config_set(&c, "vms", "2", null), 0);
	assert_int_equal(sim_config_check(&c, null), -1);   /* 240 dedicated > 120 */
	/* NUMA nodes split the pCPUs evenly: nodes must divide pcpus */
	sim_config_defaults(&c);
	assert_int_equal(sim_config_set(&c, "nodes", "3", null), 0);
	assert_int_equal(sim_config_check(&c, null), -1);   /* 4 pCPUs in 3 nodes */
	assert_int_equal(sim_config_set(&c, "pcpus", "6", null), 0);
	assert_int_equal(sim_config_check(&c, null), 0);
	assert_int_equal(sim_config_set(&c, "nodes", "7", null), 0);
	assert_int_equal(sim_config_check(&c, null), -1);   /* more nodes than pCPUs */
	fclose(null);
}

/* INI scenario files: the keys of --set, a preset first, per-VM keys. */
static void test_ini_scenario(void **state)
{
	(void)state;
	struct sim_config c;
	char path[] = "/tmp/test_sim_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "; a scenario\n[scenario]\npreset = kcbench-no-ple\nvms = 2\n"
		   "vm1.lock = pvqspinlock\nseed = 9\n");
	fclose(f);
	sim_config_defaults(&c);
	assert_int_equal(sim_config_load_ini(&c, path, stderr), 0);
	assert_int_equal(c.vms, 2);
	assert_int_equal(c.pcpus, 32);
	assert_int_equal(c.lock, PVSPIN_KIND_QSPINLOCK);
	assert_int_equal(c.vm_lock[1], PVSPIN_KIND_PVQSPINLOCK);
	assert_int_equal(c.seed, 9);
	assert_int_equal(sim_config_check(&c, stderr), 0);
	f = fopen(path, "w");
	fprintf(f, "vms = two\n");
	fclose(f);
	FILE *null = fopen("/dev/null", "w");
	assert_int_equal(sim_config_load_ini(&c, path, null), -1);

	/* an unknown section is a file failure (-2), even without keys; the
	 * message names the file, the line and the valid sections */
	f = fopen(path, "w");
	fprintf(f, "vms = 2\n\n[bogus]\n");
	fclose(f);
	char *msg = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&msg, &len);
	assert_int_equal(sim_config_load_ini(&c, path, m), -2);
	fclose(m);
	char want[64];
	snprintf(want, sizeof(want), "%s:3: unknown section [bogus]", path);
	assert_non_null(strstr(msg, want));
	assert_non_null(strstr(msg, "valid sections: [scenario]"));
	free(msg);
	/* a bad key names its line */
	f = fopen(path, "w");
	fprintf(f, "[sim]\nvms = 3\nfoo = 1\n");
	fclose(f);
	m = open_memstream(&msg, &len);
	assert_int_equal(sim_config_load_ini(&c, path, m), -1);
	fclose(m);
	snprintf(want, sizeof(want), "%s:3: in the line 'foo = 1'", path);
	assert_non_null(strstr(msg, want));
	free(msg);
	/* [sim] is the other valid section */
	f = fopen(path, "w");
	fprintf(f, "[sim]\nvms = 3\n");
	fclose(f);
	assert_int_equal(sim_config_load_ini(&c, path, null), 0);
	assert_int_equal(c.vms, 3);
	fclose(null);
	unlink(path);
}

/* Write `text` to a new temporary scenario file; returns its path (free it). */
static char *scenario_file(const char *text, const char *suffix)
{
	char *path = NULL;
	assert_true(asprintf(&path, "/tmp/test_sim_XXXXXX%s", suffix) > 0);
	int fd = mkstemps(path, (int)strlen(suffix));
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* sim_config_load_ini() of `text`; returns its result, the messages in *msg
 * (free it). */
static int load_ini_text(struct sim_config *c, const char *text, char **msg)
{
	char *path = scenario_file(text, ".ini");
	size_t len = 0;
	FILE *m = open_memstream(msg, &len);
	int rc = sim_config_load_ini(c, path, m);
	fclose(m);
	unlink(path);
	free(path);
	return rc;
}

/* `preset = NAME` anywhere in an INI file is applied first, then every
 * other key in file order (as in a JSON scenario): the keys before the
 * preset line are not thrown away.  Two preset lines are an error, as
 * two lines of any other key. */
static void test_ini_preset_anywhere(void **state)
{
	(void)state;
	struct sim_config c;
	char *msg;
	sim_config_defaults(&c);
	assert_int_equal(load_ini_text(&c, "seconds = 0.002\nvms = 2\npreset = smoke\n"
					   "lock = tas\n", &msg), 0);
	free(msg);
	assert_true(c.seconds == 0.002);
	assert_int_equal(c.vms, 2);
	assert_int_equal(c.lock, PVSPIN_KIND_TAS);
	assert_int_equal(c.pcpus, 4);               /* smoke's */
	assert_string_equal(c.preset, "smoke");
	assert_int_equal(sim_config_check(&c, stderr), 0);

	sim_config_defaults(&c);
	/* a malformed file (-2, exit 1), as any key given twice and as a
	 * JSON duplicate: not a usage error (-1, exit 2) */
	assert_int_equal(load_ini_text(&c, "preset = smoke\nvms = 2\npreset = smoke\n", &msg), -2);
	assert_non_null(strstr(msg, ":3: 'preset' given twice (lines 1 and 3)"));
	free(msg);

	/* any other key given twice: an error naming both lines */
	sim_config_defaults(&c);
	assert_int_equal(load_ini_text(&c, "vms = 2\nlock = tas\nvms = 3\n", &msg), -2);
	assert_non_null(strstr(msg, ":3: 'vms' given twice (lines 1 and 3)"));
	free(msg);
}

/* vmN.KEY: N from 0 to 63, never wrapped (2^32 is not VM 0). */
static void test_per_vm_key_number(void **state)
{
	(void)state;
	struct sim_config c;
	char *msg = NULL;
	size_t len = 0;
	sim_config_defaults(&c);
	FILE *m = open_memstream(&msg, &len);
	assert_int_equal(sim_config_set(&c, "vm4294967296.lock", "tas", m), -1);
	assert_int_equal(sim_config_set(&c, "vm4294967297.kick_yield", "1", m), -1);
	assert_int_equal(sim_config_set(&c, "vm18446744073709551616.ple", "0", m), -1);
	assert_int_equal(sim_config_set(&c, "vm64.lock", "tas", m), -1);
	fclose(m);
	assert_non_null(strstr(msg, "bad key 'vm4294967296.lock': VM numbers go from 0 to 63"));
	free(msg);
	for (int i = 0; i < SIM_MAX_VMS; i++) {
		assert_int_equal(c.vm_lock[i], PVSPIN_KIND_NONE);
		assert_int_equal(c.vm_kick_yield[i], -1);
		assert_int_equal(c.vm_ple[i], -1);
	}
	set(&c, "vm63.lock", "tas");
	assert_int_equal(c.vm_lock[63], PVSPIN_KIND_TAS);
}

/* vmN.KEY: N in canonical decimal only.  A leading zero, a sign, a blank
 * or any other character in N is refused, naming the key and the number
 * (vm00.lock was taken as vm0.lock, vm01.lock as vm1.lock); the
 * configuration is left as it was. */
static void test_per_vm_key_not_canonical(void **state)
{
	(void)state;
	static const struct { const char *key, *num; } bad_keys[] = {
		{ "vm00.lock", "00" }, { "vm01.lock", "01" }, { "vm007.ple", "007" },
		{ "vm+1.lock", "+1" }, { "vm-1.lock", "-1" }, { "vm 1.lock", " 1" },
		{ "vm1 .lock", "1 " }, { "vm0x.lock", "0x" }, { "vm0x1.kick_yield", "0x1" },
		{ "vm.steal_time", "" },
	};
	struct sim_config c;
	sim_config_defaults(&c);
	for (size_t i = 0; i < sizeof(bad_keys) / sizeof(bad_keys[0]); i++) {
		char *msg = NULL, want[128];
		size_t len = 0;
		const char *key = bad_keys[i].key;
		/* a value the key itself would take */
		const char *value = strstr(key, ".lock") ? "tas" : "1";
		FILE *m = open_memstream(&msg, &len);
		assert_int_equal(sim_config_set(&c, key, value, m), -1);
		fclose(m);
		snprintf(want, sizeof(want), "pvspin sim: bad key '%s': '%s' is not a VM number; ",
			 key, bad_keys[i].num);
		if (!strstr(msg, want) || !strstr(msg, "vm0 to vm63"))
			fail_msg("%s: got '%s'", key, msg);
		free(msg);
	}
	for (int i = 0; i < SIM_MAX_VMS; i++) {
		assert_int_equal(c.vm_lock[i], PVSPIN_KIND_NONE);
		assert_int_equal(c.vm_ple[i], -1);
		assert_int_equal(c.vm_kick_yield[i], -1);
	}
	/* not configuration keys either (a JSON scenario's top level) */
	assert_false(sim_config_key_exists("vm00.lock"));
	assert_false(sim_config_key_exists("vm+1.lock"));
	assert_true(sim_config_key_exists("vm0.lock"));
	assert_true(sim_config_key_exists("vm10.lock"));
	set(&c, "vm10.lock", "tas");
	assert_int_equal(c.vm_lock[10], PVSPIN_KIND_TAS);
}

/* A key that starts like vmN but is not vmN.KEY is an unknown key, with a
 * message listing the valid keys (it used to fail without a word). */
static void test_per_vm_key_typos(void **state)
{
	(void)state;
	static const char *const typos[] = { "vm0lock", "vm1_lock", "vm0", "vm12", "vm0x.bogus",
					     "vm0 .bogus", "vm0.", "vm" };
	struct sim_config c;
	sim_config_defaults(&c);
	for (size_t i = 0; i < sizeof(typos) / sizeof(typos[0]); i++) {
		char *msg = NULL, want[64];
		size_t len = 0;
		FILE *m = open_memstream(&msg, &len);
		assert_int_equal(sim_config_set(&c, typos[i], "tas", m), -1);
		fclose(m);
		snprintf(want, sizeof(want), "unknown key '%s'; valid keys: vms", typos[i]);
		if (!strstr(msg, want))
			fail_msg("%s: got '%s'", typos[i], msg);
		assert_non_null(strstr(msg, "vmN.lock"));
		free(msg);
	}
}

/* An indented line is a KEY = VALUE line of its own, not a continuation of
 * the previous value (inih's multi-line values); errors quote the line as
 * it is in the file.  A KEY: VALUE line is not INI here. */
static void test_ini_indented_line(void **state)
{
	(void)state;
	struct sim_config c;
	char *msg;
	sim_config_defaults(&c);
	assert_int_equal(load_ini_text(&c, "preset = smoke\n  vms = 2\n\tlock = tas\n", &msg), 0);
	free(msg);
	assert_string_equal(c.preset, "smoke");
	assert_int_equal(c.vms, 2);
	assert_int_equal(c.lock, PVSPIN_KIND_TAS);

	assert_int_equal(load_ini_text(&c, "vms = 2\n  lock = mutex\n", &msg), -1);
	if (!strstr(msg, ":2: in the line '  lock = mutex'\n"))
		fail_msg("got '%s'", msg);
	free(msg);
	/* an indented text that is not KEY = VALUE is not INI, at its own line */
	assert_int_equal(load_ini_text(&c, "vms = 2\n  more text\nlock = tas\n", &msg), -2);
	if (!strstr(msg, ":2: not an INI"))
		fail_msg("got '%s'", msg);
	free(msg);
	/* "KEY: VALUE" too (inih's other separator), and it takes nothing;
	 * KEY = VALUE lines still do */
	sim_config_defaults(&c);
	assert_int_equal(load_ini_text(&c, "preset = smoke\nvms: 2\n", &msg), -2);
	if (!strstr(msg, ":2: not an INI"))
		fail_msg("got '%s'", msg);
	free(msg);
	assert_int_equal(c.vms, 1);
	assert_int_equal(load_ini_text(&c, "vms = 2\nvm1.lock = tas\n", &msg), 0);
	free(msg);
	assert_int_equal(c.vms, 2);
}


/* '#' and ';' comments, at the start of a line and after a value, whatever
 * comment characters libinih was built (Debian: configured at run time)
 * to accept: here it is configured to take only ';', as a libinih built
 * with other INI_*_COMMENT_PREFIXES would be. */
static void test_ini_comments(void **state)
{
	(void)state;
	struct sim_config c;
	char *msg;
#ifdef PVSPIN_INIH_RUNTIME_OPTIONS
	char semicolon[] = ";";
	char *start = ini_start_comment_prefixes, *in_line = ini_inline_comment_prefixes;
	ini_start_comment_prefixes = semicolon;
	ini_inline_comment_prefixes = semicolon;
#endif
	sim_config_defaults(&c);
	int rc = load_ini_text(&c, "# a comment\n; another\n[scenario] # section\n"
			       "vms = 2 # two\nlock = tas ; unfair\n", &msg);
#ifdef PVSPIN_INIH_RUNTIME_OPTIONS
	ini_start_comment_prefixes = start;
	ini_inline_comment_prefixes = in_line;
#endif
	if (rc)
		fail_msg("rc %d: '%s'", rc, msg);
	free(msg);
	assert_int_equal(c.vms, 2);
	assert_int_equal(c.lock, PVSPIN_KIND_TAS);
}

/* mm counter `name` of a run's JSON (ebizzy-mm only) */
static json_int_t mm_counter(json_t *root, const char *name)
{
	json_t *mm = json_object_get(root, "mm");
	assert_non_null(mm);
	return json_integer_value(json_object_get(mm, name));
}

/* ebizzy-mm's guest threads (sim_guest_sched.c; ebizzy starts 2 x CPUs
 * threads): with one thread per vCPU every sleep on mmap_sem idles the
 * vCPU; with two, a vCPU runs its other thread while one sleeps, so a
 * clear share of the sleeps idles nothing, woken threads move to idle
 * vCPUs, and a fixed-work run still finishes on every vCPU. */
static void test_ebizzy_mm_guest_threads(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	run_ok(&c, &r, "vcpus=16 pcpus=16 nodes=2 lock=pvqspinlock workload=ebizzy-mm "
		       "seconds=0.02 threads=1");
	json_int_t waits1 = mm_counter(r.json, "mm_waits");
	json_int_t idle1 = mm_counter(r.json, "idle_halts");
	assert_int_equal(mm_counter(r.json, "thread_switches"), 0);
	assert_int_equal(mm_counter(r.json, "threads_per_vcpu"), 1);
	result_free(&r);

	set(&c, "threads", "2");
	free(assert_deterministic(&c));
	assert_int_equal(sim_run(&c, &r), 0);
	json_int_t waits2 = mm_counter(r.json, "mm_waits");
	json_int_t idle2 = mm_counter(r.json, "idle_halts");
	json_int_t sw = mm_counter(r.json, "thread_switches");
	json_int_t mig = mm_counter(r.json, "thread_migrations");
	print_message("ebizzy-mm threads=1: %lld sleeps, %lld idle halts; threads=2: %lld "
		      "sleeps, %lld idle halts, %lld switches, %lld migrations\n",
		      (long long)waits1, (long long)idle1, (long long)waits2, (long long)idle2,
		      (long long)sw, (long long)mig);
	assert_int_equal(mm_counter(r.json, "threads_per_vcpu"), 2);
	assert_true(waits1 > 100 && waits2 > 100);
	/* one thread: a sleep idles the vCPU unless a wake-up is already
	 * pending; two: at least a tenth of the sleeps are covered */
	assert_true(idle1 * 100 >= waits1 * 95);
	assert_true(idle2 * 10 <= waits2 * 9);
	assert_true(sw > 0 && mig > 0);
	result_free(&r);

	/* fixed work: every vCPU finishes (its threads exit one by one) */
	set_all(&c, "work=20 seconds=1");
	assert_int_equal(sim_run(&c, &r), 0);
	json_t *vms = json_object_get(r.json, "vms");
	assert_true(json_is_number(json_object_get(json_array_get(vms, 0), "completion_s")));
	result_free(&r);
	/* mm_madvise: no writer, so nobody sleeps and every shootdown goes
	 * to (nearly) every other vCPU; overcommitted without PV TLB flush
	 * every vCPU may be spinning in a shootdown at once, which is not a
	 * deadlock (the acks are on their way) */
	set_all(&c, "work=0 seconds=0.01 mm_madvise=1");
	assert_int_equal(sim_run(&c, &r), 0);
	json_int_t md_shoot = mm_counter(r.json, "tlb_shootdowns");
	assert_int_equal(mm_counter(r.json, "mm_waits"), 0);
	assert_true(md_shoot > 0 && mm_counter(r.json, "tlb_ipis") * 10 >= md_shoot * 15 * 8);
	result_free(&r);
	set_all(&c, "vms=2 pcpus=8 steal_time=0");
	assert_int_equal(sim_run(&c, &r), 0);
	assert_true(mm_counter(r.json, "tlb_wait_ns") > 0);
	result_free(&r);
	/* the size where it happens: 2 x 80 vCPUs, seed 1, at 15.6 ms every
	 * vCPU spins in a shootdown (the check reported a deadlock) */
	set_all(&c, "vcpus=80 pcpus=80 seconds=0.016 seed=1");
	assert_int_equal(sim_run(&c, &r), 0);
	assert_int_equal(r.stop, SIM_STOP_END);
	result_free(&r);
	set_all(&c, "vcpus=16 pcpus=8 seconds=0.01");
	set(&c, "mm_madvise", "0");
	set(&c, "steal_time", "1");
	for (int k = PVSPIN_KIND_QSPINLOCK; k <= PVSPIN_KIND_TICKET; k++) {
		set_all(&c, "vms=2 vcpus=8 pcpus=8 work=0 seconds=0.01");
		set(&c, "lock", pvspin_kind_name((pvspin_kind_t)k));
		assert_int_equal(sim_run(&c, &r), 0);
		result_free(&r);
	}
}

/* ebizzy-mm: runs clean, is deterministic, and a TLB shootdown waits for
 * a target that has IRQs off (waits for or holds an IRQ-safe spinlock):
 * such acks exist, each took at least the handler's time, and the
 * sender waited.  Without steal_time no preempted target is skipped. */
static void test_ebizzy_mm(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	sim_config_defaults(&c);
	set_all(&c, "vcpus=16 pcpus=16 nodes=2 lock=pvqspinlock workload=ebizzy-mm "
	            "seconds=0.01");
	free(assert_deterministic(&c));

	/* 40 vCPUs on 40 pCPUs: enough wait_lock traffic that some targets
	 * have IRQs off when the IPI comes; their acks must come later than
	 * the others' (which ack on delivery), by more than the 1 us handler */
	set_all(&c, "vcpus=40 pcpus=40 seconds=0.015");
	assert_int_equal(sim_run(&c, &r), 0);
	json_int_t shoot = mm_counter(r.json, "tlb_shootdowns");
	json_int_t ipis = mm_counter(r.json, "tlb_ipis");
	json_int_t irqoff = mm_counter(r.json, "tlb_acks_irqoff");
	json_int_t irqoff_ns = mm_counter(r.json, "tlb_ack_irqoff_ns");
	json_int_t ack_ns = mm_counter(r.json, "tlb_ack_ns");
	print_message("ebizzy-mm: %lld shootdowns, %lld IPIs, %lld acks delayed by IRQs off "
		      "(%lld ns), all acks %lld ns\n", (long long)shoot, (long long)ipis,
		      (long long)irqoff, (long long)irqoff_ns, (long long)ack_ns);
	assert_true(shoot > 0);
	assert_true(mm_counter(r.json, "tlb_wait_ns") > 0);
	assert_true(irqoff >= 10 && ipis > irqoff);
	double mean_off = (double)irqoff_ns / (double)irqoff;
	double mean_on = (double)(ack_ns - irqoff_ns) / (double)(ipis - irqoff);
	assert_true(mean_off > mean_on + 1000.0);
	assert_true(mm_counter(r.json, "idle_halts") > 0);
	result_free(&r);

	/* two overcommitted VMs without steal time: nothing skipped as
	 * preempted, every lock kind still runs clean */
	set_all(&c, "vms=2 vcpus=16 pcpus=8 seconds=0.01 steal_time=0");
	assert_int_equal(sim_run(&c, &r), 0);
	assert_int_equal(mm_counter(r.json, "tlb_skip_preempted"), 0);
	result_free(&r);
	for (int k = PVSPIN_KIND_QSPINLOCK; k <= PVSPIN_KIND_TICKET; k++) {
		set(&c, "lock", pvspin_kind_name((pvspin_kind_t)k));
		assert_int_equal(sim_run(&c, &r), 0);
		result_free(&r);
	}
}

/* ---- --seeds (sim_seeds.c) ------------------------------------------------ */

/* The spread of summary node `o`: its median, min and max as doubles. */
static void spread(json_t *o, double *med, double *lo, double *hi)
{
	assert_true(json_is_object(o));
	assert_int_equal(json_object_size(o), 3);
	*med = json_number_value(json_object_get(o, "median"));
	*lo = json_number_value(json_object_get(o, "min"));
	*hi = json_number_value(json_object_get(o, "max"));
}

/* Median / min / max of every number, arrays element by element; integers
 * stay integers (odd count); other values: kept if equal, else "values". */
static void test_seeds_summary(void **state)
{
	(void)state;
	json_t *d[4];
	double m, lo, hi;
	d[0] = json_pack("{s:{s:I},s:i,s:f,s:s,s:[i,i],s:n,s:{s:i}}", "config", "seed", (json_int_t)1,
			 "ops", 30, "pct", 2.5, "stop", "end", "per", 1, 10, "completion_s",
			 "host", "kicks", 7);
	d[1] = json_pack("{s:{s:I},s:i,s:f,s:s,s:[i,i],s:f,s:{s:i}}", "config", "seed", (json_int_t)2,
			 "ops", 10, "pct", 0.5, "stop", "end", "per", 3, 30, "completion_s", 0.25,
			 "host", "kicks", 9);
	d[2] = json_pack("{s:{s:I},s:i,s:f,s:s,s:[i,i],s:n,s:{s:i},s:s}", "config", "seed",
			 (json_int_t)3, "ops", 20, "pct", 1.5, "stop", "deadlock", "per", 2, 20,
			 "completion_s", "host", "kicks", 8, "report", "DEADLOCK");
	json_t *s = sim_seeds_summary(d, 3);
	assert_null(json_object_get(s, "config"));
	json_t *ops = json_object_get(s, "ops");
	assert_true(json_is_integer(json_object_get(ops, "median")));
	assert_int_equal(json_integer_value(json_object_get(ops, "median")), 20);
	assert_int_equal(json_integer_value(json_object_get(ops, "min")), 10);
	assert_int_equal(json_integer_value(json_object_get(ops, "max")), 30);
	spread(json_object_get(s, "pct"), &m, &lo, &hi);
	assert_true(m == 1.5 && lo == 0.5 && hi == 2.5);
	spread(json_array_get(json_object_get(s, "per"), 1), &m, &lo, &hi);
	assert_true(m == 20 && lo == 10 && hi == 30);
	spread(json_object_get(json_object_get(s, "host"), "kicks"), &m, &lo, &hi);
	assert_true(m == 8 && lo == 7 && hi == 9);
	/* the stops differ: one value per seed; a missing report is null */
	json_t *st = json_object_get(json_object_get(s, "stop"), "values");
	assert_int_equal(json_array_size(st), 3);
	assert_string_equal(json_string_value(json_array_get(st, 2)), "deadlock");
	/* null in two seeds, a number in one: not a spread */
	assert_int_equal(json_array_size(json_object_get(json_object_get(s, "completion_s"),
							 "values")), 3);
	assert_null(json_object_get(s, "report"));   /* not in the first document */
	json_decref(s);
	/* an even count: the median is the mean of the middle two (a real) */
	d[2] = (json_decref(d[2]), json_pack("{s:i,s:s}", "ops", 20, "stop", "end"));
	d[3] = json_pack("{s:i,s:s}", "ops", 25, "stop", "end");
	json_t *e[4] = { json_pack("{s:i,s:s}", "ops", 30, "stop", "end"),
			 json_pack("{s:i,s:s}", "ops", 10, "stop", "end"), d[2], d[3] };
	s = sim_seeds_summary(e, 4);
	ops = json_object_get(s, "ops");
	assert_true(json_is_real(json_object_get(ops, "median")));
	assert_true(json_real_value(json_object_get(ops, "median")) == 22.5);
	assert_string_equal(json_string_value(json_object_get(s, "stop")), "end");
	json_decref(s);
	for (int i = 0; i < 4; i++)
		json_decref(e[i]);
	json_decref(d[0]);
	json_decref(d[1]);
}

/* `doc` without its wall-clock members, as text (free it). */
static char *without_wall(json_t *doc)
{
	json_t *c = json_deep_copy(doc);
	json_object_del(c, "wall_seconds");
	json_object_del(c, "events_per_s");
	json_object_del(c, "report");   /* has addresses */
	char *s = json_dumps(c, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	json_decref(c);
	return s;
}

/* sim_run_seeds(): each seed's document is that of a run of the seed alone,
 * whether the seeds run one at a time or three at once; the summary is the
 * spread of those documents; a seed that stops makes the status 1. */
static void test_seeds_runs(void **state)
{
	(void)state;
	struct sim_config c;
	json_t *a, *b;
	sim_config_defaults(&c);
	set_all(&c, "vms=2 vcpus=3 pcpus=4 lock=pvqspinlock workload=ebizzy "
		    "spin_threshold=256 seconds=0.003 seed=41");
	assert_int_equal(sim_run_seeds(&c, 3, 3, &a, stderr), 0);
	assert_int_equal(sim_run_seeds(&c, 3, 1, &b, stderr), 0);
	json_t *ra = json_object_get(a, "runs"), *rb = json_object_get(b, "runs");
	assert_int_equal(json_array_size(ra), 3);
	double lo = 1e300, hi = -1, m, slo, shi;
	for (int i = 0; i < 3; i++) {
		struct sim_config ci = c;
		int rc;
		ci.seed = c.seed + (uint64_t)i;
		char *alone = run_json(&ci, &rc, NULL);
		assert_int_equal(rc, 0);
		char *x = without_wall(json_array_get(ra, (size_t)i));
		char *y = without_wall(json_array_get(rb, (size_t)i));
		assert_string_equal(x, alone);
		assert_string_equal(y, alone);
		free(x);
		free(y);
		free(alone);
		assert_int_equal(json_integer_value(json_array_get(json_object_get(a, "seeds"),
								   (size_t)i)), 41 + i);
		double ops = json_number_value(json_object_get(json_array_get(json_object_get(
			json_array_get(ra, (size_t)i), "vms"), 1), "ops"));
		lo = ops < lo ? ops : lo;
		hi = ops > hi ? ops : hi;
	}
	assert_true(lo < hi);   /* the seeds differ */
	spread(json_object_get(json_array_get(json_object_get(json_object_get(a, "summary"), "vms"),
					      1), "ops"), &m, &slo, &shi);
	assert_true(slo == lo && shi == hi && m >= lo && m <= hi);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(a, "config"), "seed")),
			 41);
	json_decref(a);
	json_decref(b);

	/* every seed loses a kick: status 1, a report in each run */
	set_all(&c, "vms=1 vcpus=4 pcpus=4 lock=pvqspinlock workload=spawn cs_us=5 work=200 "
		    "spin_threshold=64 lose_kicks=1 seconds=0.05");
	assert_int_equal(sim_run_seeds(&c, 2, 0, &a, stderr), 1);
	for (size_t i = 0; i < 2; i++)
		assert_non_null(strstr(json_string_value(json_object_get(json_array_get(
			json_object_get(a, "runs"), i), "report")), "DEADLOCK"));
	json_decref(a);
}

/* ---- futex-style parking, clock, CPUs (sim_platform.h) ------------------- */

/* Run `c` with guest program `fn` on every vCPU; returns sim_run()'s. */
static int run_guest(const struct sim_config *c, sim_guest_fn fn, struct sim_result *r)
{
	sim_set_guest(fn);
	int rc = sim_run(c, r);
	sim_set_guest(NULL);
	return rc;
}

static uint32_t park_word, park_other;
static int park_order[8], park_n, park_ret[8];
static uint32_t unpark_got[4];
static uint64_t park_elapsed[8];

/* vCPUs 1..3 park on park_word in that order (10, 20, 30 us in), vCPU 3 on
 * park_other too first; vCPU 0 wakes one, then the rest, then none. */
static void guest_park_fifo(int vm, int idx, int slot)
{
	(void)vm;
	(void)slot;
	if (idx == 0) {
		sim_guest_compute(100000);
		unpark_got[0] = pvspin_plat_unpark32(&park_other, 8);   /* nobody there */
		unpark_got[1] = pvspin_plat_unpark32(&park_word, 1);
		sim_guest_compute(50000);
		unpark_got[2] = pvspin_plat_unpark32(&park_word, 5);
		sim_guest_compute(50000);
		unpark_got[3] = pvspin_plat_unpark32(&park_word, 5);
		return;
	}
	sim_guest_compute((uint64_t)idx * 10000);
	park_ret[idx] = pvspin_plat_park32(&park_word, 0, 0);
	park_order[park_n++] = idx;
}

/* Unpark wakes the first parked first, only on its address, and says how
 * many; the woken return 0 (also without PV_UNHALT: not a hypercall). */
static void test_park_fifo(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	sim_config_defaults(&c);
	for (int pv = 1; pv >= 0; pv--) {
		set_all(&c, "vcpus=4 pcpus=4 seconds=0.01");
		set(&c, "pv_unhalt", pv ? "1" : "0");
		park_word = 0;
		park_n = 0;
		memset(park_ret, -1, sizeof(park_ret));
		assert_int_equal(run_guest(&c, guest_park_fifo, &r), 0);
		assert_int_equal(r.stop, SIM_STOP_DONE);
		assert_int_equal(unpark_got[0], 0);
		assert_int_equal(unpark_got[1], 1);
		assert_int_equal(unpark_got[2], 2);
		assert_int_equal(unpark_got[3], 0);
		assert_int_equal(park_n, 3);
		for (int i = 0; i < 3; i++) {
			assert_int_equal(park_order[i], i + 1);
			assert_int_equal(park_ret[i + 1], 0);
		}
		json_t *host = json_object_get(r.json, "host");
		assert_int_equal(json_integer_value(json_object_get(host, "parks")), 3);
		assert_int_equal(json_integer_value(json_object_get(host, "unpark_wakes")), 3);
		result_free(&r);
	}
}

/* idx 1: park with a 200 us timeout nobody ends; idx 2: park on a word
 * that already differs (returns at once); idx 0 finishes at once. */
static void guest_park_timeout(int vm, int idx, int slot)
{
	(void)vm;
	(void)slot;
	uint64_t t0 = sim_guest_now();
	if (idx == 1)
		park_ret[1] = pvspin_plat_park32(&park_word, 0, 200000);
	else if (idx == 2)
		park_ret[2] = pvspin_plat_park32(&park_other, 0, 0);
	park_elapsed[idx] = sim_guest_now() - t0;
}

static void test_park_timeout(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	sim_config_defaults(&c);
	set_all(&c, "vcpus=3 pcpus=3 seconds=0.01");
	park_word = 0;
	park_other = 7;
	memset(park_ret, -1, sizeof(park_ret));
	/* vCPU 0 is done while vCPU 1 sleeps: not a deadlock, its timer ends it */
	assert_int_equal(run_guest(&c, guest_park_timeout, &r), 0);
	assert_int_equal(r.stop, SIM_STOP_DONE);
	assert_int_equal(park_ret[1], ETIMEDOUT);
	assert_int_equal(park_ret[1], 110);
	assert_true(park_elapsed[1] >= 200000);
	assert_true(park_elapsed[1] < 250000);    /* the timer's wake, not a lost one */
	assert_int_equal(park_ret[2], 0);
	assert_true(park_elapsed[2] < 1000);      /* one read of the word */
	json_t *host = json_object_get(r.json, "host");
	assert_int_equal(json_integer_value(json_object_get(host, "parks")), 1);
	assert_int_equal(json_integer_value(json_object_get(host, "park_timeouts")), 1);
	result_free(&r);
	/* outside a vCPU nothing sleeps */
	park_other = 7;
	assert_int_equal(pvspin_plat_park32(&park_other, 0, 0), 0);
	assert_int_equal(pvspin_plat_park32(&park_other, 7, 0), ETIMEDOUT);
	assert_int_equal(pvspin_plat_unpark32(&park_other, 1), 0);
	assert_int_equal(pvspin_plat_now_ns(), 0);
}

static int park_forget;   /* the waker forgets the unpark */

/* idx 1 parks (no timeout); idx 0 stores 1 into the word, unparks unless
 * park_forget, then keeps doing operations until the end. */
static void guest_park_lost(int vm, int idx, int slot)
{
	(void)vm;
	(void)slot;
	if (idx == 1) {
		park_ret[1] = pvspin_plat_park32(&park_word, 0, 0);
		return;
	}
	sim_guest_compute(10000);
	pvspin_plat_store32(&park_word, 1, PVSPIN_RELEASE);
	if (!park_forget)
		pvspin_plat_unpark32(&park_word, 1);
	for (;;) {
		sim_guest_compute(5000);
		sim_guest_op_done();
	}
}

/* A parked vCPU nobody will unpark while its word differs is a lost
 * wake-up, reported while the other vCPU goes on; with the unpark the same
 * program is clean. */
static void test_park_lost_wakeup(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	sim_config_defaults(&c);
	set_all(&c, "vcpus=2 pcpus=2 seconds=0.01");
	park_word = 0;
	park_forget = 1;
	assert_int_equal(run_guest(&c, guest_park_lost, &r), 1);
	assert_int_equal(r.stop, SIM_STOP_DEADLOCK);
	assert_non_null(strstr(r.report, "DEADLOCK (lost wake-up)"));
	assert_non_null(strstr(r.report, "is parked (futex wait, no timeout)"));
	assert_non_null(strstr(r.report, "which no longer reads 0x00000000 (0x00000001)"));
	assert_non_null(strstr(r.report, "vCPU 1 (vm0 #1)"));
	assert_true(json_real_value(json_object_get(r.json, "sim_seconds")) < 0.005);
	result_free(&r);
	park_word = 0;
	park_forget = 0;
	park_ret[1] = -1;
	assert_int_equal(run_guest(&c, guest_park_lost, &r), 0);
	assert_int_equal(r.stop, SIM_STOP_END);
	assert_int_equal(park_ret[1], 0);
	result_free(&r);
}

static uint64_t clock_d;
static uint32_t cpus_seen;

/* idx 0: the clock across 1 us of work and the CPU count while idx 1
 * runs; idx 1 computes 100 us and finishes. */
static void guest_clock_cpus(int vm, int idx, int slot)
{
	(void)vm;
	(void)slot;
	if (idx == 1) {
		sim_guest_compute(100000);
		return;
	}
	uint64_t t0 = pvspin_plat_now_ns();
	sim_guest_compute(1000);
	clock_d = pvspin_plat_now_ns() - t0;
	cpus_seen = pvspin_plat_spin_cpus();
}

static void test_clock_and_cpus(void **state)
{
	(void)state;
	struct sim_config c;
	struct sim_result r;
	sim_config_defaults(&c);
	set_all(&c, "vcpus=2 pcpus=2 seconds=0.01");
	assert_int_equal(run_guest(&c, guest_clock_cpus, &r), 0);
	assert_true(clock_d >= 1000 && clock_d < 1100);
	assert_int_equal(cpus_seen, 2);
	result_free(&r);
}

/* ---- spinpark's unregistered spin (src/lock/spinpark.c) ----------------- */

static pvspin_lock_t sp_lock __attribute__((aligned(64)));
static uint64_t sp_hold_ns;
static uint32_t sp_word_at_unlock;
static int sp_waiter_took;

/* idx 0 takes the lock, holds it sp_hold_ns, reads the word just before
 * its unlock; idx 1 comes 300 ns in, while it is held, and waits for it. */
static void guest_spinpark_waiter(int vm, int idx, int slot)
{
	(void)vm;
	(void)slot;
	if (idx == 0) {
		pvspin_spinpark_lock(&sp_lock);
		sim_guest_compute(sp_hold_ns);
		sp_word_at_unlock = pvspin_plat_load32(&sp_lock.val, PVSPIN_RELAXED);
		pvspin_spinpark_unlock(&sp_lock);
	} else if (idx == 1) {
		sim_guest_compute(300);
		pvspin_spinpark_lock(&sp_lock);
		sp_waiter_took = 1;
		pvspin_spinpark_unlock(&sp_lock);
	}
}

/* Where one spinner may spin (2 CPUs), a waiter first spins for at most
 * 512 PAUSE loops without writing the word (56 ns each in the default
 * profile: 28.7 us), reading it after each: a lock held
 * 700 ns or 20 us is taken with the waiter never counted in it (until
 * 2026-12-07 the bound was 16 loops, and the 20 us hold found the waiter
 * counted); one held 200 us finds the waiter counted once that bound is
 * spent (by then parked: its registered spin is over too).  With 3 CPUs
 * (two spinners allowed) it joins the spinners at once. */
static void test_spinpark_spin_unregistered(void **state)
{
	(void)state;
	static const struct {
		const char *cpus;
		uint64_t hold_ns;
		uint32_t counted;   /* the waiter, as a spinner or parked */
	} cases[] = {
		{ "vcpus=2 pcpus=2", 700, 0 },
		{ "vcpus=2 pcpus=2", 20000, 0 },
		{ "vcpus=2 pcpus=2", 200000, 1 },
		{ "vcpus=3 pcpus=3", 700, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sim_config c;
		struct sim_result r;
		sim_config_defaults(&c);
		set_all(&c, cases[i].cpus);
		set(&c, "seconds", "0.01");
		memset(&sp_lock, 0, sizeof(sp_lock));
		sp_hold_ns = cases[i].hold_ns;
		sp_waiter_took = 0;
		sp_word_at_unlock = 0;
		assert_int_equal(run_guest(&c, guest_spinpark_waiter, &r), 0);
		assert_int_equal(r.stop, SIM_STOP_DONE);
		assert_int_equal(sp_waiter_took, 1);
		assert_int_equal(sp_word_at_unlock & _SP_LOCKED_MASK, _SP_LOCKED);
		uint32_t counted = ((sp_word_at_unlock & _SP_SPINNERS_MASK) >> _SP_SPINNER_OFFSET) +
				   (sp_word_at_unlock >> _SP_PARKED_OFFSET);
		assert_int_equal(counted, cases[i].counted);
		assert_int_equal(sp_lock.val & (_SP_LOCKED_MASK | _SP_SPINNERS_MASK | _SP_PARKED_MASK),
				 0);
		result_free(&r);
	}
}

/* ---- store-to-load forwarding (sim_memory.c) ----------------------------- */

static pvspin_lock_t sf_lock __attribute__((aligned(64)));
static int sf_case;

/* vCPU 0 alone: a case of the store buffer's model (sf_case 0-3, 6), or 100
 * uncontended acquisitions and releases back to back of spinpark (4) or
 * qspinlock (5); or two vCPUs contending for spinpark (7). */
static void guest_store_forward(int vm, int idx, int slot)
{
	(void)vm;
	(void)slot;
	if (sf_case == 7) {
		/* vCPU 1 comes while vCPU 0 holds the lock for 2 us: its fast
		 * path's cmpxchg fails, and the slow path reads the word */
		if (idx == 1)
			sim_guest_compute(300);
		pvspin_spinpark_lock(&sf_lock);
		sim_guest_compute(idx == 0 ? 2000 : 100);
		pvspin_spinpark_unlock(&sf_lock);
		return;
	}
	if (idx != 0)
		return;
	switch (sf_case) {
	case 0:   /* a byte stored, then the word loaded: 1 stall */
		pvspin_plat_store8(&sf_lock.locked, 1, PVSPIN_RELAXED);
		(void)pvspin_plat_load32(&sf_lock.val, PVSPIN_RELAXED);
		break;
	case 1:   /* the byte stored, then loaded: forwarded */
		pvspin_plat_store8(&sf_lock.locked, 1, PVSPIN_RELAXED);
		(void)pvspin_plat_load8(&sf_lock.locked, PVSPIN_RELAXED);
		(void)pvspin_plat_load8(&sf_lock.pending, PVSPIN_RELAXED);
		(void)pvspin_plat_load16(&sf_lock.tail, PVSPIN_RELAXED);
		break;
	case 2:   /* the word stored, then a byte of it loaded: forwarded */
		pvspin_plat_store32(&sf_lock.val, 1, PVSPIN_RELAXED);
		(void)pvspin_plat_load8(&sf_lock.locked, PVSPIN_RELAXED);
		break;
	case 3:   /* a byte stored, 1 us of work, the word loaded: drained */
		pvspin_plat_store8(&sf_lock.locked, 1, PVSPIN_RELAXED);
		sim_guest_compute(1000);
		(void)pvspin_plat_load32(&sf_lock.val, PVSPIN_RELAXED);
		break;
	case 6: {  /* a failed byte cmpxchg, then the word loaded: 1 stall */
		uint8_t free_byte = 0;
		pvspin_plat_store32(&sf_lock.val, 1, PVSPIN_RELAXED);
		sim_guest_compute(1000);
		(void)pvspin_plat_cmpxchg8(&sf_lock.locked, &free_byte, 1, PVSPIN_ACQUIRE);
		(void)pvspin_plat_load32(&sf_lock.val, PVSPIN_RELAXED);
		break;
	}
	case 4:
		for (int i = 0; i < 100; i++) {
			pvspin_spinpark_lock(&sf_lock);
			pvspin_spinpark_unlock(&sf_lock);
		}
		break;
	case 5:
		for (int i = 0; i < 100; i++) {
			pvspin_qspinlock_lock(&sf_lock);
			pvspin_qspinlock_unlock(&sf_lock);
		}
		break;
	}
}

/* A load wider than a store it overlaps, right after it, stalls; one
 * inside the store, or after the store drained, does not.  spinpark's
 * unlock reads its word by field, so an uncontended lock and unlock
 * never stalls (a 32-bit load there did in 99 of the 100: the first
 * waited for a cold miss on the park sequence meanwhile); the kernel's
 * qspinlock takes the lock with a 32-bit cmpxchg over the byte its
 * unlock stored, so 99 of its 100 acquisitions back to back do.  A
 * failed cmpxchg writes too: spinpark's slow path reads the word by
 * field after its fast path failed (a 32-bit load there stalled once
 * in the contended case 7). */
static void test_store_forward(void **state)
{
	(void)state;
	static const struct { int c; json_int_t stalls; } cases[] = {
		{ 0, 1 }, { 1, 0 }, { 2, 0 }, { 3, 0 }, { 4, 0 }, { 5, 99 }, { 6, 1 }, { 7, 0 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		int i = cases[k].c;
		struct sim_config c;
		struct sim_result r;
		sim_config_defaults(&c);
		set_all(&c, i == 7 ? "vcpus=2 pcpus=2 seconds=0.001" : "vcpus=1 pcpus=1 seconds=0.001");
		memset(&sf_lock, 0, sizeof(sf_lock));
		sf_case = i;
		assert_int_equal(run_guest(&c, guest_store_forward, &r), 0);
		assert_int_equal(r.stop, SIM_STOP_DONE);
		json_int_t got = json_integer_value(
			json_object_get(json_object_get(r.json, "host"), "store_forward_stalls"));
		if (got != cases[k].stalls)
			fail_msg("case %d: %lld store-forwarding stalls, expected %lld", i,
				 (long long)got, (long long)cases[k].stalls);
		result_free(&r);
	}
}

/* ---- coherence costs: the CCX level (sim_memory.c) ----------------------- */

static uint32_t ccx_word __attribute__((aligned(64)));
static uint64_t ccx_cost[4];

/* 24 dedicated pCPUs in 2 nodes of 12; with 8-pCPU CCXs node 0 holds CCX
 * 0 (pCPUs 0-7) and a short CCX 1 (8-11), node 1 CCXs 2 (12-19) and 3.
 * vCPU 0 writes the word; then, 10 us apart, vCPU 1 (its CCX), vCPU 9
 * (another CCX of its node) and vCPU 12 (the other node) read it: each
 * read's duration is one transfer. */
static void guest_ccx(int vm, int idx, int slot)
{
	(void)vm;
	(void)slot;
	static const int readers[3] = { 1, 9, 12 };
	if (idx == 0) {
		pvspin_plat_store32(&ccx_word, 1, PVSPIN_RELEASE);
		return;
	}
	for (int k = 0; k < 3; k++) {
		if (idx != readers[k])
			continue;
		sim_guest_compute(10000 * (uint64_t)(k + 1));
		uint64_t t0 = sim_guest_now();
		(void)pvspin_plat_load32(&ccx_word, PVSPIN_ACQUIRE);
		ccx_cost[k] = sim_guest_now() - t0;
	}
}

/* A line moves inside a CCX at the CCX cost, between CCXs of a node at the
 * same-node cost, across nodes at the remote cost; a profile without a CCX
 * level has the last two only. */
static void test_ccx_transfer_costs(void **state)
{
	(void)state;
	static const char *const profiles[2] = { "amd-epyc", "intel-xeon" };
	for (int i = 0; i < 2; i++) {
		const struct sim_profile *pr = sim_profile_find(profiles[i]);
		struct sim_config c;
		struct sim_result r;
		sim_config_defaults(&c);
		set_all(&c, "vcpus=24 pcpus=24 nodes=2 dedicated=1 seconds=0.001");
		set(&c, "profile", profiles[i]);
		ccx_word = 0;
		memset(ccx_cost, 0, sizeof(ccx_cost));
		assert_int_equal(run_guest(&c, guest_ccx, &r), 0);
		assert_int_equal(ccx_cost[0], i == 0 ? pr->xfer_ccx_ns : pr->xfer_local_ns);
		assert_int_equal(ccx_cost[1], pr->xfer_local_ns);
		assert_int_equal(ccx_cost[2], pr->xfer_remote_ns);
		result_free(&r);
	}
	/* the AMD profile has the level, 8 cores per CCX, and it is cheaper */
	const struct sim_profile *amd = sim_profile_find("amd-epyc");
	assert_int_equal(amd->ccx_cpus, 8);
	assert_true(amd->xfer_ccx_ns < amd->xfer_local_ns);
	assert_int_equal(sim_profile_find("intel-xeon")->ccx_cpus, 0);
	assert_int_equal(sim_profile_find("loongarch-3c5000")->ccx_cpus, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_determinism_lock_addresses),
		cmocka_unit_test(test_wait_notes_cleared_between_runs),
		cmocka_unit_test(test_engine_events_unchanged),
		cmocka_unit_test(test_scheduler_fair_share),
		cmocka_unit_test(test_ebizzy_mm_small_host_progresses),
		cmocka_unit_test(test_kick_oracles),
		cmocka_unit_test(test_kick_before_halt),
		cmocka_unit_test(test_deadlock_report_lost_kicks),
		cmocka_unit_test(test_two_holders),
		cmocka_unit_test(test_misuse_stops_run),
		cmocka_unit_test(test_all_kinds_clean),
		cmocka_unit_test(test_finish_after_waking_onto_own_pcpu),
		cmocka_unit_test(test_spinpark_slice_mode),
		cmocka_unit_test(test_spinpark_short_probe_again),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_ini_scenario),
		cmocka_unit_test(test_ini_preset_anywhere),
		cmocka_unit_test(test_per_vm_key_number),
		cmocka_unit_test(test_per_vm_key_not_canonical),
		cmocka_unit_test(test_per_vm_key_typos),
		cmocka_unit_test(test_ini_indented_line),
		cmocka_unit_test(test_ini_comments),
		cmocka_unit_test(test_ebizzy_mm),
		cmocka_unit_test(test_ebizzy_mm_guest_threads),
		cmocka_unit_test(test_seeds_summary),
		cmocka_unit_test(test_seeds_runs),
		cmocka_unit_test(test_park_fifo),
		cmocka_unit_test(test_park_timeout),
		cmocka_unit_test(test_park_lost_wakeup),
		cmocka_unit_test(test_clock_and_cpus),
		cmocka_unit_test(test_ccx_transfer_costs),
		cmocka_unit_test(test_spinpark_spin_unregistered),
		cmocka_unit_test(test_spinpark_budget_not_lowered_by_turns),
		cmocka_unit_test(test_store_forward),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

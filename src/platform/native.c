/*
 * native.c - out-of-line part of the native platform backend
 * (pvspin/platform_native.h): thread slots, halt and kick on futexes, and
 * the lock event counters.
 *
 * Thread slots stand for CPUs.  A thread takes a slot on its first slow
 * path (first pvspin_plat_cpu() or event) from a bitmap of
 * PVSPIN_MAX_CPUS bits and returns it when it exits (a pthread key
 * destructor).  When every slot is taken the thread runs slot-less: the
 * lock code then takes the lock without an MCS node, and the exhaustion is
 * counted.  After fork() the child keeps only its own thread's slot.
 *
 * Halt/kick (after KVM's kvm_wait / KVM_HC_KICK_CPU with the pv_unhalted
 * flag): each slot has a futex word, IDLE, KICKED or SLEEPING.
 *   kick:  old = xchg(word, KICKED); if old == SLEEPING: FUTEX_WAKE
 *   wait:  consume a pending KICKED and return; return if *ptr != val;
 *          IDLE -> SLEEPING (fails if a kick came: consume it, return);
 *          FUTEX_WAIT while SLEEPING; then consume the kick.
 * A kick sent before the halt is therefore never lost; a stale kick only
 * causes one spurious return, which the lock code tolerates.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pvspin/platform.h"
#include "pvspin/stats.h"
#include "lock/fork_repair.h"
#include "lock/tunables_report.h"
#include "platform/env_switch.h"
#include "util/value_quote.h"

enum { SLOT_IDLE = 0, SLOT_KICKED = 1, SLOT_SLEEPING = 2 };

struct slot {
	uint32_t futex;                   /* SLOT_* */
	uint32_t pad;
	uint64_t events[PVSPIN_EV_COUNT]; /* this slot's share of the counters */
} __attribute__((aligned(64)));

#define BITMAP_WORDS ((PVSPIN_MAX_CPUS + 63) / 64)

static struct slot slots[PVSPIN_MAX_CPUS];
static uint64_t slot_bitmap[BITMAP_WORDS];
static uint64_t slots_allocated, slots_exhausted;
static uint64_t slotless_events[PVSPIN_EV_COUNT];

#ifdef PVSPIN_PLAT_TSAN
/* pvspin_plat_fence_full()'s word under ThreadSanitizer (platform_native.h);
 * no such word in other builds. */
uint32_t pvspin_plat_fence_word;
#endif
/* One past the highest slot ever allocated: how far a fork child must
 * clear the slots' counters (platform_after_fork_child). */
static uint32_t slots_high;

static _Thread_local uint32_t tls_slot_plus1;   /* 0: none (yet) */

static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;

static void slot_free(int s)
{
	__atomic_store_n(&slots[s].futex, SLOT_IDLE, __ATOMIC_RELAXED);
	__atomic_fetch_and(&slot_bitmap[s / 64], ~(1ull << (s % 64)), __ATOMIC_RELEASE);
}

/* Runs in the exiting thread.  Clearing the thread's slot first means a
 * later destructor that still takes a lock allocates afresh (and is freed
 * again on the next destructor round) instead of using a freed slot. */
static void slot_release_at_exit(void *arg)
{
	int s = (int)(uintptr_t)arg - 1;
	tls_slot_plus1 = 0;
	if (s >= 0)
		slot_free(s);
}

/* In the child of fork(), only the forking thread exists.  The halt words
 * of the others' slots go back to IDLE too: a thread of the child that
 * gets one of those slots would otherwise start with a stale KICKED (one
 * spurious return from its first halt) or SLEEPING (its slot read as
 * preempted by pvspin_plat_vcpu_is_preempted()).  Only those not IDLE
 * are written (no page copy for the others). */
static void slots_after_fork_child(void)
{
	memset(slot_bitmap, 0, sizeof(slot_bitmap));
	for (uint32_t s = 0; s < slots_high; s++)
		if (slots[s].futex != SLOT_IDLE)
			slots[s].futex = SLOT_IDLE;
	if (tls_slot_plus1) {
		int s = (int)tls_slot_plus1 - 1;
		slot_bitmap[s / 64] |= 1ull << (s % 64);
		slots[s].futex = SLOT_IDLE;
	}
}

static void slot_init_once(void)
{
	pthread_key_create(&slot_key, slot_release_at_exit);
	pthread_atfork(NULL, NULL, slots_after_fork_child);
}

static int slot_alloc(void)
{
	static uint32_t hint;
	uint32_t start = __atomic_fetch_add(&hint, 1, __ATOMIC_RELAXED) % BITMAP_WORDS;

	for (uint32_t n = 0; n < BITMAP_WORDS; n++) {
		uint32_t w = (start + n) % BITMAP_WORDS;
		uint64_t bits = __atomic_load_n(&slot_bitmap[w], __ATOMIC_RELAXED);
		while (~bits) {
			int b = __builtin_ctzll(~bits);
			int s = (int)w * 64 + b;
			if (s >= PVSPIN_MAX_CPUS)
				break;
			if (__atomic_compare_exchange_n(&slot_bitmap[w], &bits, bits | (1ull << b),
							false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return s;
		}
	}
	return -1;
}

int pvspin_plat_cpu(void)
{
	if (__builtin_expect(tls_slot_plus1 != 0, 1))
		return (int)tls_slot_plus1 - 1;
	/* No slot yet, or the pool was empty last time: slots free up as
	 * threads exit, so a slot-less thread tries again on each slow path. */
	pthread_once(&slot_once, slot_init_once);
	int s = slot_alloc();
	if (s < 0) {
		__atomic_fetch_add(&slots_exhausted, 1, __ATOMIC_RELAXED);
		return -1;
	}
	tls_slot_plus1 = (uint32_t)s + 1;
	pthread_setspecific(slot_key, (void *)(uintptr_t)tls_slot_plus1);
	__atomic_fetch_add(&slots_allocated, 1, __ATOMIC_RELAXED);
	/* relaxed: a high-water mark; a fork child reads it after fork()'s
	 * barriers (platform_after_fork_child, the interposer's) */
	uint32_t h = __atomic_load_n(&slots_high, __ATOMIC_RELAXED);
	while (h < tls_slot_plus1 &&
	       !__atomic_compare_exchange_n(&slots_high, &h, tls_slot_plus1, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return s;
}

/* FUTEX_WAIT / FUTEX_WAKE (private); `rel`: WAIT's relative timeout, NULL: none. */
static long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *rel)
{
	return syscall(SYS_futex, uaddr, op, val, rel, NULL, 0);
}

void pvspin_plat_pv_wait(uint8_t *ptr, uint8_t val)
{
	int cpu = pvspin_plat_cpu();
	if (cpu < 0)
		return; /* slot-less threads never queue, so never halt */
	uint32_t *w = &slots[cpu].futex;
	uint32_t expect = SLOT_KICKED;

	/* A kick sent before this halt: consume it, return. */
	if (__atomic_compare_exchange_n(w, &expect, SLOT_IDLE, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (__atomic_load_n(ptr, __ATOMIC_ACQUIRE) != val)
		return;
	expect = SLOT_IDLE;
	if (!__atomic_compare_exchange_n(w, &expect, SLOT_SLEEPING, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(w, SLOT_IDLE, __ATOMIC_RELAXED);
		return; /* kicked meanwhile */
	}
	/* Re-check after announcing the halt (latency only: a change of *ptr
	 * without a kick is always followed by one). */
	if (__atomic_load_n(ptr, __ATOMIC_SEQ_CST) != val) {
		__atomic_exchange_n(w, SLOT_IDLE, __ATOMIC_ACQUIRE);
		return;
	}
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == SLOT_SLEEPING)
		futex(w, FUTEX_WAIT_PRIVATE, SLOT_SLEEPING, NULL);
	__atomic_store_n(w, SLOT_IDLE, __ATOMIC_RELAXED);
	pvspin_plat_event(PVSPIN_EV_PV_KICK_WAKE);
}

void pvspin_plat_pv_kick(int cpu)
{
	if (cpu < 0 || cpu >= PVSPIN_MAX_CPUS)
		return;
	uint32_t *w = &slots[cpu].futex;
	if (__atomic_exchange_n(w, SLOT_KICKED, __ATOMIC_SEQ_CST) == SLOT_SLEEPING)
		futex(w, FUTEX_WAKE_PRIVATE, 1, NULL);
}

/* ---- parking on an address, time, CPUs ------------------------------ */

uint64_t pvspin_plat_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int pvspin_plat_park32(uint32_t *p, uint32_t val, uint64_t timeout_ns)
{
	struct timespec rel, *t = NULL;
	if (timeout_ns) {
		rel.tv_sec = (time_t)(timeout_ns / 1000000000u);
		rel.tv_nsec = (long)(timeout_ns % 1000000000u);
		t = &rel;
	}
	/* FUTEX_WAIT takes a relative timeout (on CLOCK_MONOTONIC). */
	long r = futex(p, FUTEX_WAIT_PRIVATE, val, t);
	return r < 0 && errno == ETIMEDOUT ? PVSPIN_PARK_TIMEDOUT : 0;
}

uint32_t pvspin_plat_unpark32(uint32_t *p, uint32_t n)
{
	long r = futex(p, FUTEX_WAKE_PRIVATE, n > INT32_MAX ? INT32_MAX : n, NULL);
	return r > 0 ? (uint32_t)r : 0;
}

/* ---- the asymmetric fence: membarrier(2) ---------------------------- */

/* 0: not decided yet; 1: registered for MEMBARRIER_CMD_PRIVATE_EXPEDITED;
 * 2: not available in this process (pvspin_plat_fence_heavy_available). */
static int membarrier_state;

/* pvspin_plat_park_seq(): RMW releases until membarrier_decide() finds
 * the fence on a small machine. */
uint32_t pvspin_plat_park_seq_word __attribute__((aligned(64))) = PVSPIN_PARK_SEQ_RMW_RELEASE;

/* One thread in this process: /proc/self/task has a link per thread
 * besides "." and ".." (Linux's proc_task_getattr).  False where /proc
 * cannot tell. */
static bool process_single_threaded(void)
{
	struct stat st;
	return stat("/proc/self/task", &st) == 0 && st.st_nlink == 3;
}

/*
 * Decide, once, whether the asymmetric fence works here, registering
 * the address space for it if so.  Only while the process has one thread:
 * then registering is cheap (the kernel marks the address space: 3 us
 * here), and nobody can be acting on the answer (spinpark's unlock reads
 * it as the park sequence's bit 0).  With threads running,
 * registering waits for an RCU grace period (12-15 ms measured here) and
 * a thread may be in the middle of an unlock that assumed "not
 * available": the answer is no, for good.
 */
int pvspin_plat_no_membarrier_report_ignored(FILE *err, const char *who, const char *tail)
{
	const char *s;
	if (pvspin_env_switch("PVSPIN_NO_MEMBARRIER", &s) >= 0)
		return 0;
	fprintf(err, "%s: ignoring PVSPIN_NO_MEMBARRIER=" PVSPIN_QUOTED ": "
		PVSPIN_NO_MEMBARRIER_EXPECTED "%s\n", who ? who : "pvspin", PVSPIN_QUOTED_ARGS(s),
		tail ? tail : "; membarrier is used");
	return 1;
}

static void membarrier_decide(void)
{
	/* PVSPIN_NO_MEMBARRIER (platform/env_switch.h): on ("1") turns the
	 * fence off; a bad value is ignored, and said at load as the
	 * tunables' lines are (src/lock/tunables.c), unless the program
	 * turned those off: the `pvspin` tool, whose run, bench and torture
	 * refuse the value (exit 2) and whose detect and sim say they ignore
	 * it, in their own words: one message, not two. */
	bool off = pvspin_env_switch("PVSPIN_NO_MEMBARRIER", NULL) == 1;
	if (pvspin_tunables_report_at_load())
		pvspin_plat_no_membarrier_report_ignored(stderr, NULL, NULL);
	bool want = !off && process_single_threaded();
	long q = want ? syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0) : -1;
	int st = q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
		 syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0
			 ? 1 : 2;
	/* nobody reads the sequence yet: the mode is set once, here */
	__atomic_store_n(&pvspin_plat_park_seq_word,
			 pvspin_plat_park_seq_mode(st == 1, pvspin_plat_spin_cpus()),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&membarrier_state, st, __ATOMIC_RELEASE);
}

bool pvspin_plat_fence_heavy_available(void)
{
	int st = __atomic_load_n(&membarrier_state, __ATOMIC_ACQUIRE);
	if (__builtin_expect(st == 0, 0)) {
		/* first called from platform_at_load, while the loader
		 * runs: single-threaded unless dlopen() loads us into a
		 * running process */
		membarrier_decide();
		st = __atomic_load_n(&membarrier_state, __ATOMIC_ACQUIRE);
	}
	return st == 1;
}

bool pvspin_plat_fence_heavy(void)
{
	if (!pvspin_plat_fence_heavy_available())
		return false;
	int saved = errno;   /* async-signal-safe: a handler's caller keeps errno */
	long r = syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	errno = saved;
	return r == 0;
}

/*
 * In a fork child: repair the lock words and restart the counters.
 *
 * Lock words: the child repairs those the parent's other threads were
 * waiting on (their queue, pending bit, hashed node, tickets;
 * pvspin_fork_repair_child(), src/lock/fork_repair.c), first, so before
 * any child handler the program registered after the library was loaded
 * (glibc runs child handlers in the order of registration; this one is
 * registered by a constructor, before main).
 *
 * The asymmetric fence: the child keeps the parent's answer and its
 * registration, which belongs to the address space and is copied with it
 * (a fork child's MEMBARRIER_CMD_PRIVATE_EXPEDITED succeeds unregistered:
 * checked on this guest's 6.18), and so the park sequence's mode.
 *
 * Counters: a fork child starts those of pvspin/stats.h from zero.  It is
 * a new process, and what it inherited is its parent's history: under `pvspin run --stats`
 * every child's line repeated its parent's counts.  The forking thread
 * keeps its slot (slots_after_fork_child), so it counts as the one slot
 * allocated.  Only the slots ever allocated are written: clearing all
 * PVSPIN_MAX_CPUS would copy ~800 KiB of pages in every child.
 */
static void platform_after_fork_child(void)
{
	pvspin_fork_repair_child((int)tls_slot_plus1 - 1, slots_high);
	memset(slotless_events, 0, sizeof(slotless_events));
	for (uint32_t s = 0; s < slots_high; s++)
		memset(slots[s].events, 0, sizeof(slots[s].events));
	slots_allocated = tls_slot_plus1 ? 1 : 0;
	slots_exhausted = 0;
}

__attribute__((constructor)) static void platform_at_load(void)
{
	(void)pvspin_plat_fence_heavy_available();
	pthread_atfork(NULL, NULL, platform_after_fork_child);
}

/* Per thread: the count, re-read every SPIN_CPUS_REFRESH calls
 * (sched_getaffinity is a system call; the masks change rarely). */
#define SPIN_CPUS_REFRESH 4096u
static _Thread_local uint32_t tls_spin_cpus, tls_spin_cpus_left;

/*
 * The calling thread's affinity mask united with the thread group
 * leader's (pid = getpid()).  The thread's own mask alone is wrong for a
 * thread pinned to one CPU (thread-per-core programs, `pvspin bench
 * --pin`): it said 1, so spinpark and the interposer never spun there,
 * although the holder runs on another CPU, and every contended
 * acquisition slept (pinned 2-thread bench: 154 570 parks in 1.5 s, no
 * spin).  A process confined to one CPU (`taskset -c 0`: every thread
 * inherits the mask) still counts 1.  Workers pinned beside a pinned main
 * thread, or moved apart after start, count as the union of the two
 * masks only.
 */
uint32_t pvspin_plat_spin_cpus(void)
{
	if (__builtin_expect(tls_spin_cpus_left != 0, 1)) {
		tls_spin_cpus_left--;
		return tls_spin_cpus;
	}
	cpu_set_t own, leader;
	int c = 0;
	if (sched_getaffinity(0, sizeof(own), &own) == 0) {
		if (sched_getaffinity(getpid(), sizeof(leader), &leader) == 0)
			CPU_OR(&own, &own, &leader);
		c = CPU_COUNT(&own);
	}
	tls_spin_cpus = c > 0 ? (uint32_t)c : 1;
	tls_spin_cpus_left = SPIN_CPUS_REFRESH;
	return tls_spin_cpus;
}

bool pvspin_plat_vcpu_is_preempted(int cpu)
{
	if (cpu < 0 || cpu >= PVSPIN_MAX_CPUS)
		return false;
	return __atomic_load_n(&slots[cpu].futex, __ATOMIC_RELAXED) == SLOT_SLEEPING;
}

void pvspin_plat_event_add(int ev, uint64_t n)
{
	if ((unsigned)ev >= PVSPIN_EV_COUNT)
		return;
	int cpu = pvspin_plat_cpu();
	uint64_t *c = cpu >= 0 ? &slots[cpu].events[ev] : &slotless_events[ev];
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

void pvspin_plat_event(int ev)
{
	pvspin_plat_event_add(ev, 1);
}

/* ---- pvspin/stats.h ------------------------------------------------- */

void pvspin_events_read(struct pvspin_events *out)
{
	for (int e = 0; e < PVSPIN_EV_COUNT; e++)
		out->count[e] = __atomic_load_n(&slotless_events[e], __ATOMIC_RELAXED);
	for (int s = 0; s < PVSPIN_MAX_CPUS; s++)
		for (int e = 0; e < PVSPIN_EV_COUNT; e++)
			out->count[e] += __atomic_load_n(&slots[s].events[e], __ATOMIC_RELAXED);
}

void pvspin_slots_read(struct pvspin_slot_stats *out)
{
	uint32_t used = 0;
	for (int w = 0; w < BITMAP_WORDS; w++)
		used += (uint32_t)__builtin_popcountll(
			__atomic_load_n(&slot_bitmap[w], __ATOMIC_RELAXED));
	out->capacity = PVSPIN_MAX_CPUS;
	out->in_use = used;
	out->allocated = __atomic_load_n(&slots_allocated, __ATOMIC_RELAXED);
	out->exhausted = __atomic_load_n(&slots_exhausted, __ATOMIC_RELAXED);
	out->high = __atomic_load_n(&slots_high, __ATOMIC_RELAXED);
}

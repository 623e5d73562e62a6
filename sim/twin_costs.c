/*
 * twin_costs.c - measure, on the machine it runs on, the costs that the
 * `linux-threads` profile of the simulator (sim_profile.c) models for
 * "threads on this Linux machine" (sim/README.md, "The machine twin"):
 *
 *   pause_ns        one PAUSE (cpu_relax), a run of 10 000
 *   l1_ns           a dependent load hitting L1 (pointer chase in 4 KiB)
 *   atomic_ns       a LOCK XADD on a line the CPU owns (back to back)
 *   xfer_ns         a cache-line transfer between CPU 0 and CPU 1: two
 *                   pinned threads hand a counter back and forth on one
 *                   line (spinning); one hand-off (a read miss and a
 *                   write), the median of blocks of 200
 *   futex_wait_ns   FUTEX_WAIT that finds the value changed (EAGAIN): the
 *                   entry, hash-bucket lookup and exit a waiter pays before
 *                   it can sleep
 *   futex_wake0_ns  FUTEX_WAKE with nobody waiting
 *   futex_wake_ns   FUTEX_WAKE of one thread sleeping on the other CPU:
 *                   the syscall as the waker sees it (the median)
 *   wake_lat_ns     from just before that FUTEX_WAKE to the woken thread
 *                   running again on the other (idle) CPU (the median)
 *   ctx_switch_ns   a switch between two threads pinned on one CPU that
 *                   hand a turn back and forth with futexes: the median
 *                   hand-off less futex_wait_ns and futex_wake0_ns (an
 *                   upper estimate: a wake that finds a waiter does more
 *                   than one that finds none)
 *   slice_ns        the run length of a CPU-bound thread sharing a CPU
 *                   with another CPU-bound thread (both pinned on CPU 1; a
 *                   run ends when the thread sees a gap of > 300 us in the
 *                   clock: the other thread's turn; shorter gaps, the
 *                   hypervisor's or an interrupt's, stay inside the run)
 *   tick_ns         1 / CONFIG_HZ (the kernel's configuration), when known;
 *                   then, from the same runs:
 *   tick_jitter_ns  the spread (5th-95th percentile) of the instants the
 *                   threads are switched out at, modulo the tick, of the
 *                   switches within 20 us of a tick: how far from the
 *                   tick the switch happens
 *   tick_switch_ns  the time from a switch-out at a tick to the other
 *                   thread running (the median gap less one tick)
 *   membarrier_ns   membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) from CPU 1
 *                   with a thread of the process running on CPU 0, calls
 *                   back to back: the call as its caller sees it
 *   membarrier_target_ns  what each such call takes from the thread on
 *                   CPU 0 (the IPI and its handler): a busy loop's rate in
 *                   20 ms phases with the calls and without, alternated;
 *                   the rate lost over the calls made (2026-12-07 on the
 *                   AMD EPYC guest 9.0 us, the caller 11.2 us: the
 *                   profile's membarrier_target_ns and membarrier_ns)
 *
 * Each figure is measured in BATCHES batches; a batch's figure is its
 * median (the slice: its median run), and the median of the batch figures
 * is reported: other work on the machine disturbs a few batches (a
 * FUTEX_WAIT of 4 us, a wake that finds its waiter not yet asleep), not
 * the middle one.  Every batch's figure is printed too (-v, on stderr).
 * Needs 2 CPUs; takes ~8 s.
 * Built as build/sim/twin_costs, not installed: a tool for re-measuring
 * the profile (sim/twin.sh prints its figures beside the table).
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* cpu_relax(): PAUSE on x86, as pvspin's native backend (platform_native.h) */
#if defined(__x86_64__) || defined(__i386__)
#define RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define RELAX() __asm__ __volatile__("yield" ::: "memory")
#else
#define RELAX() __asm__ __volatile__("" ::: "memory")
#endif

#define BATCHES 9
#define ROUNDS 2000

static int verbose;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long futex(uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (pthread_setaffinity_np(pthread_self(), sizeof(s), &s)) {
		fprintf(stderr, "twin_costs: cannot pin to CPU %d\n", cpu);
		exit(1);
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *x, int n)
{
	qsort(x, (size_t)n, sizeof(*x), cmp_d);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* The median of the batch figures; prints them all with -v. */
static double figure(const char *name, double *batch)
{
	if (verbose) {
		fprintf(stderr, "%-14s", name);
		for (int b = 0; b < BATCHES; b++)
			fprintf(stderr, " %.1f", batch[b]);
		fprintf(stderr, "\n");
	}
	return median(batch, BATCHES);
}

/* ---- one CPU: PAUSE, L1, atomic ---------------------------------------- */

static double per_op(void (*fn)(long), long n)
{
	double x[15];
	for (int i = 0; i < 15; i++) {
		uint64_t t0 = now_ns();
		fn(n);
		x[i] = (double)(now_ns() - t0) / (double)n;
	}
	return median(x, 15);
}

static void do_pause(long n)
{
	for (long i = 0; i < n; i++)
		RELAX();
}

static void *chase[512];
static void do_chase(long n)
{
	void **p = chase;
	for (long i = 0; i < n; i++)
		p = *p;
	__asm__ __volatile__("" : : "r"(p));
}

static uint32_t fword = 1;
static void do_futex_wait(long n)
{
	for (long i = 0; i < n; i++)
		futex(&fword, FUTEX_WAIT_PRIVATE, 0);   /* EAGAIN: *fword is 1 */
}

static void do_futex_wake0(long n)
{
	for (long i = 0; i < n; i++)
		futex(&fword, FUTEX_WAKE_PRIVATE, 1);   /* nobody waits */
}

static uint64_t owned;
static void do_atomic(long n)
{
	for (long i = 0; i < n; i++)
		__atomic_fetch_add(&owned, 1, __ATOMIC_SEQ_CST);
}

/* ---- two threads: hand-offs -------------------------------------------- */

#define BLOCK 100

struct pp {
	uint32_t turn __attribute__((aligned(64)));   /* spin or futex word */
	uint64_t t_wake __attribute__((aligned(64))); /* just before FUTEX_WAKE */
	int mode, rounds, cpu;
	double lat[ROUNDS], wake[ROUNDS];
	double block[ROUNDS / BLOCK];                 /* spin: ns per hand-off */
};
enum { PP_SPIN, PP_FUTEX };

/* Thread `me` (0 or 1) waits for turn == its parity, then passes it on. */
static void pp_side(struct pp *p, uint32_t me)
{
	for (uint32_t r = 0; r < (uint32_t)p->rounds; r++) {
		uint32_t mine = 2 * r + me, next = mine + 1;
		if (p->mode == PP_SPIN) {
			static uint64_t t_block;
			if (me == 0 && r % BLOCK == 0) {
				uint64_t t = now_ns();
				if (r)
					p->block[r / BLOCK - 1] = (double)(t - t_block) / (2.0 * BLOCK);
				t_block = t;
			}
			while (__atomic_load_n(&p->turn, __ATOMIC_ACQUIRE) != mine)
				RELAX();
			__atomic_store_n(&p->turn, next, __ATOMIC_RELEASE);
			continue;
		}
		uint32_t v;
		while ((v = __atomic_load_n(&p->turn, __ATOMIC_ACQUIRE)) != mine)
			futex(&p->turn, FUTEX_WAIT_PRIVATE, v);
		if (me == 1 && r > 0)
			p->lat[r] = (double)(now_ns() - __atomic_load_n(&p->t_wake, __ATOMIC_ACQUIRE));
		__atomic_store_n(&p->turn, next, __ATOMIC_RELEASE);
		uint64_t t0 = now_ns();
		if (me == 0)
			__atomic_store_n(&p->t_wake, t0, __ATOMIC_RELEASE);
		futex(&p->turn, FUTEX_WAKE_PRIVATE, 1);
		p->wake[r] = (double)(now_ns() - t0);
	}
}

static void *pp_thread(void *arg)
{
	struct pp *p = arg;
	pin(p->cpu);
	pp_side(p, 1);
	return NULL;
}

/* One batch of hand-offs, thread 0 on CPU 0, thread 1 on `cpu1`; the
 * time of one hand-off, ns. */
static double pp_batch(struct pp *p, int mode, int cpu1)
{
	pthread_t t;
	memset(p, 0, sizeof(*p));
	p->mode = mode;
	p->rounds = ROUNDS;
	p->cpu = cpu1;
	pin(0);
	pthread_create(&t, NULL, pp_thread, p);
	uint64_t t0 = now_ns();
	pp_side(p, 0);
	pthread_join(t, NULL);
	return (double)(now_ns() - t0) / (2.0 * ROUNDS);
}

/* ---- the slice and the tick ---------------------------------------------- */

#define GAP_NS 300000
#define RUNS 64

struct sl {
	int cpu;
	uint64_t until;
	double runs[RUNS], gaps[RUNS];
	uint64_t outs[RUNS];          /* last clock read before each gap */
	int nruns;
};

static void *slice_thread(void *arg)
{
	struct sl *s = arg;
	pin(s->cpu);
	uint64_t last = now_ns(), start = last;
	while (last < s->until && s->nruns < RUNS) {
		uint64_t t = now_ns();
		if (t - last > GAP_NS) {    /* descheduled between the reads */
			s->runs[s->nruns] = (double)(last - start);
			s->gaps[s->nruns] = (double)(t - last);
			s->outs[s->nruns++] = last;
			start = t;
		}
		last = t;
	}
	return NULL;
}

/* The scheduler tick, ns: 1 / CONFIG_HZ from the kernel's configuration
 * (/proc/config.gz, else /boot/config-RELEASE); 0 if neither is there. */
static uint64_t tick_period_ns(void)
{
	FILE *f = popen("{ zcat /proc/config.gz || cat /boot/config-$(uname -r); } 2>/dev/null"
			" | sed -n 's/^CONFIG_HZ=//p'", "r");
	unsigned hz = 0;
	if (f) {
		if (fscanf(f, "%u", &hz) != 1)
			hz = 0;
		pclose(f);
	}
	return hz ? 1000000000u / hz : 0;
}

struct slice_fig {
	double run, jitter, tick_switch;
};

/* Two CPU-bound threads on CPU 1 for up to 0.3 s.  run: the median run;
 * with the tick period P known, jitter: the spread (5th to 95th
 * percentile) of the instants the threads were switched out at a tick,
 * taken modulo P (the timer interrupt's entry); tick_switch: the median gap
 * less P (a gap is the other thread's turn, P less one switch, plus the
 * switch back: the time from the tick to the next thread running). */
static struct slice_fig slice_batch(uint64_t P)
{
	struct sl s[2];
	pthread_t t[2];
	uint64_t until = now_ns() + 300000000u;
	for (int i = 0; i < 2; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		s[i].cpu = 1;
		s[i].until = until;
		pthread_create(&t[i], NULL, slice_thread, &s[i]);
	}
	double run[2 * RUNS], ph[2 * RUNS], sw[2 * RUNS];
	int n = 0, nph = 0, nsw = 0;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++) {
		/* the first run started with the thread, not with a slice */
		for (int k = 1; k < s[i].nruns; k++) {
			run[n] = s[i].runs[k];
			if (P) {
				/* centred on the first switch-out, in (-P/2, P/2];
				 * only the switches at a tick (within 20 us of
				 * it: another task's wake-up can end a slice
				 * anywhere) */
				uint64_t d = (s[i].outs[k] - s[0].outs[0] + P / 2) % P;
				double x = (double)d - (double)(P / 2);
				if (x > -20000.0 && x < 20000.0)
					ph[nph++] = x;
			}
			n++;
			if (P && s[i].gaps[k] > (double)P && s[i].gaps[k] < 2.0 * (double)P)
				sw[nsw++] = s[i].gaps[k] - (double)P;
		}
	}
	struct slice_fig f = { 0, 0, 0 };
	if (n)
		f.run = median(run, n);
	if (nph) {
		qsort(ph, (size_t)nph, sizeof(*ph), cmp_d);
		f.jitter = ph[(19 * nph) / 20] - ph[nph / 20];
	}
	if (nsw)
		f.tick_switch = median(sw, nsw);
	return f;
}

/* ---- membarrier: the caller's cost and the target's ------------------- */

#define MB_PHASE_NS 20000000u
#define MB_PAIRS 8

static volatile int mb_on, mb_stop;
static volatile uint64_t mb_calls;

static void *mb_thread(void *arg)
{
	(void)arg;
	pin(1);
	while (!mb_stop) {
		if (mb_on) {
			syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
			mb_calls++;
		} else {
			RELAX();
		}
	}
	return NULL;
}

/* A busy loop's rate on CPU 0 for one phase: loops per ns. */
static double mb_phase(void)
{
	volatile uint64_t x = 0;
	uint64_t n = 0, t0 = now_ns(), t;
	do {
		for (int i = 0; i < 1000; i++)
			x++;
		n += 1000;
	} while ((t = now_ns()) - t0 < MB_PHASE_NS);
	return (double)n / (double)(t - t0);
}

/* One batch: MB_PAIRS pairs of a phase without calls and one with; the
 * medians over the pairs of the caller's ns per call (*call) and of the
 * target's ns lost per call (*target).  False if membarrier does not work
 * here. */
static bool mb_batch(double *call, double *target)
{
	double c[MB_PAIRS], lost[MB_PAIRS];
	pthread_t t;
	pin(0);
	mb_on = mb_stop = 0;
	if (pthread_create(&t, NULL, mb_thread, NULL))
		return false;
	double off = mb_phase();
	for (int p = 0; p < MB_PAIRS; p++) {
		uint64_t n0 = mb_calls, t0 = now_ns();
		mb_on = 1;
		double on = mb_phase();
		mb_on = 0;
		uint64_t calls = mb_calls - n0, ns = now_ns() - t0;
		double off2 = mb_phase();
		double per_s = calls ? (double)calls * 1e9 / (double)ns : 0;
		c[p] = calls ? (double)ns / (double)calls : 0;
		/* the rate lost against the phases either side, per call */
		lost[p] = per_s ? (1.0 - on / ((off + off2) / 2)) / per_s * 1e9 : 0;
		off = off2;
	}
	mb_stop = 1;
	pthread_join(t, NULL);
	*call = median(c, MB_PAIRS);
	*target = median(lost, MB_PAIRS);
	return *call > 0;
}

int main(int argc, char **argv)
{
	verbose = argc > 1 && !strcmp(argv[1], "-v");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "twin_costs: needs 2 CPUs\n");
		return 1;
	}
	/* while the process has one thread: registering is cheap then */
	bool mb = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
	for (int i = 0; i < 512; i++)       /* a cycle through 8 lines of 4 KiB */
		chase[i] = &chase[(i + 8) % 512];
	static struct pp p;
	double pause[BATCHES], l1[BATCHES], atom[BATCHES], xfer[BATCHES], fwait[BATCHES];
	double fwake0[BATCHES], fwake[BATCHES], lat[BATCHES], ctx[BATCHES], slice[BATCHES];
	double jit[BATCHES], tsw[BATCHES], mbc[BATCHES], mbt[BATCHES];
	uint64_t P = tick_period_ns();
	for (int b = 0; b < BATCHES; b++) {
		pin(0);
		pause[b] = per_op(do_pause, 10000);
		l1[b] = per_op(do_chase, 100000);
		atom[b] = per_op(do_atomic, 100000);
		fwait[b] = per_op(do_futex_wait, 1000);
		fwake0[b] = per_op(do_futex_wake0, 1000);
		pp_batch(&p, PP_SPIN, 1);
		xfer[b] = median(p.block, ROUNDS / BLOCK - 1);
		pp_batch(&p, PP_FUTEX, 1);
		fwake[b] = median(p.wake, ROUNDS);
		lat[b] = median(p.lat + 1, ROUNDS - 1);
		pp_batch(&p, PP_FUTEX, 0);
		/* a hand-off on one CPU: the wake, the waiter's FUTEX_WAIT
		 * (enter, sleep), the switch, and the return to user; the
		 * median of the hand-offs thread 1 timed from thread 0's wake */
		ctx[b] = median(p.lat + 1, ROUNDS - 1) - fwait[b] - fwake0[b];
		struct slice_fig sf = slice_batch(P);
		slice[b] = sf.run;
		jit[b] = sf.jitter;
		tsw[b] = sf.tick_switch;
		if (mb)
			mb = mb_batch(&mbc[b], &mbt[b]);
	}
	printf("pause_ns %.1f\n", figure("pause_ns", pause));
	printf("l1_ns %.2f\n", figure("l1_ns", l1));
	printf("atomic_ns %.1f\n", figure("atomic_ns", atom));
	printf("xfer_ns %.1f\n", figure("xfer_ns", xfer));
	printf("futex_wait_ns %.0f\n", figure("futex_wait_ns", fwait));
	printf("futex_wake0_ns %.0f\n", figure("futex_wake0_ns", fwake0));
	printf("futex_wake_ns %.0f\n", figure("futex_wake_ns", fwake));
	printf("wake_lat_ns %.0f\n", figure("wake_lat_ns", lat));
	printf("ctx_switch_ns %.0f\n", figure("ctx_switch_ns", ctx));
	printf("slice_ns %.0f\n", figure("slice_ns", slice));
	if (P) {
		printf("tick_ns %llu\n", (unsigned long long)P);
		printf("tick_jitter_ns %.0f\n", figure("tick_jitter_ns", jit));
		printf("tick_switch_ns %.0f\n", figure("tick_switch_ns", tsw));
	}
	if (mb) {
		printf("membarrier_ns %.0f\n", figure("membarrier_ns", mbc));
		printf("membarrier_target_ns %.0f\n", figure("membarrier_target_ns", mbt));
	}
	return 0;
}

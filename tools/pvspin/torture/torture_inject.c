/*
 * torture_inject.c - preemption injection of `pvspin torture`.
 *
 * A thread cannot be SIGSTOPped alone (SIGSTOP stops the whole process),
 * so a writer is "stopped" with a real-time signal TORTURE_SIG_STOP whose
 * handler parks it in sigsuspend() until its stop_req flag is cleared and
 * TORTURE_SIG_CONT arrives.  TORTURE_SIG_CONT is blocked while the stop
 * handler runs and unblocked only atomically inside sigsuspend(), so a
 * continue sent between the flag check and the suspend is not lost.  The
 * handler takes no lock and calls only async-signal-safe functions: it may
 * interrupt a writer anywhere (spinning, halted in pv_wait, holding the
 * lock), which is the point - lock holder and lock waiter preemption on
 * demand.  Affinity changes (pthread_setaffinity_np) pin a writer to one
 * CPU of the process's allowed set for a while, crowding it onto a CPU
 * with others.  Both are bounded in time, far below the stall watchdog's
 * threshold, so a correct lock always recovers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "torture.h"
#include "lock/qnode.h"

#define TORTURE_SIG_STOP (SIGRTMIN + 2)
#define TORTURE_SIG_CONT (SIGRTMIN + 3)

/* Longest injected stop / pin, ms. */
#define STOP_MAX_MS 20
#define PIN_MIN_MS 10
#define PIN_MAX_MS 100

static _Thread_local struct torture_writer *tls_writer;
static sigset_t suspend_mask;   /* everything blocked but TORTURE_SIG_CONT */

static void stop_handler(int sig)
{
	struct torture_writer *w = tls_writer;
	int saved_errno = errno;

	(void)sig;
	if (!w)
		return;
	__atomic_store_n(&w->stopped, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&w->stop_req, __ATOMIC_ACQUIRE))
		sigsuspend(&suspend_mask);
	__atomic_store_n(&w->stopped, 0, __ATOMIC_RELAXED);
	errno = saved_errno;
}

static void cont_handler(int sig)
{
	(void)sig;   /* only ends the sigsuspend() of stop_handler */
}

/* Stall diagnosis: record where this writer is (its program counter) and
 * its MCS nesting count, for torture_dump().  Async-signal-safe. */
static void diag_handler(int sig, siginfo_t *si, void *ctx)
{
	struct torture_writer *w = tls_writer;
	(void)sig;
	(void)si;
	if (!w)
		return;
#if defined(__x86_64__)
	__atomic_store_n(&w->diag_pc, (uint64_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP],
			 __ATOMIC_RELAXED);
#elif defined(__aarch64__)
	__atomic_store_n(&w->diag_pc, (uint64_t)((ucontext_t *)ctx)->uc_mcontext.pc,
			 __ATOMIC_RELAXED);
#else
	(void)ctx;
#endif
	if (w->slot >= 0)
		__atomic_store_n(&w->diag_count, pvspin_qnodes[w->slot][0].count, __ATOMIC_RELAXED);
	__atomic_fetch_add(&w->diag_seq, 1, __ATOMIC_RELEASE);
}

int torture_inject_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = diag_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(TORTURE_SIG_DIAG, &sa, NULL))
		return -1;

	sigfillset(&suspend_mask);
	sigdelset(&suspend_mask, TORTURE_SIG_CONT);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stop_handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, TORTURE_SIG_CONT);
	if (sigaction(TORTURE_SIG_STOP, &sa, NULL))
		return -1;
	sa.sa_handler = cont_handler;
	sigemptyset(&sa.sa_mask);
	return sigaction(TORTURE_SIG_CONT, &sa, NULL);
}

void torture_inject_register_writer(struct torture_writer *w)
{
	tls_writer = w;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void writer_continue(struct torture_writer *w)
{
	/* the stop's length, for the watchdog's excuse (torture_stopped_ns) */
	uint64_t begin = __atomic_exchange_n(&w->stop_begin_ns, 0, __ATOMIC_RELAXED);
	if (begin)
		__atomic_fetch_add(&w->stop_total_ns, tool_now_ns() - begin, __ATOMIC_RELAXED);
	__atomic_store_n(&w->stop_req, 0, __ATOMIC_RELEASE);
	pthread_kill(w->thread, TORTURE_SIG_CONT);
	w->resume_at_ns = 0;
}

static void writer_unpin(struct torture_writer *w, const cpu_set_t *all)
{
	pthread_setaffinity_np(w->thread, sizeof(*all), all);
	w->unpin_at_ns = 0;
}

void *torture_inject_main(void *arg)
{
	struct torture *t = arg;
	uint64_t rng = t->seed ^ 0x9E3779B97F4A7C15ull;
	cpu_set_t all;
	int cpus[CPU_SETSIZE], ncpus = 0, nstopped = 0;
	int max_stopped = t->nthreads / 4 > 0 ? t->nthreads / 4 : 1;

	if (!rng)
		rng = 1;
	CPU_ZERO(&all);
	if (sched_getaffinity(0, sizeof(all), &all))
		CPU_ZERO(&all);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all))
			cpus[ncpus++] = c;

	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
		sleep_ns(1000000u + tool_random(&rng) % 4000000u);
		uint64_t now = tool_now_ns();

		for (int i = 0; i < t->nthreads; i++) {
			struct torture_writer *w = &t->writers[i];
			if (w->resume_at_ns && now >= w->resume_at_ns) {
				writer_continue(w);
				nstopped--;
			}
			if (w->unpin_at_ns && now >= w->unpin_at_ns)
				writer_unpin(w, &all);
		}

		struct torture_writer *w = &t->writers[tool_random(&rng) % (uint64_t)t->nthreads];
		switch (tool_random(&rng) % 4) {
		case 0:
		case 1: /* stop a writer for 1..STOP_MAX_MS ms */
			if (w->resume_at_ns || nstopped >= max_stopped ||
			    __atomic_load_n(&w->phase, __ATOMIC_RELAXED) == TW_DONE)
				break;
			__atomic_store_n(&w->stop_begin_ns, now, __ATOMIC_RELAXED);
			__atomic_store_n(&w->stop_req, 1, __ATOMIC_RELEASE);
			if (pthread_kill(w->thread, TORTURE_SIG_STOP)) {
				__atomic_store_n(&w->stop_req, 0, __ATOMIC_RELEASE);
				__atomic_store_n(&w->stop_begin_ns, 0, __ATOMIC_RELAXED);
				break;
			}
			w->resume_at_ns = now + 1000000u * (1 + tool_random(&rng) % STOP_MAX_MS);
			nstopped++;
			__atomic_fetch_add(&t->stops, 1, __ATOMIC_RELAXED);
			break;
		case 2: /* pin a writer to one CPU for a while */
			if (w->unpin_at_ns || ncpus < 2)
				break;
			{
				cpu_set_t one;
				CPU_ZERO(&one);
				CPU_SET(cpus[tool_random(&rng) % (uint64_t)ncpus], &one);
				if (pthread_setaffinity_np(w->thread, sizeof(one), &one))
					break;
			}
			w->unpin_at_ns = now + 1000000u *
				(PIN_MIN_MS + tool_random(&rng) % (PIN_MAX_MS - PIN_MIN_MS + 1));
			__atomic_fetch_add(&t->pins, 1, __ATOMIC_RELAXED);
			break;
		default: /* leave them alone this time */
			break;
		}
	}

	for (int i = 0; i < t->nthreads; i++) {
		struct torture_writer *w = &t->writers[i];
		if (w->resume_at_ns)
			writer_continue(w);
		if (w->unpin_at_ns)
			writer_unpin(w, &all);
	}
	return NULL;
}

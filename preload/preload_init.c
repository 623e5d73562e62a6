/*
 * preload_init.c - libpvspin-preload.so's process-wide state: the lock
 * kind, the glibc functions for pass-through objects, futex helpers, and
 * the PVSPIN_STATS=1 counters printed at exit.
 *
 * Nothing here must be initialised before a wrapper can run: another
 * library's constructor may lock a mutex before ours ran (the library
 * constructors run dependencies-first, and a preloaded library comes late
 * in that order).  So the kind and the stats switch are resolved at first
 * use, and the constructor only resolves the glibc functions early (so
 * that dlsym, which may allocate, runs outside any wrapper).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "platform/env_switch.h"
#include "preload.h"
#include "util/value_quote.h"
#include "pvspin/platform.h"
#include "pvspin/spinlock.h"
#include "pvspin/stats.h"

/* ---- the kind ---------------------------------------------------------- */

pvspin_kind_t preload_kind_fixed = PVSPIN_KIND_NONE;
static _Thread_local int kind_resolving;

pvspin_kind_t preload_kind_resolve(void)
{
	pvspin_kind_t k, none = PVSPIN_KIND_NONE;
	if (kind_resolving) {
		/* Re-entered from the policy: fix tas for everyone, so the
		 * lock taken here and every later one agree on the kind. */
		k = PVSPIN_KIND_TAS;
	} else {
		kind_resolving = 1;
		k = pvspin_default_kind(); /* PVSPIN_LOCK, else the policy */
		kind_resolving = 0;
	}
	if (!__atomic_compare_exchange_n(&preload_kind_fixed, &none, k, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		k = none; /* first resolver wins */
	return k;
}

/* ---- counters ------------------------------------------------------------ */

int preload_stats_on = -1; /* -1: not read yet */

int preload_stats_enabled(void)
{
	int on = __atomic_load_n(&preload_stats_on, __ATOMIC_RELAXED);
	if (on < 0) {
		const char *s;
		int sw = pvspin_env_switch("PVSPIN_STATS", &s);
		on = sw == 1;
		if (sw < 0) {
			/* neither on nor off: said (one writev(2), not stdio:
			 * this may run where a lock is taken; the value whole,
			 * however long: it was cut at 60 bytes; quoted by the
			 * rule of every value's line, pvspin_value_quote():
			 * '1 ' showed as "1 :"), and off; a race of two first
			 * readers may say it twice */
			static const char pre[] = "pvspin: ignoring PVSPIN_STATS=";
			static const char post[] = ": " PVSPIN_STATS_EXPECTED "; the stats stay off\n";
			const char *q = pvspin_value_quote(s);
			struct iovec iov[5] = {
				{ (void *)pre, sizeof(pre) - 1 },
				{ (void *)q, strlen(q) },
				{ (void *)s, strlen(s) },
				{ (void *)q, strlen(q) },
				{ (void *)post, sizeof(post) - 1 },
			};
			(void)!writev(STDERR_FILENO, iov, 5);
		}
		__atomic_store_n(&preload_stats_on, on, __ATOMIC_RELAXED);
	}
	return on;
}

/* One line per thread slot (a slot has one owner at a time; it passes to
 * a new thread through the slot bitmap's release/acquire), so counting is
 * a plain relaxed load+store on a line no other thread writes. */
struct slot_counts {
	uint64_t n[PRELOAD_NEVENTS];
} __attribute__((aligned(64)));
_Static_assert(sizeof(struct slot_counts) == 64, "a slot's counters fill one cache line");

static struct slot_counts slot_counts[PVSPIN_MAX_CPUS];
static uint64_t slotless_counts[PRELOAD_NEVENTS]; /* threads without a slot */

void preload_count(unsigned events)
{
	int cpu = pvspin_plat_cpu();   /* the one look-up (it counts an exhausted pool) */
	for (; events; events &= events - 1) {
		int e = __builtin_ctz(events);
		if (cpu < 0) {
			/* relaxed RMW: shared by every slot-less thread, summed at exit */
			__atomic_fetch_add(&slotless_counts[e], 1, __ATOMIC_RELAXED);
		} else {
			/* relaxed load and store: the slot's line has one writer */
			uint64_t *c = &slot_counts[cpu].n[e];
			__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + 1,
					 __ATOMIC_RELAXED);
		}
	}
}

/* Is this copy of the library the one the program's calls reach?  When it
 * is loaded twice under two paths (LD_PRELOAD naming both), the first in
 * the lookup order wins every call; the other stays silent at exit. */
static bool this_copy_is_active(void)
{
	Dl_info mine, used;
	void *p = dlsym(RTLD_DEFAULT, "pthread_mutex_lock");
	if (!p || !dladdr(p, &used) || !dladdr((void *)&preload_kind_resolve, &mine))
		return true;
	return used.dli_fbase == mine.dli_fbase;
}

static bool active_copy = true;

/* Where the stats line goes.  GNU coreutils (gnulib's close_stdout) and
 * other programs close stderr in an atexit() handler, which runs before
 * this library's destructor; so when stats are on, the constructor keeps
 * a private duplicate of fd 2, close-on-exec and numbered high (half the
 * RLIMIT_NOFILE soft limit, at most 1000, so it stays out of the way of
 * the program's own low descriptors and of select()'s FD_SETSIZE).  At
 * exit the line goes to fd 2 while fd 2 is open (so a program's own
 * redirection of stderr is honoured), else to the duplicate.  -1: none. */
static int stats_fd = -1;

static void stats_fd_open(void)
{
	if (fcntl(STDERR_FILENO, F_GETFD) < 0)
		return; /* started with stderr closed: nothing to keep */
	int low = 1000;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 2 < (rlim_t)low)
		low = (int)(rl.rlim_cur / 2);
	if (low < 3)
		low = 3;
	stats_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, low);
}

static void stats_write(const char *buf, size_t len)
{
	int fd = STDERR_FILENO;
	if (fcntl(fd, F_GETFD) < 0 && stats_fd >= 0)
		fd = stats_fd;
	ssize_t r = write(fd, buf, len);
	(void)r;
}

static void print_stats(void)
{
	/* relaxed: a sum of counters, exact once the counting threads are gone */
	unsigned long long cnt[PRELOAD_NEVENTS];
	for (int e = 0; e < PRELOAD_NEVENTS; e++) {
		cnt[e] = __atomic_load_n(&slotless_counts[e], __ATOMIC_RELAXED);
		for (int s = 0; s < PVSPIN_MAX_CPUS; s++)
			cnt[e] += __atomic_load_n(&slot_counts[s].n[e], __ATOMIC_RELAXED);
	}
	unsigned long long acq = cnt[PRELOAD_EV_ACQUIRE], con = cnt[PRELOAD_EV_CONTENDED];
	struct pvspin_events ev;
	struct pvspin_slot_stats sl;
	pvspin_events_read(&ev);
	pvspin_slots_read(&sl);
	/* Asked for, always printed: a process that took no interposed lock
	 * (a shell, a program that never locks) reports zeros and says so,
	 * rather than leaving the user to wonder whether stats were on.
	 * Halts and kicks are named so that they cannot read as lost
	 * wake-ups: most halt calls return at once (the lock changed, or a
	 * kick came first); each halt that slept was ended by a kick. */
	/* spinpark's own waiting (the halt fields are pvqspinlock's). */
	/* Sized for every counter at its largest (20 digits): the
	 * spinpark part up to 380 characters, the line up to about 880
	 * with it (it was cut at 255 and 767). */
	char sp[400] = "";
	if (__atomic_load_n(&preload_kind_fixed, __ATOMIC_ACQUIRE) == PVSPIN_KIND_SPINPARK)
		snprintf(sp, sizeof(sp),
			 " spin_acquire=%llu spin_fail=%llu park=%llu unpark=%llu handoff=%llu"
			 " starving=%llu slice_ext_yield=%llu handoff_revoke=%llu"
			 " slice_probe=%llu slice_on=%llu slice_sleep=%llu slice_pass=%llu",
			 (unsigned long long)ev.count[PVSPIN_EV_SPIN_ACQUIRE],
			 (unsigned long long)ev.count[PVSPIN_EV_SPIN_FAIL],
			 (unsigned long long)ev.count[PVSPIN_EV_PARK],
			 (unsigned long long)ev.count[PVSPIN_EV_UNPARK],
			 (unsigned long long)ev.count[PVSPIN_EV_HANDOFF],
			 (unsigned long long)ev.count[PVSPIN_EV_STARVING],
			 (unsigned long long)ev.count[PVSPIN_EV_SLICE_EXT_YIELD],
			 (unsigned long long)ev.count[PVSPIN_EV_HANDOFF_REVOKE],
			 (unsigned long long)ev.count[PVSPIN_EV_SLICE_PROBE],
			 (unsigned long long)ev.count[PVSPIN_EV_SLICE_ON],
			 (unsigned long long)ev.count[PVSPIN_EV_SLICE_SLEEP],
			 (unsigned long long)ev.count[PVSPIN_EV_SLICE_PASS]);
	char buf[1024];
	int n = snprintf(buf, sizeof(buf),
		"pvspin: stats pid=%ld lock=%s acquisitions=%llu contended=%llu halt_calls=%llu"
		" (pv_wait_node=%llu pv_wait_head=%llu) halt_sleeps=%llu unlock_kicks=%llu"
		" slots_in_use=%u slots_allocated=%llu slots_exhausted=%llu"
		" mutex_spin_acquire=%llu mutex_sleeps=%llu mutex_wakes=%llu%s%s\n",
		(long)getpid(), pvspin_kind_name(__atomic_load_n(&preload_kind_fixed, __ATOMIC_ACQUIRE)),
		acq, con,
		(unsigned long long)(ev.count[PVSPIN_EV_PV_WAIT_NODE] +
				     ev.count[PVSPIN_EV_PV_WAIT_HEAD]),
		(unsigned long long)ev.count[PVSPIN_EV_PV_WAIT_NODE],
		(unsigned long long)ev.count[PVSPIN_EV_PV_WAIT_HEAD],
		(unsigned long long)ev.count[PVSPIN_EV_PV_KICK_WAKE],
		(unsigned long long)ev.count[PVSPIN_EV_PV_KICK_UNLOCK],
		sl.in_use, (unsigned long long)sl.allocated,
		(unsigned long long)sl.exhausted, cnt[PRELOAD_EV_MUTEX_SPIN_ACQUIRE],
		cnt[PRELOAD_EV_MUTEX_SLEEP], cnt[PRELOAD_EV_MUTEX_WAKE], sp,
		acq ? "" : " (no lock was taken)");
	if (n > 0)
		stats_write(buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* Print the line at most once per process.  The pid, not a flag, says
 * whether it was printed: a vfork() child that leaves through _exit()
 * shares this memory, and must not silence its parent's line. */
static pid_t stats_printed_pid;

static void print_stats_once(void)
{
	pid_t me = getpid();
	if (__atomic_exchange_n(&stats_printed_pid, me, __ATOMIC_ACQ_REL) == me)
		return;
	print_stats();
}

/* ---- the glibc functions --------------------------------------------------- */

static struct preload_real real_table;
static int real_state; /* 0 unresolved, 1 resolving, 2 resolved */
static _Thread_local int real_resolving_here;

/* The versions are x86_64's (the only ones glibc 2.34+ still has as
 * defaults for these names plus the 2.3.2 condvar); dlvsym picks exactly
 * the implementation a program linked today calls, never the pre-2.3.2
 * compatibility condvar that plain dlsym returned on some glibcs.  Where
 * a version does not exist (other architectures) dlsym's default is
 * right. */
static void *real_sym(const char *name, const char *version)
{
	void *p = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
	if (!p)
		p = dlsym(RTLD_NEXT, name);
	return p;
}

static void real_resolve(void)
{
	struct preload_real *r = &real_table;
	r->mutex_init = real_sym("pthread_mutex_init", "GLIBC_2.2.5");
	r->mutex_destroy = real_sym("pthread_mutex_destroy", "GLIBC_2.2.5");
	r->mutex_lock = real_sym("pthread_mutex_lock", "GLIBC_2.2.5");
	r->mutex_trylock = real_sym("pthread_mutex_trylock", "GLIBC_2.2.5");
	r->mutex_timedlock = real_sym("pthread_mutex_timedlock", "GLIBC_2.2.5");
	r->mutex_clocklock = real_sym("pthread_mutex_clocklock", "GLIBC_2.30");
	r->mutex_unlock = real_sym("pthread_mutex_unlock", "GLIBC_2.2.5");
	r->cond_init = real_sym("pthread_cond_init", "GLIBC_2.3.2");
	r->cond_destroy = real_sym("pthread_cond_destroy", "GLIBC_2.3.2");
	r->cond_wait = real_sym("pthread_cond_wait", "GLIBC_2.3.2");
	r->cond_timedwait = real_sym("pthread_cond_timedwait", "GLIBC_2.3.2");
	r->cond_clockwait = real_sym("pthread_cond_clockwait", "GLIBC_2.30");
	r->cond_signal = real_sym("pthread_cond_signal", "GLIBC_2.3.2");
	r->cond_broadcast = real_sym("pthread_cond_broadcast", "GLIBC_2.3.2");
	if (!r->mutex_init || !r->mutex_destroy || !r->mutex_lock || !r->mutex_trylock ||
	    !r->mutex_timedlock || !r->mutex_unlock || !r->cond_init || !r->cond_destroy ||
	    !r->cond_wait || !r->cond_timedwait || !r->cond_signal || !r->cond_broadcast) {
		static const char msg[] =
			"pvspin-preload: cannot find glibc's pthread functions (dlsym RTLD_NEXT)\n";
		ssize_t w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
		(void)w;
		abort();
	}
}

const struct preload_real *preload_real(void)
{
	if (__builtin_expect(__atomic_load_n(&real_state, __ATOMIC_ACQUIRE) == 2, 1))
		return &real_table;
	if (real_resolving_here)
		return NULL; /* dlsym -> malloc -> a pass-through lock: no recursion */
	int expect = 0;
	if (__atomic_compare_exchange_n(&real_state, &expect, 1, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		real_resolving_here = 1;
		real_resolve();
		real_resolving_here = 0;
		__atomic_store_n(&real_state, 2, __ATOMIC_RELEASE);
		return &real_table;
	}
	while (__atomic_load_n(&real_state, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
	return &real_table;
}

/* ---- futex --------------------------------------------------------------- */

int preload_futex_wait(uint32_t *word, uint32_t val, clockid_t clock,
		       const struct timespec *abstime)
{
	long r;
	if (abstime) {
		if (abstime->tv_sec < 0)
			return ETIMEDOUT;
		int op = FUTEX_WAIT_BITSET_PRIVATE;
		if (clock == CLOCK_REALTIME)
			op |= FUTEX_CLOCK_REALTIME;
		r = syscall(SYS_futex, word, op, val, abstime, NULL, FUTEX_BITSET_MATCH_ANY);
	} else {
		r = syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
	}
	if (r == 0)
		return 0;
	if (errno == ETIMEDOUT)
		return ETIMEDOUT;
	if (errno == EINTR)
		return EINTR;
	return 0; /* EAGAIN: the word changed already */
}

void preload_futex_wake(uint32_t *word, int n)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* ---- identity ---------------------------------------------------------------- */

/* The one exported symbol no other library has: `pvspin run` reads the
 * dynamic symbol table of the file it is about to preload and refuses one
 * that does not define it (tools/pvspin/cmd_run.c, PRELOAD_MARKER), since
 * ld.so would preload any shared library, libz as well, and the program
 * would run on glibc's locks with nothing said.  Never read at run time. */
PVSPIN_EXPORT const char pvspin_preload_marker[] = "libpvspin-preload.so";

/* ---- constructor and destructor ------------------------------------------- */

/* A fork child is a process of its own, with its own stats line: its
 * counts start from zero, not from its parent's (which every child's line
 * used to repeat).  The library's counters restart the same way
 * (src/platform/native.c). */
static void stats_after_fork_child(void)
{
	if (!preload_stats_enabled())
		return;   /* nothing was counted: touch no page */
	/* only the slots ever used (the platform's high-water mark): all
	 * 4096 would copy 256 KiB of pages in every child */
	struct pvspin_slot_stats sl;
	pvspin_slots_read(&sl);
	memset(slotless_counts, 0, sizeof(slotless_counts));
	memset(slot_counts, 0, (size_t)sl.high * sizeof(slot_counts[0]));
}

/* Misuse of a lock word under the interposer (pvspin_set_misuse_handler):
 * the library's default says "pvspin: KIND: WHAT", which did not tell a
 * user of `pvspin run` that it came from the program's own pthread lock
 * (helper-60: a pthread_spin_unlock of a word the program had written
 * 0x7 into, where glibc stores 0 and goes on).  The third cause it names,
 * a private lock (or one never initialised) in memory that several
 * processes map, aborted `pvspin run --lock pvqspinlock` with this line
 * (helper-64: the hash of a halted waiter's lock is per process).
 * Undefined behaviour that
 * glibc does not check; pvspin reports it and aborts, as for its own
 * locks (docs/architecture.md, "Misuse"). */
static void preload_misuse(const char *what, const void *lock, uint32_t word)
{
	fprintf(stderr, "pvspin run: misuse of a pthread lock at %p (word 0x%08x): %s; the program "
		"unlocked a lock it does not hold, wrote over the lock's memory, or shared a "
		"lock between processes without PTHREAD_PROCESS_SHARED (undefined behaviour, "
		"which glibc does not check); aborting\n", lock, word, what);
	abort();
}

__attribute__((constructor)) static void preload_init(void)
{
	int saved = errno;
	pvspin_set_misuse_handler(preload_misuse);
	pthread_atfork(NULL, NULL, stats_after_fork_child);
	active_copy = this_copy_is_active();
	(void)preload_real();
	(void)preload_kind();
	if (preload_stats_enabled() && active_copy)
		stats_fd_open();
	errno = saved;
}

__attribute__((destructor)) static void preload_fini(void)
{
	if (active_copy && preload_stats_enabled())
		print_stats_once();
}

/* ---- _exit ------------------------------------------------------------------ */

/* A process that leaves through _exit() or _Exit() (dash does, after every
 * builtin-only command; many programs do in a fork() child) runs no
 * destructor, so these wrappers print the stats line first and then end
 * the process exactly as glibc's _exit does: exit_group(2), the status
 * masked to 8 bits by the kernel.  Only calls the program makes are
 * caught; glibc's own internal _exit (at the end of exit(), in
 * posix_spawn's child) does not go through them.  With stats off they do
 * nothing but end the process.  POSIX: _exit is async-signal-safe; the
 * stats line is formatted with snprintf, which glibc implements without
 * locks or allocation for these conversions. */
static _Noreturn void exit_now(int status)
{
	for (;;)
		syscall(SYS_exit_group, status);
}

PVSPIN_EXPORT void _exit(int status)
{
	if (active_copy && __atomic_load_n(&preload_stats_on, __ATOMIC_RELAXED) > 0)
		print_stats_once();
	exit_now(status);
}

PVSPIN_EXPORT void _Exit(int status)
{
	_exit(status);
}

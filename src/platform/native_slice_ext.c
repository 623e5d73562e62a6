/*
 * native_slice_ext.c - the native platform's rseq time-slice extension
 * (pvspin_plat_slice_ext_begin / _end, pvspin/platform_native.h): a lock
 * holder asks the kernel not to preempt it for a few microseconds
 * (Linux 7.0, PR_RSEQ_SLICE_EXTENSION; the ABI is in rseq_slice_ext.h,
 * after Documentation/userspace-api/rseq.rst).
 *
 * Per thread, on its first request: the C library must have registered an
 * rseq area (glibc >= 2.35 exports __rseq_offset and __rseq_size; a size
 * of 0 means it did not, e.g. glibc.pthread.rseq=0), and
 * prctl(PR_RSEQ_SLICE_EXTENSION_SET, ENABLE) must succeed.  Then the
 * thread's slice_ctrl is at the thread pointer + __rseq_offset + 28,
 * inside the 32 bytes every registration allocates.  EINVAL (a kernel
 * before 7.0, or one without CONFIG_RSEQ_SLICE_EXTENSION) or ENOTSUPP
 * (disabled on the command line) turns the extension off for the whole
 * process, so later threads make no system call; ENXIO (this thread has no
 * rseq area) for this thread only.  Either way the lock runs as before:
 * nothing is written to the rseq area unless the kernel enabled it.
 *
 * Nesting.  The request is for one lock at a time (tls_slice_owner): the
 * unlock of another lock, nested inside, leaves it, and a nested
 * request moves it to the inner lock, whose unlock withdraws it (a hint
 * lost for the rest of the outer hold, never a fault: the kernel's grant
 * ends at the next system call or after its 5-50 us timer in any case).
 * A request is never set while a grant is active: the kernel cleared the
 * request when it granted, and with rseq debugging on it kills a thread
 * whose slice_ctrl shows both at a system call.  Both calls are
 * async-signal-safe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pvspin/platform.h"
#include "platform/native_slice_ext.h"
#include "platform/rseq_slice_ext.h"

/* glibc's rseq registration (2.35+); weak, so that a C library without
 * it links and reads as "no rseq area". */
extern const ptrdiff_t __rseq_offset __attribute__((weak));
extern const unsigned int __rseq_size __attribute__((weak));

/* The process: 0 may be available, 1 unavailable in this kernel or C
 * library (no thread tries again). */
static int slice_ext_off;

/* Set (relaxed, sticky) once some thread has a slice_ctrl: only then do
 * unlocks look at their thread's state (pvspin_plat_slice_ext_end). */
int pvspin_plat_slice_ext_used;

/* The thread: its slice_ctrl once enabled, else NULL; tried: enabling
 * was attempted (it is not attempted again). */
static _Thread_local uint8_t *tls_slice_ctrl;
static _Thread_local bool tls_slice_tried;
/* The lock the current request is for (NULL: none). */
static _Thread_local const void *tls_slice_owner;

/* Enable the extension for this thread (once); its slice_ctrl or NULL. */
static uint8_t *slice_ext_enable(void)
{
	tls_slice_tried = true;
#if defined(PVSPIN_NR_RSEQ_SLICE_YIELD) && defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer)
	if (__atomic_load_n(&slice_ext_off, __ATOMIC_RELAXED))
		return NULL;
	if (!&__rseq_size || !&__rseq_offset || __rseq_size == 0) {
		__atomic_store_n(&slice_ext_off, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	if (prctl(PVSPIN_PR_RSEQ_SLICE_EXTENSION, PVSPIN_PR_RSEQ_SLICE_EXTENSION_SET,
		  PVSPIN_PR_RSEQ_SLICE_EXT_ENABLE, 0, 0) != 0) {
		/* EINVAL, ENOTSUPP (524, not in errno.h): the process's answer */
		if (errno != ENXIO)
			__atomic_store_n(&slice_ext_off, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	tls_slice_ctrl = (uint8_t *)__builtin_thread_pointer() + __rseq_offset +
			 PVSPIN_RSEQ_SLICE_CTRL_OFFSET;
	__atomic_store_n(&pvspin_plat_slice_ext_used, 1, __ATOMIC_RELAXED);
	return tls_slice_ctrl;
#endif
#endif
	return NULL;
}

bool pvspin_plat_slice_ext_begin(const void *lock)
{
	uint8_t *c = tls_slice_ctrl;
	if (__builtin_expect(!c, 1)) {
		if (tls_slice_tried || !(c = slice_ext_enable()))
			return false;
	}
	tls_slice_owner = lock;
	/* CPU-local: the kernel reads it on this thread's CPU, so a plain
	 * store and a compiler barrier (rseq.rst) order it before the
	 * critical section.  Not during a grant (file comment). */
	if (!__atomic_load_n(&c[PVSPIN_RSEQ_SLICE_GRANTED], __ATOMIC_RELAXED))
		__atomic_store_n(&c[PVSPIN_RSEQ_SLICE_REQUEST], 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return true;
}

void pvspin_plat_slice_ext_end_slow(const void *lock)
{
	uint8_t *c = tls_slice_ctrl;
	if (__builtin_expect(!c, 1) || lock != tls_slice_owner)
		return;
	tls_slice_owner = NULL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&c[PVSPIN_RSEQ_SLICE_REQUEST], 0, __ATOMIC_RELAXED);
	/* Granted: the kernel deferred a preemption for us; give the CPU
	 * back now (racy by nature: a grant revoked meanwhile makes the call
	 * a no-op, rseq.rst). */
	if (__atomic_load_n(&c[PVSPIN_RSEQ_SLICE_GRANTED], __ATOMIC_RELAXED)) {
		pvspin_plat_event(PVSPIN_EV_SLICE_EXT_YIELD);
#ifdef PVSPIN_NR_RSEQ_SLICE_YIELD
		(void)syscall(PVSPIN_NR_RSEQ_SLICE_YIELD);
#endif
	}
}

uint8_t *pvspin_slice_ext_ctrl(bool *tried)
{
	if (tried)
		*tried = tls_slice_tried;
	return tls_slice_ctrl;
}

void pvspin_slice_ext_attach_for_test(uint8_t *ctrl)
{
	tls_slice_ctrl = ctrl;
	tls_slice_tried = true;
	tls_slice_owner = NULL;
	if (ctrl)
		__atomic_store_n(&pvspin_plat_slice_ext_used, 1, __ATOMIC_RELAXED);
}

/*
 * rseq_slice_ext.h - the Linux 7.0 ABI of the rseq time-slice extension
 * (Documentation/userspace-api/rseq.rst, "Scheduler time slice
 * extensions"; include/uapi/linux/prctl.h and linux/rseq.h), for the
 * native platform (native_slice_ext.c) and the environment probe
 * (src/policy/env_detect.c).  Private to src/.  Values written out here
 * because the build machine's headers (Debian 12: Linux 6.1 uapi) predate
 * them.
 *
 * The flow the kernel documents: set rseq::slice_ctrl.request to 1 on
 * entering a critical section; on leaving it set request to 0, and if the
 * kernel set rseq::slice_ctrl.granted meanwhile (it deferred a preemption
 * for up to debugfs rseq/slice_ext_nsec, 5 us by default), give the CPU
 * back with rseq_slice_yield(2).  Any other system call inside a granted
 * extension also ends it.  Enabled per thread with
 * prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_SET,
 * PR_RSEQ_SLICE_EXT_ENABLE, 0, 0), which needs a registered rseq area
 * (glibc registers one for every thread since 2.35).
 */
#ifndef PVSPIN_RSEQ_SLICE_EXT_H
#define PVSPIN_RSEQ_SLICE_EXT_H

/* prctl(2) option and its sub-commands (include/uapi/linux/prctl.h). */
#define PVSPIN_PR_RSEQ_SLICE_EXTENSION 79
#define PVSPIN_PR_RSEQ_SLICE_EXTENSION_GET 1
#define PVSPIN_PR_RSEQ_SLICE_EXTENSION_SET 2
#define PVSPIN_PR_RSEQ_SLICE_EXT_ENABLE 0x01

/* struct rseq: slice_ctrl follows cpu_id_start (0), cpu_id (4), rseq_cs
 * (8), flags (16), node_id (20) and mm_cid (24), inside the original 32
 * bytes that every registration allocates.  Its first byte is `request`
 * (user space sets it, the kernel clears it when it grants), the second
 * `granted` (the kernel's; user space only reads it). */
#define PVSPIN_RSEQ_SLICE_CTRL_OFFSET 28
#define PVSPIN_RSEQ_SLICE_REQUEST 0
#define PVSPIN_RSEQ_SLICE_GRANTED 1

/* rseq_slice_yield(2): 471 in the x86-64 table and in the generic one
 * (arm64, riscv).  Elsewhere, unless the C library's headers name it,
 * the extension is not used. */
#if defined(__NR_rseq_slice_yield)
#define PVSPIN_NR_RSEQ_SLICE_YIELD __NR_rseq_slice_yield
#elif defined(__x86_64__) || defined(__aarch64__) || (defined(__riscv) && __riscv_xlen == 64)
#define PVSPIN_NR_RSEQ_SLICE_YIELD 471
#endif

#endif /* PVSPIN_RSEQ_SLICE_EXT_H */

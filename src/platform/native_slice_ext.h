/*
 * native_slice_ext.h - the native rseq time-slice extension's state, for
 * tests and diagnostics (native_slice_ext.c).  Private to src/ and test/.
 */
#ifndef PVSPIN_NATIVE_SLICE_EXT_H
#define PVSPIN_NATIVE_SLICE_EXT_H

#include <stdbool.h>
#include <stdint.h>

/** The calling thread's rseq slice_ctrl (4 bytes: request, granted,
 *  reserved) if the kernel enabled the extension for it, else NULL; *tried
 *  (if not NULL): whether enabling was attempted (at its first slow-path
 *  acquisition of a spinpark lock).  Thread-local state; any
 *  thread may call it for itself. */
uint8_t *pvspin_slice_ext_ctrl(bool *tried);

/** Tests only: use ctrl[0..3] as this thread's slice_ctrl, as if the
 *  kernel had enabled the extension (NULL: as if it had refused), so the
 *  request / grant / yield protocol can be checked on a kernel without it.
 *  A granted byte set by the test makes the next withdrawal count
 *  PVSPIN_EV_SLICE_EXT_YIELD and call rseq_slice_yield(2) (ENOSYS before
 *  Linux 7.0, harmless).  Affects the calling thread only. */
void pvspin_slice_ext_attach_for_test(uint8_t *ctrl);

#endif /* PVSPIN_NATIVE_SLICE_EXT_H */

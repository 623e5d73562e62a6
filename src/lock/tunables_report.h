/*
 * tunables_report.h - whether the library's load-time read of the
 * PVSPIN_* tunable variables reports a bad value.  Private to the
 * project: src/lock/tunables.c has the library's (weak) definition, the
 * `pvspin` tool (tools/pvspin/main.c) the strong one that turns it off.
 */
#ifndef PVSPIN_SRC_LOCK_TUNABLES_REPORT_H
#define PVSPIN_SRC_LOCK_TUNABLES_REPORT_H

#include <stdbool.h>

/**
 * True if the library, when it reads the environment (its constructor,
 * or the first tunable read if a lock came first), prints "pvspin:
 * ignoring VAR=VALUE: ..." for each bad value; the bad value is ignored
 * (the default kept) either way.  The library's definition is weak and
 * returns true; a program linked with libpvspin.a that checks the
 * environment itself with pvspin_tunables_check_env() defines it to
 * return false, so that its users hear about a bad value once, in the
 * program's words.  Called once per process, from the read, possibly
 * before main() and before any other constructor of the program: it must
 * depend on nothing that needs initialising.  Thread-safe.
 */
__attribute__((visibility("hidden"))) bool pvspin_tunables_report_at_load(void);

#endif /* PVSPIN_SRC_LOCK_TUNABLES_REPORT_H */

/*
 * cmd.h - the subcommands of `pvspin`.  Each is defined in its own file;
 * weak declarations let a build leave one out (main.c then says so).
 */
#ifndef PVSPIN_TOOLS_CMD_H
#define PVSPIN_TOOLS_CMD_H

/** A subcommand: argv[0] is its name; returns the process exit status
 *  (0 success, 1 failure of what was asked, 2 bad usage). */
typedef int (*pvspin_cmd_fn)(int argc, char **argv);

int pvspin_cmd_bench(int argc, char **argv) __attribute__((weak));
int pvspin_cmd_detect(int argc, char **argv) __attribute__((weak));
int pvspin_cmd_sim(int argc, char **argv) __attribute__((weak));
int pvspin_cmd_torture(int argc, char **argv) __attribute__((weak));
int pvspin_cmd_run(int argc, char **argv) __attribute__((weak));

/** Flush stdout (a report written while the run goes on, as torture's
 *  statistics lines are) and keep the errno of the first flush that
 *  failed, so that the exit status's message names it (a later fflush
 *  of a stream whose error flag is set fails without an errno).  Returns
 *  0, or -1 if this flush failed.  Thread-safe (stdio locks the stream;
 *  the errno is kept by compare-and-swap). */
int pvspin_stdout_flush(void);

#endif

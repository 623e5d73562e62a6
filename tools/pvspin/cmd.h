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

#endif

/*
 * main.c - the `pvspin` command: dispatch to a subcommand.
 *
 * Each subcommand is `int pvspin_cmd_NAME(int argc, char **argv)` in its own
 * file (argv[0] is the subcommand name; returns the exit status).  A
 * subcommand not linked into this build is reported as such.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const struct {
	const char *name;
	pvspin_cmd_fn fn;
	const char *help;
} commands[] = {
	{ "bench", pvspin_cmd_bench, "benchmark the locks and their peers on this machine" },
	{ "detect", pvspin_cmd_detect, "show the environment and each policy's lock choice" },
	{ "sim", pvspin_cmd_sim, "run the deterministic hypervisor simulator" },
	{ "torture", pvspin_cmd_torture, "torture-test a lock kind (after locktorture)" },
	{ "run", pvspin_cmd_run, "run a program with its pthread locks on pvspin" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: pvspin COMMAND [OPTIONS]   (pvspin COMMAND --help for its options)\n\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (commands[i].fn)
			fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
}

/* A report written to a full or closed stdout is a failure, not a
 * success: flush it here and say so. */
static int exit_status(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "pvspin: cannot write to standard output: %s\n", strerror(errno));
		return rc ? rc : 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		if (!commands[i].fn) {
			fprintf(stderr, "pvspin: '%s' is not part of this build\n", argv[1]);
			return 2;
		}
		return exit_status(commands[i].fn(argc - 1, argv + 1));
	}
	fprintf(stderr, "pvspin: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}

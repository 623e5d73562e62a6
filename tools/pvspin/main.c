/*
 * main.c - the `pvspin` command: dispatch to a subcommand.
 *
 * Each subcommand is `int pvspin_cmd_NAME(int argc, char **argv)` in its own
 * file (argv[0] is the subcommand name; returns the exit status).  A
 * subcommand not linked into this build is reported as such.  `pvspin
 * --help` (or `help`) lists them, `pvspin help COMMAND` is `pvspin COMMAND
 * --help`, `pvspin --version` prints the version.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "lock/tunables_report.h"

#ifndef PVSPIN_VERSION
#define PVSPIN_VERSION "unknown"
#endif

/* The library linked into this tool must not say "pvspin: ignoring
 * PVSPIN_X=..." when it reads the environment at load: run, bench and
 * torture check it themselves (tool_env_check(), env_check.h) and refuse a
 * bad value with exit 2, naming it; detect and sim, which take no value
 * from the tunables (sim's are keys), say "pvspin detect: ignoring ..."
 * themselves (pvspin_tunables_report_ignored()) and go on.  This
 * strong definition overrides the library's weak one at link time
 * (src/lock/tunables.c); it is not inherited by what `pvspin run` execs,
 * whose interposer reports as in any other program. */
bool pvspin_tunables_report_at_load(void)
{
	return false;
}

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
	fprintf(f, "usage: pvspin COMMAND [OPTIONS]   (pvspin help COMMAND for its options)\n"
		   "       pvspin --version\n\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (commands[i].fn)
			fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
}

/* The errno of the first flush of stdout that failed (0: none); set
 * once, by compare-and-swap, as torture's watchdog flushes from a thread
 * of its own. */
static int stdout_errno;

int pvspin_stdout_flush(void)
{
	errno = 0;
	if (!fflush(stdout))
		return 0;
	int none = 0;
	__atomic_compare_exchange_n(&stdout_errno, &none, errno, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	return -1;
}

/* A report written to a full or closed stdout is a failure, not a
 * success: flush it here and say so, naming the command ("pvspin" or
 * "pvspin torture") and the error of the first flush that failed
 * (pvspin_stdout_flush: this one, or one during the run). */
static int exit_status(const char *cmd, int rc)
{
	pvspin_stdout_flush();
	int e = __atomic_load_n(&stdout_errno, __ATOMIC_RELAXED);
	if (e || ferror(stdout)) {
		/* a write that failed inside printf, not in a flush of ours,
		 * left the error flag without its errno */
		fprintf(stderr, "%s: cannot write to standard output: %s\n", cmd,
			e ? strerror(e) : "an earlier write failed (a full disk, a closed pipe?)");
		return rc ? rc : 1;
	}
	return rc;
}

/* A word where a command is expected that starts with '-' (not "-"
 * alone) is an option, not a command: "unknown option" (its "=VALUE"
 * left out), said as the subcommands say it (option_error.h), with where
 * the options are; `who` is "pvspin" or "pvspin help".  Returns 2. */
static int unknown_option(const char *who, const char *arg)
{
	fprintf(stderr, "%s: unknown option '%.*s'\n(pvspin --help lists the commands and "
		"options)\n", who, (int)strcspn(arg, "="), arg);
	return 2;
}

/* Is `arg` an option (a word starting with '-', not "-" alone)? */
static bool is_option(const char *arg)
{
	return arg[0] == '-' && arg[1];
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	/* "--version=1", "--help=x": said as the subcommands say it for a
	 * flag given a value (option_error.h), not "unknown command" */
	static const char *const flags[] = { "--version", "--help" };
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		size_t n = strlen(flags[i]);
		if (!strncmp(argv[1], flags[i], n) && argv[1][n] == '=') {
			fprintf(stderr, "pvspin: option '%s' takes no value\n", flags[i]);
			return 2;
		}
	}
	if (!strcmp(argv[1], "--version")) {
		if (argc > 2) {
			fprintf(stderr, "pvspin: --version takes no argument (got '%s')\n", argv[2]);
			return 2;
		}
		printf("pvspin " PVSPIN_VERSION "\n");
		return exit_status("pvspin", 0);
	}
	/* the subcommand's own argv: argv[0] is its name */
	int cargc = argc - 1;
	char **cargv = argv + 1;
	char *help_argv[] = { NULL, (char *)"--help", NULL };
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		bool is_help = !strcmp(argv[1], "help");
		if (argc > (is_help ? 3 : 2)) {
			fprintf(stderr, "pvspin: %s takes %s (got '%s')\n", argv[1],
				is_help ? "at most one command name" : "no argument",
				argv[is_help ? 3 : 2]);
			return 2;
		}
		/* pvspin help, pvspin help help, pvspin help -h / --help: the
		 * command list; another option after help is not a command */
		if (argc < 3 || !is_help || !strcmp(argv[2], "help") || !strcmp(argv[2], "-h") ||
		    !strcmp(argv[2], "--help")) {
			usage(stdout);
			return exit_status("pvspin", 0);
		}
		if (is_option(argv[2]))
			return unknown_option("pvspin help", argv[2]);
		/* pvspin help COMMAND: that command's --help */
		help_argv[0] = argv[2];
		cargc = 2;
		cargv = help_argv;
	}
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strcmp(cargv[0], commands[i].name))
			continue;
		if (!commands[i].fn) {
			fprintf(stderr, "pvspin: '%s' is not part of this build\n", cargv[0]);
			return 2;
		}
		char cmd[32];
		snprintf(cmd, sizeof(cmd), "pvspin %s", commands[i].name);
		return exit_status(cmd, commands[i].fn(cargc, cargv));
	}
	if (is_option(cargv[0]))
		return unknown_option("pvspin", cargv[0]);
	fprintf(stderr, "pvspin: unknown command '%s'\n\n", cargv[0]);
	usage(stderr);
	return 2;
}

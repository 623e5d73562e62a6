/*
 * cmd_sim.c - `pvspin sim ...`: run the hypervisor simulator.
 *
 * The simulator compiles the lock sources against its own platform backend,
 * so it cannot live in this binary (the symbols would clash with the native
 * library); it is the separate executable `pvspin-sim`.  This command execs
 * it with the same arguments: first `pvspin-sim` in the directory of the
 * running `pvspin` (readlink /proc/self/exe: the build tree or the install
 * prefix), then `pvspin-sim` from PATH.  Its argv[0] is "pvspin sim", so
 * getopt's messages name the command the user typed.  A PVSPIN_*
 * tunable variable, PVSPIN_LOCK or PVSPIN_POLICY, which the simulator
 * never reads, is said to be ignored first, bad or valid (not refused:
 * nothing here takes a value from it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lock/tunables_report.h"
#include "platform/env_switch.h"
#include "policy/policy_default.h"
#include "pvspin/lock.h"
#include "pvspin/policy.h"
#include "pvspin/tunables.h"
#include "cmd.h"
#include "option_error.h"

/* What every "ignoring PVSPIN_..." line of this command ends with. */
#define SIM_NOT_ENV "never from the environment"

/* PVSPIN_LOCK and PVSPIN_POLICY pick the default kind of this machine's
 * programs; the simulated guests' lock is the key `lock` (default
 * qspinlock, or vmN.lock), and the simulator has no policy.  Said as a
 * tunable is (below): once each, bad or valid, naming the key to use
 * instead, and the run goes on as without them (the rule of the
 * commands that take no value from a variable, detect and sim; run,
 * bench and torture, whose locks read them, refuse a bad one). */
static void say_kind_env_ignored(void)
{
	static const char key[] = "pvspin sim takes the guest lock kind only as a configuration key";
	pvspin_kind_t kind;
	pvspin_policy_t policy;
	int r = pvspin_default_lock_env(NULL, NULL, &kind);
	if (r > 0)
		fprintf(stderr, "pvspin sim: ignoring PVSPIN_LOCK=%s: %s (--set lock=%s), "
			SIM_NOT_ENV "\n", getenv("PVSPIN_LOCK"), key, pvspin_kind_name(kind));
	else if (r < 0) {
		const char *bad = getenv("PVSPIN_LOCK");
		fprintf(stderr, "pvspin sim: ignoring PVSPIN_LOCK=" PVSPIN_QUOTED ": not a lock kind; "
			"%s (--set lock=KIND, KIND one of %s), " SIM_NOT_ENV "\n",
			PVSPIN_QUOTED_ARGS(bad), key, pvspin_kind_names());
	}
	r = pvspin_default_policy_env(NULL, NULL, &policy);
	const char *pol = getenv("PVSPIN_POLICY");
	if (r)   /* a valid policy has no blank: quoted as a bad one would be */
		fprintf(stderr, "pvspin sim: ignoring PVSPIN_POLICY=" PVSPIN_QUOTED ": %spvspin sim "
			"picks no lock kind by policy; it takes the guest lock kind only as a "
			"configuration key (--set lock=KIND), " SIM_NOT_ENV "\n",
			PVSPIN_QUOTED_ARGS(pol), r < 0 ? "not a policy; " : "");
	/* a bad PVSPIN_STATS too, as detect says it (a valid one is the
	 * interposer's business and says nothing here: the simulator's lock
	 * events are always in its JSON) */
	const char *stats;
	if (pvspin_env_switch("PVSPIN_STATS", &stats) < 0)
		tool_value_line(stderr, "pvspin sim", "ignoring PVSPIN_STATS", '=', stats,
				PVSPIN_STATS_EXPECTED "; the simulated guests' lock events are "
				"always in the JSON", NULL);
}

/**
 * Exec pvspin-sim with argv[1..].  Returns only on failure: 1 with a
 * message naming where it looked when pvspin-sim cannot be found or run
 * (the command line was fine; what it asked for failed).
 */
int pvspin_cmd_sim(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 16];
	char **args = calloc((size_t)argc + 1, sizeof(char *));
	ssize_t n;

	if (!args) {
		fprintf(stderr, "pvspin sim: out of memory\n");
		return 1;
	}
	/* The simulator reads no PVSPIN_* tunable (spin_threshold, ... are
	 * its keys) and this tool's library is silent about a bad one at
	 * load (main.c): say it is ignored, as the other commands say a bad
	 * one (run, bench and torture refuse it), before the exec, and say
	 * so of a valid one too, which was ignored silently (a user who set
	 * PVSPIN_SPIN_THRESHOLD=64 saw the default's results).  Not applied:
	 * a run is a function of its configuration (preset, scenario, --set,
	 * seed), which the JSON repeats, not of the environment; and these
	 * variables tune this machine's threads, the keys the simulated
	 * guest's locks.  Once per variable, here, before the exec: the
	 * simulator's --seeds children say nothing more. */
	pvspin_tunables_report_ignored(stderr, "pvspin sim",
				       "; pvspin sim takes tunables only as configuration keys, "
				       SIM_NOT_ENV);
	for (int t = 0; t < PVSPIN_TUNE_COUNT; t++) {
		const char *var, *text;
		if (pvspin_tunable_env((pvspin_tunable_t)t, &var, &text) <= 0)
			continue;
		if (t == PVSPIN_TUNE_MUTEX_SPIN_LIMIT)
			fprintf(stderr, "pvspin sim: ignoring %s=" PVSPIN_QUOTED ": only the "
				"interposer's mutexes read it (pvspin run); the simulator runs "
				"none\n", var, PVSPIN_QUOTED_ARGS(text));
		else
			fprintf(stderr, "pvspin sim: ignoring %s=" PVSPIN_QUOTED ": pvspin sim takes "
				"tunables only as configuration keys (--set %s=%s), " SIM_NOT_ENV "\n",
				var, PVSPIN_QUOTED_ARGS(text), pvspin_tunable_name((pvspin_tunable_t)t),
				text);
	}
	say_kind_env_ignored();
	/* a bad PVSPIN_NO_MEMBARRIER: what this tool's library would have
	 * said at load (main.c keeps it silent), for the simulated guests */
	pvspin_plat_no_membarrier_report_ignored(stderr, "pvspin sim",
						 "; the simulated guests always have membarrier");
	args[0] = (char *)"pvspin sim";
	for (int i = 1; i < argc; i++)
		args[i] = argv[i];
	args[argc] = NULL;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	path[0] = 0;
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			snprintf(path, sizeof(path), "%s/pvspin-sim", self);
			if (access(path, X_OK) == 0) {
				execv(path, args);
				fprintf(stderr, "pvspin sim: cannot run %s: %s\n", path, strerror(errno));
				free(args);
				return 1;
			}
		}
	}
	execvp("pvspin-sim", args);
	fprintf(stderr, "pvspin sim: the simulator 'pvspin-sim' was not found %s%s%s nor in PATH "
			"(%s); build it (target pvspin-sim) or install pvspin\n",
		path[0] ? "at " : "", path, path[0] ? "" : "next to pvspin", strerror(errno));
	free(args);
	return 1;
}

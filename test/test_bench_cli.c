/*
 * test_bench_cli.c - `pvspin bench` option handling: every bad option
 * exits with status 2 and a message naming the problem (and, for a lock,
 * the valid choices); --help exits 0.
 *
 * usage: test_bench_cli PATH-TO-pvspin
 */
#include <fcntl.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

extern char **environ;
static const char *pvspin;

/* Run `pvspin bench ARGS...`; returns the exit status, with stdout and
 * stderr (first 16 KB each) in out/err. */
static int run4(char *out, char *err, const char *a1, const char *a2, const char *a3,
		const char *a4)
{
	char fo[] = "/tmp/pvspin-cli-out-XXXXXX", fe[] = "/tmp/pvspin-cli-err-XXXXXX";
	int o = mkstemp(fo), e = mkstemp(fe);
	assert_true(o >= 0 && e >= 0);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, o, 1);
	posix_spawn_file_actions_adddup2(&fa, e, 2);
	char *argv[] = { (char *)pvspin, "bench", (char *)a1, (char *)a2, (char *)a3, (char *)a4,
			 NULL };
	pid_t pid;
	assert_int_equal(posix_spawn(&pid, pvspin, &fa, NULL, argv, environ), 0);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	posix_spawn_file_actions_destroy(&fa);
	ssize_t n = pread(o, out, 16383, 0);
	out[n > 0 ? n : 0] = 0;
	n = pread(e, err, 16383, 0);
	err[n > 0 ? n : 0] = 0;
	close(o);
	close(e);
	unlink(fo);
	unlink(fe);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int run(char *out, char *err, const char *a1, const char *a2, const char *a3)
{
	return run4(out, err, a1, a2, a3, NULL);
}

static char out[16384], err[16384];

static void expect_usage_error(const char *a1, const char *a2, const char *needle)
{
	int rc = run(out, err, a1, a2, NULL);
	if (rc != 2 || !strstr(err, needle))
		print_error("pvspin bench %s %s: exit %d, stderr: %s\n", a1, a2 ? a2 : "", rc, err);
	assert_int_equal(rc, 2);
	assert_non_null(strstr(err, needle));
}

static void test_unknown_lock(void **state)
{
	(void)state;
	expect_usage_error("--locks", "qspinlock,nosuch", "nosuch");
	/* the message lists the valid choices */
	assert_non_null(strstr(err, "pvqspinlock"));
	assert_non_null(strstr(err, "pthread_mutex"));
}

static void test_bad_numbers(void **state)
{
	(void)state;
	/* one shape for every subcommand (tools/pvspin/option_error.h):
	 * "--OPTION VALUE: not an integer from MIN to MAX" */
	expect_usage_error("--threads", "2,x", "--threads x: not an integer from 1 to 1024");
	expect_usage_error("--threads", "0", "--threads");
	expect_usage_error("--duration-ms", "0", "--duration-ms");
	expect_usage_error("--duration-ms", "12ms", "--duration-ms 12ms: not an integer");
	expect_usage_error("--cs-ns", "-5", "--cs-ns");
	expect_usage_error("--cs-lines", "0", "--cs-lines");
	expect_usage_error("--repeat", "99999999999999999999999", "--repeat");
	expect_usage_error("--spin-threshold", "0", "--spin-threshold");
	expect_usage_error("--hog", "1025", "--hog 1025: not an integer from 0 to 1024");
	expect_usage_error("--hog", "-1", "--hog");
	/* an empty item is refused as any other item, in the same words
	 * (it was "--threads: empty item in the list '1,,2' (expected ...)") */
	expect_usage_error("--threads", "1,,2",
			   "pvspin bench: --threads '': not an integer from 1 to 1024\n");
	expect_usage_error("--threads", "1,2,", "pvspin bench: --threads '': not an integer");
	expect_usage_error("--threads", ",1", "pvspin bench: --threads '': not an integer");
	expect_usage_error("--threads", "", "pvspin bench: --threads '': not an integer");
	expect_usage_error("--locks", "tas,", "pvspin bench: --locks '': not a lock; valid locks: ");
	expect_usage_error("--locks", "", "pvspin bench: --locks '': not a lock; valid locks: ");
}

/* Report files are checked before measuring (exit 1 at once, with the
 * reason), and two reports cannot share a file (exit 2). */
static void test_report_paths(void **state)
{
	(void)state;
	assert_int_equal(run(out, err, "--json", "/nonexistent/x.json", NULL), 1);
	assert_non_null(strstr(err, "--json: cannot write '/nonexistent/x.json': No such file"));
	assert_null(strstr(out, "ops/s"));   /* nothing was measured */
	assert_int_equal(run(out, err, "--csv", "/", NULL), 1);
	assert_non_null(strstr(err, "Is a directory"));
	assert_int_equal(run(out, err, "--plot", "/nonexistent/x.png", NULL), 1);
	assert_non_null(strstr(err, "--plot: cannot write"));
	/* ... and so is the directory of the gnuplot script (a bad TMPDIR was
	 * found only after the run: a new user's finding); without gnuplot
	 * that is said first */
	setenv("TMPDIR", "/nonexistent", 1);
	int rc = run(out, err, "--plot", "/tmp/pvspin-cli-tmpdir.png", NULL);
	unsetenv("TMPDIR");
	assert_int_equal(rc, 1);
	if (!strstr(err, "--plot needs gnuplot"))
		assert_non_null(strstr(err, "cannot create a gnuplot script in /nonexistent: No such "
					    "file"));
	assert_null(strstr(out, "ops/s"));   /* nothing was measured */
	unlink("/tmp/pvspin-cli-tmpdir.png");
	unlink("/tmp/pvspin-cli-same");   /* left by a run that failed */
	assert_int_equal(run4(out, err, "--json", "/tmp/pvspin-cli-same", "--csv",
			      "/tmp/../tmp/pvspin-cli-same"), 2);
	assert_non_null(strstr(err, "--json and --csv name the same file"));
	assert_int_equal(access("/tmp/pvspin-cli-same", F_OK), -1);
	/* a symbolic link to the other report's file, not there yet */
	unlink("/tmp/pvspin-cli-link");
	assert_int_equal(symlink("pvspin-cli-same", "/tmp/pvspin-cli-link"), 0);
	assert_int_equal(run4(out, err, "--json", "/tmp/pvspin-cli-same", "--csv",
			      "/tmp/pvspin-cli-link"), 2);
	assert_non_null(strstr(err, "--json and --csv name the same file"));
	assert_int_equal(access("/tmp/pvspin-cli-same", F_OK), -1);
	unlink("/tmp/pvspin-cli-link");
	/* one file per report: a second --json or --csv is refused, not the
	 * one kept (a new user's finding: only the last was written) */
	assert_int_equal(run4(out, err, "--json", "/tmp/pvspin-cli-a.json", "--json",
			      "/tmp/pvspin-cli-b.json"), 2);
	assert_non_null(strstr(err, "two JSON reports given (--json /tmp/pvspin-cli-a.json, "
				    "--json /tmp/pvspin-cli-b.json); give one"));
	assert_int_equal(run4(out, err, "--csv", "/tmp/pvspin-cli-a.csv", "--csv",
			      "/tmp/pvspin-cli-b.csv"), 2);
	assert_non_null(strstr(err, "two CSV reports given"));
	assert_int_equal(access("/tmp/pvspin-cli-b.json", F_OK), -1);
	/* an empty file name is a bad option value (exit 2, naming the
	 * option), not an unwritable file (it was exit 1, "cannot write ''") */
	expect_usage_error("--json", "", "pvspin bench: --json: empty file name");
	expect_usage_error("--csv", "", "pvspin bench: --csv: empty file name");
	expect_usage_error("--plot", "", "pvspin bench: --plot: empty file name");
	assert_null(strstr(out, "ops/s"));   /* nothing was measured */
}

static void test_bad_options(void **state)
{
	(void)state;
	expect_usage_error("--bogus", NULL, "--bogus");
	expect_usage_error("--plot", "out.gif",
			   "pvspin bench: --plot out.gif: not a .png or .svg file name\n");
	/* refused before the run (it was found only when gnuplot failed on
	 * it, after the measuring) */
	expect_usage_error("--plot", "/tmp/pvspin-cli-a\nb.png",
			   "a line break in the file name, which gnuplot cannot take\n");
	expect_usage_error("stray", NULL, "stray");
	expect_usage_error("--json", NULL, "--json");
}

static void test_help(void **state)
{
	(void)state;
	assert_int_equal(run(out, err, "--help", NULL, NULL), 0);
	assert_non_null(strstr(out, "--locks"));
	assert_non_null(strstr(out, "pthread_spin"));
	assert_non_null(strstr(out, "--no-placement"));
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH-TO-pvspin\n", argv[0]);
		return 2;
	}
	pvspin = argv[1];
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_lock),
		cmocka_unit_test(test_bad_numbers),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_report_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

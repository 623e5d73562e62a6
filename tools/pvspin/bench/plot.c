/*
 * bench/plot.c - `pvspin bench --plot`: ops/s against threads per lock,
 * drawn by gnuplot from a generated script (see output.h).
 */
#define _GNU_SOURCE
#include "bench/output.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock_random.h"
#include "option_error.h"
#include "stop_signal.h"

extern char **environ;

/* The image format of a --plot path from its extension: "png", "svg", or
 * NULL for anything else (case-insensitive). */
static const char *bench_plot_format(const char *path)
{
	const char *dot = strrchr(path, '.');
	if (!dot || strchr(dot, '/'))
		return NULL;
	if (!strcasecmp(dot, ".png"))
		return "png";
	if (!strcasecmp(dot, ".svg"))
		return "svg";
	return NULL;
}

const char *bench_plot_name_problem(const char *path)
{
	if (!bench_plot_format(path))
		return "not a .png or .svg file name";
	/* the name is written into a line of the gnuplot script (put_quoted) */
	if (strpbrk(path, "\n\r"))
		return "a line break in the file name, which gnuplot cannot take";
	return NULL;
}

int bench_plot_have_gnuplot(void)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *dirs = strdup(path), *save = NULL;
	int found = 0;
	for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char file[4096];
		snprintf(file, sizeof(file), "%s/gnuplot", *d ? d : ".");
		found = access(file, X_OK) == 0;
	}
	free(dirs);
	return found;
}

/* a gnuplot single-quoted string: '' stands for ' */
static void put_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/* ten easily told apart colours (Tableau 10) */
static const char *const colors[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#000000",
};
#define NCOLORS (sizeof(colors) / sizeof(colors[0]))

static unsigned max_threads(const struct bench_config *c)
{
	unsigned m = 1;
	for (size_t i = 0; i < c->nthreads; i++)
		if (c->threads[i] > m)
			m = c->threads[i];
	return m;
}

static void write_script(FILE *f, const char *out, const char *fmt,
			 const struct bench_config *c, const struct bench_row *rows,
			 size_t nrows)
{
	if (!strcmp(fmt, "png"))
		fputs("set terminal pngcairo size 1100,700 noenhanced\n", f);
	else
		fputs("set terminal svg size 1100,700 dynamic noenhanced\n", f);
	fputs("set output ", f);
	put_quoted(f, out);
	fputc('\n', f);
	char title[512];
	snprintf(title, sizeof(title),
		 "pvspin bench on %u CPU%s%s%s: cs %llu ns + %u lines, ncs %llu ns, %u ms x %u",
		 c->machine.ncpus, c->machine.ncpus == 1 ? "" : "s",
		 c->machine.hypervisor[0] ? ", " : "", c->machine.hypervisor,
		 (unsigned long long)c->cs_ns, c->cs_lines, (unsigned long long)c->ncs_ns,
		 c->duration_ms, c->repeat);
	fputs("set title ", f);
	put_quoted(f, title);
	fputs("\nset xlabel 'threads'\nset ylabel 'acquisitions/s'\n"
	      "set logscale y 10\nset logscale x 2\nset grid\n"
	      "set key outside right top\nset format y '%.0s%c'\nset xtics (", f);
	for (size_t i = 0; i < c->nthreads; i++)
		fprintf(f, "%s%u", i ? ", " : "", c->threads[i]);
	fprintf(f, ")\nset xrange [0.8:%g]\n", max_threads(c) * 1.25);

	/* one inline data block per lock: threads ops_per_s, sorted by threads
	 * as listed in the config (zero rates cannot sit on a log axis) */
	size_t nblocks = 0;
	for (size_t l = 0; l < c->nlocks; l++) {
		fprintf(f, "$d%zu << EOD\n", l);
		for (size_t t = 0; t < c->nthreads; t++)
			for (size_t i = 0; i < nrows; i++)
				if (rows[i].lock == c->locks[l] && rows[i].threads == c->threads[t] &&
				    rows[i].r.ops_per_s > 0)
					fprintf(f, "%u %.6g\n", rows[i].threads, rows[i].r.ops_per_s);
		fputs("EOD\n", f);
		nblocks++;
	}
	fputs("plot ", f);
	for (size_t l = 0; l < nblocks; l++) {
		fprintf(f, "%s$d%zu using 1:2 with linespoints lw 2 lc rgb '%s' pt %zu title ",
			l ? ", \\\n     " : "", l, colors[l % NCOLORS], 1 + l % 13);
		put_quoted(f, c->locks[l]->name);
	}
	fputc('\n', f);
}

/* Bytes of a gnuplot script's path. */
#define PLOT_SCRIPT_PATH_MAX 4096

/* Create the gnuplot script, an empty temporary file in $TMPDIR (else
 * /tmp), its path into script: the stream, or NULL with a message on
 * stderr naming the directory and the reason. */
static FILE *plot_script_create(char script[static PLOT_SCRIPT_PATH_MAX])
{
	const char *tmpdir = getenv("TMPDIR");
	const char *dir = tmpdir && *tmpdir ? tmpdir : "/tmp";
	snprintf(script, PLOT_SCRIPT_PATH_MAX, "%s/pvspin-bench-XXXXXX.gp", dir);
	int fd = mkstemps(script, 3);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		fprintf(stderr, "pvspin bench: cannot create a gnuplot script in %s: %s\n", dir,
			strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(script);
		}
	}
	return f;
}

int bench_plot_wait_ms(unsigned *ms)
{
	/* TEST ONLY: the test of the bound (bench_plot_gnuplot_hangs) waits
	 * a second, not a minute; not in --help, named in docs/bench.md */
	const char *s = getenv(BENCH_PLOT_WAIT_ENV);
	uint64_t v;
	*ms = BENCH_PLOT_WAIT_MS;
	if (!s || !*s)
		return 0;
	if (!tool_parse_decimal(s, 1, BENCH_PLOT_WAIT_MS, &v)) {
		char reason[80];
		snprintf(reason, sizeof(reason), "not an integer from 1 to %u (ms)",
			 BENCH_PLOT_WAIT_MS);
		tool_value_line(stderr, "pvspin bench", BENCH_PLOT_WAIT_ENV, '=', s, reason, NULL);
		return -1;
	}
	*ms = (unsigned)v;
	return 0;
}

int bench_plot_script_check(void)
{
	char script[PLOT_SCRIPT_PATH_MAX];
	FILE *f = plot_script_create(script);
	if (!f)
		return -1;
	fclose(f);
	unlink(script);
	return 0;
}

/* Wait for gnuplot, `pid` (the leader of its own process group), at most
 * `ms` ms: 0 with its status in *status; else the group is killed
 * (SIGKILL) and reaped, and 1 says the bound passed, -1 that a stop
 * signal came after the wait began (SIGINT, SIGTERM, SIGHUP: it reaches
 * gnuplot no longer, being in a group of its own; one that came before
 * stopped the run, whose plot is then drawn).  Looks every 10 ms. */
static int plot_wait(pid_t pid, unsigned ms, int *status)
{
	uint64_t end = tool_now_ns() + (uint64_t)ms * 1000000u;
	/* a signal that cut the run short came before: the plot of the
	 * thread counts that completed is drawn, unless another one comes
	 * (it was killed at once, helper-65) */
	int signals = tool_stop_signal_count();
	*status = 0;
	for (;;) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return 0;
		int why = tool_stop_signal_count() != signals ? -1 : tool_now_ns() >= end ? 1 : 0;
		if (why) {
			kill(-pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return why;
		}
		struct timespec tick = { 0, 10 * 1000 * 1000 };
		nanosleep(&tick, NULL);
	}
}

/* After gnuplot failed or was killed: remove the image it began at
 * `path`, a regular file there now that was not before (`existed`) or
 * that changed since (`before`): a part of an image, or an empty one
 * (gnuplot creates the file before it draws).  A file it did not touch
 * stays. */
static void plot_remove_begun(const char *path, bool existed, const struct stat *before)
{
	struct stat st;
	if (!stat(path, &st) && S_ISREG(st.st_mode) &&
	    (!existed || st.st_size != before->st_size ||
	     st.st_mtim.tv_sec != before->st_mtim.tv_sec ||
	     st.st_mtim.tv_nsec != before->st_mtim.tv_nsec))
		unlink(path);
}

int bench_write_plot(const char *path, const struct bench_config *c,
		     const struct bench_row *rows, size_t nrows)
{
	const char *fmt = bench_plot_format(path), *problem = bench_plot_name_problem(path);
	if (problem) {
		fprintf(stderr, "pvspin bench: --plot '%s': %s\n", path, problem);
		return -1;
	}
	char script[PLOT_SCRIPT_PATH_MAX];
	FILE *f = plot_script_create(script);
	if (!f)
		return -1;
	write_script(f, path, fmt, c, rows, nrows);
	if (fclose(f)) {
		fprintf(stderr, "pvspin bench: cannot write the gnuplot script %s\n", script);
		unlink(script);
		return -1;
	}

	char *argv[] = { "gnuplot", script, NULL };
	pid_t pid;
	/* gnuplot's own stderr is not for our user: pvspin says what failed,
	 * quoting gnuplot's first line only when it fails (kept in a file
	 * beside the script: a dynamic loader's "error while loading shared
	 * libraries" was dropped, and the user read "exit status 127" alone,
	 * helper-61) */
	char errlog[PLOT_SCRIPT_PATH_MAX + 4];
	snprintf(errlog, sizeof(errlog), "%s.err", script);
	struct stat before;
	bool existed = stat(path, &before) == 0;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	/* nothing to read, nothing to write but the image: in a process
	 * group of its own (below) a read or write of the terminal would
	 * stop it */
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, errlog,
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	/* its own process group, so that the kill after the bound reaches
	 * whatever it started too (a wrapper script's children) */
	posix_spawnattr_t attr;
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attr, 0);
	int err = posix_spawnp(&pid, "gnuplot", &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		unlink(script);
		unlink(errlog);
		if (err == ENOENT)
			fprintf(stderr, "pvspin bench: --plot needs gnuplot, which is not installed "
				"(apt-get install gnuplot-nox)\n");
		else
			fprintf(stderr, "pvspin bench: cannot run gnuplot: %s\n", strerror(err));
		return -1;
	}
	int status;
	int stopped = plot_wait(pid, c->plot_wait_ms, &status);
	unlink(script);
	if (stopped) {
		plot_remove_begun(path, existed, &before);
		if (stopped > 0)
			fprintf(stderr, "pvspin bench: gnuplot did not finish in %g s; no plot "
				"written (--plot '%s': gnuplot was killed)\n",
				c->plot_wait_ms / 1000.0, path);
		else
			fprintf(stderr, "pvspin bench: gnuplot stopped by %s; no plot written "
				"(--plot '%s')\n", tool_stop_signal_name(tool_stop_signal_latest()), path);
		unlink(errlog);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		/* the likely reason: the output file (checked before measuring, but
		 * it may have gone since), tried without creating it */
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		int why = fd < 0 && existed ? errno : 0;
		if (fd >= 0)
			close(fd);
		plot_remove_begun(path, existed, &before);   /* of no use */
		char line[256] = "";
		FILE *e = fopen(errlog, "r");
		if (e) {
			if (!fgets(line, sizeof(line), e))
				line[0] = 0;
			line[strcspn(line, "\n")] = 0;
			fclose(e);
		}
		fprintf(stderr, "pvspin bench: gnuplot failed drawing '%s' (%s %d%s)%s%s%s%s\n", path,
			WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			WIFEXITED(status) && WEXITSTATUS(status) == 127 ? ": gnuplot could not start"
									 : "",
			why ? ": " : "", why ? strerror(why) : "", line[0] ? "; gnuplot said: " : "",
			line);
		unlink(errlog);
		return -1;
	}
	unlink(errlog);
	return 0;
}

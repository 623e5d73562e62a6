/*
 * test_preload_check.c - runs a command (normally `pvspin run ... --
 * PROGRAM`), echoes its output and checks it:
 *
 *   test_preload_check [--min-acquisitions N] [--max-slots-in-use N]
 *                      [--min-slots-allocated N] [--no-exhaustion]
 *                      [--stats-lines N] [--expect TEXT]... [--exit N]
 *                      [--min-field NAME=N]... [--max-field NAME=N]...
 *                      -- COMMAND ARGS...
 *
 * Exit 0 when the command exited N (--exit, default 0) and every check
 * holds, 1 otherwise
 * (each failed check is named).  The stats line is the interposer's
 * "pvspin: stats ..." (PVSPIN_STATS=1); with several lines the first one
 * is checked.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long long field(const char *line, const char *name, int *found)
{
	char key[64];
	snprintf(key, sizeof(key), " %s=", name);
	const char *p = strstr(line, key);
	if (!p) {
		*found = 0;
		return 0;
	}
	return strtoull(p + strlen(key), NULL, 10);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "min-acquisitions", required_argument, NULL, 'a' },
		{ "max-slots-in-use", required_argument, NULL, 'u' },
		{ "min-slots-allocated", required_argument, NULL, 'A' },
		{ "no-exhaustion", no_argument, NULL, 'x' },
		{ "stats-lines", required_argument, NULL, 'n' },
		{ "expect", required_argument, NULL, 'e' },
		{ "exit", required_argument, NULL, 'E' },
		{ "min-field", required_argument, NULL, 'f' },
		{ "max-field", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	long min_acq = -1, max_inuse = -1, min_alloc = -1, stats_lines = -1;
	int no_exh = 0, nexp = 0, want_exit = 0, c;
	const char *expect[16], *minf[16], *maxf[16];
	int nminf = 0, nmaxf = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'a': min_acq = atol(optarg); break;
		case 'u': max_inuse = atol(optarg); break;
		case 'A': min_alloc = atol(optarg); break;
		case 'x': no_exh = 1; break;
		case 'n': stats_lines = atol(optarg); break;
		case 'e': if (nexp < 16) expect[nexp++] = optarg; break;
		case 'E': want_exit = atoi(optarg); break;
		case 'f': if (nminf < 16 && strchr(optarg, '=')) minf[nminf++] = optarg; else return 2; break;
		case 'F': if (nmaxf < 16 && strchr(optarg, '=')) maxf[nmaxf++] = optarg; else return 2; break;
		default: return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "test_preload_check: no command\n");
		return 2;
	}
	int fd[2];
	if (pipe(fd))
		return 2;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[optind], argv + optind);
		perror("exec");
		_exit(127);
	}
	close(fd[1]);
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	ssize_t n;
	while ((n = read(fd[0], out + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 4096)
			out = realloc(out, cap *= 2);
	}
	out[len] = '\0';
	int st;
	waitpid(pid, &st, 0);
	fwrite(out, 1, len, stdout);

	int ok = 1;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != want_exit) {
		printf("CHECK FAILED: command wait status 0x%x, expected exit %d\n", st, want_exit);
		ok = 0;
	}
	for (int i = 0; i < nexp; i++)
		if (!strstr(out, expect[i])) {
			printf("CHECK FAILED: output lacks \"%s\"\n", expect[i]);
			ok = 0;
		}
	long lines = 0;
	char *first = NULL;
	for (char *p = out; (p = strstr(p, "pvspin: stats ")); p++, lines++)
		if (!first)
			first = p;
	if (stats_lines >= 0 && lines != stats_lines) {
		printf("CHECK FAILED: %ld stats lines, expected %ld\n", lines, stats_lines);
		ok = 0;
	}
	if (min_acq >= 0 || max_inuse >= 0 || min_alloc >= 0 || no_exh || nminf || nmaxf) {
		if (!first) {
			printf("CHECK FAILED: no \"pvspin: stats\" line\n");
			return 1;
		}
		char *eol = strchr(first, '\n');
		if (eol)
			*eol = '\0';
		int f = 1;
		unsigned long long acq = field(first, "acquisitions", &f);
		unsigned long long inuse = field(first, "slots_in_use", &f);
		unsigned long long alloc = field(first, "slots_allocated", &f);
		unsigned long long exh = field(first, "slots_exhausted", &f);
		if (!f) {
			printf("CHECK FAILED: malformed stats line\n");
			ok = 0;
		}
		if (min_acq >= 0 && acq < (unsigned long long)min_acq) {
			printf("CHECK FAILED: acquisitions %llu < %ld\n", acq, min_acq);
			ok = 0;
		}
		if (max_inuse >= 0 && inuse > (unsigned long long)max_inuse) {
			printf("CHECK FAILED: slots_in_use %llu > %ld\n", inuse, max_inuse);
			ok = 0;
		}
		if (min_alloc >= 0 && alloc < (unsigned long long)min_alloc) {
			printf("CHECK FAILED: slots_allocated %llu < %ld\n", alloc, min_alloc);
			ok = 0;
		}
		if (no_exh && exh) {
			printf("CHECK FAILED: slots_exhausted %llu\n", exh);
			ok = 0;
		}
		for (int i = 0; i < nminf + nmaxf; i++) {
			bool is_min = i < nminf;
			const char *spec = is_min ? minf[i] : maxf[i - nminf];
			char name[64];
			const char *eq = strchr(spec, '=');
			snprintf(name, sizeof(name), "%.*s", (int)(eq - spec), spec);
			int found = 1;
			unsigned long long v = field(first, name, &found), want = strtoull(eq + 1, NULL, 10);
			if (!found || (is_min ? v < want : v > want)) {
				printf("CHECK FAILED: %s %s%llu %s %llu\n", name, found ? "" : "missing, ",
				       v, is_min ? "<" : ">", want);
				ok = 0;
			}
		}
	}
	printf("%s\n", ok ? "CHECK OK" : "CHECK FAILED");
	return ok ? 0 : 1;
}

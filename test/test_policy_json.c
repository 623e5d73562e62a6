/*
 * test_policy_json.c - run `pvspin detect` and check what it prints: the
 * JSON shape of issue 3 (jansson), chosen values, or the exit status and
 * error message of bad input.
 *
 *   test_policy_json [--exit N] [--stderr-has TEXT] [--choices N]
 *                    [--expect a.b.c=VALUE]... -- COMMAND [ARGS...]
 *
 * Without --exit the command must exit 0 and print JSON of the right shape
 * with --choices entries in "choices" (default 5).  VALUE is compared with
 * the text form of the JSON value: a string as is, true/false/null,
 * integers in decimal.  Exit status 0 when every check holds, 1 otherwise.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); failures++; } } while (0)

static char *read_all(int fd)
{
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t r;
	while (buf && (r = read(fd, buf + n, cap - n - 1)) > 0) {
		n += (size_t)r;
		if (cap - n < 2) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
	}
	if (buf)
		buf[n] = '\0';
	return buf;
}

static json_t *get_path(json_t *root, const char *path)
{
	char tmp[256];
	snprintf(tmp, sizeof(tmp), "%s", path);
	json_t *cur = root;
	char *save;
	for (char *k = strtok_r(tmp, ".", &save); k && cur; k = strtok_r(NULL, ".", &save))
		cur = json_object_get(cur, k);
	return cur;
}

static void value_text(json_t *v, char *out, size_t n)
{
	if (!v)
		snprintf(out, n, "(missing)");
	else if (json_is_string(v))
		snprintf(out, n, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(out, n, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(out, n, "%g", json_real_value(v));
	else if (json_is_true(v))
		snprintf(out, n, "true");
	else if (json_is_false(v))
		snprintf(out, n, "false");
	else if (json_is_null(v))
		snprintf(out, n, "null");
	else
		snprintf(out, n, "(object or array)");
}

static bool is_count_or_null(json_t *v)
{
	return json_is_null(v) || (json_is_integer(v) && json_integer_value(v) > 0);
}

static void check_shape(json_t *root, long nchoices)
{
	static const char *const features[] = {
		"CLOCKSOURCE", "NOP_IO_DELAY", "MMU_OP", "CLOCKSOURCE2", "ASYNC_PF", "STEAL_TIME",
		"PV_EOI", "PV_UNHALT", "PV_TLB_FLUSH", "ASYNC_PF_VMEXIT", "PV_SEND_IPI",
		"POLL_CONTROL", "PV_SCHED_YIELD", "ASYNC_PF_INT", "MSI_EXT_DEST_ID",
		"HC_MAP_GPA_RANGE", "MIGRATION_CONTROL",
	};
	static const char *const kinds[] = { "qspinlock", "pvqspinlock", "tas", "ticket", "spinpark" };

	CHECK(json_is_object(root), "top level is not an object");
	json_t *hv = json_object_get(root, "hypervisor");
	CHECK(json_is_object(hv), "hypervisor is not an object");
	CHECK(json_is_string(json_object_get(hv, "signature")), "hypervisor.signature not a string");
	json_t *base = json_object_get(hv, "base_leaf");
	unsigned leaf;
	char end;
	CHECK(json_is_string(base) && sscanf(json_string_value(base), "0x%8x%c", &leaf, &end) == 1,
	      "hypervisor.base_leaf is not \"0xNNNNNNNN\"");
	json_t *f = json_object_get(hv, "features");
	CHECK(json_is_object(f), "hypervisor.features is not an object");
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++)
		CHECK(json_is_boolean(json_object_get(f, features[i])),
		      "hypervisor.features.%s is not a boolean", features[i]);
	json_t *h = json_object_get(hv, "hints");
	CHECK(json_is_object(h) && json_is_boolean(json_object_get(h, "REALTIME")),
	      "hypervisor.hints.REALTIME is not a boolean");
	CHECK(is_count_or_null(json_object_get(root, "cpus_online")), "cpus_online");
	CHECK(is_count_or_null(json_object_get(root, "cpus_possible")), "cpus_possible");
	CHECK(is_count_or_null(json_object_get(root, "numa_nodes")), "numa_nodes");
	json_t *steal = json_object_get(root, "steal_pct");
	CHECK(json_is_null(steal) || (json_is_number(steal) && json_number_value(steal) >= 0 &&
				      json_number_value(steal) <= 100), "steal_pct");
	json_t *quota = json_object_get(root, "cpu_quota");
	CHECK(json_is_null(quota) || (json_is_number(quota) && json_number_value(quota) > 0),
	      "cpu_quota");
	json_t *choices = json_object_get(root, "choices");
	CHECK(json_is_object(choices), "choices is not an object");
	CHECK((long)json_object_size(choices) == nchoices, "choices has %zu entries, want %ld",
	      json_object_size(choices), nchoices);
	const char *name;
	json_t *c;
	json_object_foreach(choices, name, c) {
		json_t *lock = json_object_get(c, "lock"), *reason = json_object_get(c, "reason");
		bool known = false;
		for (size_t i = 0; json_is_string(lock) && i < sizeof(kinds) / sizeof(kinds[0]); i++)
			known |= !strcmp(json_string_value(lock), kinds[i]);
		CHECK(known, "choices.%s.lock is not a lock kind", name);
		CHECK(json_is_string(reason) && json_string_length(reason) > 0 &&
		      !strchr(json_string_value(reason), '\n'),
		      "choices.%s.reason is not a one-line string", name);
	}
	if (nchoices == 5) {
		static const char *const want[] = { "linux", "linux-pre-2025", "numa", "threshold",
						    "pvspin" };
		for (size_t i = 0; i < 5; i++)
			CHECK(json_object_get(choices, want[i]), "choices.%s missing", want[i]);
	}
}

int main(int argc, char **argv)
{
	int want_exit = 0;
	long nchoices = 5;
	const char *stderr_has = NULL;
	const char *expect[32];
	int nexpect = 0;
	int i = 1;
	for (; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--exit") && i + 1 < argc)
			want_exit = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--stderr-has") && i + 1 < argc)
			stderr_has = argv[++i];
		else if (!strcmp(argv[i], "--choices") && i + 1 < argc)
			nchoices = atol(argv[++i]);
		else if (!strcmp(argv[i], "--expect") && i + 1 < argc && nexpect < 32)
			expect[nexpect++] = argv[++i];
		else {
			fprintf(stderr, "usage: test_policy_json [--exit N] [--stderr-has TEXT] "
				"[--choices N] [--expect PATH=VALUE]... -- COMMAND [ARGS...]\n");
			return 2;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "test_policy_json: no command after --\n");
		return 2;
	}
	char **cmd = argv + i + 1;

	int out[2], err[2];
	if (pipe(out) || pipe(err)) {
		perror("pipe");
		return 1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]), close(out[1]), close(err[0]), close(err[1]);
		execv(cmd[0], cmd);
		perror(cmd[0]);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	char *sout = read_all(out[0]);
	char *serr = read_all(err[0]);
	int status;
	waitpid(pid, &status, 0);
	if (!sout || !serr)
		return 1;
	fprintf(stderr, "--- stderr of the command:\n%s", serr);

	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == want_exit,
	      "exit status %d, want %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1, want_exit);
	if (stderr_has)
		CHECK(strstr(serr, stderr_has), "stderr lacks '%s'", stderr_has);
	if (want_exit == 0) {
		json_error_t je;
		json_t *root = json_loads(sout, 0, &je);
		CHECK(root, "output is not JSON: line %d: %s", je.line, je.text);
		if (root) {
			check_shape(root, nchoices);
			for (int k = 0; k < nexpect; k++) {
				char path[256], got[256];
				const char *eq = strchr(expect[k], '=');
				if (!eq) {
					fprintf(stderr, "bad --expect '%s'\n", expect[k]);
					return 2;
				}
				snprintf(path, sizeof(path), "%.*s", (int)(eq - expect[k]), expect[k]);
				value_text(get_path(root, path), got, sizeof(got));
				CHECK(!strcmp(got, eq + 1), "%s is '%s', want '%s'", path, got, eq + 1);
			}
			json_decref(root);
		}
	} else {
		CHECK(sout[0] == '\0', "output on stdout despite an error");
	}
	if (failures)
		fprintf(stderr, "--- stdout of the command:\n%s", sout);
	free(sout);
	free(serr);
	return failures ? 1 : 0;
}

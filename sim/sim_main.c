/*
 * sim_main.c - the `pvspin-sim` command (run as `pvspin sim ...`).
 *
 *   pvspin sim [--preset NAME] [FILE] [--set KEY=VALUE ...] [--seed N]
 *              [--seeds N] [--json FILE|-]
 *   pvspin sim --list | --keys
 *   pvspin sim --fuzz N [--seed S] [--json FILE|-]
 *
 * FILE is a scenario: an INI file of KEY = VALUE lines (inih), or a .json
 * file (any case) whose "config" object (e.g. the JSON output of an earlier run) or
 * top-level object holds the keys (jansson); FILE "-" is stdin (JSON if
 * its first non-blank character is '{', else INI).  Order of application: preset
 * (--preset NAME or --set preset=NAME, wherever given; two different ones
 * are a usage error), FILE (an empty one, without a key, is an error; its
 * own preset first, then its other keys in order; a key given twice in it,
 * preset included, is an error as in a malformed file; a preset other than
 * the command line's is a usage error), each other --set in order (the
 * later of two for one key wins, as a --set wins over the file), --seed.
 * --seeds N runs the seeds seed .. seed+N-1 in parallel processes and
 * reports the median and min-max of every figure (sim_seeds.c).  --list
 * and --keys take no other
 * argument; --fuzz takes only --seed and --json (it draws its own
 * configurations).  Exit status (usage() says it): 0 success; 1 the run
 * stopped on a deadlock / broken invariant / lock misuse (report on
 * stderr), or the scenario could not be read as one: missing, unreadable
 * or malformed (e.g. an INI line that is not KEY = VALUE, an unknown
 * [section], a NUL byte, no key, more than 1 GiB: SIM_SCENARIO_MAX), or
 * the JSON output cannot be written (checked before simulating, then at
 * the write); 2 bad usage: an option, a key or a value (on the command
 * line or in the scenario: the same check and words), a host shape that
 * makes no sense.  The rule of the other subcommands: 2 for what was
 * asked wrongly, 1 for an input that could not be used as what it should
 * be (as `pvspin detect --cpuid` with a malformed dump) or a run that
 * failed.  SIGINT,
 * SIGTERM and SIGHUP stop the run at its next event; its results so far are
 * reported, then the process ends by that signal.  One that comes while
 * the scenario is read stops the reading (SIM_SCENARIO_STOPPED), and the
 * process ends by it without a run.
 *
 * getopt's own messages start with argv[0]: `pvspin sim` passes "pvspin sim".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "sim.h"
#include "../tools/pvspin/output_check.h"
#include "../tools/pvspin/option_error.h"

/** Most seeds of one --seeds run. */
#define SIM_MAX_SEEDS 1000

static void usage(FILE *f)
{
	fprintf(f,
		"usage: pvspin sim [--preset NAME] [FILE] [--set KEY=VALUE ...] [--seed N]\n"
		"                  [--seeds N] [--json FILE|-]\n"
		"       pvspin sim --list        presets, one per line\n"
		"       pvspin sim --keys        configuration keys\n"
		"       pvspin sim --fuzz N [--seed S] [--json FILE|-]\n"
		"                                N random small runs, report broken invariants\n"
		"FILE: INI scenario (KEY = VALUE lines) or a .json file with a \"config\" object;\n"
		"      - reads it from stdin (JSON if it starts with '{', else INI).\n"
		"Without --json a summary is printed; --json - writes the JSON document to stdout.\n"
		"--seeds N: the seeds seed .. seed+N-1 (N from 1 to %d), in parallel processes\n"
		"      (at most one per usable CPU): median and min-max of every figure.\n"
		"\n"
		"Exit status: 0 success; 1 a run stopped on a deadlock, two holders or lock\n"
		"misuse (--fuzz: a run broke; the report on stderr), the scenario could not be\n"
		"read as one (missing, a directory, unreadable, not KEY = VALUE lines nor a\n"
		"JSON object, a key given twice in it, a line over 199 characters, a NUL byte,\n"
		"no key, larger than 1 GiB, a pvspin bench report), or the --json FILE cannot\n"
		"be written; 2 bad usage:\n"
		"an option, a key or a value, on the command line or in the scenario, a host\n"
		"shape that makes no sense (nodes, dedicated, a vmN.* key beyond vms), two\n"
		"presets, an option other than --set given twice with two values (the same\n"
		"value twice is one).  Of two --set of one other key the later wins, as a\n"
		"--set wins over FILE.\n"
		"SIGINT, SIGTERM or SIGHUP stops the run at its next event: what it measured\n"
		"so far is reported (\"stop\": \"interrupted\"; with --seeds, the seeds that\n"
		"had started), then the signal ends the process (exit 130, 143, 129); one that\n"
		"comes while the scenario is read (an endless or stalled stdin) ends it there,\n"
		"nothing simulated.\n",
		SIM_MAX_SEEDS);
}

/* Apply the JSON scenario `root` (the caller keeps its reference), named
 * `path` in the messages.  Returns 0, -1 after a usage-type error (bad key
 * or value), -2 when it is not a scenario (as sim_config_load_ini). */
static int apply_json_scenario(struct sim_config *c, json_t *root, const char *path)
{
	json_t *cfg;
	const char *k;
	json_t *v;

	/* a `pvspin bench` report also has a "config" object (whose
	 * "locks" is a list: "key 'locks' has an unusable value" said
	 * nothing of the mix-up) */
	if (json_is_array(json_object_get(root, "results")) && json_object_get(root, "machine")) {
		fprintf(stderr, "pvspin sim: %s: a pvspin bench report (\"machine\" and "
				"\"results\"), not a scenario: a scenario's \"config\" holds pvspin "
				"sim's keys (pvspin sim --keys lists them; pvspin sim --json writes one)\n",
			path);
		return -2;
	}
	cfg = json_object_get(root, "config");
	if (!cfg) {
		/* no "config": the top level may hold the keys, if they all are keys */
		cfg = root;
		json_object_foreach(cfg, k, v)
			if (!sim_config_key_exists(k)) {
				fprintf(stderr, "pvspin sim: %s: no \"config\" object (and the top-level "
						"'%s' is not a configuration key; pvspin sim --keys lists "
						"them)\n", path, k);
				return -2;
			}
	}
	if (!json_is_object(cfg)) {
		fprintf(stderr, "pvspin sim: %s: %s\n", path, cfg == root
				? "expected a JSON object" : "\"config\" is not a JSON object");
		return -2;
	}
	if (!json_object_size(cfg)) {
		fprintf(stderr, "pvspin sim: %s: empty scenario: no key in %s (pvspin sim --keys "
				"lists the keys)\n", path, cfg == root ? "the object" : "\"config\"");
		return -2;
	}
	/* a preset first (it resets the other keys); "" is a run without one */
	json_t *p = json_object_get(cfg, "preset");
	if (p && !json_is_string(p)) {
		fprintf(stderr, "pvspin sim: %s: key 'preset' must be a preset name (a string), "
				"or \"\" for none\n", path);
		return -1;
	}
	if (p && json_string_value(p)[0] && sim_config_preset(c, json_string_value(p), stderr)) {
		fprintf(stderr, "pvspin sim: %s: in the key 'preset'\n", path);
		return -1;
	}
	json_object_foreach(cfg, k, v) {
		char buf[64];
		const char *s = buf;
		if (!strcmp(k, "preset"))
			continue;
		/* true/false as words: a boolean key takes them, a number refuses */
		if (json_is_string(v))
			s = json_string_value(v);
		else if (json_is_true(v))
			s = "true";
		else if (json_is_false(v))
			s = "false";
		else if (json_is_integer(v))
			snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		else if (json_is_real(v))
			snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
		else {
			/* null, an object or a list: say which, and what a key takes */
			fprintf(stderr, "pvspin sim: %s: key '%s' is %s; a key takes a string, a "
					"number or true/false (pvspin sim --keys lists each key's "
					"values)\n",
				path, k, json_is_null(v) ? "null" : json_is_object(v) ? "an object"
								   : "a list");
			return -1;
		}
		if (sim_config_set(c, k, s, stderr)) {
			fprintf(stderr, "pvspin sim: %s: in the key '%s'\n", path, k);
			return -1;
		}
	}
	return 0;
}

/* A JSON text that did not parse: jansson's message, at its line. */
static void json_parse_error(const char *path, const json_error_t *e)
{
	/* jansson's integers are int64: a seed above it is written as a
	 * string (as the JSON output does) */
	fprintf(stderr, "pvspin sim: %s:%d: %s%s\n", path, e->line, e->text,
		strstr(e->text, "too big integer") ? " (write a seed above "
		"9223372036854775807 as a string, e.g. \"seed\": \"18446744073709551615\")" : "");
}

/* The JSON scenario text buf[0..len), named `path`: returns as
 * apply_json_scenario(), -2 also when it does not parse.  A NUL byte is
 * refused as the INI reader refuses it, at its line (jansson would say
 * "end of file expected" or "control character 0x0", or parse the text
 * before it as a whole). */
static int load_json_text(struct sim_config *c, const char *buf, size_t len, const char *path)
{
	const char *nul = memchr(buf, '\0', len);
	if (nul) {
		int line = 1;
		for (const char *p = buf; p < nul; p++)
			line += *p == '\n';
		fprintf(stderr, "pvspin sim: %s:%d: NUL byte in line\n", path, line);
		return -2;
	}
	json_error_t e;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);
	if (!root) {
		json_parse_error(path, &e);
		return -2;
	}
	int rc = apply_json_scenario(c, root, path);
	json_decref(root);
	return rc;
}

/* A JSON scenario as read so far: buf[0..len), cap bytes allocated.  It is
 * parsed whole (jansson), so it is read whole: at most SIM_SCENARIO_MAX
 * bytes (sim.h says why that many). */
struct scenario_text {
	char *buf;
	size_t len, cap;
};

/* How a read of a scenario ended (read_scenario_rest()). */
enum scenario_read {
	SCENARIO_READ_END,      /* the end of the input, or of the chunk that
				 * holds its first NUL byte (the rest is left
				 * unread: the NUL is refused at its line) */
	SCENARIO_READ_TOO_BIG,  /* more than SIM_SCENARIO_MAX bytes */
	SCENARIO_READ_ERROR,    /* a read error: errno */
	SCENARIO_READ_NOMEM,
	SCENARIO_READ_STOPPED,  /* a stop signal came (SIM_SCENARIO_STOPPED) */
};

/* Room for one byte more in t, growing it up to SIM_SCENARIO_MAX + 1
 * bytes (the one past the bound tells that there is more). */
static enum scenario_read scenario_text_room(struct scenario_text *t)
{
	if (t->len < t->cap)
		return SCENARIO_READ_END;
	if (t->cap > SIM_SCENARIO_MAX)
		return SCENARIO_READ_TOO_BIG;
	size_t cap = t->cap ? 2 * t->cap : 65536;
	if (cap > SIM_SCENARIO_MAX + 1)
		cap = SIM_SCENARIO_MAX + 1;
	char *b = realloc(t->buf, cap);
	if (!b)
		return SCENARIO_READ_NOMEM;
	t->buf = b;
	t->cap = cap;
	return SCENARIO_READ_END;
}

/* Append what `fd` has next, one sim_scenario_read() of up to 64 KiB, to
 * t; *got is how many bytes (0 at the end of the input).  Returns
 * SCENARIO_READ_END, or why nothing could be read: SCENARIO_READ_STOPPED
 * once a stop signal has come (a read it cut short is its doing, not a
 * read error), SCENARIO_READ_ERROR (errno), _TOO_BIG, _NOMEM. */
static enum scenario_read read_scenario_chunk(int fd, struct scenario_text *t, size_t *got)
{
	*got = 0;
	enum scenario_read r = scenario_text_room(t);
	if (r != SCENARIO_READ_END)
		return r;
	size_t want = t->cap - t->len < 65536 ? t->cap - t->len : 65536;
	ssize_t n = sim_scenario_read(fd, t->buf + t->len, want);
	if (n < 0)
		return tool_stop_signal() ? SCENARIO_READ_STOPPED : SCENARIO_READ_ERROR;
	t->len += (size_t)n;
	*got = (size_t)n;
	return SCENARIO_READ_END;
}

/* Append the rest of `fd` to t, a chunk at a time: up to its end, its first
 * NUL byte (the chunk that holds it is appended; a scenario with a NUL
 * byte is refused at its line, so nothing after it is needed: /dev/zero
 * stops at its first chunk), or SIM_SCENARIO_MAX bytes in all.  A regular
 * file longer than that is refused by its size, before it is read.  A
 * stop signal ends it at the next chunk, or in the wait for one
 * (SCENARIO_READ_STOPPED). */
static enum scenario_read read_scenario_rest(int fd, struct scenario_text *t)
{
	if (sim_scenario_file_over(fd, SIM_SCENARIO_MAX - t->len))
		return SCENARIO_READ_TOO_BIG;
	for (;;) {
		size_t got;
		enum scenario_read r = read_scenario_chunk(fd, t, &got);
		if (r != SCENARIO_READ_END || !got || memchr(t->buf + t->len - got, '\0', got))
			return r;
	}
}

/* Say why a JSON scenario named `name` ("<stdin>" or the file) could not be
 * read (r, from read_scenario_rest(); errno for SCENARIO_READ_ERROR).
 * Returns what the loaders return for it: -2 (exit 1: the input failed),
 * for a scenario above the bound too; SIM_SCENARIO_STOPPED, without a
 * word, for SCENARIO_READ_STOPPED. */
static int scenario_read_error(enum scenario_read r, const char *name)
{
	if (r == SCENARIO_READ_STOPPED)
		return SIM_SCENARIO_STOPPED;   /* said by sim_main(), no read error */
	if (r == SCENARIO_READ_TOO_BIG)
		return sim_scenario_too_big(name, stderr);
	bool in = !strcmp(name, "<stdin>");
	if (r == SCENARIO_READ_ERROR && in)
		fprintf(stderr, "pvspin sim: cannot read the scenario from stdin: %s\n",
			strerror(errno));
	else if (r == SCENARIO_READ_ERROR)
		fprintf(stderr, "pvspin sim: cannot read scenario file '%s': %s\n", name,
			strerror(errno));
	else if (in)
		fprintf(stderr, "pvspin sim: out of memory reading the scenario from stdin\n");
	else
		fprintf(stderr, "pvspin sim: out of memory reading scenario file '%s'\n", name);
	return -2;
}

/* The JSON scenario file `path`: returns as apply_json_scenario(), -2
 * also when the file is missing or unreadable, or larger than
 * SIM_SCENARIO_MAX. */
static int load_json_scenario(struct sim_config *c, const char *path)
{
	if (sim_scenario_check_file(path, stderr))
		return -2;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "pvspin sim: cannot open scenario file '%s': %s\n", path,
			strerror(errno));
		return -2;
	}
	struct scenario_text t = { 0 };
	enum scenario_read r = read_scenario_rest(fd, &t);
	int err = errno;
	close(fd);
	errno = err;
	int rc = r == SCENARIO_READ_END
		 ? load_json_text(c, t.buf ? t.buf : "", t.len, path) : scenario_read_error(r, path);
	free(t.buf);
	return rc;
}

/* stdin as an INI scenario: the bytes already read (the blanks before
 * its first character, and that character), then the rest of stdin. */
struct stdin_ini {
	const struct scenario_text *head;
	size_t off;     /* of head, handed out */
};

/* cookie_read_function_t of struct stdin_ini: -1 on a read error of
 * stdin, or once a stop signal has come (sim_scenario_read()), 0 at its
 * end. */
static ssize_t stdin_ini_read(void *cookie, char *buf, size_t size)
{
	struct stdin_ini *s = cookie;
	if (s->off < s->head->len) {
		size_t n = s->head->len - s->off < size ? s->head->len - s->off : size;
		memcpy(buf, s->head->buf + s->off, n);
		s->off += n;
		return (ssize_t)n;
	}
	return sim_scenario_read(STDIN_FILENO, buf, size);
}

/* `pvspin sim -`: the scenario on stdin, JSON if its first non-blank
 * character is '{', else INI; messages name it "<stdin>".  JSON is read
 * whole, as a JSON file, bounded as it is (SIM_SCENARIO_MAX); INI is read
 * line by line, as an INI file (the line reader's bound; /dev/zero is
 * refused at its first line).  Returns as load_json_scenario(). */
static int load_stdin_scenario(struct sim_config *c)
{
	static const char name[] = "<stdin>";
	struct scenario_text t = { 0 };
	enum scenario_read r = SCENARIO_READ_END;
	int ch = EOF, ret;
	/* a chunk at a time up to the first non-blank character (its chunk
	 * and the blanks before it are the head of the text); stdin is read
	 * with sim_scenario_read() only, never through stdio, so that no
	 * byte waits in stdin's buffer and a stop signal ends a wait */
	for (size_t at = 0, got = 1; r == SCENARIO_READ_END && ch == EOF && got;) {
		r = read_scenario_chunk(STDIN_FILENO, &t, &got);
		for (; at < t.len && ch == EOF; at++)
			if (!strchr(" \t\r\n", t.buf[at]) || !t.buf[at])
				ch = (unsigned char)t.buf[at];
	}
	if (r == SCENARIO_READ_END && ch == '{')
		r = read_scenario_rest(STDIN_FILENO, &t);
	/* INI: a regular file on stdin is refused by its size here, as by
	 * name, before the line reader (whose stream has no descriptor) */
	else if (r == SCENARIO_READ_END && ch != EOF &&
		 sim_scenario_file_over(STDIN_FILENO, SIM_SCENARIO_MAX - t.len))
		r = SCENARIO_READ_TOO_BIG;
	if (r != SCENARIO_READ_END) {
		ret = scenario_read_error(r, name);
		free(t.buf);
		return ret;
	}
	if (ch == '{') {
		ret = load_json_text(c, t.buf, t.len, name);
		free(t.buf);
		return ret;
	}
	struct stdin_ini s = { .head = &t };
	FILE *f = fopencookie(&s, "r", (cookie_io_functions_t){ .read = stdin_ini_read });
	if (!f) {
		fprintf(stderr, "pvspin sim: cannot read the scenario from stdin: %s\n",
			strerror(errno));
		free(t.buf);
		return -2;
	}
	ret = sim_config_load_ini_stream(c, f, name, stderr);
	fclose(f);
	free(t.buf);
	return ret;
}

/* The guest locks the VMs ran (their "lock", which the vmN.lock keys
 * override), for the summary's first line: "lock K" when all VMs ran K,
 * else "locks (vm0 K1, vm1-vm2 K2)" (runs of VMs with the same lock).
 * Writes at most n bytes (truncated) to buf. */
static void locks_summary(json_t *vms, const char *global, char *buf, size_t n)
{
	size_t nvm = json_array_size(vms), used = 0;
	const char *first = nvm ? json_string_value(json_object_get(json_array_get(vms, 0), "lock"))
				: NULL;
	bool same = first != NULL;
	for (size_t i = 1; same && i < nvm; i++) {
		const char *k = json_string_value(json_object_get(json_array_get(vms, i), "lock"));
		same = k && !strcmp(k, first);
	}
	if (same || !nvm) {
		snprintf(buf, n, "lock %s", same ? first : global);
		return;
	}
	used = (size_t)snprintf(buf, n, "locks (");
	for (size_t i = 0; i < nvm && used < n;) {
		const char *k = json_string_value(json_object_get(json_array_get(vms, i), "lock"));
		size_t end = i + 1;
		while (end < nvm) {
			const char *e = json_string_value(json_object_get(json_array_get(vms, end),
									  "lock"));
			if (!k || !e || strcmp(k, e))
				break;
			end++;
		}
		if (end - i == 1)
			used += (size_t)snprintf(buf + used, n - used, "%svm%zu %s", i ? ", " : "", i,
						 k ? k : "?");
		else
			used += (size_t)snprintf(buf + used, n - used, "%svm%zu-vm%zu %s",
						 i ? ", " : "", i, end - 1, k ? k : "?");
		i = end;
	}
	if (used < n)
		snprintf(buf + used, n - used, ")");
}

/* A VM's "jain" as the summary prints it: "0.994", or "-" where the JSON
 * has null (no vCPU finished an operation: the index is 0 / 0). */
static const char *jain_text(const json_t *v, char *buf, size_t n)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, n, "%.3f", json_number_value(v));
	return buf;
}

static void print_summary(FILE *f, json_t *j)
{
	json_t *cfg = json_object_get(j, "config"), *host = json_object_get(j, "host");
	json_t *vms = json_object_get(j, "vms"), *vm;
	char locks[SIM_MAX_VMS * 40];
	size_t i;
	locks_summary(vms, json_string_value(json_object_get(cfg, "lock")), locks, sizeof(locks));
	char shape[96];
	sim_shape_text(cfg, shape, sizeof(shape));
	fprintf(f, "pvspin sim: preset %s, %s, %s, "
		   "profile %s, workload %s, stop %s at %.6f s\n",
		json_string_value(json_object_get(cfg, "preset"))[0]
			? json_string_value(json_object_get(cfg, "preset")) : "-",
		locks, shape,
		json_string_value(json_object_get(cfg, "profile")),
		json_string_value(json_object_get(cfg, "workload")),
		json_string_value(json_object_get(j, "stop")),
		json_real_value(json_object_get(j, "sim_seconds")));
	json_array_foreach(vms, i, vm) {
		json_t *lat = json_object_get(vm, "latency_ns"), *c = json_object_get(vm, "completion_s");
		/* completion only means something in a fixed-work run */
		char comp[48] = "", jain[16], wait[112] = "wait -";
		if (json_integer_value(json_object_get(cfg, "work")) > 0)
			snprintf(comp, sizeof(comp), json_is_null(c) ? ", completion: not done"
							  : ", completion %.6f s",
				 json_is_null(c) ? 0.0 : json_real_value(c));
		/* the tail too: p50 and p99 alone can be equal while a few
		 * waits take milliseconds (a new user read that as a bug);
		 * "wait -" where no wait was timed (the JSON's latency_ns has
		 * its count only: the figures are not 0 ns, they do not
		 * exist) */
		if (json_is_number(json_object_get(lat, "p50")))
			snprintf(wait, sizeof(wait), "wait p50 %.0f ns p99 %.0f ns p999 %.0f ns "
				 "max %.0f ns",
				 json_real_value(json_object_get(lat, "p50")),
				 json_real_value(json_object_get(lat, "p99")),
				 json_real_value(json_object_get(lat, "p999")),
				 json_real_value(json_object_get(lat, "max")));
		fprintf(f, "  vm%zu (%s): ops %lld, ops/s %.0f%s, %s, jain %s, cpu %.1f%%, "
			   "spin %.1f%%\n", i,
			json_string_value(json_object_get(vm, "lock")),
			json_integer_value(json_object_get(vm, "ops")),
			json_real_value(json_object_get(vm, "ops_per_s")), comp, wait,
			jain_text(json_object_get(vm, "jain"), jain, sizeof(jain)),
			json_real_value(json_object_get(vm, "cpu_pct")),
			json_real_value(json_object_get(vm, "spin_pct")));
	}
	fprintf(f, "  host: halts %lld, kicks %lld, ple_exits %lld, directed_yields %lld, "
		   "lhp %.3f ms, lwp %.3f ms, steal %.1f%%, busy %.1f%%\n",
		json_integer_value(json_object_get(host, "halts")),
		json_integer_value(json_object_get(host, "kicks")),
		json_integer_value(json_object_get(host, "ple_exits")),
		json_integer_value(json_object_get(host, "directed_yields")),
		json_integer_value(json_object_get(host, "lhp_ns")) / 1e6,
		json_integer_value(json_object_get(host, "lwp_ns")) / 1e6,
		json_real_value(json_object_get(host, "steal_pct")),
		json_real_value(json_object_get(host, "pcpu_busy_pct")));
	/* the rseq time-slice extension, when on (slice_ext_us) */
	json_t *grants = json_object_get(host, "slice_ext_grants");
	if (grants)
		fprintf(f, "  slice extension: %lld preemptions deferred, %lld given back by the "
			   "holder's unlock\n", json_integer_value(grants),
			json_integer_value(json_object_get(host, "slice_ext_yields")));
	fprintf(f, "  events %lld in %.3f s wall (%.0f events/s)\n",
		json_integer_value(json_object_get(j, "events")),
		json_real_value(json_object_get(j, "wall_seconds")),
		json_real_value(json_object_get(j, "events_per_s")));
}

static int write_json(json_t *j, const char *path)
{
	int flags = JSON_INDENT(2) | JSON_REAL_PRECISION(12);
	if (!strcmp(path, "-")) {
		if (json_dumpf(j, stdout, flags))
			return -1;
		fputc('\n', stdout);
		return 0;
	}
	errno = 0;
	if (json_dump_file(j, path, flags)) {
		fprintf(stderr, "pvspin sim: --json: cannot write '%s'%s%s\n", path,
			errno ? ": " : "", errno ? strerror(errno) : "");
		return -1;
	}
	return 0;
}

/* A lock kind drawn uniformly, by name. */
static const char *random_kind(gsl_rng *r)
{
	return pvspin_kind_name((pvspin_kind_t)(1 + gsl_rng_uniform_int(r, PVSPIN_KIND_COUNT - 1)));
}

/* One random small configuration for --fuzz. */
static void fuzz_config(struct sim_config *c, gsl_rng *r, char *cmd, size_t n)
{
	static const char *const wls[] = { "kcbench", "ebizzy", "ebizzy-mm", "spawn", "messaging",
					   "bench" };
	static const char *const profs[] = { "intel-xeon", "amd-epyc", "loongarch-3c5000",
					     "linux-threads" };
	char set[24][48];
	int k = 0;
	int vms = 1 + (int)gsl_rng_uniform_int(r, 3);
	int vcpus = 1 + (int)gsl_rng_uniform_int(r, 8);
	int pcpus = 1 + (int)gsl_rng_uniform_int(r, 8);
	int dedicated = vms * vcpus <= pcpus && gsl_rng_uniform(r) < 0.3;
	snprintf(set[k++], 48, "vms=%d", vms);
	snprintf(set[k++], 48, "vcpus=%d", vcpus);
	snprintf(set[k++], 48, "pcpus=%d", pcpus);
	/* 2 nodes only for an even pcpus (nodes must divide it); the draw is
	 * made either way, so the runs of a fuzz seed keep their other keys */
	int nodes = pcpus > 1 ? 1 + (int)gsl_rng_uniform_int(r, 2) : 1;
	snprintf(set[k++], 48, "nodes=%d", pcpus % nodes ? 1 : nodes);
	snprintf(set[k++], 48, "lock=%s", random_kind(r));
	const char *wl = wls[gsl_rng_uniform_int(r, sizeof(wls) / sizeof(wls[0]))];
	snprintf(set[k++], 48, "workload=%s", wl);
	snprintf(set[k++], 48, "profile=%s",
		 profs[gsl_rng_uniform_int(r, sizeof(profs) / sizeof(profs[0]))]);
	snprintf(set[k++], 48, "ple=%s", gsl_rng_uniform(r) < 0.5 ? "0" : "default");
	if (gsl_rng_uniform(r) < 0.3)   /* mixed VMs: another lock in VM 0 */
		snprintf(set[k++], 48, "vm0.lock=%s", random_kind(r));
	snprintf(set[k++], 48, "kick_yield=%d", (int)gsl_rng_uniform_int(r, 2));
	snprintf(set[k++], 48, "pv_unhalt=%d", gsl_rng_uniform(r) < 0.8);
	snprintf(set[k++], 48, "dedicated=%d", dedicated);
	snprintf(set[k++], 48, "spin_threshold=%d", 1 << (4 + (int)gsl_rng_uniform_int(r, 12)));
	snprintf(set[k++], 48, "halt_poll_us=%d", gsl_rng_uniform(r) < 0.5 ? 0 : 200);
	snprintf(set[k++], 48, "work=%d", gsl_rng_uniform(r) < 0.5 ? 0 : 50);
	snprintf(set[k++], 48, "seconds=0.005");
	snprintf(set[k++], 48, "seed=%lu", gsl_rng_get(r));
	/* drawn last (after the seed), so adding them changed no earlier
	 * key's draw; drawn for every workload, so that a fuzz seed's runs
	 * keep their keys, and set only where the workload reads them
	 * (ebizzy-mm's own; another refuses them) */
	int threads = (int)gsl_rng_uniform_int(r, 4), madvise = gsl_rng_uniform(r) < 0.5;
	if (sim_config_key_applies("threads", wl))
		snprintf(set[k++], 48, "threads=%d", threads);
	if (sim_config_key_applies("mm_madvise", wl))
		snprintf(set[k++], 48, "mm_madvise=%d", madvise);
	sim_config_defaults(c);
	size_t used = 0;
	cmd[0] = 0;
	for (int i = 0; i < k; i++) {
		used += (size_t)snprintf(cmd + used, used < n ? n - used : 0, " --set %s", set[i]);
		sim_config_set_pair(c, set[i], stderr);
	}
}

/* What main() says after "interrupted by SIGTERM" when a signal stopped
 * the run, or came before it. */
static const char *interrupt_note =
	": the results cover the simulated time until then (\"stop\": \"interrupted\")";

static int run_fuzz(long n, uint64_t seed, const char *json_path)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	long failures = 0;
	json_t *fails = json_array();
	bool progress = isatty(STDERR_FILENO);   /* a run per line would flood a log */
	gsl_rng_set(r, (unsigned long)seed);
	long done = 0;
	for (long i = 0; i < n && !tool_stop_signal(); i++) {
		struct sim_config c;
		struct sim_result res;
		char cmd[1024];
		if (progress)
			fprintf(stderr, "\r\033[Kpvspin sim --fuzz: run %ld/%ld, %ld broken", i + 1, n,
				failures);
		fuzz_config(&c, r, cmd, sizeof(cmd));
		int rc = sim_run(&c, &res);
		if (rc > 0 && res.stop == SIM_STOP_INTERRUPTED) {
			/* stopped by the signal, not broken: not a run */
			json_decref(res.json);
			free(res.report);
			break;
		}
		done++;
		if (progress && rc)
			fputs("\r\033[K", stderr);   /* the report starts on a clean line */
		if (rc < 0) {
			failures++;
			fprintf(stderr, "FUZZ CONFIG ERROR %ld/%ld (a bug of --fuzz itself):%s\n",
				i + 1, n, cmd);
			continue;
		}
		if (rc != 0) {
			failures++;
			fprintf(stderr, "FUZZ FAILURE %ld/%ld (fuzz seed %llu): %s\n"
					"  reproduce: pvspin sim%s\n%s", i + 1, n,
				(unsigned long long)seed,
				json_string_value(json_object_get(res.json, "stop")), cmd,
				res.report ? res.report : "");
			json_t *f = json_object();
			json_object_set_new(f, "run", json_integer(i + 1));
			json_object_set_new(f, "reproduce", json_string(cmd + 1));
			json_object_set_new(f, "report", json_string(res.report ? res.report : ""));
			json_array_append_new(fails, f);
		}
		json_decref(res.json);
		free(res.report);
	}
	gsl_rng_free(r);
	if (progress)
		fputs("\r\033[K", stderr);
	/* cut short without a failure: not a SUCCESS, which would claim the
	 * runs asked for (as pvspin torture's INTERRUPTED) */
	printf("pvspin sim --fuzz: %ld runs%s, %ld broken (seed %llu): %s\n", done,
	       done < n ? " (interrupted)" : "", failures, (unsigned long long)seed,
	       failures ? "FAILURE" : done < n ? "INTERRUPTED, no failure seen" : "SUCCESS");
	if (done < n)
		interrupt_note = ": the runs done so far are reported";
	if (json_path) {
		json_t *j = json_object();
		json_object_set_new(j, "runs", json_integer(done));
		json_object_set_new(j, "runs_asked", json_integer(n));
		json_object_set_new(j, "seed", sim_u64_json(seed));
		json_object_set_new(j, "failures", fails);
		if (write_json(j, json_path))
			failures++;   /* the report is lost: the run failed */
		json_decref(j);
	} else {
		json_decref(fails);
	}
	return failures ? 1 : 0;
}

/* --seeds N: the runs, then the JSON document or the text summary, and
 * the reports of the seeds that stopped.  Returns the exit status. */
static int run_seeds(const struct sim_config *cfg, unsigned n, const char *json_path)
{
	json_t *doc;
	int rc = sim_run_seeds(cfg, n, 0, &doc, stderr);
	if (rc < 0)
		return 1;
	if (json_path) {
		if (write_json(doc, json_path))
			rc = 1;
	} else {
		sim_seeds_print(stdout, doc);
	}
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(doc, "runs"), i, r) {
		const char *rep = json_string_value(json_object_get(r, "report"));
		if (rep)
			fprintf(stderr, "seed %llu: %s", (unsigned long long)(cfg->seed + i), rep);
	}
	json_decref(doc);
	return rc;
}

static int sim_main(int argc, char **argv, char **sets)
{
	static const struct option opts[] = {
		{ "preset", required_argument, NULL, 'p' },
		{ "set", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "json", required_argument, NULL, 'j' },
		{ "list", no_argument, NULL, 'l' },
		{ "keys", no_argument, NULL, 'k' },
		{ "fuzz", required_argument, NULL, 'f' },
		{ "seeds", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *preset = NULL, *json_path = NULL, *seed_s = NULL, *seeds_s = NULL;
	const char *fuzz_s = NULL;
	int nsets = 0, c, list = 0, keys = 0;
	static const char optstring[] = ":p:s:S:j:lkf:N:h";
	long fuzz = -1, nseeds = 0;
	struct sim_config cfg;

	/* -h / --help anywhere: the help, whatever the other values (it
	 * takes no scenario file: an operand is an error) */
	c = tool_help_scan("pvspin sim", argc, argv, optstring, opts);
	if (c == 1)
		usage(stdout);
	if (c)
		return c == 1 ? 0 : c;
	while ((c = getopt_long(argc, argv, optstring, opts, NULL)) != -1) {
		switch (c) {
		/* one value each (tool_option_once(): a second, different
		 * one is refused, the same one again accepted), but --set,
		 * whose repeats add up */
		case 'p':
			if (tool_option_once("pvspin sim", "presets", "--preset", &preset, optarg))
				return 2;
			break;
		case 's': sets[nsets++] = optarg; break;
		case 'S': {
			/* the key seed's range, said as every number option is */
			uint64_t v;
			if (tool_option_number_once("pvspin sim", "seeds", "--seed", &seed_s, optarg,
						    0, UINT64_MAX, &v))
				return 2;
			break;
		}
		case 'j':
			/* a value of the command line, not a file that cannot be
			 * written: exit 2 naming the option, as pvspin bench's */
			if (!*optarg)
				return tool_empty_name_error("pvspin sim", "--json",
							     "a FILE, or - for standard output");
			if (tool_option_once("pvspin sim", "reports", "--json", &json_path, optarg))
				return 2;
			break;
		case 'l': list = 1; break;
		case 'k': keys = 1; break;
		case 'f': {
			uint64_t v;
			if (tool_option_number_once("pvspin sim", "fuzz run counts", "--fuzz",
						    &fuzz_s, optarg, 1, 1000000, &v))
				return 2;
			fuzz = (long)v;
			break;
		}
		case 'N': {
			uint64_t v;
			if (tool_option_number_once("pvspin sim", "seed counts", "--seeds", &seeds_s,
						    optarg, 1, SIM_MAX_SEEDS, &v))
				return 2;
			nseeds = (long)v;
			break;
		}
		default: return tool_option_error("pvspin sim", c, argv);
		}
	}
	/* a --json path naming stdout's file (/dev/stdout, ...) is "-":
	 * opened again, it would truncate what stdout wrote or mix with it */
	if (json_path && tool_output_is_stdout(json_path))
		json_path = "-";
	if (list || keys) {
		const char *what = list ? "--list" : "--keys";
		const char *other = list && keys ? "--keys" : preset ? "--preset" : nsets ? "--set"
				  : seed_s ? "--seed" : json_path ? "--json" : fuzz > 0 ? "--fuzz"
				  : nseeds ? "--seeds" : NULL;
		if (other) {
			fprintf(stderr, "pvspin sim: %s takes no other option (%s given)\n", what,
				other);
			return 2;
		}
		if (optind < argc) {
			fprintf(stderr, "pvspin sim: %s takes no argument ('%s' given)\n", what,
				argv[optind]);
			return 2;
		}
		if (list)
			sim_presets_list(stdout);
		else
			sim_keys_help(stdout);
		return 0;
	}
	sim_config_defaults(&cfg);
	if (seed_s && sim_config_set(&cfg, "seed", seed_s, stderr))
		return 2;
	if (fuzz > 0) {
		/* the runs draw their own configurations: nothing to combine */
		const char *other = preset ? "--preset" : nsets ? "--set" : nseeds ? "--seeds" : NULL;
		if (other || optind < argc) {
			fprintf(stderr, "pvspin sim: --fuzz draws its own configurations and takes "
					"only --seed and --json ('%s' given)\n",
				other ? other : argv[optind]);
			return 2;
		}
		if (json_path && tool_output_check("pvspin sim", "--json", json_path))
			return 1;
		return run_fuzz(fuzz, cfg.seed, json_path);
	}
	/* one operand, the scenario: a second is stray, said as every
	 * subcommand says one (the usage shows the one FILE) */
	if (optind < argc - 1)
		return tool_operand_error("pvspin sim", argv[optind + 1]);
	if (!preset && optind == argc && !nsets) {
		/* plain `pvspin sim` too: what is missing, then where the
		 * usage is, as every subcommand says a bad command line (not
		 * the whole usage, which buried the problem) */
		fprintf(stderr, "pvspin sim: no scenario given: give --preset NAME (see --list), "
				"--set KEY=VALUE or a FILE\n(pvspin sim --help lists the options)\n");
		return 2;
	}
	/* a preset is applied first, wherever it is given: --preset NAME and
	 * --set preset=NAME are the same, and two different ones conflict */
	const char *preset_from = preset ? "--preset " : NULL;
	for (int i = 0; i < nsets; i++) {
		if (strncmp(sets[i], "preset=", 7))
			continue;
		if (preset && strcmp(preset, sets[i] + 7)) {
			fprintf(stderr, "pvspin sim: two presets given (%s%s, --set %s); give one\n",
				preset_from, preset, sets[i]);
			return 2;
		}
		preset = sets[i] + 7;
		preset_from = "--set preset=";
	}
	if (preset && sim_config_preset(&cfg, preset, stderr))
		return 2;
	if (optind < argc) {
		const char *f = argv[optind];
		size_t l = strlen(f);
		int rc = !strcmp(f, "-") ? load_stdin_scenario(&cfg)
			 : (l > 5 && !strcasecmp(f + l - 5, ".json")) ? load_json_scenario(&cfg, f)
			 : sim_config_load_ini(&cfg, f, stderr);
		if (rc == SIM_SCENARIO_STOPPED || tool_stop_signal()) {
			/* a stop signal while the scenario was read (an endless
			 * or stalled input): no run; main() says so and ends by it */
			interrupt_note = " while reading the scenario: nothing was simulated";
			return 1;
		}
		if (rc)
			return rc == -2 ? 1 : 2;   /* the file failed : a bad key or value */
		/* a preset in the file would silently replace the command line's */
		if (preset && strcmp(cfg.preset, preset)) {
			fprintf(stderr, "pvspin sim: two presets given (%s%s, and '%s' in %s); "
				"give one\n", preset_from, preset, cfg.preset, f);
			return 2;
		}
	}
	for (int i = 0; i < nsets; i++) {
		if (!strncmp(sets[i], "preset=", 7))
			continue;   /* applied above */
		if (sim_config_set_pair(&cfg, sets[i], stderr))
			return 2;
	}
	if (seed_s && sim_config_set(&cfg, "seed", seed_s, stderr))
		return 2;
	if (sim_config_check(&cfg, stderr))
		return 2;
	/* the report must be writable before a possibly long run, not after */
	if (json_path && tool_output_check("pvspin sim", "--json", json_path))
		return 1;

	/* seeds S .. S + N - 1 must not wrap past 2^64 - 1 to 0 */
	if (nseeds > 1 && cfg.seed > UINT64_MAX - (uint64_t)(nseeds - 1)) {
		fprintf(stderr, "pvspin sim: --seeds %ld from seed %llu would pass 2^64 - 1; "
				"give a seed up to %llu\n", nseeds, (unsigned long long)cfg.seed,
			(unsigned long long)(UINT64_MAX - (uint64_t)(nseeds - 1)));
		return 2;
	}
	if (nseeds)
		return run_seeds(&cfg, (unsigned)nseeds, json_path);
	struct sim_result res;
	int rc = sim_run(&cfg, &res);
	if (rc < 0)
		return 2;
	if (json_path) {
		if (write_json(res.json, json_path))
			rc = 1;
	} else {
		print_summary(stdout, res.json);
	}
	if (res.report)
		fprintf(stderr, "%s", res.report);
	json_decref(res.json);
	free(res.report);
	return rc;
}

int main(int argc, char **argv)
{
	/* SIGINT, SIGTERM, SIGHUP (a closed terminal: a --json file still gets
	 * the results): the run stops at its next event and reports what it
	 * has; main() then ends by the same signal. */
	tool_stop_signals_catch();
	char **sets = calloc((size_t)argc + 1, sizeof(char *));
	if (!sets) {
		fprintf(stderr, "pvspin sim: out of memory\n");
		return 1;
	}
	int rc = sim_main(argc, argv, sets);
	free(sets);
	/* a report written to a full or closed stdout is a failure */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "pvspin sim: cannot write to standard output: %s\n", strerror(errno));
		if (!rc)
			rc = 1;
	}
	if (tool_stop_signal()) {
		fprintf(stderr, "pvspin sim: interrupted by %s%s\n",
			tool_stop_signal_name(tool_stop_signal()), interrupt_note);
		tool_stop_signal_reraise();
	}
	return rc;
}

/*
 * test_bench_json.c - checks a `pvspin bench --json` report.
 *
 * usage: test_bench_json FILE LOCKS THREADS [PLACEMENT]
 *   LOCKS and THREADS are the comma-separated lists the run was given;
 *   PLACEMENT is "measured" (the default) or "none" (--no-placement).
 * Checks the shape {"machine", "config", "results": [...]}, that every
 * (lock, threads) pair has exactly one result with the documented keys
 * and types, ops_per_s > 0, Jain's index in (0, 1], max/min >= 1 (or null
 * for a starved thread), ordered latency percentiles, events for the
 * pvspin kinds, control_of (the measured lock's name in a KIND_control
 * row of --control, with that kind's events; null elsewhere),
 * config.placement (false for "none"),
 * config.loops_per_ns_rounds (a rate per round, none above the final
 * one), and line_rtt_ns: when measured with 2 or more CPUs
 * (machine.ncpus) > 0 or null (every probe of the cell disturbed) in
 * each result (null in every result is said, not failed: a loaded
 * machine); else null; and line_rtt_ns_repeats: one entry per
 * ops_per_s_repeats entry, each null or > 0 (null throughout where not
 * measured), a number in one at least where line_rtt_ns is one.  Exit 0 if all hold, 1 with the first
 * problem on stderr.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *file;

#define CHECK(cond, ...)                                                  \
	do {                                                                  \
		if (!(cond)) {                                                    \
			fprintf(stderr, "%s: ", file);                                \
			fprintf(stderr, __VA_ARGS__);                                 \
			fputc('\n', stderr);                                          \
			exit(1);                                                      \
		}                                                                 \
	} while (0)

static int split(char *s, char **out, int max)
{
	int n = 0;
	for (char *t = strtok(s, ","); t && n < max; t = strtok(NULL, ","))
		out[n++] = t;
	return n;
}

static int is_pvspin_kind(const char *lock)
{
	return !strcmp(lock, "qspinlock") || !strcmp(lock, "pvqspinlock") ||
	       !strcmp(lock, "tas") || !strcmp(lock, "ticket") ||
	       !strcmp(lock, "spinpark");
}

static double number_or_null(json_t *o, const char *key, int *is_null, const char *where)
{
	json_t *v = json_object_get(o, key);
	CHECK(v, "%s: no \"%s\"", where, key);
	*is_null = json_is_null(v);
	CHECK(*is_null || json_is_number(v), "%s: \"%s\" is neither a number nor null", where, key);
	return *is_null ? 0 : json_number_value(v);
}

int main(int argc, char **argv)
{
	if ((argc != 4 && argc != 5) ||
	    (argc == 5 && strcmp(argv[4], "measured") && strcmp(argv[4], "none"))) {
		fprintf(stderr, "usage: %s FILE LOCKS THREADS [measured|none]\n", argv[0]);
		return 2;
	}
	file = argv[1];
	char *locks[64], *threads_s[64];
	int nl = split(argv[2], locks, 64), nt = split(argv[3], threads_s, 64);
	int seen[64][64] = { { 0 } };

	json_error_t err;
	json_t *root = json_load_file(file, 0, &err);
	CHECK(root, "not JSON: %s (line %d)", err.text, err.line);
	CHECK(json_is_object(root), "top level is not an object");
	json_t *machine = json_object_get(root, "machine"), *config = json_object_get(root, "config");
	json_t *results = json_object_get(root, "results");
	CHECK(json_is_object(machine), "no \"machine\" object");
	json_int_t ncpus = json_integer_value(json_object_get(machine, "ncpus"));
	CHECK(ncpus >= 1, "machine.ncpus missing or < 1");
	/* the placement probe needs two CPUs */
	int placement = (argc == 4 || !strcmp(argv[4], "measured")) && ncpus >= 2, measured = 0;
	CHECK(json_is_object(config), "no \"config\" object");
	/* config.placement: false with --no-placement only */
	CHECK(json_is_boolean(json_object_get(config, "placement")) &&
	      json_is_true(json_object_get(config, "placement")) ==
		      (argc == 4 || !strcmp(argv[4], "measured")),
	      "config.placement missing or not %s", argc == 4 || !strcmp(argv[4], "measured")
							   ? "true" : "false");
	/* config.loops_per_ns_rounds: one array per thread count, one rate
	 * (> 0) per round (config.repeat), each no faster than the final
	 * loops_per_ns (each round keeps the fastest rate seen) */
	json_t *rounds = json_object_get(config, "loops_per_ns_rounds");
	size_t repeat = (size_t)json_integer_value(json_object_get(config, "repeat"));
	CHECK(repeat >= 1, "config.repeat missing or < 1");
	double final_rate = json_real_value(json_object_get(config, "loops_per_ns"));
	CHECK(json_is_array(rounds) && (int)json_array_size(rounds) == nt,
	      "config.loops_per_ns_rounds missing or not %d arrays", nt);
	for (size_t t = 0; t < json_array_size(rounds); t++) {
		json_t *rt = json_array_get(rounds, t);
		CHECK(json_is_array(rt) && json_array_size(rt) == repeat,
		      "config.loops_per_ns_rounds[%zu] is not %zu rates", t, repeat);
		for (size_t k = 0; k < repeat; k++) {
			double r = json_real_value(json_array_get(rt, k));
			CHECK(r > 0 && r <= final_rate,
			      "config.loops_per_ns_rounds[%zu][%zu] = %g, not in (0, %g]", t, k, r,
			      final_rate);
		}
	}
	CHECK(json_is_array(results), "no \"results\" array");
	CHECK((int)json_array_size(results) == nl * nt, "%zu results, expected %d",
	      json_array_size(results), nl * nt);

	size_t i;
	json_t *r;
	json_array_foreach(results, i, r) {
		char where[64];
		snprintf(where, sizeof(where), "results[%zu]", i);
		CHECK(json_is_object(r), "%s is not an object", where);
		const char *lock = json_string_value(json_object_get(r, "lock"));
		CHECK(lock, "%s: no \"lock\" string", where);
		json_t *th = json_object_get(r, "threads");
		CHECK(json_is_integer(th), "%s: no integer \"threads\"", where);
		int li = -1, ti = -1;
		for (int k = 0; k < nl; k++)
			if (!strcmp(locks[k], lock))
				li = k;
		for (int k = 0; k < nt; k++)
			if (atoll(threads_s[k]) == json_integer_value(th))
				ti = k;
		CHECK(li >= 0, "%s: unexpected lock \"%s\"", where, lock);
		CHECK(ti >= 0, "%s: unexpected threads %lld", where, (long long)json_integer_value(th));
		CHECK(!seen[li][ti]++, "%s: %s x%lld appears twice", where, lock,
		      (long long)json_integer_value(th));
		CHECK(json_is_integer(json_object_get(r, "cs_ns")), "%s: no integer \"cs_ns\"", where);
		CHECK(json_is_integer(json_object_get(r, "ncs_ns")), "%s: no integer \"ncs_ns\"", where);

		int null;
		double ops = number_or_null(r, "ops_per_s", &null, where);
		CHECK(!null && ops > 0, "%s: ops_per_s is not > 0", where);
		double jain = number_or_null(r, "jain", &null, where);
		CHECK(!null && jain > 0 && jain <= 1.0 + 1e-9, "%s: jain %g not in (0, 1]", where, jain);
		double mm = number_or_null(r, "max_min", &null, where);
		CHECK(null || mm >= 1.0, "%s: max_min %g < 1", where, mm);

		json_t *lat = json_object_get(r, "latency_ns");
		CHECK(json_is_object(lat), "%s: no \"latency_ns\" object", where);
		const char *pk[] = { "p50", "p99", "p999", "max" };
		double prev = 0;
		for (int k = 0; k < 4; k++) {
			double v = number_or_null(lat, pk[k], &null, where);
			CHECK(!null, "%s: latency_ns.%s is null although the lock was taken", where, pk[k]);
			CHECK(v >= prev && v > 0, "%s: latency_ns.%s = %g out of order", where, pk[k], v);
			prev = v;
		}

		/* measured: a number > 0, or null for a cell whose every probe
		 * met a CPU another task held (placement.h), but a number in
		 * one cell at least (below) */
		double rtt = number_or_null(r, "line_rtt_ns", &null, where);
		if (placement) {
			CHECK(null || rtt > 0, "%s: line_rtt_ns %g is not > 0 (%d CPUs)", where, rtt,
			      (int)ncpus);
			measured += !null;
		} else
			CHECK(null, "%s: line_rtt_ns %g, expected null (%s)", where, rtt,
			      ncpus < 2 ? "one CPU" : "not measured");
		/* each repeat's round trip, beside its ops/s: the same count,
		 * each null or > 0 (null throughout where not measured), and
		 * a number in one repeat at least where the cell has one */
		json_t *rtts = json_object_get(r, "line_rtt_ns_repeats"),
		       *reps = json_object_get(r, "ops_per_s_repeats");
		CHECK(json_is_array(rtts) && json_is_array(reps) &&
		      json_array_size(rtts) == json_array_size(reps) && json_array_size(reps) > 0,
		      "%s: line_rtt_ns_repeats missing or not as long as ops_per_s_repeats", where);
		size_t k;
		json_t *x;
		int numbers = 0;
		json_array_foreach(rtts, k, x) {
			CHECK(json_is_null(x) || (json_is_number(x) && json_number_value(x) > 0 &&
						  placement),
			      "%s: line_rtt_ns_repeats[%zu] is neither null nor a round trip > 0%s", where,
			      k, placement ? "" : " (expected null: not measured)");
			numbers += !json_is_null(x);
		}
		CHECK(null || numbers > 0, "%s: line_rtt_ns %g but no repeat has a round trip", where,
		      rtt);

		/* --control: KIND_control measures KIND again ("control_of":
		 * KIND, KIND's events); every other row has "control_of": null */
		json_t *of = json_object_get(r, "control_of");
		CHECK(of, "%s: no \"control_of\"", where);
		const char *suffix = strstr(lock, "_control");
		const char *measured_lock = lock;
		char base[64];
		if (suffix && !suffix[strlen("_control")]) {
			snprintf(base, sizeof(base), "%.*s", (int)(suffix - lock), lock);
			CHECK(json_is_string(of) && !strcmp(json_string_value(of), base),
			      "%s: %s has control_of %s, expected \"%s\"", where, lock,
			      json_is_string(of) ? json_string_value(of) : "(not a string)", base);
			measured_lock = base;
		} else {
			CHECK(json_is_null(of), "%s: %s has control_of not null", where, lock);
		}

		json_t *ev = json_object_get(r, "events");
		CHECK(json_is_object(ev), "%s: no \"events\" object", where);
		if (is_pvspin_kind(measured_lock)) {
			CHECK(json_is_integer(json_object_get(ev, "lock_slowpath")),
			      "%s: events.lock_slowpath missing for pvspin kind %s", where, lock);
			CHECK(json_is_integer(json_object_get(ev, "pv_wait_node")),
			      "%s: events.pv_wait_node missing for pvspin kind %s", where, lock);
		} else {
			CHECK(json_object_size(ev) == 0, "%s: events for peer %s", where, lock);
		}
	}
	/* every probe may meet a busy CPU on a loaded machine (12 probes, all
	 * null once, under TSan in a fresh-clone `make check` beside another
	 * build, 2026-12-06): said, not failed; test_bench_placement retries
	 * the probe itself until it measures */
	if (placement && !measured)
		printf("%s: note: line_rtt_ns is null in every result (%d CPUs): every "
		       "probe met a busy CPU\n", file, (int)ncpus);
	json_decref(root);
	printf("%s: %d results OK\n", file, nl * nt);
	return 0;
}

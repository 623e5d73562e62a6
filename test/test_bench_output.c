/*
 * test_bench_output.c - the table lines of `pvspin bench` that compare the
 * default kind with the other locks, on made-up rows: the comparison by
 * placement class (bench_table_versus_by_placement) matches repeats run
 * close with repeats run close, and prints nothing where every probe fell
 * in one class, nor for a thread count with nothing to compare in either
 * class; the comparison lines keep their columns.  The busy loop's
 * calibration: a recheck keeps the faster rate (bench/workload.c), and
 * the rounds that ran short of the final rate are named after the rows.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bench/output.h"
#include "bench/peers.h"
#include "bench/workload.h"

static const struct bench_lock lock_a = { .name = "spinpark" };
static const struct bench_lock lock_b = { .name = "ck_ticket" };
static const struct bench_lock lock_c = { .name = "tas" };

/* Print the by-placement lines of rows[0..n) into a string (freed by the
 * caller). */
static char *by_placement(const struct bench_row *rows, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	bench_table_versus_by_placement(f, rows, n, "spinpark");
	fclose(f);
	return buf;
}

static void test_versus_by_placement(void **state)
{
	(void)state;
	/* spinpark: 3 repeats close (12, 14, 13), 2 apart (5, 6); ck_ticket:
	 * close 15, 16 and apart 4, 3, 5; tas: close 10 (one), apart 7, 7, 8, 9 */
	double a_ops[] = { 12, 5, 14, 6, 13 }, a_rtt[] = { 64, 330, 62, 320, 66 };
	double b_ops[] = { 15, 4, 3, 16, 5 }, b_rtt[] = { 64, 330, 330, 64, 320 };
	double c_ops[] = { 10, 7, 7, 8, 9 }, c_rtt[] = { 64, 330, 330, 320, 330 };
	struct bench_row rows[] = {
		{ .lock = &lock_a, .threads = 2, .ops_repeats = a_ops, .rtt_repeats = a_rtt, .nrepeats = 5 },
		{ .lock = &lock_b, .threads = 2, .ops_repeats = b_ops, .rtt_repeats = b_rtt, .nrepeats = 5 },
		{ .lock = &lock_c, .threads = 2, .ops_repeats = c_ops, .rtt_repeats = c_rtt, .nrepeats = 5 },
	};
	char *out = by_placement(rows, 3);
	printf("%s", out);
	assert_non_null(strstr(out, "close < 143 ns <= apart"));
	/* close: 13 over ck_ticket's 15.5; apart: 5.5 over tas's 7.5 */
	assert_non_null(strstr(out, "#      2 threads  close 0.84x ck_ticket (3, 2 repeats); "
				    "apart 0.73x tas (2, 4 repeats)\n"));
	free(out);

	/* tas never ran close: the close line says that 1 of the 2 other
	 * locks did (its best may be a weak lock) */
	double c2_rtt[] = { 330, 330, 330, 320, 330 };
	rows[2].rtt_repeats = c2_rtt;
	out = by_placement(rows, 3);
	assert_non_null(strstr(out, "#      2 threads  close 0.84x ck_ticket (3, 2 repeats; "
				    "1 of 2 other locks ran so); apart "));
	free(out);
	rows[2].rtt_repeats = c_rtt;

	/* every probe close: nothing */
	double one_class[] = { 64, 60, 62, 66, 64 };
	for (int i = 0; i < 3; i++)
		rows[i].rtt_repeats = one_class;
	out = by_placement(rows, 3);
	assert_string_equal(out, "");
	free(out);

	/* spinpark never ran apart: "apart -" */
	double b2_rtt[] = { 64, 330, 330, 64, 64 };   /* two probes: a class (one is an outlier) */
	rows[1].rtt_repeats = b2_rtt;
	out = by_placement(rows, 3);
	assert_non_null(strstr(out, "; apart -\n"));
	free(out);
}

/* A thread count where neither class compares anything (spinpark ran
 * close only, the others apart only) gets no line: it printed "close -;
 * apart -".  The other thread counts keep theirs, and with no line left
 * the header goes too. */
static void test_versus_by_placement_nothing(void **state)
{
	(void)state;
	double ops[] = { 12, 5, 14, 6, 13 }, close[] = { 64, 62, 66, 64, 60 };
	double apart[] = { 330, 320, 330, 340, 330 };
	double a_rtt[] = { 64, 330, 62, 320, 66 }, b_rtt[] = { 64, 330, 330, 64, 320 };
	struct bench_row rows[] = {
		{ .lock = &lock_a, .threads = 2, .ops_repeats = ops, .rtt_repeats = close, .nrepeats = 5 },
		{ .lock = &lock_a, .threads = 4, .ops_repeats = ops, .rtt_repeats = a_rtt, .nrepeats = 5 },
		{ .lock = &lock_b, .threads = 2, .ops_repeats = ops, .rtt_repeats = apart, .nrepeats = 5 },
		{ .lock = &lock_b, .threads = 4, .ops_repeats = ops, .rtt_repeats = b_rtt, .nrepeats = 5 },
		{ .lock = &lock_c, .threads = 2, .ops_repeats = ops, .rtt_repeats = apart, .nrepeats = 5 },
	};
	char *out = by_placement(rows, 5);
	printf("%s", out);
	/* at 4 threads, close: 13 over 9 (12, 6); apart: 5.5 over 13 (5, 14, 13) */
	assert_non_null(strstr(out, "#      4 threads  close 1.44x ck_ticket (3, 2 repeats); "
				    "apart 0.42x ck_ticket (2, 3 repeats)\n"));
	assert_null(strstr(out, "2 threads"));
	assert_null(strstr(out, "close -; apart -"));
	free(out);

	out = by_placement(rows, 3);   /* 2 threads only (and spinpark at 4) */
	assert_string_equal(out, "");
	free(out);
}

/* Print the comparison lines (bench_table_versus) of rows[0..n) into a
 * string (freed by the caller). */
static char *versus(const struct bench_row *rows, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	bench_table_versus(f, rows, n, "spinpark");
	fclose(f);
	printf("%s", buf);
	return buf;
}

/* Assert that the range and "paired" of every comparison line in `buf`
 * (after its header) start at the same columns; returns the lines. */
static int assert_columns(char *buf)
{
	long bracket = -1, paired = -1;
	int lines = 0;
	for (char *line = strchr(buf, '\n') + 1; *line; line = strchr(line, '\n') + 1, lines++) {
		char *b = strchr(line, '['), *p = strstr(line, "paired");
		assert_non_null(b);
		assert_non_null(p);
		if (bracket < 0) {
			bracket = b - line;
			paired = p - line;
		}
		assert_int_equal(b - line, bracket);
		assert_int_equal(p - line, paired);
	}
	return lines;
}

/* The comparison lines (bench_table_versus) keep their columns for a
 * ratio of 1 to 3 integer digits in fixed widths (a 21.32x ratio slipped
 * them one column), and beyond in columns as wide as the widest line
 * (1234.56x slipped them again). */
static void test_versus_columns(void **state)
{
	(void)state;
	double a1[] = { 15 }, b1[] = { 10 }, a2[] = { 2132 }, b2[] = { 100 };
	double a3[] = { 99999 }, b3[] = { 100 };
	struct bench_row rows[] = {
		{ .lock = &lock_a, .threads = 1, .ops_repeats = a1, .nrepeats = 1, .r.ops_per_s = 15 },
		{ .lock = &lock_b, .threads = 1, .ops_repeats = b1, .nrepeats = 1, .r.ops_per_s = 10 },
		{ .lock = &lock_a, .threads = 4, .ops_repeats = a2, .nrepeats = 1, .r.ops_per_s = 2132 },
		{ .lock = &lock_b, .threads = 4, .ops_repeats = b2, .nrepeats = 1, .r.ops_per_s = 100 },
		{ .lock = &lock_a, .threads = 64, .ops_repeats = a3, .nrepeats = 1, .r.ops_per_s = 99999 },
		{ .lock = &lock_b, .threads = 64, .ops_repeats = b3, .nrepeats = 1, .r.ops_per_s = 100 },
	};
	char *buf = versus(rows, 6);
	assert_non_null(strstr(buf, "21.32x"));
	assert_non_null(strstr(buf, "999.99x"));
	assert_non_null(strstr(buf, "#      1 thread     1.50x ck_ticket              "
				    "[1.50-1.50]     paired   1.50x\n"));   /* the fixed widths */
	assert_int_equal(assert_columns(buf), 3);
	free(buf);

	double a4[] = { 123456 };   /* 1234.56x at 64 threads */
	rows[4].ops_repeats = a4;
	rows[4].r.ops_per_s = 123456;
	buf = versus(rows, 6);
	assert_non_null(strstr(buf, "1234.56x"));
	assert_int_equal(assert_columns(buf), 3);
	free(buf);
}

/* A recheck raises a rate measured too low (a calibration the host ran
 * slowly) and never lowers one: each round keeps the fastest rate seen. */
static void test_workload_recheck_keeps_fastest(void **state)
{
	(void)state;
	struct bench_workload w = { .loops_per_ns = 1e-6, .loops_per_ns_start = 1e-6 };
	assert_true(bench_workload_recheck(&w));
	assert_true(w.loops_per_ns > 1e-6);
	assert_true(w.loops_per_ns_start == 1e-6);   /* the start stays */
	w.loops_per_ns = 1e6;   /* faster than any CPU: kept */
	assert_false(bench_workload_recheck(&w));
	assert_true(w.loops_per_ns == 1e6);
}

/* The calibration note of config `c` (bench_table_calibration_note) as a
 * string (freed by the caller). */
/* Not inlined: GCC 14's -Wdangling-pointer then took the returned
 * buffer for the address of the local `buf` that open_memstream() was
 * given (a false warning in a Release build). */
__attribute__((noinline)) static char *calibration_note(const struct bench_config *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	bench_table_calibration_note(f, c);
	fclose(f);
	printf("%s", buf);
	return buf;
}

/* The note after the rows: said when a round ran with a rate more than
 * BENCH_CALIBRATION_NOTE_PCT below the final one, with the calibrated and
 * final rates, the largest shortfall of the sections (a new user's run
 * calibrated at 1.60 loops/ns on a machine that runs 3.24) and, on a
 * second line, those rounds by thread count (it did not say which rounds
 * ran short); nothing otherwise. */
static void test_calibration_note(void **state)
{
	(void)state;
	unsigned threads[] = { 1, 2, 4 };
	/* 1 thread: every round short; 2 threads: round 1 (2.9 is within
	 * 10 % of 3.2); 4 threads: none (0: a round not run) */
	double rate[] = { 1.6, 1.6, 1.7, 2.5, 2.9, 3.2, 3.2, 3.2, 0 };
	struct bench_config c = { .threads = threads, .nthreads = 3, .repeat = 3,
				  .round_loops_per_ns = rate };
	c.workload.loops_per_ns_start = 1.6;
	c.workload.loops_per_ns = 3.2;
	char *buf = calibration_note(&c);
	assert_non_null(strstr(buf, "3.200 loops/ns, against 1.600 when calibrated"));
	assert_non_null(strstr(buf, "up to 50 % shorter than asked\n"));
	char *second = strchr(buf, '\n') + 1;
	assert_string_equal(second, "# the rounds whose sections were more than 10 % short "
				    "(rate under 2.880 loops/ns): 1 thread (all 3), 2 threads "
				    "(round 1 of 3)\n");
	free(buf);

	/* rounds in ranges, and a thread count with none left out; with one
	 * repeat, the thread count alone */
	double gaps[] = { 3.2, 3.2, 3.2, 2.4, 2.4, 3.2, 2.4, 3.2, 2.4 };
	c.round_loops_per_ns = gaps;
	buf = calibration_note(&c);
	assert_non_null(strstr(buf, "up to 25 % shorter than asked\n"));
	assert_non_null(strstr(buf, "loops/ns): 2 threads (rounds 1-2 of 3), "
				    "4 threads (rounds 1, 3 of 3)\n"));
	free(buf);
	c.repeat = 1;   /* one round per thread count */
	c.round_loops_per_ns = (double[]){ 2.4, 3.2, 2.4 };
	buf = calibration_note(&c);
	assert_non_null(strstr(buf, "loops/ns): 1 thread, 4 threads\n"));
	free(buf);
	c.repeat = 3;

	/* a slow calibration that the first round's recheck already
	 * corrected: no round ran short, no note; nor when the slowest round
	 * is 6 % below the final rate */
	double fast[] = { 3.2, 3.2, 3.2, 3.2, 3.2, 3.2, 3.2, 3.2, 3.2 };
	double near[] = { 3.0, 3.0, 3.2, 3.2, 3.2, 3.2, 3.2, 3.2, 3.2 };
	c.round_loops_per_ns = fast;
	buf = calibration_note(&c);
	assert_string_equal(buf, "");
	free(buf);
	c.round_loops_per_ns = near;
	buf = calibration_note(&c);
	assert_string_equal(buf, "");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versus_by_placement),
		cmocka_unit_test(test_versus_by_placement_nothing),
		cmocka_unit_test(test_versus_columns),
		cmocka_unit_test(test_workload_recheck_keeps_fastest),
		cmocka_unit_test(test_calibration_note),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

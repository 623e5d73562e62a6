/*
 * test_bench_output.c - the table lines of `pvspin bench` that compare the
 * default kind with the other locks, on made-up rows: the comparison by
 * placement class (bench_table_versus_by_placement) matches repeats run
 * close with repeats run close, and prints nothing where every probe fell
 * in one class.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_versus_by_placement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

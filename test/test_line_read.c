/*
 * test_line_read.c - the bounded line reader (src/util/line_read.h) that
 * CPUID dumps (`pvspin detect --cpuid`) and INI scenarios (`pvspin sim`)
 * are read with: a line of size - 1 characters fits, with or without its
 * newline; one more is refused having read at most `size` bytes of it;
 * a NUL byte is told; the end of the file ends the last line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "util/line_read.h"

/* A stream over `len` bytes of `text` (NULs included). */
static FILE *stream(const char *text, size_t len)
{
	FILE *f = fmemopen((void *)text, len, "r");
	assert_non_null(f);
	return f;
}

static void test_lines(void **state)
{
	(void)state;
	static const char text[] = "ab\n\nlast";
	FILE *f = stream(text, sizeof(text) - 1);
	char buf[8];
	bool nul = true;
	assert_int_equal(pvspin_read_line_bounded(f, buf, sizeof(buf), &nul), 3);
	assert_string_equal(buf, "ab\n");
	assert_false(nul);
	assert_int_equal(pvspin_read_line_bounded(f, buf, sizeof(buf), &nul), 1);
	assert_string_equal(buf, "\n");
	/* the last line without its newline */
	assert_int_equal(pvspin_read_line_bounded(f, buf, sizeof(buf), NULL), 4);
	assert_string_equal(buf, "last");
	assert_int_equal(pvspin_read_line_bounded(f, buf, sizeof(buf), &nul), 0);
	assert_string_equal(buf, "");
	assert_false(ferror(f));
	fclose(f);
}

/* size - 1 characters fit: the newline after them is read, not stored
 * (the next line starts after it); size characters do not. */
static void test_bound(void **state)
{
	(void)state;
	char buf[5];
	static const char fits[] = "abcd\nefgh";
	FILE *f = stream(fits, sizeof(fits) - 1);
	assert_int_equal(pvspin_read_line_bounded(f, buf, sizeof(buf), NULL), 4);
	assert_string_equal(buf, "abcd");
	assert_int_equal(pvspin_read_line_bounded(f, buf, sizeof(buf), NULL), 4);
	assert_string_equal(buf, "efgh");   /* fits, at the end of the file */
	assert_int_equal(pvspin_read_line_bounded(f, buf, sizeof(buf), NULL), 0);
	fclose(f);

	static const char longer[] = "abcde\nx\n";
	f = stream(longer, sizeof(longer) - 1);
	assert_int_equal(pvspin_read_line_bounded(f, buf, sizeof(buf), NULL), -1);
	assert_int_equal(ftell(f), 5);   /* size bytes read, no more */
	fclose(f);
}

/* One endless line (/dev/zero, a stream of NULs) is refused after `size`
 * bytes, with its NUL told; so is a NUL inside a line that fits. */
static void test_nul(void **state)
{
	(void)state;
	static char zeros[1 << 20];
	FILE *f = stream(zeros, sizeof(zeros));
	char buf[256];
	bool nul = false;
	assert_int_equal(pvspin_read_line_bounded(f, buf, sizeof(buf), &nul), -1);
	assert_true(nul);
	assert_int_equal(ftell(f), (long)sizeof(buf));
	fclose(f);

	static const char text[] = "a\0b\nc\n";
	f = stream(text, sizeof(text) - 1);
	assert_int_equal(pvspin_read_line_bounded(f, buf, sizeof(buf), &nul), 4);
	assert_true(nul);
	assert_memory_equal(buf, "a\0b\n", 5);
	assert_int_equal(pvspin_read_line_bounded(f, buf, sizeof(buf), &nul), 2);
	assert_false(nul);
	fclose(f);
}

/* A read error ends the line as the end of the file does; ferror() tells. */
static void test_read_error(void **state)
{
	(void)state;
	FILE *f = fopen("/", "r");   /* a directory: read() fails with EISDIR */
	assert_non_null(f);
	char buf[16];
	assert_int_equal(pvspin_read_line_bounded(f, buf, sizeof(buf), NULL), 0);
	assert_true(ferror(f));
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_read_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * line_read.h - the one bounded line reader of the project's line-by-line
 * text inputs: CPUID dumps (src/policy/cpuid_table.c, `pvspin detect
 * --cpuid`) and INI scenarios (sim/sim_config.c, `pvspin sim`, under
 * libinih).  Private to the project.  Header-only: the simulator builds the
 * lock sources a second time against its own platform and links none of
 * the library's objects, so a function of the library could not serve it.
 *
 * getline() grows its buffer to the longest line (`--cpuid /dev/zero` grew
 * it to 6.8 GB in 10 s, a new user's finding); this reads at most the
 * caller's buffer and one byte more of a line.
 */
#ifndef PVSPIN_SRC_UTIL_LINE_READ_H
#define PVSPIN_SRC_UTIL_LINE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/**
 * Read one line of `f` into `buf` (`size` bytes, at least 2): its
 * characters and its newline, NUL-terminated.  A line may hold up to
 * size - 1 characters before its newline; a newline that no longer fits
 * after them is read and dropped, so the next call starts at the next line.
 *
 * Returns the number of bytes stored (the newline included, if stored;
 * at least 1), 0 at the end of the file with nothing read, or -1 for a
 * line of more than size - 1 characters before its newline: `size` bytes
 * of it were read (size - 1 of them stored), the rest is left unread, and
 * the caller names the line and stops.  *nul (unless `nul` is NULL) tells
 * whether a NUL byte is among the bytes stored, on every return (strlen()
 * of the line would stop there).  A read error ends the line as the end of
 * the file does: ferror(f) tells.  No allocation.  Thread-safe as getc()
 * is; one reader per stream.
 */
static inline ssize_t pvspin_read_line_bounded(FILE *f, char *buf, size_t size, bool *nul)
{
	size_t n = 0;
	bool z = false;
	ssize_t ret = 0;
	int c;
	while ((c = getc(f)) != EOF) {
		if (n == size - 1) {
			/* full: only its newline may follow (read, not stored) */
			if (c != '\n')
				ret = -1;
			break;
		}
		buf[n++] = (char)c;
		z |= c == '\0';
		if (c == '\n')
			break;
	}
	buf[n] = '\0';
	if (nul)
		*nul = z;
	return ret < 0 ? ret : (ssize_t)n;
}

#endif /* PVSPIN_SRC_UTIL_LINE_READ_H */

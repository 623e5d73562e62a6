/*
 * output_check.h - check that an output file can be written before a long
 * run, without destroying what it holds: shared by `pvspin bench`
 * (--json/--csv/--plot) and `pvspin-sim` (--json).
 */
#ifndef PVSPIN_TOOLS_OUTPUT_CHECK_H
#define PVSPIN_TOOLS_OUTPUT_CHECK_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/** Does report path `path` name standard output: "-", or the very file
 *  stdout is open on (stat(path) has fstat(1)'s st_dev and st_ino:
 *  /dev/stdout, /proc/self/fd/1, the file of `> out` given by name) when
 *  stdout is a regular file, a pipe or a terminal?  Such a path is
 *  written as "-" is (the table then goes to stderr, two reports on
 *  stdout are refused), not opened again, which would truncate a file
 *  under stdout's offset or interleave with what stdout prints.
 *  Thread-safe (no shared state). */
static inline bool tool_output_is_stdout(const char *path)
{
	struct stat p, o;
	if (!strcmp(path, "-"))
		return true;
	if (fstat(STDOUT_FILENO, &o) ||
	    !(S_ISREG(o.st_mode) || S_ISFIFO(o.st_mode) || isatty(STDOUT_FILENO)))
		return false;
	return !stat(path, &p) && p.st_dev == o.st_dev && p.st_ino == o.st_ino;
}

/* "PROG: OPT: cannot write 'PATH': REASON" (errno's) to stderr; -1. */
static inline int tool_output_fail(const char *prog, const char *opt, const char *path)
{
	fprintf(stderr, "%s: %s: cannot write '%s': %s\n", prog, opt, path, strerror(errno));
	return -1;
}

/** Can `path` be written?  "-" (stdout) always can.  A new file is created
 *  and removed again (the run writes it later), also through a symbolic
 *  link to a file that does not exist yet; an existing one is opened
 *  for writing without O_TRUNC, so it keeps its contents until results
 *  exist, and given a write of zero bytes, which fails where the final
 *  write would on a file that takes no writes (/proc/version: EIO,
 *  /dev/full: ENOSPC) and changes nothing elsewhere.  A named pipe is
 *  not opened, only checked for write permission (access(2)): opening
 *  and closing it would wait for a reader and then send that reader its
 *  end of file, and the report, written later, would wait for ever for
 *  another (`mkfifo f; cat f > out & pvspin sim ... --json f` hung).
 *  Returns 0, or -1 after printing "PROG: OPT: cannot write 'PATH':
 *  REASON" to stderr.  Thread-safe (no shared state). */
static inline int tool_output_check(const char *prog, const char *opt, const char *path)
{
	struct stat st;
	if (!strcmp(path, "-"))
		return 0;
	if (!stat(path, &st) && S_ISFIFO(st.st_mode))
		return access(path, W_OK) ? tool_output_fail(prog, opt, path) : 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd >= 0) {
		close(fd);
		unlink(path);   /* created only to find out: the run writes it later */
		return 0;
	}
	if (errno == EEXIST) {
		fd = open(path, O_WRONLY | O_CLOEXEC);   /* no O_TRUNC: not yet */
		/* EEXIST from O_EXCL, ENOENT on following it: a symbolic link
		 * to a file that does not exist yet, which the run creates
		 * through the link as a shell's `> LINK` would: create it the
		 * same way to find out, and remove it again by its resolved
		 * name (the last link of a chain stays) */
		if (fd < 0 && errno == ENOENT) {
			fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
			if (fd >= 0) {
				char *made = realpath(path, NULL);
				close(fd);
				if (made)
					unlink(made);
				free(made);
				return 0;
			}
		}
	}
	if (fd >= 0 && write(fd, "", 0) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		fd = -1;
	}
	if (fd < 0)
		return tool_output_fail(prog, opt, path);
	close(fd);
	return 0;
}

#endif /* PVSPIN_TOOLS_OUTPUT_CHECK_H */

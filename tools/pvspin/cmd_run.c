/*
 * cmd_run.c - `pvspin run [--lock KIND] [--policy NAME] [--stats] --
 * PROGRAM ARGS...` (also --spin-limit N): run an unmodified program with its pthread mutexes,
 * condition variables and spinlocks on pvspin locks, through the
 * LD_PRELOAD interposer libpvspin-preload.so (preload/, docs/preload.md).
 *
 * The kind is resolved HERE (--lock, else --policy's pick, else
 * PVSPIN_LOCK, else the PVSPIN_POLICY / default policy's pick) and handed
 * to the program as PVSPIN_LOCK, so the program's process never runs the
 * policy.  The library is looked up, in order: $PVSPIN_PRELOAD_LIB; the
 * build tree (<dir of pvspin>/../preload/); the install tree (<dir of
 * pvspin>/../<libdir>/); the configured install libdir.  It must be a
 * readable ELF shared object for this machine that defines the
 * interposer's marker symbol, checked here: ld.so would only warn about
 * anything else, or preload another library without a word, and run the
 * program on glibc.  LD_PRELOAD gets
 * the library's absolute path prepended, unless it is already listed (so
 * `pvspin run -- pvspin run -- prog` loads it once).  A statically linked
 * program (no PT_INTERP: LD_PRELOAD never applies) gets a note on stderr
 * that it runs with nothing interposed.  Then execvp: the
 * program keeps this process's pid, stdio and exit status; a program that
 * cannot be found or executed is reported and exits 127 or 126 like a
 * shell.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <limits.h>
#include <libelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cmd.h"
#include "env_check.h"
#include "pvspin/lock.h"
#include "pvspin/platform.h"
#include "pvspin/policy.h"
#include "pvspin/tunables.h"
#include "option_error.h"
#include "policy/policy_default.h"

#ifndef PVSPIN_INSTALL_LIBDIR
#define PVSPIN_INSTALL_LIBDIR "lib"
#endif
#ifndef PVSPIN_INSTALL_FULL_LIBDIR
#define PVSPIN_INSTALL_FULL_LIBDIR "/usr/local/lib"
#endif
#define PRELOAD_NAME "libpvspin-preload.so"
/* the symbol only the interposer exports (preload/preload_init.c) */
#define PRELOAD_MARKER "pvspin_preload_marker"

/* An operand given with -h / --help: run's operand is the program to
 * run, which the help does not take (tool_help_scan_as()):
 *   pvspin run: --help takes no program ('sort')
 *   (pvspin run --help lists the options) */
static int run_help_operand_error(const char *prog, const char *operand)
{
	fprintf(stderr, "%s: --help takes no program ('%s')\n(%s --help lists the options)\n",
		prog, operand, prog);
	return 2;
}

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: pvspin run [--lock KIND] [--policy NAME] [--stats] [--spin-limit N] -- PROGRAM [ARGS...]\n"
		"Run PROGRAM with its pthread mutexes, condition variables and spinlocks on\n"
		"pvspin locks (LD_PRELOAD=" PRELOAD_NAME ").\n\n"
		"  -l, --lock KIND     lock kind: %s\n"
		"                      (default: --policy NAME's pick, else $PVSPIN_LOCK, else the pick of\n"
		"                      $PVSPIN_POLICY (default pvspin))\n"
		"  -p, --policy NAME   selection policy that picks the kind (sets PVSPIN_POLICY)\n"
		"  -s, --stats         print lock counters at exit, zeros if no lock was\n"
		"                      taken (PVSPIN_STATS=1)\n"
		"  -S, --spin-limit N  mutex waiters spin at most N PAUSE loops, then sleep\n"
		"                      (PVSPIN_MUTEX_SPIN_LIMIT; default 0: a budget measured\n"
		"                      per mutex)\n"
		"  -h, --help          this text\n\n"
		"The interposer is $PVSPIN_PRELOAD_LIB if set (exit 2 if that is not a usable\n"
		PRELOAD_NAME "), else the one next to pvspin (build or install\n"
		"tree), else the one in " PVSPIN_INSTALL_FULL_LIBDIR " (none usable: exit 1).\n"
		"A PVSPIN_* variable in the environment (PVSPIN_LOCK, PVSPIN_POLICY,\n"
		"PVSPIN_STATS, PVSPIN_SPIN_THRESHOLD, ..., PVSPIN_MUTEX_SPIN_LIMIT) with a bad\n"
		"value is an error (exit 2), also where an option would replace it.\n",
		pvspin_kind_names());
}

static bool readable_file(const char *p)
{
	return access(p, R_OK) == 0;
}

/* Does the ELF file `e` say it is a position-independent executable
 * (DT_FLAGS_1 & DF_1_PIE), which ld.so refuses to preload?  Read from the
 * PT_DYNAMIC segment, as ld.so reads it (section headers may be
 * stripped).  Anything unreadable says no. */
static bool elf_is_pie(Elf *e)
{
	size_t n;
	if (elf_getphdrnum(e, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph))
			return false;
		if (ph.p_type != PT_DYNAMIC)
			continue;
		/* the whole segment in one read, converted to this class */
		Elf_Data *d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_DYN);
		GElf_Dyn dyn;
		for (int j = 0; d && gelf_getdyn(d, j, &dyn) && dyn.d_tag != DT_NULL; j++)
			if (dyn.d_tag == DT_FLAGS_1)
				return dyn.d_un.d_val & DF_1_PIE;
		return false;
	}
	return false;
}

/* Does the ELF file `e` define the symbol `name` in its dynamic symbol
 * table, the one ld.so binds from?  Read from the section headers
 * (SHT_DYNSYM and its string table, each in one read), without loading
 * the file: dlopen would run its constructors here.  A file without
 * section headers, or whose tables are out of bounds, says no. */
static bool elf_defines(Elf *e, const char *name)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return false;
		if (sh.sh_type != SHT_DYNSYM)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Sym sym;
		for (int i = 0; d && gelf_getsym(d, i, &sym); i++) {
			if (sym.st_shndx == SHN_UNDEF)
				continue;
			const char *s = elf_strptr(e, sh.sh_link, sym.st_name);
			if (s && !strcmp(s, name))
				return true;
		}
		return false;   /* one dynamic symbol table per file */
	}
	return false;
}

/* Why the ELF file `e` (the regular file ld.so would open) is not an
 * interposer that ld.so can preload into a program like this one, or
 * NULL: its header must match this program's class, byte order and
 * machine (__ehdr_start: what the program run will be), be ET_DYN and not
 * a PIE executable, and its dynamic symbols must define PRELOAD_MARKER.
 * All of it read with libelf, which checks the tables' bounds. */
static const char *preload_not_interposer(Elf *e)
{
	/* the ELF header of this program */
	extern const ElfW(Ehdr) __ehdr_start;
	GElf_Ehdr h;
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &h))
		return "not an ELF shared library";
	if (memcmp(h.e_ident, __ehdr_start.e_ident, EI_VERSION) ||
	    h.e_machine != __ehdr_start.e_machine)
		return "an ELF file for another machine (word size, byte order or architecture)";
	if (h.e_type != ET_DYN || elf_is_pie(e))
		return "not an ELF shared library (an executable or object file)";
	if (!elf_defines(e, PRELOAD_MARKER))
		return "a shared library, but not pvspin's interposer " PRELOAD_NAME
		       " (it does not define " PRELOAD_MARKER ")";
	return NULL;
}

/* Is the file open as `fd`, of `size` bytes (`e` its libelf handle), an
 * ELF file cut short: ELF's magic number, then less than its ELF header,
 * or less than the program or section header table or a segment that
 * the header describes (a copy interrupted, a full disk)?  Such a file
 * would be said to be "not an ELF shared library" or to lack pvspin's
 * marker.  A header that cannot be read or counted, in a file long
 * enough to hold it, says no: the other checks say what it is. */
static bool elf_truncated(Elf *e, int fd, off_t size)
{
	unsigned char id[EI_NIDENT];
	ssize_t got = pread(fd, id, sizeof(id), 0);
	if (got < SELFMAG || memcmp(id, ELFMAG, SELFMAG))
		return false;
	uint64_t sz = (uint64_t)size;
	GElf_Ehdr h;
	if (got < EI_NIDENT || !e || !gelf_getehdr(e, &h))
		return sz < (got > EI_CLASS && id[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Ehdr)
									  : sizeof(Elf64_Ehdr));
	/* the header's counts: libelf's elf_getphdrnum() cuts them to what
	 * the file holds; PN_XNUM and a 0 with a table (more entries than
	 * the header can count) are taken as one entry */
	uint64_t phnum = h.e_phnum == PN_XNUM ? 1 : h.e_phnum;
	uint64_t shnum = h.e_shnum || !h.e_shoff ? h.e_shnum : 1;
	if ((phnum && (h.e_phoff > sz || phnum * h.e_phentsize > sz - h.e_phoff)) ||
	    (shnum && (h.e_shoff > sz || shnum * h.e_shentsize > sz - h.e_shoff)))
		return true;
	for (uint64_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type != PT_NULL &&
		    (ph.p_offset > sz || ph.p_filesz > sz - ph.p_offset))
			return true;
	}
	return false;
}

/* What ld.so splits LD_PRELOAD's list at: a path holding one cannot be
 * named there (preload_unusable), and preload_lists() reads entries so. */
#define LD_PRELOAD_SEPARATORS ": \t"

/* Is `path` something ld.so can preload into a program like this one: a
 * path LD_PRELOAD can name (no blank, no colon: ld.so splits the list
 * there and would look for the pieces, then run the program without
 * pvspin, a new user's finding), a regular, readable ELF shared object
 * (not an executable, not cut short: elf_truncated()) of this class,
 * byte order and machine, and pvspin's interposer (it defines
 * PRELOAD_MARKER)?  Returns NULL, or why not. */
static const char *preload_unusable(const char *path)
{
	if (strpbrk(path, LD_PRELOAD_SEPARATORS))
		return "LD_PRELOAD cannot name a path with a space, a tab or a colon "
		       "(ld.so splits its list there): copy the library to a path "
		       "without them and set PVSPIN_PRELOAD_LIB to it";
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* a FIFO must not block us */
	if (fd < 0)
		return strerror(errno);
	struct stat st;
	const char *why = NULL;
	if (fstat(fd, &st))
		why = strerror(errno);
	else if (S_ISDIR(st.st_mode))
		why = strerror(EISDIR);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else {
		Elf *e = elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
		why = elf_truncated(e, fd, st.st_size)
			? "truncated or not a valid shared object (shorter than its ELF headers say)"
			: preload_not_interposer(e);
		elf_end(e);
	}
	close(fd);
	return why;
}

/* Absolute path of the interposer in `out` and 0, or the exit status
 * after saying why not: 2 for a $PVSPIN_PRELOAD_LIB that names no usable
 * interposer (a bad PVSPIN_* value, as --help promises), 1 when none is
 * found or the one found next to pvspin is unusable (an install's fault). */
static int find_preload(char *out, size_t len)
{
	const char *env = getenv("PVSPIN_PRELOAD_LIB");
	if (env && *env) {
		const char *why = realpath(env, out) ? preload_unusable(out) : strerror(errno);
		if (why) {
			tool_value_line(stderr, "pvspin run", "PVSPIN_PRELOAD_LIB", '=', env, why,
					NULL);
			return 2;
		}
		return 0;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *cands[3];
	char c0[PATH_MAX + 64], c1[PATH_MAX + 64];
	int nc = 0;
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(c0, sizeof(c0), "%s/../preload/" PRELOAD_NAME, exe);
		snprintf(c1, sizeof(c1), "%s/../" PVSPIN_INSTALL_LIBDIR "/" PRELOAD_NAME, exe);
		cands[nc++] = c0;
		cands[nc++] = c1;
	}
	cands[nc++] = PVSPIN_INSTALL_FULL_LIBDIR "/" PRELOAD_NAME;
	for (int i = 0; i < nc; i++) {
		if (!readable_file(cands[i]) || !realpath(cands[i], out))
			continue;
		const char *why = preload_unusable(out);
		if (!why)
			return 0;
		fprintf(stderr, "pvspin run: %s: %s\n", out, why);
		return 1;
	}
	fprintf(stderr, "pvspin run: cannot find " PRELOAD_NAME "; looked in:\n");
	for (int i = 0; i < nc; i++)
		fprintf(stderr, "  %s\n", cands[i]);
	fprintf(stderr, "set PVSPIN_PRELOAD_LIB to its path\n");
	return 1;
}

/* Is `lib` one of the entries of LD_PRELOAD `list` (separated by ':' or
 * blanks, as ld.so reads it)? */
static bool preload_lists(const char *list, const char *lib)
{
	size_t len = strlen(lib);
	const char *p = list;
	while (*p) {
		p += strspn(p, LD_PRELOAD_SEPARATORS);
		size_t n = strcspn(p, LD_PRELOAD_SEPARATORS);
		if (n == len && strncmp(p, lib, n) == 0)
			return true;
		p += n;
	}
	return false;
}

/*
 * The FIFO kinds that never sleep (qspinlock, ticket) hand the lock to the
 * next waiter in line even when the OS has preempted it: with more threads
 * than CPUs, everyone behind it waits for its next time slice, and a
 * pthread spinlock (which promises spinning) waits on them without bound.
 * Said once, on stderr, before the program starts; a user who asked for
 * the kind by name may still want it (it is what the kernel does).
 */
static void warn_fifo_kind(pvspin_kind_t kind)
{
	if (kind != PVSPIN_KIND_QSPINLOCK && kind != PVSPIN_KIND_TICKET)
		return;
	uint32_t n = pvspin_plat_spin_cpus();   /* the affinity mask's count */
	fprintf(stderr, "pvspin run: note: %s is a FIFO spinlock that never sleeps: if the "
		"program's threads outnumber the %u CPU%s it may run on, every waiter behind a "
		"preempted one waits for its next time slice (README, \"Using the library\")\n",
		pvspin_kind_name(kind), n, n == 1 ? "" : "s");
}

/*
 * The file execvp would run for `name`, in `out`: `name` itself if it has a
 * '/', else the first executable regular file PATH names (glibc's default
 * /bin:/usr/bin when PATH is unset; an empty entry is the current
 * directory).  False if there is none (exec will say why).
 */
static bool resolve_program(const char *name, char *out, size_t len)
{
	if (strchr(name, '/'))
		return snprintf(out, len, "%s", name) < (int)len;
	if (!*name)
		return false;
	const char *path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		size_t n = strcspn(p, ":");
		struct stat st;
		int w = n ? snprintf(out, len, "%.*s/%s", (int)n, p, name)
			  : snprintf(out, len, "%s", name);
		if (w > 0 && w < (int)len && !access(out, X_OK) && !stat(out, &st) &&
		    S_ISREG(st.st_mode))
			return true;
		p += n;
		if (!*p)
			return false;
	}
}

/*
 * Is `path` a statically linked ELF executable: an ELF file with no
 * PT_INTERP program header, so that no ld.so runs and LD_PRELOAD is never
 * read?  A static-pie has a PT_DYNAMIC but no PT_INTERP: static too.
 * 32- and 64-bit files are read (libelf converts them), in this machine's
 * byte order only (a foreign-endian program cannot run here anyway).  The
 * program header table is read only when it is at most 4 KiB (the
 * kernel's own limit for an executable's table).  Anything else - a
 * script, a file that cannot be read, not ELF, not an executable - is
 * "no": exec reports its errors as before.
 */
static bool elf_is_static(const char *path)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const char host_data = ELFDATA2LSB;
#else
	const char host_data = ELFDATA2MSB;
#endif
	bool is_static = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* a FIFO must not block us */
	if (fd < 0)
		return false;
	Elf *e = elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	const char *ident = e && elf_kind(e) == ELF_K_ELF ? elf_getident(e, NULL) : NULL;
	GElf_Ehdr eh;
	size_t n;
	if (ident && ident[EI_DATA] == host_data && gelf_getehdr(e, &eh) &&
	    (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) &&
	    eh.e_phentsize == gelf_fsize(e, ELF_T_PHDR, 1, EV_CURRENT) &&
	    !elf_getphdrnum(e, &n) && n && n * eh.e_phentsize <= 4096) {
		is_static = true;
		for (size_t i = 0; i < n && is_static; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type == PT_INTERP)
				is_static = false;
		}
	}
	elf_end(e);
	close(fd);
	return is_static;
}

/* The interpreter of a "#!" script at `path` (an absolute or relative
 * path, as the kernel takes it: up to the first blank) into `out`; false
 * if `path` is no script or the line does not fit. */
static bool script_interpreter(const char *path, char *out, size_t len)
{
	char line[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   /* a FIFO must not block us */
	if (fd < 0)
		return false;
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);
	close(fd);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return false;
	line[n] = '\0';
	const char *p = line + 2;
	p += strspn(p, " \t");
	size_t k = strcspn(p, " \t\n");
	if (!k || k >= len || p[k] == '\0')   /* empty, or cut by our read */
		return false;
	memcpy(out, p, k);
	out[k] = '\0';
	return true;
}

/* What exec will run for the program: the file (resolve_program) and,
 * for a "#!" script, its interpreter; read once, for the static note
 * before exec and the "bad interpreter" report after a failed one. */
struct run_target {
	bool found;                /* `path` holds the file exec would run */
	bool script;               /* ... and it is a "#!" script: `interp` */
	char path[PATH_MAX];
	char interp[PATH_MAX];
};

static void run_target_read(const char *name, struct run_target *t)
{
	t->found = resolve_program(name, t->path, sizeof(t->path));
	t->script = t->found && script_interpreter(t->path, t->interp, sizeof(t->interp));
}

/* The executable the kernel loads for t (found): the program, or a
 * script's interpreter (one level: the usual case). */
static const char *run_target_binary(const struct run_target *t)
{
	return t->script ? t->interp : t->path;
}

/*
 * A statically linked program runs with nothing interposed: no ld.so reads
 * LD_PRELOAD, its locks stay its libc's and --stats prints nothing.  Said
 * once, on stderr, before it starts, like the FIFO note.  True if said.
 * A script runs its interpreter (one level: the usual case).
 */
static bool warn_static_program(const struct run_target *t, bool stats)
{
	if (!t->found || !elf_is_static(run_target_binary(t)))
		return false;
	/* the subject: "PROG" or "SCRIPT runs INTERP, which" */
	char who[2 * PATH_MAX + 16];
	if (t->script)
		snprintf(who, sizeof(who), "%s runs %s, which", t->path, t->interp);
	else
		snprintf(who, sizeof(who), "%s", t->path);
	fprintf(stderr, "pvspin run: note: %s is statically linked: LD_PRELOAD cannot interpose "
		"its locks; it runs on its own%s (README, \"The pvspin command\")\n", who,
		stats ? ", with no stats line" : "");
	return true;
}

/*
 * A program that gains privileges when it starts (set-user-ID to another
 * user than ours, or set-group-ID to another group, on a file system not
 * mounted nosuid) runs in the loader's secure mode, which ignores
 * LD_PRELOAD: nothing is interposed and --stats prints nothing.  Said
 * once, on stderr, before it starts (a new user's finding: `runuser -u
 * nobody -- pvspin run --stats -- mount --version` ran silently on
 * glibc).  Not seen: file capabilities, which also start secure mode.  A
 * script's own set-ID bits do nothing on Linux: its interpreter's count.
 * True if said.
 */
static bool warn_setid_program(const struct run_target *t, bool stats)
{
	if (!t->found)
		return false;
	const char *file = run_target_binary(t);
	struct stat st;
	struct statvfs fs;
	if (stat(file, &st) || statvfs(file, &fs) || (fs.f_flag & ST_NOSUID))
		return false;
	bool suid = (st.st_mode & S_ISUID) && st.st_uid != geteuid();
	bool sgid = (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getegid();
	if (!suid && !sgid)
		return false;
	fprintf(stderr, "pvspin run: note: %s is set-%s-ID: the loader ignores LD_PRELOAD in a "
		"program that gains privileges, so it runs on glibc's locks%s\n", file,
		suid ? "user" : "group", stats ? ", with no stats line" : "");
	return true;
}

int pvspin_cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lock", required_argument, NULL, 'l' },
		{ "policy", required_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },
		{ "spin-limit", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *lock = NULL, *policy = NULL, *spin_limit = NULL;
	bool stats = false;
	int c;

	/* -h / --help among our options: the help, whatever the other
	 * values; with a program after it, a usage error (it takes none:
	 * `pvspin run -h prog` is neither the help with prog dropped nor a
	 * run); after the program, the program's own option */
	c = tool_help_scan_as("pvspin run", argc, argv, "+:l:p:sS:h", opts, run_help_operand_error);
	if (c == 1)
		run_usage(stdout);
	if (c)
		return c == 1 ? 0 : c;
	optind = 1;
	opterr = 0;   /* tool_option_error() says it */
	/* '+': stop at the first non-option, the program's own options
	 * are not ours even without "--". */
	while ((c = getopt_long(argc, argv, "+:l:p:sS:h", opts, NULL)) != -1) {
		switch (c) {
		/* one value each: a second, different one was dropped without
		 * a word, the last kept (helper-60; the same value twice is
		 * one choice: tool_option_once()) */
		case 'l':
			if (tool_option_once("pvspin run", "lock kinds", "--lock", &lock, optarg))
				return 2;
			break;
		case 'p':
			if (tool_option_once("pvspin run", "policies", "--policy", &policy, optarg))
				return 2;
			break;
		case 's': stats = true; break;
		case 'S': {
			uint64_t n;
			if (tool_option_number_once("pvspin run", "spin limits", "--spin-limit",
						    &spin_limit, optarg, 0, UINT32_MAX, &n))
				return 2;
			break;
		}
		default: return tool_option_error("pvspin run", c, argv);
		}
	}
	if (optind >= argc) {
		/* said as every subcommand says a bad command line: the
		 * problem, then where the usage is (not the whole usage) */
		fprintf(stderr, "pvspin run: no program given (PROGRAM [ARGS...] after the "
			"options)\n(pvspin run --help lists the options)\n");
		return 2;
	}
	char **prog = argv + optind;
	if (policy) {
		/* here, not in the library's constructor after exec: a usage error */
		pvspin_policy_t p;
		if (pvspin_policy_parse(policy, &p)) {
			return tool_value_error("pvspin run", "--policy", policy,
						pvspin_policy_parse_error(errno), NULL);
		}
	}

	/* A bad PVSPIN_* variable is a usage error, said here before the
	 * program starts, as a bad option is: the interposer would only
	 * ignore it ("pvspin: ignoring ...") and run on the default, or
	 * without the stats.  The environment as given is checked, before
	 * --spin-limit replaces PVSPIN_MUTEX_SPIN_LIMIT, --lock / --policy
	 * PVSPIN_LOCK / PVSPIN_POLICY and --stats PVSPIN_STATS: a typo fails
	 * whatever the options (env_check.h, as bench and torture). */
	if (tool_env_check("pvspin run"))
		return 2;

	pvspin_kind_t kind;
	if (lock) {
		kind = pvspin_kind_from_name(lock);
		if (kind == PVSPIN_KIND_NONE) {
			return tool_value_error("pvspin run", "--lock", lock, PVSPIN_LOCK_NOT_A_KIND,
						pvspin_kind_names());
		}
		if (policy)
			setenv("PVSPIN_POLICY", policy, 1);
	} else {
		if (policy) {
			/* an explicit policy overrides an inherited PVSPIN_LOCK */
			setenv("PVSPIN_POLICY", policy, 1);
			unsetenv("PVSPIN_LOCK");
		}
		/* PVSPIN_LOCK (validated, exit 2 if unknown), else the policy */
		kind = pvspin_default_kind();
	}

	/* the interposer first: a run refused for it says nothing else */
	char lib[PATH_MAX];
	int rc = find_preload(lib, sizeof(lib));
	if (rc)
		return rc;

	/* a static program gets none of the kind: only that is said */
	struct run_target target;
	run_target_read(prog[0], &target);
	if (!warn_static_program(&target, stats) && !warn_setid_program(&target, stats))
		warn_fifo_kind(kind);

	const char *old = getenv("LD_PRELOAD");
	if (old && *old) {
		if (!preload_lists(old, lib)) {
			size_t n = strlen(lib) + 1 + strlen(old) + 1;
			char *v = malloc(n);
			if (!v) {
				fprintf(stderr, "pvspin run: out of memory\n");
				return 1;
			}
			snprintf(v, n, "%s:%s", lib, old);
			setenv("LD_PRELOAD", v, 1);
			free(v);
		}
	} else {
		setenv("LD_PRELOAD", lib, 1);
	}
	setenv("PVSPIN_LOCK", pvspin_kind_name(kind), 1);
	if (stats)
		setenv("PVSPIN_STATS", "1", 1);
	if (spin_limit)
		setenv("PVSPIN_MUTEX_SPIN_LIMIT", spin_limit, 1);

	fflush(NULL);
	execvp(prog[0], prog);
	int e = errno;
	/* execve says EACCES for a directory; a shell says what it is */
	struct stat st;
	if (e == EACCES && strchr(prog[0], '/') && !stat(prog[0], &st) && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "pvspin run: cannot run '%s': Is a directory\n", prog[0]);
		return 126;
	}
	/* ENOENT for a script that exists is its #! interpreter's: name it,
	 * as a shell's "bad interpreter" does */
	if ((e == ENOENT || e == ENOTDIR || e == EACCES) && target.script &&
	    access(target.interp, X_OK)) {
		fprintf(stderr, "pvspin run: cannot run '%s': its interpreter '%s' (the #! line): %s\n",
			prog[0], target.interp, strerror(errno));
		return (errno == ENOENT || errno == ENOTDIR) ? 127 : 126;
	}
	fprintf(stderr, "pvspin run: cannot run '%s': %s\n", prog[0], strerror(e));
	return (e == ENOENT || e == ENOTDIR) ? 127 : 126;
}

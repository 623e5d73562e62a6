/*
 * env_detect.c - read the environment a lock runs in, through an
 * injectable source (pvspin/policy.h): CPUID hypervisor leaves, CPU and
 * NUMA node counts from sysfs, the cgroup CPU quota, the allowed CPUs,
 * steal time from /proc/stat, the load average and "nopvspin".
 *
 * Sources: CPUID leaf 0x40000000 signature and the KVM scan follow Linux
 * hypervisor_cpuid_base() / kvm_cpuid_base(); cpulist format and the files
 * are the kernel's (Documentation/admin-guide/cputopology.rst,
 * Documentation/admin-guide/cgroup-v2.rst "cpu.max", cgroup-v1 CFS
 * bandwidth "cpu.cfs_quota_us", proc(5) for /proc/stat, /proc/loadavg,
 * /proc/self/cgroup and /proc/self/status).
 *
 * No heap allocation: everything is read into stack buffers with
 * open/read, so this is usable from the first default-kind lock operation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pvspin/policy.h"
#include "policy_internal.h"
#include "platform/rseq_slice_ext.h"

/* ---- files ----------------------------------------------------------- */

/* More CPUs than this in a cpulist is not a real system: Linux's NR_CPUS
 * is at most 8192 (x86_64 MAXSMP, powerpc) and 4096 elsewhere; the margin
 * leaves room for growth.  A larger count reads as unknown (0). */
#define ENV_CPUS_MAX 65536

/* Read at most size-1 bytes of ROOT/rel into buf, NUL-terminated.
 * Only a regular file is read (procfs and sysfs files are regular): a
 * FIFO, device or socket under a --root fails with EINVAL instead of
 * blocking (it is opened O_NONBLOCK, so even the open cannot hang).
 * Returns the length, or -1 with errno. */
static ssize_t read_file(const pvspin_env_source_t *src, const char *rel,
			 char *buf, size_t size)
{
	char path[PATH_MAX];
	const char *root = src && src->root ? src->root : "";
	if (snprintf(path, sizeof(path), "%s%s", root, rel) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	size_t n = 0;
	while (n + 1 < size) {
		ssize_t r = read(fd, buf + n, size - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* The one number format of the files read here: decimal digits only (no
 * sign, blank or 0x), at least one, at most `max`, from *p, which moves
 * past them.  False (p unmoved) if there is none or it exceeds max. */
static bool env_decimal(const char **p, uint64_t max, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return true;
}

/* The 1-minute load average at the start of /proc/loadavg, as the kernel
 * writes it (fs/proc/loadavg.c: "%lu.%02lu "): digits, a point, digits,
 * then a blank or the end.  -1 for anything else (a sign, hex, an
 * exponent, inf, nan) or an integer part above 10^9, which no machine
 * reaches, so that neither the text nor the JSON gets an absurd or a
 * non-finite number. */
static double env_loadavg(const char *s)
{
	uint64_t whole, frac, scale = 1;
	if (!env_decimal(&s, 1000000000u, &whole) || *s++ != '.')
		return -1;
	const char *f = s;
	if (!env_decimal(&s, UINT64_MAX, &frac) || s - f > 9)
		return -1;
	for (; f < s; f++)
		scale *= 10;
	if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\0')
		return -1;
	return (double)whole + (double)frac / (double)scale;
}

int pvspin_env_cpulist_count(const char *s)
{
	int count = 0;
	int64_t prev = -1;   /* the last id of the range before: ids ascend */
	const char *p = s;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\n' || *p == '\0')
		return 0;
	for (;;) {
		/* ids below ENV_CPUS_MAX: a larger one is no real CPU */
		uint64_t a, b;
		if (!env_decimal(&p, ENV_CPUS_MAX - 1, &a))
			return -1;
		b = a;
		if (*p == '-') {
			p++;
			if (!env_decimal(&p, ENV_CPUS_MAX - 1, &b) || b < a)
				return -1;
		}
		/* the kernel writes ranges ascending and apart (bitmap_print_to_pagebuf):
		 * an overlap or a step back would be counted twice */
		if ((int64_t)a <= prev)
			return -1;
		prev = (int64_t)b;
		count += (int)(b - a + 1);   /* at most ENV_CPUS_MAX in all */
		if (*p == ',') {
			p++;
			continue;
		}
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		return *p == '\0' ? count : -1;
	}
}

static int read_cpulist(const pvspin_env_source_t *src, const char *rel)
{
	char buf[4096];
	if (read_file(src, rel, buf, sizeof(buf)) < 0)
		return 0;
	int n = pvspin_env_cpulist_count(buf);
	return n > 0 && n <= ENV_CPUS_MAX ? n : 0;
}

/* ---- CPUID ----------------------------------------------------------- */

static const struct {
	char sig[12];
	const char *name;
} hv_signatures[] = {
	{ "KVMKVMKVM\0\0\0", "KVM" },
	{ "Microsoft Hv", "Hyper-V" },
	{ "VMwareVMware", "VMware" },
	{ "XenVMMXenVMM", "Xen" },
	{ "bhyve bhyve ", "bhyve" },
	{ "TCGTCGTCGTCG", "TCG" },
	{ "ACRNACRNACRN", "ACRN" },
	{ " QNXQVMBSQG ", "QNX" },
	{ "VBoxVBoxVBox", "VirtualBox" },
	{ " prl hyperv ", "Parallels" },
	{ " lrpepyh vr ", "Parallels" },
};

static void sig_bytes(const uint32_t r[4], char sig[12])
{
	memcpy(sig, &r[1], 4);       /* ebx, ecx, edx: little endian */
	memcpy(sig + 4, &r[2], 4);
	memcpy(sig + 8, &r[3], 4);
}

static const char *sig_name(const char sig[12])
{
	for (size_t i = 0; i < sizeof(hv_signatures) / sizeof(hv_signatures[0]); i++)
		if (!memcmp(sig, hv_signatures[i].sig, 12))
			return hv_signatures[i].name;
	return "unknown";
}

/* Printable ASCII verbatim, backslash doubled, other bytes "\xNN";
 * trailing NULs dropped. */
static void sig_escape(const char sig[12], char out[PVSPIN_ENV_SIGNATURE_MAX])
{
	static const char hex[] = "0123456789abcdef";
	int len = 12;
	while (len > 0 && sig[len - 1] == '\0')
		len--;
	char *o = out;
	for (int i = 0; i < len; i++) {
		unsigned char c = (unsigned char)sig[i];
		if (c == '\\') {
			*o++ = '\\';
			*o++ = '\\';
		} else if (c >= 0x20 && c < 0x7f) {
			*o++ = (char)c;
		} else {
			*o++ = '\\';
			*o++ = 'x';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		}
	}
	*o = '\0';
}

static void detect_cpuid(pvspin_env_t *env, const pvspin_env_cpuid_t *t)
{
	struct pvspin_env_cpuid_scan s;
	char sig[12];

	pvspin_env_cpuid_scan(t, &s);
	env->hypervisor_name = "none";
	env->base_leaf = PVSPIN_CPUID_HV_BASE;
	env->hypervisor = s.hypervisor;
	if (!env->hypervisor)
		return;
	env->hv_max_leaf = s.hv[0];
	sig_bytes(s.hv, sig);
	sig_escape(sig, env->signature);
	env->hypervisor_name = env->signature[0] ? sig_name(sig) : "unknown";
	if (s.kvm_base) {
		env->kvm = true;
		env->base_leaf = s.kvm_base;
		env->kvm_features = s.kvm[0];
		env->kvm_hints = s.kvm[3];
	}
}

/* ---- cgroup CPU quota ------------------------------------------------ */

/* A quota or period in us, at most 10^15 (far above any real one), from
 * *p, which moves past it (env_decimal()).  Returns -1 if there is none. */
static long long quota_number(const char **p)
{
	uint64_t v;
	return env_decimal(p, 1000000000000000ull, &v) ? (long long)v : -1;
}

/* Whether only blanks and line ends are left at p. */
static bool quota_end(const char *p)
{
	return !p[strspn(p, " \t\n")];
}

/* Record the first quota file that does not parse ("PATH: 'CONTENT'",
 * env.quota_error): read as no quota, but said, never silently. */
static void quota_bad(const pvspin_env_source_t *src, const char *rel, const char *buf,
		      char err[PVSPIN_ENV_QUOTA_ERROR_MAX])
{
	if (err[0])
		return;
	char content[64];
	size_t n = 0;
	for (const char *p = buf; *p && *p != '\n' && n + 1 < sizeof(content); p++)
		content[n++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
	content[n] = '\0';
	/* bounded pieces (a --root path may be long): the message fits */
	snprintf(err, PVSPIN_ENV_QUOTA_ERROR_MAX, "%.300s%.120s: '%s'",
		 src && src->root ? src->root : "", rel, content);
}

/* cgroup v2 "cpu.max": "QUOTA PERIOD" or "max PERIOD" (us, positive).
 * Returns the quota in CPUs, 0 for "max", -1 if it does not parse. */
static double parse_cpu_max(const char *buf)
{
	const char *p = buf;
	long long quota = 0;
	if (!strncmp(p, "max", 3))
		p += 3;
	else if ((quota = quota_number(&p)) <= 0)
		return -1;
	if (*p != ' ')
		return -1;
	p++;
	long long period = quota_number(&p);
	if (period <= 0 || !quota_end(p))
		return -1;
	return (double)quota / (double)period;
}

/* cgroup v1 cpu.cfs_quota_us ("-1": none) or, with allow_none false,
 * cpu.cfs_period_us: a positive integer.  Returns it, 0 for "-1", -1 if
 * it does not parse. */
static long long parse_cfs(const char *buf, bool allow_none)
{
	const char *p = buf;
	if (allow_none && !strncmp(p, "-1", 2) && quota_end(p + 2))
		return 0;
	long long v = quota_number(&p);
	return v > 0 && quota_end(p) ? v : -1;
}

/* Smallest quota (CPUs) along cgpath and its ancestors under mount; 0 if
 * none.  v2: "cpu.max" = "QUOTA PERIOD" or "max PERIOD"; v1:
 * cpu.cfs_quota_us (-1 = none) / cpu.cfs_period_us.  A file that exists
 * but does not parse counts as no quota at its level and is recorded in
 * err (the first one only). */
static double walk_quota(const pvspin_env_source_t *src, const char *mount,
			 const char *cgpath, bool v1, char err[PVSPIN_ENV_QUOTA_ERROR_MAX])
{
	char level[PATH_MAX];
	char rel[PATH_MAX + 64];
	char buf[128];
	double best = 0;

	if (snprintf(level, sizeof(level), "%s", cgpath) >= (int)sizeof(level))
		return 0;
	for (;;) {
		size_t l = strlen(level);
		while (l > 0 && level[l - 1] == '/')
			level[--l] = '\0';
		double q = 0;
		if (!v1) {
			snprintf(rel, sizeof(rel), "%s%s/cpu.max", mount, level);
			if (read_file(src, rel, buf, sizeof(buf)) >= 0) {
				q = parse_cpu_max(buf);
				if (q < 0)
					quota_bad(src, rel, buf, err);
			}
		} else {
			snprintf(rel, sizeof(rel), "%s%s/cpu.cfs_quota_us", mount, level);
			if (read_file(src, rel, buf, sizeof(buf)) >= 0) {
				long long quota = parse_cfs(buf, true);
				if (quota < 0)
					quota_bad(src, rel, buf, err);
				snprintf(rel, sizeof(rel), "%s%s/cpu.cfs_period_us", mount, level);
				if (quota > 0 && read_file(src, rel, buf, sizeof(buf)) >= 0) {
					long long period = parse_cfs(buf, false);
					if (period < 0)
						quota_bad(src, rel, buf, err);
					else
						q = (double)quota / (double)period;
				}
			}
		}
		if (q > 0 && (best == 0 || q < best))
			best = q;
		char *slash = strrchr(level, '/');
		if (!slash)
			break;
		*slash = '\0';
	}
	return best;
}

static double min_quota(double a, double b)
{
	if (a == 0)
		return b;
	if (b == 0)
		return a;
	return a < b ? a : b;
}

/* Does a cgroup path climb ("..")?  The kernel never writes one into
 * /proc/self/cgroup for a cgroup inside the reader's namespace root, and
 * under a --root it would read files outside the tree: malformed. */
static bool path_climbs(const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return true;
	return false;
}

/* cgroup v2 path from the "0::PATH" line of /proc/self/cgroup, mounted at
 * /sys/fs/cgroup (or /sys/fs/cgroup/unified in the hybrid layout); cgroup
 * v1 "cpu" controller line as a fallback. */
static double detect_quota(const pvspin_env_source_t *src, bool *known,
			   char err[PVSPIN_ENV_QUOTA_ERROR_MAX])
{
	char buf[4096];
	double quota = 0;
	*known = read_file(src, "/proc/self/cgroup", buf, sizeof(buf)) >= 0;
	if (!*known)
		return 0;
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = '\0';
		const char *ctrls = c1 + 1, *path = c2 + 1;
		if (path_climbs(path))
			continue;       /* malformed: no quota from this line */
		if (!strcmp(line, "0") && !*ctrls) {
			quota = min_quota(quota, walk_quota(src, "/sys/fs/cgroup", path, false, err));
			quota = min_quota(quota, walk_quota(src, "/sys/fs/cgroup/unified", path, false, err));
			continue;
		}
		/* v1: is "cpu" one of the comma-separated controllers? */
		char list[256];
		snprintf(list, sizeof(list), ",%s,", ctrls);
		if (!strstr(list, ",cpu,"))
			continue;
		char mount[300];
		snprintf(mount, sizeof(mount), "/sys/fs/cgroup/%s", ctrls);
		quota = min_quota(quota, walk_quota(src, mount, path, true, err));
		if (strcmp(ctrls, "cpu"))
			quota = min_quota(quota, walk_quota(src, "/sys/fs/cgroup/cpu", path, true, err));
	}
	if (err[0])
		*known = false;   /* one level's quota is not known */
	return quota;
}

/* ---- allowed CPUs ---------------------------------------------------- */

static int detect_allowed(const pvspin_env_source_t *src)
{
	if (!src || !src->root) {
		cpu_set_t set;
		if (sched_getaffinity(0, sizeof(set), &set))
			return 0;
		return CPU_COUNT(&set);
	}
	char buf[8192];
	if (read_file(src, "/proc/self/status", buf, sizeof(buf)) < 0)
		return 0;
	/* the field at the start of a line, the first line included */
	static const char field[] = "Cpus_allowed_list:";
	const char *p = buf;
	if (strncmp(p, field, strlen(field))) {
		p = strstr(buf, "\nCpus_allowed_list:");
		if (!p)
			return 0;
		p++;
	}
	p += strlen(field);
	char list[4096];
	size_t n = strcspn(p, "\n");
	if (n >= sizeof(list))
		return 0;
	memcpy(list, p, n);
	list[n] = '\0';
	int c = pvspin_env_cpulist_count(list);
	return c > 0 && c <= ENV_CPUS_MAX ? c : 0;
}

/* ---- /proc/stat ------------------------------------------------------ */

int pvspin_env_read_cputime(const pvspin_env_source_t *src,
			    pvspin_env_cputime_t *t)
{
	char buf[1024];
	if (read_file(src, "/proc/stat", buf, sizeof(buf)) < 0)
		return -1;
	if (strncmp(buf, "cpu ", 4)) {
		errno = EINVAL;
		return -1;
	}
	/* user nice system idle iowait irq softirq steal [guest guest_nice]:
	 * all eight up to steal (every kernel since 2.6.11 writes them), then
	 * only numbers to the end of the line.  A line with fewer, or with
	 * something else, is not well-formed: the steal time is unknown, not
	 * a made-up 0. */
	const char *p = buf + 4;
	uint64_t v[8];
	int n = 0;
	for (;;) {
		while (*p == ' ')
			p++;
		if (*p == '\n' || *p == '\0')
			break;
		uint64_t x;
		if (!env_decimal(&p, UINT64_MAX, &x) || (*p != ' ' && *p != '\n' && *p != '\0')) {
			errno = EINVAL;
			return -1;
		}
		if (n < 8)
			v[n] = x;
		n++;
	}
	if (n < 8) {
		errno = EINVAL;
		return -1;
	}
	t->total = 0;
	for (int i = 0; i < 8; i++) {
		if (v[i] > UINT64_MAX - t->total) {
			errno = EINVAL;   /* no real sum of ticks wraps 64 bits */
			return -1;
		}
		t->total += v[i];
	}
	t->steal = v[7];
	return 0;
}

double pvspin_env_steal_pct(const pvspin_env_cputime_t *a,
			    const pvspin_env_cputime_t *b)
{
	if (b->total < a->total || b->steal < a->steal)
		return -1;
	uint64_t dt = b->total - a->total;
	if (!dt)
		return 0;
	return 100.0 * (double)(b->steal - a->steal) / (double)dt;
}

int pvspin_env_sample_steal(pvspin_env_t *env, const pvspin_env_source_t *src,
			    unsigned interval_ms)
{
	pvspin_env_cputime_t a, b;
	if (pvspin_env_read_cputime(src, &a))
		return -1;
	struct timespec ts = { interval_ms / 1000, (long)(interval_ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	if (pvspin_env_read_cputime(src, &b))
		return -1;
	if (b.total == a.total)
		return 0;       /* a static file (a copied /proc): keep since boot */
	env->steal_pct = pvspin_env_steal_pct(&a, &b);
	env->steal_interval_ms = interval_ms;
	return 0;
}

/* ---- everything ------------------------------------------------------ */

static bool cmdline_has(const char *cmdline, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = cmdline; (p = strstr(p, word)); p += wl) {
		bool start = p == cmdline || p[-1] == ' ';
		char e = p[wl];
		if (start && (e == '\0' || e == ' ' || e == '\n'))
			return true;
	}
	return false;
}

/* prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_GET)
 * (platform/rseq_slice_ext.h); older kernels say EINVAL. */

int pvspin_env_rseq_slice_ext(void)
{
	return prctl(PVSPIN_PR_RSEQ_SLICE_EXTENSION, PVSPIN_PR_RSEQ_SLICE_EXTENSION_GET,
		     0, 0, 0) >= 0;
}

int pvspin_env_detect(pvspin_env_t *env, const pvspin_env_source_t *src)
{
	static const pvspin_env_source_t live = { NULL, NULL };
	char buf[4096];

	if (!src)
		src = &live;
	memset(env, 0, sizeof(*env));

	detect_cpuid(env, src->cpuid);

	env->cpus_online = read_cpulist(src, "/sys/devices/system/cpu/online");
	env->cpus_possible = read_cpulist(src, "/sys/devices/system/cpu/possible");
	if (!src->root) {
		if (!env->cpus_online)
			env->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
		if (!env->cpus_possible)
			env->cpus_possible = (int)sysconf(_SC_NPROCESSORS_CONF);
	}
	env->cpus_allowed = detect_allowed(src);
	/* Counts that contradict each other are not trusted: online and the
	 * affinity mask are subsets of the possible CPUs. */
	if (env->cpus_possible > 0 && env->cpus_online > env->cpus_possible)
		env->cpus_online = env->cpus_possible = 0;
	if (env->cpus_possible > 0 && env->cpus_allowed > env->cpus_possible)
		env->cpus_allowed = 0;
	env->numa_nodes = read_cpulist(src, "/sys/devices/system/node/online");
	env->numa_known = env->numa_nodes > 0;
	if (!env->numa_nodes)
		env->numa_nodes = 1;    /* no NUMA support: one node */
	env->cpu_quota = detect_quota(src, &env->quota_known, env->quota_error);

	pvspin_env_cputime_t t;
	env->steal_pct = -1;
	if (!pvspin_env_read_cputime(src, &t) && t.total)
		env->steal_pct = 100.0 * (double)t.steal / (double)t.total;

	env->runnable = -1;
	if (read_file(src, "/proc/loadavg", buf, sizeof(buf)) > 0)
		env->runnable = env_loadavg(buf);
	env->cmdline_known = read_file(src, "/proc/cmdline", buf, sizeof(buf)) > 0;
	if (env->cmdline_known) {
		char *init_args = strstr(buf, " -- ");   /* after it: init's arguments */
		if (init_args)
			*init_args = '\0';
		env->nopvspin = cmdline_has(buf, "nopvspin");
	}
	env->rseq_slice_ext = pvspin_env_rseq_slice_ext();
	return 0;
}

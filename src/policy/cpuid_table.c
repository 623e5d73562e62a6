/*
 * cpuid_table.c - CPUID tables read from dumps in the raw format of
 * Debian's `cpuid -1 -r` (package "cpuid", Todd Allen), the KVM feature and
 * hint names (Linux arch/x86/include/uapi/asm/kvm_para.h), and the lookup
 * used by detection: a leaf from a table, or the CPUID instruction.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pvspin/policy.h"
#include "policy_internal.h"
#include "util/line_read.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static const char *const kvm_feature_names[32] = {
	[PVSPIN_KVM_FEATURE_CLOCKSOURCE]        = "CLOCKSOURCE",
	[PVSPIN_KVM_FEATURE_NOP_IO_DELAY]       = "NOP_IO_DELAY",
	[PVSPIN_KVM_FEATURE_MMU_OP]             = "MMU_OP",
	[PVSPIN_KVM_FEATURE_CLOCKSOURCE2]       = "CLOCKSOURCE2",
	[PVSPIN_KVM_FEATURE_ASYNC_PF]           = "ASYNC_PF",
	[PVSPIN_KVM_FEATURE_STEAL_TIME]         = "STEAL_TIME",
	[PVSPIN_KVM_FEATURE_PV_EOI]             = "PV_EOI",
	[PVSPIN_KVM_FEATURE_PV_UNHALT]          = "PV_UNHALT",
	[PVSPIN_KVM_FEATURE_PV_TLB_FLUSH]       = "PV_TLB_FLUSH",
	[PVSPIN_KVM_FEATURE_ASYNC_PF_VMEXIT]    = "ASYNC_PF_VMEXIT",
	[PVSPIN_KVM_FEATURE_PV_SEND_IPI]        = "PV_SEND_IPI",
	[PVSPIN_KVM_FEATURE_POLL_CONTROL]       = "POLL_CONTROL",
	[PVSPIN_KVM_FEATURE_PV_SCHED_YIELD]     = "PV_SCHED_YIELD",
	[PVSPIN_KVM_FEATURE_ASYNC_PF_INT]       = "ASYNC_PF_INT",
	[PVSPIN_KVM_FEATURE_MSI_EXT_DEST_ID]    = "MSI_EXT_DEST_ID",
	[PVSPIN_KVM_FEATURE_HC_MAP_GPA_RANGE]   = "HC_MAP_GPA_RANGE",
	[PVSPIN_KVM_FEATURE_MIGRATION_CONTROL]  = "MIGRATION_CONTROL",
	[PVSPIN_KVM_FEATURE_CLOCKSOURCE_STABLE_BIT] = "CLOCKSOURCE_STABLE_BIT",
};

const char *pvspin_env_kvm_feature_name(unsigned bit)
{
	return bit < 32 ? kvm_feature_names[bit] : NULL;
}

const char *pvspin_env_kvm_hint_name(unsigned bit)
{
	return bit == PVSPIN_KVM_HINTS_REALTIME ? "REALTIME" : NULL;
}

/* ---- parsing --------------------------------------------------------- */

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* "0x" and 1..8 hex digits; advances *pp.  Returns 0 or -1. */
static int parse_hex32(const char **pp, uint32_t *v)
{
	const char *p = *pp;
	if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return -1;
	p += 2;
	uint32_t x = 0;
	int n = 0;
	while (isxdigit((unsigned char)*p)) {
		if (++n > 8)
			return -1;
		int d = isdigit((unsigned char)*p) ? *p - '0'
						   : tolower((unsigned char)*p) - 'a' + 10;
		x = x << 4 | (uint32_t)d;
		p++;
	}
	if (!n)
		return -1;
	*v = x;
	*pp = p;
	return 0;
}

/* "CPU:" or "CPU <decimal>:" alone on a line. */
static bool is_cpu_header(const char *p)
{
	if (strncmp(p, "CPU", 3))
		return false;
	p += 3;
	if (*p == ' ') {
		p = skip_space(p);
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p++ != ':')
		return false;
	return *skip_space(p) == '\0';
}

/* "0xLEAF 0xSUB: eax=0x.. ebx=0x.. ecx=0x.. edx=0x.."; NULL on success,
 * else what was expected where. */
static const char *parse_leaf_line(const char *p, pvspin_env_cpuid_leaf_t *l)
{
	static const char *const regs[4] = { "eax=", "ebx=", "ecx=", "edx=" };
	uint32_t *out[4] = { &l->eax, &l->ebx, &l->ecx, &l->edx };

	if (parse_hex32(&p, &l->leaf))
		return "a leaf number 0xNNNNNNNN";
	if (*p != ' ' && *p != '\t')
		return "a space after the leaf";
	p = skip_space(p);
	if (parse_hex32(&p, &l->subleaf))
		return "a subleaf number 0xNN after the leaf";
	if (*p++ != ':')
		return "':' after the subleaf";
	for (int i = 0; i < 4; i++) {
		p = skip_space(p);
		if (strncmp(p, regs[i], 4))
			return i == 0 ? "eax=0x... after ':'" : i == 1 ? "ebx=0x... after eax"
			       : i == 2 ? "ecx=0x... after ebx" : "edx=0x... after ecx";
		p += 4;
		if (parse_hex32(&p, out[i]))
			return "a 32-bit hex value 0xNNNNNNNN after '='";
	}
	if (*skip_space(p) != '\0')
		return "the end of the line after edx";
	return NULL;
}

/* Append *l; *lines (grown with the table) keeps each leaf's line number.
 * Returns 0, -1 out of memory, or the line (> 0) that already gave this
 * leaf and subleaf (a dump has each once: which would be right?). */
static long table_add(pvspin_env_cpuid_t *t, const pvspin_env_cpuid_leaf_t *l,
		      unsigned **lines, size_t *lines_cap, unsigned lineno)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->leaves[i].leaf == l->leaf && t->leaves[i].subleaf == l->subleaf)
			return (*lines)[i];
	if (t->count == *lines_cap) {
		size_t cap = *lines_cap ? *lines_cap * 2 : 64;
		unsigned *nl = realloc(*lines, cap * sizeof(*nl));
		if (!nl)
			return -1;
		*lines = nl;
		*lines_cap = cap;
	}
	if (t->count == t->capacity) {
		size_t cap = t->capacity ? t->capacity * 2 : 64;
		pvspin_env_cpuid_leaf_t *n = realloc(t->leaves, cap * sizeof(*n));
		if (!n)
			return -1;
		t->leaves = n;
		t->capacity = cap;
	}
	(*lines)[t->count] = lineno;
	t->leaves[t->count++] = *l;
	return 0;
}

/* Longest line read, characters before the newline (a `cpuid -1 -r`
 * line is about 80); longer is an error, read no further
 * (pvspin_read_line_bounded(): `--cpuid /dev/zero` once grew getline's
 * buffer to 6.8 GB). */
#define CPUID_LINE_MAX 255
/* Most leaves and lines read of one dump: a `cpuid -1 -r` dump of one CPU
 * has a few hundred lines.  The repeated-leaf check is a scan of the
 * table (table_add), so a dump of 320 000 leaves took 15 s, and blank
 * lines (`yes '' | pvspin detect --cpuid -`) were read for ever (a new
 * user's findings, 2026-12-06). */
#define CPUID_LEAVES_MAX 4096u
#define CPUID_LINES_MAX 65536u

int pvspin_env_cpuid_parse(pvspin_env_cpuid_t *t, FILE *f, const char *name,
			   char *err, size_t errlen)
{
	char line[CPUID_LINE_MAX + 1];   /* the newline after 255 is read, not kept */
	ssize_t got;
	bool nul;
	unsigned lineno = 0, *lines = NULL;
	size_t lines_cap = 0;   /* line of each leaf, for a repeated one */
	int cpus = 0;
	int ret = 0;

	if (!name)
		name = "cpuid";
	t->count = 0;
	while ((got = pvspin_read_line_bounded(f, line, sizeof(line), &nul)) != 0) {
		if (++lineno > CPUID_LINES_MAX) {
			set_err(err, errlen, "%s:%u: more than %u lines (a `cpuid -1 -r` dump of "
				"one CPU has a few hundred)", name, lineno, CPUID_LINES_MAX);
			ret = -1;
			break;
		}
		if (got < 0) {
			set_err(err, errlen, "%s:%u: line longer than %d characters", name, lineno,
				CPUID_LINE_MAX);
			ret = -1;
			break;
		}
		if (nul) {
			set_err(err, errlen, "%s:%u: NUL byte in line", name, lineno);
			ret = -1;
			break;
		}
		size_t len = (size_t)got;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
				   line[len - 1] == ' ' || line[len - 1] == '\t'))
			line[--len] = '\0';
		const char *p = skip_space(line);
		if (*p == '\0' || *p == '#')
			continue;
		if (is_cpu_header(p)) {
			if (++cpus > 1)
				break;          /* only the first CPU */
			continue;
		}
		pvspin_env_cpuid_leaf_t l;
		const char *want = parse_leaf_line(p, &l);
		if (want) {
			set_err(err, errlen,
				"%s:%u: malformed CPUID line, expected %s "
				"(format of `cpuid -1 -r`: \"0x40000000 0x00: eax=0x... "
				"ebx=0x... ecx=0x... edx=0x...\")", name, lineno, want);
			ret = -1;
			break;
		}
		if (t->count == CPUID_LEAVES_MAX) {
			set_err(err, errlen, "%s:%u: more than %u CPUID leaves (a `cpuid -1 -r` "
				"dump of one CPU has a few hundred)", name, lineno, CPUID_LEAVES_MAX);
			ret = -1;
			break;
		}
		long first = table_add(t, &l, &lines, &lines_cap, lineno);
		if (first < 0) {
			set_err(err, errlen, "%s:%u: out of memory", name, lineno);
			ret = -1;
			break;
		}
		if (first > 0) {
			set_err(err, errlen, "%s:%u: leaf 0x%08x subleaf 0x%02x repeated "
				"(first given on line %ld)", name, lineno, l.leaf, l.subleaf, first);
			ret = -1;
			break;
		}
	}
	if (!ret && ferror(f)) {
		if (lineno)
			set_err(err, errlen, "%s:%u: read error: %s", name, lineno, strerror(errno));
		else    /* nothing read at all (a directory): no line to name */
			set_err(err, errlen, "%s: cannot read: %s", name, strerror(errno));
		ret = -1;
	}
	if (!ret && t->count == 0) {
		if (lineno)
			set_err(err, errlen, "%s:%u: no CPUID leaves in the file", name, lineno);
		else    /* an empty file: no line to name */
			set_err(err, errlen, "%s: empty file, no CPUID leaves", name);
		ret = -1;
	}
	free(lines);
	if (ret)
		pvspin_env_cpuid_free(t);
	return ret;
}

int pvspin_env_cpuid_load(pvspin_env_cpuid_t *t, const char *path,
			  char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	int r = pvspin_env_cpuid_parse(t, f, path, err, errlen);
	fclose(f);
	return r;
}

void pvspin_env_cpuid_free(pvspin_env_cpuid_t *t)
{
	if (!t)
		return;
	free(t->leaves);
	t->leaves = NULL;
	t->count = t->capacity = 0;
}

/* ---- lookup ---------------------------------------------------------- */

bool pvspin_env_cpuid_get(const pvspin_env_cpuid_t *t, uint32_t leaf,
			  uint32_t subleaf, uint32_t r[4])
{
	r[0] = r[1] = r[2] = r[3] = 0;
	if (t) {
		for (size_t i = 0; i < t->count; i++) {
			const pvspin_env_cpuid_leaf_t *l = &t->leaves[i];
			if (l->leaf == leaf && l->subleaf == subleaf) {
				r[0] = l->eax, r[1] = l->ebx, r[2] = l->ecx, r[3] = l->edx;
				return true;
			}
		}
		return false;
	}
#if defined(__x86_64__) || defined(__i386__)
	__cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
	return true;
#else
	return false;
#endif
}

/* ---- the leaves detection reads ------------------------------------- */

void pvspin_env_cpuid_scan(const pvspin_env_cpuid_t *t, struct pvspin_env_cpuid_scan *s)
{
	uint32_t r[4];
	memset(s, 0, sizeof(*s));
	s->no_leaf1 = !pvspin_env_cpuid_get(t, 1, 0, r);
	s->hypervisor = r[2] >> 31 & 1;
	if (!s->hypervisor)
		return;         /* leaves 0x4000xxxx are meaningless on bare metal */
	s->no_hv_leaf = !pvspin_env_cpuid_get(t, PVSPIN_CPUID_HV_BASE, 0, s->hv);
	/*
	 * KVM's interface at 0x40000000, or further up when another interface
	 * (Hyper-V enlightenments) occupies the first range: Linux scans every
	 * 0x100 leaves up to 0x40010000.  To keep live detection fast we stop
	 * at the first range that is not a hypervisor interface (EAX, its
	 * highest leaf, outside the range), instead of issuing 255 CPUIDs
	 * (each one a VM exit).
	 */
	memcpy(r, s->hv, sizeof(r));
	for (uint32_t base = PVSPIN_CPUID_HV_BASE; base < PVSPIN_CPUID_HV_SCAN_END;
	     base += 0x100) {
		if (base != PVSPIN_CPUID_HV_BASE)
			pvspin_env_cpuid_get(t, base, 0, r);
		/* "KVMKVMKVM\0\0\0" in EBX, ECX, EDX */
		if (r[1] == 0x4b4d564bu && r[2] == 0x564b4d56u && r[3] == 0x0000004du) {
			s->kvm_base = base;
			s->kvm_max = r[0];
			s->no_kvm_leaf = !pvspin_env_cpuid_get(t, base + 1, 0, s->kvm);
			return;
		}
		if (r[0] < base || r[0] > base + 0xff)
			return;
	}
}

/* ---- completeness (pvspin/policy.h) ---------------------------------- */

int pvspin_env_cpuid_complete(const pvspin_env_cpuid_t *t, char *err, size_t errlen)
{
	struct pvspin_env_cpuid_scan s;
	pvspin_env_cpuid_scan(t, &s);
	if (s.no_leaf1) {
		set_err(err, errlen, "no leaf 0x00000001 (its ECX bit 31 tells whether a "
			"hypervisor is present)");
		return -1;
	}
	if (s.hypervisor && s.no_hv_leaf) {
		set_err(err, errlen, "leaf 0x00000001 has the hypervisor bit set, but there is "
			"no leaf 0x40000000 (the hypervisor's signature)");
		return -1;
	}
	/* an interface whose EAX says it has no leaf base + 1: zeros are right */
	if (s.kvm_base && s.kvm_max >= s.kvm_base + 1 && s.no_kvm_leaf) {
		set_err(err, errlen, "leaf 0x%08x (KVM) goes up to 0x%08x, but there "
			"is no leaf 0x%08x (the KVM features and hints)", s.kvm_base, s.kvm_max,
			s.kvm_base + 1);
		return -1;
	}
	return 0;
}

/*
 * sim_config.c - configuration of a simulator run: the keys (shared by
 * --set KEY=VALUE, INI scenario files and the JSON "config" echo) and
 * validation.  INI files are parsed with inih (Debian libinih).  The
 * presets are in sim_preset.c.
 */
#define _GNU_SOURCE         /* ppoll(), fopencookie() */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "sim.h"
#include "util/line_read.h"
#include "../tools/pvspin/option_error.h"

/* ---- keys ----------------------------------------------------------------- */

/* K_DOUBLE_PROF: a K_DOUBLE that also takes -1, "the profile's value";
 * K_U32: a uint32_t field (the lock tunables, whose range is the
 * library's, up to 4294967295, which an int cannot hold) */
enum ktype { K_INT, K_U32, K_LONG, K_U64, K_DOUBLE, K_DOUBLE_PROF, K_BOOL, K_TRI, K_STR, K_KIND,
	     K_DIST, K_KYIELD };

struct key {
	const char *name;
	enum ktype type;
	size_t off;
	double min, max;          /* numeric range */
	const char *help;
};

#define OFF(f) offsetof(struct sim_config, f)
static const struct key keys[] = {
	{ "vms", K_INT, OFF(vms), 1, 64, "number of VMs" },
	{ "vcpus", K_INT, OFF(vcpus), 1, 4096, "vCPUs per VM" },
	{ "pcpus", K_INT, OFF(pcpus), 1, 4096, "host pCPUs" },
	{ "nodes", K_INT, OFF(nodes), 1, 64, "NUMA nodes (pCPUs split evenly: must divide pcpus)" },
	{ "lock", K_KIND, OFF(lock), 0, 0, "guest lock kind" },
	{ "ple", K_TRI, OFF(ple), 0, 0, "Pause-Loop Exiting: 0, 1 or default (the profile's)" },
	{ "kick_yield", K_KYIELD, OFF(kick_yield), 0, 3,
	  "directed yield to the kicked vCPU on KICK_CPU (seed 001's boost): 0, 1, "
	  "or the bounds oracle / oracle-cross-vm (the kicked vCPU runs at once)" },
	{ "pv_unhalt", K_BOOL, OFF(pv_unhalt), 0, 1,
	  "KVM_FEATURE_PV_UNHALT offered: pv_wait halts, pv_kick wakes (else no-ops)" },
	{ "dedicated", K_BOOL, OFF(dedicated), 0, 1,
	  "pin each vCPU to its own pCPU (the REALTIME hint case)" },
	{ "steal_time", K_BOOL, OFF(steal_time), 0, 1,
	  "steal-time preempted flag visible to vcpu_is_preempted()" },
	{ "profile", K_STR, OFF(profile), 0, 0, "cost profile" },
	{ "workload", K_STR, OFF(workload), 0, 0, "guest workload model" },
	{ "seconds", K_DOUBLE, OFF(seconds), 1e-6, 3600,
	  "simulated seconds (throughput), or the time cap of a fixed-work run" },
	{ "seed", K_U64, OFF(seed), 0, (double)UINT64_MAX, "random seed" },
	{ "ncs_us", K_DOUBLE, OFF(ncs_us), 0, 1e7, "mean non-critical section, us" },
	{ "cs_us", K_DOUBLE, OFF(cs_us), 0, 1e7, "mean critical section, us" },
	{ "ncs_dist", K_DIST, OFF(ncs_dist), 0, 0, "non-critical section distribution" },
	{ "cs_dist", K_DIST, OFF(cs_dist), 0, 0, "critical section distribution" },
	{ "locks", K_INT, OFF(locks), 1, 4096, "locks per VM" },
	{ "hot", K_DOUBLE, OFF(hot), 0, 1, "probability of taking lock 0" },
	{ "work", K_LONG, OFF(work), 0, 1e12,
	  "acquisitions per vCPU (fixed work, completion time); 0 = throughput" },
	/* the lock tunables take the library's ranges (tunables.c), so a
	 * value valid in PVSPIN_* is valid here: their loops are waits of
	 * uint32_t loops, charged as loops x PAUSE ns in 64 bits */
	{ "spin_threshold", K_U32, OFF(spin_threshold), 1, UINT32_MAX,
	  "pvqspinlock SPIN_THRESHOLD, loops (kernel x86: 32768)" },
	{ "pending_loops", K_U32, OFF(pending_loops), 1, UINT32_MAX,
	  "qspinlock _Q_PENDING_LOOPS (kernel x86: 512)" },
	{ "tas_backoff_max", K_U32, OFF(tas_backoff_max), 0, UINT32_MAX,
	  "tas: largest backoff between attempts, loops (0: virt_spin_lock, no backoff)" },
	{ "early_halt_preempted", K_BOOL, OFF(early_halt_preempted), 0, 1,
	  "pvqspinlock: also halt early when the predecessor is preempted (the reverted variant)" },
	{ "halt_poll_us", K_DOUBLE_PROF, OFF(halt_poll_us), 0, 1e6,
	  "KVM halt polling, us (-1: the profile's)" },
	/* at least 1 us: the first slice's random phase draws from [0, slice ns) */
	{ "slice_us", K_DOUBLE_PROF, OFF(slice_us), 1, 1e6,
	  "host scheduler base slice, us (-1: the profile's)" },
	{ "slice_ext_us", K_DOUBLE, OFF(slice_ext_us), 0, 50,
	  "rseq time-slice extension (Linux 7.0) granted to a holder that asks, us: 0 (off, "
	  "the default, as before 7.0) or 5 to 50 (the kernel's debugfs slice_ext_nsec, "
	  "whose own default is 5); profile linux-threads only" },
	{ "sample_us", K_DOUBLE, OFF(sample_us), 1, 1e6,
	  "period of the LHP/LWP sampling and deadlock check, us" },
	{ "mm_madvise", K_BOOL, OFF(mm_madvise), 0, 1,
	  "ebizzy-mm: per-thread arenas, free = MADV_DONTNEED under mmap_sem read (not brk)" },
	{ "threads", K_INT, OFF(threads), 0, 16,
	  "ebizzy-mm: guest threads per vCPU (0: the model's, ebizzy's 2 x CPUs)" },
	{ "lose_kicks", K_BOOL, OFF(lose_kicks), 0, 1,
	  "TEST ONLY: drop every pv_kick (a lock built to lose kicks)" },
	{ "broken_lock", K_BOOL, OFF(broken_lock), 0, 1,
	  "TEST ONLY: enter the critical section even when trylock failed" },
};
#define NKEYS ((int)(sizeof(keys) / sizeof(keys[0])))

/* Keys that one workload alone reads (int fields: another workload
 * refuses a value other than 0, sim_config_check()). */
static const struct {
	const char *key, *workload;
	size_t off;
} workload_keys[] = {
	{ "threads", "ebizzy-mm", OFF(threads) },
	{ "mm_madvise", "ebizzy-mm", OFF(mm_madvise) },
};
#define NWORKLOAD_KEYS ((int)(sizeof(workload_keys) / sizeof(workload_keys[0])))

/* A K_DOUBLE key with a gap above its min 0: valid are 0 (off) and
 * min_on to max.  slice_ext_us: the kernel's shortest extension is 5 us.
 * 0 for every other key (its whole range). */
static double key_min_on(const struct key *k)
{
	return k->off == OFF(slice_ext_us) ? 5 : 0;
}

void sim_config_defaults(struct sim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->vms = 1;
	c->vcpus = 4;
	c->pcpus = 4;
	c->nodes = 1;
	c->lock = PVSPIN_KIND_QSPINLOCK;
	c->ple = -1;
	c->pv_unhalt = 1;
	c->steal_time = 1;
	strcpy(c->profile, "intel-xeon");
	strcpy(c->workload, "kcbench");
	c->seconds = 1.0;
	c->seed = 1;
	/* workload parameters: negative = take the model's */
	c->ncs_us = c->cs_us = c->hot = -1;
	c->ncs_dist = c->cs_dist = (enum sim_dist)-1;
	c->locks = -1;
	c->work = -1;
	c->spin_threshold = 1u << 15;   /* kernel SPIN_THRESHOLD on x86 */
	c->pending_loops = 512;         /* kernel _Q_PENDING_LOOPS on x86 */
	c->halt_poll_us = -1;
	c->slice_us = -1;
	c->sample_us = 10;
	for (int i = 0; i < SIM_MAX_VMS; i++)
		c->vm_ple[i] = c->vm_kick_yield[i] = c->vm_pv_unhalt[i] = c->vm_steal_time[i] = -1;
}

static int config_set(struct sim_config *c, const char *key, const char *shown,
		      const char *value, FILE *err);

/* Whether SUB of vmN.SUB is a key with a per-VM override. */
static bool per_vm_sub_valid(const char *sub)
{
	return !strcmp(sub, "lock") || !strcmp(sub, "ple") || !strcmp(sub, "kick_yield") ||
	       !strcmp(sub, "pv_unhalt") || !strcmp(sub, "steal_time");
}

/* per_vm_key()'s return for a per-VM key whose N is not canonical. */
#define PER_VM_BAD_NUMBER (-2)

/* Split a per-VM key "vm<N>.<SUB>" (SUB not checked when N is canonical
 * decimal).  Returns N, SIM_MAX_VMS for any N above the last VM (however
 * many digits: never wrapped), PER_VM_BAD_NUMBER when SUB is a per-VM key
 * but N is not written the one decimal way (empty, a leading zero, a sign,
 * a blank, any other character: "vm00.lock" is not vm0's), or -1 if `key`
 * is not of that form; *sub points into `key`, *len is the length of N
 * (both set unless -1). */
static int per_vm_key(const char *key, const char **sub, size_t *len)
{
	const char *num = key + 2, *dot;
	int n = 0;
	if (strncmp(key, "vm", 2) || !(dot = strchr(num, '.')) || !dot[1])
		return -1;
	*sub = dot + 1;
	*len = (size_t)(dot - num);
	if (strspn(num, "0123456789") != *len || !*len || (num[0] == '0' && *len > 1))
		return per_vm_sub_valid(*sub) ? PER_VM_BAD_NUMBER : -1;
	for (const char *p = num; p < dot; p++)
		if (n < SIM_MAX_VMS)
			n = 10 * n + (*p - '0');
	return n < SIM_MAX_VMS ? n : SIM_MAX_VMS;
}

/* vmN.KEY: a per-VM override of lock, ple, kick_yield, pv_unhalt or
 * steal_time.  Returns 1 if `key` is not of that form. */
static int set_per_vm(struct sim_config *c, const char *key, const char *value, FILE *err)
{
	const char *sub;
	size_t len;
	int n = per_vm_key(key, &sub, &len);
	if (n == PER_VM_BAD_NUMBER) {
		fprintf(err, "pvspin sim: bad key '%s': '%.*s' is not a VM number; write it in "
			"decimal without a sign, blank or leading zero (vm0 to vm%d)\n", key,
			(int)len, key + 2, SIM_MAX_VMS - 1);
		return -1;
	}
	if (n < 0)
		return 1;
	if (n >= SIM_MAX_VMS) {
		fprintf(err, "pvspin sim: bad key '%s': VM numbers go from 0 to %d\n", key,
			SIM_MAX_VMS - 1);
		return -1;
	}
	struct sim_config tmp = *c;
	if (!per_vm_sub_valid(sub)) {
		fprintf(err, "pvspin sim: unknown per-VM key '%s'; valid: vmN.lock, vmN.ple, "
			     "vmN.kick_yield, vmN.pv_unhalt, vmN.steal_time\n", key);
		return -1;
	}
	if (config_set(&tmp, sub, key, value, err))
		return -1;
	if (!strcmp(sub, "lock")) c->vm_lock[n] = tmp.lock;
	else if (!strcmp(sub, "ple")) c->vm_ple[n] = tmp.ple;
	else if (!strcmp(sub, "kick_yield")) c->vm_kick_yield[n] = tmp.kick_yield;
	else if (!strcmp(sub, "pv_unhalt")) c->vm_pv_unhalt[n] = tmp.pv_unhalt;
	else c->vm_steal_time[n] = tmp.steal_time;
	return 0;
}

static const struct key *key_find(const char *name)
{
	for (int i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

bool sim_config_key_applies(const char *name, const char *workload)
{
	for (int i = 0; i < NWORKLOAD_KEYS; i++)
		if (!strcmp(workload_keys[i].key, name))
			return !strcmp(workload_keys[i].workload, workload);
	return key_find(name) != NULL;
}

bool sim_config_key_exists(const char *name)
{
	const char *sub;
	size_t len;
	if (!strcmp(name, "preset") || key_find(name))
		return true;
	return per_vm_key(name, &sub, &len) >= 0 && per_vm_sub_valid(sub);
}

static void key_names(FILE *err)
{
	for (int i = 0; i < NKEYS; i++)
		fprintf(err, "%s%s", i ? ", " : "", keys[i].name);
	fprintf(err, ", preset, vmN.lock, vmN.ple, vmN.kick_yield, vmN.pv_unhalt, "
		     "vmN.steal_time (N from 0 to %d)\n", SIM_MAX_VMS - 1);
}

/* What a boolean key accepts (any case for the words). */
#define BOOL_SPELLINGS "0 or 1 (also off/on, no/yes, false/true)"

/* 1 or 0 for a spelling of BOOL_SPELLINGS, else -1. */
static int bool_word(const char *v)
{
	if (!strcmp(v, "1") || !strcasecmp(v, "on") || !strcasecmp(v, "true") ||
	    !strcasecmp(v, "yes"))
		return 1;
	if (!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "false") ||
	    !strcasecmp(v, "no"))
		return 0;
	return -1;
}

/* A bad value of a key, in the shape of a bad value of an option
 * (tools/pvspin/option_error.h: tool_value_line(), as tool_value_error())
 * with the key and its value written as they are given, KEY=VALUE (as
 * --set takes them, and as a bad PVSPIN_* variable is said): `reason`,
 * what the key takes ("not an integer from 1 to 64", "not a lock kind;
 * valid kinds: "), followed by `names` (NULL: `reason` says all), one
 * line:
 *
 *   pvspin sim: vms=0: not an integer from 1 to 64
 *   pvspin sim: lock=mutex: not a lock kind; valid kinds: qspinlock, ...
 *
 * A scenario file's loader adds a line naming the file and the line or
 * key.  Returns -1. */
static int bad(FILE *err, const char *key, const char *value, const char *reason,
	       const char *names)
{
	tool_value_line(err, "pvspin sim", key, '=', value, reason, names);
	return -1;
}

int sim_config_set(struct sim_config *c, const char *key, const char *value, FILE *err)
{
	return config_set(c, key, key, value, err);
}

int sim_config_set_pair(struct sim_config *c, const char *pair, FILE *err)
{
	const char *eq = strchr(pair, '=');
	if (!eq) {
		fprintf(err, "pvspin sim: --set needs KEY=VALUE, not '%s'\n", pair);
		return -1;
	}
	char *key = strndup(pair, (size_t)(eq - pair));
	if (!key) {
		fprintf(err, "pvspin sim: out of memory\n");
		return -1;
	}
	int rc = sim_config_set(c, key, eq + 1, err);
	free(key);
	return rc;
}

int sim_config_set_list(struct sim_config *c, const char *list, FILE *err)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		if (sim_config_set_pair(c, tok, err))
			return -1;
	return 0;
}

/* A number written the plain decimal way: an optional '-', digits, and
 * for reals an optional fraction and exponent.  strtoll/strtod alone would
 * also take leading blanks, '+', hex ("0x10") and, with base 0, octal
 * ("010" = 8), none of which a scenario means. */
static bool plain_decimal(const char *v, bool real)
{
	const char *p = v;
	bool digits = false;
	if (*p == '-')
		p++;
	while (*p >= '0' && *p <= '9')
		p++, digits = true;
	if (real && *p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++, digits = true;
	}
	if (real && digits && (*p == 'e' || *p == 'E')) {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return digits && !*p;
}

/* sim_config_set() of `key`; error messages name the key as `shown` (the
 * user's "vm0.lock" for the per-VM "lock"). */
static int config_set(struct sim_config *c, const char *key, const char *shown,
		      const char *value, FILE *err)
{
	const struct key *k;
	char *end, range[160];
	char *base = (char *)c;

	if (!strcmp(key, "preset"))
		return sim_config_preset(c, value, err);
	int rc = set_per_vm(c, key, value, err);
	if (rc <= 0)
		return rc;
	/* not vmN.KEY (vm0lock, vm1_lock, vm12): one of the other keys or unknown */
	k = key_find(key);
	if (!k) {
		fprintf(err, "pvspin sim: unknown key '%s'; valid keys: ", key);
		key_names(err);
		return -1;
	}
	/* the whole valid set, the same in every refusal of the key */
	double min_on = key_min_on(k);
	snprintf(range, sizeof(range), "not %s%s from %.15g to %.15g",
		 k->type == K_DOUBLE_PROF ? "-1 (the profile's) or " : min_on > 0 ? "0 (off) or " : "",
		 k->type == K_DOUBLE || k->type == K_DOUBLE_PROF ? "a number" : "an integer",
		 min_on > 0 ? min_on : k->min, k->max);
	errno = 0;
	switch (k->type) {
	case K_INT:
	case K_U32:
	case K_LONG: {
		long long v = strtoll(value, &end, 10);
		if (!plain_decimal(value, false) || errno || end == value || *end ||
		    v < k->min || v > k->max)
			return bad(err, shown, value, range, NULL);
		if (k->type == K_INT)
			*(int *)(base + k->off) = (int)v;
		else if (k->type == K_U32)
			*(uint32_t *)(base + k->off) = (uint32_t)v;
		else
			*(long *)(base + k->off) = (long)v;
		return 0;
	}
	case K_U64: {
		unsigned long long v = strtoull(value, &end, 10);
		if (!plain_decimal(value, false) || errno || end == value || *end ||
		    value[0] == '-')
			return bad(err, shown, value, "not an integer from 0 to 18446744073709551615",
				   NULL);
		*(uint64_t *)(base + k->off) = v;
		return 0;
	}
	case K_DOUBLE:
	case K_DOUBLE_PROF: {
		double v = strtod(value, &end);
		/* ERANGE on underflow (1e-400) is a tiny number, still out of range */
		bool in = !isnan(v) && ((v >= k->min && v <= k->max) ||
					(k->type == K_DOUBLE_PROF && v == -1)) &&
			  !(v > 0 && v < min_on);
		if (!plain_decimal(value, true) || end == value || *end || !isfinite(v) || !in)
			return bad(err, shown, value, range, NULL);
		*(double *)(base + k->off) = v;
		return 0;
	}
	case K_BOOL:
	case K_TRI: {
		int v = bool_word(value);
		if (v < 0 && k->type == K_TRI && !strcmp(value, "default"))
			v = -1;
		else if (v < 0)
			return bad(err, shown, value, k->type == K_TRI ? "not " BOOL_SPELLINGS " or default"
								       : "not " BOOL_SPELLINGS, NULL);
		*(int *)(base + k->off) = v;
		return 0;
	}
	case K_KYIELD: {
		/* SIM_KY_OFF / SIM_KY_YIELD are 0 / 1: a boolean word */
		int v = !strcmp(value, "oracle") ? SIM_KY_ORACLE
			: !strcmp(value, "oracle-cross-vm") ? SIM_KY_ORACLE_CROSS : bool_word(value);
		if (v < 0)
			return bad(err, shown, value, "not " BOOL_SPELLINGS ", oracle or oracle-cross-vm",
				   NULL);
		*(int *)(base + k->off) = v;
		return 0;
	}
	case K_KIND: {
		pvspin_kind_t kind = pvspin_kind_from_name(value);
		if (kind == PVSPIN_KIND_NONE)
			return bad(err, shown, value, "not a lock kind; valid kinds: ", pvspin_kind_names());
		*(pvspin_kind_t *)(base + k->off) = kind;
		return 0;
	}
	case K_DIST: {
		int d = sim_dist_from_name(value);
		if (d < 0)
			return bad(err, shown, value, "not a distribution; valid distributions: ",
				   "const, exp, pareto");
		*(enum sim_dist *)(base + k->off) = (enum sim_dist)d;
		return 0;
	}
	case K_STR:
		if (!strcmp(key, "profile") && !sim_profile_find(value))
			return bad(err, shown, value, "not a profile; valid profiles: ",
				   sim_profile_names());
		if (!strcmp(key, "workload") && !sim_workload_find(value))
			return bad(err, shown, value, "not a workload; valid workloads: ",
				   sim_workload_names());
		snprintf(base + k->off, 32, "%s", value);
		return 0;
	}
	return -1;
}

void sim_keys_help(FILE *f)
{
	for (int i = 0; i < NKEYS; i++)
		fprintf(f, "  %-15s %s\n", keys[i].name, keys[i].help);
	fprintf(f, "  %-15s apply a preset first, wherever it is given (a scenario file's "
		   "other keys and the other --set keys follow)\n", "preset");
	fprintf(f, "  %-15s per-VM override of lock, ple, kick_yield, pv_unhalt, steal_time "
		   "(N from 0 to %d)\n", "vmN.KEY", SIM_MAX_VMS - 1);
	fprintf(f, "  booleans:  " BOOL_SPELLINGS "\n");
	fprintf(f, "  profiles:  %s\n  workloads: %s\n  locks:     %s\n  dists:     const, exp, pareto\n",
		sim_profile_names(), sim_workload_names(), pvspin_kind_names());
}

/* ---- INI scenario files ---------------------------------------------------- */

/*
 * The file is read through ini_parse_stream() with our own line reader, so
 * every message can name the line: inih's handler gets no line number
 * unless the library was built with INI_HANDLER_LINENO, which Debian's is
 * not.  The first error stops the parse (the reader then reports end of
 * file) and is the only one reported, whichever kind it is.
 *
 * `preset = NAME` is applied first wherever it is in the file, then the
 * other keys in file order, as for a JSON scenario: the parse checks every
 * line (each key on a scratch configuration, so errors come in line order)
 * and collects the keys; they are applied only once the whole file is good.
 */
struct ini_key {
	char *name, *value;
	int line;
};

struct ini_ctx {
	struct sim_config *c;
	struct sim_config scratch;  /* where each key is checked */
	struct ini_key *keys;       /* the keys other than preset, in file order */
	int nkeys, cap;
	char *preset;               /* the preset line's value, or NULL */
	int preset_line;
	const char *path;
	FILE *f;
	int line;           /* line of the text last handed to inih, from 1 */
	size_t bytes;       /* read of the stream so far (SIM_SCENARIO_MAX) */
	char raw[256];      /* that line as it is in the file, without its end */
	int fail_line;      /* line of the first error, 0 = none yet */
	int fail_rc;        /* -1 a bad key or value (usage), -2 the file failed */
	bool stopped;       /* a stop signal came: read no more (SIM_SCENARIO_STOPPED) */
	char *msg;          /* that error's message (open_memstream) */
	size_t msg_len;
	FILE *msgf;
};

/* Whether the section name s[0..n) may hold keys: [scenario], [sim]. */
static bool scenario_section_ok(const char *s, size_t n)
{
	return (n == 8 && !strncmp(s, "scenario", 8)) || (n == 3 && !strncmp(s, "sim", 3));
}

/* Record an unknown section (name s[0..n)) at the current line; `key` is
 * the first key found in it, or NULL at the header. */
static void scenario_section_error(struct ini_ctx *x, const char *s, int n, const char *key)
{
	fprintf(x->msgf, "pvspin sim: %s:%d: %s%s%sunknown section [%.*s]; valid sections: "
			 "[scenario] (or [sim]), or none (keys before any section)\n",
		x->path, x->line, key ? "'" : "", key ? key : "", key ? "' is in the " : "", n, s);
	x->fail_line = x->line;
	x->fail_rc = -2;
}

/* ini_reader: the project's bounded line reader (src/util/line_read.h,
 * also `pvspin detect --cpuid`'s), counting lines and refusing a line
 * longer than inih's buffer (it would split it and parse the tail as a
 * line of its own; /dev/zero is refused at its first line, not read whole)
 * or one with a NUL byte (inih would end the line there and silently drop
 * the rest: "preset = smoke\0lock = tas" ran qspinlock).  A NUL byte is
 * said first, in a line too long too.  Returns NULL (end of file for inih)
 * once an error was found. */
static char *scenario_read_line(char *str, int num, void *stream)
{
	struct ini_ctx *x = stream;
	bool nul;
	if (x->fail_line || x->stopped)
		return NULL;
	/* a stop signal: before the line (an endless input never ends by
	 * itself) and after it (a read blocked on a pipe ends with EINTR, a
	 * read error, and the line it cut is not one) */
	x->stopped = tool_stop_signal() != 0;
	ssize_t got = x->stopped ? 0 : pvspin_read_line_bounded(x->f, str, (size_t)num, &nul);
	x->stopped = tool_stop_signal() != 0;
	if (!got || x->stopped)
		return NULL;
	x->line++;
	if (nul) {
		fprintf(x->msgf, "pvspin sim: %s:%d: NUL byte in line\n", x->path, x->line);
		x->fail_line = x->line;
		x->fail_rc = -2;
		return NULL;
	}
	if (got < 0) {
		fprintf(x->msgf, "pvspin sim: %s:%d: line longer than %d characters\n",
			x->path, x->line, num - 1);
		x->fail_line = x->line;
		x->fail_rc = -2;
		return NULL;
	}
	size_t n = (size_t)got;
	x->bytes += n;
	if (x->bytes > SIM_SCENARIO_MAX) {
		x->fail_rc = sim_scenario_too_big(x->path, x->msgf);
		x->fail_line = x->line;
		return NULL;
	}
	snprintf(x->raw, sizeof(x->raw), "%.*s", (int)strcspn(str, "\r\n"), str);
	/* no continuation lines: inih glues an indented line to the value
	 * above it (multi-line values), so the indentation goes here and
	 * every line is a line of its own (inih strips spaces anyway) */
	size_t lead = strspn(str, " \t");
	if (lead)
		memmove(str, str + lead, n - lead + 1);
	/* a section header: checked here, so that an unknown section is an
	 * error even without keys (inih calls the handler for key lines only) */
	char *close = str[0] == '[' ? strchr(str, ']') : NULL;
	if (close && !scenario_section_ok(str + 1, (size_t)(close - str - 1))) {
		scenario_section_error(x, str + 1, (int)(close - str - 1), NULL);
		return NULL;
	}
	return str;
}

static int scenario_line(void *user, const char *section, const char *name, const char *value)
{
	struct ini_ctx *x = user;
	if (x->fail_line)
		return 1;
	if (section[0] && !scenario_section_ok(section, strlen(section))) {
		/* the reader checks every header; should one get past it, the
		 * error is at the section's first key */
		scenario_section_error(x, section, (int)strlen(section), name);
		return 1;
	}
	/* inih also splits "KEY: VALUE" (its ':' separator, on in Debian's
	 * build); the format is KEY = VALUE: a line whose first separator
	 * is ':' is malformed, as any other line that is not KEY = VALUE
	 * (exit 1, the line named) */
	if (x->raw[strcspn(x->raw, "=:")] == ':') {
		fprintf(x->msgf, "pvspin sim: %s:%d: not an INI 'key = value' line\n", x->path,
			x->line);
		x->fail_line = x->line;
		x->fail_rc = -2;
		return 1;
	}
	/* a key given twice, preset included, is a mistake (an edit that
	 * missed the first), not a silent "the last one wins": a malformed
	 * file, as a JSON duplicate (which jansson refuses), so exit 1 */
	int first = 0;
	if (!strcmp(name, "preset"))
		first = x->preset ? x->preset_line : 0;
	else
		for (int i = 0; i < x->nkeys && !first; i++)
			if (!strcmp(x->keys[i].name, name))
				first = x->keys[i].line;
	if (first) {
		fprintf(x->msgf, "pvspin sim: %s:%d: '%s' given twice (lines %d and %d); "
				 "give it once\n", x->path, x->line, name, first, x->line);
		x->fail_line = x->line;
		x->fail_rc = -2;
		return 1;
	}
	if (sim_config_set(&x->scratch, name, value, x->msgf)) {
		fprintf(x->msgf, "pvspin sim: %s:%d: in the line '%s'\n", x->path, x->line, x->raw);
		x->fail_line = x->line;
		x->fail_rc = -1;
		return 1;
	}
	if (!strcmp(name, "preset")) {
		x->preset = strdup(value);
		x->preset_line = x->line;
		if (!x->preset)
			goto oom;
		return 1;
	}
	if (x->nkeys == x->cap) {
		int cap = x->cap ? 2 * x->cap : 16;
		struct ini_key *k = realloc(x->keys, (size_t)cap * sizeof(*k));
		if (!k)
			goto oom;
		x->keys = k;
		x->cap = cap;
	}
	struct ini_key *k = &x->keys[x->nkeys];
	k->name = strdup(name);
	k->value = strdup(value);
	k->line = x->line;
	if (!k->name || !k->value) {
		free(k->name);
		free(k->value);
		goto oom;
	}
	x->nkeys++;
	return 1;
oom:
	fprintf(x->msgf, "pvspin sim: %s:%d: out of memory\n", x->path, x->line);
	x->fail_line = x->line;
	x->fail_rc = -2;
	return 1;
}

/* After a good parse: the preset, then the other keys in file order.
 * Each was checked already; returns -1 if one still fails. */
static int scenario_apply(struct ini_ctx *x, FILE *err)
{
	if (x->preset && sim_config_preset(x->c, x->preset, err))
		return -1;
	for (int i = 0; i < x->nkeys; i++)
		if (sim_config_set(x->c, x->keys[i].name, x->keys[i].value, err)) {
			fprintf(err, "pvspin sim: %s:%d: in the line '%s = %s'\n", x->path,
				x->keys[i].line, x->keys[i].name, x->keys[i].value);
			return -1;
		}
	return 0;
}

static void scenario_free(struct ini_ctx *x)
{
	for (int i = 0; i < x->nkeys; i++) {
		free(x->keys[i].name);
		free(x->keys[i].value);
	}
	free(x->keys);
	free(x->preset);
	free(x->msg);
}

int sim_scenario_too_big(const char *name, FILE *err)
{
	fprintf(err, "pvspin sim: %s: larger than 1 GiB (%zu bytes), the most pvspin sim reads "
		"of a scenario\n", name, SIM_SCENARIO_MAX);
	return -2;
}

int sim_scenario_check_file(const char *path, FILE *err)
{
	struct stat st;
	if (stat(path, &st)) {
		fprintf(err, "pvspin sim: cannot open scenario file '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		fprintf(err, "pvspin sim: cannot read scenario file '%s': %s\n", path,
			strerror(EISDIR));
		return -1;
	}
	if (access(path, R_OK)) {
		fprintf(err, "pvspin sim: cannot open scenario file '%s': %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* '#' and ';' start a comment at the start of a line and, after a blank,
 * after a value, whatever libinih was built to accept: Debian's takes
 * these options at run time (the values of the keys never hold either).
 * And inih stops at its first error, which is the one reported: it read
 * on to the end of the stream (`yes | pvspin sim -` for ever; a libinih
 * without these options reads on up to SIM_SCENARIO_MAX, then reports it). */
static void scenario_inih_options(void)
{
#ifdef PVSPIN_INIH_RUNTIME_OPTIONS
	static char prefixes[] = ";#";
	ini_start_comment_prefixes = prefixes;
	ini_allow_inline_comments = true;
	ini_inline_comment_prefixes = prefixes;
	ini_stop_on_first_error = true;
#endif
}

bool sim_scenario_file_over(int fd, size_t room)
{
	struct stat st;
	off_t at = fd >= 0 ? lseek(fd, 0, SEEK_CUR) : -1;
	return fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	       st.st_size - (at > 0 ? at : 0) > (off_t)room;
}

ssize_t sim_scenario_read(int fd, void *buf, size_t n)
{
	sigset_t stop, old;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t got = -1;
	int r;
	/* The stop signals are blocked from the test of the flag to the wait,
	 * and ppoll() unblocks them only while it waits: one that came after
	 * the test ends the wait at once (a plain read() would wait for the
	 * next input, for ever on a pipe that stalls), one during it too. */
	tool_stop_signals(&stop);
	sigprocmask(SIG_BLOCK, &stop, &old);
	do
		r = tool_stop_signal() ? -1 : ppoll(&p, 1, NULL, &old);
	while (r < 0 && errno == EINTR && !tool_stop_signal());
	if (tool_stop_signal())
		errno = EINTR;
	else if (r > 0)
		got = read(fd, buf, n);   /* ready: takes what is there, waits no more */
	int e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);   /* a pending stop signal is caught here */
	errno = e;
	return got;
}

/* cookie_read_function_t of sim_scenario_stream(): the descriptor is the
 * cookie. */
static ssize_t scenario_stream_read(void *cookie, char *buf, size_t size)
{
	return sim_scenario_read((int)(intptr_t)cookie, buf, size);
}

FILE *sim_scenario_stream(int fd)
{
	return fopencookie((void *)(intptr_t)fd, "r",
			   (cookie_io_functions_t){ .read = scenario_stream_read });
}

int sim_config_load_ini_stream(struct sim_config *c, FILE *f, const char *name, FILE *err)
{
	struct ini_ctx x = { .c = c, .scratch = *c, .path = name, .f = f };
	if (sim_scenario_file_over(fileno(f), SIM_SCENARIO_MAX))
		return sim_scenario_too_big(name, err);
	scenario_inih_options();
	x.msgf = open_memstream(&x.msg, &x.msg_len);
	if (!x.msgf) {
		fprintf(err, "pvspin sim: out of memory\n");
		return -2;
	}
	/* rc: the line of the first line that is not INI (inih's own error) */
	int rc = ini_parse_stream(scenario_read_line, &x, scenario_line, &x);
	int rerr = ferror(f);
	fclose(x.msgf);
	int ret = 0;
	if (x.stopped || tool_stop_signal()) {
		ret = SIM_SCENARIO_STOPPED;   /* said by the caller, which ends by it */
	} else if (rerr) {
		fprintf(err, "pvspin sim: cannot read scenario file '%s'\n", name);
		ret = -2;
	} else if (rc > 0 && (!x.fail_line || rc < x.fail_line)) {
		fprintf(err, "pvspin sim: %s:%d: not an INI 'key = value' line\n", name, rc);
		ret = -2;
	} else if (x.fail_line) {
		fputs(x.msg, err);
		ret = x.fail_rc;
	} else if (rc) {
		fprintf(err, "pvspin sim: cannot parse scenario file '%s'\n", name);
		ret = -2;
	} else if (!x.preset && !x.nkeys) {
		/* not the default run: an empty file is a mistake (a wrong
		 * file, an interrupted write), and `pvspin sim` alone is one */
		fprintf(err, "pvspin sim: %s: empty scenario: no KEY = VALUE line "
			"(pvspin sim --keys lists the keys)\n", name);
		ret = -2;
	} else {
		ret = scenario_apply(&x, err);
	}
	scenario_free(&x);
	return ret;
}

int sim_config_load_ini(struct sim_config *c, const char *path, FILE *err)
{
	if (sim_scenario_check_file(path, err))
		return -2;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(err, "pvspin sim: cannot open scenario file '%s': %s\n", path, strerror(errno));
		return -2;
	}
	/* read through sim_scenario_read(), so that a stop signal ends a wait
	 * on a FIFO or a <(command) too; a regular file's size is checked on
	 * its descriptor (the stream has none) */
	FILE *f = NULL;
	int ret;
	if (sim_scenario_file_over(fd, SIM_SCENARIO_MAX)) {
		ret = sim_scenario_too_big(path, err);
	} else if (!(f = sim_scenario_stream(fd))) {
		fprintf(err, "pvspin sim: out of memory\n");
		ret = -2;
	} else {
		ret = sim_config_load_ini_stream(c, f, path, err);
		fclose(f);
	}
	close(fd);
	return ret;
}

/* ---- validation, resolution, JSON -------------------------------------------- */

int sim_config_check(const struct sim_config *c, FILE *err)
{
	long nv = (long)c->vms * c->vcpus;
	if (nv > PVSPIN_MAX_CPUS) {
		fprintf(err, "pvspin sim: vms x vcpus = %ld exceeds %d vCPU slots\n", nv,
			PVSPIN_MAX_CPUS);
		return -1;
	}
	if (c->dedicated && nv > c->pcpus) {
		fprintf(err, "pvspin sim: dedicated=1 needs vms x vcpus (%ld) <= pcpus (%d)\n",
			nv, c->pcpus);
		return -1;
	}
	for (int i = c->vms; i < SIM_MAX_VMS; i++)
		if (c->vm_lock[i] || c->vm_ple[i] >= 0 || c->vm_kick_yield[i] >= 0 ||
		    c->vm_pv_unhalt[i] >= 0 || c->vm_steal_time[i] >= 0) {
			if (c->vms == 1)
				fprintf(err, "pvspin sim: a vm%d.* key is set but there is only 1 VM "
					     "(vm0)\n", i);
			else
				fprintf(err, "pvspin sim: a vm%d.* key is set but there are only %d "
					     "VMs (vm0 .. vm%d)\n", i, c->vms, c->vms - 1);
			return -1;
		}
	const struct sim_profile *prof = sim_profile_find(c->profile);
	if (prof && !prof->has_ple && c->ple == 1) {
		fprintf(err, "pvspin sim: profile %s has no Pause-Loop Exiting; set ple=0 or "
			     "ple=default, or choose a profile with PLE\n", c->profile);
		return -1;
	}
	for (int i = 0; prof && !prof->has_ple && i < c->vms && i < SIM_MAX_VMS; i++)
		if (c->vm_ple[i] == 1) {
			fprintf(err, "pvspin sim: vm%d.ple=1 but profile %s has no Pause-Loop "
				     "Exiting; set vm%d.ple=0 or vm%d.ple=default, or choose a "
				     "profile with PLE\n", i, c->profile, i, i);
			return -1;
		}
	if (c->nodes > c->pcpus) {
		fprintf(err, "pvspin sim: nodes (%d) must not exceed pcpus (%d)\n", c->nodes,
			c->pcpus);
		return -1;
	}
	/* setup() (sim_engine.c) gives pCPU p node p * nodes / pcpus: equal nodes only when
	 * nodes divides pcpus, which is what the key means (and real hosts are) */
	if (c->pcpus % c->nodes) {
		fprintf(err, "pvspin sim: pcpus (%d) must be a multiple of nodes (%d): the pCPUs are "
			     "split evenly into NUMA nodes; valid nodes for pcpus=%d:", c->pcpus,
			c->nodes, c->pcpus);
		for (int n = 1, first = 1; n <= c->pcpus && n <= 64; n++)
			if (c->pcpus % n == 0) {
				fprintf(err, "%s %d", first ? "" : ",", n);
				first = 0;
			}
		fprintf(err, "\n");
		return -1;
	}
	if (!sim_profile_find(c->profile) || !sim_workload_find(c->workload)) {
		fprintf(err, "pvspin sim: unknown profile or workload\n");
		return -1;
	}
	/* a workload's own keys (workload_keys): another workload would run
	 * without them, recording them in its report as if they had counted */
	for (int i = 0; i < NWORKLOAD_KEYS; i++) {
		if (*(const int *)((const char *)c + workload_keys[i].off) &&
		    strcmp(workload_keys[i].workload, c->workload)) {
			fprintf(err, "pvspin sim: %s is a key of workload %s; workload %s "
				     "does not read it\n", workload_keys[i].key,
				workload_keys[i].workload, c->workload);
			return -1;
		}
	}
	/* the extension is the guest kernel's, for its threads: only where a
	 * vCPU stands for a thread (the machine twin).  Its values (0, or 5
	 * to 50: the kernel's shortest extension is 5 us) are the key's
	 * (key_min_on()), checked when it is set. */
	if (c->slice_ext_us > 0 && !prof->vcpus_are_threads) {
		fprintf(err, "pvspin sim: slice_ext_us needs a profile whose vCPUs stand for "
			     "threads (linux-threads, the machine twin); profile %s models a "
			     "hypervisor, whose vCPUs the extension does not cover\n", c->profile);
		return -1;
	}
	return 0;
}

void sim_config_resolve(struct sim_config *c)
{
	const struct sim_workload *w = sim_workload_find(c->workload);
	if (!w)
		return;
	if (c->ncs_us < 0) c->ncs_us = w->ncs_us;
	if (c->cs_us < 0) c->cs_us = w->cs_us;
	if ((int)c->ncs_dist < 0) c->ncs_dist = w->ncs_dist;
	if ((int)c->cs_dist < 0) c->cs_dist = w->cs_dist;
	if (c->locks < 0) c->locks = w->locks;
	if (c->hot < 0) c->hot = w->hot;
	if (c->work < 0) c->work = w->work;
}

/* kick_yield in the JSON config: a boolean for the two kernels (as before
 * the oracles existed), the oracle's name otherwise. */
static json_t *kick_yield_json(int ky)
{
	if (ky == SIM_KY_ORACLE)
		return json_string("oracle");
	if (ky == SIM_KY_ORACLE_CROSS)
		return json_string("oracle-cross-vm");
	return json_boolean(ky);
}

json_t *sim_u64_json(uint64_t v)
{
	char buf[24];
	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return json_string(buf);
}

json_t *sim_config_json(const struct sim_config *in)
{
	struct sim_config cc = *in, *c = &cc;
	json_t *o = json_object();
	sim_config_resolve(c);
	json_object_set_new(o, "preset", json_string(c->preset));
	for (int i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		const char *base = (const char *)c;
		json_t *v = NULL;
		switch (k->type) {
		case K_INT: v = json_integer(*(const int *)(base + k->off)); break;
		case K_U32: v = json_integer(*(const uint32_t *)(base + k->off)); break;
		case K_LONG: v = json_integer(*(const long *)(base + k->off)); break;
		case K_U64: v = sim_u64_json(*(const uint64_t *)(base + k->off)); break;
		case K_DOUBLE:
		case K_DOUBLE_PROF: v = json_real(*(const double *)(base + k->off)); break;
		case K_BOOL: v = json_boolean(*(const int *)(base + k->off)); break;
		case K_KYIELD: v = kick_yield_json(*(const int *)(base + k->off)); break;
		case K_TRI: {
			int t = *(const int *)(base + k->off);
			v = t < 0 ? json_string("default") : json_boolean(t);
			break;
		}
		case K_STR: v = json_string(base + k->off); break;
		case K_KIND: v = json_string(pvspin_kind_name(*(const pvspin_kind_t *)(base + k->off))); break;
		case K_DIST: v = json_string(sim_dist_name(*(const enum sim_dist *)(base + k->off))); break;
		}
		json_object_set_new(o, k->name, v);
	}
	for (int i = 0; i < SIM_MAX_VMS; i++) {
		char name[32];
		if (c->vm_lock[i]) {
			snprintf(name, sizeof(name), "vm%d.lock", i);
			json_object_set_new(o, name, json_string(pvspin_kind_name(c->vm_lock[i])));
		}
		static const char *const sub[] = { "ple", "kick_yield", "pv_unhalt", "steal_time" };
		const int *vals[] = { c->vm_ple, c->vm_kick_yield, c->vm_pv_unhalt, c->vm_steal_time };
		for (int k = 0; k < 4; k++)
			if (vals[k][i] >= 0) {
				snprintf(name, sizeof(name), "vm%d.%s", i, sub[k]);
				json_object_set_new(o, name, k == 1 ? kick_yield_json(vals[k][i])
								  : json_boolean(vals[k][i]));
			}
	}
	return o;
}

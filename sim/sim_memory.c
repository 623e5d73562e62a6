/*
 * sim_memory.c - the memory of the simulated machine: per-cache-line
 * coherence costs, and the memory and spin-wait operations of the platform
 * backend (sim_platform.h).
 *
 * Memory model.  Each 64-byte line has a version (bumped per write), the
 * last writer, the nodes (and CCXs) holding copies and a "busy until" time:
 * writes and RMWs to a line serialise (each takes the line exclusively for
 * its cost), reads of a line written by another CPU pay a transfer (same
 * CCX / same node / other node; a profile without a CCX level has the last
 * two only).  An operation takes effect when it completes, at its issuer's new
 * time.  Values are sequentially consistent (one host thread).
 *
 * Store-to-load forwarding.  Each vCPU keeps its last SIM_STORE_BUFFER
 * stores (plain stores and RMWs, a failed cmpxchg too: x86's locked
 * cmpxchg writes the old value back when the comparison fails, and a
 * 32-bit load after a failed byte cmpxchg took 6.75 ns a round here
 * against 2.56 ns for loads of the bytes), each for SIM_STORE_DRAIN_NS
 * after it completes.  A load or RMW that overlaps one of them without
 * lying inside it (a 32-bit load of a word whose byte was just written)
 * cannot take its value from the store buffer on x86: it waits until the
 * store reaches the cache, and pays the profile's store_forward_ns
 * (counted in the JSON's host.store_forward_stalls).  An RMW
 * drains the older stores (a locked instruction waits for them); fences
 * are not modelled.  Measured on an AMD EPYC KVM guest (2026-12-05): a
 * loop of cmpxchg of a lock's byte, a 32-bit load of its word and a
 * byte store took 6.8 ns a round, 2.2 ns with the load narrowed to the
 * bytes not written, as without it; with 50 ns of work between the
 * cmpxchg and the load (pvspin bench, cs 50) the difference is gone.
 *
 * Spinning.  pvspin_plat_wait32() parks the vCPU on the line; a write of
 * the line after which the predicate holds wakes it (it then re-reads the
 * word, paying the transfer); otherwise it resumes after max_loops x PAUSE
 * of running time.  PLE exits (sim_kvm.c) fire when a vCPU has spun
 * (running) for the current PLE window.
 */
#define _GNU_SOURCE
#include "sim_internal.h"

/* ---- lock keys (sim_platform.h) ------------------------------------------ */

/* Keys of arena locks: offsets from here, far from any address a host
 * process maps low (the first page is never mapped). */
#define SIM_LOCK_KEY_BASE 0x10000u

uintptr_t pvspin_plat_lock_key(const void *lock)
{
	const char *p = lock;
	if (S.lock_arena && p >= S.lock_arena && p < S.lock_arena + S.lock_arena_size)
		return SIM_LOCK_KEY_BASE + (uintptr_t)(p - S.lock_arena);
	return (uintptr_t)lock;
}

/* ---- cache lines -------------------------------------------------------- */

static size_t line_hash(uintptr_t tag, size_t cap)
{
	return (size_t)((tag * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

struct line *line_of(const void *p)
{
	uintptr_t tag = (uintptr_t)p >> 6;
	if (2 * (S.nlines + 1) > S.caplines) {
		size_t ncap = S.caplines ? 2 * S.caplines : 4096;
		struct line **nl = xcalloc(ncap, sizeof(*nl));
		for (size_t i = 0; i < S.caplines; i++) {
			if (!S.lines[i])
				continue;
			size_t j = line_hash(S.lines[i]->tag, ncap);
			while (nl[j])
				j = (j + 1) & (ncap - 1);
			nl[j] = S.lines[i];
		}
		free(S.lines);
		S.lines = nl;
		S.caplines = ncap;
	}
	size_t j = line_hash(tag, S.caplines);
	while (S.lines[j]) {
		if (S.lines[j]->tag == tag)
			return S.lines[j];
		j = (j + 1) & (S.caplines - 1);
	}
	struct line *l = xcalloc(1, sizeof(*l) + (size_t)S.nv * sizeof(uint32_t));
	l->tag = tag;
	/* version 1: the contents from before the run, which no vCPU holds
	 * yet; the first read of each vCPU pays a transfer, later ones hit
	 * until the line is written (a line never written used to pay the
	 * transfer at every read) */
	l->version = 1;
	l->writer = -1;
	l->ccx = LINE_CCX_NONE;
	S.lines[j] = l;
	S.nlines++;
	return l;
}

/* ---- memory and spin-wait operations (sim_platform.h) --------------------- */

enum acc { ACC_READ, ACC_WRITE, ACC_RMW };

/* Store-buffer entries per vCPU (the array in struct vcpu), and how long
 * a store stays in it after it completes.  Measured on this project's
 * AMD EPYC guest (2026-12-05), a failed byte cmpxchg, then dependent
 * arithmetic, then a 32-bit load of the word: 3-7 ns extra with 5 ns of
 * arithmetic between, about 0 with 10 ns, and none with a PAUSE (25
 * ns) between.  So the access right after a store stalls (an unlock
 * with no critical section between; the simulator charges 2 ns a load),
 * and one after a PAUSE (13 ns in the shortest profile) does not. */
#define SIM_STORE_BUFFER (sizeof(((struct vcpu *)0)->sb) / sizeof(((struct vcpu *)0)->sb[0]))
#define SIM_STORE_DRAIN_NS 8

/* Does a load or RMW of [p, p + len) by v now overlap one of its
 * buffered stores without lying inside it?  Then forwarding fails. */
static bool store_forward_fails(const struct vcpu *v, const void *p, size_t len)
{
	const char *lo = p, *hi = lo + len;
	for (size_t i = 0; i < SIM_STORE_BUFFER; i++) {
		const char *slo = v->sb[i].addr, *shi = slo + v->sb[i].len;
		if (!slo || v->sb[i].until <= S.now || hi <= slo || shi <= lo)
			continue;   /* drained, or apart */
		if (lo < slo || hi > shi)
			return true;
	}
	return false;
}

/* v's write of [p, p + len) completed now: buffer it (an RMW first
 * drains the older stores). */
static void store_buffer_add(struct vcpu *v, const void *p, size_t len, enum acc kind)
{
	if (kind == ACC_RMW)
		for (size_t i = 0; i < SIM_STORE_BUFFER; i++)
			v->sb[i].addr = NULL;
	v->sb[v->sb_next].addr = p;
	v->sb[v->sb_next].len = (unsigned)len;
	v->sb[v->sb_next].until = S.now + SIM_STORE_DRAIN_NS;
	v->sb_next = (v->sb_next + 1) % SIM_STORE_BUFFER;
}

/* Transfer cost of line l to a CPU of `node` and `ccx`: from another node
 * if any copy is there, else (with a CCX level) from inside the CPU's CCX
 * if every copy is there, else from another CCX or CPU of the node.  A line
 * never written in the run (writer -1) costs a same-node transfer, once per
 * vCPU (line_of). */
static sim_time_t xfer_cost(const struct line *l, int node, int ccx)
{
	if (l->writer < 0)
		return S.prof->xfer_local_ns;
	if (l->nodes_mask & ~(1ull << node))
		return S.prof->xfer_remote_ns;
	if (S.prof->ccx_cpus && l->ccx == ccx)
		return S.prof->xfer_ccx_ns;
	return S.prof->xfer_local_ns;
}

/* Charge a memory access of `len` bytes and wait until it completes; a
 * write or RMW (a failed cmpxchg too) then sits in the vCPU's store
 * buffer. */
static struct line *mem_begin(const void *p, size_t len, enum acc kind)
{
	struct vcpu *v = S.cur;
	if (!v)
		return NULL;
	struct line *l = line_of(p);
	int node = S.pcpus[v->pcpu].node, ccx = S.pcpus[v->pcpu].ccx;
	sim_time_t start = S.now, cost;
	if (kind == ACC_READ) {
		cost = l->seen[v->id] == l->version ? S.prof->l1_ns
								     : xfer_cost(l, node, ccx);
	} else {
		if (l->busy_until > start)
			start = l->busy_until;
		bool own = l->writer == v->id && l->excl;
		cost = (kind == ACC_RMW ? S.prof->atomic_ns : S.prof->l1_ns) +
		       (own ? 0 : xfer_cost(l, node, ccx));
		l->busy_until = start + cost;
	}
	if (kind != ACC_WRITE && store_forward_fails(v, p, len)) {
		cost += S.prof->store_forward_ns;
		S.store_forward_stalls++;
	}
	vcpu_delay(v, start + cost - S.now);
	/* completion: the coherence state as of now */
	node = S.pcpus[v->pcpu].node;
	ccx = S.pcpus[v->pcpu].ccx;
	if (kind == ACC_READ) {
		l->seen[v->id] = l->version;
		if (l->writer != v->id)
			l->excl = false;
		l->nodes_mask |= 1ull << node;
		l->ccx = (l->ccx == LINE_CCX_NONE || l->ccx == ccx) ? ccx : LINE_CCX_MANY;
	} else {
		store_buffer_add(v, p, len, kind);
		l->version++;
		l->writer = v->id;
		l->excl = true;
		l->nodes_mask = 1ull << node;
		l->ccx = ccx;
		l->seen[v->id] = l->version;
	}
	return l;
}

bool watcher_satisfied(const struct vcpu *w)
{
	if (w->spin_ptr)
		return *(void *const *)w->spin_addr != NULL;
	return w->pred(*(const uint32_t *)w->spin_addr, w->arg);
}

/* A write took effect on line l: wake the spinners whose wait is over. */
void mem_written(struct line *l)
{
	if (!l)
		return;
	for (struct vcpu *w = l->watchers; w; w = w->wnext) {
		if (w->spin_hit || !watcher_satisfied(w))
			continue;
		if (w->sched == VS_RUNNING) {
			account_stint(w, S.now);
			w->spin_hit = true;
			arm(w);
		} else {
			w->spin_hit = true;
		}
	}
}

#define SIM_DEFINE_WIDTH(W, T)                                                  \
	T pvspin_plat_load##W(const T *p, int mo)                               \
	{ (void)mo; mem_begin(p, sizeof(T), ACC_READ); return *p; }             \
	void pvspin_plat_store##W(T *p, T v, int mo)                            \
	{ (void)mo; struct line *l = mem_begin(p, sizeof(T), ACC_WRITE); *p = v; \
	  mem_written(l); }                                                     \
	bool pvspin_plat_cmpxchg##W(T *p, T *old, T nv, int mo)                 \
	{ (void)mo; struct line *l = mem_begin(p, sizeof(T), ACC_RMW);          \
	  if (*p != *old) { *old = *p; return false; }                          \
	  *p = nv; mem_written(l); return true; }                               \
	T pvspin_plat_xchg##W(T *p, T v, int mo)                                \
	{ (void)mo; struct line *l = mem_begin(p, sizeof(T), ACC_RMW); T o = *p; \
	  *p = v; mem_written(l); return o; }

SIM_DEFINE_WIDTH(8, uint8_t)
SIM_DEFINE_WIDTH(16, uint16_t)
SIM_DEFINE_WIDTH(32, uint32_t)
#undef SIM_DEFINE_WIDTH

void *pvspin_plat_loadptr(void *const *p, int mo)
{
	(void)mo;
	mem_begin(p, sizeof(*p), ACC_READ);
	return *p;
}

void pvspin_plat_storeptr(void **p, void *v, int mo)
{
	(void)mo;
	struct line *l = mem_begin(p, sizeof(*p), ACC_WRITE);
	*p = v;
	mem_written(l);
}

bool pvspin_plat_cmpxchgptr(void **p, void **old, void *nv, int mo)
{
	(void)mo;
	struct line *l = mem_begin(p, sizeof(*p), ACC_RMW);
	if (*p != *old) {
		*old = *p;
		return false;
	}
	*p = nv;
	mem_written(l);
	return true;
}

#define SIM_DEFINE_FETCH(NAME, OP)                                              \
	uint32_t pvspin_plat_fetch_##NAME##32(uint32_t *p, uint32_t v, int mo)  \
	{ (void)mo; struct line *l = mem_begin(p, sizeof(*p), ACC_RMW);         \
	  uint32_t o = *p; *p = o OP v; mem_written(l); return o; }
SIM_DEFINE_FETCH(add, +)
SIM_DEFINE_FETCH(or, |)
SIM_DEFINE_FETCH(and, &)
#undef SIM_DEFINE_FETCH

void pvspin_plat_cpu_relax(void)
{
	if (S.cur)
		vcpu_delay(S.cur, S.prof->pause_ns);
}

static void watch(struct vcpu *v, struct line *l)
{
	v->spin_line = l;
	v->wprev = NULL;
	v->wnext = l->watchers;
	if (l->watchers)
		l->watchers->wprev = v;
	l->watchers = v;
}

static void unwatch(struct vcpu *v)
{
	struct line *l = v->spin_line;
	if (v->wprev)
		v->wprev->wnext = v->wnext;
	else
		l->watchers = v->wnext;
	if (v->wnext)
		v->wnext->wprev = v->wprev;
	v->spin_line = NULL;
	v->wnext = v->wprev = NULL;
}

/* Park the current vCPU on `addr` for at most `bound` running ns. */
static sim_time_t spin_park(struct vcpu *v, const void *addr, bool is_ptr,
			    bool (*pred)(uint32_t, uint32_t), uint32_t arg, sim_time_t bound)
{
	v->act = VA_SPIN;
	v->left = bound;
	v->spin_run = 0;
	v->spin_hit = false;
	v->spin_addr = addr;
	v->spin_ptr = is_ptr;
	v->pred = pred;
	v->arg = arg;
	watch(v, line_of(addr));
	vcpu_yield(v);
	unwatch(v);
	v->act = VA_EXEC;
	v->left = 0;
	return v->spin_run;
}

bool pvspin_plat_wait32(const uint32_t *p, bool (*done)(uint32_t, uint32_t),
			uint32_t arg, uint32_t max_loops, uint32_t *val, uint32_t *spent)
{
	struct vcpu *v = S.cur;
	sim_time_t pause = S.prof->pause_ns, bound, total = 0;
	if (!v) {
		*val = *p;
		if (spent)
			*spent = 0;
		return done(*val, arg);
	}
	bound = max_loops ? (sim_time_t)max_loops * pause : SIM_T_INF;
	for (;;) {
		uint32_t x = pvspin_plat_load32(p, PVSPIN_ACQUIRE);
		if (done(x, arg)) {
			*val = x;
			/* at most max_loops: a quotient past it would be cut to
			 * 32 bits when max_loops is near 4294967295 */
			if (spent)
				*spent = max_loops && total >= bound ? max_loops
								    : (uint32_t)(total / pause);
			return true;
		}
		if (max_loops && total >= bound) {
			*val = x;
			if (spent)
				*spent = max_loops;
			return false;
		}
		total += spin_park(v, p, false, done, arg,
				   max_loops ? bound - total : SIM_T_INF);
	}
}

void *pvspin_plat_waitptr(void *const *p)
{
	struct vcpu *v = S.cur;
	for (;;) {
		void *x = pvspin_plat_loadptr(p, PVSPIN_ACQUIRE);
		if (x || !v)
			return x;
		spin_park(v, p, true, NULL, 0, SIM_T_INF);
	}
}

/*
 * pvqspinlock.pml - Promela model of pvspin's paravirtual queued spinlock:
 * the lock word, the MCS queue, the PV wait/kick protocol with the
 * lock -> node hash and _Q_SLOW_VAL, and the native halt/kick futex word
 * (IDLE / KICKED / SLEEPING) with the kick-before-halt flag.
 *
 * Models src/lock/pvqspinlock.c + src/lock/qspinlock_slowpath.h (QSPIN_PV)
 * + include/pvspin/pvqspinlock.h + src/platform/native.c; the step-by-step
 * mapping is test/model/README.md.
 *
 * NCPU vCPUs (default 3) each take and release the one lock ROUNDS times
 * (default 1).  Every statement is one atomic step of the code (a load, a
 * store or one read-modify-write); between any two steps a vCPU may be
 * preempted for any time (Promela interleaving).  Weak fairness (pan -f)
 * stands for a host that eventually runs every runnable vCPU; a vCPU
 * halted in FUTEX_WAIT is not runnable until its futex word changes.
 * Bounded spins (SPIN_THRESHOLD) are "if the awaited condition holds, go
 * on, else give up": one read at any later time covers every real
 * outcome of a spin loop (reads have no side effects).  Memory is
 * sequentially consistent (see README.md for what that leaves out).
 *
 * Properties:
 *   mutual exclusion     assert(incs == 1) in the critical section, and the
 *                        protocol's own invariants (asserts below);
 *   no lost wakeup       ltl live: every vCPU eventually finishes all its
 *                        acquisitions (pan -a -f); in safety mode a vCPU
 *                        halted for ever shows as an invalid end state.
 *
 * Variants (test/model/pvqspinlock_*.pml, README.md):
 *   DROP_ONE_KICK  one pv_kick is lost                       -> must fail
 *   NO_KICK_FLAG   a kick only wakes a vCPU already asleep (no KICKED
 *                  state: a kick before the halt is forgotten)
 *   NO_RECHECK     pv_wait does not re-check *ptr after announcing
 *                  SLEEPING
 *   NO_KICK_FLAG + NO_RECHECK                                 -> must fail
 *   NO_RECHECK alone passes: the re-check is latency only (native.c).
 */
#ifndef NCPU
#define NCPU 3
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif

/* node state (enum pv_vcpu_state) */
#define RUNNING 0
#define HALTED  1
#define HASHED  2
/* per-slot futex word (native.c) */
#define IDLE     0
#define KICKED   1
#define SLEEPING 2
/* locked byte */
#define SLOW 3

/* the lock word, as three fields: locked byte, pending bit, tail (cpu+1) */
byte locked;
bit pending;
byte tail;
/* one MCS node per vCPU (the model never nests) */
bit nlocked[NCPU];     /* MCS baton */
byte nnext[NCPU];      /* successor cpu + 1, 0 = none */
byte nstate[NCPU];     /* RUNNING / HALTED / HASHED */
/* the lock -> node hash: one lock, so one entry (at most one node per lock
 * is ever hashed - asserted) */
bit hlock;             /* entry holds our lock */
byte hnode;            /* hashed node's cpu + 1 */
/* per-vCPU halt/kick futex word */
byte fw[NCPU];

byte incs;             /* vCPUs in the critical section */
byte ndone;            /* vCPUs that finished all rounds */
#ifdef DROP_ONE_KICK
bit dropped;
#endif

/* pvspin_plat_pv_kick(c): xchg(word, KICKED); FUTEX_WAKE if it was
 * SLEEPING (the wake is the guard of pv_wait's FUTEX_WAIT below). */
inline pv_kick(c)
{
#if defined(DROP_ONE_KICK)
	if
	:: !dropped -> dropped = 1       /* MUTATION: this kick is lost */
	:: true -> fw[c] = KICKED
	fi
#elif defined(NO_KICK_FLAG)
	/* MUTATION: a kick only wakes a vCPU already asleep; one sent before
	 * the halt is forgotten */
	atomic { if :: fw[c] == SLEEPING -> fw[c] = KICKED :: else -> skip fi }
#else
	fw[c] = KICKED
#endif
}

/* pvspin_plat_pv_wait(ptr, val): `still` is the expression *ptr == val. */
inline pv_wait(still)
{
	if
	:: atomic { fw[me] == KICKED -> fw[me] = IDLE }   /* kick before the halt: consume, return */
	:: else ->
		if
		:: !(still) -> skip                            /* *ptr != val: return */
		:: else ->
			if
			:: atomic { fw[me] == IDLE -> fw[me] = SLEEPING };
#ifndef NO_RECHECK
				if
				:: !(still) -> fw[me] = IDLE           /* re-check: return */
				:: else ->
#endif
					(fw[me] != SLEEPING);          /* FUTEX_WAIT until kicked */
					fw[me] = IDLE
#ifndef NO_RECHECK
				fi
#endif
			:: else -> fw[me] = IDLE                       /* kicked meanwhile */
			fi
		fi
	fi
}

active [NCPU] proctype vcpu()
{
	byte me = _pid;
	byte round, prev, next, old, vl, vt;
	bit vp, hashed;

	assert(me < NCPU);
	do
	:: round == ROUNDS -> break
	:: else ->
		/* ---- pvspin_pvqspinlock_lock: fast path (0,0,0) -> (0,0,1) ---- */
		if
		:: atomic { locked == 0 && pending == 0 && tail == 0 -> locked = 1 };
			goto cs
		:: else -> skip
		fi;

		/* ---- slow path: node set-up (pv_init_node) ---- */
		d_step { nlocked[me] = 0; nnext[me] = 0; nstate[me] = RUNNING };

		/* ---- pv_hybrid_trylock ---- */
		d_step { vl = locked; vp = pending; vt = tail };
steal:
		if
		:: vl == 0 && vp == 0 ->
			if
			:: atomic { locked == 0 -> locked = 1 };   /* cmpxchg8 0 -> 1 */
				d_step { vl = 0; vp = 0; vt = 0 };
				goto cs
			:: else -> skip
			fi
		:: else -> skip
		fi;
		if
		:: vt == 0 || vp -> d_step { vl = 0; vp = 0; vt = 0 }   /* queue */
		:: else ->
			/* wait until free, no queue, or a spinning head */
			atomic { ((locked == 0 && pending == 0) || tail == 0 || pending) ->
				 vl = locked; vp = pending; vt = tail };
			goto steal
		fi;

		/* ---- publish the node: xchg_tail ---- */
		d_step { old = tail; tail = me + 1 };
		if
		:: old != 0 ->
			prev = old - 1;
			old = 0;
			nnext[prev] = me + 1;                       /* link behind prev */
			/* ---- pv_wait_node ---- */
wait_node:
			if
			:: nlocked[me] -> goto node_done            /* spin saw the baton */
			:: else -> skip                             /* threshold, or prev halted */
			fi;
			nstate[me] = HALTED;                        /* xchg8 seq_cst */
			if
			:: nlocked[me] == 0 -> pv_wait(nstate[me] == HALTED)
			:: else -> skip
			fi;
			atomic { if :: nstate[me] == HALTED -> nstate[me] = RUNNING
				    :: else -> skip fi };       /* cmpxchg HALTED -> RUNNING */
			if
			:: nlocked[me] -> skip
			:: else -> goto wait_node                   /* spurious wakeup */
			fi;
node_done:
			prev = 0;
			next = nnext[me]                            /* successor, if linked */
		:: else -> skip
		fi;

		/* ---- pv_wait_head_or_lock ---- */
		hashed = (nstate[me] == HASHED);
wait_head:
		nstate[me] = RUNNING;
		pending = 1;                                        /* set_pending */
		if
		:: atomic { locked == 0 && pending == 1 -> pending = 0; locked = 1 };
			goto gotlock                                /* trylock_clear_pending */
		:: else -> skip                                     /* threshold ran out */
		fi;
		pending = 0;                                        /* clear_pending */
		if
		:: !hashed ->
			hashed = 1;
			assert(hlock == 0);                         /* pv_hash: one node per lock */
			hlock = 1;
			hnode = me + 1;
			d_step { old = locked; locked = SLOW };     /* xchg8 -> _Q_SLOW_VAL */
			if
			:: old == 0 ->
				old = 0;
				locked = 1;                         /* the lock was free: ours */
				d_step { hlock = 0; hnode = 0 };    /* unhash ourselves */
				goto gotlock
			:: else -> old = 0
			fi
		:: else -> skip
		fi;
		nstate[me] = HASHED;
		pv_wait(locked == SLOW);
		goto wait_head;

gotlock:
		hashed = 0;
		/* ---- claim: alone, (me,0,1) -> (0,0,1); else pass the baton ---- */
		if
		:: atomic { tail == me + 1 && pending == 0 && locked == 1 -> tail = 0 };
			next = 0;
			goto cs
		:: else -> skip
		fi;
		locked = 1;                                         /* set_locked */
		if
		:: next == 0 -> (nnext[me] != 0); next = nnext[me]  /* wait_for_next */
		:: else -> skip
		fi;
		nlocked[next - 1] = 1;                              /* pass the MCS baton */
		/* ---- pv_kick_node: defer the kick of a halted successor ---- */
		if
		:: atomic { nstate[next - 1] == HALTED -> nstate[next - 1] = HASHED };
			locked = SLOW;
			assert(hlock == 0);                         /* pv_hash */
			hlock = 1;
			hnode = next
		:: else -> skip
		fi;
		next = 0;

cs:		/* ---- critical section ---- */
		incs++;
		assert(incs == 1);
		incs--;

		/* ---- pvspin_pvqspinlock_unlock ---- */
		if
		:: atomic { locked == 1 -> locked = 0 }             /* fast path cmpxchg8 1 -> 0 */
		:: else ->
			assert(locked == SLOW);                     /* unlock slow path */
			assert(hlock == 1 && hnode != 0);           /* pv_unhash finds it */
			d_step { old = hnode; hlock = 0; hnode = 0 };
			locked = 0;                                 /* store-release 0 */
			pv_kick(old - 1);
			old = 0
		fi;
		round++
	od;
	ndone++
}

/* No lost wakeup: every vCPU eventually completes all its acquisitions. */
ltl live { <> (ndone == NCPU) }

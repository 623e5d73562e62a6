/*
 * spinpark.pml - Promela model of the park/wake protocol of pvspin's
 * spin-then-park lock (include/pvspin/spinpark.h, src/lock/spinpark.c),
 * with the unlocker's StoreLoad reordering of x86-TSO and the
 * membarrier(2) that the parker runs against it.
 *
 * NTHR threads (2 or 3, default 3) each take and release the one lock
 * ROUNDS times (default 1).  Every statement is one atomic step of the
 * code: a load, a store, or one read-modify-write (cmpxchg).  Between any
 * two steps a thread may be preempted for any time (interleaving).
 *
 * The word (a scaled-down copy of the real layout, _SP_* in spinpark.h):
 *   bits 0-1 locked (0 free, 1 locked, 2 handed off), bits 2-4 spinners,
 *   bit 5 STARVING, bit 6 WOKEN, bit 7 ARMED, bits 8-9 parked.  ARMED and
 *   parked are the model's "upper half" (the unlock's load16).  The spin
 *   budget (bits 16-18) is left out: it only sets how long a spin lasts,
 *   and every spin of the model may give up at any read.
 *
 * Memory: every cmpxchg is a locked instruction (drains the thread's
 * store buffer, then is atomic on the word).  The only plain store of the
 * protocol is the unlock's store of 0 into the locked byte: it goes into
 * the unlocker's store buffer sb[] and reaches memory at any later time
 * (process `drainer`), or when the unlocker runs its next locked
 * instruction.  The unlocker's load of the word after its store reads its
 * own buffered locked byte (store forwarding) and the rest of the word
 * from memory: the StoreLoad reordering of x86-TSO (and of C11: a
 * store-release followed by a relaxed load).  Every other load reads
 * memory.  pvspin_plat_fence_heavy() (membarrier PRIVATE_EXPEDITED) is
 * one step of the parker that drains every store buffer: the point during
 * the call at which every other thread runs a full barrier (see README.md
 * for why one point stands for all CPUs' barriers here).
 * pvspin_plat_fence_full() (mfence) drains the thread's own store buffer;
 * the fetch_or that sets ARMED is a locked instruction like a cmpxchg.
 *
 * futex: FUTEX_WAIT(word, v) is one step - if the word != v, return at
 * once, else sleep (compare-and-sleep under the kernel's bucket lock); a
 * sleeper runs again only when a FUTEX_WAKE picks it.  FUTEX_WAKE(1) is
 * one step that wakes one sleeper of the word, any one, if there is one.
 * The real sleep's timeout (1 ms, a backstop) is NOT modelled unless
 * SLEEP_TIMEOUT is defined (a variant for the safety checks only).
 *
 * Properties:
 *   mutual exclusion    assert(incs == 1) in the critical section, and the
 *                       protocol's own claims (asserts below);
 *   no lost wake-up     safety mode (pan -DSAFETY): an end state where a
 *                       thread sleeps for ever is an invalid end state;
 *                       liveness (pan -a -f): ltl live, every thread
 *                       finishes all its rounds under weak fairness.
 *
 * Without switches this is the code as it is (commit c54ba5c and later:
 * no unregistered first spin, at most CAP registered spinners, an unlock
 * that reads the upper half first and wakes only when nobody spins and
 * no WOKEN is set (the code's sp_spinners_low(): with CAP <= 2 that is
 * "nobody spins"; with more CPUs it also wakes while fewer than CAP / 2
 * spin, which adds wake-ups and removes none), sp_take clearing WOKEN, sp_park not sleeping on
 * WOKEN; the sticky ARMED bit: sp_park loads the word and, unless ARMED,
 * runs sp_arm = membarrier then fetch_or(ARMED), then reloads; the
 * unlock's load16 enters unlock_wake on parked != 0 or ARMED, and
 * unlock_wake runs a full fence and reloads before it decides), and it
 * PASSES.  Switches (each file test/model/spinpark_*.pml sets some,
 * README.md):
 *   DROP_WAKE       MUTATION (a): the unlock sets WOKEN but never calls
 *                   FUTEX_WAKE
 *   NO_MEMBARRIER   MUTATION (b): sp_arm skips pvspin_plat_fence_heavy()
 *                   (sets ARMED without the membarrier); with NO_ARMED:
 *                   the parker skips it
 *   SLEEP_ON_WOKEN  MUTATION (c): sp_park sleeps on a word with WOKEN set
 *                   (the code before 4bdbb22)
 *   TAKE_KEEPS_WOKEN MUTATION (d): sp_take leaves WOKEN set (the code
 *                   before c62d924)
 *   WAKE_ON_WOKEN   control (e): the unlock wakes one even when WOKEN is
 *                   set (more wake-ups than needed: not a bug)
 *   GIVEUP_NO_FENCE MUTATION (f), with NO_ARMED: a spinner that was
 *                   counted in `parked` already (a woken parker spinning
 *                   again) gives up and parks without the heavy fence:
 *                   its give-up RMW counted nobody new, so "no count, no
 *                   fence" (safe under WAKE_WITH_SPINNERS, not under the
 *                   spinner rule).  Without NO_ARMED: such a parker would
 *                   skip sp_arm, and it is asserted that it never needs
 *                   to (its own first park set ARMED: what (f) skipped is
 *                   what the code skips now)
 *   STALE_SPINNERS  MUTATION (g): the unlock decides "a spinner will take
 *                   the lock" from the word it read before its release
 *                   store, not from the load after it
 *   WAKE_WITH_SPINNERS control: the unlock wakes one whether or not a
 *                   thread spins (the rule before 4bdbb22)
 *   WAKE_NO_FENCE   MUTATION (h): unlock_wake trusts the word it reads
 *                   without the full fence (its buffered release may be
 *                   invisible to a parker that skipped membarrier)
 *   ARMED_EARLY     sp_arm sets ARMED before the membarrier instead of
 *                   after it (README.md: harmless, a passing control)
 *   ARMED_AT_START  the word starts ARMED: no parker ever runs membarrier
 *   FAST_PARKED_ONLY MUTATION (j) with ARMED_AT_START: the unlock's load16
 *                   enters unlock_wake only on parked != 0, not on ARMED
 *   HOLDER_ARMS     a holder may set ARMED (a locked fetch_or, no
 *                   membarrier) in any critical section: spinpark.c's
 *                   sp_meter() after a spinning acquisition
 *   WAITER_ARMS     MUTATION (k): a waiter that does not hold the lock
 *                   may set ARMED without a membarrier (rejected: a
 *                   lost wake-up; what makes HOLDER_ARMS safe is that
 *                   no unlock runs meanwhile)
 *   NO_ARMED        the protocol before c54ba5c: every counted parker runs
 *                   membarrier, the unlock enters unlock_wake only on
 *                   parked != 0 and reads the word there without a fence;
 *                   no ARMED bit
 *   SC_UNLOCK       the unlock's store goes straight to memory (no store
 *                   buffer): with NO_MEMBARRIER shows that the fence is
 *                   needed only for the StoreLoad reordering
 *   SLEEP_TIMEOUT   a sleeper may also wake by itself (timeout, EINTR)
 *   UNFAIR_CAS      the unlock slow path's cmpxchg loop step by step
 *                   (default: its successful round as one step; pan's
 *                   weak fairness cannot say that a retried cmpxchg
 *                   eventually wins, README.md)
 *   CAP             registered spinners allowed besides the holder,
 *                   sp_spinner_cap() = min(spin_cpus - 1, 4) (default 1:
 *                   a 2-CPU machine)
 */
#ifndef NTHR
#define NTHR 3
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif
#ifndef CAP
#define CAP 1
#endif

#define LK_MASK   3
#define HANDOFF   2
#define SPIN_ONE  4
#define SPIN_MASK 28
#define STARV     32
#define WOKEN     64
#define ARMED     128
#define PARK_ONE  256

#define LK(x)       ((x) & LK_MASK)
#define SPINNERS(x) (((x) & SPIN_MASK) / SPIN_ONE)
#define PARKED(x)   ((x) / PARK_ONE)

/* pvspin_spinpark_unlock_wake's condition besides parked != 0: no WOKEN,
 * no registered spinner (a spinner will take the lock). */
#if defined(WAKE_ON_WOKEN) && defined(WAKE_WITH_SPINNERS)
#define WAKE_OK(x)  (1)
#elif defined(WAKE_ON_WOKEN)
#define WAKE_OK(x)  (SPINNERS(x) == 0)
#elif defined(WAKE_WITH_SPINNERS)
#define WAKE_OK(x)  (!((x) & WOKEN))
#else
#define WAKE_OK(x)  (!((x) & (WOKEN | SPIN_MASK)))
#endif

#ifdef ARMED_AT_START
short w = ARMED;     /* the lock word in memory */
#else
short w;             /* the lock word in memory */
#endif
bit sb[3];           /* thread i's store buffer holds "locked byte = 0" */
bit asleep[3];       /* thread i sleeps in FUTEX_WAIT on the word */
byte incs;           /* threads in the critical section */
byte ndone;          /* threads that finished all rounds */

/* This thread's view of the word: its own buffered store of the locked
 * byte (0) is forwarded, the rest comes from memory. */
#define MYVIEW (sb[me] -> (w & ~LK_MASK) : w)

/* A locked instruction first drains this thread's store buffer. */
inline drain_me()
{
	if
	:: sb[me] -> w = w & ~LK_MASK; sb[me] = 0
	:: else -> skip
	fi
}

/* pvspin_plat_cmpxchg32(&lock->val, &v, nv): ok, or v = the word seen. */
inline cas()
{
	d_step {
		drain_me();
		if
		:: w == v -> w = nv; ok = 1
		:: else -> v = w; ok = 0
		fi
	}
}

/* sp_take(lock, w, &v, spinning, e): (p, s, 0|2) -> (p - counted,
 * s - spinning, 1), clearing STARVING if we own it and WOKEN if counted
 * (a parked waiter runs: the next unlock may wake another). */
inline sp_take(spinning)
{
	assert(LK(v) == 0 || (LK(v) == HANDOFF && sowner));
	d_step {
		nv = v - (counted -> PARK_ONE : 0) - (spinning -> SPIN_ONE : 0);
		nv = (nv & ~LK_MASK) | 1;
		if
		:: sowner -> nv = nv & ~STARV
		:: else -> skip
		fi;
#ifndef TAKE_KEEPS_WOKEN
		if
		:: counted -> nv = nv & ~WOKEN
		:: else -> skip
		fi
#else
		skip                                    /* MUTATION (d) */
#endif
	}
	cas();
	if
	:: ok -> d_step { counted = 0; sowner = 0; late = 0; t0 = 0; ok = 0; v = 0; nv = 0 };
		goto cs
	:: else -> skip
	fi
}

/* membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED): every store buffer is
 * drained at one point of the call.  With one lock at most one store is
 * ever buffered (asserted), so one point stands for every CPU's. */
inline membarrier()
{
	d_step {
		assert(sb[0] + sb[1] + sb[2] <= 1);
		if :: sb[0] -> w = w & ~LK_MASK; sb[0] = 0 :: else -> skip fi;
		if :: sb[1] -> w = w & ~LK_MASK; sb[1] = 0 :: else -> skip fi;
		if :: sb[2] -> w = w & ~LK_MASK; sb[2] = 0 :: else -> skip fi
	}
}

/* sp_arm (src/lock/spinpark.c), membarrier available: the heavy fence,
 * then fetch_or(ARMED), a locked RMW, while we are counted. */
inline sp_arm()
{
#if defined(ARMED_EARLY)
	d_step { drain_me(); w = w | ARMED };          /* fetch_or first */
	membarrier()
#elif defined(NO_MEMBARRIER)
	d_step { drain_me(); w = w | ARMED }           /* MUTATION (b) */
#else
	membarrier();                                   /* pvspin_plat_fence_heavy */
	d_step { drain_me(); w = w | ARMED }           /* fetch_or32(ARMED) */
#endif
}

/* FUTEX_WAKE(word, 1): wake one sleeper, any one, if there is one. */
inline futex_wake1()
{
	atomic {
		if
		:: asleep[0] -> asleep[0] = 0
		:: asleep[1] -> asleep[1] = 0
		:: asleep[2] -> asleep[2] = 0
		:: else -> skip
		fi
	}
}

active [NTHR] proctype thr()
{
	byte me = _pid;
	byte round;
	short v, nv;
	bit ok;
	bit counted;   /* struct sp_waiter .counted: counted in `parked` */
	bit sowner;    /* .starving_owner: we set STARVING */
	bit t0;        /* .t0 != 0: parked once in this lock call */
	bit late;      /* now_ns() - t0 > SP_STARVE_NS (stays true) */
	bit owner, left;
#ifdef GIVEUP_NO_FENCE
	bit gaveup;    /* came to sp_park from a give-up that counted nobody */
#define GAVEUP(x) gaveup = x
#else
#define GAVEUP(x) skip
#endif
#ifdef STALE_SPINNERS
	byte fastspin; /* spinners in the unlock's first load32 */
#endif

	assert(me < NTHR && NTHR <= 3);
	do
	:: round == ROUNDS -> break
	:: else ->
		/* ---- pvspin_spinpark_lock: cmpxchg8 of the locked byte 0 -> 1 ---- */
		d_step {
			drain_me();
			if
			:: LK(w) == 0 -> w = w | 1; ok = 1
			:: else -> ok = 0
			fi
		}
		if
		:: ok -> ok = 0; goto cs
		:: else -> skip
		fi;
		assert(sb[me] == 0);

		/* ---- lock_slowpath: no unregistered first spin; sp_spin ---- */
spin:
#ifdef WAITER_ARMS
		/* MUTATION (k): a waiter that does not hold the lock sets ARMED
		 * without a membarrier */
		if
		:: d_step { drain_me(); w = w | ARMED }
		:: skip
		fi;
#endif
		v = w;                                          /* load32 */
		if
		:: counted && t0 && !late -> late = 1           /* waited past SP_STARVE_NS */
		:: true -> skip
		fi;
join:		/* join the spinners, or take a free lock on the way */
		if
		:: LK(v) == 0 -> sp_take(0); goto join
		:: else -> skip
		fi;
		owner = late && !(v & STARV);
		if
		:: ((v & STARV) && !owner) || SPINNERS(v) >= CAP + owner ->
			owner = 0; goto count                   /* sp_take_or_count */
		:: else -> skip
		fi;
		d_step {
			nv = v + SPIN_ONE;
			if :: counted -> nv = nv & ~WOKEN :: else -> skip fi;
			if :: owner -> nv = nv | STARV :: else -> skip fi
		}
		cas();
		if
		:: ok -> d_step { sowner = owner; owner = 0; v = nv; nv = 0; ok = 0; left = 1 }
		:: else -> goto join
		fi;
spinloop:	/* the registered spin */
		if
		:: LK(v) == 0 || (LK(v) == HANDOFF && sowner) ->     /* sp_ours */
			sp_take(1); goto spinloop
		:: else -> skip
		fi;
		if
		:: LK(v) == 1 && left ->
			/* wait32(sp_not_plain_locked, left): done, or the loops ran out */
			if
			:: atomic { LK(w) != 1 -> v = w };
				if :: left = 0 :: skip fi
			:: atomic { LK(w) == 1 -> v = w }; left = 0
			fi;
			goto spinloop
		:: else -> skip
		fi;
		/* give up: (p, s, l) -> (p + 1 unless counted, s - 1, l), the
		 * owner drops STARVING */
		assert(LK(v) != HANDOFF || !sowner);
		d_step {
			nv = v - SPIN_ONE;
			if :: !counted -> nv = nv + PARK_ONE :: else -> skip fi;
			if :: sowner -> nv = nv & ~STARV :: else -> skip fi
		}
		cas();
		if
		:: ok -> d_step { GAVEUP(counted); counted = 1; sowner = 0; left = 0; ok = 0 }; goto park
		:: else -> goto spinloop
		fi;

count:		/* ---- sp_take_or_count ---- */
		if
		:: LK(v) == 0 -> sp_take(0); goto count
		:: else -> skip
		fi;
		d_step {
			nv = v;
			if
			:: !counted -> nv = nv + PARK_ONE
			:: else -> nv = nv & ~WOKEN
			fi
		}
		if
		:: nv == v -> skip                              /* nothing to change */
		:: else ->
			cas();
			if
			:: ok -> ok = 0
			:: else -> goto count
			fi
		fi;
		counted = 1;

park:		/* ---- sp_park ---- */
		t0 = 1;
		assert(counted && !sowner);
		d_step { v = 0; nv = 0 };
#ifdef NO_ARMED
#if defined(NO_MEMBARRIER)
		skip;                                           /* MUTATION (b) */
#elif defined(GIVEUP_NO_FENCE)
		if
		:: gaveup -> skip                               /* MUTATION (f) */
		:: else -> membarrier()
		fi;
#else
		membarrier();                                   /* pvspin_plat_fence_heavy */
#endif
#else
		/* fenced = counted && ((v & ARMED) || sp_arm(lock)) */
		v = w;                                          /* load32 acquire */
		if
		:: v & ARMED -> skip                            /* ARMED: no membarrier */
#ifdef GIVEUP_NO_FENCE
		:: else -> assert(!gaveup); sp_arm()           /* (f): a counted give-up finds ARMED */
#else
		:: else -> sp_arm()
#endif
		fi;
#endif
		GAVEUP(0);
		v = w;                                          /* re-check, load32 acquire */
recheck:
		if
		:: LK(v) == 0 -> sp_take(0); goto recheck
		:: else -> skip
		fi;
		assert(LK(v) <= HANDOFF && PARKED(v) > 0);      /* sp_word_corrupt */
		assert(LK(v) != HANDOFF || (v & STARV));
#ifndef SLEEP_ON_WOKEN
		if
		:: v & WOKEN -> v = 0; goto spin                /* do not sleep on WOKEN: go round */
		:: else -> skip
		fi;
#endif
		/* park32: FUTEX_WAIT(word, v), no timeout */
		atomic {
			if
			:: w == v -> asleep[me] = 1
			:: else -> skip                         /* word changed: EAGAIN */
			fi;
			v = 0
		}
#ifdef SLEEP_TIMEOUT
		if
		:: (asleep[me] == 0)                            /* woken */
		:: atomic { asleep[me] -> asleep[me] = 0 }      /* timed out, EINTR */
		fi;
#else
		(asleep[me] == 0);                              /* until FUTEX_WAKE picks us */
#endif
		goto spin;

cs:		/* ---- critical section ---- */
		incs++;
		assert(incs == 1);
#ifdef HOLDER_ARMS
		/* sp_meter: a holder sets ARMED without a membarrier (the code
		 * does it after a spinning acquisition; here any holder may, at
		 * any acquisition: a superset) */
		if
		:: d_step { drain_me(); w = w | ARMED }          /* fetch_or32, locked */
		:: skip
		fi;
#endif
		incs--;

		/* ---- pvspin_spinpark_unlock ---- */
		v = MYVIEW;                                     /* load32 */
#ifdef STALE_SPINNERS
		fastspin = SPINNERS(v);
#endif
		if
		:: LK(v) == 1 && !(v & STARV) -> goto release
		:: else -> skip
		fi;
uslow:		/* pvspin_spinpark_unlock_slowpath */
#ifdef UNFAIR_CAS
		assert(LK(v) == 1);                             /* no misuse report */
		if
		:: !(v & STARV) -> goto release
		:: else -> skip
		fi;
		nv = (v & ~LK_MASK) | HANDOFF;                 /* hand off: (p, s, 1) -> (p, s, 2) */
		cas();
		if
		:: ok -> ok = 0; goto unlocked
		:: else -> goto uslow
		fi;
#else
		/* The cmpxchg loop as one step: a failed cmpxchg only re-reads v,
		 * so this is the loop's last, successful, round (a retried
		 * cmpxchg eventually wins: README.md, fairness). */
		d_step {
			assert(sb[me] == 0);
			v = w;
			assert(LK(v) == 1);                     /* no misuse report */
			if
			:: v & STARV -> w = (v & ~LK_MASK) | HANDOFF; ok = 1   /* (p, s, 1) -> (p, s, 2) */
			:: else -> ok = 0                       /* STARVING dropped: release */
			fi
		}
		if
		:: ok -> ok = 0; goto unlocked
		:: else -> goto release
		fi;
#endif
release:	/* pvspin_spinpark_release */
		assert(sb[me] == 0);
#ifdef SC_UNLOCK
		w = w & ~LK_MASK;                               /* store8 0, visible at once */
#else
		sb[me] = 1;                                     /* store8 0, into the store buffer */
#endif
		/* fence_light (nothing); load16 of the upper half (ARMED, parked:
		 * other bytes than the buffered one, so from memory); unlock_wake
		 * only if someone is parked or the lock is ARMED */
		v = w & ~(LK_MASK | SPIN_MASK | STARV | WOKEN);
		/* then pvspin_spinpark_unlock_wake: the caller's load32 is not
		 * used; fence_full, then load32.  One step: other threads' steps
		 * between the drain and the load are the runs in which the
		 * drainer drained the store before. */
#if defined(NO_ARMED) || defined(WAKE_NO_FENCE)
#define WAKE_LOAD v = MYVIEW                            /* load32, no fence */
#else
#define WAKE_LOAD d_step { drain_me(); v = w }
#endif
		if
#if defined(NO_ARMED) || defined(FAST_PARKED_ONLY)
		:: PARKED(v) != 0 -> WAKE_LOAD
#else
		:: PARKED(v) != 0 || (v & ARMED) -> WAKE_LOAD
#endif
		:: else -> goto unlocked
		fi;
#ifdef STALE_SPINNERS
		v = (v & ~SPIN_MASK) | (fastspin * SPIN_ONE);  /* MUTATION (g) */
#endif
wake:		/* unlock_wake's loop: (p, 0, *), p > 0, no WOKEN */
		if
		:: PARKED(v) != 0 && WAKE_OK(v) ->
			nv = v | WOKEN;
			cas();
			if
			:: ok -> ok = 0;
#ifndef DROP_WAKE
				futex_wake1()                   /* unpark32(&lock->val, 1) */
#else
				skip                            /* MUTATION: no FUTEX_WAKE */
#endif
			:: else -> goto wake
			fi
		:: else -> skip
		fi;
unlocked:
		v = 0;
#ifdef STALE_SPINNERS
		fastspin = 0;
#endif
		d_step { nv = 0; round++ }
	od;
	ndone++
}

/* The store buffers drain at any time. */
active proctype drainer()
{
end:	do
	:: atomic { sb[0] -> w = w & ~LK_MASK; sb[0] = 0 }
	:: atomic { sb[1] -> w = w & ~LK_MASK; sb[1] = 0 }
	:: atomic { sb[2] -> w = w & ~LK_MASK; sb[2] = 0 }
	od
}

/* No lost wake-up: every thread eventually completes all its rounds. */
ltl live { <> (ndone == NTHR) }

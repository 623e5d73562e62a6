/*
 * spinpark.pml - Promela model of the park/wake protocol of pvspin's
 * spin-then-park lock (include/pvspin/spinpark.h, src/lock/spinpark.c),
 * as of commits 9865607 and 6006693, and without the meter and slice
 * mode (removed 2026-12-03; EXTENDED took ARMED's bit): the unlock
 * releases the lock by one
 * atomic subtraction from the word (lock xadd: it cannot fail), which
 * returns the word it replaced; where a parked waiter is to be woken,
 * the slow path sets WOKEN by a cmpxchg before the release, while it
 * still holds the lock, and an unlock whose subtraction returns a word
 * that counts a parker that came after its decision wakes one without
 * WOKEN.  After the subtraction it touches no byte of the lock (only
 * FUTEX_WAKE names its address).  With the revocation of a stale
 * hand-off (081bc16, 18985ac: sp_revoke_handoff): a parked waiter whose
 * sleep began on a handed-off word and timed out, and that finds the
 * same word at its next re-check, takes the lock as the starving owner
 * would, (p, s, 2) -> (p - 1, s, 1) clearing STARVING; the owner, when it
 * reads a word without STARVING, spins on as any waiter.
 *
 * With the store release (2026-12-05, the code in the working tree then;
 * the default here): where the process has the asymmetric fence
 * (membarrier registered: park_seq's bit 0 clear), the unlock reads
 * park_seq (s1, acquire) and then the word, decides as above, and
 * releases by a PLAIN STORE of 0 to the locked byte (store8, release),
 * then, after a compiler barrier only, reads park_seq again (s2): if
 * it moved, or the slow path set WOKEN, it FUTEX_WAKEs one.  A counted
 * waiter about to sleep adds 2 to park_seq (fetch_add, release) and
 * calls membarrier() before its FUTEX_WAIT.  An unlock that has to clear
 * EXTENDED releases by the old lock xadd.  -DRMW_RELEASE is the
 * protocol of a process without the fence (bit 0 set: every release a
 * lock xadd; the sleepers' adds are then read by nobody, so they are
 * left out): the model of 3c1c80f, with exactly its states.
 *
 * NTHR threads (2 or 3, default 3) each take and release the one lock
 * ROUNDS times (default 1).  Every statement is one atomic step of the
 * code: a load, or one read-modify-write (cmpxchg, fetch_or, fetch_add).  Between
 * any two steps a thread may be preempted for any time (interleaving).
 *
 * The word (a scaled-down copy of the real layout, _SP_* in spinpark.h):
 *   bits 0-1 locked (0 free, 1 locked, 2 handed off), bits 2-4 spinners,
 *   bit 5 STARVING, bit 6 WOKEN, bit 7 EXTENDED, bits 8-10 parked.  Left
 *   out: the spin budget (bits 16-18: it only sets how long a spin lasts,
 *   and every spin of the model may give up at any read) and the reserved
 *   bits (a corrupted word is asserted never to happen).  EXTENDED is set
 *   by a holder that took the lock in the slow path when the kernel
 *   offers the time-slice extension (sp_hold_begin: fetch_or), which the
 *   model chooses freely at each such acquisition; the unlock clears it
 *   with the release.
 *
 * Memory, RMW_RELEASE: every write of the word in the code is an RMW
 * (cmpxchg8 of the locked byte in the lock fast path, fetch_add32 for
 * the release, cmpxchg32 everywhere else, fetch_or for EXTENDED); there
 * is no plain store and no fence.  All
 * accesses are to the one word, so the model is sequentially consistent:
 * for a single location, coherence (every thread sees the word's writes
 * in one order, its own reads never going back in it) leaves no
 * reordering that an interleaving would not show (README.md).
 *
 * Memory, the store release (x86-TSO where it matters): the release
 * store8 goes into the unlocker's store buffer sb[me] (a step of its
 * own, after the load or cmpxchg before it) and reaches memory, as a
 * byte store into the word as it is then, at any later step (process
 * `drainer`), at the latest at that thread's next locked instruction (its
 * next lock attempt's cmpxchg8: no other RMW of the thread can come
 * first, asserted in cas), at its FUTEX_WAKE (the kernel's smp_mb()
 * before futex_wake looks for waiters), or at a membarrier().  Other
 * threads see only memory; the unlocker reads the word no more before
 * its next lock attempt, so store forwarding never comes up.  With one
 * lock at most one store is buffered at a time (the next holder needs
 * it in memory).  membarrier() (MEMBARRIER_CMD_PRIVATE_EXPEDITED) is
 * one step that drains every store buffer.  park_seq is a shared
 * counter written only by RMWs (no buffer); its value modulo 2^31 is
 * left out, since only "moved since s1" is asked: sm[i] (README.md).
 * Every other access is to the one word and an RMW or a load, as
 * above.
 *
 * futex: FUTEX_WAIT(word, v) is one step - if the word != v, return at
 * once, else sleep (compare-and-sleep under the kernel's bucket lock); a
 * sleeper runs again only when a FUTEX_WAKE picks it.  FUTEX_WAKE(1) is
 * one step that wakes one sleeper of the word, any one, if there is one;
 * it names the address but reads nothing of the word.  The real sleep's
 * timeout (1 ms doubling to 16 ms, a backstop) is NOT modelled unless
 * SLEEP_TIMEOUT is defined; HANDOFF_TIMEOUT lets only a sleep that began
 * on a handed-off word time out (the code's 1 ms sleep there, after
 * which it may revoke the hand-off).  Without either no sleep times out,
 * handoff_word stays 0 and the revocation is unreachable: the model
 * is then the code before 081bc16, with the same states.
 *
 * Properties:
 *   mutual exclusion    assert(incs == 1) in the critical section, and the
 *                       protocol's own claims (asserts below), among them
 *                       a word whose fields stay in range at every write
 *                       (WORD_OK) and that ends free with every count 0
 *                       and no flag when all threads are done;
 *   no lost wake-up     safety mode (pan -DSAFETY): an end state where a
 *                       thread sleeps for ever is an invalid end state;
 *                       liveness (pan -a -f): ltl live, every thread
 *                       finishes all its rounds under weak fairness;
 *   nothing after the release
 *                       ghost rel[me]: set by the RMW that releases the
 *                       lock (the subtraction, or the hand-off cmpxchg),
 *                       cleared when that unlock
 *                       returns; every access of the word by the code
 *                       (load, RMW, FUTEX_WAIT's compare) asserts it
 *                       clear (ACC).  Ghost freed: the unlock of the last
 *                       critical section of the run frees the lock (as a
 *                       program may, pthread_spin_destroy / munmap), and
 *                       every access asserts it is not freed.
 *   the hand-off        each hand-off (1 -> 2) is taken by exactly one
 *                       thread, its owner or a revoker, never both (ghost
 *                       hpend: set by the hand-off, asserted and cleared
 *                       by the take of the 2, asserted clear by the next
 *                       hand-off); sp_park decides to revoke only on the
 *                       hand-off that its timed-out sleep began on and
 *                       that nobody has taken since (ghost hsl[], asserted
 *                       at the load the decision is taken on: the owner
 *                       had at least that sleep to take it).
 *
 * Without switches this is the code as it is, and it PASSES.  Switches
 * (each file test/model/spinpark_*.pml sets some, README.md):
 *   RMW_RELEASE     the release is always the lock xadd (a process
 *                   without the fence; the model of 3c1c80f)
 *   NO_MEMBARRIER   MUTATION (s): the sleeper adds to park_seq but skips
 *                   the membarrier before its FUTEX_WAIT
 *   NO_SEQ_CHECK    MUTATION (t): the unlock never reads park_seq after
 *                   its store (no wake-up on a moved sequence)
 *   SEQ_AFTER_WORD  MUTATION (u): the unlock reads s1 after the word,
 *                   not before it (fast and slow path)
 *   REACH_BUFFERED_SLEEP, REACH_RACED_WAKE  reachability (must fail): a
 *                   sleep begins while a release store is buffered; a
 *                   wake-up called for only by the moved park_seq finds
 *                   a sleeper
 *   WAKE_NO_BARRIER (v): FUTEX_WAKE does not drain the waker's store
 *                   buffer (a kernel without futex_wake's smp_mb(): the
 *                   protocol relies on it, README.md)
 *   DROP_WAKE       MUTATION (a): the slow path sets WOKEN but never
 *                   calls FUTEX_WAKE (the fast path's wake-up of a late
 *                   parker, pvspin_spinpark_unlock_released, is kept:
 *                   mutant (n) drops that one)
 *   SLEEP_ON_WOKEN  MUTATION (c): sp_park sleeps on a word with WOKEN set
 *                   (the code before 4bdbb22)
 *   TAKE_KEEPS_WOKEN MUTATION (d): sp_take leaves WOKEN set (the code
 *                   before c62d924)
 *   WAKE_ON_WOKEN   control (e): the release wakes one even when WOKEN is
 *                   set (more wake-ups than needed: not a bug)
 *   WAKE_WITH_SPINNERS control: the release wakes one whether or not a
 *                   thread spins (the rule before 4bdbb22)
 *   STALE_WAKE      MUTATION (g): the unlock slow path decides the
 *                   wake-up once, from the word it was entered with,
 *                   and keeps that decision: WOKEN
 *                   set on whatever word its cmpxchg finds, and the word
 *                   its subtraction returns not looked at (a waiter that
 *                   counted itself since is not woken): the code decides
 *                   again after a failed cmpxchg and on the returned word
 *   FAST_IGNORES_OLD MUTATION (n): the fast path does not look at the
 *                   word its subtraction returns (no
 *                   pvspin_spinpark_unlock_released): a parker that
 *                   counted itself between the unlock's load and its
 *                   release is not woken
 *   OLD_UNLOCK      MUTATION (l): the unlock before 61e9ec6 (store8 0,
 *                   then load16 of the upper half; unlock_wake: load32,
 *                   cmpxchg WOKEN, FUTEX_WAKE), in this SC model (the
 *                   membarrier that it needed against TSO is left out):
 *                   rejected by the ghost properties only
 *   NO_END_CHECK    no check of the word when all threads are done (for
 *                   mutant (d), which leaves WOKEN set: README.md)
 *   NO_REL_GHOST    check only the ghost `freed`, not rel[] (with
 *                   OLD_UNLOCK: the use after free itself, README.md)
 *   UNFAIR_CAS      the unlock slow path's loop step by step, with its
 *                   hand-off and WOKEN cmpxchgs (default: its last round
 *                   as one step; pan's weak fairness cannot say that a
 *                   retried cmpxchg eventually wins, README.md)
 *   HANDOFF_TIMEOUT a sleep that began on a handed-off word may time
 *                   out (ETIMEDOUT): the revocation becomes reachable;
 *                   every other sleep still lasts until a FUTEX_WAKE, so
 *                   a lost wake-up still shows (safety and liveness)
 *   SLEEP_TIMEOUT   any sleep may time out (ETIMEDOUT)
 *   SPURIOUS        a sleep may also return 0 by itself (EINTR, a stray
 *                   FUTEX_WAKE): handoff_word = 0 (safety only: endless
 *                   spurious returns are a livelock no kernel makes)
 *   GONE_OWNER      the word starts handed off, (1, 1, 2) | STARVING, to
 *                   an owner that never runs (a fork child's copy of the
 *                   word, test_spinpark_handoff's stuck word scaled
 *                   down); its counts stay, the run must end with
 *                   (1, 1, 0) (WOKEN allowed: set for its parked count).
 *                   With CAP <= 2 its spinner count stops every wake-up
 *                   (sp_spinners_low), so it needs SLEEP_TIMEOUT
 *   REVOKE_KEEPS_STARVING MUTATION (o): the revoker's take keeps STARVING
 *   REVOKE_ANY_HANDOFF MUTATION (p): sp_park revokes any handed-off word
 *                   after a sleep that timed out on a hand-off, without
 *                   comparing it with handoff_word
 *   NO_REVOKE       MUTATION (r): no sp_revoke_handoff (the code before
 *                   081bc16)
 *   OWNER_KEEPS_ROLE control (q): the owner keeps starving_owner when it
 *                   finds STARVING cleared
 *   STRICT_OWNER    also assert that STARVING is cleared only by the
 *                   thread whose join set it or by a revoker (ghost sown;
 *                   the code does not have this property: README.md)
 *   REVOKE_TAKE_CHECK also assert hsl[] at every revoking take, the
 *                   retries of sp_revoke_handoff's loop included (the
 *                   code does not have this property: README.md)
 *   FREE_SLEEP_CHECK also assert that no sleep begins on a free word (the
 *                   code does not have this property: README.md)
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
#define EXT       128
#define PARK_ONE  256
#define PARK_MASK 1792

/* _SP_UNLOCK_SLOW_MASK: a locked byte other than 1, STARVING, EXTENDED,
 * parked waiters (the reserved bits are not modelled) */
#define SLOW_MASK (LK_MASK | STARV | EXT | PARK_MASK)

#define LK(x)       ((x) & LK_MASK)
#define SPINNERS(x) (((x) & SPIN_MASK) / SPIN_ONE)
#define PARKED(x)   (((x) & PARK_MASK) / PARK_ONE)

/* GONE_OWNER: the word starts handed off, (1, 1, 2) | STARVING, to a
 * starving owner that never runs (a thread of the parent in a fork
 * child's copy of the word): counted as parked and as a spinner, as every
 * starving owner is; those counts stay (GONE_END at the end). */
#ifdef GONE_OWNER
#define GONE       1
#define GONE_WORD  (PARK_ONE | SPIN_ONE | STARV | HANDOFF)
#define GONE_END   (PARK_ONE | SPIN_ONE)
#else
#define GONE       0
#define GONE_END   0
#endif

/* Every field in range (no borrow or carry out of a count). */
#define WORD_OK(x)  ((x) >= 0 && (x) < 8 * PARK_ONE && LK(x) <= HANDOFF && \
		     SPINNERS(x) <= NTHR + GONE && PARKED(x) <= NTHR + GONE)

/* sp_spinners_low(v): no spinner, or fewer than half
 * the allowed ones (with CAP <= 2: no spinner). */
#define SPIN_LOW(x) (SPINNERS(x) == 0 || 2 * SPINNERS(x) < CAP)

/* sp_should_wake(v): parked != 0, no WOKEN, few
 * spinners (a spinner will take the lock). */
#if defined(WAKE_ON_WOKEN) && defined(WAKE_WITH_SPINNERS)
#define WAKE_OK(x)  (1)
#elif defined(WAKE_ON_WOKEN)
#define WAKE_OK(x)  (SPIN_LOW(x))
#elif defined(WAKE_WITH_SPINNERS)
#define WAKE_OK(x)  (!((x) & WOKEN))
#else
#define WAKE_OK(x)  (!((x) & WOKEN) && SPIN_LOW(x))
#endif
#define SHOULD_WAKE(x) (PARKED(x) != 0 && WAKE_OK(x))

/* CROWD (SP_CROWD in the code, 2026-12-06): an unlock that reads CROWD or
 * more parked waiters releases by the lock xadd, not the plain store, and
 * a sleeper whose last RMW on the word (its count, or its clearing of
 * WOKEN) replaced a word with CROWD or more parked skips the park
 * sequence's add and the membarrier.  Without CROWD: every slow-path
 * release without EXTENDED may be the store, every sleeper fences.
 * CROWD_PLAIN (mutant w): the sleepers skip as with CROWD, but the
 * unlock keeps the plain store whatever it read. */
#if defined(CROWD) && !defined(CROWD_PLAIN)
#define PLAIN_OK(x) (!((x) & EXT) && PARKED(x) < CROWD)
#else
#define PLAIN_OK(x) (!((x) & EXT))
#endif

#ifndef GONE_OWNER
short w;             /* the lock word */
#else
short w = GONE_WORD; /* a fork child's copy: handed off to a thread of the parent */
#endif
bit asleep[3];       /* thread i sleeps in FUTEX_WAIT on the word */
#ifndef RMW_RELEASE
bit sb[3];           /* thread i's store buffer holds its release, store8
		      * (locked byte := 0), not yet in memory (TSO) */
byte sm[3];          /* park_seq as thread i's unlock sees it: 0 not read
		      * (outside the unlock's s1 .. s2), 1 read (s1), 2
		      * moved since (a sleeper's fetch_add came after s1).
		      * The counter itself (modulo 2^31) is left out: only
		      * "moved since s1" is ever asked, and 0 outside the
		      * window keeps dead values out of the state */
#endif
byte incs;           /* threads in the critical section */
byte ndone;          /* threads that finished all rounds */
/* ghosts */
bit rel[3];          /* thread i has released the lock in the unlock it runs */
bit freed;           /* the lock is freed: its last unlock has returned */
byte ncs;            /* critical sections entered */
#ifndef GONE_OWNER
bit hpend;           /* a hand-off is pending: set by the hand-off RMW (1 -> 2),
		      * cleared by the one take of that 2 */
#else
bit hpend = 1;
#endif
bit hsl[3];          /* thread i's last sleep began on the pending hand-off,
		      * and nobody has taken that hand-off since (a wake-up
		      * or an EAGAIN clears it) */
#ifdef STRICT_OWNER
#ifndef GONE_OWNER
byte sown;           /* 1 + the thread whose join set STARVING (0: none) */
#else
byte sown = 4;       /* the parent's thread, which never runs here */
#endif
#endif

/* Asserted at every access of the word by the code. */
#ifdef NO_REL_GHOST
#define ACC assert(!freed)
#else
#define ACC assert(!rel[me] && !freed)
#endif

#ifndef RMW_RELEASE
/* The release store reaches memory: the locked byte of the word as it is
 * now (others' RMWs since the store kept the holder's 1 there) becomes
 * 0.  A byte store: the other fields are the word's, not the unlocker's
 * copy. */
#define FLUSH(i) if :: sb[i] -> assert(LK(w) == 1 && !freed); w = w & ~LK_MASK; \
			  assert(WORD_OK(w)); sb[i] = 0 :: else -> skip fi

/* membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), pvspin_plat_fence_heavy():
 * every other thread runs a full barrier at some point of the call, which
 * drains its store buffer; with one lock at most one release store is
 * buffered at a time (the next holder needs it in memory), so one point
 * of the call stands for every CPU's barrier. */
inline membarrier()
{
	d_step {
		assert(sb[0] + sb[1] + sb[2] <= 1);
		FLUSH(0); FLUSH(1); FLUSH(2)
	}
}

/* The unlock's release: store8(&lock->locked, 0) (release) into this
 * thread's store buffer, invisible to the other threads until a flush
 * (process `drainer`, this thread's next locked instruction, or a
 * membarrier).  An access of the word for the ghosts (ACC) and the
 * release (rel[me]).  The thread reads the word no more before its next
 * lock attempt, whose cmpxchg8 drains the buffer first, so store
 * forwarding never comes up (asserted at every RMW: cas). */
#define STORE_REL  ACC; assert(LK(w) == 1 && !(w & EXT) && !sb[me]); sb[me] = 1; rel[me] = 1
#endif

/* The return of the unlock (ghosts and locals only): rel[me] cleared,
 * and the program frees the lock after the last unlock (a store release
 * still buffered reaches memory before the program's later writes, the
 * free's: TSO keeps stores in order). */
#ifndef RMW_RELEASE
#define UNLOCK_RETURN  rel[me] = 0; sm[me] = 0; \
		if :: last -> FLUSH(me); freed = 1; last = 0 :: else -> skip fi; \
		v = 0; nv = 0; round++
#else
#define UNLOCK_RETURN  rel[me] = 0; \
		if :: last -> freed = 1; last = 0 :: else -> skip fi; \
		v = 0; nv = 0; round++
#endif

#ifndef RMW_RELEASE
/* fetch_add(park_seq, 2): moved for every unlock between its s1 and s2 */
#define SEQ_ADD  if :: sm[0] == 1 -> sm[0] = 2 :: else -> skip fi; \
		 if :: sm[1] == 1 -> sm[1] = 2 :: else -> skip fi; \
		 if :: sm[2] == 1 -> sm[2] = 2 :: else -> skip fi
#ifndef NO_SEQ_CHECK
#define MOVED  (sm[me] == 2)
#else
#define MOVED  0                /* MUTATION (t): s2 not looked at */
#endif
/* After the store release: fence_light (a compiler barrier); s2 =
 * load32(park_seq) (relaxed); moved since s1 (a sleeper may have missed
 * the release), or WOKEN set by us: FUTEX_WAKE one, without WOKEN
 * (pvspin_spinpark_unlock_raced; in the slow path sp_wake_one).  The
 * load and, if there is nothing to wake, the unlock's return (ghosts
 * only) are one step. */
#ifdef REACH_RACED_WAKE
#define RACED_GHOST  raced = !wake;
#else
#define RACED_GHOST
#endif
#define S2_STEP \
		if \
		:: atomic { !(wake || MOVED) -> UNLOCK_RETURN }; goto top \
		:: atomic { wake || MOVED -> RACED_GHOST wake = 1; sm[me] = 0 }; goto unlocked \
		fi
#endif

/* pvspin_plat_cmpxchg32(&lock->val, &v, nv): ok, or v = the word seen;
 * r: this cmpxchg releases the lock (sets the ghost rel[me]).  The ghosts
 * of the hand-off: a cmpxchg that writes a 2 hands off (hpend); one that
 * replaces a 2 takes that hand-off, once (hpend), as its owner or as a
 * revoker (revk), and ends every thread's claim to have slept through it
 * (hsl[]). */
inline cas(r)
{
	d_step {
		ACC;
#ifndef RMW_RELEASE
		assert(!sb[me]);        /* no RMW with our release still buffered */
#endif
		if
		:: w == v -> assert(WORD_OK(nv));
			if
			:: LK(v) != HANDOFF && LK(nv) == HANDOFF -> assert(!hpend); hpend = 1
			:: LK(v) == HANDOFF && LK(nv) != HANDOFF ->
				assert(hpend && LK(nv) == 1); hpend = 0;
#ifdef REVOKE_TAKE_CHECK
				assert(!revk || hsl[me]);
#endif
				hsl[0] = 0; hsl[1] = 0; hsl[2] = 0
			:: else -> skip
			fi;
#ifdef STRICT_OWNER
			/* STARVING is set by its owner's join and cleared only by
			 * that owner or by a revoker */
			if
			:: (nv & STARV) && !(v & STARV) -> sown = me + 1
			:: (v & STARV) && !(nv & STARV) -> assert(revk || sown == me + 1); sown = 0
			:: else -> skip
			fi;
#endif
			w = nv; ok = 1; rel[me] = r
		:: else -> v = w; ok = 0
		fi
	}
}

/* sp_take(lock, w, &v, spinning, e): (p, s, 0|2) -> (p - counted,
 * s - spinning, 1), clearing STARVING if we own it and WOKEN if counted
 * (a parked waiter runs: the next unlock may wake another).  Then
 * sp_hold_begin: where the kernel offers the time-slice extension (the
 * model's free choice), fetch_or(EXTENDED). */
inline sp_take(spinning)
{
	assert(LK(v) == 0 || (LK(v) == HANDOFF && sowner));
	d_step {
		nv = v - (counted -> PARK_ONE : 0) - (spinning -> SPIN_ONE : 0);
		nv = (nv & ~LK_MASK) | 1;
		if
#ifndef REVOKE_KEEPS_STARVING
		:: sowner -> nv = nv & ~STARV
#else
		:: sowner && !revk -> nv = nv & ~STARV  /* MUTATION (o): the revoker keeps STARVING */
#endif
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
	cas(0);
	if
	:: ok -> d_step { counted = 0; sowner = 0; revk = 0; late = 0; t0 = 0; hw = 0; ok = 0; nv = 0;
#ifdef CROWD
		crowd = 0
#else
		skip
#endif
		};
		if
		:: d_step { ACC; w = w | EXT }          /* sp_hold_begin: fetch_or32(EXTENDED) */
		:: skip                                 /* the extension is not offered */
		fi;
		v = 0;
		goto cs
	:: else -> skip
	fi
}

/* sp_park's test for sp_revoke_handoff: v is the handed-off word that
 * our last sleep began on and timed out on (v == handoff_word: 0 or a
 * 2) */
#ifndef REVOKE_ANY_HANDOFF
#define REVOKES(x)  (LK(x) == HANDOFF && (x) == hw)
#else
#define REVOKES(x)  (LK(x) == HANDOFF && hw != 0)       /* MUTATION (p): any 2 */
#endif

/* FUTEX_WAKE(word, 1): wake one sleeper, any one, if there is one.  Not an
 * access of the word (no ACC): the kernel only hashes the address. */
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
	short hw;      /* .handoff_word: the handed-off word our last sleep began
			* on and timed out on (0: none; a handed-off word is
			* never 0); set where the sleep begins (it is read only
			* after the sleep), cleared if the sleep ends otherwise */
	bit revk;      /* in sp_revoke_handoff (ghost for the asserts of cas) */
	bit wake;      /* the release sets WOKEN: FUTEX_WAKE after it */
	bit last;      /* ghost: our critical section is the run's last */
#ifdef CROWD
	bit crowd;     /* .crowd: our last RMW of this round replaced a word
			* with CROWD or more parked: sleep without the fence */
#endif
#ifdef REACH_RACED_WAKE
	bit raced;     /* ghost: this wake-up is only the moved park_seq's */
#endif

	assert(me < NTHR && NTHR <= 3);
top:	do
	:: round == ROUNDS -> break
	:: else ->
		/* ---- pvspin_spinpark_lock: cmpxchg8 of the locked byte 0 -> 1 ---- */
		d_step {
			ACC;
#ifndef RMW_RELEASE
			FLUSH(me);      /* a locked instruction drains our store buffer */
#endif
			if
			:: LK(w) == 0 -> w = w | 1; ok = 1
			:: else -> ok = 0
			fi
		}
		if
		:: ok -> ok = 0; goto cs
		:: else -> skip
		fi;

		/* ---- lock_slowpath: sp_spin ---- */
spin:
		atomic { ACC; v = w };                          /* load32 */
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
		if                                              /* one claim per SP_STARVE_GAP_US: */
		:: owner -> owner = 0                           /* another claimed less than 1 ms ago */
		:: true -> skip
		fi;
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
		cas(0);
		if
		:: ok -> d_step { sowner = owner; owner = 0; v = nv; nv = 0; ok = 0; left = 1 }
		:: else -> goto join
		fi;
spinloop:	/* the registered spin */
		/* STARVING cleared while we own it: a parked waiter took our
		 * hand-off (sp_revoke_handoff); spin on as any waiter.  In the
		 * step of sp_ours' test: a 2 always has STARVING, so sp_ours
		 * does not depend on it (sp_take clears no STARVING that is not
		 * there); it matters from the next word on. */
		if
		:: LK(v) == 0 || (LK(v) == HANDOFF && sowner) ->     /* sp_ours */
			sp_take(1); goto spinloop
		:: else ->
#ifndef OWNER_KEEPS_ROLE
			d_step {
				if
				:: sowner && !(v & STARV) -> sowner = 0
				:: else -> skip
				fi
			}
#else
			skip                                    /* MUTATION (q): keeps the role */
#endif
		fi;
		if
		:: LK(v) == 1 && left ->
			/* wait32(sp_not_plain_locked, left): done, or the loops ran out */
			if
			:: atomic { LK(w) != 1 -> ACC; v = w };
				if :: left = 0 :: skip fi
			:: atomic { LK(w) == 1 -> ACC; v = w }; left = 0
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
		cas(0);
		if
		:: ok -> d_step {
#ifdef CROWD
				crowd = (PARKED(v) >= CROWD);
#endif
				counted = 1; sowner = 0; left = 0; ok = 0 }; goto park
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
		:: nv == v ->                                   /* nothing to change */
#ifdef CROWD
			if
			:: counted && PARKED(v) >= CROWD ->
				/* among a crowd: an RMW that writes the word
				 * back unchanged, so that the sleep meets it */
				cas(0);
				if
				:: ok -> ok = 0; crowd = 1
				:: else -> goto count
				fi
			:: else -> crowd = 0                    /* no RMW: fence */
			fi
#else
			skip
#endif
		:: else ->
			cas(0);
			if
			:: ok -> ok = 0;
#ifdef CROWD
				crowd = (PARKED(v) >= CROWD)
#else
				skip
#endif
			:: else -> goto count
			fi
		fi;
		counted = 1;

park:		/* ---- sp_park ---- */
		t0 = 1;
		assert(counted && !sowner);
		nv = 0;
		d_step {                                        /* load32 acquire */
			ACC; v = w;
			/* ghost: a revocation decided on this word takes the
			 * hand-off that our timed-out sleep began on */
			if :: REVOKES(v) -> assert(hsl[me]) :: else -> skip fi
		};
recheck:
		if
		:: LK(v) == 0 -> sp_take(0); goto recheck
#ifndef NO_REVOKE
		/* the same hand-off as before our last sleep, which timed out
		 * (v == handoff_word, which is 0 or a 2) */
		/* sp_revoke_handoff: (p, s, 2) -> (p - 1, s, 1) clearing
		 * STARVING, as the owner would (sp_take with starving_owner
		 * set), one cmpxchg; a failed one re-reads v and sp_park
		 * decides again from the top: take a free word, revoke only
		 * the same hand-off again, else sleep on v (findings 1 and 2
		 * below, fixed in the code) */
		:: d_step { REVOKES(v) -> sowner = 1; revk = 1 } ->
			sp_take(0);
			d_step { sowner = 0; revk = 0 };
			goto recheck
#endif
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
#ifdef FREE_SLEEP_CHECK
		assert(LK(v) != 0);     /* a sleep never begins on a free word */
#endif
#ifndef RMW_RELEASE
		/* the sleeper's side of the asymmetric Dekker (counted: always
		 * here): fetch_add(park_seq, 2) (release; a locked instruction,
		 * our buffer is empty: cas's assert), then membarrier(); the
		 * futex wait's compare comes after it */
#ifdef CROWD
		if
		:: crowd -> skip        /* a crowd counted before us: no add, no fence */
		:: else ->
#endif
		d_step { assert(!sb[me]); SEQ_ADD };
#ifndef NO_MEMBARRIER
		membarrier();
#endif                                                  /* else MUTATION (s): none */
#ifdef CROWD
		fi;
#endif
#endif
		/* park32: FUTEX_WAIT(word, v), no timeout but on a handed-off
		 * word (HANDOFF_TIMEOUT) or on any (SLEEP_TIMEOUT); handoff_word
		 * = v if the sleep began on a 2 and times out, else 0 */
		atomic {
			ACC;
			if
			:: w == v -> asleep[me] = 1;
#ifdef REACH_BUFFERED_SLEEP
				/* reachability: a sleep begins while a release
				 * store is still buffered (its compare missed it) */
				assert(!(sb[0] || sb[1] || sb[2]));
#endif
#if defined(HANDOFF_TIMEOUT) || defined(SLEEP_TIMEOUT)
				if
				:: LK(v) == HANDOFF -> hw = v; hsl[me] = 1
				:: else -> hw = 0; hsl[me] = 0
				fi
#endif
			:: else ->                              /* word changed: EAGAIN */
				hw = 0; hsl[me] = 0
			fi;
			v = 0
		}
#if defined(HANDOFF_TIMEOUT) || defined(SLEEP_TIMEOUT) || defined(SPURIOUS)
		if
		:: atomic { asleep[me] == 0 -> hw = 0; hsl[me] = 0 }    /* woken (or EAGAIN): 0 */
#if defined(SLEEP_TIMEOUT)
		:: atomic { asleep[me] -> asleep[me] = 0 }      /* ETIMEDOUT (hw kept) */
#elif defined(HANDOFF_TIMEOUT)
		:: atomic { asleep[me] && hw != 0 -> asleep[me] = 0 }   /* on a 2: ETIMEDOUT */
#endif
#ifdef SPURIOUS
		/* EINTR, or a stray FUTEX_WAKE: 0, handoff_word = 0 */
		:: atomic { asleep[me] -> asleep[me] = 0; hw = 0; hsl[me] = 0 }
#endif
		fi;
#else
		(asleep[me] == 0);                              /* until FUTEX_WAKE picks us */
#endif
		goto spin;

cs:		/* ---- critical section ---- */
		atomic { incs++; assert(incs == 1); ncs++; last = (ncs == NTHR * ROUNDS) };
#if defined(RMW_RELEASE) || defined(SEQ_AFTER_WORD)
		incs--;
#else
		/* pvspin_spinpark_unlock: s1 = load32(park_seq) (acquire), in
		 * the step that leaves the critical section (a ghost) */
		d_step { incs--; sm[me] = 1 };
#endif

#ifndef OLD_UNLOCK
#ifndef RMW_RELEASE
		/* ---- pvspin_spinpark_unlock, the store release: load32
		 * (relaxed) and its test; nothing for the slow side: store8
		 * (locked byte := 0) (release) into the store buffer.  A step
		 * of its own: invisible to the other threads, but a
		 * membarrier between the load and the store does not drain
		 * it ---- */
		if
		:: d_step { (w & SLOW_MASK) == 1 -> ACC; v = w } ->
#ifdef SEQ_AFTER_WORD
			d_step { sm[me] = 1 };                  /* MUTATION (u): s1 after the word */
#endif
			d_step { STORE_REL };
			/* fence_light (a compiler barrier); s2 = load32(park_seq)
			 * (relaxed): moved since s1, a sleeper may have missed
			 * the release: pvspin_spinpark_unlock_raced, FUTEX_WAKE
			 * one (without WOKEN) */
			S2_STEP
		:: d_step { (w & SLOW_MASK) != 1 -> ACC; v = w }
		fi;
		/* pvspin_spinpark_unlock_slowpath(lock, v): its own s1 and v,
		 * in this order */
#ifndef SEQ_AFTER_WORD
		d_step { sm[me] = 1 };
		d_step { ACC; v = w };
#else
		d_step { ACC; v = w };
		d_step { sm[me] = 1 };                          /* MUTATION (u) */
#endif
#else /* RMW_RELEASE */
		/* ---- pvspin_spinpark_unlock: load32 (relaxed), with the
		 * (local) test of what it read in the same step ---- */
		if
		:: d_step { (w & SLOW_MASK) == 1 -> ACC; v = w } ->
			/* Nothing for the slow side: fetch_add32(-1), release
			 * (lock xadd: cannot fail), which returns the word it
			 * replaced, old (v here).  A parked count in it (a
			 * parker counted itself since our load):
			 * pvspin_spinpark_unlock_released(old), which wakes one
			 * if sp_should_wake(old), without WOKEN. */
			d_step {
				ACC;
				v = w;
				assert(LK(v) == 1);             /* the holder's 1: no borrow */
				w = v - 1;
				assert(WORD_OK(w));
				rel[me] = 1;
#ifndef FAST_IGNORES_OLD
				wake = SHOULD_WAKE(v)
#else
				skip                            /* MUTATION (n): old not looked at */
#endif
			};
			goto released
		:: d_step { (w & SLOW_MASK) != 1 -> ACC; v = w }
		fi;
#endif /* RMW_RELEASE */
uslow:		/* pvspin_spinpark_unlock_slowpath(lock, v) */
#ifdef UNFAIR_CAS
		/* the slow path's loop step by step */
		assert(LK(v) == 1);                             /* no misuse report */
		if
		:: v & STARV ->                                 /* hand off: (p, s, 1) -> (p, s, 2) */
			nv = (v & ~(LK_MASK | EXT)) | HANDOFF;
			cas(1);
			if
			:: ok -> ok = 0; goto unlocked
			:: else -> goto uslow
			fi
		:: else -> skip
		fi;
		wake = SHOULD_WAKE(v);
		if
		:: wake ->                                      /* (p, s, 1) -> (p, s, 1) | WOKEN */
			nv = v | WOKEN;
			cas(0);
			if
			:: ok -> ok = 0
			:: else -> wake = 0; goto uslow         /* changed: decide again */
			fi
		:: else -> skip
		fi;
#ifndef RMW_RELEASE
		if
		:: PLAIN_OK(v) -> d_step { STORE_REL }; goto sstored    /* the store release */
		:: else -> skip
		fi;
#endif
		d_step {                                        /* the release, as below */
			ACC;
			v = w;
			assert(LK(v) == 1);
			w = v - 1 - (v & EXT);
			assert(WORD_OK(w));
			rel[me] = 1;
			wake = wake || SHOULD_WAKE(v)
		};
#else
		/* The loop of the slow path, its last round as one step (a
		 * failed cmpxchg only re-reads v and decides again; a retried
		 * cmpxchg eventually wins: README.md, fairness).  The misuse
		 * checks are asserted never to fire.  The release subtracts
		 * EXTENDED with the locked byte (only the holder sets it, so
		 * the word's bit is the holder's). */
		assert(LK(v) == 1);
		if
#ifndef RMW_RELEASE
		/* v as read asks for neither a hand-off nor a wake-up, and
		 * has no EXTENDED to clear: no write before the release, the
		 * store (wake = 0; s2 decides) */
		:: d_step { !(v & STARV) && !SHOULD_WAKE(v) && PLAIN_OK(v) -> STORE_REL; wake = 0 } ->
			goto sstored
#endif
		/* v as read asks for neither a hand-off nor a wake-up: no
		 * write before the release, which is fetch_add32(-1) (lock
		 * xadd), returning old; wake one if sp_should_wake(old) (a
		 * parker that counted itself after our load, woken without
		 * WOKEN).  (Store release: only with EXTENDED to clear.) */
		:: d_step {
#ifndef RMW_RELEASE
			!(v & STARV) && !SHOULD_WAKE(v) && !PLAIN_OK(v) ->
#else
			!(v & STARV) && !SHOULD_WAKE(v) ->
#endif
			ACC;
			v = w;
			assert(LK(v) == 1);
			w = v - 1 - (v & EXT);
			assert(WORD_OK(w));
			rel[me] = 1;
#ifndef STALE_WAKE
			wake = SHOULD_WAKE(v)
#else
			skip                                    /* MUTATION (g): old not looked at */
#endif
		   }
		/* else the cmpxchg loop, on the word as it is now: STARVING:
		 * hand off, (p, s, 1) -> (p, s, 2) (release); ... */
		:: d_step {
			((v & STARV) || SHOULD_WAKE(v)) && (w & STARV) ->
			ACC;
			v = w;
			assert(LK(v) == 1);
			nv = (v & ~(LK_MASK | EXT)) | HANDOFF;
			assert(WORD_OK(nv));
			w = nv;
			assert(!hpend); hpend = 1;
			rel[me] = 1
		   } -> goto unlocked
		/* ... else, still holding, (p, s, 1) -> (p, s, 1) | WOKEN if
		 * sp_should_wake(v), or nothing to write any more ... */
		:: d_step {
			((v & STARV) || SHOULD_WAKE(v)) && !(w & STARV) ->
#ifdef STALE_WAKE
			wake = SHOULD_WAKE(v);                  /* MUTATION (g): decided once */
#endif
			ACC;
			v = w;
			assert(LK(v) == 1);
#ifndef STALE_WAKE
			wake = SHOULD_WAKE(v);
#endif
			if :: wake -> w = v | WOKEN :: else -> skip fi;
			assert(WORD_OK(w))
		   } ->
#ifndef RMW_RELEASE
			/* ... then, without EXTENDED, the store release (a step
			 * of its own, as in the fast path), and s2 decides with
			 * wake ... */
			if
			:: d_step { PLAIN_OK(v) -> STORE_REL } -> goto sstored
			:: else -> skip
			fi;
#endif
			/* ... then the release, fetch_add32(-1), returning old:
			 * wake one if we set WOKEN or sp_should_wake(old) */
			d_step {
				ACC;
				v = w;
				assert(LK(v) == 1);
				w = v - 1 - (v & EXT);
				assert(WORD_OK(w));
				rel[me] = 1;
#ifndef STALE_WAKE
				wake = wake || SHOULD_WAKE(v)
#else
				skip                            /* MUTATION (g): old not looked at */
#endif
			}
		fi;
#endif
#ifndef RMW_RELEASE
		goto sdone;
sstored:	/* after the slow path's store release: fence_light; s2 =
		 * load32(park_seq): wake one if we set WOKEN or it moved */
#ifdef DROP_WAKE
		wake = 0;                                       /* MUTATION (a): no FUTEX_WAKE */
		atomic { UNLOCK_RETURN }; goto top
#else
		S2_STEP
#endif
sdone:
#endif
#ifdef DROP_WAKE
		wake = 0;                                       /* MUTATION (a): no FUTEX_WAKE */
#endif
released:	/* After the release: only FUTEX_WAKE on the address (in the
		 * step that returns, below). */
#else /* OLD_UNLOCK */
		/* ---- MUTATION (l): the unlock before 61e9ec6 ---- */
		d_step { ACC; v = w };                          /* load32 */
		if
		:: LK(v) == 1 && !(v & STARV) -> goto release
		:: else -> skip
		fi;
		d_step {                                        /* slow path: hand off */
			ACC;
			v = w;
			assert(LK(v) == 1);
			if
			:: v & STARV -> w = (v & ~(LK_MASK | EXT)) | HANDOFF; hpend = 1; rel[me] = 1; ok = 1
			:: else -> ok = 0                       /* STARVING dropped: release */
			fi
		}
		if
		:: ok -> ok = 0; goto unlocked
		:: else -> skip
		fi;
release:
		atomic { ACC; w = w & ~(LK_MASK | EXT); rel[me] = 1 }; /* a store, release */
		d_step { ACC; v = w & PARK_MASK };              /* load16 of the upper half */
		if
		:: PARKED(v) != 0 ->
			d_step { ACC; v = w };                  /* unlock_wake: fence, load32 */
oldwake:		if
			:: SHOULD_WAKE(v) ->
				nv = v | WOKEN;
				cas(1);
				if
				:: ok -> ok = 0; futex_wake1()
				:: else -> goto oldwake
				fi
			:: else -> skip
			fi
		:: else -> skip
		fi;
#endif
unlocked:
		atomic {
			/* the wake-up, FUTEX_WAKE(1) after the release (no access:
			 * README.md), and the return */
			if
			:: wake -> wake = 0;
#if !defined(RMW_RELEASE) && !defined(WAKE_NO_BARRIER)
				/* the kernel's futex_wake runs smp_mb() before it
				 * looks for waiters ((B) in kernel/futex/waitwake.c):
				 * our release store reaches memory first */
				FLUSH(me);
#endif
#ifdef REACH_RACED_WAKE
				/* reachability: a wake-up that only the moved
				 * sequence called for finds a sleeper */
				assert(!(raced && (asleep[0] || asleep[1] || asleep[2])));
#endif
				futex_wake1()                   /* unpark32(&lock->val, 1) */
			:: else -> skip
			fi;
			UNLOCK_RETURN
		}
	od;
	atomic {
		ndone++;
		/* the last thread done: the word is free, no count and no flag
		 * left behind (a ghost read: the lock is freed) */
#ifndef NO_END_CHECK
		if
		:: ndone == NTHR -> assert(w == GONE_END || (GONE && w == (GONE_END | WOKEN)))
		:: else -> skip
		fi
#else
		skip
#endif
	}
}

#ifndef RMW_RELEASE
/* The store buffers drain by themselves at any time (x86 commits a
 * buffered store to memory without the thread's help); weak fairness
 * makes every buffered store reach memory eventually. */
active proctype drainer()
{
end:	do
	:: atomic { sb[0] -> FLUSH(0) }
	:: atomic { sb[1] -> FLUSH(1) }
	:: atomic { sb[2] -> FLUSH(2) }
	od
}
#endif

/* No lost wake-up: every thread eventually completes all its rounds. */
ltl live { <> (ndone == NTHR) }

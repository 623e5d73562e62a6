/*
 * preload_mutex.pml - Promela model of the sleep/wake protocol of the
 * LD_PRELOAD interposer's pthread mutex (preload/preload_mutex.c:
 * word_unlock_kind, wake_one_sleeper, word_sleep, sleep_on_seq and the
 * file comment; docs/preload.md, "Waiting" and "Sleeping without a fence
 * in unlock"), with the unlocker's StoreLoad reordering of x86-TSO, the
 * membarrier(2) that the first sleeper runs against it, and the sticky
 * SL_ARMED bit that makes every later unlock fence before it trusts a
 * zero count instead (commit fbbd466).
 *
 * Design sources (what the code says it follows; nothing copied): the
 * Dekker pairs of preload_mutex.c; glibc's lowlevellock (a woken waiter's
 * retry turns "locked, waiters" back into "locked", after which unlocks
 * stop waking: here SL_WOKEN); liburcu's asymmetric fence, a
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) on the slow side so the
 * fast side needs only a compiler barrier.  The style (store buffer,
 * membarrier as one draining step, futex steps, properties) is that of
 * spinpark.pml; README.md says how the model stands for the code.
 *
 * NTHR threads (2 or 3, default 3) each take and release the one mutex
 * ROUNDS times (default 2).  Every statement is one atomic step of the
 * code: a load, a store, or one read-modify-write.  Between any two steps
 * a thread may be preempted for any time (interleaving).  A test of what
 * a load or RMW returned is done in the same step (one guarded d_step per
 * outcome): it reads only the thread's own registers, so no other thread
 * can tell, and the model stores fewer states.
 *
 * State (struct pmutex):
 *   word      the lock word of a tas-like kind: 0 free, 1 locked; trylock
 *             is a cmpxchg 0 -> 1, unlock a plain release store of 0
 *   sleepers  the count of sleepers (bits 0-1 here, bits 0-29 in the
 *             code), SL_ARMED (bit 2 here, bit 30 in the code) and
 *             SL_WOKEN (bit 3 here, bit 31 in the code)
 *   seq       the futex word the sleepers sleep on
 *
 * Memory: every write of the protocol but one is a locked instruction
 * (cmpxchg, xadd, lock and; the seq_cst fence is an mfence): it drains
 * the thread's store buffer, then is atomic.  The one plain store is the
 * unlock's store of 0 into the word: it goes into the unlocker's store
 * buffer sb[] and reaches memory at any later time (process `drainer`),
 * or at the unlocker's next locked instruction or fence.  The unlocker's
 * load of `sleepers` after it (relaxed, behind a compiler barrier only)
 * reads memory: another location, so it may be satisfied while the store
 * still sits in the buffer, the StoreLoad reordering of x86-TSO (and of
 * C11 for a release store and a later relaxed load).  Every other load
 * reads memory.  pvspin_plat_fence_heavy() (membarrier PRIVATE_EXPEDITED)
 * is one step of a first sleeper that drains every store buffer: the
 * point during the call at which every other running thread runs a full
 * barrier (one point stands for every CPU's: at most one store is ever
 * buffered, asserted; README.md).
 *
 * futex: FUTEX_WAIT(seq, s) is one step - if seq != s, return at once
 * (EAGAIN), else sleep (compare-and-sleep under the kernel's bucket lock);
 * a sleeper runs again only when a FUTEX_WAKE picks it.  FUTEX_WAKE(seq, 1)
 * is one step that wakes one sleeper, any one, if there is one.  No
 * timeout and no spurious return unless TIMED or SPURIOUS is defined.
 *
 * Properties:
 *   mutual exclusion    assert(incs == 1) in the critical section, and the
 *                       protocol's own claims (asserts below);
 *   no lost wake-up     safety mode (pan -DSAFETY): an end state where a
 *                       thread sleeps for ever (every other thread done or
 *                       asleep, the lock free) is an invalid end state;
 *                       liveness (pan -a -f): ltl live, every thread
 *                       finishes all its rounds under weak fairness.
 *
 * Without switches this is the code as it is (commit fbbd466: SL_ARMED)
 * and it PASSES.  Switches (each file test/model/preload_mutex_*.pml sets
 * some; README.md):
 *   WOKEN_NO_FENCE     MUTATION (1): wake_one_sleeper re-reads `sleepers`
 *                      on SL_WOKEN without the seq_cst fence before, so
 *                      it trusts a WOKEN that its still buffered release
 *                      does not order (the fence stays for a zero count)
 *   CLEAR_AFTER_TRYLOCK MUTATION (2): the sleeper clears SL_WOKEN after
 *                      its trylock instead of before
 *   NO_MEMBARRIER      MUTATION (3): the first sleeper (not ARMED, count
 *                      0 -> 1) skips pvspin_plat_fence_heavy() (and sets
 *                      SL_ARMED all the same, as if it had run)
 *   SEQ_AFTER_TRYLOCK  MUTATION (4): the sleeper reads seq after its
 *                      failed trylock instead of before the clear
 *   ARMED_NO_FENCE     MUTATION (5): wake_one_sleeper trusts a zero count
 *                      at once, without the fence and re-read (while
 *                      sleepers still skip membarrier on SL_ARMED)
 *   UNLOCK_EC86039     wake_one_sleeper as of ec86039: fence and re-read
 *                      on SL_WOKEN only, then a zero count returns at
 *                      once.  With the ARMED sleeper a mutant (ARMED
 *                      without the unlock's fence); with NO_ARMED the
 *                      code of ec86039
 *   NO_ARMED           the sleeper neither reads nor sets SL_ARMED: every
 *                      sleeper whose increment found a count of 0 runs
 *                      membarrier (the sleeper of ec86039)
 *   ARMED_BEFORE_MEMBARRIER  the first sleeper sets SL_ARMED before its
 *                      membarrier instead of after (a control: passes)
 *   WAKE_ALWAYS        control: no SL_WOKEN at all; an unlock that sees
 *                      a sleeper counted always bumps seq and wakes one
 *                      (the WOKEN rule before ec86039; SL_ARMED and the
 *                      fence before a zero count are kept)
 *   SC_UNLOCK          the unlock's store goes straight to memory (no
 *                      store buffer): with NO_MEMBARRIER shows that the
 *                      heavy fence is needed only for the StoreLoad
 *                      reordering
 *   FENCE_ON_RAW       the first sleeper is the one whose increment read
 *                      a word of 0 (word_sleep's `before == 0`: WOKEN
 *                      included) instead of `!ARMED && SL_COUNT(before)
 *                      == 0`; with ARMED the same sleepers (asserted in
 *                      fetch_add_sleeper; README.md)
 *   TIMED              thread 0 locks with a deadline (pthread_mutex_
 *                      timedlock): its FUTEX_WAIT may return ETIMEDOUT
 *                      instead of sleeping, or while asleep unless a wake
 *                      picked it first; it then tries once more and gives
 *                      up the round without the lock if that fails
 *   SPURIOUS           a sleeper may return from FUTEX_WAIT by itself
 *                      (EINTR, a spurious wake-up): safety checks only
 */
#ifndef NTHR
#define NTHR 3
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

#define SL_ARMED    4
#define SL_WOKEN    8
#define SL_COUNT(x) ((x) & 3)

/* word_sleep's `first`, from the word its fetch_add read: the sleeper
 * that runs membarrier (and then sets SL_ARMED) */
#ifdef FENCE_ON_RAW
#define FIRST(x)    ((x) == 0)
#elif defined(NO_ARMED)
#define FIRST(x)    (SL_COUNT(x) == 0)
#else
#define FIRST(x)    (!((x) & SL_ARMED) && SL_COUNT(x) == 0)
#endif

bit word;            /* the lock word in memory: 0 free, 1 locked */
byte sleepers;       /* count (bits 0-1) | SL_ARMED (bit 2) | SL_WOKEN (bit 3) */
byte seq;            /* the futex word of the sleepers */
bit sb[3];           /* thread i's store buffer holds "word = 0" */
bit asleep[3];       /* thread i sleeps in FUTEX_WAIT on seq */
byte incs;           /* threads in the critical section */
byte ndone;          /* threads that finished all rounds */

/* A locked instruction or a full fence first drains this thread's store
 * buffer. */
inline drain_me()
{
	if
	:: sb[me] -> word = 0; sb[me] = 0
	:: else -> skip
	fi
}

/* membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED): every store buffer is
 * drained at one point of the call.  With one lock at most one store is
 * ever buffered (asserted), so one point stands for every CPU's.  Used
 * inside a d_step (one step). */
inline membarrier()
{
	assert(sb[0] + sb[1] + sb[2] <= 1);
	if :: sb[0] -> word = 0; sb[0] = 0 :: else -> skip fi;
	if :: sb[1] -> word = 0; sb[1] = 0 :: else -> skip fi;
	if :: sb[2] -> word = 0; sb[2] = 0 :: else -> skip fi
}

/* word_sleep's count: the increment of fetch_add(sleepers, 1), inside
 * the d_step that also reads the old value.  Used inside a d_step. */
inline fetch_add_sleeper()
{
	assert(SL_COUNT(sleepers) < NTHR);
#ifndef NO_ARMED
	/* WOKEN with a zero count is never read before the mutex is ARMED:
	 * the sleeper that took the count from 0 sets ARMED before it
	 * leaves (README.md, FENCE_ON_RAW) */
	assert(!((sleepers & SL_WOKEN) && SL_COUNT(sleepers) == 0) ||
	       (sleepers & SL_ARMED));
#endif
	sleepers++
}

/* pvspin_kind_trylock (tas: cmpxchg 0 -> 1), a locked instruction, as
 * one step together with the (local) test of its result: two branches,
 * `:: d_step { TRYLOCK_FREE -> take_word() }` (taken) and
 * `:: d_step { !TRYLOCK_FREE -> skip }` (failed).  The drain comes first:
 * a store in this thread's buffer is its own release of the word, which
 * then reads 0 (with it nothing is buffered: the failed branch drains
 * nothing). */
#define TRYLOCK_FREE (word == 0 || sb[me])
inline take_word()
{
	drain_me();
	assert(word == 0);
	word = 1
}

/* preload_futex_wake(&seq, 1): wake one sleeper, any one, if there is one. */
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
	byte v;        /* word_unlock_kind / wake_one_sleeper: sleepers read */
	byte s;        /* word_sleep: seq read before the trylock */
#ifdef TIMED
	bit timedout;  /* sleep_on_seq returned ETIMEDOUT */
#endif

	assert(me < NTHR && NTHR <= 3);
	do
	:: round == ROUNDS -> break
	:: else ->
		/* ---- word_lock: preload_word_trylock ---- */
		if
		:: d_step { TRYLOCK_FREE -> take_word() } -> goto cs
		:: d_step { !TRYLOCK_FREE -> skip }     /* so nothing is buffered */
		fi;
		/* ---- word_wait: word_spin fails (a spin that takes the
		 * lock is a later fast path: README.md); word_sleep ---- */
		/* fetch_add(sleepers, 1), seq_cst: one step, whose branch
		 * is `first` of the value it read (FIRST) */
		if
		:: d_step { FIRST(sleepers) -> fetch_add_sleeper() } ->
#ifdef ARMED_BEFORE_MEMBARRIER
			sleepers = sleepers | SL_ARMED;         /* fetch_or, first (control) */
#endif
#ifdef NO_MEMBARRIER
			skip;                                   /* MUTATION (3) */
#else
			d_step { membarrier() };                /* pvspin_plat_fence_heavy */
#endif
#if !defined(NO_ARMED) && !defined(ARMED_BEFORE_MEMBARRIER)
			sleepers = sleepers | SL_ARMED          /* fetch_or, relaxed (lock or) */
#else
			skip
#endif
		:: d_step { !FIRST(sleepers) -> fetch_add_sleeper() }
		fi;
sloop:
#ifndef SEQ_AFTER_TRYLOCK
		s = seq;                                        /* load seq, seq_cst */
#endif
#ifndef CLEAR_AFTER_TRYLOCK
		sleepers = sleepers & ~SL_WOKEN;                /* fetch_and, seq_cst */
#endif
		if                                              /* trylock */
		:: d_step { TRYLOCK_FREE -> take_word() } ->
#ifdef CLEAR_AFTER_TRYLOCK
			sleepers = sleepers & ~SL_WOKEN;        /* MUTATION (2) */
#endif
			goto got
		:: d_step { !TRYLOCK_FREE -> skip }
#ifdef CLEAR_AFTER_TRYLOCK
			; sleepers = sleepers & ~SL_WOKEN         /* MUTATION (2) */
#endif
		fi;
#ifdef SEQ_AFTER_TRYLOCK
		s = seq;                                        /* MUTATION (4) */
#endif
		/* sleep_on_seq: FUTEX_WAIT(seq, s), no timeout (fenced) */
#ifdef TIMED
		if
		:: me == 0 ->
			atomic {
				if
				:: seq == s -> asleep[me] = 1
				:: seq == s -> timedout = 1     /* deadline passed */
				:: else -> skip                 /* seq changed: EAGAIN */
				fi;
				s = 0
			};
			if
			:: (asleep[me] == 0)                    /* woken, or EAGAIN */
			:: atomic { asleep[me] -> asleep[me] = 0; timedout = 1 }
			fi;
			if
			:: timedout ->
				/* ETIMEDOUT: one more trylock, then give up */
				timedout = 0;
				if                      /* trylock */
				:: d_step { TRYLOCK_FREE -> take_word() } -> goto got
				:: d_step { !TRYLOCK_FREE -> skip } ->
					/* give up the round, no lock */
					d_step {
						assert(SL_COUNT(sleepers) > 0);
						sleepers--      /* fetch_sub */
					};
					goto unlocked
				fi
			:: else -> goto sloop
			fi
		:: else -> skip
		fi;
#endif
		atomic {
			if
			:: seq == s -> asleep[me] = 1
			:: else -> skip                         /* seq changed: EAGAIN */
			fi;
			s = 0
		}
#ifdef SPURIOUS
		if
		:: (asleep[me] == 0)                            /* woken */
		:: atomic { asleep[me] -> asleep[me] = 0 }      /* EINTR, spurious */
		fi;
#else
		(asleep[me] == 0);                              /* until FUTEX_WAKE picks us */
#endif
		goto sloop;
got:
		atomic {
			s = 0;
			assert(SL_COUNT(sleepers) > 0);
			sleepers--                              /* fetch_sub, relaxed (lock xadd) */
		}

cs:		/* ---- critical section ---- */
		incs++;
		assert(incs == 1);
		incs--;

		/* ---- word_unlock_kind ---- */
		d_step {
			assert(word == 1 && sb[0] + sb[1] + sb[2] == 0);   /* one buffered store at most */
#ifdef SC_UNLOCK
			word = 0                                /* release store, visible at once */
#else
			sb[me] = 1                              /* release store, into the store buffer */
#endif
		}
		/* compiler barrier only; load sleepers, relaxed (memory):
		 * one step, with the (local) test of the value read */
		if
		:: d_step { sleepers == 0 -> skip } -> goto unlocked
		:: d_step { sleepers != 0 -> v = sleepers }
		fi;
wake:		/* ---- wake_one_sleeper(v) ---- */
#ifdef ARMED_NO_FENCE
		if
		:: SL_COUNT(v) == 0 -> goto unlocked            /* MUTATION (5) */
		:: else -> skip
		fi;
#endif
#ifdef UNLOCK_EC86039
		if
		:: v & SL_WOKEN ->
#ifndef WOKEN_NO_FENCE
			d_step { drain_me() };                  /* seq_cst fence */
#endif
			v = sleepers;                           /* re-read, seq_cst */
			if
			:: v & SL_WOKEN -> goto unlocked
			:: else -> skip
			fi
		:: else -> skip
		fi;
		if
		:: SL_COUNT(v) == 0 -> goto unlocked            /* no fence */
		:: else -> skip
		fi;
#else
		/* WOKEN, or only ARMED: trust neither before the release is
		 * visible (WAKE_ALWAYS: WOKEN is never set) */
		if
		:: (v & SL_WOKEN) || SL_COUNT(v) == 0 ->
#ifdef WOKEN_NO_FENCE
			if
			:: v & SL_WOKEN -> skip                 /* MUTATION (1) */
			:: else -> d_step { drain_me() }        /* seq_cst fence */
			fi;
#else
			d_step { drain_me() };                  /* seq_cst fence */
#endif
			if                                      /* re-read, seq_cst */
			:: d_step { (sleepers & SL_WOKEN) || SL_COUNT(sleepers) == 0 -> skip } ->
				goto unlocked
			:: d_step { !(sleepers & SL_WOKEN) && SL_COUNT(sleepers) != 0 -> v = sleepers }
			fi
		:: else -> skip
		fi;
#endif
#ifndef WAKE_ALWAYS
		if                                              /* cmpxchg v -> v | SL_WOKEN */
		:: d_step { sleepers == v -> drain_me(); sleepers = v | SL_WOKEN }
		:: d_step { sleepers != v -> drain_me(); v = sleepers } -> goto wake
		fi;
#endif
		d_step { drain_me(); seq++ }                    /* fetch_add seq, seq_cst */
		futex_wake1();
unlocked:
		atomic { v = 0; round++ }
	od;
	ndone++
}

/* The store buffers drain at any time. */
active proctype drainer()
{
end:	do
	:: atomic { sb[0] -> word = 0; sb[0] = 0 }
	:: atomic { sb[1] -> word = 0; sb[1] = 0 }
	:: atomic { sb[2] -> word = 0; sb[2] = 0 }
	od
}

/* No lost wake-up: every thread eventually completes all its rounds. */
ltl live { <> (ndone == NTHR) }

/*
 * preload_mutex.pml - Promela model of the sleep/wake protocol of the
 * LD_PRELOAD interposer's pthread mutex (preload/preload_mutex.c: the
 * file comment, word_take, word_try, word_unlock, word_sleep), as of
 * commit 8cece85: the mutex has its own 32-bit word for every kind,
 * bit 0 LOCKED, bit 1 WOKEN, bits 2-31 the count of sleepers; the unlock
 * releases by one cmpxchg that also sets WOKEN when the word it replaces
 * counts a sleeper and has no WOKEN, and after it touches nothing of the
 * mutex (only FUTEX_WAKE names its address).
 *
 * Design sources (what the code says it follows; nothing copied):
 * glibc's lowlevellock (a "locked, waiters" state that a woken waiter's
 * retry turns back, after which unlocks stop waking: here WOKEN; one
 * atomic release, then at most FUTEX_WAKE, glibc bug 13690), and
 * spinpark's WOKEN (src/lock/spinpark.c).  The style (steps, futex,
 * ghosts, properties) is that of spinpark.pml; README.md says how the
 * model stands for the code.
 *
 * NTHR threads (2 or 3, default 3) each take and release the one mutex
 * ROUNDS times (default 2).  Every statement is one atomic step of the
 * code: a load or one cmpxchg, with the (local) test of what it returned
 * in the same step (one guarded d_step per outcome: it reads only the
 * thread's own registers, so no other thread can tell).  Between any two
 * steps a thread may be preempted for any time (interleaving).
 *
 * The word (a scaled-down copy of the real one): bit 0 LOCKED, bit 1
 * WOKEN, bits 2-3 sleepers (at most NTHR).
 *
 * Memory: every write of the word is a cmpxchg (trylock, count, clear
 * WOKEN, take, leave, release), so the model is sequentially consistent:
 * for one location coherence leaves no reordering that an interleaving
 * would not show (README.md).  No store buffer, fence or membarrier.
 *
 * futex: FUTEX_WAIT(word, v) is one step - if the word != v, return at
 * once (EAGAIN), else sleep (compare-and-sleep under the kernel's bucket
 * lock); a sleeper runs again only when a FUTEX_WAKE picks it.
 * FUTEX_WAKE(word, 1) is one step that wakes one sleeper, any one, if
 * there is one; it names the address but reads nothing of the word.  No
 * timeout and no spurious return unless TIMED or SPURIOUS is defined.
 *
 * Properties:
 *   mutual exclusion    assert(incs == 1) in the critical section; every
 *                       word written has its count in range (WORD_OK: no
 *                       borrow, at most NTHR), an unlock finds the word
 *                       locked, and when all threads are done the word is
 *                       0 (no sleeper counted, no WOKEN left behind);
 *   no lost wake-up     safety mode (pan -DSAFETY): an end state where a
 *                       thread sleeps for ever is an invalid end state;
 *                       liveness (pan -a -f): ltl live, every thread
 *                       finishes all its rounds under weak fairness;
 *   nothing after the release
 *                       ghost rel[me]: set by the cmpxchg that releases
 *                       the mutex, cleared when that unlock returns; every
 *                       access of the word (load, cmpxchg, FUTEX_WAIT's
 *                       compare) asserts it clear (ACC).  Ghost freed:
 *                       the unlock of the run's last critical section
 *                       frees the mutex when it returns (as a program may:
 *                       pthread_mutex_destroy, free or munmap), and every
 *                       access asserts it is not freed.
 *
 * Without switches this is the code as it is, and it PASSES.  Switches
 * (each file test/model/preload_mutex_*.pml sets some; README.md):
 *   DROP_WAKE          MUTATION (6): the unlock sets WOKEN but never calls
 *                      FUTEX_WAKE
 *   SLEEP_ON_WOKEN     MUTATION (7): a sleeper does not clear WOKEN but
 *                      sleeps on a word that shows it
 *   LEAVE_KEEPS_WOKEN  MUTATION (8): a timed-out sleeper leaves the count
 *                      without clearing WOKEN (with TIMED): rejected by
 *                      the end-of-run word check only, for a WOKEN left
 *                      with no sleeper; it strands no sleeper (README.md)
 *   OLD_UNLOCK         MUTATION (9): the unlock before 8cece85 in this
 *                      word: release (clear LOCKED), then read the count
 *                      and, if a sleeper is counted and no WOKEN, set
 *                      WOKEN by cmpxchg and FUTEX_WAKE: rejected by the
 *                      ghost properties
 *   WAKE_ALWAYS        control: the unlock wakes one whenever the word it
 *                      replaces counts a sleeper, WOKEN or not (more
 *                      wake-ups than needed: must pass)
 *   NO_END_CHECK       no check of the word when all threads are done
 *   NO_REL_GHOST       check only the ghost `freed`, not rel[]
 *   TIMED              thread 0 locks with a deadline (pthread_mutex_
 *                      timedlock): a sleep of it may end in ETIMEDOUT
 *                      unless a FUTEX_WAKE picked it first; it then takes
 *                      a free word or leaves the sleepers, and its round
 *                      ends without the lock
 *   SPURIOUS           a sleeper may return from FUTEX_WAIT by itself
 *                      (EINTR): safety checks only
 */
#ifndef NTHR
#define NTHR 3
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

#define LOCKED      1
#define WOKEN       2
#define ONE         4                   /* MW_SLEEPER_ONE */
#define SLEEPERS(x) ((x) / ONE)

/* Every field in range: no borrow out of the count, at most NTHR. */
#define WORD_OK(x)  ((x) >= 0 && SLEEPERS(x) <= NTHR)

/* word_unlock's wake: sleepers counted and no WOKEN */
#ifdef WAKE_ALWAYS
#define WAKE(x)     (SLEEPERS(x) != 0)
#else
#define WAKE(x)     (SLEEPERS(x) != 0 && !((x) & WOKEN))
#endif

byte w;              /* pm->word */
bit asleep[3];       /* thread i sleeps in FUTEX_WAIT on the word */
byte incs;           /* threads in the critical section */
byte ndone;          /* threads that finished all rounds */
/* ghosts */
bit rel[3];          /* thread i has released the mutex in the unlock it runs */
bit freed;           /* the mutex is freed: its last unlock has returned */
byte nend;           /* rounds that ended: critical sections entered, timeouts */

/* Asserted at every access of the word by the code. */
#ifdef NO_REL_GHOST
#define ACC assert(!freed)
#else
#define ACC assert(!rel[me] && !freed)
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
	byte v;        /* the word as last read (or written) by this thread */
	bit wake;      /* word_unlock: it set WOKEN, FUTEX_WAKE after the release */
	bit last;      /* ghost: our critical section is the run's last */
#ifdef TIMED
	bit timedout;  /* preload_futex_wait returned ETIMEDOUT */
#endif

	assert(me < NTHR && NTHR <= 3);
	do
	:: round == ROUNDS -> break
	:: else ->
		/* ---- word_lock -> word_trylock -> word_try: a relaxed load,
		 * and while the word is free a cmpxchg v -> v | LOCKED (a failed
		 * one re-reads v): one step, taken or not ---- */
		if
		:: d_step { !(w & LOCKED) -> ACC; w = w | LOCKED } -> goto cs
		:: d_step { w & LOCKED -> ACC }
		fi;
		/* ---- word_wait: word_spin fails or is not admitted (a spin
		 * that takes the word is a later word_try: README.md), then
		 * word_sleep ---- */
		d_step { ACC; v = w };                          /* load, relaxed */
count:		/* take a free word, (n, w, 0) -> (n, w, 1), or count ourselves,
		 * (n, w, 1) -> (n + 1, w, 1); a failed cmpxchg re-reads v */
		if
		:: d_step { !(v & LOCKED) && w == v -> ACC; w = v | LOCKED } -> goto cs
		:: d_step {
			(v & LOCKED) && w == v ->
			ACC;
			w = v + ONE;
			assert(WORD_OK(w));
			v = w
		   }
		:: d_step { w != v -> ACC; v = w } -> goto count
		fi;
sloop:		/* the sleep loop */
		if
		/* word_take(sleeping): (n, w, 0) -> (n - 1, 0, 1) */
		:: d_step {
			!(v & LOCKED) && w == v ->
			ACC;
			assert(SLEEPERS(v) > 0);
			w = ((v - ONE) & ~WOKEN) | LOCKED
		   } -> goto cs
#ifndef SLEEP_ON_WOKEN
		/* WOKEN on a held word: (n, 1, 1) -> (n, 0, 1), never sleep on it */
		:: d_step { (v & LOCKED) && (v & WOKEN) && w == v -> ACC; w = v & ~WOKEN; v = w } ->
			goto sloop
		:: d_step { (v & LOCKED) && !(v & WOKEN) -> ACC; if :: w == v -> asleep[me] = 1 :: else -> skip fi }
#else
		:: d_step { v & LOCKED -> ACC; if :: w == v -> asleep[me] = 1 :: else -> skip fi }  /* MUTATION (7) */
#endif
			/* preload_futex_wait(&word, v): FUTEX_WAIT compares and
			 * sleeps, else EAGAIN (above, in the step) */
		:: d_step { !(v & LOCKED) && w != v -> ACC; v = w } -> goto sloop      /* cmpxchg failed */
#ifndef SLEEP_ON_WOKEN
		:: d_step { (v & LOCKED) && (v & WOKEN) && w != v -> ACC; v = w } -> goto sloop
#endif
		fi;
		/* asleep until FUTEX_WAKE picks us; then v = load (relaxed):
		 * one step (the guard cannot become false again) */
		if
		:: d_step { asleep[me] == 0 -> ACC; v = w }     /* woken, or EAGAIN */
#ifdef TIMED
		:: d_step { me == 0 && asleep[me] -> asleep[me] = 0; timedout = 1; ACC; v = w }
			/* ETIMEDOUT: dequeued by its timer (a FUTEX_WAKE that
			 * dequeued it first makes the call return 0) */
#endif
#ifdef SPURIOUS
		:: d_step { asleep[me] -> asleep[me] = 0; ACC; v = w }   /* EINTR */
#endif
		fi;
#ifdef TIMED
		if
		:: timedout -> timedout = 0; goto leave
		:: else -> goto sloop
		fi;
leave:		/* timed out: take a free word, (n, w, 0) -> (n - 1, 0, 1), or
		 * leave the sleepers, (n, w, 1) -> (n - 1, 0, 1) */
		if
		:: d_step {
			!(v & LOCKED) && w == v ->
			ACC;
			assert(SLEEPERS(v) > 0);
			w = ((v - ONE) & ~WOKEN) | LOCKED
		   } -> goto cs
		:: d_step {
			(v & LOCKED) && w == v ->
			ACC;
			assert(SLEEPERS(v) > 0);
#ifndef LEAVE_KEEPS_WOKEN
			w = (v - ONE) & ~WOKEN;
#else
			w = v - ONE;                            /* MUTATION (8) */
#endif
			nend++;                                 /* ETIMEDOUT: the round ends */
			v = 0
		   } -> goto roundend
		:: d_step { w != v -> ACC; v = w } -> goto leave
		fi;
#else
		goto sloop;
#endif

cs:		/* ---- critical section ---- */
		atomic { incs++; assert(incs == 1); nend++; last = (nend == NTHR * ROUNDS) };
		incs--;

#ifndef OLD_UNLOCK
		/* ---- word_unlock: load (relaxed), then the cmpxchg loop:
		 * (n, w, 1) -> (n, w | wake, 0), wake = sleepers && !WOKEN
		 * (release); a failed cmpxchg re-reads v ---- */
		d_step { ACC; v = w };
uloop:
		if
		:: d_step {
			w == v ->
			ACC;
			assert(v & LOCKED);                     /* no unlock of a free word */
			wake = WAKE(v);
			w = (v & ~LOCKED) | (wake -> WOKEN : 0);
			rel[me] = 1
		   }
		:: d_step { w != v -> ACC; v = w } -> goto uloop
		fi;
#ifdef DROP_WAKE
		wake = 0;                                       /* MUTATION (6): no FUTEX_WAKE */
#endif
#else
		/* ---- MUTATION (9): the unlock before 8cece85, in this word:
		 * the kind's release (a store of the lock; here an RMW that
		 * clears LOCKED), then a relaxed load of the sleepers' count, and
		 * wake_one_sleeper: if counted and no WOKEN, cmpxchg WOKEN in,
		 * FUTEX_WAKE ---- */
		d_step { ACC; assert(w & LOCKED); w = w & ~LOCKED; rel[me] = 1 };
		d_step { ACC; v = w };
oldwake:
		if
		:: d_step { !WAKE(v) -> skip }
		:: d_step { WAKE(v) && w == v -> ACC; w = v | WOKEN; wake = 1 }
		:: d_step { WAKE(v) && w != v -> ACC; v = w } -> goto oldwake
		fi;
#endif
roundend:	/* After the release only FUTEX_WAKE on the address, in the step
		 * that returns (README.md); a timed-out round ends here too. */
		atomic {
			if
			:: wake -> wake = 0; futex_wake1()     /* preload_futex_wake(&word, 1) */
			:: else -> skip
			fi;
			rel[me] = 0;
			/* the program frees the mutex after the last unlock */
			if :: last -> freed = 1; last = 0 :: else -> skip fi;
			v = 0; round++
		}
	od;
	atomic {
		ndone++;
		/* the last thread done: the word is 0, no sleeper counted and
		 * no WOKEN left behind (a ghost read: the mutex is freed) */
#ifndef NO_END_CHECK
		if
		:: ndone == NTHR -> assert(w == 0)
		:: else -> skip
		fi
#else
		skip
#endif
	}
}

/* No lost wake-up: every thread eventually completes all its rounds. */
ltl live { <> (ndone == NTHR) }

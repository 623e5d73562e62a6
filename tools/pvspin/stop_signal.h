/*
 * stop_signal.h - the signals that ask a long run to stop early, for every
 * tool that reports what it has before it goes (`pvspin bench`, `pvspin
 * torture`, `pvspin-sim`): catch them, ask which one came, and end the
 * process by it so that its exit status (128 + the signal in a shell) says
 * what stopped it.
 *
 * When to stop is each caller's: bench within 0.1 s, cutting its cell short, torture
 * at its next watchdog tick, the simulator at its next event.
 */
#ifndef PVSPIN_TOOLS_STOP_SIGNAL_H
#define PVSPIN_TOOLS_STOP_SIGNAL_H

#include <signal.h>
#include <stddef.h>
#include <string.h>

/* After a stop signal, how long a tool waits for its threads to finish
 * what they are doing before it leaves them running and ends by the
 * signal, ns (bench: a cell's acquisitions in flight; torture: writers
 * leaving the lock): hundreds of threads of a fair lock (ticket) on a few
 * CPUs take minutes, one hand-off to a preempted waiter after another. */
#define TOOL_STOP_GRACE_NS 1000000000u

/* Read it through tool_stop_signal(); extern only so that the read is
 * inline (the simulator checks it at every event). */
extern volatile sig_atomic_t tool_stop_signo;
/* Read them through tool_stop_signal_count() and tool_stop_signal_latest(). */
extern volatile sig_atomic_t tool_stop_arrivals, tool_stop_latest;

/**
 * Catch the stop signals, SIGINT, SIGTERM and SIGHUP (a closed terminal),
 * the same three for every tool: the first of them to arrive is recorded
 * (tool_stop_signal()), a later one changes nothing, and the process goes
 * on.  No SA_RESTART: a blocking call (a sleep, a wait for a child)
 * returns EINTR, so that a caller that waits sees the signal at once.
 * SIGINT and SIGTERM inherited as ignored are caught too (a shell's
 * background job ignores SIGINT without being asked to); SIGHUP
 * inherited as ignored stays ignored (`nohup`: the user asked the run to
 * outlive its terminal).  Returns 0, or -1 with
 * errno set by sigaction().  Not thread-safe: call it before starting
 * threads.
 */
int tool_stop_signals_catch(void);

/**
 * Fill `set` with the stop signals once tool_stop_signals_catch() has
 * caught them (empty before), for a caller that blocks them around a wait of its own
 * (sigsuspend()).  Always succeeds.  Thread-safe once the signals are
 * caught; not async-signal-safe.
 */
void tool_stop_signals(sigset_t *set);

/**
 * The first caught signal that has arrived, 0 if none has.  Async-signal-
 * safe and thread-safe (a plain read of a sig_atomic_t).
 */
static inline int tool_stop_signal(void)
{
	return tool_stop_signo;
}

/**
 * How many stop signals have arrived (each one counted, the first and
 * every later one; saturates at 1000): a wait that begins after a first
 * signal stopped the run (bench's plot, drawn for the thread counts that
 * completed) notes it when it starts and stops only for a later one.
 * Async-signal-safe and thread-safe (a plain read of a sig_atomic_t).
 */
static inline int tool_stop_signal_count(void)
{
	return tool_stop_arrivals;
}
/**
 * The stop signal that arrived last, 0 if none has (the one to name when
 * a later signal stopped something).  Async-signal-safe and thread-safe.
 */
static inline int tool_stop_signal_latest(void)
{
	return tool_stop_latest;
}
/**
 * The name a user types for `sig`, as kill(1) and every tool's
 * "interrupted by" line write it: "SIGINT", "SIGTERM", "SIGHUP", else
 * strsignal()'s text.  Thread-safe for those three.
 */
static inline const char *tool_stop_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP"
									: strsignal(sig);
}

/**
 * End the process by the signal tool_stop_signal() recorded, as if it had
 * not been caught: stdio's buffers are flushed first (a death by signal
 * does not flush them), then the signal's disposition is restored to
 * SIG_DFL, it is unblocked in the calling thread and raised.  Returns only
 * if no signal was recorded (or its default action does not end the
 * process, which is not the case of SIGINT, SIGTERM or SIGHUP).  Not
 * async-signal-safe (fflush) nor thread-safe: call it from the main
 * thread, once the results are out.
 */
void tool_stop_signal_reraise(void);

#endif /* PVSPIN_TOOLS_STOP_SIGNAL_H */

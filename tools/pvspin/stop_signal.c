/*
 * stop_signal.c - see stop_signal.h.
 */
#include <pthread.h>
#include <stdio.h>

#include "stop_signal.h"

volatile sig_atomic_t tool_stop_signo;
volatile sig_atomic_t tool_stop_arrivals, tool_stop_latest;

/* The stop signals, once caught: each handler blocks the others while it
 * runs (see on_stop_signal), and tool_stop_signals() hands them out. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
static sigset_t caught;
static int caught_init;

static void on_stop_signal(int sig)
{
	/* The first one stopped the run and is the one to end by.  The other
	 * stop signals are blocked while this runs (sa_mask), so none can
	 * come between the test and the store in this thread. */
	if (!tool_stop_signo)
		tool_stop_signo = sig;
	tool_stop_latest = sig;
	if (tool_stop_arrivals < 1000)
		tool_stop_arrivals = tool_stop_arrivals + 1;
}

int tool_stop_signals_catch(void)
{
	sigemptyset(&caught);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&caught, stop_signals[i]);
	caught_init = 1;
	struct sigaction sa = { .sa_handler = on_stop_signal, .sa_mask = caught }, old;
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		/* SIGHUP ignored from the start is the user's choice (nohup):
		 * it stays ignored, as in shells and GNU tools */
		if (stop_signals[i] == SIGHUP && !sigaction(SIGHUP, NULL, &old) &&
		    old.sa_handler == SIG_IGN)
			continue;
		if (sigaction(stop_signals[i], &sa, NULL))
			return -1;
	}
	return 0;
}

void tool_stop_signals(sigset_t *set)
{
	if (caught_init)
		*set = caught;
	else
		sigemptyset(set);
}

void tool_stop_signal_reraise(void)
{
	int sig = tool_stop_signo;
	if (!sig)
		return;
	fflush(NULL);
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	/* a caller may have it blocked (around a sigsuspend()); a pending
	 * second one then ends the process here, as the raise would */
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
}

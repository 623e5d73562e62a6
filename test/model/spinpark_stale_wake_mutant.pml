/* (g) spinpark.pml with an unlock slow path that decides the wake-up
 * once, from the word it was entered with (the fast path's load, or the
 * meter's reload of an ARMED lock), and keeps that decision when its
 * releasing cmpxchg finds the word changed: a waiter that counted itself
 * in between, and re-checked the still locked word, is released without
 * a wake-up.  The code decides again from the word each cmpxchg would
 * replace ("the word changed: decide again").  Must be rejected. */
#define STALE_WAKE 1
#include "spinpark.pml"

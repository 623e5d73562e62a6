/*
 * value_quote.h - the one rule for showing a value the user gave (an
 * option's, a configuration key's, a PVSPIN_* variable's) in a message:
 * in quotes when it is empty or holds a blank, which would not show
 * otherwise ("PVSPIN_LOCK='tas ': not a lock kind", "--seeds ' 2'"), bare
 * else ("--lock bogus").  Private to the project.  Header-only: the
 * library (src/lock/default_kind.c, src/policy/policy_default.c), the
 * tools (tool_value_quote(), tools/pvspin/option_error.h) and the
 * simulator, which links none of the library's objects, say values by it.
 */
#ifndef PVSPIN_SRC_UTIL_VALUE_QUOTE_H
#define PVSPIN_SRC_UTIL_VALUE_QUOTE_H

#include <string.h>

/** The quote to write on both sides of `value` in a message: "'" when
 *  it is empty or holds a blank (space, tab, newline, carriage return,
 *  vertical tab, form feed), else "".  Thread-safe. */
static inline const char *pvspin_value_quote(const char *value)
{
	return !*value || strpbrk(value, " \t\n\r\v\f") ? "'" : "";
}

/** A value written by that rule in a printf format: PVSPIN_QUOTED in the
 *  format where the value goes, PVSPIN_QUOTED_ARGS(value) in the
 *  arguments (the quote, the value, the quote), so that no message
 *  spells the rule again ("PVSPIN_LOCK=" PVSPIN_QUOTED ": ...").
 *  `value` is evaluated three times: pass a plain name. */
#define PVSPIN_QUOTED "%s%s%s"
#define PVSPIN_QUOTED_ARGS(value) \
	pvspin_value_quote(value), (value), pvspin_value_quote(value)

#endif /* PVSPIN_SRC_UTIL_VALUE_QUOTE_H */

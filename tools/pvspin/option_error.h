/*
 * option_error.h - one wording for a bad command-line option (and a stray
 * operand, and a bad value given to an option: a lock or policy name, a
 * number) in every subcommand of `pvspin` (and in `pvspin-sim`):
 *
 *   pvspin run: unknown option '--bogus'
 *   (pvspin run --help lists the options)
 *   pvspin run: --lock bogus: not a lock kind; valid kinds: qspinlock, ...
 *   pvspin bench: --repeat 0: not an integer from 1 to 1000
 *
 * The "--help lists the options" line follows the errors about the shape
 * of the command line (an option unknown, without its value or with one
 * it does not take, a stray operand: tool_option_error(),
 * tool_operand_error()), where the option list is the answer; an error
 * about an option's value names what the option takes itself and is one
 * line, in every subcommand.
 */
#ifndef PVSPIN_TOOLS_OPTION_ERROR_H
#define PVSPIN_TOOLS_OPTION_ERROR_H

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/value_quote.h"

/**
 * Report what getopt_long() refused and return 2 (bad usage).  `opt` is
 * its return value: ':' for an option without its value, anything else
 * ('?') for an unknown option, or a long one given "=VALUE" that takes
 * none ("option '--stats' takes no value"); the caller set opterr = 0 and began its
 * optstring with ':' (after a '+', if any), and optind and optopt are as
 * getopt_long() left them.  `prog` is the name to print ("pvspin run").
 * A short flag given "=VALUE" ("-s=1") is named as the flag, "takes no
 * value", not as an unknown option '-='.
 * The option is named as the user wrote it: a long option without its
 * "=VALUE", a short one as "-x" (also inside a cluster such as "-sx").
 * Not thread-safe (getopt's globals).
 */
static inline int tool_option_error(const char *prog, int opt, char *const *argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	char name[64];
	if (arg && !strncmp(arg, "--", 2))
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	else if (optopt > 0 && optopt < 256)
		snprintf(name, sizeof(name), "-%c", optopt);
	else
		snprintf(name, sizeof(name), "%s", arg ? arg : "");
	/* "-s=1": getopt takes -s, then '=' as the next option of the
	 * cluster; the user meant a value for the flag before it.  The
	 * cluster is argv[optind] while getopt is inside it, argv[optind - 1]
	 * once '=' was its last char. */
	char flag = 0;
	for (int k = optind; optopt == '=' && !flag && k >= 0 && k >= optind - 1; k--) {
		const char *c = argv[k], *eq = c && c[0] == '-' && c[1] != '-' ? strchr(c, '=') : NULL;
		if (eq && eq - c >= 2)
			flag = eq[-1];
	}
	if (flag)
		snprintf(name, sizeof(name), "-%c", flag);
	if (opt == ':')
		fprintf(stderr, "%s: option '%s' needs a value\n", prog, name);
	else if (flag)
		fprintf(stderr, "%s: option '%s' takes no value\n", prog, name);
	else if (arg && !strncmp(arg, "--", 2) && strchr(arg, '=') && optopt != 0)
		/* glibc: a known long option given "=VALUE" that takes none
		 * sets optopt to its val (an unknown one sets 0) */
		fprintf(stderr, "%s: option '%s' takes no value\n", prog, name);
	else
		fprintf(stderr, "%s: unknown option '%s'\n", prog, name);
	fprintf(stderr, "(%s --help lists the options)\n", prog);
	return 2;
}

/**
 * Report an operand (a word that is not an option) that the subcommand
 * does not take, and return 2 (bad usage):
 *
 *   pvspin bench: unexpected operand 'extra'
 *   (pvspin bench --help lists the options)
 *
 * Every subcommand says it in these words, also for an operand given with
 * -h / --help (help takes none).  `prog` is the name to print ("pvspin
 * bench").  Thread-safe: one fprintf() writes both lines.
 */
static inline int tool_operand_error(const char *prog, const char *operand)
{
	fprintf(stderr, "%s: unexpected operand '%s'\n(%s --help lists the options)\n", prog,
		operand, prog);
	return 2;
}

/**
 * The rule of -h / --help in every subcommand: given anywhere among the
 * options, it wins over the other options' values, which are not judged
 * (`pvspin bench --threads 0 --help` prints the help, exit 0), but not
 * over the command line's shape: an unknown option, one without its value
 * or an operand (help takes none) is still said as without --help
 * (tool_option_error(), tool_operand_error()).  Scans argv with
 * getopt_long() and the subcommand's own `optstring` (starting with ':')
 * and `longopts`, so an option's value is not taken for -h ("--json
 * --help" names a file) and nothing after "--" is an option.  Returns 0
 * when -h / --help is not given (optind is then 1 again, for the
 * subcommand's own parse), 1 when the caller should print its help and
 * exit 0, or 2 (bad usage) after the message of the first shape error.
 * Sets opterr = 0.  Not thread-safe (getopt's globals).  An operand
 * given with -h / --help is said by `operand_error(prog, operand)`,
 * which prints it and returns 2: tool_operand_error() for most
 * subcommands (tool_help_scan()); `pvspin run`, whose operand is a
 * program, says "--help takes no program" instead, where "unexpected
 * operand" would read as if run took none.
 */
static inline int tool_help_scan_as(const char *prog, int argc, char **argv,
				    const char *optstring, const struct option *longopts,
				    int (*operand_error)(const char *prog, const char *operand))
{
	int opt;
	bool help = false;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, optstring, longopts, NULL)) != -1)
		help |= opt == 'h';
	optind = 1;
	if (!help)
		return 0;
	while ((opt = getopt_long(argc, argv, optstring, longopts, NULL)) != -1)
		if (opt == '?' || opt == ':')
			return tool_option_error(prog, opt, argv);
	return optind < argc ? operand_error(prog, argv[optind]) : 1;
}

/** tool_help_scan_as() with the common report of an operand,
 *  tool_operand_error(). */
static inline int tool_help_scan(const char *prog, int argc, char **argv, const char *optstring,
				 const struct option *longopts)
{
	return tool_help_scan_as(prog, argc, argv, optstring, longopts, tool_operand_error);
}

/**
 * Report an empty file name given to option `option` ("--json" "") and
 * return 2 (bad usage): a value of the command line (--json "$OUT" with
 * OUT unset), not a file that cannot be used (exit 1).  `expected` says
 * what the option takes ("a FILE, or - for standard output"):
 *
 *   pvspin bench: --json: empty file name (expected a FILE, or - for standard output)
 *
 * Every subcommand says it in these words.  One fprintf(): thread-safe.
 */
static inline int tool_empty_name_error(const char *prog, const char *option,
					const char *expected)
{
	fprintf(stderr, "%s: %s: empty file name (expected %s)\n", prog, option, expected);
	return 2;
}

/** The quote to write around `value`, a value given on the command line,
 *  in a message: "'" when it is empty or holds a blank, which would not
 *  show otherwise (--cpuid '', vms='', --seeds ' 2'), else "".  Every
 *  message that shows such a value quotes it by this rule, the library's
 *  lines of a bad PVSPIN_LOCK / PVSPIN_POLICY too (pvspin_value_quote(),
 *  src/util/value_quote.h).  Thread-safe. */
static inline const char *tool_value_quote(const char *value)
{
	return pvspin_value_quote(value);
}

/**
 * Report an option given twice with two values where one is meant (two
 * presets, two reports, two lock kinds) and return 2 (bad usage), instead
 * of keeping the last:
 *
 *   pvspin run: two lock kinds given (--lock tas, --lock ticket); give one
 *
 * `what` names the values in the plural; the values are quoted by
 * tool_value_quote() (--json '', --json -).  Every subcommand says it in
 * these words (tool_option_once()).  One fprintf(): thread-safe.
 */
static inline int tool_given_twice_error(const char *prog, const char *what, const char *opt,
					 const char *first, const char *second)
{
	fprintf(stderr, "%s: two %s given (%s " PVSPIN_QUOTED ", %s " PVSPIN_QUOTED "); give one\n",
		prog, what, opt, PVSPIN_QUOTED_ARGS(first), opt, PVSPIN_QUOTED_ARGS(second));
	return 2;
}

/**
 * Take `value`, given to the option `opt` of `prog`, as that option's one
 * value, kept in *given (NULL until the option is first given): the
 * first time, or the same value again (one choice said twice, "--lock
 * tas -l tas"), it is stored and 0 returned; a second, different value is
 * refused by tool_given_twice_error() (`what`: the values in the plural,
 * "lock kinds") and 2 returned (bad usage), *given untouched.  The rule
 * of every option that takes one value in run, bench, torture, sim and
 * detect: none keeps the last of two values without a word.  Values are
 * compared as written ("5" and "05" are two).  Not for an option whose
 * repeats add up (pvspin sim --set KEY=VALUE).  Thread-safe.
 */
static inline int tool_option_once(const char *prog, const char *what, const char *opt,
				   const char **given, const char *value)
{
	if (*given && strcmp(*given, value))
		return tool_given_twice_error(prog, what, opt, *given, value);
	*given = value;
	return 0;
}

/**
 * Write the line of a bad value to `f`: `prog`, then `name` and `value`
 * joined by `sep` (' ' for an option, "--lock bogus"; '=' for a key or a
 * variable, "vms=0", as `pvspin sim` takes its keys and as a bad PVSPIN_*
 * variable is said), the value quoted by tool_value_quote(), then
 * `reason` and `names` (NULL: `reason` says all):
 *
 *   pvspin sim: vms='': not an integer from 1 to 64
 *
 * The one shape of tool_value_error() and of pvspin sim's bad key
 * values.  One fprintf(): thread-safe.
 */
static inline void tool_value_line(FILE *f, const char *prog, const char *name, char sep,
				   const char *value, const char *reason, const char *names)
{
	fprintf(f, "%s: %s%c" PVSPIN_QUOTED ": %s%s\n", prog, name, sep, PVSPIN_QUOTED_ARGS(value),
		reason, names ? names : "");
}

/**
 * Report a bad value of an option and return 2 (bad usage), in the shape
 * of a bad environment variable's line ("WHO: PVSPIN_LOCK=bogus: not a
 * lock kind; valid kinds: ...", src/policy/policy_default.h): the command,
 * the option and its value, what is wrong, what it takes:
 *
 *   pvspin torture: --lock bogus: not a lock kind; valid kinds: qspinlock, ...
 *   pvspin run: --policy bogus: not a policy; valid policies: linux, ...
 *
 * `prog` is the name to print ("pvspin run"), `option` the option's long
 * name ("--lock", also when the short one was given), `value` the value
 * refused (for a list, the item refused; quoted by tool_value_quote()),
 * `reason` what is wrong ("not a lock kind; valid kinds: ":
 * PVSPIN_LOCK_NOT_A_KIND), followed by `names` (the valid ones, or NULL
 * when `reason` says all).  No "--help lists the options" line (the
 * reason says what the option takes).  One line on stderr
 * (tool_value_line()): thread-safe.
 */
static inline int tool_value_error(const char *prog, const char *option, const char *value,
				   const char *reason, const char *names)
{
	tool_value_line(stderr, prog, option, ' ', value, reason, names);
	return 2;
}

/** True if `s` is a plain decimal number: 1 to 20 digits and nothing else
 *  (no sign, blank, 0x or octal prefix), the only form an option's number
 *  takes in every subcommand (the range is the caller's to check). */
static inline bool tool_is_decimal(const char *s)
{
	size_t n = strspn(s, "0123456789");
	return n > 0 && n <= 20 && !s[n];
}

/** Parse `s`, a plain decimal number (tool_is_decimal()), from `lo` to
 *  `hi` into *out.  False for anything else (a sign, a blank, 0x, more
 *  than 2^64 - 1, out of range), *out then untouched: the caller's message
 *  names the option and the range.  Thread-safe (errno is per thread). */
static inline bool tool_parse_decimal(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (!tool_is_decimal(s))
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, NULL, 10);
	if (errno || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/**
 * Report a value of a number option that is not a plain decimal integer
 * from `lo` to `hi` (tool_parse_decimal()), and return 2 (bad usage):
 * tool_value_error()'s line, whose reason names the range,
 *
 *   pvspin torture: --threads 2000: not an integer from 1 to 1024
 *
 * the same words for a value out of range, with a sign, a blank or
 * letters, and for an item of a list of numbers (`value` is then the
 * item).  `prog`, `option` and `value` as for tool_value_error().  One
 * line on stderr: thread-safe.
 */
static inline int tool_number_error(const char *prog, const char *option, const char *value,
				    uint64_t lo, uint64_t hi)
{
	char reason[80];
	snprintf(reason, sizeof(reason), "not an integer from %" PRIu64 " to %" PRIu64, lo, hi);
	return tool_value_error(prog, option, value, reason, NULL);
}

/**
 * The value `s` of the number option `option` of `prog`: a plain decimal
 * integer from `lo` to `hi` into *out and 0, else tool_number_error()'s
 * line and 2 (bad usage), *out then untouched.  Every subcommand parses
 * its number options with it, so they take the same form and are refused
 * in the same words.  Thread-safe (errno is per thread; one fprintf()).
 */
static inline int tool_option_number(const char *prog, const char *option, const char *s,
				     uint64_t lo, uint64_t hi, uint64_t *out)
{
	return tool_parse_decimal(s, lo, hi, out) ? 0 : tool_number_error(prog, option, s, lo, hi);
}

/**
 * tool_option_number() for an option that takes one number: the value `s`
 * is first taken by tool_option_once() (`what`, `given` as there: a
 * second, different value is refused, the same one again accepted), then
 * parsed from `lo` to `hi` into *out.  Returns 0, or 2 (bad usage) after
 * the one line that says why.  Thread-safe.
 */
static inline int tool_option_number_once(const char *prog, const char *what, const char *opt,
					  const char **given, const char *s, uint64_t lo,
					  uint64_t hi, uint64_t *out)
{
	if (tool_option_once(prog, what, opt, given, s))
		return 2;
	return tool_option_number(prog, opt, s, lo, hi, out);
}

#endif /* PVSPIN_TOOLS_OPTION_ERROR_H */

#!/bin/sh
# cli_given_twice.sh PVSPIN COMMAND 'OPT A B WHAT' ...: every option of
# `pvspin COMMAND` that takes one value, given twice with two values, is
# refused in the words of tools/pvspin/option_error.h: `pvspin COMMAND
# OPT A OPT B stray-operand` exits 2 saying only
#
#   pvspin COMMAND: two WHAT given (OPT A, OPT B); give one
#
# (a new user's finding: `pvspin run --spin-limit 5 --spin-limit 9`,
# `pvspin bench --threads 1 --threads 2`, `pvspin torture --lock a --lock
# b`, `pvspin sim --seed 1 --seed 2` kept the last value without a word).
# The same value twice is one choice: `pvspin COMMAND OPT A OPT A
# stray-operand` gets past the options to the operand, which it names (a
# stray operand; for run a program that cannot be found, for sim a
# scenario that cannot be read).  The operand also keeps a command that
# took the options from running anything.  Each case is one argument: the
# option, the two values (without blanks) and the plural that names them.
# Prints given-twice-ok on success, else what went wrong in each case.
set -u
pvspin=$1
cmd=$2
shift 2
fail=0
for c in "$@"; do
	set -f
	# shellcheck disable=SC2086 # the case's words
	set -- $c
	set +f
	opt=$1 a=$2 b=$3
	shift 3
	what=$*
	e=$("$pvspin" "$cmd" "$opt" "$a" "$opt" "$b" stray-operand 2>&1 >/dev/null)
	r=$?
	want="pvspin $cmd: two $what given ($opt $a, $opt $b); give one"
	if [ "$r" -ne 2 ] || [ "$e" != "$want" ]; then
		echo "$cmd $opt $a $opt $b: exit $r, stderr '$e' (want exit 2, '$want')"
		fail=1
	fi
	e=$("$pvspin" "$cmd" "$opt" "$a" "$opt" "$a" stray-operand 2>&1 >/dev/null)
	r=$?
	case "$e" in
	*"two $what given"* | *"given twice"*)
		echo "$cmd $opt $a $opt $a: the same value twice refused: '$e'"
		fail=1 ;;
	*stray-operand*) ;;
	*)
		echo "$cmd $opt $a $opt $a stray-operand: exit $r, stderr '$e' (want the operand named)"
		fail=1 ;;
	esac
done
[ "$fail" -eq 0 ] && echo given-twice-ok

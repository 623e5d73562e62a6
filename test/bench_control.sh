#!/bin/sh
# bench_control.sh PVSPIN: `pvspin bench --control` (docs/bench.md).
# - With the default kind (PVSPIN_LOCK, so that the machine's policy does
#   not matter) and its control alone, the control is a row of the table
#   (KIND_control) but never "the best other lock": no comparison line,
#   and the control's block has one line per thread count, each
#   "N threads R.RRx [LO-HI] paired P.PPx".
# - Another default kind gets its own control (tas_control), and the
#   comparison names a real other lock.
# - A --locks without the default kind is refused: exit 2, one line that
#   names the kind, where it came from (PVSPIN_LOCK here) and the list.
# - The JSON's config says --control ("control": true).
# Prints control-ok alone on success, else what went wrong.
set -u
pvspin=$1
run() { "$pvspin" bench --repeat 2 --duration-ms 20 --no-placement "$@" 2>&1; }
fail() { echo "$1"; echo "$2"; exit 1; }

o=$(PVSPIN_LOCK=spinpark run --threads 1,2 --locks spinpark --control) || fail "exit $?" "$o"
echo "$o" | grep -q '^spinpark_control  *2 ' || fail "no control row at 2 threads" "$o"
echo "$o" | grep -q 'over the best other lock' && fail "compared with its own control" "$o"
echo "$o" | grep -q '^# spinpark over spinpark_control, the same lock measured again' ||
	fail "no control block" "$o"
n=$(echo "$o" | grep -c '^#  *[12] threads*  *[0-9.]*x \[[0-9.]*-[0-9.]*\]  *paired  *[0-9.]*x$')
[ "$n" -eq 2 ] || fail "$n control lines, want 2" "$o"

j=$(PVSPIN_LOCK=tas run --threads 1 --locks tas,spinpark --control --json -) || fail "json: exit $?" "$j"
echo "$j" | tr -d ' \n' | grep -q '"config":{"locks":\["tas","spinpark","tas_control"\],"control":true,' ||
	fail "json: no control in the config" "$j"
o=$(PVSPIN_LOCK=tas run --threads 1 --locks tas,spinpark --control) || fail "tas: exit $?" "$o"
echo "$o" | grep -q '^# tas over tas_control' || fail "tas: no tas_control block" "$o"
echo "$o" | grep -A1 'over the best other lock' | grep -q 'x spinpark ' ||
	fail "tas: not compared with spinpark" "$o"

e=$(PVSPIN_LOCK=spinpark run --threads 1 --locks tas --control)
r=$?
want='pvspin bench: --control measures the default kind, spinpark (PVSPIN_LOCK), a second time: --locks tas does not include it (valid: --locks with spinpark in it)'
[ $r -eq 2 ] && [ "$e" = "$want" ] || fail "without the kind: exit $r" "$e"
echo control-ok

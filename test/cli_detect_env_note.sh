#!/bin/sh
# cli_detect_env_note.sh PVSPIN - the note under `pvspin detect`'s table:
# which of PVSPIN_LOCK / PVSPIN_POLICY programs started from here follow,
# in the library's order (test/cli.cmake).
p=$1
n() { env "$@" "$p" detect --interval-ms 0 | tail -1; }
bad() { echo "FAIL: $1: got '$2'"; exit 1; }
use=' is set: programs started from here use'
o=$(n PVSPIN_LOCK=tas)
[ "$o" = "PVSPIN_LOCK=tas$use that kind, whatever the policies pick" ] || bad lock "$o"
o=$(n PVSPIN_LOCK=tas PVSPIN_POLICY=fast)
[ "$o" = "PVSPIN_LOCK=tas$use that kind, whatever the policies pick" ] || bad lock+bad-policy "$o"
o=$(n PVSPIN_LOCK=bogus PVSPIN_POLICY=linux)
[ "$o" = "PVSPIN_LOCK=bogus is set and is not a lock kind: programs started from here exit 2" ] ||
	bad bad-lock "$o"
o=$(n PVSPIN_LOCK= PVSPIN_POLICY=linux)
[ "$o" = "PVSPIN_POLICY=linux$use that policy's pick, not pvspin's" ] || bad policy "$o"
o=$(n PVSPIN_POLICY=fast)
[ "$o" = "PVSPIN_POLICY=fast is set and is not a policy: programs started from here exit 2" ] ||
	bad bad-policy "$o"
o=$(n PVSPIN_LOCK= PVSPIN_POLICY=)
case $o in PVSPIN*) bad empty "$o";; esac
o=$(PVSPIN_LOCK=tas "$p" detect --interval-ms 0 --policy linux | tail -1)
case $o in PVSPIN*) bad --policy "$o";; esac
echo detect-env-note-ok

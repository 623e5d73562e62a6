#!/bin/sh
# stop_signal_nohup.sh PVSPIN - SIGHUP inherited as ignored (nohup) stays
# ignored: `pvspin torture`, `bench` and `sim` started with SIGHUP ignored
# get one 0.5 s in (their handlers are installed by then) and run to
# their end, exit 0, with their full report.  Until 2026-12-06 they caught
# it anyway and stopped (exit 129): a `nohup pvspin torture --seconds 3600
# &` ended with its terminal.  Prints nohup-ok, or what went wrong.
p=$1
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
fail=0
run() {   # NAME COMMAND... : started with SIGHUP ignored, sent SIGHUP at 0.5 s
	name=$1; shift
	sh -c 'trap "" HUP; exec "$@"' sh "$@" >"$d/$name.out" 2>&1 &
	pid=$!
	sleep 0.5
	kill -HUP $pid 2>/dev/null
	wait $pid; r=$?
	if [ $r -ne 0 ]; then
		echo "$name: exit $r after SIGHUP, expected 0:"; cat "$d/$name.out"; fail=1
	fi
}
run torture "$p" torture --lock spinpark --threads 2 --seconds 2 --stats-interval 0 --no-inject
grep -q '^SUCCESS' "$d/torture.out" || { echo 'torture: no SUCCESS line'; fail=1; }
run bench "$p" bench --locks tas --threads 1 --repeat 1 --duration-ms 1500 --no-placement
grep -q '^tas  *1 ' "$d/bench.out" || { echo 'bench: no table row'; fail=1; }
run sim "$p" sim --preset smoke --set seconds=3
grep -q 'stop end at 3.000000 s' "$d/sim.out" || { echo 'sim: did not run to its end'; fail=1; }
[ $fail -eq 0 ] && echo nohup-ok

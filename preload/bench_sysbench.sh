#!/bin/sh
# bench_sysbench.sh - a `pvspin run` benchmark of every kind: Debian sysbench
# `threads` (each event: YIELDS times lock one of LOCKS mutexes,
# sched_yield() while holding it, unlock: a lock-holder-preemption
# torture) at 1x, 2x and 4x the online CPUs, plain glibc against every
# pvspin kind through `pvspin run`.  Prints a Markdown table of events/s
# (events / sysbench's total time: an event in progress when --time runs
# out still finishes, which with a collapsing lock can take much longer
# than --time).  The "+limit" columns run the kind with
# `pvspin run --spin-limit 32768` (mutex waiters spin, then sleep).
#
# usage: preload/bench_sysbench.sh PVSPIN_BINARY [SECONDS] [YIELDS]
set -eu
usage="usage: bench_sysbench.sh PVSPIN_BINARY [SECONDS] [YIELDS]"
if [ $# -lt 1 ] || [ $# -gt 3 ]; then
	echo "$usage" >&2
	exit 2
fi
pvspin=$1
secs=${2:-5}
yields=${3:-100}
. "$(dirname "$0")/script_lib.sh"
[ -x "$pvspin" ] && [ ! -d "$pvspin" ] || {
	echo "bench_sysbench: '$pvspin' is not the pvspin binary (e.g. build/release/tools/pvspin)" >&2
	exit 2
}
need_count bench_sysbench SECONDS "$secs"
need_count bench_sysbench YIELDS "$yields"
command -v sysbench >/dev/null || { echo "bench_sysbench: sysbench not installed (scripts/install-deps.sh)" >&2; exit 1; }
locks=8
ncpu=$(nproc)
limit=32768
kinds="glibc spinpark qspinlock pvqspinlock tas ticket qspinlock+limit tas+limit ticket+limit"

run_one() { # kind threads -> "events total_time"
	case "$1" in
	*+limit) lim="--spin-limit $limit"; kind=${1%+limit} ;;
	*) lim=""; kind=$1 ;;
	esac
	if [ "$1" = glibc ]; then
		out=$(sysbench threads --threads="$2" --thread-yields="$yields" \
			--thread-locks="$locks" --time="$secs" run)
	else
		out=$("$pvspin" run --lock "$kind" $lim -- sysbench threads --threads="$2" \
			--thread-yields="$yields" --thread-locks="$locks" --time="$secs" run)
	fi
	ev=$(printf '%s\n' "$out" | awk '/total number of events:/ {print $NF}')
	tt=$(printf '%s\n' "$out" | awk '/total time:/ {sub("s","",$NF); print $NF}')
	echo "$ev $tt"
}

printf '| threads (x cores) |'
for k in $kinds; do printf ' %s |' "$k"; done
printf '\n|---|'
for k in $kinds; do printf -- '---:|'; done
printf '\n'
for mult in 1 2 4; do
	t=$((ncpu * mult))
	printf '| %d (%dx) |' "$t" "$mult"
	for k in $kinds; do
		set -- $(run_one "$k" "$t")
		printf ' %s |' "$(awk -v e="$1" -v s="$2" 'BEGIN { printf "%.0f", e / s }')"
	done
	printf '\n'
done
echo
echo "sysbench threads --thread-yields=$yields --thread-locks=$locks --time=$secs; events/s; $ncpu CPUs; +limit: pvspin run --spin-limit $limit"

#!/bin/bash
# bench_programs.sh - real programs on glibc and under `pvspin run` (the
# default kind, or KIND), side by side in one run: the figures of issue 10,
# "Done when" 3.  Each row runs glibc and pvspin alternately RUNS times
# (default 3) and reports the medians and pvspin over glibc.
#
#   sysbench threads --threads=8 --thread-locks=4   events/s (higher is better)
#   sysbench mutex --threads=8                      wall s
#   stress-ng --mutex 8 --timeout 5, as nobody      bogo ops (higher is better)
#   condvar barrier, 8 threads x 2000 rounds        wall s (test_preload_helper)
#   condvar ping-pong, 2 threads x 20000 rounds     wall s (test_preload_helper)
#   pthread_spin holder sleeping 2 ms, 8 waiters    wall s and waiters' CPU / wall s
#   uncontended lock+unlock pairs (spin, mutex, recursive mutex; alone
#   and with a second thread alive)                 ns per pair
#   sort --parallel=8, xz -T8, pigz -p 8, zstd -T8  wall s on generated input
#   memcached -t 8, memcaslap 2 threads x 32 connections, 3 s   ops/s
#
# usage: preload/bench_programs.sh BUILD_DIR [KIND]
#   BUILD_DIR: a build tree (tools/pvspin, test/test_preload_helper)
#   RUNS=N: runs per side (default 3).  Needs sysbench, stress-ng, xz,
#   pigz, zstd, setpriv, memcached, memcaslap and memcping
#   (scripts/install-deps.sh installs them).
# Takes about 4.5 minutes on the 2-vCPU development guest.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: bench_programs.sh BUILD_DIR [KIND]" >&2
	exit 2
fi
build=$1
kind=${2:-}
runs=${RUNS:-3}
. "$(dirname "$0")/script_lib.sh"
need_count bench_programs RUNS "$runs"
pvspin="$build/tools/pvspin"
helper="$build/test/test_preload_helper"
for f in "$pvspin" "$helper"; do
	[ -x "$f" ] || { echo "bench_programs: $f not found (build first)" >&2; exit 1; }
done
for p in sysbench stress-ng xz pigz zstd setpriv memcached memcaslap memcping; do
	command -v "$p" >/dev/null || { echo "bench_programs: $p not installed" >&2; exit 1; }
done
[ -z "$kind" ] || need_kind bench_programs "$pvspin" "$kind"
run=("$pvspin" run)
[ -n "$kind" ] && run+=(--lock "$kind")
tmp=$(mktemp -d)
mc_pid=
trap '[ -z "$mc_pid" ] || kill "$mc_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

# Inputs: 64 MiB of this machine's shared libraries (compressible like real
# data), and 4 M shuffled numbers for sort.
find /usr/lib -name '*.so*' -type f 2>/dev/null | sort | xargs cat 2>/dev/null |
	head -c 67108864 > "$tmp/data" || true
seq 1 4000000 | awk 'BEGIN { srand(1) } { print int(rand() * 1e9), $0 }' > "$tmp/nums"

# on SIDE: set the array `side` to what runs a command on SIDE: nothing
# for glibc, `pvspin run [--lock KIND] --` for pvspin ("${side[@]}" CMD)
on() {
	if [ "$1" = glibc ]; then side=(); else side=("${run[@]}" --); fi
}
# wall SIDE CMD...: run CMD on SIDE (glibc or pvspin), print its wall seconds
wall() {
	local t0 t1
	on "$1"; shift
	t0=$(now)
	"${side[@]}" "$@" > /dev/null 2>&1
	t1=$(now)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}
# out SIDE CMD...: run CMD on SIDE, print its standard output
out() {
	on "$1"; shift
	"${side[@]}" "$@" 2>&1
}

# row NAME UNIT BETTER MEASURE...: MEASURE SIDE prints one number per run
row() {
	local name=$1 unit=$2 better=$3; shift 3
	: > "$tmp/g"; : > "$tmp/p"
	for i in $(seq "$runs"); do
		"$@" glibc >> "$tmp/g"
		"$@" pvspin >> "$tmp/p"
	done
	local g p
	g=$(median < "$tmp/g"); p=$(median < "$tmp/p")
	awk -v n="$name" -v u="$unit" -v b="$better" -v g="$g" -v p="$p" 'BEGIN {
		printf "| %s | %s | %s | %s | %.2fx (%s is better) |\n", n, u, g, p, (g > 0 ? p / g : 0), b }'
}

m_sb_threads() { out "$1" sysbench threads --threads=8 --thread-locks=4 --time=3 run |
	awk '/total number of events/ { e = $NF } /total time:/ { t = $NF + 0 } END { printf "%.0f\n", e / t }'; }
m_sb_mutex() { wall "$1" sysbench mutex --threads=8 run; }
m_stress() {
	out "$1" setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		stress-ng --mutex 8 --timeout 5 --temp-path /tmp --metrics-brief |
		awk '{ for (i = 1; i < NF; i++) if ($i == "mutex" && $(i + 1) ~ /^[0-9]+$/) { print $(i + 1); exit } }'
}
m_barrier() { wall "$1" "$helper" barrier 8 2000; }
m_pingpong() { wall "$1" "$helper" pingpong 20000; }
m_spin_wall() { out "$1" "$helper" spinsleep 8 2 0 | sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p'; }
m_spin_cpu() { out "$1" "$helper" spinsleep 8 2 0 | sed -n 's/.*waiter_cpu=\([0-9.]*\).*/\1/p'; }
# the cost of one uncontended lock/unlock pair, ns (test_preload_helper
# uncontended: 5 M pairs): THREADS 1 (the process alone) or 2 (a second
# thread alive, asleep), FIELD spin_ns, mutex_ns or recursive_ns
m_uncontended() {
	local side=$1 threads=$2 field=$3
	out "$side" "$helper" uncontended 5000000 |
		sed -n "s/^threads=$threads .*$field=\([0-9.]*\).*/\1/p"
}
m_unc_spin() { m_uncontended "$1" 2 spin_ns; }
m_unc_mutex1() { m_uncontended "$1" 1 mutex_ns; }
m_unc_mutex2() { m_uncontended "$1" 2 mutex_ns; }
m_unc_recursive2() { m_uncontended "$1" 2 recursive_ns; }
m_sort() { wall "$1" sort --parallel=8 -S 64M -T "$tmp" -o "$tmp/sorted" "$tmp/nums"; }
m_xz() { wall "$1" sh -c "xz -T8 -6 -c '$tmp/data' > '$tmp/data.xz'"; }
m_pigz() { wall "$1" sh -c "pigz -p 8 -c '$tmp/data' > '$tmp/data.gz'"; }
m_zstd() { wall "$1" sh -c "zstd -T8 -q -c '$tmp/data' > '$tmp/data.zst'"; }
# memcached -t 8 on SIDE on a free port of 127.0.0.1 (as nobody when root:
# memcached refuses root), driven by memcaslap (2 threads, 32 connections,
# its default get/set mix) for 3 s: ops/s.  The server is started when
# memcping answers (within 5 s) and stopped after.
m_memcached() {
	local port i user=()
	[ "$(id -u)" = 0 ] && user=(-u nobody)
	for i in $(seq 20); do
		port=$((20000 + RANDOM % 20000))
		on "$1"
		"${side[@]}" memcached "${user[@]}" -t 8 -p "$port" -U 0 -l 127.0.0.1 > /dev/null 2>&1 &
		mc_pid=$!
		for _ in $(seq 50); do
			memcping --servers="127.0.0.1:$port" > /dev/null 2>&1 && break
			kill -0 "$mc_pid" 2>/dev/null || break
			sleep 0.1
		done
		memcping --servers="127.0.0.1:$port" > /dev/null 2>&1 && break
		kill "$mc_pid" 2>/dev/null; wait "$mc_pid" 2>/dev/null || true; mc_pid=
	done
	[ -n "$mc_pid" ] || { echo "bench_programs: memcached did not start" >&2; echo 0; return; }
	memcaslap -s "127.0.0.1:$port" -T 2 -c 32 -t 3s 2>&1 |
		awk '/^Run time:/ { t = $0 } END { split(t, f, "TPS: "); printf "%d\n", f[2] + 0 }'
	kill "$mc_pid" 2>/dev/null; wait "$mc_pid" 2>/dev/null || true; mc_pid=
}

echo "# pvspin run${kind:+ --lock $kind} against glibc, median of $runs runs each, $(nproc) CPUs, $(date -u +%FT%TZ)"
echo "| program | unit | glibc | pvspin | pvspin / glibc |"
echo "|---|---|---:|---:|---:|"
row "sysbench threads --threads=8 --thread-locks=4" "events/s" higher m_sb_threads
row "sysbench mutex --threads=8" "wall s" lower m_sb_mutex
row "stress-ng --mutex 8 --timeout 5 (uid 65534)" "bogo ops" higher m_stress
row "condvar broadcast barrier, 8 threads" "wall s" lower m_barrier
row "condvar ping-pong, 2 threads" "wall s" lower m_pingpong
row "pthread_spin holder sleeps 2 ms, 8 waiters" "wall s" lower m_spin_wall
row "... the waiters' CPU per wall second" "CPUs" lower m_spin_cpu
row "pthread_spin lock+unlock, uncontended, 2 threads" "ns" lower m_unc_spin
row "pthread_mutex lock+unlock, uncontended, 1 thread" "ns" lower m_unc_mutex1
row "pthread_mutex lock+unlock, uncontended, 2 threads" "ns" lower m_unc_mutex2
row "recursive mutex lock+unlock, uncontended, 2 threads" "ns" lower m_unc_recursive2
row "sort --parallel=8 (4 M lines)" "wall s" lower m_sort
row "xz -T8 -6 (64 MiB)" "wall s" lower m_xz
row "pigz -p 8 (64 MiB)" "wall s" lower m_pigz
row "zstd -T8 (64 MiB)" "wall s" lower m_zstd
row "memcached -t 8, memcaslap 32 connections, 3 s" "ops/s" higher m_memcached

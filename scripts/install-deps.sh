#!/bin/sh
# install-deps.sh - install the Debian packages pvspin needs to build, test
# and benchmark.  As root it runs apt-get; otherwise it prints the exact
# command and fails.  Packages:
#   build-essential cmake pkg-config  compiler and build
#   libjansson-dev   JSON output of bench / detect / sim
#   libinih-dev      scenario files of `pvspin sim` (INI)
#   libgsl-dev       latency percentiles (sorted-sample quantiles)
#   libck-dev        Concurrency Kit peers in `pvspin bench`
#   libcmocka-dev    unit-test framework
#   libelf-dev       `pvspin run`'s check of the interposer (ELF symbols)
#   gnuplot-nox      `pvspin bench --plot`
#   spin             Promela model checks of the halt/kick protocol
#   sysbench stress-ng  real programs for the LD_PRELOAD interposer
#   xz-utils pigz zstd  more of them (preload/bench_programs.sh)
#   memcached libmemcached-tools  memcached and its load generator memcaslap
#   cpuid            dumps a CPUID table for `pvspin detect --cpuid`
set -eu
PKGS="build-essential cmake pkg-config libjansson-dev libinih-dev libgsl-dev libck-dev libcmocka-dev libelf-dev gnuplot-nox spin sysbench stress-ng xz-utils pigz zstd memcached libmemcached-tools cpuid"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "install-deps: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
	echo "install-deps: missing packages:$missing" >&2
	echo "install-deps: run as root:  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi

#!/bin/sh
# reproduce.sh - run the three seed presets of `pvspin sim` and print the
# comparisons of issue 4's "done when" (sim/README.md, "Results").
# usage: sim/reproduce.sh [PATH-TO-pvspin-sim]   (default: build/dev/tools)
# Needs python3 for reading the JSON.  About a minute of CPU on one core.
set -e
SIM=${1:-build/dev/tools/pvspin-sim}
if [ ! -f "$SIM" ] || [ ! -x "$SIM" ]; then
  echo "pvspin-sim not found at $SIM (build it with make check, or pass the path)" >&2
  exit 1
fi
run() { "$SIM" "$@" --json - ; }
val() { python3 -c "import json,sys; j=json.load(sys.stdin); $1"; }
comp='print(max((v["completion_s"] or j["sim_seconds"]) for v in j["vms"]))'
tput='print(sum(v["ops_per_s"] for v in j["vms"]) / len(j["vms"]))'

echo "== kcbench-no-ple (seed 002: 2 VMs qspinlock 2362 s vs PV 354 s; 1 VM 173 vs 172 s)"
for vms in 1 2; do
  for lock in qspinlock pvqspinlock tas; do
    eval "c_${lock}=$(run --preset kcbench-no-ple --set vms=$vms --set lock=$lock | val "$comp")"
  done
  python3 -c "q,p,t=$c_qspinlock,$c_pvqspinlock,$c_tas; print('  vms=$vms completion s: qspinlock %.3f pvqspinlock %.3f tas %.3f -> qspinlock/pvq %.2fx, qspinlock/tas %.2fx' % (q,p,t,q/p,q/t))"
done

echo "== ebizzy-boost (seed 001: kick_yield gain +6% / +70% / +74% with 1 / 2 / 3 VMs)"
for vms in 1 2 3; do
  a=$(run --preset ebizzy-boost --set vms=$vms --set kick_yield=0 | val "$tput")
  b=$(run --preset ebizzy-boost --set vms=$vms --set kick_yield=1 | val "$tput")
  o=$(run --preset ebizzy-boost --set vms=$vms --set kick_yield=oracle | val "$tput")
  python3 -c "a,b,o=$a,$b,$o; print('  vms=$vms ops/s per VM: vanilla %.0f boost %.0f -> gain %+.1f%% (an instant free boost, kick_yield=oracle: %+.1f%%)' % (a,b,100*(b/a-1),100*(o/a-1)))"
done

echo "== spawn-dedicated (seed 000: qspinlock/virt_spin_lock 2.41x Intel 120 vCPUs, 1.09x AMD 128 vCPUs)"
for prof in intel-xeon amd-epyc; do
  q=$(run --preset spawn-dedicated --set profile=$prof --set lock=qspinlock | val "$tput")
  t=$(run --preset spawn-dedicated --set profile=$prof --set lock=tas | val "$tput")
  python3 -c "q,t=$q,$t; print('  $prof ops/s: qspinlock %.0f tas %.0f -> %.2fx' % (q,t,q/t))"
done
